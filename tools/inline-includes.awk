# SPDX-License-Identifier: MIT
# inline-includes.awk: print a header with each of its `#include "FILE"'
# lines replaced by FILE's text (found beside the file that includes it),
# recursively and once per file, so the result needs no other file.
# Inlined files lose their SPDX line (the top file's names the licence);
# the include guards stay, so the result can be used beside the headers it
# was made from.  `make' writes build/usdt.h with it:
#
#   awk -f tools/inline-includes.awk include/usdt.h > build/usdt.h
#
# An include that cannot be read is an error: status 1 and a message.

function dir_of(path) {
    return path ~ /\// ? substr(path, 1, match(path, /\/[^\/]*$/)) : ""
}

# emit(path, top): print the file at path, inlining its local includes.
function emit(path, top,    line, n, name, status) {
    if (path in seen)
        return 1
    seen[path] = 1
    n = 0
    while ((status = (getline line < path)) > 0) {
        n++
        if (!top && n == 1 && line ~ /SPDX-License-Identifier/)
            continue
        if (top && n == 1 && line ~ /SPDX-License-Identifier/) {
            print line
            name = path
            sub(/^.*\//, "", name)
            print "/* Generated from sdtkit's " name " and the headers it includes, by"
            print "   tools/inline-includes.awk: edit those, not this file. */"
            continue
        }
        if (match(line, /^[ \t]*#[ \t]*include[ \t]+"[^"]+"/)) {
            name = line
            sub(/^[^"]*"/, "", name)
            sub(/".*$/, "", name)
            if (!emit(dir_of(path) name, 0))
                return 0
            continue
        }
        print line
    }
    close(path)
    if (status < 0 || n == 0) {
        printf "inline-includes.awk: cannot read %s\n", path > "/dev/stderr"
        failed = 1
        return 0
    }
    return 1
}

BEGIN {
    if (ARGC != 2) {
        print "usage: awk -f inline-includes.awk HEADER" > "/dev/stderr"
        exit 2
    }
    emit(ARGV[1], 1)
    exit failed
}

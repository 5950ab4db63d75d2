# SPDX-License-Identifier: MIT
# links.awk FILE.md...: print every relative link [text](target) outside
# code blocks whose file does not exist, or whose #anchor is no heading of
# that file (GitHub's anchors: the heading in lower case, without
# punctuation, spaces as '-'); nothing when all lead somewhere.
function slug(h) {
    h = tolower(h)
    gsub(/[^a-z0-9 _-]/, "", h)
    gsub(/ /, "-", h)
    return h
}
# exists(PATH): 1 when PATH exists; a Markdown file's headings' slugs go
# into has[PATH, slug]
function exists(path,    line, fence) {
    if (path in seen) return seen[path]
    if (system("test -e '" path "'") != 0) return seen[path] = 0
    if (path ~ /\.md$/) {
        while ((getline line < path) > 0)
            if (line ~ /^```/) fence = !fence
            else if (!fence && line ~ /^#+ /) { sub(/^#+ +/, "", line); has[path, slug(line)] = 1 }
        close(path)
    }
    return seen[path] = 1
}
FNR == 1 { dir = FILENAME; if (!sub(/\/[^\/]*$/, "", dir)) dir = "."; fence = 0 }
/^```/ { fence = !fence; next }
fence { next }
{
    rest = $0
    while (match(rest, /\]\([^) ]+/)) {
        target = substr(rest, RSTART + 2, RLENGTH - 2)
        rest = substr(rest, RSTART + RLENGTH)
        if (target ~ /^[a-z]+:/) continue
        file = target; anchor = ""
        if (i = index(target, "#")) { file = substr(target, 1, i - 1); anchor = substr(target, i + 1) }
        path = file == "" ? FILENAME : dir "/" file
        sub(/\/$/, "", path)
        if (!exists(path))
            print FILENAME ":" FNR ": no such file: " target
        else if (anchor != "" && !has[path, anchor])
            print FILENAME ":" FNR ": no heading for #" anchor " in " path
    }
}

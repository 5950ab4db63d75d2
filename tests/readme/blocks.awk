# SPDX-License-Identifier: MIT
# blocks.awk -v dir=DIR FILE.md...: write every fenced block that follows a
# line `<!-- readme-test: EXAMPLE/NAME -->` to DIR/EXAMPLE/NAME, and print
# EXAMPLE/NAME once per block, in the order of the files.  A marker with no
# block after it, a block left open, or a name marked twice (in any of the
# files) is an error (exit 1).
function fail(msg) { print FILENAME ":" FNR ": " msg > "/dev/stderr"; bad = 1; exit 1 }
/^<!-- readme-test: [^ ]+ -->$/ {
    if (name != "") fail("marker for " name " has no block")
    name = $3
    if (name !~ /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.:-]+$/) fail("bad block name " name)
    if (marked[name]++) fail("block " name " is marked twice")
    next
}
inblock && /^```$/ { close(out); inblock = 0; name = ""; next }
inblock { print > out; next }
name != "" && /^```/ {
    split(name, part, "/")
    system("mkdir -p '" dir "/" part[1] "'")
    out = dir "/" name
    printf "" > out
    inblock = 1
    print name
    next
}
name != "" && NF { fail("marker for " name " is not followed by a block") }
END {
    if (bad) exit 1
    if (inblock || name != "") { print FILENAME ": block " name " is not closed" > "/dev/stderr"; exit 1 }
}

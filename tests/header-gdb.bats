#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# gdb decodes every probe argument: programs built with our header, run
# under gdb with `break -probe-stap', each $_probe_argN compared with the
# value the program passed (tests/header/gdbvals.c writes them to a file).
# bats file_tags=tracer

load helpers

PROBES="t:params t:globals t:members t:constants t:pointers"

setup() {
    need_gdb_python gdb
    cd "$BATS_TEST_TMPDIR"
}

# decode CC FLAGS...: build gdbvals with CC and FLAGS, run it under gdb,
# print "decoded/total", and leave the differences in diff.txt.
decode() {
    local cc=$1 lang=c
    shift
    case $cc in *++) lang=c++ ;; esac
    $cc -x $lang -g -I "${HDR:-$INCLUDE}" "$@" "$ROOT/tests/header/gdbvals.c" -o prog
    gdb_probe_args ./prog "$PWD/want.txt" -- $PROBES > got.txt
    sort want.txt > w; sort got.txt > g
    diff w g > diff.txt || true
    echo "$(comm -12 w g | wc -l)/$(wc -l < w)"
}

# all_decoded CC FLAGS...: every one of the 51 arguments decodes right.
all_decoded() {
    result=$(decode "$@")
    [ "$result" = "51/51" ] || { echo "$* -> $result"; cat diff.txt; false; }
}

@test "gdb decodes every integer argument: gcc -O0, -O1, -O2, -O3, -Os" {
    for opt in -O0 -O1 -O2 -O3 -Os; do all_decoded gcc $opt; done
}

@test "gdb decodes every integer argument: clang -O0, -O1, -O2, -O3, -Os" {
    for opt in -O0 -O1 -O2 -O3 -Os; do all_decoded clang $opt; done
}

@test "gdb decodes every integer argument with -flto, gcc and clang" {
    all_decoded gcc -O2 -flto
    need_cmd ld.lld
    all_decoded clang -O2 -flto -fuse-ld=lld
}

@test "gdb decodes every integer argument in non-PIE and static programs" {
    all_decoded gcc -O2 -fno-pie -no-pie
    all_decoded clang -O2 -fno-pie -no-pie
    all_decoded gcc -O2 -static
}

@test "gdb decodes every integer argument of the same program compiled as C++" {
    all_decoded g++ -O0
    all_decoded g++ -O2
    all_decoded clang++ -O2
}

@test "side by side: how many arguments gdb decodes with SystemTap's header" {
    need_stap_header
    HDR=$(stap_include)
    for cc in gcc clang; do
        for opt in -O0 -O2 -Os; do
            echo "# SystemTap's header, $cc $opt: $(decode $cc $opt -DBITFIELD_AS_INT) arguments decoded" >&3
        done
    done
    # ours, on the very same program and flags
    HDR=$INCLUDE
    for opt in -O0 -O2 -Os; do all_decoded gcc $opt -DBITFIELD_AS_INT; done
}

# Optimisation asked for inside the file (tests/header/gdbvals.c's
# OPT_PRAGMA and OPT_ATTR) leaves __OPTIMIZE__ undefined: the operands must
# not depend on it.  (clang has neither: it ignores both, with a warning.)
@test "gdb decodes every argument of -O0 code optimised by #pragma GCC optimize or __attribute__ ((optimize)) at every level" {
    for how in OPT_PRAGMA OPT_ATTR; do
        for level in O1 O2 O3 Os; do
            all_decoded gcc -O0 -D$how=$level
            # never rip-relative or indexed, the forms gdb cannot read
            ! readelf -n prog | grep Arguments | grep -E '%rip|\(%[a-z0-9]+,' || false
            all_decoded g++ -O0 -D$how=$level
        done
    done
}

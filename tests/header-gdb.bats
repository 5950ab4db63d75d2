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
}

# build CC FLAGS...: gdbvals built with CC and FLAGS (as C++ for a CC
# ending in ++) as N/prog, N the number of builds before it in the test
# (LAST), its words WHAT[N]; decode runs it.
build() {
    local cc=$1 lang=c
    shift
    case $cc in *++) lang=c++ ;; esac
    LAST=${#WHAT[@]}
    WHAT+=("$cc $*")
    PENDING+=("$LAST")
    mkdir $LAST
    $cc -x $lang -g -I "${HDR:-$INCLUDE}" "$@" "$ROOT/tests/header/gdbvals.c" -o $LAST/prog
}

# decode: every program built since the last decode, run in one gdb
# session (gdb_runs), each writing the values it passes to N/want.txt;
# gdb's values go to N/got.txt.
decode() {
    local n
    [ ${#PENDING[@]} -gt 0 ] || return 0
    for n in "${PENDING[@]}"; do echo "$n - - $PWD/$n/prog $PWD/$n/want.txt"; done | gdb_runs "$PWD" $PROBES
    for n in "${PENDING[@]}"; do grep -E '^[A-Za-z_0-9]+ arg(c|[0-9]+) ' $n.hits >$n/got.txt || true; done
    PENDING=()
}

# decoded N: "decoded/total" of build N, the differences in N/diff.txt.
decoded() {
    sort $1/want.txt > $1/w; sort $1/got.txt > $1/g
    diff $1/w $1/g > $1/diff.txt || true
    echo "$(comm -12 $1/w $1/g | wc -l)/$(wc -l < $1/w)"
}

# all_decoded [N...]: decode, then every one of the 51 arguments of build
# N (of every build of the test, without N) decodes right.
all_decoded() {
    local n result
    decode
    for n in "${@:-${!WHAT[@]}}"; do
        result=$(decoded $n)
        [ "$result" = "51/51" ] || { echo "${WHAT[n]} -> $result"; cat $n/diff.txt; false; }
    done
}

@test "gdb decodes every integer argument: gcc -O0, -O1, -O2, -O3, -Os" {
    for opt in -O0 -O1 -O2 -O3 -Os; do build gcc $opt; done
    all_decoded
}

@test "gdb decodes every integer argument: clang -O0, -O1, -O2, -O3, -Os" {
    for opt in -O0 -O1 -O2 -O3 -Os; do build clang $opt; done
    all_decoded
}

@test "gdb decodes every argument of programs built with -masm=intel: gcc and clang, -O0 and -O2" {
    for cc in gcc clang; do
        for opt in -O0 -O2; do build $cc $opt -masm=intel; done
    done
    all_decoded
}

@test "gdb decodes every integer argument with -flto, gcc and clang" {
    build gcc -O2 -flto
    all_decoded
    need_cmd ld.lld
    build clang -O2 -flto -fuse-ld=lld
    all_decoded $LAST
}

@test "gdb decodes every integer argument in non-PIE and static programs" {
    build gcc -O2 -fno-pie -no-pie
    build clang -O2 -fno-pie -no-pie
    build gcc -O2 -static
    all_decoded
}

@test "gdb decodes every integer argument of the same program compiled as C++" {
    build g++ -O0
    build g++ -O2
    build clang++ -O2
    all_decoded
}

@test "side by side: how many arguments gdb decodes with SystemTap's header" {
    need_stap_header
    HDR=$(stap_include)
    for cc in gcc clang; do
        for opt in -O0 -O2 -Os; do build $cc $opt -DBITFIELD_AS_INT; done
    done
    stap=$LAST
    # ours, on the very same program and flags
    HDR=$INCLUDE
    for opt in -O0 -O2 -Os; do build gcc $opt -DBITFIELD_AS_INT; done
    decode
    for n in $(seq 0 $stap); do
        echo "# SystemTap's header, ${WHAT[n]% -DBITFIELD_AS_INT}: $(decoded $n) arguments decoded" >&3
    done
    all_decoded $(seq $((stap + 1)) $LAST)
}

# Optimisation asked for inside the file (tests/header/gdbvals.c's
# OPT_PRAGMA and OPT_ATTR) leaves __OPTIMIZE__ undefined: the operands must
# not depend on it.  (clang has neither: it ignores both, with a warning.)
@test "gdb decodes every argument of -O0 code optimised by #pragma GCC optimize or __attribute__ ((optimize)) at every level" {
    for how in OPT_PRAGMA OPT_ATTR; do
        for level in O1 O2 O3 Os; do
            build gcc -O0 -D$how=$level
            # never rip-relative or indexed, the forms gdb cannot read
            ! readelf -n $LAST/prog | grep Arguments | grep -E '%rip|\(%[a-z0-9]+,' || false
            build g++ -O0 -D$how=$level
        done
    done
    all_decoded
}

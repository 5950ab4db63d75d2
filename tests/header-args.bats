#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Every kind of probe argument, in the manner of libbpf's argument-type
# tests: tests/header/args.c (every scalar type, structs and unions by
# value, values wider than 8 bytes, arrays, pointers, bit-fields, globals,
# TLS, const and volatile; C and C++) with both headers.  Its note sizes
# on every target are data (tests/header/args.sizes); the values it passes
# are written by the program itself before each probe fires, and bpftrace,
# libbpf and gdb (natively and under qemu-user) must read back exactly
# those.  tests/header/classify.c checks that the C header's two ways of
# classifying an argument (declared in a probe, computed in place for
# STAP_PROBE_ASM_OPERANDS) agree on every type on every target.

load helpers
load tracers-helpers

SRC="$ROOT/tests/header"
PROBES="chars ints longs sizes enums floats int128 structs unions odd arrays pointers bits globals tls consts volatiles cxx cxxrefs"

# expected_sizes ARCH BUILD: "probe<TAB>sizes" of args.sizes for ARCH and
# BUILD (gcc, clang, g++ or clang++): the first row that applies.
expected_sizes() {
    awk -v arch="$1" -v build="$2" '
        BEGIN { cxx = build ~ /\+\+$/ }
        /^#probe/ { for (i = 3; i <= NF; i++) col[$i] = i; next }
        /^#/ || NF == 0 { next }
        $2 != "*" && !($2 == "gcc" && build == "gcc") && !($2 == "c++" && cxx) { next }
        ($1 in seen) { next }
        { seen[$1] = 1 }
        $1 ~ /^cxx/ && !cxx { next }
        !(arch in col) { print "no column for " arch > "/dev/stderr"; exit 1 }
        $(col[arch]) != "-" { v = $(col[arch]); gsub(/,/, " ", v); print $1 "\t" v }
    ' "$SRC/args.sizes" | sort
}

# args_sizes FILE...: FILE.args for each FILE, "probe<TAB>sizes" of each
# of its args probes (a probe the compiler cloned appears once per distinct
# note): one readelf and one awk for all (notes_of's FILE.notes), a sort
# each.
args_sizes() {
    local f
    notes_of "$@"
    for f in "$@"; do : > "$f.args"; done
    awk -F '\t' 'index($1, "args:") == 1 {
            # (operands may hold tabs: alpha writes "g($13)\t\t!gprellow")
            n = split(substr($0, length($1) + 2), w, /[ \t]+/); s = ""
            for (i = 1; i <= n; i++)
                if (match(w[i], /^-?[0-9]+f?@/)) s = s (s == "" ? "" : " ") substr(w[i], 1, RLENGTH - 1)
            out = FILENAME; sub(/\.notes$/, ".args", out)
            print substr($1, 6) "\t" s > out
        }' "${@/%/.notes}"
    for f in "$@"; do sort -u -o "$f.args" "$f.args"; done
}

# build_args OUT CC LANG HEADER FLAGS...: args.c as LANG (c or c++) with
# HEADER (sdt or usdt), as OUT; the wide arguments' warnings are expected.
build_args() {
    local out=$1 cc=$2 lang=$3 hdr=$4 def=
    shift 4
    [ "$hdr" = usdt ] && def=-DUSE_USDT_H
    $cc -x $lang $def -g -Wall -Wextra -Werror -Wno-deprecated-declarations -I "$INCLUDE" \
        "$@" "$ROOT/tests/header/args.c" -o "$out"
}

# setup_file: what the three x86-64 readers read: args.c built by gcc,
# clang, g++ and clang++, at -O0 and -O2, with each header, as
# $BATS_FILE_TMPDIR/x86/BUILD (gcc-O0-sdt ...).
setup_file() {
    local cc lang opt h
    mkdir "$BATS_FILE_TMPDIR/x86"
    for cc in gcc clang g++ clang++; do
        lang=c
        [[ $cc == *++ ]] && lang=c++
        for opt in -O0 -O2; do
            for h in sdt usdt; do build_args "$BATS_FILE_TMPDIR/x86/${cc//+/x}$opt-$h" $cc $lang $h $opt; done
        done
    done
}

# sizes_match ARCH BUILD WHAT...: for each WHAT, an object ("OBJ|words"),
# OBJ's notes are those of args.sizes for ARCH and BUILD.
sizes_match() {
    local a=$1 build=$2 w
    shift 2
    args_sizes "${@%|*}"
    expected_sizes $a $build > want.sizes
    for w in "$@"; do
        diff want.sizes "${w%|*}.args" ||
            { echo "$a ${w##*|}: notes differ from args.sizes (< expected, > got)"; false; }
    done
}

# same_values WANT GOT: every expected "probe argN value" line was read.
same_values() {
    sort -u "$1" > w.sorted; sort -u "$2" > g.sorted
    [ "$(wc -l < w.sorted)" -gt 60 ]
    diff w.sorted g.sorted || { echo "(< passed, > read)"; false; }
}

# bats test_tags=cross
@test "every kind of argument gets the note sizes of args.sizes on all 18 targets, gcc and g++, both headers" {
    for a in $ALL_ARCHES; do
        need_arch $a
        gcc=$(arch_gcc $a) gxx=$(arch_gxx $a)
        build_args $a-c-sdt.o $gcc c sdt -c -O2
        build_args $a-c-usdt.o $gcc c usdt -c -O0
        build_args $a-cxx-sdt.o $gxx c++ sdt -c -O0
        build_args $a-cxx-usdt.o $gxx c++ usdt -c -O2
        c=("$a-c-sdt.o|$gcc sdt -O2" "$a-c-usdt.o|$gcc usdt -O0")
        cxx=("$a-cxx-sdt.o|$gxx sdt -O0" "$a-cxx-usdt.o|$gxx usdt -O2")
        sizes_match $a gcc "${c[@]}"
        sizes_match $a g++ "${cxx[@]}"
    done
}

# bats test_tags=cross
@test "every kind of argument gets the note sizes of args.sizes with clang and clang++ on the tested targets" {
    need_cmd clang
    for a in $ARCHES; do
        need_arch $a
        c=() cxx=()
        for h in sdt usdt; do
            build_args $a-c-$h.o "clang --target=$(arch_triple $a)" c $h -c -O2
            build_args $a-cxx-$h.o "clang++ --target=$(arch_triple $a)" c++ $h -c -O0
            c+=("$a-c-$h.o|clang $h -O2") cxx+=("$a-cxx-$h.o|clang++ $h -O0")
        done
        sizes_match $a clang "${c[@]}"
        sizes_match $a clang++ "${cxx[@]}"
    done
}

@test "values wider than 8 bytes or of odd size are the only arguments that warn, once each" {
    # x86-64: long double, two __int128, three odd-sized structs
    run build_args a.o gcc c sdt -c -Wno-error=deprecated-declarations -Wdeprecated-declarations
    [ "$status" -eq 0 ]
    [ "$(echo "$output" | grep -c 'warning: .*sdt probe argument [0-9]* is wider than 8 bytes')" = 6 ]
    for n in 1 2 3; do
        [ "$(echo "$output" | grep -c "warning: .*sdt probe argument $n is wider")" = 2 ]
    done
}

# bpftrace_script BIN: one action per args probe, printing each argument
# as "probe argN value", generated from the note.
bpftrace_script() {
    note_probes "$1" | awk -F '\t' -v bin="$1" '
        index($1, "args:") == 1 {
            name = substr($1, 6); n = split($2, w, /[ \t]+/); fmt = ""; vals = ""
            for (i = 0; i < n; i++) { fmt = fmt name " arg" i " %lld\\n"; vals = vals ", arg" i }
            printf "usdt:%s:args:%s { printf(\"%s\"%s); }\n", bin, name, fmt, vals
        }'
}

# each_x86_build READER: setup_file's builds, each as DIR/args here (DIR
# named by the build); READER (a function) is given every DIR and writes
# what its tracer read of DIR/args, run as DIR/args DIR/want.txt, to
# DIR/got.txt, which must hold the values of DIR/want.txt.  Fails naming
# the build.
each_x86_build() {
    local b d dirs=()
    for b in "$BATS_FILE_TMPDIR"/x86/*; do
        d=${b##*/}
        mkdir $d && ln "$b" $d/args
        dirs+=($d)
    done
    [ ${#dirs[@]} -eq 16 ] || { echo "setup_file built ${#dirs[@]} of the 16 programs"; return 1; }
    "$1" "${dirs[@]}" || { echo "$1 failed"; return 1; }
    for d in "${dirs[@]}"; do
        same_values $d/want.txt $d/got.txt || { echo "$d"; return 1; }
    done
}

# args_probes BIN: the args probes of BIN, for the loaders that take them
# by name.
args_probes() { note_probes "$1" | cut -f1 | grep '^args:' | sort -u; }

# read_bpftrace DIR...: one bpftrace a program.
read_bpftrace() {
    local d
    for d in "$@"; do
        timeout "$HANG_SECONDS" bpftrace -e "$(bpftrace_script "$PWD/$d/args")" -c "$PWD/$d/args $PWD/$d/want.txt" \
            > bt.out 2> bt.err || { cat bt.err; echo "$d: bpftrace failed"; return 1; }
        grep -E '^[a-z0-9]+ arg[0-9]+ ' bt.out > $d/got.txt || true
    done
}

# read_libbpf DIR...: one run of the loader a program.
read_libbpf() {
    local d
    for d in "$@"; do
        run libbpf "$PWD/$d/args" $(args_probes $d/args) -- "$PWD/$d/args" "$PWD/$d/want.txt"
        [ "$status" -eq 0 ] || { cat err; echo "$d: the loader failed"; return 1; }
        echo "$output" | awk '$1 ~ /^args:/ { sub(/^args:/, "", $1); for (i = 2; i <= NF; i++) print $1 " arg" i - 2 " " $i }' > $d/got.txt
    done
}

# read_gdb DIR...: every program run in one gdb session (gdb_runs), with
# QEMU set under its qemu-user and gdb-multiarch (DIR: ARCH-...); every
# value as a signed 64-bit integer, as args.c writes them.
read_gdb() {
    local d
    for d in "$@"; do
        echo "$d $([ -z "${QEMU:-}" ] && echo - || arch_field "${d%%-*}" qemu) - $PWD/$d/args $PWD/$d/want.txt"
    done | GDB_PROBE_CLASS=ProbeArgs64 gdb_runs "$PWD" $(printf "args:%s " $PROBES)
    for d in "$@"; do grep -E '^[a-z0-9]+ arg[0-9]+ ' $d.hits >$d/got.txt || true; done
}

# bats test_tags=tracer
@test "bpftrace reads every argument as passed: gcc and clang, C and C++, -O0 and -O2, both headers" {
    need_tracefs
    need_cmd bpftrace
    each_x86_build read_bpftrace
}

# bats test_tags=tracer
@test "libbpf reads every argument as passed: gcc and clang, C and C++, -O0 and -O2, both headers" {
    need_tracefs
    build_loader
    each_x86_build read_libbpf
}

# bats test_tags=tracer
@test "gdb reads every argument as passed on x86-64: gcc and clang, C and C++, -O0 and -O2, both headers" {
    need_gdb_python gdb
    each_x86_build read_gdb
}

# qemu_build ARCH CC LANG HEADER: args.c for ARCH built static at -O2, as
# DIR/args (DIR: ARCH-LANG-HEADER).
qemu_build() {
    local d=$1-$3-$4
    need_cmd "$(arch_field "$1" qemu)"
    need_arch "$1"
    mkdir $d
    build_args $d/args "$2" $3 $4 -O2 -static
}

# qemu_same_values DIR WHAT: as same_values of DIR's want.txt and got.txt,
# except that on i686 a probe whose note holds a GOT-relative global or a
# TLS variable (g@GOTOFF(%ebx), %gs:t@ntpoff: GCC's "o" alternative,
# which gdb cannot read) may go unread: README's measured exception.
qemu_same_values() {
    local probe
    if [[ $1 == i686-* ]]; then
        for probe in $(comm -23 <(sort -u $1/want.txt) <(sort -u $1/got.txt) | cut -d' ' -f1 | sort -u); do
            [[ "$(note_args $1/args args:$probe)" =~ @GOTOFF|@ntpoff ]] ||
                { echo "$2: args:$probe unread: $(note_args $1/args args:$probe)"; false; }
            grep -v "^$probe " $1/want.txt > want.i686; mv want.i686 $1/want.txt
            echo "# $2: args:$probe unread (GOT/TLS operand)" >&3
        done
    fi
    same_values $1/want.txt $1/got.txt || { echo "$2"; false; }
}

# bats test_tags=cross
@test "gdb reads every argument as passed under qemu-user on every target where it reads arguments, gcc and g++ -O2, both headers" {
    need_gdb_python gdb-multiarch
    arches="i686 aarch64 armhf armel ppc64el ppc64 powerpc s390x"
    for a in $arches; do
        for h in sdt usdt; do qemu_build $a "$(arch_gcc $a)" c $h; done
        qemu_build $a "$(arch_gxx $a)" c++ sdt
    done
    QEMU=1 read_gdb $(for a in $arches; do echo $a-c-sdt $a-c-usdt $a-c++-sdt; done)
    for a in $arches; do
        for h in sdt usdt; do qemu_same_values $a-c-$h "$a gcc $h"; done
        qemu_same_values $a-c++-sdt "$a g++"
    done
}

# classify_sizes CC LANG: classify.c's notes as "PROVIDER NAME<TAB>sizes",
# a probe the compiler cloned once per distinct note.
classify_sizes() {
    $1 -x $2 -O2 -Wall -Wextra -Werror -Wno-deprecated-declarations -I "$INCLUDE" \
        -c "$SRC/classify.c" -o c.o
    note_probes c.o | awk -F '\t' '$1 ~ /^[di]:/ {
            n = split(substr($0, length($1) + 2), w, /[ \t]+/); s = ""
            for (i = 1; i <= n; i++)
                if (match(w[i], /^-?[0-9]+f?@/)) s = s (s == "" ? "" : " ") substr(w[i], 1, RLENGTH - 1)
            print substr($1, 1, 1) " " substr($1, 3) "\t" s
        }' | sort -u
}

# bats test_tags=cross
@test "the two C classification paths and the C++ one agree on every type on all 18 targets" {
    types=$(grep -o 'TYPE ([a-z0-9_]*,' "$SRC/classify.c" | grep -vc 'TYPE (name,')
    for a in $ALL_ARCHES; do
        need_arch $a
        classify_sizes "$(arch_gcc $a)" c > c.txt
        cp c.txt "gcc-$a.txt"
        # every type, both paths (declared: d, in place: i), same sizes
        n=$(grep -c '^d ' c.txt)
        [ "$n" -ge $((types - 2)) ] || { echo "$a: $n of $types types"; false; }
        diff <(grep '^d ' c.txt | cut -c3-) <(grep '^i ' c.txt | cut -c3-) ||
            { echo "$a: C in place (>) differs from declared (<)"; false; }
        classify_sizes "$(arch_gxx $a)" c++ > cxx.txt
        diff c.txt cxx.txt || { echo "$a: C++ (>) differs from C (<)"; false; }
    done
    for a in $ARCHES; do
        classify_sizes "clang --target=$(arch_triple $a)" c > clang.txt
        # gcc's, as the loop above built and checked them
        diff "gcc-$a.txt" clang.txt || { echo "$a: clang (>) differs from gcc (<)"; false; }
    done
}

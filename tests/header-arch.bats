#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# <sys/sdt.h> on every architecture Debian builds (18), with Debian's cross
# compilers and clang --target: argument sizes and signs match each ABI
# (and SystemTap's header), every operand has a form the tracers parse,
# and 8-byte values on 32-bit targets are never half a register pair.
# bats file_tags=cross

load helpers

# setup_file: every object the tests read, for every architecture whose
# compiler is installed, in $BATS_FILE_TMPDIR/ARCH/ (the architectures side
# by side), with its notes (notes_of: NAME.o.notes, NAME.o.sizes):
#   CC-OPT.o       tests/header/types.c, -Wall -Wextra -Werror; CC gcc, and
#                  clang where it builds for the target (clang_arch)
#   stap-OPT.o     types.c with SystemTap's header (gcc -w)
#   CXX-OPT-STD.o  types.cc; CXX g++ (and clang++), STD c++17 or c++20
#   stapxx-OPT.o   types.cc without its bit-field probe, SystemTap's header
#   strict-CC-OPT.o  strict.c, -std=c99 (gcc) or c11 (clang), -Wpedantic
#                  (-O2; gcc's at every OPT on m68k, hppa and sh4)
# OPT is O0, O2 and Os.  A build that failed left no NAME.o, and the
# compiler's messages in NAME.log (built says so).
setup_file() {
    local a
    export STAPINC=
    [ -z "$STAP_INCLUDE_DIR" ] || STAPINC=$(stap_include)
    sed '/STAP_PROBE2 (t, bits/d' "$ROOT/tests/header/types.cc" >"$BATS_FILE_TMPDIR/nobits.cc"
    for a in $ALL_ARCHES; do
        ! command -v "$(arch_gcc "$a")" >/dev/null || build_arch "$a" &
    done
    wait
}

# build_arch ARCH: setup_file's builds for ARCH.
build_arch() {
    local a=$1 h=$ROOT/tests/header gcc gxx clang opt std
    gcc=$(arch_gcc "$a") gxx=$(arch_gxx "$a") clang="clang --target=$(arch_triple "$a")"
    mkdir "$BATS_FILE_TMPDIR/$a" && cd "$BATS_FILE_TMPDIR/$a" || return
    for opt in O0 O2 Os; do
        obj gcc-$opt $gcc -$opt -Wall -Wextra -Werror -I "$INCLUDE" "$h/types.c"
        if [[ $opt == O2 || $a == @(m68k|hppa|sh4) ]]; then
            obj strict-gcc-$opt $gcc -std=c99 -$opt -Wall -Wextra -Wpedantic -Werror -I "$INCLUDE" "$h/strict.c"
        fi
        [ ! -d "$STAPINC" ] || obj stap-$opt $gcc -$opt -w -I "$STAPINC" "$h/types.c"
        [ ! -d "$STAPINC" ] || obj stapxx-$opt $gxx -$opt -std=c++17 -w -I "$STAPINC" ../nobits.cc
        for std in c++17 c++20; do
            obj g++-$opt-$std $gxx -$opt -std=$std -Wall -Wextra -Werror -I "$INCLUDE" "$h/types.cc"
        done
        clang_arch "$a" || continue
        obj clang-$opt $clang -$opt -Wall -Wextra -Werror -I "$INCLUDE" "$h/types.c"
        [ $opt != O2 ] || obj strict-clang-O2 $clang -std=c11 -O2 -Wall -Wextra -Wpedantic -Werror -I "$INCLUDE" "$h/strict.c"
        for std in c++17 c++20; do
            obj clang++-$opt-$std clang++ --target="$(arch_triple "$a")" -$opt -std=$std -Wall -Wextra -Werror \
                -I "$INCLUDE" "$h/types.cc"
        done
    done
    notes_of ./*.o
}

# obj NAME COMPILER...: COMPILER -c ... -o NAME.o, its messages in NAME.log.
obj() {
    local name=$1
    shift
    "$@" -c -o "$name.o" >"$name.log" 2>&1 || rm -f "$name.o"
}

# built ARCH NAME...: OBJ, the objects ARCH/NAME.o that setup_file built;
# fails, with the compiler's messages, for one it could not build.
built() {
    local a=$1 n
    shift
    OBJ=()
    for n in "$@"; do
        [ -f "$BATS_FILE_TMPDIR/$a/$n.o" ] || { echo "$a: $n did not build:"; cat "$BATS_FILE_TMPDIR/$a/$n.log"; return 1; }
        OBJ+=("$BATS_FILE_TMPDIR/$a/$n.o")
    done
}

# Sizes and signs of the five probes of tests/header/types.c, per ABI:
# char is unsigned on ARM, PowerPC, s390x and RISC-V; wchar_t is unsigned
# on ARM; long and pointers are 4 bytes on the 32-bit ABIs and x32.
abi_word() {
    case $1 in i686|armhf|armel|powerpc|mipsel|x32|m68k|hppa|sh4) echo 4 ;; *) echo 8 ;; esac
}
abi_wchar() {
    case $1 in aarch64|armhf|armel) echo 4 ;; *) echo -4 ;; esac
}

expected() {
    local a=$1 c=-1 word wchar
    case $a in aarch64|armhf|armel|ppc64el|ppc64|powerpc|s390x|riscv64) c=1 ;; esac
    word=$(abi_word "$a") wchar=$(abi_wchar "$a")
    echo "t:ints $c -1 1 -2 2 -4 4 -$word $word -8 8 1"
    echo "t:more $wchar 4 -4 $word $word $word -$word -$word 4 8 $word $word"
    echo "t:misc $word -4 -4 $c 2 -4 -$word"
    echo "t:consts -4 8 -4 $word -1"
    echo "t:fixed -1 1 -2 2 -8 8"
}

# one_per_line ARGS: split "SIZE@OP SIZE@OP" (OP may itself contain ", ").
one_per_line() {
    sed -E 's/ (-?[0-9]+f?@)/\n\1/g' <<< "$1"
}

# A regular expression for one operand each consumer can parse on ARCH:
# registers, immediates and register+offset memory; no symbols, no index.
operand_re() {
    case $1 in
        x86_64) echo '(%r([a-ds]x|[sd]i|[sb]p|[0-9]+)|\$-?[0-9]+|-?[0-9]*\(%r([a-ds]x|[sd]i|[sb]p|[0-9]+)\))' ;;
        # x32: 64-bit registers, and %ebp as the frame base at -O0
        x32) echo '(%r([a-ds]x|[sd]i|[sb]p|[0-9]+)|\$-?[0-9]+|-?[0-9]*\(%[re]([a-ds]x|[sd]i|[sb]p|[0-9]+)\))' ;;
        i686) echo '(%e([a-d]x|[sd]i|[sb]p)|\$-?[0-9]+|-?[0-9]*\(%e([a-d]x|[sd]i|[sb]p)\))' ;;
        aarch64) echo '(x[0-9]+|sp|-?[0-9]+|\[(x[0-9]+|sp)(, -?[0-9]+)?\])' ;;
        armhf|armel) echo '(r[0-9]+|sp|lr|fp|ip|sl|#-?[0-9]+|\[(r[0-9]+|sp|lr|fp|ip|sl)(, #-?[0-9]+)?\])' ;;
        ppc64el|ppc64|powerpc) echo '([0-9]+|i-?[0-9]+|-?[0-9]+\([0-9]+\))' ;;
        s390x) echo '(%r[0-9]+|-?[0-9]+|-?[0-9]+\(%r[0-9]+\))' ;;
        riscv64) echo '(([ast][0-9]+|sp|ra|gp|tp)|-?[0-9]+|-?[0-9]+\(([ast][0-9]+|sp|ra|gp|tp)\))' ;;
        mips64el|mipsel) echo '(\$([0-9]+|fp|sp)|-?[0-9]+|-?[0-9]+\(\$([0-9]+|fp|sp)\))' ;;
        alpha) echo '(\$[0-9]+|-?[0-9]+|-?[0-9]+\(\$[0-9]+\))' ;;
        sparc64) echo '(%[goli][0-7]|%[fs]p|-?[0-9]+|\[(%[goli][0-7]|%[fs]p)([+-][0-9]+)?\])' ;;
        # m68k, hppa, sh4 pass every value in memory (see sdt.h)
        m68k) echo '-?[0-9]*\(%(sp|fp|a[0-7])\)' ;;
        hppa) echo '-?[0-9]+\(%r[0-9]+\)' ;;
        # sh4: @rN or @(disp,rN), never the indexed @(r0,rN) that GCC's "m"
        # picked at -O2 (gdb has no sh4 operand parser to try it on)
        sh4) echo '(@r[0-9]+|@\([0-9]+,r[0-9]+\))' ;;
    esac
}

# The targets clang 14 compiles types.c for (mips64el: "couldn't allocate
# input reg for constraint 'r'"; m68k: backend crash; hppa, sh4, alpha: no
# such target).
clang_arch() {
    case $1 in mips64el|m68k|hppa|sh4|alpha) return 1 ;; esac
}

# check_arch ARCH: types.c built by both compilers at -O0, -O2 and -Os,
# and types.cc by g++: sizes as the ABI says, every operand readable.
check_arch() {
    local a=$1 o objs=() cxx=()
    need_arch "$a"
    need_cmd "$(arch_gxx "$a")"
    built "$a" gcc-O0 gcc-O2 gcc-Os $(clang_arch "$a" && echo clang-O0 clang-O2 clang-Os)
    objs=("${OBJ[@]}")
    built "$a" g++-O0-c++17 g++-O2-c++17 g++-Os-c++17
    cxx=("${OBJ[@]}")
    expected "$a" > want.sizes
    for o in "${objs[@]}"; do
        diff want.sizes "$o.sizes" || { echo "$a ${o##*/}: sizes differ"; false; }
    done
    for o in "${cxx[@]}"; do
        [ -s "$o.notes" ]
    done
    check_operands "$a" "${objs[@]}" "${cxx[@]}"
}

# check_operands ARCH OBJ...: every operand of every OBJ's notes (OBJ.notes,
# note_probes' lines) has a form the consumers parse on ARCH (operand_re).
# One awk splits them, one per line after the object's name, and one grep
# checks them all.  An operand is a line as `read' gave it, blanks at its
# ends removed, an empty one included.
check_operands() {
    local a=$1 tab=$'\t' re bad
    shift
    re="^[^$tab]*$tab-?[1248]@$(operand_re "$a")\$"
    bad=$(awk -F '\t' '{
        n = FILENAME; sub(/.*\//, "", n); sub(/\.o\.notes$/, "", n)
        a = $2; sub(/^[[:blank:]]+/, "", a); sub(/[[:blank:]]+$/, "", a)
        while (match(a, / -?[0-9]+f?@/)) {
            p = substr(a, 1, RSTART - 1); sub(/[[:blank:]]+$/, "", p); print n "\t" p
            a = substr(a, RSTART + 1)
        }
        print n "\t" a
    }' "${@/%/.notes}" | grep -Ev "$re") || true
    [ -z "$bad" ] || { echo "$a: unreadable operands (build<TAB>operand):"; echo "$bad"; false; }
}

@test "x86-64: sizes and signs match the ABI and every operand is readable" { check_arch x86_64; }
@test "i686: sizes and signs match the ABI and every operand is readable" { check_arch i686; }
@test "aarch64: sizes and signs match the ABI and every operand is readable" { check_arch aarch64; }
@test "armhf: sizes and signs match the ABI and every operand is readable" { check_arch armhf; }
@test "ppc64el: sizes and signs match the ABI and every operand is readable" { check_arch ppc64el; }
@test "s390x: sizes and signs match the ABI and every operand is readable" { check_arch s390x; }
@test "riscv64: sizes and signs match the ABI and every operand is readable (clang does not crash)" { check_arch riscv64; }

@test "armel: sizes and signs match the ABI and every operand is readable" { check_arch armel; }
@test "ppc64: sizes and signs match the ABI and every operand is readable" { check_arch ppc64; }
@test "powerpc: sizes and signs match the ABI and every operand is readable" { check_arch powerpc; }
@test "mips64el: sizes and signs match the ABI and every operand is readable" { check_arch mips64el; }
@test "mipsel: sizes and signs match the ABI and every operand is readable" { check_arch mipsel; }
@test "sparc64: sizes and signs match the ABI and every operand is readable" { check_arch sparc64; }
@test "x32: sizes and signs match the ABI and every operand is readable" { check_arch x32; }
@test "m68k: sizes and signs match the ABI and every operand is readable" { check_arch m68k; }
@test "hppa: sizes and signs match the ABI and every operand is readable" { check_arch hppa; }
@test "alpha: sizes and signs match the ABI and every operand is readable" { check_arch alpha; }
@test "sh4: sizes and signs match the ABI and every operand is readable" { check_arch sh4; }

@test "sizes and signs are the same as SystemTap's header gives on every architecture" {
    need_stap_header
    compared=0
    for a in $ALL_ARCHES; do
        need_arch "$a"
        for opt in O0 O2 Os; do
            # (gcc's again where clang does not build for ARCH)
            built "$a" stap-$opt gcc-$opt "$(clang_arch "$a" && echo clang || echo gcc)-$opt"
            # SystemTap marks floats "4f"/"8f"; the sizes are what count
            sed -E 's/([0-9])f/\1/g' "${OBJ[0]}.sizes" > s.sizes
            diff s.sizes "${OBJ[1]}.sizes" || { echo "$a gcc $opt"; false; }
            diff s.sizes "${OBJ[2]}.sizes" || { echo "$a clang $opt"; false; }
            compared=$((compared + 1))
        done
    done
    echo "# $compared architecture/optimisation pairs match SystemTap's sizes and signs" >&3
    [ "$compared" -ge 2 ]
}

# expected_cxx ARCH: tests/header/types.cc's sizes and signs on ARCH, as
# the C++ ABI gives them (scoped enums take their underlying type's sign).
expected_cxx() {
    local a=$1 word wchar
    word=$(abi_word "$a") wchar=$(abi_wchar "$a")
    echo "t:bits 4 -4"
    [ "$2" != c++20 ] || echo "t:char8 1"
    echo "t:cxx 1 $wchar 2 4 1 -8 -4 4 -4 $word $word $word"
    echo "t:tmpl -2"
    echo "t:tmpl $word"
}

# without_enum_signs: t:cxx's two scoped enums (arguments 6 and 7) unsigned.
without_enum_signs() {
    awk '$1 == "t:cxx" { sub(/^-/, "", $7); sub(/^-/, "", $8) } { print }'
}

# SystemTap's header is wrong twice in C++: it cannot take a bit-field
# ("invalid application of 'sizeof' to a bit-field"), and it calls the
# scoped enums "enum class Wide : long long" and "enum class Plain" (int)
# unsigned.  Everything else must be what SystemTap's header gives.
@test "C++ on every architecture: sizes and signs as the ABI gives, g++ and clang++, and as SystemTap's header except where it is wrong" {
    need_stap_header
    compared=0
    for a in $ALL_ARCHES; do
        need_arch "$a"
        need_cmd "$(arch_gxx "$a")"
        expected_cxx "$a" c++17 > want.c++17
        expected_cxx "$a" c++20 > want.c++20
        for cxx in g++ $(clang_arch "$a" && echo clang++); do
            for opt in O0 O2 Os; do
                for std in c++17 c++20; do
                    built "$a" $cxx-$opt-$std
                    sort "$OBJ.sizes" | diff want.$std - || { echo "$a $cxx -$opt -std=$std: not the ABI's"; false; }
                done
            done
        done
        for opt in O0 O2 Os; do
            # ours: g++ -std=c++17, less the probe that nobits.cc leaves
            # out; its other probes are the same lines
            built "$a" stapxx-$opt g++-$opt-c++17
            grep -v '^t:bits ' "${OBJ[1]}.sizes" > o.sizes
            [ "$(wc -l < o.sizes)" -lt "$(wc -l < "${OBJ[1]}.sizes")" ] || { echo "$a $opt: no t:bits"; false; }
            diff <(sed -E 's/([0-9])f/\1/g' "$OBJ.sizes" | sort | without_enum_signs) \
                 <(sort o.sizes | without_enum_signs) || { echo "$a $opt: not SystemTap's"; false; }
            # where SystemTap differs, it is only in those signs
            [ "$(grep '^t:cxx' "$OBJ.sizes" | cut -d' ' -f7,8)" = "8 4" ]
            compared=$((compared + 1))
        done
    done
    echo "# $compared architecture/optimisation pairs match SystemTap's C++ sizes (signs of scoped enums aside)" >&3
    [ "$compared" -eq 54 ]
}

@test "8-byte values on 32-bit targets are passed in memory, never in a register or as an immediate" {
    cat > w.c <<'EOF'
#include <sys/sdt.h>
long long mul (long long, long long);
void f (long long a, long long b, double d, unsigned long long u);
void f (long long a, long long b, double d, unsigned long long u) {
  long long p = mul (a, b);
  STAP_PROBE5 (t, wide, p, d * 2, u + 1, 1ULL << 40, a);
}
EOF
    for a in i686 armhf armel powerpc mipsel m68k hppa sh4; do
        need_arch "$a"
        gcc=$(arch_gcc "$a")
        ccs=("$gcc")
        if clang_arch "$a"; then ccs+=("clang --target=$(arch_triple "$a")"); fi
        for cc in "${ccs[@]}"; do
            for opt in -O0 -O2 -Os; do
                $cc $opt -Wall -Wextra -Werror -c -I "$INCLUDE" w.c -o w.o
                args=$(note_args w.o t:wide)
                [ "$(arg_sizes "$args")" = "-8 8 8 8 -8" ]
                while read -r arg; do
                    # memory: N(%reg) or [reg, #N]; an immediate is read as
                    # 32 bits by gdb, a register is half the value
                    [[ "$arg" =~ ^-?8@(.*[\(\[].*|@r[0-9]+)$ ]] || { echo "$a $cc $opt: $arg"; false; }
                done < <(one_per_line "$args")
            done
        done
    done
}

@test "the strict build is warning-free for every architecture, gcc and clang" {
    for a in $ALL_ARCHES; do
        need_arch "$a"
        built "$a" strict-gcc-O2 $(clang_arch "$a" && echo strict-clang-O2)
    done
}

# m68k, hppa and sh4: GCC's old register allocator (reload) could not give
# an 8-byte value to the probe's operand at -O1 and up ("cannot reload
# integer constant operand in 'asm'"); every value is now passed in memory.
@test "m68k, hppa and sh4: every scalar type compiles at -O0, -O2 and -Os, C and C++, sizes as SystemTap's" {
    need_stap_header
    cat > w8.c <<'EOC'
#include <sys/sdt.h>
void f (long long x, double y, long long *p);
void f (long long x, double y, long long *p) {
  STAP_PROBE6 (t, w8, x, y, x + 1, *p, 1ULL << 40, 1.5);
}
EOC
    for a in m68k hppa sh4; do
        need_arch "$a"
        need_cmd "$(arch_gxx "$a")"
        for opt in O0 O2 Os; do
            built "$a" gcc-$opt stap-$opt g++-$opt-c++17 strict-gcc-$opt
            diff <(sed -E 's/([0-9])f/\1/g' "${OBJ[1]}.sizes") "${OBJ[0]}.sizes" ||
                { echo "$a $opt: sizes differ from SystemTap's"; false; }
            [ -s "${OBJ[2]}.notes" ]
            "$(arch_gcc "$a")" -$opt -Wall -Wextra -Werror -c -I "$INCLUDE" w8.c -o w.o
            [ "$(arg_sizes "$(note_args w.o t:w8)")" = "-8 8 -8 -8 8 8" ]
        done
    done
}

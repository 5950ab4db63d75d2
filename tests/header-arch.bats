#!/usr/bin/env bats
# <sys/sdt.h> on the seven supported architectures, with Debian's cross
# compilers and clang --target: argument sizes and signs match each ABI
# (and SystemTap's header), every operand has a form the tracers parse,
# and 8-byte values on 32-bit targets are never half a register pair.

load helpers

setup() {
    cd "$BATS_TEST_TMPDIR"
    SRC="$ROOT/tests/header/types.c"
}

# Sizes and signs of the five probes of tests/header/types.c, per ABI.
expected() {
    local a=$1 c=-1 word=8 wchar=-4
    case $a in aarch64|armhf|ppc64el|s390x|riscv64) c=1 ;; esac
    case $a in i686|armhf) word=4 ;; esac
    case $a in aarch64|armhf) wchar=4 ;; esac
    echo "t:ints $c -1 1 -2 2 -4 4 -$word $word -8 8 1"
    echo "t:more $wchar 4 -4 $word $word $word -$word -$word 4 8 $word $word"
    echo "t:misc $word -4 -4 $c 2 -4 -$word"
    echo "t:consts -4 8 -4 $word -1"
    echo "t:fixed -1 1 -2 2 -8 8"
}

sizes_of() {
    note_probes "$1" | while IFS=$'\t' read -r p args; do echo "$p $(arg_sizes "$args")"; done
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
        i686) echo '(%e([a-d]x|[sd]i|[sb]p)|\$-?[0-9]+|-?[0-9]*\(%e([a-d]x|[sd]i|[sb]p)\))' ;;
        aarch64) echo '(x[0-9]+|sp|-?[0-9]+|\[(x[0-9]+|sp)(, -?[0-9]+)?\])' ;;
        armhf) echo '(r[0-9]+|sp|lr|fp|ip|sl|#-?[0-9]+|\[(r[0-9]+|sp|lr|fp|ip|sl)(, #-?[0-9]+)?\])' ;;
        ppc64el) echo '([0-9]+|i-?[0-9]+|-?[0-9]+\([0-9]+\))' ;;
        s390x) echo '(%r[0-9]+|-?[0-9]+|-?[0-9]+\(%r[0-9]+\))' ;;
        riscv64) echo '(([ast][0-9]+|sp|ra|gp|tp)|-?[0-9]+|-?[0-9]+\(([ast][0-9]+|sp|ra|gp|tp)\))' ;;
    esac
}

# check_arch ARCH: build types.c with both compilers at -O0 and -O2.
check_arch() {
    local a=$1 gcc re cc opt arg
    gcc=$(arch_gcc "$a")
    need_arch "$a"
    re="^-?[1248]@$(operand_re "$a")\$"
    for cc in "$gcc" "clang --target=$(arch_triple "$a")"; do
        for opt in -O0 -O2; do
            $cc $opt -Wall -Wextra -Werror -c -I "$INCLUDE" "$SRC" -o t.o
            diff <(expected "$a") <(sizes_of t.o) || { echo "$a $cc $opt: sizes differ"; false; }
            while read -r arg; do
                [[ "$arg" =~ $re ]] || { echo "$a $cc $opt: unreadable operand '$arg'"; false; }
            done < <(note_probes t.o | cut -f2 | while read -r l; do one_per_line "$l"; done)
        done
    done
}

@test "x86-64: sizes and signs match the ABI and every operand is readable" { check_arch x86_64; }
@test "i686: sizes and signs match the ABI and every operand is readable" { check_arch i686; }
@test "aarch64: sizes and signs match the ABI and every operand is readable" { check_arch aarch64; }
@test "armhf: sizes and signs match the ABI and every operand is readable" { check_arch armhf; }
@test "ppc64el: sizes and signs match the ABI and every operand is readable" { check_arch ppc64el; }
@test "s390x: sizes and signs match the ABI and every operand is readable" { check_arch s390x; }
@test "riscv64: sizes and signs match the ABI and every operand is readable (clang does not crash)" { check_arch riscv64; }

@test "sizes and signs are the same as SystemTap's header gives on every architecture" {
    need_stap_header
    inc=$(stap_include)
    compared=0
    for a in $ARCHES; do
        need_arch "$a"
        gcc=$(arch_gcc "$a")
        for opt in -O0 -O2; do
            $gcc $opt -w -c -I "$inc" "$SRC" -o s.o
            $gcc $opt -w -c -I "$INCLUDE" "$SRC" -o o.o
            clang --target=$(arch_triple "$a") $opt -w -c -I "$INCLUDE" "$SRC" -o c.o
            # SystemTap marks floats "4f"/"8f"; the sizes are what count
            diff <(sizes_of s.o | sed -E 's/([0-9])f/\1/g') <(sizes_of o.o) || { echo "$a gcc $opt"; false; }
            diff <(sizes_of s.o | sed -E 's/([0-9])f/\1/g') <(sizes_of c.o) || { echo "$a clang $opt"; false; }
            compared=$((compared + 1))
        done
    done
    echo "# $compared architecture/optimisation pairs match SystemTap's sizes and signs" >&3
    [ "$compared" -ge 2 ]
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
    for a in i686 armhf; do
        need_arch "$a"
        gcc=$(arch_gcc "$a")
        for cc in "$gcc" "clang --target=$(arch_triple "$a")"; do
            for opt in -O0 -O2; do
                $cc $opt -Wall -Wextra -Werror -c -I "$INCLUDE" w.c -o w.o
                args=$(note_args w.o t:wide)
                [ "$(arg_sizes "$args")" = "-8 8 8 8 -8" ]
                while read -r arg; do
                    # memory: N(%reg) or [reg, #N]; an immediate is read as
                    # 32 bits by gdb, a register is half the value
                    [[ "$arg" =~ ^-?8@.*[\(\[].*$ ]] || { echo "$a $cc $opt: $arg"; false; }
                done < <(one_per_line "$args")
            done
        done
    done
}

@test "the strict build is warning-free for every architecture, gcc and clang" {
    for a in $ARCHES; do
        need_arch "$a"
        gcc=$(arch_gcc "$a")
        $gcc -std=c99 -O2 -Wall -Wextra -Wpedantic -Werror -c -I "$INCLUDE" "$ROOT/tests/header/strict.c" -o /dev/null
        clang --target=$(arch_triple "$a") -std=c11 -O2 -Wall -Wextra -Wpedantic -Werror -c -I "$INCLUDE" "$ROOT/tests/header/strict.c" -o /dev/null
    done
}

# m68k, hppa and sh4: GCC's old register allocator (reload) could not give
# an 8-byte value to the probe's operand at -O1 and up ("cannot reload
# integer constant operand in 'asm'"); every value is now passed in memory.
@test "m68k, hppa and sh4: every scalar type compiles at -O0, -O2 and -Os, C and C++, sizes as SystemTap's" {
    need_stap_header
    inc=$(stap_include)
    cat > w8.c <<'EOC'
#include <sys/sdt.h>
void f (long long x, double y, long long *p);
void f (long long x, double y, long long *p) {
  STAP_PROBE6 (t, w8, x, y, x + 1, *p, 1ULL << 40, 1.5);
}
EOC
    for a in m68k hppa sh4; do
        need_arch "$a"
        gcc=$(arch_gcc "$a")
        gxx=$(arch_triple "$a")-g++
        need_cmd "$gxx"
        for opt in -O0 -O2 -Os; do
            $gcc $opt -Wall -Wextra -Werror -c -I "$INCLUDE" "$SRC" -o o.o
            $gcc $opt -w -c -I "$inc" "$SRC" -o s.o
            diff <(sizes_of s.o | sed -E 's/([0-9])f/\1/g') <(sizes_of o.o) || { echo "$a $opt: sizes differ from SystemTap's"; false; }
            $gcc $opt -Wall -Wextra -Werror -c -I "$INCLUDE" w8.c -o w.o
            [ "$(arg_sizes "$(note_args w.o t:w8)")" = "-8 8 -8 -8 8 8" ]
            $gxx $opt -std=c++17 -Wall -Wextra -Werror -c -I "$INCLUDE" "$ROOT/tests/header/types.cc" -o x.o
            [ -n "$(note_probes x.o)" ]
            $gcc -std=c99 $opt -Wall -Wextra -Wpedantic -Werror -c -I "$INCLUDE" "$ROOT/tests/header/strict.c" -o /dev/null
        done
    done
}

#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# <sys/sdt.h>: what the notes say, checked with readelf and objdump on
# objects and programs built for this machine (x86-64).

load helpers

SRC="$ROOT/tests/header"

# sdt_c FILE [LINE...]: a C source including <sys/sdt.h>, then each LINE
# (or stdin).
sdt_c() {
    local f=$1
    shift
    echo '#include <sys/sdt.h>' >"$f"
    if [ $# -gt 0 ]; then printf '%s\n' "$@" >>"$f"; else cat >>"$f"; fi
}

# build SRC OUT [FLAGS...]: compile one file to an object with our header.
build() {
    local src=$1 out=$2 cc=${CC:-gcc}
    shift 2
    case $src in *.cc) cc=${CXX:-g++} ;; esac
    $cc -c -I "$INCLUDE" "$@" "$src" -o "$out"
}

@test "every probe macro emits one stapsdt note of type 3 per call" {
    sdt_c p.c <<'EOF'
void f (int a, int b) {
  STAP_PROBE (prov, p0);
  STAP_PROBE2 (prov, p2, a, b);
  DTRACE_PROBE (prov, d0);
  DTRACE_PROBE12 (prov, d12, a, b, a, b, a, b, a, b, a, b, a, b);
}
EOF
    build p.c p.o -O2
    run readelf -n p.o
    [ "$status" -eq 0 ]
    [ "$(grep -c 'NT_STAPSDT (SystemTap probe descriptors)' <<< "$output")" -eq 4 ]
    [ "$(readelf -SW p.o | grep -c ' \.note\.stapsdt *NOTE ')" -ge 1 ]
    [ "$(note_probes p.o | cut -f1 | tr '\n' ' ')" = "prov:p0 prov:p2 prov:d0 prov:d12 " ]
    [ "$(note_args p.o prov:p0)" = "" ]
    [ "$(arg_sizes "$(note_args p.o prov:d12)" | wc -w)" -eq 12 ]
}

@test "the note's descriptor ends exactly at the argument string's NUL" {
    sdt_c p.c 'void f (int a, long b) { STAP_PROBE2 (provider, some_name, a, b); STAP_PROBE (pr, x); }'
    build p.c p.o -O2
    # descsz = 3 addresses + "provider\0" + "some_name\0" + args + "\0"
    args=$(note_args p.o provider:some_name)
    want=$(( 3 * 8 + 9 + 10 + ${#args} + 1 ))
    printf -v hex '0x%08x' "$want"
    readelf -n p.o | grep -A1 "$hex" | grep -q 'NT_STAPSDT'
    printf -v hex0 '0x%08x' $(( 3 * 8 + 3 + 2 + 1 ))
    readelf -n p.o | grep -qE "$hex0[[:space:]]+NT_STAPSDT"
    # name "stapsdt": namesz 8, 4-byte aligned section
    [ "$(readelf -SW p.o | awk '/ \.note\.stapsdt +NOTE / { print $NF; exit }')" = 4 ]
    readelf -x .note.stapsdt p.o | grep -q 'stapsdt'
}

@test ".stapsdt.base is one byte in its own retained COMDAT group, its symbol weak and hidden" {
    sdt_c p.c 'void f (void) { STAP_PROBE (a, b); STAP_PROBE (a, c); }'
    build p.c p.o
    readelf -SW p.o | grep -E ' \.stapsdt\.base +PROGBITS ' > sec
    [ "$(wc -l < sec)" -eq 1 ]
    grep -qE ' 000001 00 +AGR ' sec
    readelf -gW p.o | grep -q "COMDAT group section .* \[\.stapsdt\.base\]"
    run readelf -sW p.o
    grep -E ' 1 (NOTYPE|OBJECT) +WEAK +HIDDEN .* _\.stapsdt\.base$' <<< "$output"
}

@test "in a linked program the note's base is .stapsdt.base and its location is a nop" {
    sdt_c p.c <<'EOF'
int main (int argc, char **argv) {
  STAP_PROBE2 (prog, start, argc, argv);
  STAP_PROBE1 (prog, end, argc * 3);
  return 0;
}
EOF
    gcc -O2 -I "$INCLUDE" p.c -o p
    base=$(readelf -SW p | sed -nE 's/.* \.stapsdt\.base +PROGBITS +([0-9a-f]+) .*/\1/p')
    [ -n "$base" ]
    for probe in prog:start prog:end; do
        [ $(( 0x$base )) -eq $(( $(note_field p $probe Base) )) ]
        loc=$(note_field p $probe Location)
        objdump -d --start-address=$loc --stop-address=$(( loc + 1 )) p | grep -qE '^ +[0-9a-f]+:\s+90\s+nop'
    done
}

@test "with _SDT_HAS_SEMAPHORES every probe records its semaphore's address" {
    cat > p.c <<'EOF'
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
unsigned short prog_one_semaphore __attribute__ ((section (".probes")));
unsigned short prog_two_semaphore __attribute__ ((section (".probes")));
int main (int argc, char **argv) {
  STAP_PROBE1 (prog, one, argc);
  if (prog_two_semaphore) STAP_PROBE2 (prog, two, argc, argv);
  return 0;
}
EOF
    gcc -O2 -I "$INCLUDE" p.c -o p
    for probe in one two; do
        sym=$(readelf -sW p | awk -v s=prog_${probe}_semaphore '$8 == s { print $2 }')
        [ -n "$sym" ]
        [ $(( 0x$sym )) -eq $(( $(note_field p prog:$probe Semaphore) )) ]
    done
    sdt_c q.c 'int main (void) { STAP_PROBE (prog, none); return 0; }'
    gcc -O2 -I "$INCLUDE" q.c -o q
    [ $(( $(note_field q prog:none Semaphore) )) -eq 0 ]
}

@test "semaphores are decided where the probe expands: a dtrace header included after <sys/sdt.h> works" {
    sdt_c p.c <<'EOF'
/* what a dtrace -h header does, after sdt.h is already in */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
unsigned short prog_late_semaphore __attribute__ ((section (".probes")));
int main (int argc, char **argv) {
  (void) argv;
  STAP_PROBE1 (prog, late, argc);
#undef _SDT_HAS_SEMAPHORES
  STAP_PROBE1 (prog, none, argc);
#define _SDT_HAS_SEMAPHORES
  STAP_PROBE (prog, late);
  return 0;
}
EOF
    gcc -O2 -Wall -Wextra -Werror -I "$INCLUDE" p.c -o p
    sym=$(readelf -sW p | awk '$8 == "prog_late_semaphore" { print $2 }')
    [ "$(readelf -n p | grep -c "Semaphore: 0x0*$sym\\b")" -eq 2 ]
    [ $(( $(note_field p prog:none Semaphore) )) -eq 0 ]
}

@test "STAP_HAS_SEMAPHORES is the same switch, and STAP_SDT_V1 renames through the dtrace header" {
    cat > p.c <<'EOF'
#define STAP_HAS_SEMAPHORES 1
#include <sys/sdt.h>
/* what dtrace -h writes under STAP_SDT_V1 */
#define prog_old_semaphore old_semaphore
unsigned short old_semaphore __attribute__ ((section (".probes")));
int main (int argc, char **argv) { (void) argv; STAP_PROBE1 (prog, old, argc); return 0; }
EOF
    gcc -O2 -I "$INCLUDE" p.c -o p
    sym=$(readelf -sW p | awk '$8 == "old_semaphore" { print $2 }')
    [ $(( 0x$sym )) -eq $(( $(note_field p prog:old Semaphore) )) ]
}

@test "argument sizes and signs are right for every C scalar type (gcc and clang, -O0 and -O2)" {
    for cc in gcc clang; do
        for opt in -O0 -O2; do
            CC=$cc build "$SRC/types.c" t.o $opt -Wall -Wextra -Werror
            [ "$(arg_sizes "$(note_args t.o t:ints)")" = "-1 -1 1 -2 2 -4 4 -8 8 -8 8 1" ]
            [ "$(arg_sizes "$(note_args t.o t:more)")" = "-4 4 -4 8 8 8 -8 -8 4 8 8 8" ]
            [ "$(arg_sizes "$(note_args t.o t:misc)")" = "8 -4 -4 -1 2 -4 -8" ]
            [ "$(arg_sizes "$(note_args t.o t:consts)")" = "-4 8 -4 8 -1" ]
            [ "$(arg_sizes "$(note_args t.o t:fixed)")" = "-1 1 -2 2 -8 8" ]
        done
    done
}

@test "argument sizes and signs are right for C++ types: bool, char16_t, enum class, references, nullptr" {
    for cxx in g++ clang++; do
        CXX=$cxx build "$SRC/types.cc" t.o -std=c++20 -O2 -Wall -Wextra -Werror
        [ "$(arg_sizes "$(note_args t.o t:cxx)")" = "1 -4 2 4 1 -8 -4 4 -4 8 8 8" ]
        [ "$(arg_sizes "$(note_args t.o t:char8)")" = "1" ]
        [ "$(note_probes t.o | grep -c '^t:tmpl')" -eq 2 ]
        note_probes t.o | grep -qx $'t:tmpl\t-2@$-1'
        note_probes t.o | grep -qx $'t:tmpl\t8@$1'
    done
}

@test "the same C source gives the same notes whether compiled as C or as C++" {
    sizes() { note_sizes "$1"; }
    for cc in gcc clang; do
        CC=$cc build "$SRC/types.c" c.o -O2
        CXX=${cc/gcc/g++}; CXX=${CXX/clang/clang++}
        $CXX -x c++ -c -I "$INCLUDE" -O2 "$SRC/types.c" -o cxx.o
        # only 'x' differs: an int in C, a char in C++
        diff <(sizes c.o | sed 's/^t:consts -4 /t:consts CHAR /') \
             <(sizes cxx.o | sed 's/^t:consts -1 /t:consts CHAR /')
        [ "$(sizes c.o | grep -c '^t:consts -4 ')" -eq 1 ]
        [ "$(sizes cxx.o | grep -c '^t:consts -1 ')" -eq 1 ]
    done
}

@test "bit-field arguments compile, each note as wide as the register that holds it" {
    CC=gcc build "$SRC/bitfields.c" g.o -O2 -Wall -Wextra -Werror
    [ "$(arg_sizes "$(note_args g.o t:bits)")" = "1 -1 8 -4 1" ]
    CC=clang build "$SRC/bitfields.c" c.o -O2 -Wall -Wextra -Werror
    [ "$(arg_sizes "$(note_args c.o t:bits)")" = "4 -4 8 -4 1" ]
    g++ -x c++ -c -I "$INCLUDE" -O2 "$SRC/bitfields.c" -o x.o
    [ "$(arg_sizes "$(note_args x.o t:bits)")" = "4 -4 8 -4 1" ]
}

@test "SystemTap's header cannot compile bit-field arguments (why the test above matters)" {
    need_stap_header
    run gcc -c -I "$(stap_include)" "$SRC/bitfields.c" -o /dev/null
    [ "$status" -ne 0 ]
    [[ "$output" == *bit-field* ]]
}

@test "arguments wider than 8 bytes or of odd size warn naming the argument; SDT_STRICT_ARGS makes it an error" {
    warn='sdt probe argument 2 is wider than 8 bytes or not 1, 2, 4 or 8 bytes long'
    msg='sdt probe argument 2 must be an integer, enum, pointer or floating-point value of at most 8 bytes'
    tag=__sdt_probe_argument_2_is_not_a_scalar_of_8_bytes_or_less
    for cc in gcc clang g++ clang++; do
        lang=c; [[ $cc == *++ ]] && lang=c++
        # old standards get the array-size message, new ones static_assert
        for s in old new; do
            if [ $lang = c ]; then std=gnu89; [ $s = new ] && std=c11
            else std=c++98; [ $s = new ] && std=c++11; fi
            for wide in 1 2 3; do    # __int128, long double, a 12-byte struct
                run $cc -x $lang -std=$std -DWIDE=$wide -c -I "$INCLUDE" "$SRC/wide.c" -o w.o
                [ "$status" -eq 0 ]
                [ "$(echo "$output" | grep -c "warning: .*$warn")" = 1 ]
                # a signed __int128 gives its low 8 bytes, signed
                want="-4 8"; [ $wide = 1 ] && want="-4 -8"
                [ "$(arg_sizes "$(note_args w.o t:wide)")" = "$want" ]
                run $cc -x $lang -std=$std -DWIDE=$wide -DSDT_STRICT_ARGS -c -I "$INCLUDE" "$SRC/wide.c" -o /dev/null
                [ "$status" -ne 0 ]
                [[ "$output" != *"$warn"* ]]
                if [ $s = new ]; then [[ "$output" == *"$msg"* ]]; else [[ "$output" == *"$tag"* ]]; fi
            done
        done
    done
    # an 8-byte struct is a plain argument, strict or not
    gcc -DWIDE=4 -DSDT_STRICT_ARGS -Wall -Wextra -Werror -c -I "$INCLUDE" "$SRC/wide.c" -o p.o
    [ "$(arg_sizes "$(note_args p.o t:wide)")" = "-4 8" ]
}

@test "floating-point arguments carry no f marker unless SDT_FLOAT_MARKER is defined" {
    sdt_c p.c 'void f (float x, double y, int z) { STAP_PROBE3 (t, fp, x, y, z); }'
    for cc in gcc clang; do
        CC=$cc build p.c a.o -O2
        [ "$(arg_sizes "$(note_args a.o t:fp)")" = "4 8 -4" ]
        CC=$cc build p.c b.o -O2 -DSDT_FLOAT_MARKER
        [ "$(arg_sizes "$(note_args b.o t:fp)")" = "4f 8f -4" ]
        [[ "$(note_args b.o t:fp)" =~ ^4f@%[a-z0-9]+\ 8f@%[a-z0-9]+\ -4@%[a-z0-9]+$ ]]
    done
}

@test "probes with zero and twelve arguments work in C, C++ and with STAP_PROBEV" {
    cat > p.c <<'EOF'
#define SDT_USE_VARIADIC 1
#include <sys/sdt.h>
void f (int a) {
  STAP_PROBE (t, zero);
  STAP_PROBEV (t, v0);
  STAP_PROBEV (t, v1, a);
  STAP_PROBEV (t, v5, a, a, a, a, a);
  STAP_PROBEV (t, v12, a, a, a, a, a, a, a, a, a, a, a, a);
  STAP_PROBE12 (t, twelve, a, a, a, a, a, a, a, a, a, a, a, 'z');
}
EOF
    for cc in gcc clang g++ clang++; do
        lang=c; [[ $cc == *++ ]] && lang=c++
        $cc -x $lang -c -I "$INCLUDE" -O2 -Wall -Wextra -Wpedantic -Werror p.c -o p.o
        [ "$(note_args p.o t:zero)" = "" ]
        [ "$(note_args p.o t:v0)" = "" ]
        [ "$(arg_sizes "$(note_args p.o t:v1)")" = "-4" ]
        [ "$(arg_sizes "$(note_args p.o t:v5)" | wc -w)" -eq 5 ]
        [ "$(arg_sizes "$(note_args p.o t:v12)" | wc -w)" -eq 12 ]
        # 'z' is an int in C and a char in C++
        if [ $lang = c ]; then want=' -4@$122'; else want=' -1@$122'; fi
        [[ "$(note_args p.o t:twelve)" == *"$want" ]]
    done
}

@test "probes in assembly files take assembler operands as written" {
    cat > p.S <<'EOF'
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
        .text
        .globl f
f:
        STAP_PROBE (asm, zero)
        STAP_PROBE2 (asm, two, 8@%rdi, -4@8(%rsp))
        ret
        .section .probes, "aw"
        .globl asm_zero_semaphore, asm_two_semaphore
asm_zero_semaphore: .short 0
asm_two_semaphore: .short 0
EOF
    for cc in gcc clang; do
        $cc -c -I "$INCLUDE" p.S -o p.o
        [ "$(note_args p.o asm:zero)" = "" ]
        [ "$(note_args p.o asm:two)" = "8@%rdi -4@8(%rsp)" ]
        readelf -rW p.o | grep -q asm_two_semaphore
    done
}

@test "STAP_PROBE_ASM puts a probe inside an asm statement, with assembler or C operands" {
    sdt_c p.c <<'EOF'
int f (int x, long y) {
  __asm__ __volatile__ ("mov $1, %%eax\n" STAP_PROBE_ASM (asm, text, -4@%%eax 8@%%rsp) "nop" : : : "eax");
  __asm__ __volatile__ ("nop\n" STAP_PROBE_ASM (asm, ops, STAP_PROBE_ASM_TEMPLATE (2)) "nop"
                        : : STAP_PROBE_ASM_OPERANDS (2, x, y));
  __asm__ __volatile__ (STAP_PROBE_ASM (asm, none, STAP_PROBE_ASM_TEMPLATE (0))
                        : : STAP_PROBE_ASM_OPERANDS (0));
  return x;
}
EOF
    for cc in gcc clang; do
        CC=$cc build p.c p.o -O2 -Wall -Wextra -Werror
        [ "$(note_args p.o asm:text)" = "-4@%eax 8@%rsp" ]
        [[ "$(note_args p.o asm:ops)" =~ ^-4@%r[a-z0-9]+\ -8@%r[a-z0-9]+$ ]]
        [ "$(note_args p.o asm:none)" = "" ]
    done
}

@test "_SDT_PROBE works when called directly, as LTTng-UST does" {
    sdt_c p.c <<'EOF'
void f (int a, char *b) { _SDT_PROBE (lttng_ust_tracef, event, 2, (a, b)); _SDT_PROBE (l, zero, 0, ()); }
EOF
    build p.c p.o -O2 -Wall -Wextra -Wpedantic -Werror
    [ "$(arg_sizes "$(note_args p.o lttng_ust_tracef:event)")" = "-4 8" ]
    [ "$(note_args p.o l:zero)" = "" ]
}

@test "STAP_SDT_ARG_CONSTRAINT replaces the operand constraint" {
    sdt_c p.c 'void f (int *p) { STAP_PROBE1 (t, m, p[3]); }'
    build p.c a.o -O2 -DSTAP_SDT_ARG_CONSTRAINT=m
    [ "$(note_args a.o t:m)" = "-4@12(%rdi)" ]
    build p.c b.o -O2
    [[ "$(note_args b.o t:m)" =~ ^-4@%r[a-z0-9]+$ ]]
}

@test "provider names written as string literals or with hyphens are kept as SystemTap keeps them" {
    # the seed examples: hello-usdt.c and probe-test.c
    sdt_c p.c <<'EOF'
int main (void) {
  unsigned ctr = 1;
  DTRACE_PROBE ("hello_usdt", "enter");
  DTRACE_PROBE1 (probe-test, increment, ctr);
  return 0;
}
EOF
    gcc -O0 -I "$INCLUDE" p.c -o p
    note_probes p | cut -f1 > got
    printf '%s\n' '"hello_usdt":"enter"' 'probe-test:increment' > want
    diff want got
    if [ -n "$STAP_INCLUDE_DIR" ]; then
        gcc -O0 -I "$(stap_include)" p.c -o s
        note_probes s | cut -f1 | diff want -
    fi
}

@test "x86-64 operands name full registers and are never rip-relative or indexed" {
    sdt_c p.c <<'EOF'
extern char gc; extern short gs; extern long garr[8]; static int st; extern void fn (void);
struct s { char c; short h; long l; };
void f (char c, short h, struct s *p, int i, unsigned char uc) {
  STAP_PROBE12 (t, regs, c, h, p->c, p->h, p->l, gc, gs, garr[i], st, fn, uc, p[i].c);
  st += i;
}
EOF
    for cc in gcc clang; do
        for opt in -O0 -O1 -O2 -O3 -Os "-O2 -fPIC" "-O2 -fno-pie"; do
            CC=$cc build p.c p.o $opt
            args=$(note_args p.o t:regs)
            [ "$(arg_sizes "$args")" = "-1 -2 -1 -2 -8 -1 -2 -8 -4 8 1 -1" ]
            # registers are always the 64-bit names
            ! grep -qE '%(([a-d][lh])|([sd]il)|(bpl)|(spl)|(r[0-9]+[bwd])|([a-d]x)|([sd]i)|(e[a-d]x)|(e[sd]i)|(e[sb]p))\b' <<< "$args" || false
            # memory, if any, is register plus displacement
            ! grep -qE '\(%rip\)|,' <<< "$args" || false
        done
    done
}

@test "a disabled probe adds only a nop when its arguments are already in registers" {
    # The baseline keeps the same values alive in registers with an empty
    # asm, so the optimiser has the same constraints: the probe may add the
    # nop and nothing else.
    sdt_c p.c <<'EOF'
#ifdef NOPROBE
# undef STAP_PROBE3
# define STAP_PROBE3(p, n, a, b, c) \
  __asm__ __volatile__ ("" : : "r" (a), "r" (b), "r" (c))
#endif
long f (long a, long b, long c) {
  long s = 0;
  for (long i = 0; i < a; i++) { s += b * i + c; STAP_PROBE3 (t, loop, i, s, b); }
  return s;
}
EOF
    for cc in gcc clang; do
        for opt in -O2 -O3 -Os; do
            CC=$cc build p.c probe.o $opt
            CC=$cc build p.c plain.o $opt -DNOPROBE
            with=$(objdump -d --no-show-raw-insn probe.o | grep -cE '^\s+[0-9a-f]+:')
            without=$(objdump -d --no-show-raw-insn plain.o | grep -cE '^\s+[0-9a-f]+:')
            [ "$with" -eq $(( without + 1 )) ] || { echo "$cc $opt: $with vs $without"; false; }
        done
    done
}

# ---- -masm=intel: the compilers print operands in Intel syntax ----------

# notes_text FILE: each probe and its arguments, one a line.
notes_text() { note_probes "$1" | sort; }

# att_form ARGS: every argument of a note's string is SIZE@ and an operand
# in AT&T's form: %reg, $N, or disp(%reg).
att_form() {
    local a
    for a in $1; do
        [[ $a =~ ^-?[0-9]+@(%[a-z0-9]+|\$-?[0-9]+|-?[0-9]*\(%[a-z0-9]+\))$ ]] ||
            { echo "not AT&T's form: $a (of '$1')"; return 1; }
    done
}

@test "-masm=intel gives the notes -masm=att gives, on x86-64: gcc and clang, -O0 and -O2, <sys/sdt.h> and <usdt.h>" {
    [ "$(uname -m)" = x86_64 ] || refused "expects an x86-64 host"
    local cc opt use n=0
    for cc in gcc clang; do
        need_cmd $cc
        for opt in -O0 -O2; do
            for use in -DSYS_SDT -DUSE_USDT; do
                $cc $opt $use -I "$INCLUDE" "$SRC/kinds.c" -o att
                $cc $opt $use -masm=intel -I "$INCLUDE" "$SRC/kinds.c" -o intel
                diff <(notes_text att) <(notes_text intel)
                # a register, $42, a register, a register
                att_form "$(note_args intel t:kinds)"
                [[ "$(note_args intel t:kinds)" =~ ^-4@%[a-z0-9]+\ -4@\$42\ -4@%[a-z0-9]+\ -8@%[a-z0-9]+$ ]]
                n=$((n + 1))
            done
            $cc $opt -I "$INCLUDE" "$SRC/gdbvals.c" -o att
            $cc $opt -masm=intel -I "$INCLUDE" "$SRC/gdbvals.c" -o intel
            diff <(notes_text att) <(notes_text intel)
            note_probes intel | cut -f2 | while read -r args; do att_form "$args"; done
        done
    done
    [ "$n" -eq 8 ]
}

@test "-masm=intel with SDT_FLOAT_MARKER and through STAP_PROBE_ASM_TEMPLATE gives the notes -masm=att gives" {
    [ "$(uname -m)" = x86_64 ] || refused "expects an x86-64 host"
    sdt_c p.c <<'EOF'
double d = 2.5;
int g = 3;
void f (int a, long b)
{
  STAP_PROBE3 (p, floats, a, d, 42);
  __asm__ __volatile__ ("nop\n" STAP_PROBE_ASM (p, inasm, STAP_PROBE_ASM_TEMPLATE (3)) "nop"
                        : : STAP_PROBE_ASM_OPERANDS (3, a, b, g));
}
EOF
    for cc in gcc clang; do
        for opt in -O0 -O2; do
            $cc $opt -DSDT_FLOAT_MARKER -I "$INCLUDE" -c p.c -o att.o
            $cc $opt -DSDT_FLOAT_MARKER -masm=intel -I "$INCLUDE" -c p.c -o intel.o
            diff <(notes_text att.o) <(notes_text intel.o)
            [[ "$(note_args intel.o p:floats)" == *"8f@%"*" -4@\$42" ]]
            $cc $opt -I "$INCLUDE" -c p.c -o att.o
            $cc $opt -masm=intel -I "$INCLUDE" -c p.c -o intel.o
            diff <(notes_text att.o) <(notes_text intel.o)
            att_form "$(note_args intel.o p:inasm)"
        done
    done
}

# indexed ATT|INTEL: the notes_text lines, with each indexed memory operand
# (AT&T's disp(%b,%i,s), Intel's disp[b+i*s]: no tracer but systemtap reads
# either) written INDEX.
indexed() {
    case $1 in
        att) sed -E 's/@[^ @]*\([^ )]*,[^ )]*\)/@INDEX/g' ;;
        intel) sed -E 's/@[^ @]*\[[^] ]*\*[^] ]*\]/@INDEX/g' ;;
    esac
}

# bats test_tags=cross
@test "-masm=intel on i686 and x32 with gcc gives the notes -masm=att gives, base-plus-displacement memory operands included" {
    local arch cc opt pic src
    for arch in i686 x32; do
        need_arch $arch
        cc=$(arch_gcc $arch)
        for opt in -O0 -O2; do
            for pic in -fPIC -fno-PIC; do
                for src in gdbvals kinds; do
                    $cc $opt $pic -I "$INCLUDE" -c "$SRC/$src.c" -o att.o
                    $cc $opt $pic -masm=intel -I "$INCLUDE" -c "$SRC/$src.c" -o intel.o
                    diff <(notes_text att.o | indexed att) <(notes_text intel.o | indexed intel)
                done
            done
        done
    done
    # i686's memory operands came through the assembler macro: base plus
    # displacement, as in AT&T syntax
    i686-linux-gnu-gcc -O0 -masm=intel -I "$INCLUDE" -c "$SRC/gdbvals.c" -o intel.o
    note_probes intel.o | grep -qE -- '-?[0-9]+@-?[0-9]+\(%ebp\)'
}

# bats test_tags=cross
@test "-masm=intel on i686 with clang builds; its registers and constants read in AT&T's form, its memory operands are marked unreadable" {
    need_arch i686
    need_cmd clang
    local opt args a
    for opt in -O0 -O2; do
        clang --target=i686-linux-gnu $opt -masm=intel -I "$INCLUDE" -c "$SRC/kinds.c" -o k.o
        args=$(note_args k.o t:kinds)
        [[ "$args" == *" -4@\$42 "* ]]
        for a in $args; do
            # LLVM's assembler cannot take [esp+8] apart (docs/compatibility.md):
            # it gets the immediate's '$', which every tracer rejects
            [[ $a =~ ^-?[0-9]+@(%e[a-z]+|\$-?[0-9]+|\$\[e[a-z]+([+-][0-9]+)?\])$ ]] ||
                { echo "unexpected: $a"; false; }
        done
    done
}

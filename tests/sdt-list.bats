#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sdt-list: the probes of ELF files and archives, one tab-separated line
# each, and --check against the rules tracers rely on.  Objects are built
# with SystemTap's <sys/sdt.h> (an independent producer of notes), and
# broken notes are written by hand in assembly.

load dtrace-helpers

# SystemTap's sdt.h alone in ./stapinc (stap_include: the test's own
# directory), usable by cross compilers too.
stap_sdt() {
    need_stap_header
    stap_include >/dev/null
}

# probes_c [OUT FLAGS...]: probes.c; with OUT, built with SystemTap's header.
probes_c() {
    cat >probes.c <<'EOF'
#include <sys/sdt.h>
unsigned short p_sem_semaphore __attribute__((section(".probes")));
#define _SDT_HAS_SEMAPHORES 1
/* (one site a probe: not inlined into main as well, as gcc -O2 may) */
__attribute__((noinline)) void f(int a, long b, char *s)
{
    DTRACE_PROBE(p, zero);
    DTRACE_PROBE3(p, three, a, b, s);
}
int main(int argc, char **argv) { f(argc, 2, argv[0]); return 0; }
EOF
    [ $# -eq 0 ] || gcc -O2 -Istapinc "${@:2}" probes.c -o "$1"
}

@test "every probe of an object is one line of seven tab-separated fields" {
    stap_sdt
    probes_c probes.o -c
    run --separate-stderr "$SDT_LIST" probes.o
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 2 ]
    [ "$(printf '%s\n' "${lines[0]}" | cut -f1-6)" = "$(printf 'probes.o\tp\tzero\t0x0\t0x0\t0x0')" ]
    [ "$(printf '%s\n' "${lines[1]}" | cut -f1-3)" = "$(printf 'probes.o\tp\tthree')" ]
    for l in "${lines[@]}"; do
        [ "$(printf '%s\n' "$l" | awk -F'\t' '{print NF}')" -eq 7 ]
    done
    want="$(readelf -n probes.o | sed -n '/Name: three/,/Arguments/s/^ *Arguments: //p')"
    [ "$(printf '%s\n' "${lines[1]}" | cut -f7)" = "$want" ]
    [ -z "$(printf '%s\n' "${lines[0]}" | cut -f7)" ]
}

@test "a linked program shows the probe's pc, base and semaphore addresses" {
    stap_sdt
    cat >sem.c <<'EOF'
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
__extension__ unsigned short p_hit_semaphore __attribute__((section(".probes")));
int main(int argc, char **argv) { STAP_PROBE1(p, hit, argc); (void)argv; return 0; }
EOF
    gcc -O2 -Istapinc sem.c -o sem
    line="$("$SDT_LIST" sem)"
    sem="$(readelf -sW sem | awk '$NF == "p_hit_semaphore" { print $2 }')"
    base="$(readelf -SW sem | awk '$2 == ".stapsdt.base" { print $4 }')"
    pc="$(readelf -n sem | sed -n 's/.*Location: \(0x[0-9a-f]*\),.*/\1/p')"
    [ "$(printf '%s\n' "$line" | cut -f4)" = "$(printf '0x%x' "$pc")" ]
    [ "$(printf '%s\n' "$line" | cut -f5)" = "$(printf '0x%x' "0x$base")" ]
    [ "$(printf '%s\n' "$line" | cut -f6)" = "$(printf '0x%x' "0x$sem")" ]
}

@test "archive members are listed as archive(member), thin archives through their files" {
    stap_sdt
    probes_c probes.o -c
    echo 'int nothing;' >none.c
    gcc -c none.c -o none.o
    ar rcs libp.a none.o probes.o
    "$SDT_LIST" libp.a >full
    cut -f1-3 full >list
    diff - list <<'EOF'
libp.a(probes.o)	p	zero
libp.a(probes.o)	p	three
EOF
    mkdir objs
    cp probes.o objs/
    ar rcsT libthin.a objs/probes.o
    "$SDT_LIST" libthin.a >thin
    [ "$(cut -f1 thin | sort -u)" = objs/probes.o ]
}

# bats test_tags=cross
@test "32-bit and big-endian files are listed too" {
    stap_sdt
    probes_c
    n=0
    for arch in i686 armhf s390x; do
        need_arch "$arch"
        cc="$(arch_gcc "$arch")"
        "$cc" -O2 -Istapinc -c probes.c -o "probes-$arch.o"
        "$SDT_LIST" "probes-$arch.o" >list
        [ "$(cut -f2,3 list | tr '\t\n' ': ')" = "p:zero p:three " ]
        n=$((n + 1))
    done
}

# Every Debian target (both byte orders, 32 and 64 bits): the notes of an
# object and of a static program built with our header are listed with the
# argument strings readelf shows, and pass --check.
# bats test_tags=cross
@test "every one of the 18 targets' objects and static programs are listed and pass --check" {
    probes_c
    sed -i '/semaphore\|_SDT_HAS_SEMAPHORES/d' probes.c
    for arch in $ALL_ARCHES; do need_arch "$arch"; done
    for arch in $ALL_ARCHES; do
        cc="$(arch_gcc "$arch")"
        "$cc" -O2 -I "$INCLUDE" -c probes.c -o "p-$arch.o"
        "$cc" -static "p-$arch.o" -o "p-$arch"
        for f in "p-$arch.o" "p-$arch"; do
            "$SDT_LIST" "$f" >list || { echo "$arch: $f not listed"; false; }
            [ "$(cut -f2,3 list | tr '\t\n' ': ')" = "p:zero p:three " ] || { echo "$arch $f:"; cat list; false; }
            want=$(readelf -n "$f" | sed -n 's/^ *Arguments: //p' | tail -1)
            [ "$(tail -1 list | awk -F'\t' '{ print $NF }')" = "$want" ] || { echo "$arch $f: args differ from readelf: $want"; cat list; false; }
            "$SDT_LIST" --check "$f" >/dev/null || { echo "$arch: --check rejects $f"; "$SDT_LIST" --check "$f"; false; }
        done
    done
}

@test "a file without probes prints nothing and exits 0" {
    echo 'int main(void) { return 0; }' >plain.c
    gcc plain.c -o plain
    run --separate-stderr "$SDT_LIST" plain
    [ "$status" -eq 0 ]
    [ -z "$output" ]
    [ -z "$stderr" ]
}

@test "--check accepts a program built with SystemTap's header" {
    stap_sdt
    probes_c probes
    run --separate-stderr "$SDT_LIST" --check probes
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    [ "${#lines[@]}" -eq 2 ]
}

@test "--check rejects the float marker SystemTap's header writes for a double" {
    stap_sdt
    printf '#include <sys/sdt.h>\nvoid f(double d, int i) { DTRACE_PROBE2(p, fl, d, i); }\n' >fl.c
    gcc -O2 -Istapinc -c fl.c -o fl.o
    readelf -n fl.o | grep -q 'Arguments: 8f@'
    run --separate-stderr "$SDT_LIST" --check fl.o
    [ "$status" -eq 1 ]
    [[ "$stderr" == *"sdt-list: fl.o: p:fl: an argument has the float marker 'f'"* ]]
    [[ "$stderr" == *"1 problem found"* ]]
    # without --check the probe is simply listed
    run "$SDT_LIST" fl.o
    [ "$status" -eq 0 ]
}

@test "--check rejects each broken rule of a hand-written note" {
    note ok.s prov name "-4@%eax 8@%rbx"
    note namesz.s prov name "" '.ascii "stapsdt"'
    note type.s prov name "" '.asciz "stapsdt"' 4
    note alloc.s prov name "" '.asciz "stapsdt"' 3 a
    note ptr32.s prov name "" '.asciz "stapsdt"' 3 "" .4byte
    note ident.s "my-prov" name ""
    note size.s prov name "3@%eax"
    note operand.s prov name "4@"
    note noat.s prov name "%eax"
    note spaces.s prov name "4@%eax  4@%ebx"
    note many.s prov name "$(printf '4@%%eax %.0s' $(seq 13) | sed 's/ $//')"
    for f in *.s; do gcc -c "$f" -o "${f%.s}.o"; done
    run "$SDT_LIST" --check ok.o
    [ "$status" -eq 0 ]
    check() {
        run --separate-stderr "$SDT_LIST" --check "$1"
        [ "$status" -eq 1 ] || { echo "$1 passed"; return 1; }
        [[ "$stderr" == *"$2"* ]] || { echo "$1: $stderr"; return 1; }
    }
    check namesz.o "note name size is 7, not 8"
    check type.o "note type is 4, not 3"
    check alloc.o "section .note.stapsdt is allocated (SHF_ALLOC)"
    # 4-byte addresses read as 8-byte ones: either the strings run out or
    # they are not identifiers any more
    run --separate-stderr "$SDT_LIST" --check ptr32.o
    [ "$status" -eq 1 ]
    [[ "$stderr" == *"ptr32.o: "*"descriptor too short"* ||
       "$stderr" == *"ptr32.o: "*"(or the address size does not match the ELF class)"* ]]
    check ident.o "my-prov:name: provider or name is not a C identifier"
    check size.o "size is not 1, 2, 4 or 8"
    check operand.o "an argument has an empty operand"
    check noat.o "an argument has no '@'"
    check spaces.o "not separated by exactly one space"
    check many.o "13 arguments; at most 12 are allowed"
}

@test "operands with spaces, as GCC writes ARM and AArch64 memory, are one argument each" {
    note arm.s prov name "-8@[x0, 16] 4@[r0, #8] -4@[sp] 8@%rdi"
    gcc -c arm.s -o arm.o
    run "$SDT_LIST" --check arm.o
    [ "$status" -eq 0 ]
    [ "${output##*$'\t'}" = "-8@[x0, 16] 4@[r0, #8] -4@[sp] 8@%rdi" ]
    # dtrace -G counts them as four arguments too: no mismatch warning
    printf 'provider prov { probe name(long, int, int, long); };\n' > prov.d
    run --separate-stderr "$DTRACE" -G -s prov.d -o prov.o arm.o
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    printf 'provider prov { probe name(long, int); };\n' > two.d
    run --separate-stderr "$DTRACE" -G -s two.d -o two.o arm.o
    [[ "$stderr" == *"probe 'prov:name' is used with 4 arguments but declared with 2"* ]]
}

@test "--check rejects a descriptor that does not end at the argument string" {
    cat >pad.s <<'EOF'
	.section .note.stapsdt,"","note"
	.balign 4
	.4byte 992f-991f, 994f-993f, 3
991:	.asciz "stapsdt"
992:	.balign 4
993:	.8byte 0, 0, 0
	.asciz "prov"
	.asciz "name"
	.asciz ""
	.balign 4
994:
EOF
    gcc -c pad.s -o pad.o
    run --separate-stderr "$SDT_LIST" --check pad.o
    [ "$status" -eq 1 ]
    [[ "$stderr" == *"prov:name: descriptor does not end at the argument string's NUL"* ]]
}

@test "--check wants .stapsdt.base in a linked file with probes" {
    note nobase.s prov name "-4@%eax"
    printf 'int main(void) { return 0; }\n' >main.c
    gcc main.c nobase.s -o nobase
    run --separate-stderr "$SDT_LIST" --check nobase
    [ "$status" -eq 1 ]
    [[ "$stderr" == *"nobase: linked file with probes but no .stapsdt.base section"* ]]
    # a relocatable object without it is fine: the header's own objects have it
    gcc -c nobase.s -o nobase.o
    run "$SDT_LIST" --check nobase.o
    [ "$status" -eq 0 ]
}

@test "tabs and other control bytes in a note are escaped" {
    note tab.s prov name '4@%eax\t8@%rbx\\x'
    gcc -c tab.s -o tab.o
    run "$SDT_LIST" tab.o
    [ "$status" -eq 0 ]
    [ "$(printf '%s\n' "$output" | awk -F'\t' '{print NF}')" -eq 7 ]
    [ "$(printf '%s\n' "$output" | cut -f7)" = '4@%eax\t8@%rbx\\x' ]
}

@test "the -G object of dtrace has no notes; sdt-list says nothing about it" {
    small_provider
    "$DTRACE" -G -s prov.d -o prov.o
    run --separate-stderr "$SDT_LIST" --check prov.o
    [ "$status" -eq 0 ]
    [ -z "$output$stderr" ]
}

@test "truncated and corrupted files are reported, never crash" {
    stap_sdt
    probes_c probes.o -c
    size="$(stat -c %s probes.o)"
    for n in 10 64 200 $((size / 2)) $((size - 8)); do
        head -c "$n" probes.o >cut.o
        run timeout 10 "$SDT_LIST" --check cut.o
        [ "$status" -le 1 ] || { echo "status $status at $n bytes"; return 1; }
    done
}

@test "usage errors exit 2, a missing file exits 1" {
    run "$SDT_LIST"
    [ "$status" -eq 2 ]
    [[ "$output" == *"Usage: sdt-list"* ]]
    run "$SDT_LIST" --bogus x.o
    [ "$status" -eq 2 ]
    run "$SDT_LIST" missing.o
    [ "$status" -eq 1 ]
    [[ "$output" == *"cannot open 'missing.o'"* ]]
    run "$SDT_LIST" --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"FILE  PROVIDER  NAME  PC  BASE  SEMAPHORE  ARGUMENTS"* ]]
}

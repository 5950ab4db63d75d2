#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Linking probes: C++ inline functions and templates used from several
# translation units, --gc-sections, shared libraries, static and LTO builds,
# with the bfd, gold, lld and mold linkers.  Every note must survive with a
# location that is a nop of the linked program and the right base.

load helpers

CXXSRC=("$ROOT"/tests/header/cxx/{a,b,main}.cc)

# need_linker LD: gcc links with -fuse-ld=LD here (.ci/run installs
# binutils for bfd and gold, lld and mold).
need_linker() {
    echo 'int main(void){return 0;}' | gcc -x c - -fuse-ld="$1" -o /dev/null 2>/dev/null ||
        missing "gcc cannot link with -fuse-ld=$1 (.ci/run installs binutils, lld, mold)"
}

# every_location_is_a_nop BIN: each probe's location holds the x86 nop.
every_location_is_a_nop() {
    local loc n=0
    for loc in $(readelf -n "$1" | sed -n 's/.*Location: \(0x[0-9a-f]*\),.*/\1/p'); do
        objdump -d --start-address="$loc" --stop-address=$(( loc + 1 )) "$1" |
            grep -qE '^ +[0-9a-f]+:\s+90\s+nop' || { echo "$1: no nop at $loc"; return 1; }
        n=$((n + 1))
    done
    [ "$n" -gt 0 ]
}

# base_matches BIN: every note's base is the address of .stapsdt.base.
base_matches() {
    local sect
    sect=$(readelf -SW "$1" | sed -nE 's/.* \.stapsdt\.base +PROGBITS +([0-9a-f]+) .*/\1/p')
    [ -n "$sect" ] || { echo "$1: no .stapsdt.base"; return 1; }
    readelf -n "$1" | sed -n 's/.*Base: \(0x[0-9a-f]*\),.*/\1/p' | while read -r b; do
        [ $(( b )) -eq $(( 0x$sect )) ] || { echo "$1: base $b, section at 0x$sect"; exit 1; }
    done
}

@test "C++ inline functions and templates used from two translation units link with bfd, gold, lld and mold" {
    for ld in bfd gold lld mold; do
        need_linker $ld
        for cxx in g++ clang++; do
            for opt in -O0 -O2; do
                $cxx $opt -fuse-ld=$ld -I "$INCLUDE" "${CXXSRC[@]}" -o prog
                ./prog > /dev/null
                every_location_is_a_nop prog
                base_matches prog
                # -O0: one note per distinct function: the inline function, the
                # member function, three template instances -- duplicates gone
                if [ $opt = -O0 ]; then
                    [ "$(note_probes prog | cut -f1 | sort | uniq -c | awk '{print $1 $2}' | tr '\n' ' ')" = \
                      "1cxx:inline_fn 1cxx:member 3cxx:tmpl " ]
                fi
            done
        done
    done
}

# bats test_tags=tracer
@test ".stapsdt.base survives --gc-sections with every linker, so gdb still lists the probes" {
    for ld in bfd gold lld mold; do
        need_linker $ld
        g++ -O2 -ffunction-sections -fdata-sections -Wl,--gc-sections -fuse-ld=$ld -I "$INCLUDE" "${CXXSRC[@]}" -o prog
        base_matches prog
        every_location_is_a_nop prog
        [ "$(gdb -batch -nx -ex 'info probes' prog 2>/dev/null | grep -c ' cxx ')" -eq "$(note_probes prog | wc -l)" ]
    done
}

@test "side by side: SystemTap's .stapsdt.base is dropped by gold and mold under --gc-sections" {
    need_stap_header
    inc=$(stap_include)
    dropped=""
    for ld in bfd gold lld mold; do
        need_linker $ld
        g++ -O2 -ffunction-sections -Wl,--gc-sections -fuse-ld=$ld -I "$inc" "${CXXSRC[@]}" -o prog
        readelf -SW prog | grep -q '\.stapsdt\.base' || dropped="$dropped $ld"
    done
    echo "# SystemTap's header loses .stapsdt.base with:${dropped:- none}" >&3
}

@test "probes in a shared library keep their locations, base and semaphores" {
    cat > lib.c <<'EOF'
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
__extension__ unsigned short lib_call_semaphore __attribute__ ((section (".probes"), visibility ("hidden")));
__extension__ unsigned short lib_always_semaphore __attribute__ ((section (".probes"), visibility ("hidden")));
int lib_call (int x) { if (lib_call_semaphore) STAP_PROBE1 (lib, call, x); STAP_PROBE2 (lib, always, x, &x); return x + 1; }
EOF
    for ld in bfd gold lld mold; do
        need_linker $ld
        for cc in gcc clang; do
            $cc -O2 -fPIC -shared -fuse-ld=$ld -I "$INCLUDE" lib.c -o libp.so
            every_location_is_a_nop libp.so
            base_matches libp.so
            sem=$(readelf -sW libp.so | awk '$8 == "lib_call_semaphore" { print $2 }')
            [ $(( 0x$sem )) -eq $(( $(note_field libp.so lib:call Semaphore) )) ]
            [ "$(readelf -SW libp.so | grep -cE ' \.probes +PROGBITS ')" -eq 1 ]
        done
    done
}

@test "static, non-PIE and LTO programs keep every probe on a nop" {
    g++ -O2 -static -I "$INCLUDE" "${CXXSRC[@]}" -o st
    every_location_is_a_nop st; base_matches st
    g++ -O2 -fno-pie -no-pie -I "$INCLUDE" "${CXXSRC[@]}" -o np
    every_location_is_a_nop np; base_matches np
    g++ -O2 -flto -I "$INCLUDE" "${CXXSRC[@]}" -o lto
    every_location_is_a_nop lto; base_matches lto
    [ "$(note_probes lto | cut -f1 | sort -u | tr '\n' ' ')" = "cxx:inline_fn cxx:member cxx:tmpl " ]
    need_linker lld
    clang++ -O2 -flto -fuse-ld=lld -I "$INCLUDE" "${CXXSRC[@]}" -o clto
    every_location_is_a_nop clto; base_matches clto
}

@test "a semaphore defined in C survives LTO because the probe references it" {
    cat > sem.c <<'EOF'
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
unsigned short app_tick_semaphore __attribute__ ((section (".probes")));
int main (int argc, char **argv) { (void) argv; STAP_PROBE1 (app, tick, argc); return 0; }
EOF
    gcc -O2 -flto -I "$INCLUDE" sem.c -o sem
    sym=$(readelf -sW sem | awk '$8 == "app_tick_semaphore" { print $2 }')
    [ -n "$sym" ]
    [ $(( 0x$sym )) -eq $(( $(note_field sem app:tick Semaphore) )) ]
}

#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The provider examples linked with every linker: bfd, gold, lld and mold,
# each with and without --gc-sections (and -ffunction-sections
# -fdata-sections), for the C program with semaphores (tick), the C++
# templates (cxx-ring, g++ and clang++) and the shared library (libgreet.so).
# The notes must keep .stapsdt.base and point at the probes: gdb lists every
# site where the note says, stops at each one as the program runs, and reads
# the values the program passed; the semaphores still work.
# bats file_tags=tracer

load helpers
load tracers-helpers

LINKERS="bfd gold lld mold"

setup() {
    need_gdb_python gdb
}

# linker_ok CC LD: whether CC can link with -fuse-ld=LD here.
linker_ok() {
    echo 'int main(void){return 0;}' | "$1" -x c - -fuse-ld="$2" -o /dev/null 2>/dev/null
}

# gc_flags GC: the flags of one --gc-sections setting ("gc" or "nogc").
gc_flags() {
    [ "$1" = gc ] && echo "-ffunction-sections -fdata-sections -Wl,--gc-sections"
    return 0
}

# has_stapsdt_base FILE: the linked file kept a .stapsdt.base section and
# every note's base is its address.
has_stapsdt_base() {
    local sect b
    sect=$(readelf -SW "$1" | sed -nE 's/.* \.stapsdt\.base +PROGBITS +([0-9a-f]+) .*/\1/p')
    [ -n "$sect" ] || { echo "$1: no .stapsdt.base"; return 1; }
    for b in $(readelf -n "$1" | sed -n 's/.*Base: \(0x[0-9a-f]*\),.*/\1/p'); do
        [ $((b)) -eq $((0x$sect)) ] || { echo "$1: base $b, section at 0x$sect"; return 1; }
    done
}

# Linkers this machine lacks, reported once per test; under CI, where
# .ci/run installs all four (binutils, lld, mold), a failure.
report_missing() {
    [ -z "$missing" ] && return 0
    if [ "${CI:-}" = true ]; then
        echo "missing under CI: cannot link with:$missing (.ci/run installs binutils, lld, mold)"
        return 1
    fi
    echo "# not installed here:$missing" >&3
}

# Each test builds every variant and checks its file, then one gdb session
# (gdb_runs) lists each one's probes and runs it; the checks of what gdb
# said follow, a variant at a time.

@test "tick linked by bfd, gold, lld and mold, with and without --gc-sections: gdb stops at both probes with the counter, loop2 enabled" {
    missing= runs=0
    : >jobs
    for cc in gcc clang; do
        for ld in $LINKERS; do
            linker_ok $cc $ld || { missing="$missing $cc/$ld"; continue; }
            for gc in nogc gc; do
                b="$PWD/tick-$cc-$ld-$gc"
                build_tick "$b" pie $cc -fuse-ld=$ld $(gc_flags $gc)
                echo "$cc $ld $gc"
                has_stapsdt_base "$b"
                echo "tick-$cc-$ld-$gc - $b $b 3 0 >$b.out" >>jobs
            done
        done
    done
    gdb_runs "$PWD" tick:loop1 tick:loop2 <jobs
    while read -r name _ b _; do
        echo "$name"
        [ "$(sort "$name.sites")" = "$(note_sites "$b")" ]
        output=$(<"$name.hits")
        [ "$(echo "$output" | grep -v hit | tr '\n' ,)" = \
          "loop1 arg0 1,loop2 arg0 1,loop1 arg0 2,loop2 arg0 2,loop1 arg0 3,loop2 arg0 3," ] ||
            { echo "$output"; false; }
        [ "$(grep -c 'loop2 enabled (semaphore 1)' "$b.out")" -eq 3 ]
        runs=$((runs + 1))
    done <jobs
    report_missing
    [ "$runs" -ge 4 ]
}

@test "cxx-ring linked by bfd, gold, lld and mold, with and without --gc-sections: gdb stops in every template instance with the values passed" {
    missing= runs=0
    : >jobs
    for cxx in g++ clang++; do
        # the objects and dtrace -G's, which no linker changes: made once
        # for each --gc-sections setting, linked by each linker
        for gc in nogc gc; do
            o="$PWD/ring-$cxx-$gc"
            mkdir -p "$o"
            for f in main producer consumer; do
                $cxx -O2 -g $(gc_flags $gc) -I "$INCLUDE" -I "$EX/cxx-templates" \
                    -c "$EX/cxx-templates/$f.cc" -o "$o/$f.o"
            done
            "$DTRACE" -G -s "$EX/cxx-templates/ring.d" -o "$o/probes.o" "$o"/main.o "$o"/producer.o "$o"/consumer.o
        done
        for ld in $LINKERS; do
            linker_ok $cxx $ld || { missing="$missing $cxx/$ld"; continue; }
            for gc in nogc gc; do
                o="$PWD/ring-$cxx-$gc"
                d="$PWD/ring-$cxx-$ld-$gc"
                mkdir -p "$d"
                $cxx -O2 -g -fuse-ld=$ld $(gc_flags $gc) "$o"/main.o "$o"/producer.o "$o"/consumer.o \
                    "$o/probes.o" -o "$d/cxx-ring"
                echo "$cxx $ld $gc"
                has_stapsdt_base "$d/cxx-ring"
                echo "ring-$cxx-$ld-$gc - $d/cxx-ring $d/cxx-ring 3 >$d/out" >>jobs
            done
        done
    done
    gdb_runs "$PWD" ring:push ring:pop ring:mix <jobs
    while read -r name _ b _; do
        echo "$name"
        d=${b%/cxx-ring}
        [ "$(sort "$name.sites")" = "$(note_sites "$b")" ]
        output=$(<"$name.hits")
        got=$(echo "$output" | grep -E '^(push|pop) arg' | paste -d' ' - - | awk '{ print $1, $3, $6 }')
        want=$(sed -n 's/^\(push\|pop\) \([0-9]*\) (size \([0-9]*\))$/\1 \2 \3/p' "$d/out")
        [ "$(echo "$want" | wc -l)" -eq 12 ]
        [ "$got" = "$want" ] || { echo "$output"; false; }
        [ "$(echo "$output" | grep -c '^mix hit')" -eq 9 ]
        runs=$((runs + 1))
    done <jobs
    report_missing
    [ "$runs" -ge 4 ]
}

@test "libgreet.so linked by bfd, gold, lld and mold, with and without --gc-sections: gdb stops in it with the values passed" {
    missing= runs=0
    : >jobs
    # the object and dtrace -G's, which no linker changes: made once for
    # each --gc-sections setting, linked by each linker
    for gc in nogc gc; do
        o="$PWD/greet-$gc"
        mkdir -p "$o"
        gcc -O2 -g -fPIC $(gc_flags $gc) -I "$INCLUDE" -I "$EX/shared-lib" \
            -c "$EX/shared-lib/libgreet.c" -o "$o/libgreet.o"
        "$DTRACE" -G -s "$EX/shared-lib/greet.d" -o "$o/probes.o" "$o/libgreet.o"
    done
    for ld in $LINKERS; do
        linker_ok gcc $ld || { missing="$missing gcc/$ld"; continue; }
        for gc in nogc gc; do
            o="$PWD/greet-$gc"
            d="$PWD/greet-$ld-$gc"
            mkdir -p "$d"
            gcc -shared -fuse-ld=$ld $(gc_flags $gc) "$o/libgreet.o" "$o/probes.o" -o "$d/libgreet.so"
            gcc -O2 -g -fuse-ld=$ld -I "$EX/shared-lib" "$EX/shared-lib/greet-linked.c" \
                -L "$d" -lgreet -Wl,-rpath,"$d" -o "$d/greet-linked"
            echo "$ld $gc"
            has_stapsdt_base "$d/libgreet.so"
            echo "greet-$ld-$gc - $d/libgreet.so $d/greet-linked 2 0 >$d/out" >>jobs
        done
    done
    gdb_runs "$PWD" greet:hello greet:done <jobs
    while read -r name _ b _; do
        echo "$name"
        d=${b%/libgreet.so}
        [ "$(sort "$name.sites")" = "$(note_sites "$b")" ]
        output=$(<"$name.hits")
        who=$(($(sed -n '1s/^greet who=\(0x[0-9a-f]*\) .*/\1/p' "$d/out")))
        [ "$(echo "$output" | grep -v hit | tr '\n' ,)" = \
          "hello arg0 $who,hello arg1 1,done arg0 1,hello arg0 $who,hello arg1 2,done arg0 3," ] ||
            { echo "$output"; false; }
        [ "$(grep -c '(semaphore 1)' "$d/out")" -eq 2 ]
        runs=$((runs + 1))
    done <jobs
    report_missing
    [ "$runs" -ge 2 ]
}

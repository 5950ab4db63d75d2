#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The provider examples (provider-examples/): every one builds from a clean
# copy with `make', warning-free, with our dtrace and header; runs and
# prints what its README promises; has exactly the probes, argument sizes
# and semaphores it declares.  The postgres-style and meson wirings, the
# shared library, the C++ templates, `make clean' and `make demo' are
# checked for what they are there to show.  Tracers firing these probes are
# in tests/tracers*.bats; linkers in tests/examples-link.bats.

load helpers
load tracers-helpers

# The examples built from a clean copy of their sources, as make builds
# them (its output in $EX/build.log), once for the suite: tests that change
# a build work on a copy of their own.
setup_file() {
    export EX=$BATS_FILE_TMPDIR/ex SRC=$ROOT/provider-examples
    cp -R "$SRC" "$EX"
    make -C "$EX" DTRACE="$DTRACE" SDT_INCLUDE="$INCLUDE" RUNTIME_LIBDIR="$SDTKIT_RUNTIME_LIBDIR" \
        WARNFLAGS="-Wall -Wextra -Werror" MESON_OPTS=-Dwerror=true >"$EX/build.log" 2>&1 ||
        { cat "$EX/build.log"; false; }
}

# probes_with_sizes FILE: "provider:name sizes|semaphore?" per distinct
# probe, sorted: the argument sizes (signed negative) and whether the note
# names a semaphore.
probes_with_sizes() {
    local p args sem
    note_probes "$1" | sort -u | while IFS=$'\t' read -r p args; do
        sem=$(note_field "$1" "$p" Semaphore)
        if [ $((sem)) -eq 0 ]; then sem=nosem; else sem=sem; fi
        echo "$p [$(arg_sizes "$args")] $sem"
    done | sort -u
}

# in_section FILE ADDR SECTION: ADDR lies inside SECTION of FILE.
in_section() {
    local start size
    read -r start size < <(readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\] *//' |
        awk -v s="$3" '$1 == s { print "0x" $3, "0x" $5 }')
    [ -n "$start" ] && (( $2 >= start && $2 < start + size ))
}

@test "make builds every example from a clean copy with -Wall -Wextra -Werror, with our dtrace and header" {
    for f in hello-usdt/hello-usdt tick/tick hello-semaphore-usdt/hello-semaphore-usdt \
             probe-test/probe-test shared-lib/libgreet.so shared-lib/greet-linked \
             shared-lib/greet-dlopen cxx-templates/cxx-ring postgres-style/minipg \
             usdt-jobs/usdt-jobs runtime-c/minijit; do
        [ -x "$EX/$f" ] || { echo "$f was not built"; cat "$EX/build.log"; false; }
    done
    ! grep -i 'warning' "$EX/build.log" || false
    # dtrace -h and -G ran, ours, for each provider file
    for d in tick/tick.d hello-semaphore-usdt/tp_provider.d shared-lib/greet.d cxx-templates/ring.d; do
        grep -q "^$DTRACE -h -s $d " "$EX/build.log"
        grep -q "^$DTRACE -G -s $d " "$EX/build.log"
    done
    # a second make has nothing left to do
    run make -C "$EX" DTRACE="$DTRACE" SDT_INCLUDE="$INCLUDE" WARNFLAGS="-Wall -Wextra -Werror"
    [ "$status" -eq 0 ]
    ! echo "$output" | grep -E '^(cc|gcc|g\+\+|c\+\+|/.*dtrace) '
}

@test "every example has exactly the probes, argument sizes and semaphores it declares" {
    [ "$(probes_with_sizes "$EX/hello-usdt/hello-usdt")" = \
"hello_usdt:enter [] nosem
hello_usdt:exit [-4] nosem" ]
    [ "$(probes_with_sizes "$EX/tick/tick")" = \
"tick:loop1 [-4] sem
tick:loop2 [-4] sem" ]
    [ "$(probes_with_sizes "$EX/hello-semaphore-usdt/hello-semaphore-usdt")" = \
"hello_semaphore_usdt:enter [] sem
hello_semaphore_usdt:exit [-4] sem" ]
    [ "$(probes_with_sizes "$EX/probe-test/probe-test")" = "probe_test:increment [4] nosem" ]
    [ "$(probes_with_sizes "$EX/shared-lib/libgreet.so")" = \
"greet:done [-8] sem
greet:hello [8 -4] sem" ]
    [ "$(probes_with_sizes "$EX/cxx-templates/cxx-ring")" = \
"ring:mix [8] sem
ring:pop [-8 -4] sem
ring:push [-8 -4] sem" ]
    [ "$(probes_with_sizes "$EX/postgres-style/minipg")" = \
"postgresql:buffer__read__done [4 4 -4 1] sem
postgresql:buffer__read__start [4 4 -4] sem
postgresql:query__done [8] sem
postgresql:query__start [8] sem
postgresql:transaction__commit [4] sem
postgresql:transaction__start [4] sem" ]
    if [ -x "$EX/meson/build/jobq" ]; then
        [ "$(probes_with_sizes "$EX/meson/build/jobq")" = \
"jobq:done [-4 -8] sem
jobq:start [-4 8] sem" ]
    fi
    if [ -x "$EX/cmake/build/cmq" ]; then
        [ "$(probes_with_sizes "$EX/cmake/build/cmq")" = \
"cmq:done [-4 -8] sem
cmq:start [-4 8] sem" ]
    fi
    # the programs that only call libgreet.so have no probes of their own
    [ -z "$(note_probes "$EX/shared-lib/greet-linked")" ]
    [ -z "$(note_probes "$EX/shared-lib/greet-dlopen")" ]
}

@test "the run-time examples create their probes, print their object's path and run" {
    run "$EX/runtime-c/minijit" 2 0
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" =~ ^/proc/[0-9]+/fd/[0-9]+$ ]]
    [ "${lines[1]}" = "fib(11) = 89" ]
    [ "${lines[2]}" = "fact(11) = 39916800" ]
    [ "${lines[3]}" = "gcd(11) = 6" ]
    [ "${lines[6]}" = "gcd(12) = 18" ]
    MINIJIT_FUNCS="fib" run "$EX/runtime-c/minijit" 1 0
    [ "${#lines[@]}" -eq 2 ]
    MINIJIT_FUNCS="not-a-name" run "$EX/runtime-c/minijit" 1 0
    [ "$status" -eq 1 ]
    [[ "$output" == *"SDTKIT_E_INVALID"*"not-a-name__entry"* ]] || [[ "$output" == *"SDTKIT_E_INVALID"* ]]
    need_cmd python3
    SDTKIT_LIBDIR="$ROOT/build" run python3 "$EX/runtime-python/probes.py" 2 0
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" =~ ^/proc/[0-9]+/fd/[0-9]+$ ]]
    [ "${lines[1]}" = "request 1 /item/1" ] && [ "${lines[2]}" = "request 2 /item/2" ]
}

@test "every semaphore lies in the .probes section of the file whose note names it" {
    n=0
    for f in $(example_bins "$EX"); do
        for p in $(note_probes "$EX/$f" | cut -f1 | sort -u); do
            sem=$(note_field "$EX/$f" "$p" Semaphore)
            [ $((sem)) -ne 0 ] || continue
            in_section "$EX/$f" "$sem" .probes || { echo "$f $p: semaphore $sem outside .probes"; false; }
            n=$((n + 1))
        done
    done
    [ "$n" -ge 15 ]
}

@test "each example runs and prints what its README promises" {
    run "$EX/hello-usdt/hello-usdt"
    [ "$status" -eq 0 ]
    [ "$output" = "hello, usdt" ]
    run "$EX/hello-usdt/hello-usdt" 4
    [ "$status" -eq 4 ]

    run "$EX/tick/tick" 2 0
    [ "$status" -eq 0 ]
    [ "$output" = $'tick 1: loop2 disabled (semaphore 0)\ntick 2: loop2 disabled (semaphore 0)' ]

    run "$EX/hello-semaphore-usdt/hello-semaphore-usdt"
    [ "$status" -eq 0 ]
    [ "$output" = $'enter: disabled\nexit: disabled' ]

    run "$EX/probe-test/probe-test" 3 0
    [ "$status" -eq 0 ]
    [ -z "$output" ]

    for prog in greet-linked greet-dlopen; do
        run "$EX/shared-lib/$prog" 3 0
        [ "$status" -eq 0 ]
        [ "$(echo "$output" | sed 's/who=0x[0-9a-f]*/who=P/' | tr '\n' ,)" = \
          "greet who=P n=1 total=1 (semaphore 0),greet who=P n=2 total=3 (semaphore 0),greet who=P n=3 total=6 (semaphore 0)," ]
    done

    run "$EX/cxx-templates/cxx-ring" 2
    [ "$status" -eq 0 ]
    [ "$(echo "$output" | grep -v hash | tr '\n' ,)" = \
      "push 1 (size 1),push 2 (size 2),pop 1 (size 1),pop 2 (size 0),push 5000000000 (size 1),pop 5000000000 (size 0),push 10000000000 (size 1),pop 10000000000 (size 0)," ]
    run "$EX/cxx-templates/cxx-ring" 9
    [ "$status" -eq 2 ]

    run "$EX/postgres-style/minipg" 'select 1' aba
    [ "$status" -eq 0 ]
    [ "$(echo "$output" | sed 's/query 0x[0-9a-f]*/query Q/' | tr '\n' ,)" = \
      'xid 700: query Q "select 1": 8 reads, 3 hits,xid 701: query Q "aba": 3 reads, 2 hits,' ]

    if [ -x "$EX/meson/build/jobq" ]; then
        run "$EX/meson/build/jobq" 2
        [ "$status" -eq 0 ]
        [ "$(echo "$output" | sed 's/name=0x[0-9a-f]*/name=P/' | tr '\n' ,)" = \
          "job 1 name=P result=105405,job 2 name=P result=210810," ]
    fi
    if [ -x "$EX/cmake/build/cmq" ]; then
        run "$EX/cmake/build/cmq" 2
        [ "$status" -eq 0 ]
        [ "$(echo "$output" | sed 's/name=0x[0-9a-f]*/name=P/' | tr '\n' ,)" = \
          "job 1 name=P result=105405 probed=0,job 2 name=P result=210810 probed=0," ]
    fi
}

@test "the looping examples reject a bad count or interval and loop until killed without a count" {
    for prog in tick/tick probe-test/probe-test shared-lib/greet-linked shared-lib/greet-dlopen; do
        for bad in "x" "-1" "3 abc" "3 -1" "1 2 3"; do
            run "$EX/$prog" $bad
            [ "$status" -eq 2 ] || { echo "$prog $bad: status $status"; false; }
            [[ $output == "usage: "*"[COUNT [SECONDS]]"* ]]
        done
    done
    # no arguments: one tick a second, until killed
    bg tick.out "$EX/tick/tick"
    wait_for tick.out '^tick 2:'
    kill -0 "$BG_PID"
    # COUNT 0 is forever too
    bg tick0.out "$EX/tick/tick" 0 0.01
    wait_for tick0.out '^tick 50:'
    kill -0 "$BG_PID"
}

@test "postgres-style: dtrace -C -h and the sed step give TRACE_POSTGRESQL_ macros, dtrace -C -G the semaphores" {
    pg="$EX/postgres-style"
    # the Makefile runs exactly PostgreSQL's commands
    grep -q "^$DTRACE -C -h -s probes.d -o probes.h.tmp$" "$EX/build.log"
    grep -qF "sed -e 's/POSTGRESQL_/TRACE_POSTGRESQL_/g' -e 's/( *char \*/(const char */g' probes.h.tmp > probes.h" "$EX/build.log"
    grep -q "^$DTRACE -C -G -s probes.d -o probes.o main.o xact.o bufmgr.o$" "$EX/build.log"
    [ ! -e "$pg/probes.h.tmp" ]
    # every macro renamed, none left behind
    [ "$(grep -o '^#define TRACE_POSTGRESQL_[A-Z_]*_ENABLED()' "$pg/probes.h" | sort -u | wc -l)" -eq 6 ]
    ! grep -E '(^|[^_])POSTGRESQL_[A-Z]' "$pg/probes.h" | grep -v TRACE_POSTGRESQL_ || false
    # -C ran the preprocessor: the prototypes name the #defined types' values
    grep -q 'typecheck_postgresql_transaction__start (unsigned int)' "$pg/probes.h"
    grep -q 'typecheck_postgresql_buffer__read__done (unsigned int, unsigned int, int, unsigned char)' "$pg/probes.h"
    ! grep -q LocalTransactionId "$pg/probes.h" || false
    # the sources compiled with SDTKIT_TYPECHECK against it
    grep -q -- '-DSDTKIT_TYPECHECK .* -c -o main.o main.c' "$EX/build.log"
    # probes.o defines the six semaphores the objects use
    [ "$(nm "$pg/probes.o" | grep -c ' [A-Za-z] postgresql_[a-z_]*_semaphore$')" -eq 6 ]
    [ "$(nm "$pg/minipg" | grep -c 'postgresql_[a-z_]*_semaphore$')" -eq 6 ]
    # make there is standalone too (the defaults find ../../build/bin/dtrace)
    run make -C "$pg" -n
    [ "$status" -eq 0 ]
}

@test "meson finds our dtrace with find_program, even when another dtrace comes first on PATH" {
    need_cmd meson ninja
    m="$EX/meson"
    grep -q "^Program dtrace found: YES" "$m/build/meson-logs/meson-log.txt"
    grep -q "^ COMMAND = $DTRACE -C -h -s ../probes.d -o probes.h$" "$m/build/build.ninja"
    head -1 "$m/build/probes.h" | grep -q "Generated by sdtkit's dtrace"
    # a different dtrace first on PATH: the native file still wins (in a
    # copy of the examples: other suites read the shared build)
    mkdir fakebin
    printf '#!/bin/sh\ntouch %s/fake-dtrace-ran\nexit 1\n' "$PWD" > fakebin/dtrace
    chmod +x fakebin/dtrace
    cp -R "$EX" own
    m=$PWD/own/meson
    rm -rf "$m/build"
    PATH="$PWD/fakebin:$PATH" run make -C own DTRACE="$DTRACE" SDT_INCLUDE="$INCLUDE" meson
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ ! -e fake-dtrace-ran ]
    [ -x "$m/build/jobq" ]
    # the -G step was fed the program's objects
    grep -q -- "-G -o probes.o -s ../probes.d .*main.c.o .*work.c.o" "$m/build/build.ninja"
}

@test "without meson, make skips the meson example with a message and builds the others" {
    mkdir copy
    cp -R "$SRC"/. copy/
    make -s -C copy clean >/dev/null 2>&1
    run make -C copy DTRACE="$DTRACE" SDT_INCLUDE="$INCLUDE" MESON=/nonexistent/meson meson
    [ "$status" -eq 0 ]
    [[ $output == *"meson example skipped: meson or ninja is not installed"* ]]
    [ ! -e copy/meson/build ]
}

@test "without the run-time library, make skips the run-time examples with a message" {
    mkdir copy inc
    cp -R "$SRC"/. copy/
    cp -R "$INCLUDE"/. inc/      # headers of no tree: no build/ beside them
    make -s -C copy clean >/dev/null 2>&1
    PKG_CONFIG_LIBDIR=/nonexistent run make -C copy DTRACE="$DTRACE" SDT_INCLUDE="$PWD/inc" \
        runtime-c/minijit runtime-python
    [ "$status" -eq 0 ]
    [[ $output == *"runtime-c/minijit example skipped: no libsdtkit.so.1 in $PWD/build and none installed"* ]]
    [[ $output == *"runtime-python example skipped: no libsdtkit.so.1 in $PWD/build and none installed"* ]]
    [ ! -e copy/runtime-c/minijit ]
    # headers of this tree: its build's library
    run make -C copy DTRACE="$DTRACE" SDT_INCLUDE="$INCLUDE" runtime-c/minijit
    [ "$status" -eq 0 ]
    readelf -d copy/runtime-c/minijit | grep -q "RUNPATH.*\[$ROOT/build\]"
}

@test "the shared library example: greet-linked needs libgreet.so, greet-dlopen loads it itself, both through \$ORIGIN" {
    readelf -d "$EX/shared-lib/greet-linked" | grep -q 'NEEDED.*\[libgreet.so\]'
    ! readelf -d "$EX/shared-lib/greet-dlopen" | grep -q 'libgreet' || false
    for p in greet-linked greet-dlopen; do
        readelf -d "$EX/shared-lib/$p" | grep -qE '(RUNPATH|RPATH).*\[\$ORIGIN\]'
    done
    # the semaphores live in the library, defined by the -G object linked into it
    nm -D --defined-only "$EX/shared-lib/libgreet.so" | grep -q ' greet$'
    # the semaphores are hidden: no dynamic object (greet_semaphore() is a
    # function of its API that reads one)
    readelf --dyn-syms -W "$EX/shared-lib/libgreet.so" | grep -q ' FUNC .* greet_semaphore$'
    ! readelf --dyn-syms -W "$EX/shared-lib/libgreet.so" | awk '$4 == "OBJECT"' | grep -q semaphore || false
    [ "$(nm "$EX/shared-lib/libgreet.so" | grep -c 'greet_[a-z]*_semaphore$')" -eq 2 ]
    # run from elsewhere, both still find it
    (cd / && "$EX/shared-lib/greet-linked" 1 0 && "$EX/shared-lib/greet-dlopen" 1 0) > out
    [ "$(grep -c '^greet who=' out)" -eq 2 ]
}

# build_ring CXX OPT DIR: cxx-ring from the examples' sources with CXX and OPT.
build_ring() {
    local cxx=$1 opt=$2 d=$3 f
    mkdir -p "$d"
    for f in main producer consumer; do
        $cxx $opt -g -I "$INCLUDE" -I "$EX/cxx-templates" -c "$EX/cxx-templates/$f.cc" -o "$d/$f.o"
    done
    "$DTRACE" -G -s "$EX/cxx-templates/ring.d" -o "$d/ring-probes.o" "$d"/main.o "$d"/producer.o "$d"/consumer.o
    $cxx $opt "$d"/main.o "$d"/producer.o "$d"/consumer.o "$d/ring-probes.o" -o "$d/cxx-ring"
}

@test "the C++ example keeps one probe site per template instance and inline function, every copy but one discarded" {
    for cxx in g++ clang++; do
        build_ring $cxx -O0 $cxx
        # -O0: nothing inlined: push and pop of ring<int, 8> and of
        # ring<long long, 4>, and one out-of-line mix(), though three
        # objects each hold a copy of what they use
        [ "$(note_probes $cxx/cxx-ring | cut -f1 | sort | uniq -c | awk '{ print $1, $2 }' | tr '\n' ,)" = \
          "1 ring:mix,2 ring:pop,2 ring:push," ] || { echo "$cxx"; note_probes $cxx/cxx-ring; false; }
        for o in main producer consumer; do
            [ "$(note_probes $cxx/$o.o | wc -l)" -ge 1 ]
        done
        # every surviving location is a nop of the program
        for loc in $(readelf -n $cxx/cxx-ring | sed -n 's/.*Location: \(0x[0-9a-f]*\),.*/\1/p'); do
            objdump -d --start-address=$loc --stop-address=$((loc + 1)) $cxx/cxx-ring | grep -qE '^ +[0-9a-f]+:\s+90\s+nop'
        done
        run $cxx/cxx-ring 2
        [ "$status" -eq 0 ]
    done
}

@test "make clean removes everything make built" {
    mkdir copy
    cp -R "$SRC"/. copy/
    make -s -C copy clean >/dev/null 2>&1
    (cd copy && find . | sort) > before
    make -s -C copy DTRACE="$DTRACE" SDT_INCLUDE="$INCLUDE" >/dev/null 2>&1
    [ "$(cd copy && find . | wc -l)" -gt "$(wc -l < before)" ]
    make -s -C copy clean >/dev/null 2>&1
    (cd copy && find . | sort) > after
    diff before after
}

# "Within seconds" of work: CPU time, which the machine's load does not
# change as it changes wall time (a loaded machine made bpftrace start late).
# bats test_tags=tracer
@test "make demo lists the probes of tick and traces it where it can, within seconds" {
    cpu_ms start
    DEMO_SECONDS=$HANG_SECONDS run make -s -C "$EX" demo DTRACE="$DTRACE" SDT_INCLUDE="$INCLUDE"
    cpu_ms end
    [ "$status" -eq 0 ]
    [ $(( (end - start) / 1000 )) -lt 15 ]
    [[ $output == *"tick:loop1"*"tick:loop2"* ]]
    [[ $output == *"tick 2: loop2 disabled (semaphore 0)"* ]]
    if [ "$(id -u)" -eq 0 ] && command -v bpftrace >/dev/null && [ -e "$TRACEFS/uprobe_events" ]; then
        [[ $output == *"tick 3: loop2 enabled (semaphore 1)"* ]]
        [[ $output == *"bpftrace: tick:loop2 fired, counter = 3"* ]]
    else
        [[ $output == *"not tracing it with bpftrace: "* ]]
    fi
}

@test "make demo says why it does not trace when bpftrace is missing, and still succeeds" {
    BPFTRACE=/nonexistent/bpftrace run make -s -C "$EX" demo DTRACE="$DTRACE" SDT_INCLUDE="$INCLUDE"
    [ "$status" -eq 0 ]
    [[ $output == *"tick:loop2"* ]]
    if [ "$(id -u)" -eq 0 ]; then
        [[ $output == *"not tracing it with bpftrace: /nonexistent/bpftrace is not installed"* ]]
    else
        [[ $output == *"not tracing it with bpftrace: not root"* ]]
    fi
}

@test "the examples build warning-free with clang too, and in strict -std=c99 and -std=c++11 with -Wpedantic" {
    mkdir copy
    cp -R "$SRC"/. copy/
    for cc in gcc clang; do
        cxx=g++; [ $cc = clang ] && cxx=clang++
        make -s -C copy clean >/dev/null 2>&1
        run make -C copy CC=$cc CXX=$cxx CFLAGS="-O2 -std=c99" CXXFLAGS="-O2 -std=c++11" \
            WARNFLAGS="-Wall -Wextra -Wpedantic -Werror" MESON=/nonexistent \
            DTRACE="$DTRACE" SDT_INCLUDE="$INCLUDE"
        [ "$status" -eq 0 ] || { echo "$cc: $output"; false; }
        ! echo "$output" | grep -i warning || false
        [ -x copy/cxx-templates/cxx-ring ]
        [ -x copy/postgres-style/minipg ]
    done
}

@test "cmake builds its example through find_package(sdtkit) and sdtkit_add_provider, our dtrace and header" {
    need_cmd cmake
    c="$EX/cmake"
    [ -x "$c/build/cmq" ]
    # this tree's CMake package, and the dtrace under test
    grep -q "^sdtkit_DIR:[A-Z]*=$ROOT/build/cmake$" "$c/build/CMakeCache.txt"
    grep -q "^SDTKIT_DTRACE:.*=$DTRACE$" "$c/build/CMakeCache.txt"
    head -1 "$c/build/probes.h" | grep -q "Generated by sdtkit's dtrace"
    # the -G step ran with the target's compiler; the link took its output
    grep -rq -- "CC=[^ ]*cc .*$DTRACE -G -s $c/probes.d -o $c/build/cmq-probes.o" "$c/build/CMakeFiles"
    grep -q "cmq-probes.o" "$c/build/CMakeFiles/cmq.dir/link.txt"
    [ "$(probes_with_sizes "$c/build/cmq")" = "cmq:done [-4 -8] sem
cmq:start [-4 8] sem" ]
}

@test "cmake: a changed probes.d regenerates the header, recompiles its users and relinks" {
    need_cmd cmake
    cp -R "$SRC/cmake" cm
    rm -rf cm/build cm/options
    cmake -S cm -B cm/build -Dsdtkit_DIR="$ROOT/build/cmake" -DSDTKIT_DTRACE="$DTRACE" \
        -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" > setup.log
    cmake --build cm/build > build1.log
    run cmake --build cm/build
    [[ "$output" != *"Building C object"* ]]
    [[ "$output" != *"dtrace -"* ]]
    # a new probe: the header gets it, the sources are rebuilt, -G and the link run again
    sed -i 's/^};/    probe extra(int n);\n};/' cm/probes.d
    printf '#include "probes.h"\nvoid extra (int n) { CMQ_EXTRA (n); }\n' >> cm/work.c
    run cmake --build cm/build
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "$output" == *"dtrace -h: generating probes.h"* ]]
    [[ "$output" == *"Building C object CMakeFiles/cmq.dir/main.c.o"* ]]
    [[ "$output" == *"dtrace -G: generating cmq-probes.o"* ]]
    [[ "$output" == *"Linking C executable cmq"* ]]
    grep -q CMQ_EXTRA cm/build/probes.h
    [ "$(note_probes cm/build/cmq | cut -f1 | sort -u | tr '\n' ,)" = "cmq:done,cmq:extra,cmq:start," ]
}

@test "without cmake, make skips the cmake example with a message" {
    mkdir copy
    cp -R "$SRC"/. copy/
    rm -rf copy/cmake/build copy/cmake/options
    run make -C copy DTRACE="$DTRACE" SDT_INCLUDE="$INCLUDE" CMAKE=/nonexistent/cmake cmake
    [ "$status" -eq 0 ]
    [[ $output == *"cmake example skipped: cmake is not installed"* ]]
    [ ! -e copy/cmake/build ]
}

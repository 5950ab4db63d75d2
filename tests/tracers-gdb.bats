#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# End to end with gdb: `info probes' lists every probe of every provider
# example at the address and with the semaphore of its note, `break
# -probe-stap' stops at each one as the program runs, `$_probe_argN' gives
# the values the program passed, and gdb's own semaphore increment turns the
# *_ENABLED() guards on.  (Every argument kind of the header, compiler by
# compiler, is decoded by tests/header-gdb.bats; here it is the examples.)
# bats file_tags=tracer

load helpers
load tracers-helpers

setup() {
    need_gdb_python gdb
}

# gdb_sites FILE: note_sites' lines, from gdb's `info probes'.
gdb_sites() {
    timeout "$HANG_SECONDS" gdb -batch -nx -ex 'info probes' "$1" 2>/dev/null |
        awk '$1 == "stap" { print $2 ":" $3, $4, (NF >= 6 ? $5 : "0x0000000000000000") }' | sort
}

# seq_of FILE SED: the lines of FILE rewritten by the sed script SED.
seq_of() {
    sed -n "$2" "$1"
}

@test "gdb info probes lists every probe site of every example at its note address and semaphore" {
    total=0
    for f in $(example_bins "$EX"); do
        want=$(note_sites "$EX/$f")
        got=$(gdb_sites "$EX/$f")
        [ -n "$want" ]
        [ "$got" = "$want" ] || { echo "$f: gdb says"; echo "$got"; echo "notes say"; echo "$want"; false; }
        total=$((total + $(echo "$want" | wc -l)))
    done
    [ "$total" -ge 20 ]
}

@test "gdb stops at hello-usdt's two probes and reads the exit code" {
    run gdb_probe_run "$EX/hello-usdt/hello-usdt" -5 -- hello_usdt:enter hello_usdt:exit
    [ "$output" = $'enter hit\nexit hit\nexit arg0 -5' ]
}

@test "gdb stops at tick's probes, and breaking on loop2 enables it through its semaphore" {
    run gdb_probe_run "$EX/tick/tick" 3 0 ">$PWD/out" -- tick:loop1 tick:loop2
    [ "$(echo "$output" | grep -v hit | tr '\n' ,)" = "loop1 arg0 1,loop2 arg0 1,loop1 arg0 2,loop2 arg0 2,loop1 arg0 3,loop2 arg0 3," ]
    [ "$(grep -c 'loop2 enabled (semaphore 1)' out)" -eq 3 ]
    # a breakpoint on loop1 alone leaves loop2's semaphore at 0
    run gdb_probe_run "$EX/tick/tick" 2 0 ">$PWD/out" -- tick:loop1
    [ "$output" = $'loop1 hit\nloop1 arg0 1\nloop1 hit\nloop1 arg0 2' ]
    [ "$(grep -c 'loop2 disabled (semaphore 0)' out)" -eq 2 ]
}

@test "gdb stops at hello-semaphore-usdt's guarded probes, which report being enabled" {
    run gdb_probe_run "$EX/hello-semaphore-usdt/hello-semaphore-usdt" 9 ">$PWD/out" -- \
        hello_semaphore_usdt:enter hello_semaphore_usdt:exit
    [ "$output" = $'enter hit\nexit hit\nexit arg0 9' ]
    [ "$(cat out)" = $'enter: enabled\nexit: enabled' ]
}

@test "gdb reads probe-test's uint32_t counter" {
    run gdb_probe_run "$EX/probe-test/probe-test" 3 0 -- probe_test:increment
    [ "$(echo "$output" | grep -v hit | tr '\n' ,)" = "increment arg0 1,increment arg0 2,increment arg0 3," ]
}

@test "gdb stops in libgreet.so both linked at build time and loaded with dlopen" {
    for prog in greet-linked greet-dlopen; do
        run gdb_probe_run "$EX/shared-lib/$prog" 3 0 ">$PWD/out" -- greet:hello greet:done
        who=$(($(seq_of out '1s/^greet who=\(0x[0-9a-f]*\) .*/\1/p')))
        [ "$(echo "$output" | grep -v hit | tr '\n' ,)" = \
          "hello arg0 $who,hello arg1 1,done arg0 1,hello arg0 $who,hello arg1 2,done arg0 3,hello arg0 $who,hello arg1 3,done arg0 6," ] ||
            { echo "$prog: $output"; false; }
        [ "$(grep -c '(semaphore 1)' out)" -eq 3 ]
    done
}

@test "gdb stops at the C++ template and inline function probes of every instance with the values passed" {
    run gdb_probe_run "$EX/cxx-templates/cxx-ring" 3 ">$PWD/out" -- ring:push ring:pop ring:mix
    got=$(echo "$output" | grep -E '^(push|pop) arg' | paste -d' ' - - | awk '{ print $1, $3, $6 }')
    want=$(seq_of out 's/^\(push\|pop\) \([0-9]*\) (size \([0-9]*\))$/\1 \2 \3/p')
    [ "$(echo "$want" | wc -l)" -eq 12 ]
    [ "$got" = "$want" ]
    # nine mix steps; the last one returns the hash the program prints
    [ "$(echo "$output" | grep -c '^mix hit')" -eq 9 ]
    last=$(echo "$output" | grep '^mix arg0' | tail -1 | awk '{ print $3 }')
    [ "$(printf '%x' "$last")" = "$(seq_of out 's/^hash 0x//p')" ]
}

@test "gdb reads postgres-style's transaction ids, query pointers, block numbers and bools" {
    run gdb_probe_run "$EX/postgres-style/minipg" aba c ">$PWD/out" -- \
        postgresql:transaction__start postgresql:query__start postgresql:query__done \
        postgresql:buffer__read__start postgresql:buffer__read__done postgresql:transaction__commit
    q1=$(($(seq_of out 's/^xid 700: query \(0x[0-9a-f]*\) "aba".*/\1/p')))
    q2=$(($(seq_of out 's/^xid 701: query \(0x[0-9a-f]*\) "c".*/\1/p')))
    got=$(echo "$output" | grep -v hit | awk '$1 != prev { printf "\n%s", $1; prev = $1 } { printf " %s", $3 }
                                          /buffer__read__done arg3/ { prev = "" }
                                          /buffer__read__start arg2/ { prev = "" }')
    want="
transaction__start 700
query__start $q1
buffer__read__start 1 16384 0
buffer__read__done 1 16384 0 0
buffer__read__start 2 16384 0
buffer__read__done 2 16384 0 0
buffer__read__start 1 16384 0
buffer__read__done 1 16384 0 1
query__done $q1
transaction__commit 700
transaction__start 701
query__start $q2
buffer__read__start 3 16384 0
buffer__read__done 3 16384 0 0
query__done $q2
transaction__commit 701"
    [ "$got" = "$want" ]
}

@test "gdb reads the meson-built jobq's probes" {
    [ -x "$EX/meson/build/jobq" ] || missing "jobq was not built: meson or ninja is not installed (.ci/run installs meson, ninja-build)"
    run gdb_probe_run "$EX/meson/build/jobq" 2 ">$PWD/out" -- jobq:start jobq:done
    name=$(($(seq_of out '1s/^job 1 name=\(0x[0-9a-f]*\) .*/\1/p')))
    r1=$(seq_of out 's/^job 1 .* result=\([0-9]*\)$/\1/p')
    r2=$(seq_of out 's/^job 2 .* result=\([0-9]*\)$/\1/p')
    [ "$(echo "$output" | grep -v hit | tr '\n' ,)" = \
      "start arg0 1,start arg1 $name,done arg0 1,done arg1 $r1,start arg0 2,start arg1 $name,done arg0 2,done arg1 $r2," ]
}

@test "gdb stops at tick's probes in PIE, non-PIE, static and static-PIE builds" {
    for variant in pie no-pie static static-pie; do
        build_tick "$PWD/tick-$variant" $variant
        [ "$(gdb_sites "$PWD/tick-$variant")" = "$(note_sites "$PWD/tick-$variant")" ]
        run gdb_probe_run "$PWD/tick-$variant" 2 0 ">$PWD/out" -- tick:loop1 tick:loop2
        [ "$(echo "$output" | grep -v hit | tr '\n' ,)" = "loop1 arg0 1,loop2 arg0 1,loop1 arg0 2,loop2 arg0 2," ] ||
            { echo "$variant: $output"; false; }
        [ "$(grep -c '(semaphore 1)' out)" -eq 2 ]
    done
}

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

# Every example runs in one gdb session (gdb_runs: NAME.hits, its stops,
# NAME.sites, gdb's `info probes'), and tick with a breakpoint on loop1
# alone in another; the tests read what they left in $G.
setup_file() {
    export G=$BATS_FILE_TMPDIR
    command -v gdb >/dev/null || return 0
    local v f
    for v in pie no-pie static static-pie; do build_tick "$G/tick-$v" $v; done
    {
        for f in $(example_bins "$EX"); do echo "${f##*/}-sites - $EX/$f /bin/true"; done
        echo "hello - - $EX/hello-usdt/hello-usdt -5"
        echo "tick - - $EX/tick/tick 3 0 >$G/tick.out"
        echo "sema - - $EX/hello-semaphore-usdt/hello-semaphore-usdt 9 >$G/sema.out"
        echo "probe-test - - $EX/probe-test/probe-test 3 0"
        echo "greet-linked - - $EX/shared-lib/greet-linked 3 0 >$G/greet-linked.out"
        echo "greet-dlopen - - $EX/shared-lib/greet-dlopen 3 0 >$G/greet-dlopen.out"
        echo "ring - - $EX/cxx-templates/cxx-ring 3 >$G/ring.out"
        echo "minipg - - $EX/postgres-style/minipg aba c >$G/minipg.out"
        [ ! -x "$EX/meson/build/jobq" ] || echo "jobq - - $EX/meson/build/jobq 2 >$G/jobq.out"
        for v in pie no-pie static static-pie; do echo "tick-$v - $G/tick-$v $G/tick-$v 2 0 >$G/tick-$v.out"; done
    } | gdb_runs "$G" hello_usdt:enter hello_usdt:exit tick:loop1 tick:loop2 \
        hello_semaphore_usdt:enter hello_semaphore_usdt:exit probe_test:increment greet:hello greet:done \
        ring:push ring:pop ring:mix jobq:start jobq:done postgresql:transaction__start postgresql:query__start \
        postgresql:query__done postgresql:buffer__read__start postgresql:buffer__read__done postgresql:transaction__commit
    echo "tick1 - - $EX/tick/tick 2 0 >$G/tick1.out" | gdb_runs "$G" tick:loop1
}

setup() {
    need_gdb_python gdb
}

# args NAME: NAME's stops but the "hit" lines, joined by commas.
args() {
    grep -v hit "$G/$1.hits" | tr '\n' ,
}

@test "gdb info probes lists every probe site of every example at its note address and semaphore" {
    total=0
    for f in $(example_bins "$EX"); do
        want=$(note_sites "$EX/$f")
        [ -n "$want" ]
        [ "$(sort "$G/${f##*/}-sites.sites")" = "$want" ] ||
            { echo "$f: gdb says"; cat "$G/${f##*/}-sites.sites"; echo "notes say"; echo "$want"; false; }
        total=$((total + $(echo "$want" | wc -l)))
    done
    [ "$total" -ge 20 ]
}

@test "gdb stops at hello-usdt's two probes and reads the exit code" {
    [ "$(cat "$G/hello.hits")" = $'enter hit\nexit hit\nexit arg0 -5' ]
}

@test "gdb stops at tick's probes, and breaking on loop2 enables it through its semaphore" {
    [ "$(args tick)" = "loop1 arg0 1,loop2 arg0 1,loop1 arg0 2,loop2 arg0 2,loop1 arg0 3,loop2 arg0 3," ]
    [ "$(grep -c 'loop2 enabled (semaphore 1)' "$G/tick.out")" -eq 3 ]
    # a breakpoint on loop1 alone leaves loop2's semaphore at 0
    [ "$(cat "$G/tick1.hits")" = $'loop1 hit\nloop1 arg0 1\nloop1 hit\nloop1 arg0 2' ]
    [ "$(grep -c 'loop2 disabled (semaphore 0)' "$G/tick1.out")" -eq 2 ]
}

@test "gdb stops at hello-semaphore-usdt's guarded probes, which report being enabled" {
    [ "$(cat "$G/sema.hits")" = $'enter hit\nexit hit\nexit arg0 9' ]
    [ "$(cat "$G/sema.out")" = $'enter: enabled\nexit: enabled' ]
}

@test "gdb reads probe-test's uint32_t counter" {
    [ "$(args probe-test)" = "increment arg0 1,increment arg0 2,increment arg0 3," ]
}

@test "gdb stops in libgreet.so both linked at build time and loaded with dlopen" {
    for prog in greet-linked greet-dlopen; do
        who=$(($(sed -n '1s/^greet who=\(0x[0-9a-f]*\) .*/\1/p' "$G/$prog.out")))
        [ "$(args $prog)" = \
          "hello arg0 $who,hello arg1 1,done arg0 1,hello arg0 $who,hello arg1 2,done arg0 3,hello arg0 $who,hello arg1 3,done arg0 6," ] ||
            { echo "$prog: $(cat "$G/$prog.hits")"; false; }
        [ "$(grep -c '(semaphore 1)' "$G/$prog.out")" -eq 3 ]
    done
}

@test "gdb stops at the C++ template and inline function probes of every instance with the values passed" {
    got=$(grep -E '^(push|pop) arg' "$G/ring.hits" | paste -d' ' - - | awk '{ print $1, $3, $6 }')
    want=$(sed -n 's/^\(push\|pop\) \([0-9]*\) (size \([0-9]*\))$/\1 \2 \3/p' "$G/ring.out")
    [ "$(echo "$want" | wc -l)" -eq 12 ]
    [ "$got" = "$want" ]
    # nine mix steps; the last one returns the hash the program prints
    [ "$(grep -c '^mix hit' "$G/ring.hits")" -eq 9 ]
    last=$(grep '^mix arg0' "$G/ring.hits" | tail -1 | awk '{ print $3 }')
    [ "$(printf '%x' "$last")" = "$(sed -n 's/^hash 0x//p' "$G/ring.out")" ]
}

@test "gdb reads postgres-style's transaction ids, query pointers, block numbers and bools" {
    q1=$(($(sed -n 's/^xid 700: query \(0x[0-9a-f]*\) "aba".*/\1/p' "$G/minipg.out")))
    q2=$(($(sed -n 's/^xid 701: query \(0x[0-9a-f]*\) "c".*/\1/p' "$G/minipg.out")))
    got=$(grep -v hit "$G/minipg.hits" | awk '$1 != prev { printf "\n%s", $1; prev = $1 } { printf " %s", $3 }
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
    name=$(($(sed -n '1s/^job 1 name=\(0x[0-9a-f]*\) .*/\1/p' "$G/jobq.out")))
    r1=$(sed -n 's/^job 1 .* result=\([0-9]*\)$/\1/p' "$G/jobq.out")
    r2=$(sed -n 's/^job 2 .* result=\([0-9]*\)$/\1/p' "$G/jobq.out")
    [ "$(args jobq)" = "start arg0 1,start arg1 $name,done arg0 1,done arg1 $r1,start arg0 2,start arg1 $name,done arg0 2,done arg1 $r2," ]
}

@test "gdb stops at tick's probes in PIE, non-PIE, static and static-PIE builds" {
    for variant in pie no-pie static static-pie; do
        [ "$(sort "$G/tick-$variant.sites")" = "$(note_sites "$G/tick-$variant")" ]
        [ "$(args tick-$variant)" = "loop1 arg0 1,loop2 arg0 1,loop1 arg0 2,loop2 arg0 2," ] ||
            { echo "$variant: $(cat "$G/tick-$variant.hits")"; false; }
        [ "$(grep -c '(semaphore 1)' "$G/tick-$variant.out")" -eq 2 ]
    done
}

#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# End to end with bpftrace and with raw kernel uprobes: the provider
# examples, built with our dtrace and header, traced on this machine's
# kernel.  bpftrace must list every probe, flip the semaphores only while it
# is attached and decode the arguments to the values the programs passed;
# a uprobe written by hand into tracefs's uprobe_events (with a ref_ctr_offset
# computed here from the program headers, no note parser involved) must fire
# and count the semaphore.  Skipped, with the reason, where the kernel or the
# tools do not allow it.
# bats file_tags=tracer

load helpers
load tracers-helpers

# bt_lines FILE: the lines bpftrace printed (the scripts prefix them "BT ").
bt_lines() {
    grep "^BT " "$1" | grep -v "^BT ready$" | cut -c4-
}

# uprobe_fetcharg NOTEARG [TYPE]: a note argument ("-4@%rsi", "8@-24(%rbp)")
# as a uprobe_events fetch argument ("%si:s32", "-24(%bp):u64"); TYPE (x64
# for a pointer) overrides the type the size implies.  The kernel names
# x86-64 registers without the leading r of their 64-bit names.
uprobe_fetcharg() {
    local size=${1%%@*} op=${1#*@} type
    case $size in
        -1) type=s8 ;; -2) type=s16 ;; -4) type=s32 ;; -8) type=s64 ;;
        1) type=u8 ;; 2) type=u16 ;; 4) type=u32 ;; 8) type=u64 ;;
        *) echo "unsupported argument size in $1" >&2; return 1 ;;
    esac
    [ -z "${2:-}" ] || type=$2
    op=$(echo "$op" | sed -E 's/%r([abcd]x|si|di|bp|sp)\b/%\1/g')
    case $op in
        \$*) op="\\${op#\$}" ;;            # $IMM -> \IMM
        \(*) op="+0$op" ;;                 # (%reg) -> +0(%reg)
        [0-9]*) op="+$op" ;;               # 16(%reg) -> +16(%reg)
    esac
    echo "$op:$type"
}

# ---- bpftrace ----------------------------------------------------------

@test "bpftrace -l lists every probe of every example and nothing else" {
    need_bpftrace
    # every example, with its number of distinct probes; make builds them all
    # where meson and cmake are installed, as .ci/run makes sure
    local expected="hello-usdt/hello-usdt 2
tick/tick 2
hello-semaphore-usdt/hello-semaphore-usdt 2
probe-test/probe-test 1
shared-lib/libgreet.so 2
cxx-templates/cxx-ring 3
postgres-style/minipg 6
meson/build/jobq 2
cmake/build/cmq 2
usdt-jobs/usdt-jobs 4"
    [ "$(example_bins "$EX" | sort)" = "$(cut -d' ' -f1 <<< "$expected" | sort)" ] ||
        { [ -x "$EX/meson/build/jobq" ] || missing "meson example not built (.ci/run installs meson, ninja-build)"
          [ -x "$EX/cmake/build/cmq" ] || missing "cmake example not built (.ci/run installs cmake)"
          echo "examples built:"; example_bins "$EX"; false; }
    while read -r f count; do
        b="$EX/$f"
        want=$(note_probes "$b" | cut -f1 | sort -u | sed "s|^|usdt:$b:|")
        got=$(timeout "$HANG_SECONDS" bpftrace -l "usdt:$b:*" 2>/dev/null | sort -u)
        [ "$(echo "$want" | wc -l)" -eq "$count" ] || { echo "$f: the notes name $(echo "$want" | wc -l) probes, not $count"; false; }
        [ "$got" = "$want" ] || { echo "$f: bpftrace -l says"; echo "$got"; echo "notes say"; echo "$want"; false; }
    done <<< "$expected"
}

@test "bpftrace attached to a running tick turns TICK_LOOP2_ENABLED() on only while attached" {
    need_bpftrace
    bg tick.out "$EX/tick/tick" 0 0.05
    tick=$BG_PID
    wait_for tick.out 'loop2 disabled \(semaphore 0\)' 3
    bg bt.out bpftrace -p "$tick" \
        -e "usdt:$EX/tick/tick:tick:loop2 { printf(\"BT loop2 %d\\n\", arg0); }"
    bt=$BG_PID
    wait_for bt.out '^BT loop2 ' 5
    wait_for tick.out 'loop2 enabled \(semaphore 1\)' 5
    # tick fires loop2 before it prints the line: stopped, every enabled
    # tick it printed has fired; bpftrace must print all of them but the
    # first (the semaphore may rise before the probe is armed) before it is
    # told to stop, so that no event is lost on the way out
    kill -STOP "$tick"
    enabled=$(sed -n 's/^tick \([0-9]*\): loop2 enabled (semaphore 1)$/\1/p' tick.out)
    wait_for bt.out '^BT loop2 ' $(( $(echo "$enabled" | wc -l) - 1 ))
    stop "$bt" INT
    mark=$(wc -l < tick.out)
    kill -CONT "$tick"
    # once bpftrace is gone the semaphore is back to 0 and loop2 is skipped
    wait_for tick.out 'loop2 disabled' $(( $(grep -c 'loop2 disabled' tick.out) + 3 ))
    tail -n +$((mark + 2)) tick.out | grep -q 'loop2 disabled (semaphore 0)'
    ! tail -n +$((mark + 2)) tick.out | grep -q 'enabled' || false
    # every event carries the counter of a tick that saw the probe enabled,
    # consecutive, and every enabled tick but the first and the last fired
    events=$(bt_lines bt.out | awk '{ print $2 }')
    enabled=$(sed -n 's/^tick \([0-9]*\): loop2 enabled (semaphore 1)$/\1/p' tick.out)
    [ "$(echo "$events" | awk 'NR > 1 && $1 != prev + 1 { bad = 1 } { prev = $1 } END { print bad + 0 }')" = 0 ]
    for e in $events; do echo "$enabled" | grep -qx "$e" || { echo "event $e from a disabled tick"; false; }; done
    inner=$(echo "$enabled" | sed '1d;$d')
    for t in $inner; do echo "$events" | grep -qx "$t" || { echo "tick $t enabled but no event"; false; }; done
}

@test "bpftrace -c enables only the hello-semaphore-usdt probe it traces and reads the exit code" {
    need_bpftrace
    b="$EX/hello-semaphore-usdt/hello-semaphore-usdt"
    run bpftrace_run "usdt:$b:hello_semaphore_usdt:exit { printf(\"BT exit %d\\n\", arg0); }" "$b 42"
    [ "$status" -eq 0 ]
    echo "$output" | grep -qx 'enter: disabled'
    echo "$output" | grep -qx 'exit: enabled'
    [ "$(echo "$output" | grep '^BT ')" = "BT exit 42" ]
    # and untraced, both are disabled
    run "$b" 3
    [ "$status" -eq 3 ]
    [ "$output" = $'enter: disabled\nexit: disabled' ]
}

@test "bpftrace decodes integer and pointer arguments of every example to the values passed" {
    need_bpftrace
    # hello-usdt: an int from the command line
    b="$EX/hello-usdt/hello-usdt"
    run bpftrace_run "usdt:$b:hello_usdt:enter { printf(\"BT enter\\n\"); }
                      usdt:$b:hello_usdt:exit { printf(\"BT exit %d\\n\", arg0); }" "$b -17"
    [ "$(echo "$output" | grep '^BT ' | tr '\n' ' ')" = "BT enter BT exit -17 " ]

    # probe-test: a uint32_t counter
    b="$EX/probe-test/probe-test"
    run bpftrace_run "usdt:$b:probe_test:increment { printf(\"BT %u\\n\", arg0); }" "$b 4 0"
    [ "$(echo "$output" | grep '^BT ' | tr '\n' ' ')" = "BT 1 BT 2 BT 3 BT 4 " ]

    # libgreet.so: a pointer, an int and a long, from a program linked with it
    lib="$EX/shared-lib/libgreet.so"
    bpftrace_bg bt.out "usdt:$lib:greet:hello { printf(\"BT hello %p %d\\n\", arg0, arg1); }
                        usdt:$lib:greet:done { printf(\"BT done %ld\\n\", arg0); }"
    timeout 20 "$EX/shared-lib/greet-linked" 3 0 > out
    wait_for bt.out "^BT done" 3
    stop "$BG_PID" INT
    want=$(sed -n 's/^greet who=\(0x[0-9a-f]*\) n=\([0-9]*\) total=\([0-9]*\) .*/hello \1 \2\ndone \3/p' out)
    [ "$(echo "$want" | wc -l)" -eq 6 ]
    [ "$(bt_lines bt.out)" = "$want" ]
    [ "$(grep -c '\(semaphore 1\)' out)" -eq 3 ]

    # cxx-ring: longs past 32 bits from two template instances, an unsigned long hash
    b="$EX/cxx-templates/cxx-ring"
    bpftrace_run "usdt:$b:ring:push { printf(\"BT push %ld %d\\n\", arg0, arg1); }
                  usdt:$b:ring:pop { printf(\"BT pop %ld %d\\n\", arg0, arg1); }
                  usdt:$b:ring:mix { printf(\"BT mix %lx\\n\", arg0); }" "$b 3" > out
    want=$(sed -n 's/^\(push\|pop\) \(-*[0-9]*\) (size \([0-9]*\))$/\1 \2 \3/p' out)
    [ "$(bt_lines out | grep -v '^mix')" = "$want" ]
    [ "$(bt_lines out | grep '^mix' | tail -1)" = "mix $(sed -n 's/^hash 0x//p' out)" ]
    [ "$(bt_lines out | grep -c '^mix')" -eq 9 ]

    # minipg: unsigned ints, a string pointer, a bool, a constant
    b="$EX/postgres-style/minipg"
    bpftrace_run "usdt:$b:postgresql:transaction__start { printf(\"BT start %u\\n\", arg0); }
                  usdt:$b:postgresql:query__start { printf(\"BT query %p\\n\", arg0); }
                  usdt:$b:postgresql:buffer__read__done { printf(\"BT read %u %u %d %d\\n\", arg0, arg1, arg2, arg3); }
                  usdt:$b:postgresql:transaction__commit { printf(\"BT commit %u\\n\", arg0); }" "$b aba c" > out
    q1=$(sed -n 's/^xid 700: query \(0x[0-9a-f]*\) "aba".*/\1/p' out)
    q2=$(sed -n 's/^xid 701: query \(0x[0-9a-f]*\) "c".*/\1/p' out)
    # 'a' = 97 -> block 1, 'b' = 98 -> block 2, 'c' = 99 -> block 3; the
    # second read of block 1 hits the cache
    [ "$(bt_lines out | tr '\n' ',')" = "start 700,query $q1,read 1 16384 0 0,read 2 16384 0 0,read 1 16384 0 1,commit 700,start 701,query $q2,read 3 16384 0 0,commit 701," ]

    # jobq (meson): an int, a pointer and a long
    b="$EX/meson/build/jobq"
    [ -x "$b" ] || { echo "# jobq not built (no meson): not checked" >&3; return 0; }
    bpftrace_run "usdt:$b:jobq:start { printf(\"BT start %d %p\\n\", arg0, arg1); }
                  usdt:$b:jobq:done { printf(\"BT done %d %ld\\n\", arg0, arg1); }" "$b 2" > out
    want=$(sed -n 's/^job \([0-9]*\) name=\(0x[0-9a-f]*\) result=\([0-9]*\)$/start \1 \2\ndone \1 \3/p' out)
    [ -n "$want" ]
    [ "$(bt_lines out)" = "$want" ]
}

@test "bpftrace traces a shared library loaded with dlopen after the program started" {
    need_bpftrace
    lib="$EX/shared-lib/libgreet.so"
    bpftrace_bg bt.out "usdt:$lib:greet:hello { printf(\"BT hello %p %d\\n\", arg0, arg1); }"
    timeout 20 "$EX/shared-lib/greet-dlopen" 3 0 > out
    wait_for bt.out "^BT hello" 3
    stop "$BG_PID" INT
    want=$(sed -n 's/^greet who=\(0x[0-9a-f]*\) n=\([0-9]*\) .*/hello \1 \2/p' out)
    [ "$(echo "$want" | wc -l)" -eq 3 ]
    [ "$(bt_lines bt.out)" = "$want" ]
    # the semaphore of the library, mapped after bpftrace attached, was counted
    [ "$(grep -c '(semaphore 1)$' out)" -eq 3 ]
}

@test "bpftrace attached to a running program flips the semaphore inside its shared library, then restores it" {
    need_bpftrace
    bg greet.out "$EX/shared-lib/greet-linked" 0 0.05
    pid=$BG_PID
    wait_for greet.out '\(semaphore 0\)' 2
    bg bt.out bpftrace -p "$pid" \
        -e "usdt:$EX/shared-lib/libgreet.so:greet:hello { printf(\"BT hello %p %d\\n\", arg0, arg1); }"
    bt=$BG_PID
    wait_for bt.out '^BT hello' 3
    wait_for greet.out '\(semaphore 1\)' 2
    stop "$bt" INT
    n=$(grep -c '\(semaphore 0\)' greet.out)
    wait_for greet.out '\(semaphore 0\)' $((n + 2))
    # every event is one the program made: same pointer, same count
    bt_lines bt.out | while read -r _ p n; do
        grep -q "^greet who=$p n=$n " greet.out || { echo "no call with who=$p n=$n"; exit 1; }
    done
}

@test "bpftrace decodes the first six arguments of every kind the header supports: gcc and clang, -O0 and -O2" {
    need_bpftrace
    # bpftrace 0.17 has no arg6..arg11 for usdt probes ("x86_64 doesn't
    # support arg6"); the twelve are checked with perf and gdb.
    fmt='printf("BT %s %ld %ld %ld %ld %ld %ld\n", probe, arg0, arg1, arg2, arg3, arg4, arg5);'
    for cc in gcc clang; do
        for opt in -O0 -O2; do
            $cc $opt -g -I "$INCLUDE" "$ROOT/tests/header/gdbvals.c" -o vals
            bpftrace_run "usdt:$PWD/vals:t:* { $fmt }" "$PWD/vals $PWD/want.txt" > out
            bt_lines out | awk '{ n = split($1, p, ":"); for (i = 0; i < 6; i++) print p[n], "arg" i, $(i + 2) }' |
                sort > got
            awk '$2 ~ /^arg[0-5]$/' want.txt | sort > want
            [ "$(wc -l < want)" -eq 30 ]
            diff want got || { echo "$cc $opt: bpftrace decodes differently"; false; }
        done
    done
}

@test "bpftrace decodes the arguments of programs built with -masm=intel: gcc and clang, -O0 and -O2, <sys/sdt.h> and <usdt.h>" {
    need_bpftrace
    fmt='printf("BT %s %ld %ld %ld %ld %ld %ld\n", probe, arg0, arg1, arg2, arg3, arg4, arg5);'
    local cc opt use
    for cc in gcc clang; do
        for opt in -O0 -O2; do
            $cc $opt -masm=intel -g -I "$INCLUDE" "$ROOT/tests/header/gdbvals.c" -o vals
            bpftrace_run "usdt:$PWD/vals:t:* { $fmt }" "$PWD/vals $PWD/want.txt" > out
            bt_lines out | awk '{ n = split($1, p, ":"); for (i = 0; i < 6; i++) print p[n], "arg" i, $(i + 2) }' |
                sort > got
            awk '$2 ~ /^arg[0-5]$/' want.txt | sort > want
            [ "$(wc -l < want)" -eq 30 ]
            diff want got || { echo "$cc $opt -masm=intel: bpftrace decodes differently"; false; }
            # a register, a constant, a global, an element of an array of
            # structs: as the program passed them (it prints them first)
            for use in -DSYS_SDT -DUSE_USDT; do
                $cc $opt $use -masm=intel -I "$INCLUDE" "$ROOT/tests/header/kinds.c" -o kinds
                bpftrace_run 'usdt:'"$PWD"'/kinds:t:kinds { printf("BT %ld %ld %ld %ld\n", arg0, arg1, arg2, arg3); }' \
                    "$PWD/kinds" > out
                [ "$(bt_lines out)" = "101 42 7 -20" ] || { echo "$cc $opt $use:"; cat out; false; }
                grep -qx '101 42 7 -20' out
            done
        done
    done
}

@test "bpftrace fires tick:loop2 with its semaphore in PIE, non-PIE, static and static-PIE builds" {
    need_bpftrace
    for variant in pie no-pie static static-pie; do
        build_tick "$PWD/tick-$variant" $variant
        b="$PWD/tick-$variant"
        run bpftrace_run "usdt:$b:tick:loop2 { printf(\"BT loop2 %d\\n\", arg0); }" "$b 3 0"
        [ "$status" -eq 0 ]
        [ "$(echo "$output" | grep '^BT ' | tr '\n' ' ')" = "BT loop2 1 BT loop2 2 BT loop2 3 " ] ||
            { echo "$variant: $output"; false; }
        [ "$(echo "$output" | grep -c 'loop2 enabled (semaphore 1)')" -eq 3 ]
    done
}

# ---- raw uprobes through tracefs ------------------------------------------

# raw_uprobe_tick BIN: put a uprobe with a reference counter on BIN's
# tick:loop2 by hand, check the nop, the semaphore and the events.
raw_uprobe_tick() {
    local b=$1 loc sem off semoff arg grp inst
    loc=$(note_field "$b" tick:loop2 Location)
    sem=$(note_field "$b" tick:loop2 Semaphore)
    off=$(file_offset "$b" "$loc")
    semoff=$(file_offset "$b" "$sem")
    # the offset must hold the probe's nop (0x90) in the file
    [ "$(od -An -tx1 -j $((off)) -N1 "$b" | tr -d ' ')" = 90 ]
    arg=$(uprobe_fetcharg "$(note_args "$b" tick:loop2)")
    grp="sdtkit_$$_${BATS_TEST_NUMBER}"
    trace_instance; inst=$INST
    bg tick.out "$b" 0 0.05
    wait_for tick.out 'loop2 disabled \(semaphore 0\)' 2
    uprobe_add "p:$grp/loop2 $b:$off($semoff) counter=$arg"
    echo 1 > "$inst/events/$grp/loop2/enable"
    wait_for tick.out 'loop2 enabled \(semaphore 1\)' 3
    echo 0 > "$inst/events/$grp/loop2/enable"
    # after disabling, the kernel drops the count back to 0
    n=$(grep -c 'disabled' tick.out)
    wait_for tick.out 'loop2 disabled \(semaphore 0\)' $((n + 2))
    stop "$BG_PID"
    # the events carry the counters of the enabled ticks
    grep -o 'counter=[0-9-]*' "$inst/trace" | cut -d= -f2 > events
    echo "-:$grp/loop2" >> "$TRACEFS/uprobe_events"
    ! grep -q "$grp/loop2" "$TRACEFS/uprobe_events" || false
    sed -n 's/^tick \([0-9]*\): loop2 enabled (semaphore 1)$/\1/p' tick.out > enabled
    [ "$(wc -l < events)" -ge 2 ]
    for e in $(cat events); do grep -qx "$e" enabled || { echo "event $e: tick not enabled"; false; }; done
    for t in $(sed '1d;$d' enabled); do grep -qx "$t" events || { echo "tick $t: no event"; false; }; done
}

@test "a raw uprobe with ref_ctr_offset on tick:loop2 fires and counts the semaphore: PIE, non-PIE, static" {
    need_tracefs
    for variant in pie no-pie static; do
        build_tick "$PWD/tick-$variant" $variant
        echo "variant $variant"
        raw_uprobe_tick "$PWD/tick-$variant"
        cleanup_tracers
    done
}

@test "a raw uprobe with ref_ctr_offset on libgreet.so counts the semaphore of the library in a dlopen program" {
    need_tracefs
    lib="$EX/shared-lib/libgreet.so"
    loc=$(note_field "$lib" greet:hello Location)
    sem=$(note_field "$lib" greet:hello Semaphore)
    off=$(file_offset "$lib" "$loc")
    semoff=$(file_offset "$lib" "$sem")
    [ "$(od -An -tx1 -j $((off)) -N1 "$lib" | tr -d ' ')" = 90 ]
    args=$(note_args "$lib" greet:hello)
    grp="sdtkit_$$_${BATS_TEST_NUMBER}"
    trace_instance; inst=$INST
    # registered before the program starts: the library is mapped later
    uprobe_add "p:$grp/hello $lib:$off($semoff) who=$(uprobe_fetcharg "${args%% *}" x64) n=$(uprobe_fetcharg "${args#* }")"
    echo 1 > "$inst/events/$grp/hello/enable"
    timeout 20 "$EX/shared-lib/greet-dlopen" 4 0 > out
    echo 0 > "$inst/events/$grp/hello/enable"
    [ "$(grep -c '(semaphore 1)$' out)" -eq 4 ]
    who=$(sed -n '1s/^greet who=\(0x[0-9a-f]*\) .*/\1/p' out)
    got=$(grep -o 'who=0x[0-9a-f]* n=[0-9]*' "$inst/trace" | tr '\n' ' ')
    [ "$got" = "who=$who n=1 who=$who n=2 who=$who n=3 who=$who n=4 " ]
    # and with the event removed, the next run sees the semaphore at 0
    echo "-:$grp/hello" >> "$TRACEFS/uprobe_events"
    [ "$(timeout 20 "$EX/shared-lib/greet-dlopen" 2 0 | grep -c '(semaphore 0)$')" -eq 2 ]
}

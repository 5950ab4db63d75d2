#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# End to end with perf: `perf buildid-cache --add' reads the probes of the
# provider examples, `perf list' shows them as sdt_PROVIDER:NAME events,
# `perf probe' turns them into uprobes (with the semaphore as reference
# counter) and `perf record' counts their events and their arguments.
#
# perf keeps its cache in $HOME/.debug: the tests use a private HOME.  The
# events perf probe creates are named sdt_PROVIDER:NAME for the whole
# machine, so the tests that create them hold a lock against concurrent runs
# and delete them in teardown.
# bats file_tags=tracer

load helpers
load tracers-helpers

setup() {
    need_cmd perf timeout
    # Debian's perf wrapper prints this when no perf matches the kernel
    perf version >/dev/null 2>&1 || refused "perf does not run here: $(perf version 2>&1 | head -1)"
    export HOME="$BATS_TEST_TMPDIR/home"
    mkdir -p "$HOME"
    PERF_PROBES=()
}

teardown() {
    local e
    for e in "${PERF_PROBES[@]}"; do
        timeout "$HANG_SECONDS" perf probe -q -d "$e" >/dev/null 2>&1 || true
    done
    cleanup_tracers
    exec 9>&- 2>/dev/null || true
}

# perf_add_probes EVENT...: perf probe each sdt_PROVIDER:NAME, deleted in
# teardown.  A stale event left by a killed run is deleted first.
perf_add_probes() {
    local e
    for e in "$@"; do
        timeout "$HANG_SECONDS" perf probe -q -d "$e" >/dev/null 2>&1 || true
        PERF_PROBES+=("$e")
        timeout "$HANG_SECONDS" perf probe -q "$e"
    done
}

# perf_events DATA: "event argN=V ..." per recorded sample.
perf_events() {
    timeout "$HANG_SECONDS" perf script -i "$1" 2>/dev/null |
        sed -n 's/.* \(sdt_[A-Za-z0-9_]*:[A-Za-z0-9_]*\): ([0-9a-f]*)\(.*\)$/\1\2/p'
}

@test "perf buildid-cache --add makes perf list show every probe of every example as an SDT event" {
    want=""
    for f in $(example_bins "$EX"); do
        timeout "$HANG_SECONDS" perf buildid-cache --add "$EX/$f"
        want="$want$(note_probes "$EX/$f" | cut -f1 | sed 's/^/sdt_/')"$'\n'
    done
    want=$(echo "$want" | grep . | sort -u)
    # (perf 6.1 matches a glob without ':' against event names only: 'sdt_*'
    # lists nothing, 'sdt_*:*' lists them all)
    got=$(timeout "$HANG_SECONDS" perf list 'sdt_*:*' 2>/dev/null | awk '$2 == "[SDT" { sub(/@.*/, "", $1); print $1 }' | sort -u)
    [ "$(echo "$want" | wc -l)" -ge 18 ]
    [ "$got" = "$want" ] || { echo "perf list:"; echo "$got"; echo "notes:"; echo "$want"; false; }
    # and --remove forgets them again
    for f in $(example_bins "$EX"); do timeout "$HANG_SECONDS" perf buildid-cache --remove "$EX/$f"; done
    [ -z "$(timeout "$HANG_SECONDS" perf list 'sdt_*:*' 2>/dev/null | grep 'SDT event')" ]
}

@test "perf probe and perf record count tick's events, decode the counter and enable loop2 through its semaphore" {
    perf_lock
    timeout "$HANG_SECONDS" perf buildid-cache --add "$EX/tick/tick"
    perf_add_probes sdt_tick:loop1 sdt_tick:loop2
    # perf probe put the uprobe on the nop, with the semaphore as reference
    # counter, both as the file offsets computed here
    b="$EX/tick/tick"
    line=$(grep "^p:sdt_tick/loop2 " "$TRACEFS/uprobe_events")
    off=$(echo "$line" | sed -n "s|^p:sdt_tick/loop2 $b:\(0x[0-9a-f]*\)(\(0x[0-9a-f]*\)) .*|\1|p")
    ref=$(echo "$line" | sed -n "s|^p:sdt_tick/loop2 $b:\(0x[0-9a-f]*\)(\(0x[0-9a-f]*\)) .*|\2|p")
    [ -n "$off" ] && [ -n "$ref" ] || { echo "uprobe_events: $line"; false; }
    [ $((off)) -eq $(( $(file_offset "$b" "$(note_field "$b" tick:loop2 Location)") )) ]
    [ $((ref)) -eq $(( $(file_offset "$b" "$(note_field "$b" tick:loop2 Semaphore)") )) ]
    timeout "$HANG_SECONDS" perf record -q -e sdt_tick:loop1 -e sdt_tick:loop2 -o perf.data -- "$EX/tick/tick" 5 0 > out 2>&1
    [ "$(grep -c 'loop2 enabled (semaphore 1)' out)" -eq 5 ]
    perf_events perf.data > events
    [ "$(grep -c '^sdt_tick:loop1 ' events)" -eq 5 ]
    [ "$(grep -c '^sdt_tick:loop2 ' events)" -eq 5 ]
    [ "$(grep '^sdt_tick:loop2 ' events | sed 's/.*arg1=//' | tr '\n' ' ')" = "1 2 3 4 5 " ]
    # without perf attached, the next run is untraced
    [ "$("$EX/tick/tick" 2 0 | grep -c 'disabled (semaphore 0)')" -eq 2 ]
}

@test "perf records the probes inside libgreet.so from a program linked with it" {
    perf_lock
    timeout "$HANG_SECONDS" perf buildid-cache --add "$EX/shared-lib/libgreet.so"
    perf_add_probes sdt_greet:hello sdt_greet:done
    timeout "$HANG_SECONDS" perf record -q -e sdt_greet:hello -e sdt_greet:done -o perf.data -- \
        "$EX/shared-lib/greet-linked" 3 0 > out 2>&1
    [ "$(grep -c '(semaphore 1)' out)" -eq 3 ]
    perf_events perf.data > events
    who=$(($(sed -n '1s/^greet who=\(0x[0-9a-f]*\) .*/\1/p' out)))
    [ "$(grep '^sdt_greet:hello ' events | sed 's/^[^ ]* //' | tr '\n' ,)" = \
      "arg1=$who arg2=1,arg1=$who arg2=2,arg1=$who arg2=3," ]
    [ "$(grep '^sdt_greet:done ' events | sed 's/^[^ ]* //' | tr '\n' ,)" = "arg1=1,arg1=3,arg1=6," ]
}

# perf_decodes CC OPT: build tests/header/gdbvals.c, record its five probes
# with perf, compare every argument perf reads with the value passed (modulo
# the argument's width: perf script prints small signed types unsigned).
perf_decodes() {
    local cc=$1 opt=$2 p args i n size want got decoded=0
    "$cc" "$opt" -g -I "$INCLUDE" "$ROOT/tests/header/gdbvals.c" -o vals
    timeout "$HANG_SECONDS" perf buildid-cache --add "$PWD/vals"
    perf_add_probes sdt_t:params sdt_t:globals sdt_t:members sdt_t:constants sdt_t:pointers
    timeout "$HANG_SECONDS" perf record -q -e 'sdt_t:*' -o perf.data -- "$PWD/vals" "$PWD/want.txt" >/dev/null 2>&1
    perf_events perf.data > events
    for p in params globals members constants pointers; do
        args=($(note_args vals t:$p))
        n=0
        for ((i = 0; i < ${#args[@]}; i++)); do
            size=${args[i]%%@*}
            size=${size#-}
            got=$(grep "^sdt_t:$p " events | grep -o " arg$((i + 1))=[-0-9]*" | cut -d= -f2)
            # perf 6.1 skips constant ($N) arguments; newer ones may read them
            case ${args[i]} in *@\$*) [ -n "$got" ] || continue ;; esac
            want=$(awk -v p=$p -v a=arg$i '$1 == p && $2 == a { print $3 }' want.txt)
            [ -n "$got" ] || { echo "$cc $opt: $p arg$i (${args[i]}): perf read nothing"; return 1; }
            if [ "$size" -eq 8 ]; then
                # 64-bit values: compare as unsigned 64-bit in bash arithmetic
                [ $(( got )) -eq $(( want )) ] || { echo "$cc $opt: $p arg$i: $got, want $want"; return 1; }
            else
                [ $(( (got - want) % (1 << (8 * size)) )) -eq 0 ] ||
                    { echo "$cc $opt: $p arg$i (${args[i]}): $got, want $want"; return 1; }
            fi
            n=$((n + 1))
        done
        [ "$n" -gt 0 ] || [ "$p" = constants ]
        decoded=$((decoded + n))
    done
    echo "# $cc $opt: perf decoded $decoded arguments (constants are skipped by perf)" >&3
    for p in "${PERF_PROBES[@]}"; do timeout "$HANG_SECONDS" perf probe -q -d "$p" >/dev/null 2>&1 || true; done
    PERF_PROBES=()
    timeout "$HANG_SECONDS" perf buildid-cache --remove "$PWD/vals"
}

@test "perf decodes every register and memory argument of every kind the header supports: gcc and clang, -O0 and -O2" {
    perf_lock
    for build in "gcc -O0" "gcc -O2" "clang -O0" "clang -O2"; do perf_decodes $build; done
}

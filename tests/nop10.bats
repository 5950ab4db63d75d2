#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The x86-64 nop + nop10 probe: <usdt.h>'s default, <sys/sdt.h>'s opt-in
# (SDT_NOP10).  The note points at the 1-byte nop; on this kernel (no nop10
# uprobe optimisation) every tracer traps there and must fire and decode
# the arguments as with a plain nop: gdb, bpftrace, perf and a raw uprobe.

load helpers
load tracers-helpers

setup() {
    SRC="$ROOT/tests/usdt/nop10.c"
    need_arch x86_64
}

teardown() {
    [ -n "${PERF_EVENT:-}" ] && timeout "$HANG_SECONDS" perf probe -q -d "$PERF_EVENT" >/dev/null 2>&1
    cleanup_tracers
}

# build CC OUT FLAGS...
build() {
    local cc=$1 out=$2
    shift 2
    "$cc" -Wall -Wextra -Wpedantic -Werror "$@" -I "$INCLUDE" "$SRC" -o "$out"
}

# insns_at BIN ADDR LEN: objdump's lines for LEN bytes at ADDR.
insns_at() {
    objdump -d --start-address=$(($2)) --stop-address=$(($2 + $3)) "$1" | grep -E '^ *[0-9a-f]+:'
}

# is_nop_pair BIN: app:fire's note points at a nop followed by a 10-byte nop.
is_nop_pair() {
    local loc
    loc=$(note_field "$1" app:fire Location)
    insns_at "$1" "$loc" 11 > insns
    head -1 insns | grep -qE ':\s+90\s+nop$'
    sed -n 2p insns | grep -qE ':\s+66 2e 0f 1f 84 00 00\s+cs nopw 0x0\(%rax,%rax,1\)'
}

@test "SDT_NOP10 makes <sys/sdt.h> probes a nop + nop10 pair in C, C++ and assembly; without it a probe is one nop" {
    build gcc p -O2 -DSDT_NOP10
    is_nop_pair p
    build clang pc -O0 -DSDT_NOP10
    is_nop_pair pc
    g++ -x c++ -std=c++17 -O2 -DSDT_NOP10 -Wall -Wextra -Werror -I "$INCLUDE" "$SRC" -o pxx
    is_nop_pair pxx
    printf '#include <sys/sdt.h>\n.text\n.globl f\nf:\nSTAP_PROBE1(app, p, 8@%%rdi)\nret\n' > a.S
    gcc -DSDT_NOP10 -I "$INCLUDE" -c a.S -o a.o
    is_nop_pair a.o
    # the default is unchanged: one nop, then the next instruction
    build gcc q -O2
    loc=$(note_field q app:fire Location)
    insns_at q "$loc" 1 | grep -qE ':\s+90\s+nop$'
    ! insns_at q "$((loc + 1))" 1 | grep -q '66 2e 0f 1f'
}

# bats test_tags=cross
@test "SDT_NOP10 is ignored on other targets" {
    need_arch aarch64
    aarch64-linux-gnu-gcc -O2 -DSDT_NOP10 -Wall -Wextra -Werror -I "$INCLUDE" "$SRC" -o p
    [ "$(note_probes p | cut -f1)" = app:fire ]
    loc=$(note_field p app:fire Location)
    aarch64-linux-gnu-objdump -d --start-address=$((loc)) --stop-address=$((loc + 4)) p | grep -qE ':\s+d503201f\s+nop'
}

# bats test_tags=tracer
@test "gdb stops at nop + nop10 probes of both headers and decodes their arguments" {
    need_cmd gdb
    local bins=() b cc o
    for cc in gcc clang; do
        for o in -O0 -O2; do
            build $cc p$cc$o $o -DSDT_NOP10
            build $cc u$cc$o $o -DUSE_USDT_H
            bins+=(p$cc$o u$cc$o)
        done
    done
    for b in "${bins[@]}"; do is_nop_pair $b; done
    for b in "${bins[@]}"; do echo "$b - - $PWD/$b 2 >$PWD/$b.out"; done | gdb_runs "$PWD" app:fire
    for b in "${bins[@]}"; do
        [ "$(grep -v hit $b.hits | tr '\n' ' ')" = \
            "fire arg0 0 fire arg1 -7 fire arg2 200 fire arg0 1 fire arg1 -7 fire arg2 200 " ] || { echo "$b"; false; }
        [ "$(cat $b.out)" = "done 2" ]
    done
}

# bats test_tags=tracer
@test "bpftrace fires nop + nop10 probes of both headers and decodes their arguments" {
    need_bpftrace
    build gcc p -O2 -DSDT_NOP10
    build clang u -O2 -DUSE_USDT_H
    for b in p u; do
        run bpftrace_run "usdt:$PWD/$b:app:fire { printf(\"BT %d %d %u\\n\", arg0, arg1, arg2); }" "$PWD/$b 3"
        [ "$status" -eq 0 ]
        [ "$(echo "$output" | grep '^BT ' | tr '\n' ' ')" = "BT 0 -7 200 BT 1 -7 200 BT 2 -7 200 " ]
    done
}

# bats test_tags=tracer
@test "a raw uprobe on the first nop of the pair fires once per probe" {
    need_tracefs
    build gcc p -O2 -DSDT_NOP10
    loc=$(note_field p app:fire Location)
    ev="sdtkit_nop10_$$"
    uprobe_add "p:$ev/fire $PWD/p:$(file_offset p "$loc")" ||
        refused "the kernel refused the uprobe"
    trace_instance
    echo 1 > "$INST/events/$ev/fire/enable"
    run ./p 5
    echo 0 > "$INST/events/$ev/fire/enable"
    hits=$(grep -c " fire: (" "$INST/trace" || true)
    echo "-:$ev/fire" >> "$TRACEFS/uprobe_events"
    [ "$output" = "done 5" ]
    [ "$hits" = 5 ]
}

# bats test_tags=tracer
@test "perf probe and perf record fire nop + nop10 probes of both headers and decode their arguments" {
    need_cmd perf timeout
    perf version >/dev/null 2>&1 || refused "perf does not run here"
    need_tracefs
    export HOME="$BATS_TEST_TMPDIR/home"
    mkdir -p "$HOME"
    exec 9> /tmp/sdtkit-perf-tests.lock
    flock -w 300 9
    build gcc p -O2 -DSDT_NOP10
    build gcc u -O2 -DUSE_USDT_H
    for b in p u; do
        timeout "$HANG_SECONDS" perf buildid-cache --add "$PWD/$b"
        PERF_EVENT=sdt_app:fire
        timeout "$HANG_SECONDS" perf probe -q -d "$PERF_EVENT" >/dev/null 2>&1 || true
        timeout "$HANG_SECONDS" perf probe -q "$PERF_EVENT"
        timeout "$HANG_SECONDS" perf record -q -e sdt_app:fire -o perf.data -- "$PWD/$b" 3 > out 2>&1
        timeout "$HANG_SECONDS" perf script -i perf.data 2>/dev/null | sed -n 's/.* sdt_app:fire: ([0-9a-f]*)//p' > events
        timeout "$HANG_SECONDS" perf probe -q -d "$PERF_EVENT" >/dev/null 2>&1
        [ "$(wc -l < events)" = 3 ]
        [ "$(sed -n 2p events | tr -s ' ')" = " arg1=1 arg2=-7 arg3=200" ] ||
            { cat events; false; }
        timeout "$HANG_SECONDS" perf buildid-cache --remove "$PWD/$b"
    done
    PERF_EVENT=
    exec 9>&-
}

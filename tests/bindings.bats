#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The run-time libraries as the bindings written for libstapsdt use them:
# a Go program through cgo, a Ruby C extension, an N-API addon and Python's
# ctypes (tests/bindings/, each as the real ones for libstapsdt are written),
# built against the installed libstapsdt.so.0 and libsdtkit.so.1.  What they
# read of the structures, the names and return codes they rely on, error
# paths, bpftrace -p on their processes, reload loops, pre-fork workers and
# handles kept too long.  The drivers and their commands:
# tests/bindings-helpers.bash.

# bats file_tags=tracer

load helpers
load tracers-helpers
load bindings-helpers

setup_file() {
    export BIND_DIR=$BATS_FILE_TMPDIR/bindings
    bind_build "$BIND_DIR"
}

setup() {
    cd "$BATS_TEST_TMPDIR"
    need_bindings
    bind_env "$BIND_DIR"
    BIND_FAILS=()
}

teardown() {
    cleanup_tracers
}

# The provider of each API in the tracer test: libstapsdt's takes my-app,
# the native one C identifiers.  The tests of the lifecycle name theirs
# "app", so that each fails for what it checks.
provider_of() {
    case $1 in *-compat) echo my-app ;; *) echo my_app ;; esac
}

@test "every binding builds against the installed libraries and loads them from the install" {
    local v lib
    for v in $(bind_variants compat native); do
        bind_start "$v" || { BIND_FAILS+=("$v: $REPLY"); continue; }
        case $v in *-compat) lib=libstapsdt.so.0.0.0 ;; *) lib=libsdtkit.so.1.0.0 ;; esac
        expect "maps $lib from the install" "$(grep -c " $BIND_DIR/prefix/lib/$lib$" "/proc/$DRV_PID/maps")" "[1-9]*"
        bind_stop
        expect "end of input" "$REPLY" "exit 0"
    done
    bind_verdict
}

@test "every binding reads name, argCount, _fire, errno, error and _filename as libstapsdt set them" {
    [ "$(uname -m)" = x86_64 ] || skip "_fire's first byte is read as x86-64's nop"
    local v
    for v in $(bind_variants compat); do bind_case "$v" "$BIND_SRC/cases/members.case"; done
    bind_verdict
}

@test "a second unload or load returns 0 as with libstapsdt: node-usdt's disable on every tick, a Ruby enable twice" {
    [ "$(uname -m)" = x86_64 ] || skip "_fire's first byte is read as x86-64's nop"
    local v
    for v in $(bind_variants compat); do bind_case "$v" "$BIND_SRC/cases/repeat.case"; done
    bind_verdict
}

@test "libstapsdt's own error test: a 263-byte name with slashes is a provider, and loads where libstapsdt failed" {
    local v
    for v in $(bind_variants compat); do bind_case "$v" "$BIND_SRC/cases/errors.case"; done
    bind_verdict
}

@test "through every binding the native API names, counts and paths, and refuses a second load or unload" {
    local v
    for v in $(bind_variants native); do bind_case "$v" "$BIND_SRC/cases/native.case"; done
    bind_verdict
}

# names_check VARIANT: every name of tests/bindings/names through VARIANT:
# created, added and loaded, in the note of the object, listed by bpftrace.
names_check() {
    local prov probe path listing paths=() pairs=() i
    bind_start "$1" || { BIND_FAILS+=("$1: $REPLY"); return 0; }
    while read -r prov probe; do
        case $prov in "#"* | "") continue ;; esac
        bind_mark
        expect_reply provider "$prov" -- "provider <${prov#\'\'}> errno -1 error NULL filename NULL"
        expect_reply probe "$prov" "$probe" int32 -- "probe <$probe> argCount 1 fire NULL"
        expect_reply load "$prov" -- "load 0"
        bind path "$prov"
        expect "path of $prov" "$REPLY" "path /proc/$DRV_PID/fd/*"
        bind_trim || continue
        paths+=("${REPLY#path }")
        pairs+=("${prov#\'\'}:$probe")
    done < "$BIND_SRC/names"
    listing=$(timeout "$HANG_SECONDS" bpftrace -l 'usdt:*' -p "$DRV_PID" 2>&1) || true
    for i in "${!pairs[@]}"; do
        # small providers share an object: the pair is one of its notes
        expect "the note of ${pairs[$i]}" \
            "$(note_probes "${paths[$i]}" 2>&1 | cut -f1 | grep -cxF -- "${pairs[$i]}")" 1
        expect "bpftrace -l -p lists ${pairs[$i]}" \
            "$(grep -cxF "usdt:${paths[$i]}:${pairs[$i]}" <<<"$listing")" 1
    done
    bind_stop
    expect "end of input" "$REPLY" "exit 0"
}

@test "every binding takes the names libstapsdt took, the notes carry them and bpftrace -l -p lists them" {
    need_bpftrace
    local v
    for v in $(bind_variants compat); do names_check "$v"; done
    bind_verdict
}

# ---- tracers on the bindings' processes ----------------------------------

BT_REQ='printf("req %d %lu %s\n", arg0, arg1, str(arg2)); exit();'

# traced_check VARIANT: bpftrace -p on the driver reads req's arguments as
# fired, while the binding sees the probe enabled (compat: _fire's first
# byte is the breakpoint's 0xcc), and no longer once bpftrace has gone.  The
# driver serves req, as a server fires on every request, until bpftrace
# has exited on the first event.
traced_check() {
    local p compat=0
    p=$(provider_of "$1")
    case $1 in *-compat) compat=1 ;; esac
    bind_start "$1" || { BIND_FAILS+=("$1: $REPLY"); return 0; }
    bind_mark
    expect_reply provider "$p" -- "provider <$p> *"
    expect_reply probe "$p" req int32 uint64 string -- "probe <req> *"
    expect_reply load "$p" -- "load 0"
    bind_trim || { bind_stop; return 0; }
    bind_bpftrace bt "$DRV_PID" "usdt::$p:req { $BT_REQ }" || { bind_stop; return 0; }
    expect_reply wait req -- "wait <req> enabled"
    if [ $compat = 1 ]; then
        expect_reply state req -- "state <req> argCount 3 fire cc enabled 1"
    else
        expect_reply state req -- "state <req> nargs 3 enabled 1"
    fi
    expect_reply serve req -2000000000 18000000000000000000 GET/index -- "serve <req> [1-9]*"
    bind_bpftrace_end bt
    expect "bpftrace -p $DRV_PID" "$BT_LINES" "req -2000000000 18000000000000000000 GET/index"
    if [ $compat = 1 ]; then
        expect_reply state req -- "state <req> argCount 3 fire 90 enabled 0"
    else
        expect_reply state req -- "state <req> nargs 3 enabled 0"
    fi
    bind_stop
    expect "end of input" "$REPLY" "exit 0"
}

@test "bpftrace -p on each binding's process reads req's arguments exactly, while the binding sees it enabled" {
    [ "$(uname -m)" = x86_64 ] || skip "_fire's first byte is read as x86-64's int3"
    need_bpftrace
    local v
    for v in $(bind_variants compat native); do traced_check "$v"; done
    bind_verdict
}

# ---- reload loops --------------------------------------------------------

# toggle_check VARIANT: 1,000 unload/load cycles, every one succeeding,
# with as many open files, mappings and resident memory after as before
# (the slack: one object's file, two objects' mappings (Go's runtime maps
# some of its own as it runs), 2 MB).
toggle_check() {
    local p=app n failed f0 f1 m0 m1 r0 r1
    BIND_NOFILE=1024 bind_start "$1" || { BIND_FAILS+=("$1: $REPLY"); return 0; }
    bind_mark
    expect_reply provider "$p" -- "provider <$p> *"
    expect_reply probe "$p" req int32 -- "probe <req> *"
    expect_reply load "$p" -- "load 0"
    bind_trim || { bind_stop; return 0; }
    bind toggle "$p" 1000
    expect "toggle" "$REPLY" "toggle 1000 failed * fds * * maps * * rss * *"
    read -r _ n _ failed _ f0 f1 _ m0 m1 _ r0 r1 <<<"$REPLY"
    expect "failed loads and unloads of 1000 cycles" "$failed" 0
    expect_at_most "open files after 1000 cycles, from $f0" "$((f1 - f0))" 1
    expect_at_most "mappings after 1000 cycles, from $m0" "$((m1 - m0))" 8
    expect_at_most "resident kB after 1000 cycles, from $r0" "$((r1 - r0))" 2048
    case $1 in
        *-compat) expect_reply state req -- "state <req> argCount 1 fire 90 enabled 0" ;;
        *) expect_reply state req -- "state <req> nargs 1 enabled 0" ;;
    esac
    bind_stop
    expect "end of input" "$REPLY" "exit 0"
}

@test "a thousand unload/load cycles under ulimit -n 1024 leave every binding's fds, mappings and RSS flat" {
    local v
    for v in $(bind_variants compat native); do toggle_check "$v"; done
    bind_verdict
}

# ---- pre-fork servers ----------------------------------------------------

# fork_check VARIANT [VAR=VALUE...]: the driver loads its probes and starts
# a worker; bpftrace -p on the worker reads its event; the worker exits as
# its language exits; then the parent's object is whole and bpftrace -p on
# the parent reads the parent's.
fork_check() {
    local v=$1 p=app path wpid
    bind_start "$@" || { BIND_FAILS+=("$v: $REPLY"); return 0; }
    bind_mark
    expect_reply provider "$p" -- "provider <$p> *"
    expect_reply probe "$p" req int32 uint64 string -- "probe <req> *"
    expect_reply load "$p" -- "load 0"
    bind path "$p"
    path=${REPLY#path }
    expect_reply fork req -7 7 worker -- "worker [0-9]*"
    bind_trim || { bind_stop; return 0; }
    wpid=${REPLY#worker }
    if bind_bpftrace bt-worker "$wpid" "usdt::$p:req { $BT_REQ }"; then
        bind_bpftrace_end bt-worker
        expect "bpftrace -p on the worker" "$BT_LINES" "req -7 7 worker"
    fi
    expect_reply reap -- "reaped 0"
    expect "the parent's object after its worker's exit" "$(note_probes "$path" 2>&1 | cut -f1)" "$p:req"
    if bind_bpftrace bt-parent "$DRV_PID" "usdt::$p:req { $BT_REQ }"; then
        expect_reply wait req -- "wait <req> enabled"
        expect_reply serve req -2000000000 18000000000000000000 parent -- "serve <req> [1-9]*"
        bind_bpftrace_end bt-parent
        expect "bpftrace -p on the parent" "$BT_LINES" "req -2000000000 18000000000000000000 parent"
    fi
    bind_stop
    expect "end of input" "$REPLY" "exit 0"
}

@test "a pre-fork worker is traced on its own pid, and its exit leaves the parent's probes traceable" {
    need_bpftrace
    local v
    for v in $(bind_variants compat native); do fork_check "$v"; done
    bind_verdict
}

@test "the same with named files (perf's mode): a worker's exit removes none of the parent's" {
    need_bpftrace
    local v
    mkdir -p named
    for v in $(bind_variants compat native); do
        fork_check "$v" SDTKIT_RUNTIME_NAMED=1 SDTKIT_RUNTIME_DIR="$PWD/named"
    done
    bind_verdict
}

# ---- handles kept too long -------------------------------------------------

# stale_check VARIANT: a probe of a destroyed provider (a binding object
# collected late) stays inert: it is not enabled, and firing it does not
# reach the probe of a provider made after, which bpftrace traces.
stale_check() {
    local v=$1 out
    bind_start "$v" || { BIND_FAILS+=("$v: $REPLY"); return 0; }
    bind_mark
    expect_reply provider old -- "provider <old> *"
    expect_reply probe old stale int32 -- "probe <stale> *"
    expect_reply load old -- "load 0"
    expect_reply destroy old -- "destroy"
    expect_reply provider new -- "provider <new> *"
    expect_reply probe new live int32 -- "probe <live> *"
    expect_reply load new -- "load 0"
    bind_trim || { bind_stop; return 0; }
    bind_bpftrace bt "$DRV_PID" 'usdt::new:live /arg0 == 111/ { @stale++; }
        usdt::new:live /arg0 == 999/ { printf("stale %d\n", @stale); clear(@stale); exit(); }' || { bind_stop; return 0; }
    expect_reply wait live -- "wait <live> enabled"
    case $v in
        *-compat) expect_reply state stale -- "state <stale> argCount 1 fire NULL enabled 0" ;;
        *) expect_reply state stale -- "state <stale> nargs 1 enabled 0" ;;
    esac
    expect_reply fire stale 111 -- "fire <stale> 0"
    expect_reply fire stale 111 -- "fire <stale> 0"
    expect_reply serve live 999 -- "serve <live> [1-9]*"
    # every fire of the stale handle before the live one was counted
    bind_bpftrace_end bt
    expect "bpftrace: fires of new:live with the stale handle's value" "$BT_LINES" "stale 0"
    bind_stop
    expect "end of input" "$REPLY" "exit 0"
}

@test "a probe kept past its provider's destroy stays inert and never fires the next provider's probe" {
    need_bpftrace
    local v
    for v in $(bind_variants compat native); do stale_check "$v"; done
    bind_verdict
}

#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Run-time probes recorded by LTTng-UST (runtime/lttng.c), with the real
# thing: an lttng-sessiond (the machine's, or one started for the suite
# and stopped after it), sessions of the tests' own names, programs of
# both APIs and the Python binding with liblttng-ust.so.1 in them, their
# traces read by babeltrace2 (every event's name, fields, types and
# values), bpftrace on the same probes in the same run, and the lifecycle
# of providers (load, unload, destroy, fork, names, threads) with a
# session recording.  The driver is tests/runtime/lttng.c (its commands
# there).

# bats file_tags=tracer

load helpers
load tracers-helpers
load runtime-helpers

# ---- The session daemon, and sessions ------------------------------------
#
# As root, lttng-sessiond is the machine's one root daemon: a suite starts
# one when none answers and stops it after its last user is gone, and
# never stops one it did not start.  Who uses it, and whether a suite
# started it, is in files under the lock every suite (and bench/run)
# takes for it.
SESSIOND_LOCK=/tmp/sdtkit-lttng-sessiond.lock
SESSIOND_USERS=/tmp/sdtkit-lttng-sessiond.users
SESSIOND_OURS=/tmp/sdtkit-lttng-sessiond.ours

# need_lttng: lttng-tools, babeltrace2 and liblttng-ust (.ci/run installs
# lttng-tools, liblttng-ust-dev and babeltrace2).
need_lttng() {
    need_cmd lttng lttng-sessiond babeltrace2 || return
    ldconfig -p | grep -q 'liblttng-ust.so.1 ' ||
        missing "liblttng-ust.so.1 is not installed (.ci/run installs liblttng-ust-dev)"
}

# sessiond_up: a session daemon answers (started if need be); this suite
# is one of its users (setup_file).
sessiond_up() {
    need_lttng || return
    (
        flock -w "$HANG_SECONDS" 9 || { echo "$SESSIOND_LOCK held for $HANG_SECONDS s"; exit 1; }
        if ! lttng list >/dev/null 2>&1; then
            lttng-sessiond --daemonize --no-kernel >"$BATS_FILE_TMPDIR/sessiond.log" 2>&1 ||
                { cat "$BATS_FILE_TMPDIR/sessiond.log"; exit 1; }
            pgrep -nx lttng-sessiond > "$SESSIOND_OURS"
        fi
        echo "$$" >> "$SESSIOND_USERS"
    ) 9> "$SESSIOND_LOCK"
}

# sessiond_down: this suite no longer uses it; stopped when a suite
# started it and no live user is left (teardown_file).
sessiond_down() {
    (
        flock -w "$HANG_SECONDS" 9 || exit 0
        local users pid
        users=$(grep -vx "$$" "$SESSIOND_USERS" 2>/dev/null | while read -r pid; do
            ! kill -0 "$pid" 2>/dev/null || echo "$pid"; done)
        printf '%s\n' $users > "$SESSIOND_USERS"
        [ -z "$users" ] && [ -s "$SESSIOND_OURS" ] || exit 0
        pid=$(cat "$SESSIOND_OURS")
        if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = lttng-sessiond ]; then
            kill -TERM "$pid"
            local end=$((SECONDS + HANG_SECONDS))
            while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$end" ]; do sleep 0.1; done
        fi
        rm -f "$SESSIOND_OURS" "$SESSIOND_USERS"
    ) 9> "$SESSIOND_LOCK"
}

# A name of this test's own, for its sessions and providers: lt<pid>x<test>.
tag() { echo "lt$$x${BATS_TEST_NUMBER}${1:-}"; }

SESSIONS=()
# session NAME PATTERN... [-- LTTNG-ENABLE-EVENT-OPTIONS...]: a session
# recording the user space events PATTERN (each enabled as given), its
# trace in $BATS_TEST_TMPDIR/NAME, started (not with SESSION_NOSTART
# set; in a small flight recorder with SESSION_SMALL set); destroyed by
# teardown.
session() {
    local name=$1 opts=() pats=()
    shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do pats+=("$1"); shift; done
    [ $# -eq 0 ] || { shift; opts=("$@"); }
    lttng create "$name" --output="$BATS_TEST_TMPDIR/$name" >/dev/null || return
    SESSIONS+=("$name")
    if [ "${SESSION_SMALL:-}" ]; then
        # a flight recorder: 4 sub-buffers of 64 KiB a CPU, overwritten
        lttng enable-channel -s "$name" -u --overwrite --subbuf-size=64K --num-subbuf=4 small >/dev/null ||
            return
        opts+=(-c small)
    fi
    local p
    for p in "${pats[@]}"; do
        lttng enable-event -s "$name" -u "$p" "${opts[@]}" >/dev/null || return
    done
    [ "${SESSION_NOSTART:-}" ] || lttng start "$name" >/dev/null
}

# trace NAME: the session stopped, its events as babeltrace2 prints them,
# without their timestamps and host: "P:N: { cpu_id = C }, { FIELDS }"
# (and the contexts added).
trace() {
    lttng stop "$1" >/dev/null 2>&1 || true # (stopped already, maybe)
    babeltrace2 "$BATS_TEST_TMPDIR/$1" | sed -E 's/^\[[^]]*\] \([^)]*\) [^ ]+ //'
}

# fields NAME: the fields of the values of the trace, one event a line:
# "P:N: FIELDS" (what follows the contexts).
fields() {
    trace "$1" | sed -E 's/^([^ ]+) \{ cpu_id = [0-9]+ \}(, \{ vpid = [0-9]+ \})?, \{ ?(.*[^ ])? ?\}$/\1 \3/'
}

# metadata NAME: each event class of the trace's metadata on one line,
# "P:N: FIELD DECLARATION; ..." (after trace or fields stopped it).
metadata() {
    local dir
    dir=$(dirname "$(find "$BATS_TEST_TMPDIR/$1" -name metadata | head -1)")
    babeltrace2 --output-format=ctf-metadata "$dir" | awk '
        /^event \{/ { ev = 1; name = ""; f = ""; next }
        ev && /name = "/ { sub(/.*name = "/, ""); sub(/";.*/, ""); name = $0; next }
        ev && /fields := struct/ { inf = 1; next }
        ev && inf && /^\t\};/ { inf = 0; print name ":" f; ev = 0; next }
        ev && inf { sub(/^\t+/, ""); f = f " " $0 }'
}

TRIGGERS=()
teardown() {
    local s
    for s in "${TRIGGERS[@]}"; do lttng remove-trigger "$s" >/dev/null 2>&1 || true; done
    TRIGGERS=()
    for s in "${SESSIONS[@]}"; do lttng destroy "$s" >/dev/null 2>&1 || true; done
    SESSIONS=()
    cleanup_tracers
}

setup_file() {
    # the lttng command's own file (~/.lttngrc: the current session) of
    # the suite's: the suites side by side write theirs
    export LTTNG_HOME=$BATS_FILE_TMPDIR/lttng-home
    mkdir -p "$LTTNG_HOME"
    # LTTng-UST's constructor waits for the session daemon's "registration
    # done", 3 s at most by default, and records nothing before it: a
    # program slowed down (ASan, a loaded machine) fires unrecorded.  Until
    # it came, then (a daemon not there answers at once).
    export LTTNG_UST_REGISTER_TIMEOUT=-1
    sessiond_up || return
    export DRV=$BATS_FILE_TMPDIR/lttng
    rt_build "$DRV" "$ROOT/tests/runtime/lttng.c" -ldl
}

teardown_file() { sessiond_down; }

# drive OUT [VAR=VALUE...] -- COMMAND...: the driver, in the environment
# given, on the commands (one a line), its replies in OUT.
drive() {
    local out=$1 env=()
    shift
    while [ "$1" != -- ]; do env+=("$1"); shift; done
    shift
    printf '%s\n' "$@" | env "${env[@]}" "$DRV" > "$out" 2> "$out.err"
}

UST=liblttng-ust.so.1
# What the programs preload: LTTng-UST, after ASan's runtime in the
# sanitized pass (which must come first in the process).
FIRST=
[[ "$RT_CFLAGS" != *sanitize=address* ]] || FIRST="$(cc -print-file-name=libasan.so) "
PRELOAD="$FIRST$UST"

# ---- The ABI ---------------------------------------------------------------

# (nothing of the sanitized build in it)
# bats test_tags=normal-pass-only
@test "lttng-abi.h's declarations are LTTng-UST's: each size, offset, bit field and value the installed headers give" {
    [ -f /usr/include/lttng/ust-events.h ] || [ -f "/usr/include/$(gcc -print-multiarch)/lttng/ust-events.h" ] ||
        missing "LTTng-UST's headers are not installed (.ci/run installs liblttng-ust-dev)"
    cat > abi.c <<'C'
#include <lttng/ust-events.h>
#include <lttng/tracepoint-types.h>
#include <lttng/ust-ringbuffer-context.h>
#include <lttng/tracepoint.h>
#include "lttng-abi.h"
#include <stdio.h>
#include <string.h>
#define SAME(ours, theirs) _Static_assert(sizeof(struct ours) == sizeof(struct theirs), #ours)
#define AT(ours, theirs, m) _Static_assert(offsetof(struct ours, m) == offsetof(struct theirs, m), #ours "." #m)
SAME(ust_type_integer, lttng_ust_type_integer); AT(ust_type_integer, lttng_ust_type_integer, struct_size);
AT(ust_type_integer, lttng_ust_type_integer, size); AT(ust_type_integer, lttng_ust_type_integer, alignment);
AT(ust_type_integer, lttng_ust_type_integer, base);
SAME(ust_type_float, lttng_ust_type_float); AT(ust_type_float, lttng_ust_type_float, exp_dig);
AT(ust_type_float, lttng_ust_type_float, mant_dig); AT(ust_type_float, lttng_ust_type_float, alignment);
SAME(ust_type_string, lttng_ust_type_string); AT(ust_type_string, lttng_ust_type_string, encoding);
SAME(ust_event_field, lttng_ust_event_field); AT(ust_event_field, lttng_ust_event_field, name);
AT(ust_event_field, lttng_ust_event_field, type);
SAME(ust_tracepoint_class, lttng_ust_tracepoint_class); AT(ust_tracepoint_class, lttng_ust_tracepoint_class, fields);
AT(ust_tracepoint_class, lttng_ust_tracepoint_class, nr_fields); AT(ust_tracepoint_class, lttng_ust_tracepoint_class, probe_callback);
AT(ust_tracepoint_class, lttng_ust_tracepoint_class, signature); AT(ust_tracepoint_class, lttng_ust_tracepoint_class, probe_desc);
SAME(ust_event_desc, lttng_ust_event_desc); AT(ust_event_desc, lttng_ust_event_desc, event_name);
AT(ust_event_desc, lttng_ust_event_desc, probe_desc); AT(ust_event_desc, lttng_ust_event_desc, tp_class);
AT(ust_event_desc, lttng_ust_event_desc, loglevel); AT(ust_event_desc, lttng_ust_event_desc, model_emf_uri);
SAME(ust_probe_desc, lttng_ust_probe_desc); AT(ust_probe_desc, lttng_ust_probe_desc, provider_name);
AT(ust_probe_desc, lttng_ust_probe_desc, event_desc); AT(ust_probe_desc, lttng_ust_probe_desc, nr_events);
AT(ust_probe_desc, lttng_ust_probe_desc, major); AT(ust_probe_desc, lttng_ust_probe_desc, minor);
SAME(ust_probe_ctx, lttng_ust_probe_ctx); AT(ust_probe_ctx, lttng_ust_probe_ctx, ip);
SAME(ust_event_common, lttng_ust_event_common); AT(ust_event_common, lttng_ust_event_common, type);
AT(ust_event_common, lttng_ust_event_common, child); AT(ust_event_common, lttng_ust_event_common, enabled);
AT(ust_event_common, lttng_ust_event_common, eval_filter); AT(ust_event_common, lttng_ust_event_common, run_filter);
SAME(ust_event_recorder, lttng_ust_event_recorder); AT(ust_event_recorder, lttng_ust_event_recorder, chan);
SAME(ust_notification_ctx, lttng_ust_notification_ctx); AT(ust_notification_ctx, lttng_ust_notification_ctx, eval_capture);
SAME(ust_event_notifier, lttng_ust_event_notifier); AT(ust_event_notifier, lttng_ust_event_notifier, eval_capture);
AT(ust_event_notifier, lttng_ust_event_notifier, notification_send);
SAME(ust_ring_buffer_ctx, lttng_ust_ring_buffer_ctx); AT(ust_ring_buffer_ctx, lttng_ust_ring_buffer_ctx, client_priv);
AT(ust_ring_buffer_ctx, lttng_ust_ring_buffer_ctx, data_size); AT(ust_ring_buffer_ctx, lttng_ust_ring_buffer_ctx, largest_align);
AT(ust_ring_buffer_ctx, lttng_ust_ring_buffer_ctx, probe_ctx); AT(ust_ring_buffer_ctx, lttng_ust_ring_buffer_ctx, priv);
SAME(ust_channel_buffer_ops, lttng_ust_channel_buffer_ops); AT(ust_channel_buffer_ops, lttng_ust_channel_buffer_ops, event_reserve);
AT(ust_channel_buffer_ops, lttng_ust_channel_buffer_ops, event_commit); AT(ust_channel_buffer_ops, lttng_ust_channel_buffer_ops, event_write);
AT(ust_channel_buffer_ops, lttng_ust_channel_buffer_ops, event_strcpy);
SAME(ust_session, lttng_ust_session); AT(ust_session, lttng_ust_session, active);
SAME(ust_channel_common, lttng_ust_channel_common); AT(ust_channel_common, lttng_ust_channel_common, enabled);
AT(ust_channel_common, lttng_ust_channel_common, session);
SAME(ust_channel_buffer, lttng_ust_channel_buffer); AT(ust_channel_buffer, lttng_ust_channel_buffer, parent);
AT(ust_channel_buffer, lttng_ust_channel_buffer, ops);
SAME(ust_tracepoint_probe, lttng_ust_tracepoint_probe); AT(ust_tracepoint_probe, lttng_ust_tracepoint_probe, data);
SAME(ust_tracepoint, lttng_ust_tracepoint); AT(ust_tracepoint, lttng_ust_tracepoint, provider_name);
AT(ust_tracepoint, lttng_ust_tracepoint, event_name); AT(ust_tracepoint, lttng_ust_tracepoint, state);
AT(ust_tracepoint, lttng_ust_tracepoint, probes); AT(ust_tracepoint, lttng_ust_tracepoint, tracepoint_provider_ref);
AT(ust_tracepoint, lttng_ust_tracepoint, signature);
_Static_assert((int)UST_TYPE_INTEGER == (int)lttng_ust_type_integer && (int)UST_TYPE_STRING == (int)lttng_ust_type_string &&
               (int)UST_TYPE_FLOAT == (int)lttng_ust_type_float, "types");
_Static_assert((int)UST_ENCODING_UTF8 == (int)lttng_ust_string_encoding_UTF8, "encoding");
_Static_assert((int)UST_EVENT_RECORDER == (int)LTTNG_UST_EVENT_TYPE_RECORDER &&
               (int)UST_EVENT_NOTIFIER == (int)LTTNG_UST_EVENT_TYPE_NOTIFIER, "event types");
_Static_assert((int)UST_FILTER_ACCEPT == (int)LTTNG_UST_EVENT_FILTER_ACCEPT, "filter");
_Static_assert(UST_PROVIDER_MAJOR == LTTNG_UST_PROVIDER_MAJOR && UST_PROVIDER_MINOR == LTTNG_UST_PROVIDER_MINOR, "provider ABI");
_Static_assert(UST_SYM_NAME_LEN == LTTNG_UST_TRACEPOINT_NAME_LEN_MAX, "name length");
int main(void)
{
    /* the bit fields, set one at a time, are the same bits */
    struct lttng_ust_type_integer ti; struct ust_type_integer oi;
    struct lttng_ust_event_field tf; struct ust_event_field of;
    struct lttng_ust_type_float tl; struct ust_type_float ol;
    int bad = 0;
    for (int k = 0; k < 2; k++) {
        memset(&ti, 0, sizeof ti); memset(&oi, 0, sizeof oi);
        memset(&tf, 0, sizeof tf); memset(&of, 0, sizeof of);
        memset(&tl, 0, sizeof tl); memset(&ol, 0, sizeof ol);
        if (k) { ti.signedness = 1; oi.signedness = 1; tf.nowrite = 1; of.nowrite = 1; tl.reverse_byte_order = 1; ol.reverse_byte_order = 1; }
        else { ti.reverse_byte_order = 1; oi.reverse_byte_order = 1; tf.nofilter = 1; of.nofilter = 1; }
        bad |= memcmp(&ti, &oi, sizeof ti) || memcmp(&tf, &of, sizeof tf) || memcmp(&tl, &ol, sizeof tl);
    }
    printf("%s %s %s\n", bad ? "bit fields differ" : "bit fields agree", LTTNG_UST_LIB_SONAME, LTTNG_UST_TRACEPOINT_LIB_SONAME);
    return bad;
}
C
    cc -std=gnu11 -Wall -Werror -I "$ROOT/runtime" abi.c -o abi
    run ./abi
    [ "$status" -eq 0 ]
    [ "$output" = "bit fields agree $UST liblttng-ust-tracepoint.so.1" ]
    # the sonames lttng.c looks for are these
    grep -q "define UST_LIB_SONAME \"$UST\"" "$ROOT/runtime/lttng-abi.h"
    grep -q 'define UST_TRACEPOINT_LIB_SONAME "liblttng-ust-tracepoint.so.1"' "$ROOT/runtime/lttng-abi.h"
}

# ---- Events: names, fields, types, values ------------------------------------

# integer BITS SIGNED [BASE]: the metadata's declaration of such a field
# (packed on x86: aligned to a byte).
integer() {
    echo "integer { size = $1; align = 8; signed = $2; encoding = none; base = ${3:-10}; }"
}

@test "every probe of both APIs is an LTTng event provider:probe, its fields named and typed as its arguments, its values as fired" {
    local p c
    p=$(tag n) c=$(tag c)
    session "$(tag)" "$p:*" "$c:*"
    drive out LD_PRELOAD="$PRELOAD" -- "native $p" "probe $p all u8 i8 u16 i16 u32 i32 u64 i64 ptr str flt dbl" \
        "probe $p request path=str id=i64" "probe $p none" "load $p" \
        "compat $c" "probe $c ints u8 i8 u16 i16 u32 i32" "probe $c wide u64 i64" "load $c" \
        "fire $p all 250 -100 65000 -30000 4000000000 -2000000000 18000000000000000000 -9000000000000000000 0xdeadbeef hello,tracer 1.5 2.25" \
        "fire $p request /index.html 42" "fire $p none" \
        "fire $c ints 250 -100 65000 -30000 4000000000 -2000000000" \
        "fire $c wide 18000000000000000000 -9000000000000000000" "quit"
    run fields "$(tag)"
    [ "$status" -eq 0 ]
    local want=(
        "$p:all: arg0 = 250, arg1 = -100, arg2 = 65000, arg3 = -30000, arg4 = 4000000000, arg5 = -2000000000, arg6 = 18000000000000000000, arg7 = -9000000000000000000, arg8 = 0xDEADBEEF, arg9 = \"hello,tracer\", arg10 = 1.5, arg11 = 2.25"
        "$p:request: path = \"/index.html\", id = 42"
        "$p:none: "
        "$c:ints: arg0 = 250, arg1 = -100, arg2 = 65000, arg3 = -30000, arg4 = 4000000000, arg5 = -2000000000"
        "$c:wide: arg0 = 18000000000000000000, arg1 = -9000000000000000000")
    diff <(printf '%s\n' "${want[@]}") <(printf '%s\n' "${lines[@]}")
    # the types, as the metadata declares them (packed on x86: align 8 bits)
    run metadata "$(tag)"
    local u8 i8 u16 i16 u32 i32 u64 i64 ptr
    u8=$(integer 8 0) i8=$(integer 8 1) u16=$(integer 16 0) i16=$(integer 16 1) u32=$(integer 32 0)
    i32=$(integer 32 1) u64=$(integer 64 0) i64=$(integer 64 1) ptr=$(integer 64 0 16)
    local flt='floating_point { exp_dig = 8; mant_dig = 24; align = 8; }'
    local dbl='floating_point { exp_dig = 11; mant_dig = 53; align = 8; }'
    want=(
        "$p:all: $u8 _arg0; $i8 _arg1; $u16 _arg2; $i16 _arg3; $u32 _arg4; $i32 _arg5; $u64 _arg6; $i64 _arg7; $ptr _arg8; string _arg9; $flt _arg10; $dbl _arg11;"
        "$p:request: string _path; $i64 _id;"
        "$p:none:"
        "$c:ints: $u8 _arg0; $i8 _arg1; $u16 _arg2; $i16 _arg3; $u32 _arg4; $i32 _arg5;"
        "$c:wide: $u64 _arg0; $i64 _arg1;")
    diff <(printf '%s\n' "${want[@]}" | sort) <(printf '%s\n' "${lines[@]}" | sort)
}

# ---- The lifecycle, with a session recording -----------------------------------

@test "a fire is recorded while its provider is loaded, not while unloaded, again once reloaded, never once destroyed" {
    local p c
    p=$(tag n) c=$(tag c)
    session "$(tag)" "$p:*" "$c:*"
    drive out LD_PRELOAD="$PRELOAD" -- "native $p" "probe $p x n=i64" "load $p" "compat $c" "probe $c x i64" "load $c" \
        "fire $p x 1" "fire $c x 1" "unload $p" "unload $c" "fire $p x 2" "fire $c x 2" \
        "load $p" "load $c" "fire $p x 3" "fire $c x 3" "unload $p" "unload $c" "load $p" "load $c" \
        "fire $p x 4" "fire $c x 4" "destroy $p" "destroy $c" "fire $p x 5" "fire $c x 5" "quit"
    run fields "$(tag)"
    [ "$status" -eq 0 ]
    local want=("$p:x: n = 1" "$c:x: arg0 = 1" "$p:x: n = 3" "$c:x: arg0 = 3" "$p:x: n = 4" "$c:x: arg0 = 4")
    diff <(printf '%s\n' "${want[@]}") <(printf '%s\n' "${lines[@]}")
}

@test "loaded providers of one name share its events, each fire recorded once; another layout under a name taken is no event until the name is free, and the status says so" {
    local p
    p=$(tag)
    session "$(tag)" "$p:*"
    drive out LD_PRELOAD="$PRELOAD" -- "native a $p" "probe a x v=i64" "load a" \
        "native b $p" "probe b x v=i64" "probe b y s=str" "load b" \
        "native c $p" "probe c x w=i64" "load c" "status" \
        "fire a x 1" "fire b x 2" "fire c x 3" "fire b y hello" \
        "destroy a" "fire b x 4" "destroy b" "fire c x 5" \
        "reload c x" "fire c x 6" "quit"
    grep -q "probe 'x' of provider '$p' is not an LTTng event: another probe of that name has other arguments" out
    run fields "$(tag)"
    [ "$status" -eq 0 ]
    local want=("$p:x: v = 1" "$p:x: v = 2" "$p:y: s = \"hello\"" "$p:x: v = 4" "$p:x: w = 6")
    diff <(printf '%s\n' "${want[@]}") <(printf '%s\n' "${lines[@]}")
}

@test "a name LTTng-UST does not take (too long, or a byte its metadata cannot carry) stays a probe, not an event, and libstapsdt's providerLoad says why in error" {
    local p long
    p=$(tag)
    long=$(printf "$p%0260d" 0)
    session "$(tag)" "$p*"
    drive out LD_PRELOAD="$PRELOAD" -- "compat long $long" "probe long x i64" "load long" \
        "compat q $p\"q" "probe q x i64" "load q" \
        "compat ok $p" "probe ok x i64" "load ok" "path long" \
        "fire long x 1" "fire q x 2" "fire ok x 3" "quit"
    # libstapsdt's providerLoad says it in error, and returns 0
    grep -qx "load 0 error probe 'x' of provider '$long' is not an LTTng event: longer than LTTng-UST takes (255 bytes for provider:probe)" out
    grep -qx "load 0 error probe 'x' of provider '$p\"q' is not an LTTng event: a byte LTTng's trace metadata cannot carry (printable ASCII but '\"' and '\\\\' only)" out
    grep -qx "load 0" out # the third
    run fields "$(tag)"
    [ "$status" -eq 0 ]
    [ "${lines[*]}" = "$p:x: arg0 = 3" ]
    # still a probe: its note is in the object
    local path
    path=$(sed -n 's/^path //p' out)
    [ -n "$path" ]
}

@test "the two libraries keep their events apart: a name in both records from the first that registered it only" {
    local p
    p=$(tag)
    session "$p" "$p:*"
    drive out LD_PRELOAD="$PRELOAD" -- "native n $p" "probe n x i64" "load n" "compat c $p" "probe c x i64" "load c" \
        "fire n x 1" "fire c x 2" "enabled n x" "enabled c x" "quit"
    run fields "$p"
    # the first registered the name (its load returned once it had):
    # the other's probe is no event of it, nor enabled by it
    grep -qx "enabled n:x 1" out
    grep -qx "enabled c:x 0" out
    [ "${lines[*]}" = "$p:x: arg0 = 1" ]
}

# ---- When LTTng-UST is used ----------------------------------------------------

@test "SDTKIT_LTTNG=0 keeps LTTng-UST out even when loaded; SDTKIT_LTTNG=1 loads it; unset, it is used when loaded" {
    local p
    p=$(tag)
    session "$(tag)" "$p*"
    drive off LD_PRELOAD="$PRELOAD" SDTKIT_LTTNG=0 -- "native ${p}a" "probe ${p}a x i64" "load ${p}a" "fire ${p}a x 1" "status" "threads"
    grep -qx "LTTng-UST not used: SDTKIT_LTTNG=0" off
    grep -qx "threads 3 sdtkit-lttng 0" off # main and LTTng's two listeners
    drive on SDTKIT_LTTNG=1 -- "native ${p}b" "probe ${p}b x i64" "load ${p}b" "fire ${p}b x 2" "status"
    grep -qx "LTTng-UST in use: $UST (a fork's child records only with liblttng-ust-fork.so preloaded)" on
    drive unset -- "native ${p}c" "probe ${p}c x i64" "load ${p}c" "fire ${p}c x 3" "status" "threads"
    grep -qx "LTTng-UST not in use: $UST is not loaded (SDTKIT_LTTNG=1 or sdtkit_lttng_enable() loads it)" unset
    run fields "$(tag)"
    [ "${lines[*]}" = "${p}b:x: arg0 = 2" ]
}

# (ASan maps as it likes: the normal pass counts)
# bats test_tags=normal-pass-only
@test "without LTTng-UST the library makes no thread, descriptor or mapping more than when told never to use it" {
    local cmds=("native a" "probe a x i64" "load a" "compat b" "probe b y i64" "load b" "fire a x 1" "fire b y 2"
                "unload a" "load a" "destroy a" "native c" "probe c z str" "load c" "fire c z s" "threads")
    drive plain -- "${cmds[@]}" "counts"
    drive never SDTKIT_LTTNG=0 -- "${cmds[@]}" "counts"
    grep -qx "threads 1 sdtkit-lttng 0" plain
    diff <(tail -n +2 never) <(tail -n +2 plain) # (after "ready PID")
}

@test "another LTTng-UST (liblttng-ust.so.0), or a liblttng-ust.so.1 without its functions, is left alone: nothing done, the status says why" {
    printf 'int nothing;\n' > n.c
    mkdir lib
    cc -shared -fPIC n.c -o lib/liblttng-ust.so.0 -Wl,-soname,liblttng-ust.so.0
    cc -shared -fPIC n.c -o lib/liblttng-ust.so.1 -Wl,-soname,liblttng-ust.so.1
    drive old LD_PRELOAD="$FIRST$PWD/lib/liblttng-ust.so.0" -- "native a" "probe a x i64" "load a" "fire a x 1" \
        "enabled a x" "status" "threads"
    grep -qx "LTTng-UST not used: liblttng-ust.so.0 is loaded, an LTTng-UST whose ABI this library does not speak (it speaks $UST's: LTTng-UST 2.13 to 2.15)" old
    grep -qx "threads 1 sdtkit-lttng 0" old
    grep -qx "enabled a:x 0" old
    drive hollow LD_PRELOAD="$FIRST$PWD/lib/liblttng-ust.so.1" -- "native a" "probe a x i64" "load a" "fire a x 1" \
        "status" "threads"
    grep -qx "LTTng-UST not used: $UST is loaded, but liblttng-ust-tracepoint.so.1 is not there: an LTTng-UST this library does not know" hollow
    grep -qx "threads 1 sdtkit-lttng 0" hollow
}

@test "liblttng-ust loaded after the providers: their probes become events at the next call, or at once by sdtkit_lttng_enable()" {
    local p c
    p=$(tag n) c=$(tag c)
    session "$(tag)" "$p*" "$c*"
    drive out -- "native $p" "probe $p x i64" "load $p" "compat $c" "probe $c x i64" "load $c" \
        "fire $p x 1" "fire $c x 1" "dlopen $UST" "enable" "fire $p x 2" "fire $c x 2" \
        "compat ${c}b" "probe ${c}b y i64" "load ${c}b" "fire $c x 3" "fire ${c}b y 3" "status" "quit"
    grep -qx "dlopen ok" out
    grep -qx "enable SDTKIT_OK: success" out
    grep -qx "LTTng-UST in use: $UST (a fork's child records only with liblttng-ust-fork.so preloaded)" out
    run fields "$(tag)"
    # the native probes at once (sdtkit_lttng_enable); libstapsdt's at its
    # library's next call (a load, of another provider here)
    local want=("$p:x: arg0 = 2" "$c:x: arg0 = 3" "${c}b:y: arg0 = 3")
    diff <(printf '%s\n' "${want[@]}") <(printf '%s\n' "${lines[@]}")
}

# bg_fed OUT CMD...: CMD in the background (bg), its stdin what is
# written to fd 5 (a FIFO, in).
bg_fed() {
    local out=$1
    shift
    rm -f in
    mkfifo in
    exec 5<> in # (so that opening it to read does not wait for a writer)
    # (its stdin given inside: a background command's would be /dev/null)
    bg "$out" sh -c 'exec "$@" < in' - "$@"
}

# start_driver [VAR=VALUE...]: the driver in the background, in the
# environment given, its commands from fd 5 (send), its replies in out.
start_driver() {
    bg_fed out env "$@" "$DRV"
    wait_for out '^ready'
    DRV_PID=$(sed -n 's/^ready //p' out)
}

# send COMMAND...: to the driver, one a line, and wait until it has
# answered them all (a "threads" after them, answered).
send() {
    local n
    n=$(grep -c '^threads [0-9]' out || true)
    printf '%s\n' "$@" threads >&5
    wait_for out '^threads [0-9]' $((n + 1))
}

@test "is-enabled of both APIs says so while a session records the probe, and no more once it stops; LTTng's filters see the arguments" {
    local p c
    p=$(tag n) c=$(tag c)
    SESSION_NOSTART=1 session "$(tag)" "$p:x" "$c:x" -- --filter 'arg0 > 5'
    lttng enable-event -s "$(tag)" -u "$p:s" --filter 'name == "b*"' >/dev/null
    start_driver LD_PRELOAD="$PRELOAD"
    send "native $p" "probe $p x i64" "probe $p s name=str" "load $p" "compat $c" "probe $c x i64" "load $c" \
        "enabled $p x" "enabled $c x" "enabled $p s"
    grep -qx "enabled $p:x 0" out
    grep -qx "enabled $c:x 0" out
    lttng start "$(tag)" >/dev/null
    send "await $p x 1" "await $c x 1" "await $p s 1" "burst $p x 10 #" "burst $c x 10 #" \
        "fire $p s apple" "fire $p s banana" "fire $p s berry" "fire $p s cherry"
    lttng stop "$(tag)" >/dev/null
    send "await $p x 0" "await $c x 0" "await $p s 0"
    grep -qx "enabled $p:x 1" out
    grep -qx "enabled $c:x 1" out
    grep -qx "enabled $p:s 0" out
    run fields "$(tag)"
    local want=("$p:x: arg0 = 6" "$p:x: arg0 = 7" "$p:x: arg0 = 8" "$p:x: arg0 = 9"
                "$c:x: arg0 = 6" "$c:x: arg0 = 7" "$c:x: arg0 = 8" "$c:x: arg0 = 9"
                "$p:s: name = \"banana\"" "$p:s: name = \"berry\"")
    diff <(printf '%s\n' "${want[@]}") <(printf '%s\n' "${lines[@]}")
}

# ---- Both consumers, and a binding ------------------------------------------------

@test "bpftrace's uprobe and an LTTng session see the same fires of the same probes in one run" {
    need_bpftrace
    local p c path cpath
    p=$(tag n) c=$(tag c)
    session "$(tag)" "$p:*" "$c:*"
    start_driver LD_PRELOAD="$PRELOAD"
    send "native $p" "probe $p req path=str id=i64" "load $p" "path $p" "compat $c" "probe $c hit u64 i32" "load $c" "path $c"
    path=$(sed -n 's/^path //p' out | head -1) cpath=$(sed -n 's/^path //p' out | tail -1)
    bpftrace_bg bt.out "usdt:$path:$p:req { printf(\"BT %s %d\\n\", str(arg0), arg1); }
        usdt:$cpath:$c:hit { printf(\"BT %d %d\\n\", arg0, arg1); }" -p "$DRV_PID"
    send "fire $p req /a 1" "fire $c hit 10 -1" "fire $p req /b 2" "fire $c hit 20 -2" "fire $p req /c 3" "fire $c hit 30 -3"
    wait_for bt.out '^BT ' 6
    run fields "$(tag)"
    local want=("$p:req: path = \"/a\", id = 1" "$c:hit: arg0 = 10, arg1 = -1" "$p:req: path = \"/b\", id = 2"
                "$c:hit: arg0 = 20, arg1 = -2" "$p:req: path = \"/c\", id = 3" "$c:hit: arg0 = 30, arg1 = -3")
    diff <(printf '%s\n' "${want[@]}") <(printf '%s\n' "${lines[@]}")
    want=("BT /a 1" "BT 10 -1" "BT /b 2" "BT 20 -2" "BT /c 3" "BT 30 -3")
    diff <(printf '%s\n' "${want[@]}") <(grep '^BT [^r]' bt.out)
}

# (Python is not built with ASan)
# bats test_tags=normal-pass-only
@test "the Python binding on either library records through LTTng-UST with nothing more to do than preload it, gated by is-enabled" {
    need_cmd python3
    local api p
    mkdir lib
    ln -s "$RT_LIBDIR/libstapsdt.so.0" lib/libstapsdt.so
    ln -s "$RT_LIBDIR/libsdtkit.so.1" lib/libsdtkit.so
    for api in compat native; do
        p=$(tag "$api")
        session "$p" "$p:*"
        printf '%s\n' "provider $p" "probe $p req uint64 int32" "load $p" "wait req" "fire req 7 -7" "fire req 8 -8" \
            "unload $p" "fire req 9 -9" |
            env LD_LIBRARY_PATH="$PWD/lib" PYTHONPATH="$ROOT/tests/bindings/python" PYTHONDONTWRITEBYTECODE=1 \
                LD_PRELOAD="$PRELOAD" "$PYTHON3" "$ROOT/tests/bindings/python/driver.py" "$api" > "$api.out" 2>&1
        # the binding fires only while a tracer is on: LTTng counts as one
        grep -qx 'wait <req> enabled' "$api.out" || { cat "$api.out"; false; }
        grep -qx 'fire <req> 1' "$api.out"
        run fields "$p"
        local want=("$p:req: arg0 = 7, arg1 = -7" "$p:req: arg0 = 8, arg1 = -8")
        diff <(printf '%s\n' "${want[@]}") <(printf '%s\n' "${lines[@]}")
    done
}

# ---- Fork ---------------------------------------------------------------------------

@test "a child of fork records (as itself) with liblttng-ust-fork.so preloaded, as LTTng-UST's rule says, and not without it" {
    local p with pid
    [ -e "$(ldconfig -p | sed -n 's/.*liblttng-ust-fork.so.1 .*=> //p' | head -1)" ] ||
        missing "liblttng-ust-fork.so.1 is not installed (.ci/run installs liblttng-ust-dev)"
    for with in helper alone; do
        p=$(tag "$with")
        SESSION_NOSTART=1 session "$p" "$p:*"
        lttng add-context -s "$p" -u -t vpid >/dev/null
        lttng start "$p" >/dev/null
        local preload=$PRELOAD
        [ "$with" = alone ] || preload="$PRELOAD liblttng-ust-fork.so.1"
        drive "$with.out" LD_PRELOAD="$preload" -- "native $p" "probe $p x n=i64" "load $p" "fire $p x 100" \
            "fork $p x 3" "fire $p x 101" "status" "quit"
        grep -qx 'child 0' "$with.out"
        pid=$(sed -n 's/^ready //p' "$with.out")
        run trace "$p"
        [ "$status" -eq 0 ]
        local parent=() child=() l
        for l in "${lines[@]}"; do
            [[ "$l" =~ vpid\ =\ ([0-9]+)\ \},\ \{\ n\ =\ ([0-9]+) ]] || { echo "$l"; false; }
            if [ "${BASH_REMATCH[1]}" = "$pid" ]; then parent+=("${BASH_REMATCH[2]}"); else child+=("${BASH_REMATCH[2]}"); fi
        done
        [ "${parent[*]}" = "100 101" ]
        if [ "$with" = helper ]; then
            grep -qx "LTTng-UST in use: $UST, and liblttng-ust-fork.so (a fork's child records too)" "$with.out"
            grep -qx "in the child: LTTng-UST in use: $UST, and liblttng-ust-fork.so (a fork's child records too)" "$with.out"
            [ "${child[*]}" = "0 1 2" ]
        else
            grep -qx "in the child: LTTng-UST not used in this process: a child of fork without liblttng-ust-fork.so preloaded, which LTTng-UST does not trace" "$with.out"
            [ "${#child[@]}" -eq 0 ]
        fi
    done
}

# ---- The contract of runtime/provider.c, with a session recording ------------------

# recorded NAME PROVIDER: whether the session's trace has events of PROVIDER.
recorded() { trace "$1" | grep -q "^$2:"; }

@test "with a session recording: threads fire while another unloads, loads and adds probes; a threaded server forks workers; threads stopped inside the stub" {
    # (flight recorders: the programs fire as fast as they can)
    SESSION_SMALL=1 session "$(tag s)" 'stress:*' 'cstress:*' 'churn:*'
    rt_build stress "$ROOT/tests/runtime/stress.c"
    run env LD_PRELOAD="$PRELOAD" timeout "$HANG_SECONDS" ./stress 4 300
    [ "$status" -eq 0 ] || { echo "$output" | head -40; false; }
    [[ "${lines[-1]}" =~ ^ok\ ([0-9]+)\ 300$ ]]
    recorded "$(tag s)" stress
    # (each worker registers with the session daemon: 100 of them)
    SESSION_SMALL=1 session "$(tag f)" 'forks:*' 'cforks:*'
    rt_build forks "$ROOT/tests/runtime/forks.c"
    run env LD_PRELOAD="$PRELOAD liblttng-ust-fork.so.1" timeout "$HANG_SECONDS" ./forks 100
    [ "$status" -eq 0 ] || { echo "$output" | tail -5; false; }
    [ "${lines[-1]}" = "100 of 100 workers finished" ]
    recorded "$(tag f)" forks
    [ "$(uname -m)" = x86_64 ] || return 0 # (the breakpoint's byte)
    SESSION_SMALL=1 session "$(tag t)" 'held:*' 'inner:*' 'stopped:*' 'other:*' 'later:*'
    rt_build stopped "$ROOT/tests/runtime/stopped.c"
    run env LD_PRELOAD="$PRELOAD" timeout "$HANG_SECONDS" ./stopped 2000
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "${lines[1]}" = "2000 reloads, all destroyed, 200 more providers loaded and destroyed" ]
    [ "${lines[2]}" = "0 of them took the stopped thread's slot" ]
    [ "${lines[5]}" = "a provider made after it returned took its slot" ]
    # (a flight recorder: the last events, of whichever of its providers)
    recorded "$(tag t)" '\(held\|inner\|stopped\|other\|later\)'
}

@test "4,000 short-lived providers, each with a name of its own, made and destroyed while a session records them: every fire recorded, no more memory than the first 400" {
    rt_build churn "$ROOT/bench/runtime.c" -ldl
    local api n failed heap0 heap1 fds0 fds1 maps0 maps1 cycles=4000
    # (the sanitized pass looks for bad accesses, which 1,000 cycles make
    # as 4,000 do; memory is judged in the normal pass)
    [ -z "$RT_CFLAGS" ] || cycles=1000
    for api in native compat; do
        # (its own events: by its pid, which another pass's churn does not have)
        SESSION_NOSTART=1 session "$(tag "$api")" 'jit*'
        lttng add-context -s "$(tag "$api")" -u -t vpid >/dev/null
        lttng start "$(tag "$api")" >/dev/null
        run sh -c 'echo $$ && exec env LD_PRELOAD="$0" ./churn churn "$1" "$2"' "$PRELOAD" $cycles $api
        echo "$api: $output"
        [ "$status" -eq 0 ]
        local pid=${lines[0]}
        # churn N cycles F failed heap A B rss A B fds A B maps A B bytes/cycle X objects A B
        local obj0 obj1
        read -r _ n _ failed _ _ heap0 heap1 _ _ _ _ _ _ _ _ _ _ _ _ obj0 obj1 <<<"${lines[1]}"
        [ "$n" -eq "$cycles" ]
        [ "$failed" -eq 0 ]
        # not an object, descriptor or mapping more of the library's (the
        # process's own come and go with LTTng's sessions, other tests'
        # too, whose buffers every application of the user maps)
        [ "$obj1" -eq "$obj0" ]
        # (64 bytes a cycle at most, as bench/run's target)
        [ -n "$RT_CFLAGS" ] || [ $((heap1 - heap0)) -le $((3600 * 64)) ]
        # 4 probes a provider, each fired once, each fire an event
        [ "$(trace "$(tag "$api")" | grep -c "^jit[0-9]*:probe[0-3]: { cpu_id = [0-9]* }, { vpid = $pid }")" -eq $((4 * cycles)) ]
    done
}

@test "a trigger on a run-time probe acts when it fires: LTTng-UST's event notifiers are served too" {
    local p trig
    p=$(tag) trig=$(tag t)
    SESSION_NOSTART=1 session "$p" "$p:*"
    lttng add-trigger --name="$trig" --condition=event-rule-matches --type=user --name="$p:go" \
        --action=start-session "$p" >/dev/null
    # (removed even when a check fails)
    TRIGGERS+=("$trig")
    lttng list "$p" | grep -q "^Recording session $p: \[inactive\]"
    drive out LD_PRELOAD="$PRELOAD" -- "native $p" "probe $p go v=i64" "load $p" "fire $p go 1" "quit"
    local end=$((SECONDS + HANG_SECONDS))
    until lttng list "$p" | grep -q "^Recording session $p: \[active\]"; do
        [ "$SECONDS" -lt "$end" ] || { lttng list "$p"; false; }
        sleep 0.05
    done
}

@test "threads firing while their provider is unloaded and loaded again: no fire that began after an unload returned is recorded" {
    rt_build unloads "$ROOT/tests/runtime/unloads.c"
    local api p
    for api in native compat; do
        p=$(tag "$api")
        session "$p" "$p:*"
        run env LD_PRELOAD="$PRELOAD" ./unloads "$p" 4 50 $api
        [ "$status" -eq 0 ] || { echo "$output"; false; }
        printf '%s\n' "${lines[@]}" > windows
        [ "$(grep -c '^window ' windows)" -eq 200 ]
        # every window holds fires (the unloaded ones), and none is recorded
        run awk '$1 == "window" && $4 < $3 { print "an empty window:", $0 }' windows
        [ -z "$output" ]
        trace "$p" | awk -v api=$api '
            FILENAME == "windows" { if ($1 == "window") { n[$2]++; from[$2, n[$2]] = $3; to[$2, n[$2]] = $4 } next }
            {
                if (!match($0, /(t|arg0) = [0-9]+, (k|arg1) = [0-9]+/)) { print "unreadable: " $0; bad = 1; next }
                split(substr($0, RSTART, RLENGTH), f, /[ ,=]+/)
                t = f[2]; k = f[4]; events++
                for (i = 1; i <= n[t]; i++)
                    if (k >= from[t, i] && k <= to[t, i]) { print "recorded while unloaded: " $0; bad = 1 }
            }
            END { if (!events) { print "no events"; bad = 1 } exit bad }' windows -
    done
}

@test "a thread stopped inside LTTng's recording of an event holds no unload or destroy; the unregistration waits for it in lttng.c's thread, then ends" {
    [ "$(uname -m)" = x86_64 ] || skip "x86-64 only (the breakpoint the test puts)"
    [ "$(id -u)" -eq 0 ] || [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)" -le 1 ] ||
        refused "ptrace_scope forbids tracing a thread of the parent"
    local p at
    p=$(tag)
    session "$p" "$p:*" "${p}q:*"
    rt_build lstopped "$ROOT/tests/runtime/lttng-stopped.c" -ldl
    bg_fed out env LD_PRELOAD="$PRELOAD" ./lstopped "$p"
    wait_for out '^waiting$'
    grep -q "^a thread is stopped inside LTTng's read side, after fire [0-9]*$" out
    grep -qx "its provider unloaded and destroyed, another reloaded and fired, meanwhile" out
    grep -qx "the thread resumed, and fired its stale handle 1000 times more" out
    at=$(sed -n 's/^a thread is stopped .* after fire //p' out)
    # its event leaves LTTng-UST's registry once the thread is out
    local end=$((SECONDS + HANG_SECONDS))
    until lttng list -u > list 2>&1 && grep -q "${p}q:y" list && ! grep -q "$p:x " list; do
        [ "$SECONDS" -lt "$end" ] || { cat list; false; }
        sleep 0.05
    done
    echo quit >&5
    stop "$BG_PID"
    run fields "$p"
    [ "$status" -eq 0 ]
    [ "${lines[-1]}" = "${p}q:y: arg0 = 7" ]
    # the stopped fire the last of x, and every one before it
    [ "${#lines[@]}" -eq $((at + 1)) ]
    [ "${lines[-2]}" = "$p:x: k = $at" ]
}

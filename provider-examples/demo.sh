#!/bin/sh
# SPDX-License-Identifier: MIT
# demo.sh TICK [SDT_LIST]: what `make' ends with.  Lists the probes of the
# tick example and, when this machine allows it, traces tick:loop2 with
# bpftrace for a few ticks, so that the semaphore-guarded probe can be seen
# turning on.  Never fails: when a tracer can't run, it says why.
set -u
tick=$1
sdt_list=${2:-}
bpftrace=${BPFTRACE:-bpftrace}   # the environment may name another one

say() { printf '%s\n' "$*"; }
indent() { sed 's/^/    /'; }

say ""
say "== sdtkit demo: provider-examples/tick (dtrace -h/-G, <sys/sdt.h>)"
say "-- its probes:"
# Our own lister (sdt-list) when it is built, else binutils' readelf.
listed=""
if [ -n "$sdt_list" ] && [ -x "$sdt_list" ]; then
    listed=$("$sdt_list" "$tick" 2>/dev/null | awk -F '\t' 'NF == 7 {
        printf "    %-12s pc %s  semaphore %s  arguments: %s\n", $2 ":" $3, $4, $6, $7 }')
    [ -z "$listed" ] || say "   (sdt-list)"
fi
if [ -z "$listed" ]; then
    say "   (readelf -n)"
    listed=$(readelf -n "$tick" | awk '
        /^ *Provider:/ { p = $2 }
        /^ *Name:/     { n = $2 }
        /Location:/    { pc = $2; sub(/,$/, "", pc); s = $NF }
        /^ *Arguments:/ { sub(/^ *Arguments: ?/, "")
                          printf "    %-12s pc %s  semaphore %s  arguments: %s\n", p ":" n, pc, s, $0 }')
fi
say "$listed"

say "-- run untraced: tick:loop2 is skipped, its semaphore is 0"
"$tick" 2 0 | indent

why=""
if [ "$(id -u)" -ne 0 ]; then
    why="not root"
elif ! command -v "$bpftrace" >/dev/null 2>&1; then
    why="$bpftrace is not installed"
elif [ ! -e /sys/kernel/tracing/uprobe_events ]; then
    why="tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)"
elif ! command -v timeout >/dev/null 2>&1; then
    why="timeout(1) is not installed"
fi
if [ -n "$why" ]; then
    say "-- not tracing it with bpftrace: $why"
    exit 0
fi

say "-- run under bpftrace: the semaphore turns 1 and tick:loop2 fires"
say "   bpftrace -e 'usdt:$tick:tick:loop2 { printf(...) }' -c '$tick 3 0.2'"
err=$(mktemp)
# bpftrace gets 15 s (DEMO_SECONDS) to start and trace 3 ticks
out=$(timeout "${DEMO_SECONDS:-15}" "$bpftrace" \
    -e "usdt:$tick:tick:loop2 { printf(\"bpftrace: tick:loop2 fired, counter = %d\\n\", arg0); }" \
    -c "$tick 3 0.2" 2>"$err")
if printf '%s\n' "$out" | grep -q 'loop2 fired'; then
    printf '%s\n' "$out" | grep -v '^Attaching' | grep -v '^$' | indent
else
    say "   bpftrace could not trace here:"
    grep -v RLIMIT_MEMLOCK "$err" | head -3 | indent
fi
rm -f "$err"
exit 0

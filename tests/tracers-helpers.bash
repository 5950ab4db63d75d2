# SPDX-License-Identifier: MIT
# What the suites that run programs and tracers load, after helpers: the
# provider examples, programs in the background (waited on by events), the
# kernel's tracing interfaces, bpftrace, libbpf and gdb, and cleaning up
# after them (cleanup_tracers, in teardown).

TRACEFS=/sys/kernel/tracing
# teardown: cleanup_tracers (a suite's own teardown calls it).
teardown() {
    cleanup_tracers
}
# The provider examples, as `make examples` (which make check runs for the
# tracer tier) builds them: the suites read them, and change a copy.
EX=${EX:-$ROOT/build/examples}

# example_bins DIR: every probed ELF file the examples build (programs and
# the shared library), one per line, relative to DIR.
example_bins() {
    local f
    for f in hello-usdt/hello-usdt tick/tick hello-semaphore-usdt/hello-semaphore-usdt \
             probe-test/probe-test shared-lib/libgreet.so cxx-templates/cxx-ring \
             postgres-style/minipg meson/build/jobq cmake/build/cmq usdt-jobs/usdt-jobs; do
        [ -e "$1/$f" ] && echo "$f"
    done
    return 0
}

# ---- Background programs -------------------------------------------------

BG_PIDS=()

# bg OUT CMD...: run CMD in the background, stdout and stderr to OUT; the
# pid is in $BG_PID and is killed by cleanup_tracers if still running.
# CMD is not to be timeout(1) when the test signals it (stop): coreutils
# 9.1's timeout, signalled while its child ends, can miss the child's
# SIGCHLD (not blocked between its waitpid and its sigsuspend) and sit out
# its whole duration (300 s, seen in full runs); stop's bound and
# cleanup_tracers' kill guard against a hang instead.
bg() {
    local out=$1
    shift
    "$@" > "$out" 2>&1 3>&- &
    BG_PID=$!
    BG_PIDS+=("$BG_PID")
}

# wait_for FILE ERE [COUNT]: wait until FILE has COUNT (default 1) lines
# matching ERE; fail after HANG_SECONDS, showing FILE.
wait_for() {
    local file=$1 re=$2 count=${3:-1} end=$((SECONDS + HANG_SECONDS))
    [ $# -le 3 ] || { echo "wait_for: no time window (a fourth argument) any more"; return 1; }
    local n
    # (the file may not be there yet: a background job's redirection)
    until n=$(grep -cE -- "$re" "$file" 2>/dev/null); [ "${n:-0}" -ge "$count" ]; do
        if [ "$SECONDS" -ge "$end" ]; then
            echo "no $count lines matching /$re/ in $file after $HANG_SECONDS s (a hang?):"
            cat "$file"
            return 1
        fi
        sleep 0.05
    done
}

# proc_state PID: what PID and its children are doing (for a failure's
# report): their states, threads' wait channels and kernel stacks, and
# gdb's backtraces.
proc_state() {
    local p t
    for p in "$1" $(pgrep -P "$1"); do
        echo "== $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
        grep -E '^(State|SigBlk|SigIgn|SigCgt):' "/proc/$p/status" 2>/dev/null
        for t in /proc/"$p"/task/*; do
            echo "-- thread ${t##*/}: $(cat "$t/comm" "$t/wchan" 2>/dev/null | tr '\n' ' ')"
            cat "$t/stack" 2>/dev/null | head -12
        done
        ! command -v gdb >/dev/null ||
            timeout 60 gdb -p "$p" -batch -nx -ex 'thread apply all bt 12' 2>/dev/null | grep -E '^(Thread|#)'
    done
}

# stop PID [SIGNAL]: send SIGNAL (default TERM) and wait for PID to end;
# fail when it has not after HANG_SECONDS.  The signal is sent again each
# second meanwhile: bpftrace 0.17 notes a SIGTERM in a flag that its event
# loop reads only when the signal broke its epoll_wait, and one that comes
# while it is elsewhere is lost (seen in full runs: bpftrace in epoll_wait,
# SIGTERM caught, never ending).
stop() {
    local pid=$1 sig=${2:-TERM} end=$((SECONDS + HANG_SECONDS)) again=$((SECONDS + 1))
    kill -"$sig" "$pid" 2>/dev/null || return 0
    while kill -0 "$pid" 2>/dev/null; do
        [ "$SECONDS" -lt "$end" ] || { echo "pid $pid did not stop on SIG$sig"; proc_state "$pid"; return 1; }
        if [ "$SECONDS" -ge "$again" ]; then
            kill -"$sig" "$pid" 2>/dev/null || true
            again=$((SECONDS + 1))
        fi
        sleep 0.05
    done
    wait "$pid" 2>/dev/null || true
}

# ---- Kernel tracing ------------------------------------------------------

# need_tracefs: skip unless root with tracefs and uprobe events (mounting
# tracefs when it is not yet mounted).
need_tracefs() {
    tier_needs tracer tracefs || return
    [ "$(id -u)" -eq 0 ] || refused "not root: uprobes need root"
    if [ ! -e "$TRACEFS/uprobe_events" ]; then
        mount -t tracefs nodev "$TRACEFS" 2>/dev/null ||
            refused "tracefs is not mounted at $TRACEFS and cannot be mounted"
    fi
    [ -e "$TRACEFS/uprobe_events" ] ||
        refused "the kernel has no uprobe events ($TRACEFS/uprobe_events)"
}

# need_bpftrace: skip unless bpftrace is installed and can load a program.
need_bpftrace() {
    need_tracefs
    need_cmd bpftrace timeout
    timeout "$HANG_SECONDS" bpftrace -e 'BEGIN { exit(); }' >/dev/null 2>&1 ||
        refused "bpftrace cannot load BPF programs on this kernel"
}

# bpftrace_run SCRIPT CMD: run CMD under bpftrace (-c), with a timeout;
# stdout (program and bpftrace) on stdout, bpftrace's stderr dropped except
# real errors.
bpftrace_run() {
    local rc=0
    timeout "$HANG_SECONDS" bpftrace -e "$1" -c "$2" 2> "$BATS_TEST_TMPDIR/bpftrace.err" || rc=$?
    grep -v RLIMIT_MEMLOCK "$BATS_TEST_TMPDIR/bpftrace.err" >&2 || true
    return $rc
}

# bpftrace_bg OUT SCRIPT [ARGS...]: start bpftrace on SCRIPT in the
# background (pid in $BG_PID, output in OUT) and wait until its probes are
# attached (BEGIN fires after all the others are).  Needed for probes in
# shared libraries: bpftrace 0.17 cannot find them with -c, before the
# program has mapped the library ("Error finding location for probe").
# (No timeout(1) around bpftrace: see bg.)
bpftrace_bg() {
    local out=$1 script=$2
    shift 2
    bg "$out" bpftrace "$@" -e "BEGIN { printf(\"BT ready\\n\"); } $script"
    wait_for "$out" '^BT ready'
}

# file_offset BIN VADDR: the file offset of virtual address VADDR (hex or
# decimal), from the PT_LOAD segment whose file image contains it.
file_offset() {
    local a=$(( $2 )) type off va pa filesz rest
    while read -r type off va pa filesz rest; do
        [ "$type" = LOAD ] || continue
        if (( a >= va && a < va + filesz )); then
            printf '0x%x\n' $(( a - va + off ))
            return 0
        fi
    done < <(readelf -lW "$1")
    echo "$1: no PT_LOAD segment holds address $2" >&2
    return 1
}

# uprobe_add SPEC: append SPEC ("p:GROUP/EVENT ...") to uprobe_events and
# remember GROUP/EVENT for cleanup_tracers.
UPROBE_EVENTS=()
uprobe_add() {
    echo "$1" >> "$TRACEFS/uprobe_events" || return 1
    local ev=${1%% *}
    UPROBE_EVENTS+=("${ev#p:}")
}

# trace_instance: make a private tracefs instance (its own ring buffer),
# removed by cleanup_tracers; its directory is in $INST.
TRACE_INSTANCES=()
trace_instance() {
    INST="$TRACEFS/instances/sdtkit_$$_${BATS_TEST_NUMBER}_${#TRACE_INSTANCES[@]}"
    mkdir "$INST" || return 1
    TRACE_INSTANCES+=("$INST")
}

# ---- libbpf --------------------------------------------------------------

# build_loader [DIR]: LOADER and BPFOBJ, tests/libbpf's loader and BPF
# program, built in DIR (the test's directory by default), when the kernel
# takes the program.
build_loader() {
    local d=${1:-$BATS_TEST_TMPDIR}
    need_cmd clang gcc || return
    [ -f /usr/include/bpf/usdt.bpf.h ] && [ -f /usr/include/bpf/libbpf.h ] ||
        { missing "libbpf's headers are not installed (.ci/run installs libbpf-dev)"; return; }
    LOADER=$d/usdt-loader BPFOBJ=$d/usdt-args.bpf.o
    clang -target bpf -O2 -g -D__TARGET_ARCH_x86 -I "/usr/include/$(gcc -print-multiarch)" \
        -Wall -Werror -c "$ROOT/tests/libbpf/usdt-args.bpf.c" -o "$BPFOBJ" &&
        gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wpedantic -Werror "$ROOT/tests/libbpf/usdt-loader.c" \
            -lbpf -o "$LOADER" || return
    timeout "$HANG_SECONDS" "$LOADER" "$BPFOBJ" /bin/true x:y -- true >"$d/loads" 2>&1 || true
    grep -q 'attach x:y' "$d/loads" || refused "libbpf cannot load BPF programs here: $(cat "$d/loads")"
}

# perf_lock: serialise with other runs of tests that make perf events
# (perf probe names them sdt_PROVIDER:NAME for the whole machine, so
# another checkout's run may make the same); skip unless root with uprobe
# events.  The lock is held until the test ends.
PERF_LOCK=/tmp/sdtkit-perf-tests.lock
perf_lock() {
    need_tracefs
    exec 9> "$PERF_LOCK"
    flock -w "$HANG_SECONDS" 9 || { echo "another run holds $PERF_LOCK for $HANG_SECONDS s"; false; }
}

# ---- Cleanup ----------------------------------------------------------

# cleanup_tracers: kill the background programs, disable and remove the
# uprobe events and tracefs instances this test created.  Call from
# teardown.
cleanup_tracers() {
    local pid ev d
    for pid in "${BG_PIDS[@]}"; do
        if kill -TERM "$pid" 2>/dev/null; then
            sleep 0.1
            kill -KILL "$pid" 2>/dev/null || true
        fi
        wait "$pid" 2>/dev/null || true
    done
    BG_PIDS=()
    for ev in "${UPROBE_EVENTS[@]}"; do
        for d in "${TRACE_INSTANCES[@]}" "$TRACEFS"; do
            if [ -e "$d/events/$ev/enable" ]; then echo 0 > "$d/events/$ev/enable" || true; fi
        done
        if grep -q "^[pr]:$ev " "$TRACEFS/uprobe_events"; then
            echo "-:$ev" >> "$TRACEFS/uprobe_events" || echo "# could not remove uprobe event $ev" >&3
        fi
    done
    UPROBE_EVENTS=()
    for d in "${TRACE_INSTANCES[@]}"; do
        rmdir "$d" 2>/dev/null || echo "# could not remove tracefs instance $d" >&3
    done
    TRACE_INSTANCES=()
    return 0
}

# ---- Variants of the tick example ----------------------------------------

# build_tick OUT VARIANT [CC [EXTRA FLAGS...]]: tick from the examples built
# in $EX (its tick.h is there), compiled and linked as VARIANT: pie,
# no-pie, static or static-pie, with CC (default gcc) and EXTRA FLAGS (for
# both steps: -fuse-ld=..., -O0 ...).  dtrace -G runs on the new object.
build_tick() {
    local out=$1 variant=$2 cc=${3:-gcc} cflags ldflags
    shift 2
    [ $# -gt 0 ] && shift
    case $variant in
        pie) cflags=-fPIE; ldflags=-pie ;;
        no-pie) cflags=-fno-pie; ldflags=-no-pie ;;
        static) cflags=-fno-pie; ldflags="-static" ;;
        static-pie) cflags=-fPIE; ldflags=-static-pie ;;
        *) echo "build_tick: unknown variant $variant"; return 1 ;;
    esac
    "$cc" -O2 -g $cflags "$@" -I "$INCLUDE" -c "$EX/tick/tick.c" -o "$out.o" &&
    "$DTRACE" -G -s "$EX/tick/tick.d" -o "$out-probes.o" "$out.o" &&
    "$cc" -O2 -g $ldflags "$@" "$out.o" "$out-probes.o" -o "$out"
}

# ---- gdb -----------------------------------------------------------------

# note_sites FILE: "provider:name location semaphore" per note, sorted.
note_sites() {
    readelf -n "$1" | awk '
        /^ *Provider:/ { p = $2 }
        /^ *Name:/     { n = $2 }
        /Location:/    { l = $2; sub(/,$/, "", l); print p ":" n, l, $NF }' | sort
}

# gdb_runs DIR PROBE... <JOBS: programs run one after the other in one gdb
# session (its start, Python's, is most of what gdb costs a short run),
# each stopping at every PROBE it has (GDB_PROBE_CLASS of
# tests/gdb-probe-args.py, ProbeArgs by default: "name hit", then "name
# argN VALUE" a stop).  A line of JOBS is "NAME RUNNER FILE PROGRAM ARGS...":
# RUNNER "-" runs PROGRAM under gdb (ARGS may redirect its output), else
# under that qemu-user, stopped in its gdb stub, for gdb-multiarch (a
# session's programs run all natively or all under qemu-user).
# DIR/NAME.hits: NAME's stops; DIR/NAME.sites, when FILE is not "-":
# FILE's probes as `info probes' lists them, as note_sites' lines.
gdb_runs() {
    local dir=$1 py=$1/.probes.py gdb=gdb name runner file prog args p pids=() sites=() runs=()
    shift
    cp "$ROOT/tests/gdb-probe-args.py" "$py"
    for p in "$@"; do echo "${GDB_PROBE_CLASS:-ProbeArgs}('-probe-stap $p')" >>"$py"; done
    while read -r name runner file prog args; do
        [ "$file" = - ] || sites+=(-ex "echo @@ $name.sites\\n" -ex "file $file" -ex 'info probes')
        if [ "$runner" = - ]; then
            runs+=(-ex "echo @@ $name.hits\\n" -ex "file $prog" -ex "set args $args" -ex run)
            continue
        fi
        gdb=gdb-multiarch
        qemu_gdb_start "$runner" "$prog" $args </dev/null || return
        pids+=("$QEMU_PID")
        # (no file while connecting: the programs may be of several targets)
        runs+=(-ex "echo @@ $name.hits\\n" -ex file -ex "target remote :$QEMU_PORT" -ex "file $prog" -ex continue)
    done
    timeout "$HANG_SECONDS" "$gdb" -batch -nx "${GDB_LEAN[@]}" -ex 'set pagination off' -ex "source $py" \
        "${sites[@]}" "${runs[@]}" 2>&1 |
        awk -v d="$dir" '/^@@ / { if (out != "") close(out); out = d "/" $2; printf "" >out; next }
            out ~ /\.sites$/ && $1 == "stap" { print $2 ":" $3, $4, (NF >= 6 ? $5 : "0x0000000000000000") >out }
            out ~ /\.hits$/ && /^[A-Za-z_0-9]+ (hit|arg(c|[0-9]+) )/ { print >out }'
    [ ${#pids[@]} -eq 0 ] || qemu_reap "${pids[@]}" || true
}

# libbpf BINARY PROBE... -- CMD...: the loader, stderr kept apart in err.
libbpf() {
    timeout "$HANG_SECONDS" "$LOADER" "$BPFOBJ" "$@" 2> err
}

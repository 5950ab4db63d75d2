# SPDX-License-Identifier: MIT
# What the suites that run programs and tracers load, after helpers: the
# provider examples, background programs, tracefs, bpftrace and libbpf,
# and cleaning up after them (cleanup_tracers, in teardown).

TRACEFS=/sys/kernel/tracing
# teardown: cleanup_tracers (a suite's own teardown calls it).
teardown() { cleanup_tracers; }
# The provider examples, as make check builds them: a test changes a copy.
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

# bg OUT CMD...: CMD in the background, stdout and stderr to OUT, its pid
# in $BG_PID, killed by cleanup_tracers.  Never timeout(1) when the test
# signals it (stop): coreutils 9.1's, signalled as its child ends, can miss
# the SIGCHLD and sit out its whole duration; stop is bounded instead.
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

# proc_state PID: the states, threads' wait channels, kernel stacks and
# gdb backtraces of PID and its children (for a failure's report).
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

# stop PID [SIGNAL]: send SIGNAL (default TERM), again each second (bpftrace
# 0.17 loses one that does not break its epoll_wait), until PID ends; fail
# after HANG_SECONDS.
stop() {
    local pid=$1 sig=${2:-TERM} end=$((SECONDS + HANG_SECONDS)) again=$SECONDS
    while kill -0 "$pid" 2>/dev/null; do
        [ "$SECONDS" -lt "$end" ] || { echo "pid $pid did not stop on SIG$sig"; proc_state "$pid"; return 1; }
        [ "$SECONDS" -lt "$again" ] || { kill -"$sig" "$pid" 2>/dev/null || true; again=$((SECONDS + 1)); }
        sleep 0.05
    done
    wait "$pid" 2>/dev/null || true
}

# ---- Kernel tracing ------------------------------------------------------

# need_tracefs: skip unless root with tracefs (mounted if need be) and uprobes.
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

# bpftrace_run SCRIPT CMD: CMD under bpftrace -c, with a timeout; of
# bpftrace's stderr, real errors only.
bpftrace_run() {
    local rc=0
    timeout "$HANG_SECONDS" bpftrace -e "$1" -c "$2" 2> "$BATS_TEST_TMPDIR/bpftrace.err" || rc=$?
    grep -v RLIMIT_MEMLOCK "$BATS_TEST_TMPDIR/bpftrace.err" >&2 || true
    return $rc
}

# bpftrace_bg OUT SCRIPT [ARGS...]: bpftrace on SCRIPT in the background
# (bg), waited for until its probes are attached (BEGIN fires after them):
# for probes in shared libraries, which bpftrace 0.17's -c cannot find.
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
# program, built in DIR (default: the test's), when the kernel takes it.
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

# perf_lock: hold, until the test ends, the lock of tests that make perf
# events (named sdt_PROVIDER:NAME machine-wide); need_tracefs.
PERF_LOCK=/tmp/sdtkit-perf-tests.lock
perf_lock() {
    need_tracefs
    exec 9> "$PERF_LOCK"
    flock -w "$HANG_SECONDS" 9 || { echo "another run holds $PERF_LOCK for $HANG_SECONDS s"; false; }
}

# ---- Cleanup ----------------------------------------------------------

# cleanup_tracers: kill the background programs, disable and remove the
# uprobe events and tracefs instances this test made (in teardown).
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
            [ ! -e "$d/events/$ev/enable" ] || echo 0 > "$d/events/$ev/enable" || true
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

# build_tick OUT VARIANT [CC [FLAGS...]]: $EX's tick built as VARIANT (pie,
# no-pie, static, static-pie) with CC (gcc) and FLAGS in both steps.
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

# libbpf BINARY PROBE... -- CMD...: the loader, stderr kept apart in err.
libbpf() { timeout "$HANG_SECONDS" "$LOADER" "$BPFOBJ" "$@" 2> err; }

# SPDX-License-Identifier: MIT
# What every suite loads (`load helpers`): the programs under test, what a
# test needs, the architectures, reading notes, gdb and qemu-user.
# tests/README.md says how the suites use them.

# Where a test failed.  bats' DEBUG trap records the stack before every
# command (a tenth of a run's CPU) for bash before 5's wrong ERR line
# numbers.  With bash 5 it removes itself at its first run, and the ERR
# trap records the failed command's stack (not in teardown, which runs as
# a condition).  `bats --trace` keeps bats' trap.
if [ "${BASH_VERSINFO[0]}" -ge 5 ] && [ "${BATS_TRACE_LEVEL:-0}" -eq 0 ]; then
    bats_debug_trap() {
        # (not while bats sets its traps, nor in `load`, after which bash restores ERR)
        case " ${FUNCNAME[*]} " in *" bats_setup_tracing "* | *" source "*) return 0 ;; esac
        trap - DEBUG
        trap sdtkit_error_trap ERR
    }
    sdtkit_status() { return "$1"; }
    sdtkit_error_trap() {
        local status=$?
        bats_capture_stack_trace
        sdtkit_status "$status" || bats_error_trap
    }
fi

ROOT=$(cd "${BASH_SOURCE[0]%/*}/.." && pwd)
INCLUDE=$ROOT/include
# Every test starts in a directory of its own.
[ -z "${BATS_TEST_TMPDIR:-}" ] || cd "$BATS_TEST_TMPDIR"
# The programs and run-time libraries under test: the pass's (tests/run),
# else the normal build's (variants.table's first row).
if [ -z "${SDTKIT_DTRACE:-}" ]; then
    read -r SDTKIT_RUNTIME_LIBDIR SDTKIT_DTRACE < <(awk -F '  +' -v r="$ROOT" \
        '!/^#/ && NF && h++ { print r "/" $2, r "/" $3; exit }' "$ROOT/variants.table")
    SDTKIT_SDT_LIST=$SDTKIT_DTRACE/sdt-list SDTKIT_DTRACE+=/dtrace
fi
DTRACE=$SDTKIT_DTRACE SDT_LIST=$SDTKIT_SDT_LIST
# Real provider files from other projects, used as external data.
CORPUS=${SDTKIT_CORPUS:-$ROOT/../shared/corpus/d}
# SystemTap's header, for side-by-side checks (Debian installs it multiarch).
STAP_INCLUDE_DIR=
for d in /usr/include/x86_64-linux-gnu /usr/include; do
    [ -f "$d/sys/sdt.h" ] && [ "$d/sys/sdt.h" != "$INCLUDE/sys/sdt.h" ] && { STAP_INCLUDE_DIR=$d; break; }
done
# Waits are on events, never a window of time; HANG_SECONDS bounds each wait
# and each `timeout` around a tracer, gdb or qemu only so that a hang fails.
HANG_SECONDS=${SDTKIT_HANG_SECONDS:-300}
# Debian's python3, not a version manager's slower shim; PYTHON3 for env or exec.
PYTHON3=python3
if [ -x /usr/bin/python3 ]; then
    PYTHON3=/usr/bin/python3
    python3() { /usr/bin/python3 "$@"; }
fi

# ---- What a test needs (tests/README.md, 2) ------------------------------

# missing MESSAGE: fail under CI, skip elsewhere.
missing() {
    [ "${CI:-}" != true ] || { echo "missing under CI: $1" >&2; return 1; }
    skip "$1"
}

# refused MESSAGE: skip, under CI too, saying what the machine refuses.
refused() { skip "the machine refuses: $1"; }

# package_of CMD: the Debian package .ci/run installs CMD from.
package_of() {
    local p
    case $1 in
        x86_64-linux-gnu-gcc) echo gcc ;; x86_64-linux-gnu-g++) echo g++ ;;
        *-linux-gnu*-gcc) p=${1%-gcc} && echo "gcc-${p//_/-}" ;;
        *-linux-gnu*-g++) p=${1%-g++} && echo "g++-${p//_/-}" ;;
        clang | clang++) echo clang ;; ld.lld) echo lld ;; ld.gold) echo binutils ;;
        perf) echo linux-perf ;; ninja) echo ninja-build ;; pkg-config) echo pkgconf ;;
        dpkg-buildpackage) echo dpkg-dev ;; dh) echo debhelper ;; apt-get) echo apt ;; rpmbuild) echo rpm ;;
        qemu-*) echo qemu-user ;; setpriv | flock | unshare) echo util-linux ;;
        timeout) echo coreutils ;; tplist-bpfcc | trace-bpfcc) echo bpfcc-tools ;;
        go) echo golang-go ;; ruby) echo ruby-dev ;;
        lttng | lttng-sessiond) echo lttng-tools ;; lttng-gen-tp) echo liblttng-ust-dev ;;
        node) echo "nodejs (NodeSource's, in the machine image: it ships /usr/include/node)" ;;
        *) echo "$1" ;;
    esac
}

# tier_needs TAG WHAT: the test needs WHAT, which only tests tagged TAG may.
tier_needs() {
    [ "${SDTKIT_TIER:-}" = fast ] || return 0
    echo "this test needs $2, but is in the fast tier: tag it $1 (# bats test_tags=$1; tests/README.md)" >&2
    return 1
}

# need_cmd CMD...: every CMD is on PATH, or the test is missing its package.
need_cmd() {
    local c tag
    for c in "$@"; do
        case $c in
            x86_64-linux-gnu-*) tag= ;;
            qemu-* | gdb-multiarch | *-linux-gnu*-gcc | *-linux-gnu*-g++) tag=cross ;;
            gdb | bpftrace | perf | trace-bpfcc | tplist-bpfcc | lttng | lttng-sessiond | babeltrace2 | lttng-gen-tp)
                tag=tracer ;;
            dpkg-buildpackage | rpmbuild | lintian | rpmlint) tag=release ;;
            *) tag= ;;
        esac
        [ -z "$tag" ] || tier_needs "$tag" "$c" || return
        command -v "$c" >/dev/null 2>&1 ||
            missing "$c is not installed (.ci/run installs it from package $(package_of "$c"))"
    done
}

# need_gdb_python GDB: GDB (gdb, gdb-multiarch) is installed, with Python
# (the suites' probe readers are Python): it links libpython.
need_gdb_python() {
    need_cmd "$1" timeout || return
    readelf -d "$(command -v "$1")" 2>/dev/null | grep -q 'NEEDED.*libpython' ||
        missing "$1 has no Python"
}

# need_corpus: ../shared/corpus beside the checkout (not in the release
# tarball: make distcheck passes the checkout's on as SDTKIT_CORPUS).
need_corpus() {
    [ -d "$CORPUS" ] ||
        missing "no provider corpus at $CORPUS (../shared beside the checkout, or SDTKIT_CORPUS=DIR)"
}

# need_stap_header, need_stap_dtrace: SystemTap's sys/sdt.h, its dtrace.
need_stap_header() {
    [ -n "$STAP_INCLUDE_DIR" ] ||
        missing "SystemTap's sys/sdt.h is not installed (.ci/run installs systemtap-sdt-dev)"
}
need_stap_dtrace() {
    [ -x /usr/bin/dtrace ] && head -1 /usr/bin/dtrace | grep -q python ||
        missing "SystemTap's dtrace script is not installed (.ci/run installs systemtap-sdt-dev)"
}

# ---- The architectures: tests/arches.table ------------------------------
# ALL_ARCHES: every row's name; ARCHES: those marked main;
# ARCH_TABLE["ARCH COLUMN"]: every cell, by the column's name and number.
ARCH_TABLE_FILE=${BASH_SOURCE[0]%/*}/arches.table
declare -gA ARCH_TABLE
eval "$(awk -F '  +' '
    function q(s) { gsub(/\047/, "\047\\\047\047", s); return "\047" s "\047" }
    /^#/ || !NF { next }
    !head++ { for (i = 1; i <= NF; i++) { name[i] = $i; if ($i == "main") m = i }; next }
    { all = all " " $1; if ($m == "yes") main = main " " $1
      for (i = 1; i <= NF; i++) printf "ARCH_TABLE[%s]=%s\nARCH_TABLE[%s]=%s\n", q($1 " " i), q($i), q($1 " " name[i]), q($i) }
    END { print "ALL_ARCHES=" q(substr(all, 2)); print "ARCHES=" q(substr(main, 2)) }' "$ARCH_TABLE_FILE")"

# arch_field ARCH COLUMN: ARCH's cell of COLUMN (triplet, libc, qemu, run,
# gdb, class, machine ..., or 2 triplet, 3 C library, 4 qemu).
arch_field() {
    [ -n "${ARCH_TABLE["$1 $2"]+set}" ] || { echo "arch_field: no $2 for $1 in $ARCH_TABLE_FILE" >&2; return 1; }
    printf '%s\n' "${ARCH_TABLE["$1 $2"]}"
}
arch_triple() { arch_field "$1" 2; }
# arch_gcc ARCH, arch_gxx ARCH, arch_tool ARCH TOOL: its compilers, its tools.
arch_gcc() { arch_tool "$1" gcc; }
arch_gxx() { arch_tool "$1" g++; }
arch_tool() {
    local t=
    [ "$1" = x86_64 ] || t=$(arch_triple "$1") || return
    echo "${t:+$t-}$2"
}

# need_arch ARCH: ARCH's cross compiler and its C library are installed.
need_arch() {
    local gcc libc
    gcc=$(arch_gcc "$1") || return
    need_cmd "$gcc" || return
    [ "$1" = x86_64 ] || tier_needs cross "$gcc" || return
    libc=$("$gcc" -print-file-name=libc.a 2>/dev/null)
    [ -f "$libc" ] ||
        missing "$gcc has no C library: libc.a not found (.ci/run installs $(arch_field "$1" 3))"
}

# make_srcs NAME: SRCS, the sources the Makefile's variable NAME lists
# (the run-time library's: RT_CORE_SRCS, RT_NATIVE_SRCS, RT_COMPAT_SRCS),
# as paths; 1 when it lists none.
make_srcs() {
    local v
    v=$(make -s -C "$ROOT" --no-print-directory --eval 'sdtkit-var-%: ; @echo $($*)' "sdtkit-var-$1")
    read -ra SRCS <<<"$v"
    SRCS=("${SRCS[@]/#/$ROOT/}")
    [ ${#SRCS[@]} -gt 0 ]
}

# stap_include: a directory holding only SystemTap's sys/sdt.h, for cross
# compilers too (Debian installs it under the x86-64 multiarch path).
stap_include() {
    local d=${BATS_TEST_TMPDIR:-$BATS_FILE_TMPDIR}/stapinc
    mkdir -p "$d/sys" && cp "$STAP_INCLUDE_DIR/sys/sdt.h" "$STAP_INCLUDE_DIR/sys/sdt-config.h" "$d/sys/"
    echo "$d"
}

# ---- Running things ------------------------------------------------------

# fresh CMD...: CMD without the outer bats' variables and libexec on PATH,
# nor the outer run's tier, passes, jobs and programs under test.
fresh() {
    local unset=() v path
    for v in $(compgen -v BATS_) SDTKIT_TIER SDTKIT_PASSES SDTKIT_CHECK_JOBS SDTKIT_CHECK_SERIAL \
        SDTKIT_DTRACE SDTKIT_SDT_LIST SDTKIT_RUNTIME_LIBDIR SDTKIT_RUNTIME_CFLAGS; do unset+=(-u "$v"); done
    path=$(tr : '\n' <<<"$PATH" | grep -v /libexec/bats-core | paste -sd:)
    env "${unset[@]}" PATH="$path" "$@"
}

# project_files: the project's files, one a line: the tracked ones in a git
# checkout, the list an unpacked release tarball carries (MANIFEST) there.
project_files() {
    if [ -e "$ROOT/.git" ] && command -v git >/dev/null; then
        git -C "$ROOT" ls-files
    elif [ -f "$ROOT/MANIFEST" ]; then
        cat "$ROOT/MANIFEST"
    else
        (cd "$ROOT" && find . -path ./build -prune -o -type f -print | sed 's|^\./||')
    fi
}

# dist_tarball DIR: make dist's tarball of this tree, in DIR.
dist_tarball() { make -s -C "$ROOT" dist DIST_DIR="$1"; }

# cpu_ms VAR: VAR = the user plus system CPU time, in ms, of every child
# this shell has waited for (not in a $(...), which has none yet).
cpu_ms() {
    times >"$BATS_TEST_TMPDIR/.times"
    printf -v "$1" '%s' "$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/)
        n += t[1] * 60000 + t[2] * 1000 }; printf "%d\n", n }' "$BATS_TEST_TMPDIR/.times")"
}

# repeat N FORMAT: FORMAT N times, by awk's printf (a %d is the count, 1 to N).
repeat() {
    awk -v n="$1" -v f="$2" 'BEGIN { for (i = 1; i <= n; i++) printf f, i }'
}

# ---- Reading .note.stapsdt notes (binutils' readelf) ----------------------

# NOTE_AWK: awk rules reading readelf -n: each note's "provider:name" and
# argument string go to the caller's note(PROBE, ARGS).
NOTE_AWK='
    /^ *Provider: / { sub(/^ *Provider: /, ""); p = $0 }
    /^ *Name: /     { sub(/^ *Name: /, ""); n = $0 }
    /^ *Arguments:/ { sub(/^ *Arguments: ?/, ""); note(p ":" n, $0) }'
# SIZES_AWK: an awk function, sizes(ARGS): the SIZE of each SIZE@OPERAND.
SIZES_AWK='function sizes(args,   a, n, i, out) {
    n = split(args, a, " ")
    for (i = 1; i <= n; i++)
        if (match(a[i], /^-?[0-9]+f?@/)) out = out (out == "" ? "" : " ") substr(a[i], 1, RLENGTH - 1)
    return out
}'

# note_probes FILE: one line per probe, "provider:name<TAB>arguments".
note_probes() {
    readelf -n "$1" | awk 'function note(probe, args) { print probe "\t" args }'"$NOTE_AWK"
}

# note_args FILE PROBE: the argument string of provider:name PROBE.
note_args() {
    note_probes "$1" | awk -F '\t' -v p="$2" '$1 == p { print $2; exit }'
}

# arg_sizes ARGSTRING: the SIZE of each SIZE@OPERAND, space separated.
arg_sizes() {
    awk "$SIZES_AWK"' { all = all " " $0 } END { print sizes(all) }' <<<"$1"
}

# note_sizes FILE: one line per probe, "provider:name SIZES".
note_sizes() {
    note_probes "$1" | awk -F '\t' "$SIZES_AWK"' { print $1 " " sizes($2) }'
}

# notes_of FILE...: beside each FILE, FILE.notes (note_probes' lines) and
# FILE.sizes ("provider:name SIZES" a probe); one readelf, one awk for all.
notes_of() {
    readelf -n "$@" | awk -v first="$1" "$SIZES_AWK"'
        function note(probe, args) {
            print probe "\t" args > (f ".notes")
            sub(/\t.*/, "", args); print probe " " sizes(args) > (f ".sizes")
        }
        function start(file) {
            if (f != "") { close(f ".notes"); close(f ".sizes") }
            f = file; printf "" > (f ".notes"); printf "" > (f ".sizes")
        }
        BEGIN { start(first) }
        /^File: / { if (substr($0, 7) != f) start(substr($0, 7)); next }'"$NOTE_AWK"
}

# note_field FILE PROBE FIELD: Location, Base or Semaphore of a probe (hex).
note_field() {
    readelf -n "$1" | awk -v want="$2" -v f="$3" 'function note(probe, args) {}
        /Location: / && p ":" n == want {
            for (i = 1; i <= NF; i++) if ($i == f ":") { v = $(i + 1); sub(/,$/, "", v); print v; exit } }'"$NOTE_AWK"
}

# ---- gdb and qemu-user -------------------------------------------------

# GDB_LEAN: no separate debug information (libc6-dbg), which gdb indexed.
GDB_LEAN=(-ex 'set debug-file-directory')

# note_sites FILE: "provider:name location semaphore" per note, sorted.
note_sites() {
    readelf -n "$1" | awk 'function note(probe, args) {}
        /Location:/ { l = $2; sub(/,$/, "", l); print p ":" n, l, $NF }'"$NOTE_AWK" | sort
}

# gdb_runs DIR PROBE... <JOBS: programs run in turn in one gdb session,
# each stopping at every PROBE it has (GDB_PROBE_CLASS of
# tests/gdb-probe-args.py, ProbeArgs by default: "name hit", "name argN
# VALUE").  A JOBS line, "NAME RUNNER FILE PROGRAM ARGS...": RUNNER "-" runs
# PROGRAM under gdb (ARGS may redirect), else under that qemu-user, for
# gdb-multiarch (not both in a session).  DIR/NAME.hits: its stops;
# DIR/NAME.sites, unless FILE is "-": FILE's `info probes', as note_sites.
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

# qemu_gdb_start QEMU PROGRAM ARGS...: PROGRAM under QEMU, stopped in its
# gdb stub; sets QEMU_PID and QEMU_PORT.  Tries ports below the ephemeral
# range that nothing listens on (QEMU_GDB_PORTS first), the next when qemu
# finds one taken, until qemu itself listens.
qemu_gdb_start() {
    local qemu=$1 log port try end tries=()
    shift
    tier_needs cross "$qemu" || return
    log=$(mktemp "${BATS_TEST_TMPDIR:-/tmp}/qemu-gdb.XXXXXX")
    read -r -a tries <<<"${QEMU_GDB_PORTS:-}"
    for ((try = 0; try < 20; try++)); do tries+=($((10000 + (RANDOM * 32768 + RANDOM) % 22000))); done
    for port in "${tries[@]}"; do
        [ -z "$(listen_inodes "$port")" ] || continue
        "$qemu" -g "$port" "$@" 2>"$log" &
        QEMU_PID=$! end=$((SECONDS + HANG_SECONDS))
        while [ "$SECONDS" -lt "$end" ]; do
            sleep 0.025 # (qemu loads the program first; a look costs 8 ms)
            pid_listens "$QEMU_PID" "$port" && { QEMU_PORT=$port; return 0; }
            kill -0 "$QEMU_PID" 2>/dev/null || break
        done
        kill "$QEMU_PID" 2>/dev/null || true
        wait "$QEMU_PID" 2>/dev/null || true
        grep -q 'could not open gdbserver' "$log" || break
        echo "qemu_gdb_start: port $port is taken; trying another" >&2
    done
    echo "qemu_gdb_start: $qemu did not open its gdb stub:" >&2
    cat "$log" >&2
    return 1
}

# listen_inodes PORT: inodes of the TCP sockets listening on PORT.
listen_inodes() {
    local p
    printf -v p ':%04X' "$1"
    awk -v p="$p" 'substr($2, length($2) - 4) == p && $4 == "0A" { print $10 }' \
        /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# pid_listens PID PORT: process PID holds a socket listening on PORT.
pid_listens() {
    local ino
    for ino in $(listen_inodes "$2"); do
        find "/proc/$1/fd" -lname "socket:\[$ino\]" 2>/dev/null | grep -q . && return 0
    done
    return 1
}

# qemu_reap PID...: wait for each qemu of qemu_gdb_start (a child of this
# shell), killing those there after HANG_SECONDS (SIGKILL: one whose gdb
# never connected ignores SIGTERM); fails naming them, else the last's status.
qemu_reap() {
    local p st=0 dog killed=()
    # the watchdog, its trap set before its sleep: a kill never leaves a sleep
    (
        s=
        trap '[ -z "$s" ] || kill "$s"; exit 0' TERM
        exec >/dev/null 2>&1 3>&-
        sleep "$HANG_SECONDS" & s=$!
        wait "$s"
        kill -KILL "$@"
    ) &
    dog=$!
    for p in "$@"; do
        st=0
        wait "$p" || st=$?
        [ "$st" -ne 137 ] || killed+=("$p")
    done
    kill "$dog" 2>/dev/null
    wait "$dog" || true
    [ ${#killed[@]} -eq 0 ] ||
        { echo "qemu_reap: qemu still running after $HANG_SECONDS s, killed: ${killed[*]}" >&2; return 1; }
    return "$st"
}

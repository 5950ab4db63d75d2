#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The run-time libraries as the bindings written for libstapsdt use them:
# a Go program through cgo, a Ruby C extension, an N-API addon and Python's
# ctypes (tests/bindings/, each as the real ones for libstapsdt are written),
# built against the installed libstapsdt.so.0 and libsdtkit.so.1.  What they
# read of the structures, the names and return codes they rely on, error
# paths, bpftrace -p on their processes, reload loops, pre-fork workers and
# handles kept too long.  The drivers and their commands are below.

# bats file_tags=tracer

load helpers
load tracers-helpers

# A variant (python-compat, go-native ...) is a driver program in that
# language, on that binding: it prints "ready PID", then reads commands on
# stdin and prints one reply line for each; at the end of its input it exits
# as a program in that language does, finalisers and all.  Names are words;
# '' is the empty name; a value that is a number is passed as one, any other
# word as a string.
#
#   provider P            providerInit / sdtkit_provider_create
#     compat: provider <NAME> errno E error <S>|NULL filename <F>|NULL
#             (the members, read back; "provider NULL" when it returned NULL)
#     native: provider <P> 0 | provider <P> SDTKIT_E_...
#   probe P N TYPE...     add probe N to P (int8 ... uint64, string)
#     compat: probe <NAME> argCount C fire NULL|XX | probe NULL errno E error <S>
#     native: probe <NAME> nargs C | probe SDTKIT_E_... <message>
#   load P, unload P      as the binding does it (Ruby: enable, and disable
#                         after clearing _filename; Node: enable and disable,
#                         which throw)
#     compat: load 0 | load -1 errno E error <S>; native: load 0 | load SDTKIT_E_... <message>
#   destroy P             providerDestroy / sdtkit_provider_destroy; the
#                         binding keeps its probe objects: "destroy"
#   path P                path F|NULL (_filename / sdtkit_provider_path)
#   state N               compat: state <N> argCount C fire NULL|XX enabled 0|1
#                         (XX: _fire's first byte, in hex); native: state <N> nargs C enabled 0|1
#   fire N VALUE...       the binding's fire: fire <N> 1|0 (whether a tracer
#                         was attached; bindings fire only then, Ruby's always)
#   wait N                until the binding sees N enabled: wait <N> enabled|timeout
#   serve N VALUE...      fire N every millisecond while it is enabled (until
#                         a tracer that exits on its first event has gone):
#                         serve <N> COUNT|timeout
#   toggle P COUNT        COUNT unload+load cycles: toggle COUNT failed F
#                         fds A B maps A B rss A B (before and after; rss in kB)
#   fork N VALUE...       a worker (Python, Ruby: fork(2); Go: fork(2) in C;
#                         Node: a new process, as its cluster) that waits
#                         until traced, serves N and exits: worker PID
#   reap                  reaped STATUS, the worker's exit status
#
# Every driver gives the same replies to the same commands (on the same
# API): tests/bindings/cases/*.case hold transcripts ("> " lines are the
# commands, the others glob patterns of the replies; PID is the driver's),
# and the tests that need tracers or processes drive them command by command.

BIND_SRC=$ROOT/tests/bindings
BINDINGS="python ruby node go"

# ---- What the bindings need ----------------------------------------------

# need_bindings: the four languages and their headers (.ci/run installs
# golang-go, ruby-dev and python3; nodejs 20 comes with the machine image).
need_bindings() {
    need_cmd cc make python3 ruby go node
    [ -f "$(ruby --disable-gems -rrbconfig -e 'print RbConfig::CONFIG["rubyhdrdir"]')/ruby.h" ] ||
        { missing "Ruby's headers are not installed (.ci/run installs ruby-dev)"; return; }
    [ -f /usr/include/node/node_api.h ] ||
        missing "node_api.h is not in /usr/include/node (NodeSource's nodejs ships it, as libnode-dev does)"
}

# ---- Building them, once per suite ------------------------------------------

# bind_build DIR: install both libraries into DIR/prefix, as a user would
# (make install PREFIX=...), and build every binding against that install
# into DIR.  A variant that does not build leaves DIR/VARIANT.log and no
# DIR/VARIANT.ok; the tests then report it.  The builds run side by side,
# but for Go's two, one after the other: the second takes from the first's
# build cache what they share (runtime/cgo, built for their CGO_CFLAGS),
# which side by side both built.
bind_build() {
    local d=$1 p=$1/prefix
    mkdir -p "$d/ruby/compat" "$d/ruby/native" "$d/node"
    make -s -C "$ROOT" install PREFIX="$p" > "$d/install.log" 2>&1 || {
        cat "$d/install.log"
        return 1
    }
    touch "$d/python-compat.ok" "$d/python-native.ok"
    {
        bind_build_one "$d" go-compat bind_go "$p" "$d" compat stapsdt.go
        bind_build_one "$d" go-native bind_go "$p" "$d" native sdtkit.go
    } &
    bind_build_one "$d" ruby-compat sh -c "cd '$d/ruby/compat' &&
        ruby '$BIND_SRC/ruby/stapsdt/extconf.rb' --with-stapsdt-dir='$p' && make V=1" &
    bind_build_one "$d" ruby-native sh -c "cd '$d/ruby/native' &&
        ruby '$BIND_SRC/ruby/sdtkit/extconf.rb' --with-sdtkit-dir='$p' && make V=1" &
    bind_build_one "$d" node-compat bind_addon "$p" stapsdt stapsdt "$d/node" &
    bind_build_one "$d" node-native bind_addon "$p" sdtkit sdtkit "$d/node" &
    wait
}

# bind_go PREFIX DIR API SOURCE: the Go driver on go/SOURCE, as DIR/go-API,
# with a build cache of its own (nothing written under $HOME).
bind_go() {
    (cd "$BIND_SRC/go" && env GOFLAGS= GOCACHE="$2/go-cache" CGO_CFLAGS="-I$1/include" \
        CGO_LDFLAGS="-L$1/lib" go build -o "$2/go-$3" driver.go "$4")
}

# bind_addon PREFIX SOURCE LIB DIR: the N-API addon node/SOURCE.c, linked
# with -lLIB, as DIR/SOURCE.node: compiled against the installed Node's
# headers, as node-gyp --nodedir=/usr would, without its Python and make.
bind_addon() {
    cc -std=gnu11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter -shared -fPIC \
        -I/usr/include/node -I "$BIND_SRC" -I "$1/include" "$BIND_SRC/node/$2.c" \
        -o "$4/$2.node" -L "$1/lib" -l"$3"
}

# bind_build_one DIR VARIANT CMD...: run CMD, its output in DIR/VARIANT.log,
# DIR/VARIANT.ok when it succeeded.
bind_build_one() {
    local d=$1 v=$2
    shift 2
    "$@" > "$d/$v.log" 2>&1 && : > "$d/$v.ok"
}

# bind_env DIR: the environment every driver runs in: the installed
# libraries, and where each language finds its binding.
bind_env() {
    BIND_ENV=(LD_LIBRARY_PATH="$1/prefix/lib" PYTHONPATH="$BIND_SRC/python" PYTHONDONTWRITEBYTECODE=1
              RUBYLIB="$1/ruby/compat:$1/ruby/native" NODE_PATH="$1/node")
}

# bind_cmd VARIANT: its driver's command line.  Ruby's without RubyGems,
# which no driver uses (its extension comes through RUBYLIB) and whose
# loading was most of a start's CPU.
bind_cmd() {
    local api=${1#*-}
    case ${1%-*} in
        python) echo "$PYTHON3" "$BIND_SRC/python/driver.py" "$api" ;;
        ruby) echo ruby --disable-gems "$BIND_SRC/ruby/driver.rb" "$api" ;;
        node) echo node "$BIND_SRC/node/driver.js" "$api" ;;
        go) echo "$BIND_DIR/go-$api" "$api" ;;
    esac
}

# ---- Driving one -------------------------------------------------------------
#
# Nothing here fails the test: a driver that ended or did not answer gives
# a reply saying so, which the test's checks then meet.  The driver's
# stdin and stdout are FIFOs: a command is written, its reply read (a
# timeout only guards against a hang).

# bind_start VARIANT [VAR=VALUE...]: start VARIANT's driver, with the
# environment given (and BIND_NOFILE, when set, as its limit of open
# files); DRV_PID is its pid.  Returns 1, the failure noted, when it did
# not start.
bind_start() {
    local v=$1 d
    shift
    d=$BATS_TEST_TMPDIR/drv-$v
    DRV_VARIANT=$v DRV_DIR=$d DRV_PID=
    if [ ! -e "$BIND_DIR/$v.ok" ]; then
        BIND_FAILS+=("$v: not built: $(tail -5 "$BIND_DIR/$v.log" | tr '\n' ' ')")
        return 1
    fi
    mkdir -p "$d"
    rm -f "$d/in" "$d/out"
    mkfifo "$d/in" "$d/out"
    (
        [ -z "${BIND_NOFILE:-}" ] || ulimit -n "$BIND_NOFILE"
        exec env "${BIND_ENV[@]}" "$@" $(bind_cmd "$v")
    ) < "$d/in" > "$d/out" 2> "$d/err" 3>&- &
    DRV_BG=$!
    BG_PIDS+=("$DRV_BG")
    exec {DRV_IN}> "$d/in" {DRV_OUT}< "$d/out"
    bind_reply
    [ "$REPLY" = "ready $DRV_BG" ] || { BIND_FAILS+=("$v: did not start: $REPLY"); return 1; }
    DRV_PID=$DRV_BG
}

# bind_reply: the driver's next line in REPLY.  When there is none, the
# driver is taken as ended: REPLY says so, with the end of its stderr.
bind_reply() {
    if ! IFS= read -r -t "$HANG_SECONDS" -u "$DRV_OUT" REPLY; then
        REPLY="no reply from $DRV_VARIANT: $(tail -3 "$DRV_DIR/err" 2>/dev/null | tr '\n' ' ')"
        DRV_PID=
    fi
}

# bind CMD...: send one command; its reply in REPLY.
bind() {
    if [ -z "$DRV_PID" ]; then
        REPLY="no driver"
        return 0
    fi
    trap '' PIPE # a driver that ended makes the write fail, not the test
    printf '%s\n' "$*" >&"$DRV_IN" 2>/dev/null || true
    trap - PIPE
    bind_reply
}

# bind_stop: end the driver's input and wait for it to exit (HANG_SECONDS
# at most); REPLY is "exit STATUS".
bind_stop() {
    if [ -z "$DRV_PID" ]; then
        REPLY="no driver"
        return 0
    fi
    exec {DRV_IN}>&-
    timeout "$HANG_SECONDS" tail --pid="$DRV_PID" -s 0.05 -f /dev/null || true
    exec {DRV_OUT}<&-
    if kill -0 "$DRV_PID" 2>/dev/null; then
        REPLY="exit: still running after $HANG_SECONDS s"
    else
        wait "$DRV_PID" && REPLY="exit 0" || REPLY="exit $?"
    fi
    [ "$REPLY" = "exit 0" ] || REPLY="$REPLY: $(tail -3 "$DRV_DIR/err" | tr '\n' ' ')"
    DRV_PID=
}

# bind_end [WHAT]: bind_stop, and the driver must have exited 0 (WHAT
# before the failure's words).
bind_end() {
    bind_stop
    expect "${1:+$1: }end of input" "$REPLY" "exit 0"
}

# ---- Checking --------------------------------------------------------------
#
# A test runs every variant and collects what went wrong in each, then
# fails once, listing them all (a binding that fails says nothing of the
# others).

BIND_FAILS=()

# expect WHAT GOT PATTERN: GOT matches the glob PATTERN, or a failure of
# the current variant is noted (but for the replies of a driver that had
# ended already: the failure that found it ended says why).
expect() {
    # shellcheck disable=SC2053
    [[ $2 == $3 || $2 == "no driver" ]] || BIND_FAILS+=("$DRV_VARIANT: $1: expected '$3', got '$2'")
}

# expect_at_most WHAT GOT MAX: the number GOT is at most MAX.
expect_at_most() {
    [ "$2" -le "$3" ] 2>/dev/null || BIND_FAILS+=("$DRV_VARIANT: $1: expected at most $3, got '$2'")
}

# expect_reply CMD... -- PATTERN: send CMD, expect its reply to match.
expect_reply() {
    local cmd=()
    while [ "$1" != -- ]; do cmd+=("$1"); shift; done
    bind "${cmd[@]}"
    expect "${cmd[*]}" "$REPLY" "$2"
}

# bind_mark, then bind_trim: whether no failure was noted in between; when
# some were, only the first is kept (what follows from it is noise), with
# how many more there were.
bind_mark() {
    BIND_MARK=${#BIND_FAILS[@]}
}
bind_trim() {
    local more=$((${#BIND_FAILS[@]} - BIND_MARK - 1))
    [ $more -ge 0 ] || return 0
    BIND_FAILS=("${BIND_FAILS[@]:0:BIND_MARK+1}")
    [ $more -eq 0 ] || BIND_FAILS+=("$DRV_VARIANT: ... and $more more failures after that")
    return 1
}

# bind_verdict: fail with every failure noted, if any.
bind_verdict() {
    [ ${#BIND_FAILS[@]} -eq 0 ] && return 0
    printf '%s\n' "${BIND_FAILS[@]}"
    return 1
}

# each_variant APIS CHECK ARG...: CHECK VARIANT ARG... for every binding
# on each API of APIS, then the verdict on them all.
each_variant() {
    local a b apis=$1 check=$2
    shift 2
    for a in $apis; do
        for b in $BINDINGS; do "$check" "$b-$a" "$@"; done
    done
    bind_verdict
}

# expect_state PROBE NARGS FIRE ENABLED: the reply to "state PROBE" on the
# driver's API (FIRE, _fire's first byte, read through libstapsdt's alone).
expect_state() {
    case $DRV_VARIANT in
        *-compat) expect_reply state "$1" -- "state <$1> argCount $2 fire $3 enabled $4" ;;
        *) expect_reply state "$1" -- "state <$1> nargs $2 enabled $4" ;;
    esac
}

# bind_provider P PROBE TYPE...: create provider P, add PROBE to it, load it.
bind_provider() {
    expect_reply provider "$1" -- "provider <$1> *"
    expect_reply probe "$1" "${@:2}" -- "probe <$2> *"
    expect_reply load "$1" -- "load 0"
}

# bind_case VARIANT FILE: run the "> " lines of FILE through
# VARIANT's driver; every reply must match the glob pattern after it (PID:
# the driver's pid), and the driver must exit 0 at the end.  The first
# reply that does not is noted, and how many others did not.
bind_case() {
    local v=$1 file=$2 line cmd="" pid
    bind_start "$v" || return 0
    pid=$DRV_PID
    bind_mark
    while IFS= read -r line; do
        case $line in
            "#"* | "") ;;
            "> "*) cmd=${line#> }; bind "$cmd" ;;
            *)
                [ ${#cmd} -le 72 ] || cmd="${cmd:0:60}..."
                expect "${file##*/}: $cmd" "$REPLY" "${line//PID/$pid}"
                ;;
        esac
    done < "$file"
    bind_end "${file##*/}"
    bind_trim || true
}

# bind_bpftrace OUT PID SCRIPT: bpftrace -p PID on SCRIPT in the background
# (BT_PID), attached when this returns 0 (its BEGIN runs after every probe
# is); 1, the failure noted, when it exited first.  It holds neither end of
# the driver's FIFOs.
bind_bpftrace() {
    local end=$((SECONDS + HANG_SECONDS))
    # (no timeout(1) around bpftrace: see bg)
    bg "$1" bpftrace -p "$2" -e "BEGIN { printf(\"BT ready\\n\"); } $3" \
        {DRV_IN}>&- {DRV_OUT}<&-
    BT_PID=$BG_PID
    while [ "$SECONDS" -lt "$end" ]; do
        grep -qs '^BT ready' "$1" && return 0
        kill -0 "$BT_PID" 2>/dev/null || break
        sleep 0.05
    done
    BIND_FAILS+=("$DRV_VARIANT: bpftrace -p $2 did not attach: $(grep -v RLIMIT "$1" | tr '\n' ' ')")
    return 1
}

# bind_bpftrace_end OUT: wait for that bpftrace to exit (it exits on the
# event it waits for; after HANG_SECONDS it is stopped, a hang: no
# timeout(1) runs it, see bg); BT_LINES is what it printed.
bind_bpftrace_end() {
    timeout "$HANG_SECONDS" tail --pid="$BT_PID" -s 0.05 -f /dev/null || true
    stop "$BT_PID" || true
    wait "$BT_PID" 2>/dev/null || true
    BT_LINES=$(grep -av -e '^BT ready' -e '^Attaching' -e RLIMIT_MEMLOCK -e '^$' "$1" || true)
}

setup_file() {
    export BIND_DIR=$BATS_FILE_TMPDIR/bindings
    bind_build "$BIND_DIR"
}

setup() {
    need_bindings
    bind_env "$BIND_DIR"
    BIND_FAILS=()
}

# maps_check VARIANT: the driver maps its API's library from the install.
maps_check() {
    local lib=libsdtkit.so.1.0.0
    bind_start "$1" || return 0
    case $1 in *-compat) lib=libstapsdt.so.0.0.0 ;; esac
    expect "maps $lib from the install" "$(grep -c " $BIND_DIR/prefix/lib/$lib$" "/proc/$DRV_PID/maps")" "[1-9]*"
    bind_end
}

@test "every binding builds against the installed libraries and loads them from the install" {
    each_variant "compat native" maps_check
}

@test "every binding reads name, argCount, _fire, errno, error and _filename as libstapsdt set them" {
    [ "$(uname -m)" = x86_64 ] || skip "_fire's first byte is read as x86-64's nop"
    each_variant compat bind_case "$BIND_SRC/cases/members.case"
}

@test "a second unload or load returns 0 as with libstapsdt: node-usdt's disable on every tick, a Ruby enable twice" {
    [ "$(uname -m)" = x86_64 ] || skip "_fire's first byte is read as x86-64's nop"
    each_variant compat bind_case "$BIND_SRC/cases/repeat.case"
}

@test "libstapsdt's own error test: a 263-byte name with slashes is a provider, and loads where libstapsdt failed" {
    each_variant compat bind_case "$BIND_SRC/cases/errors.case"
}

@test "through every binding the native API names, counts and paths, and refuses a second load or unload" {
    each_variant native bind_case "$BIND_SRC/cases/native.case"
}

# names_check VARIANT: every name of tests/bindings/names through VARIANT:
# created, added and loaded, in the note of the object, listed by bpftrace.
names_check() {
    local prov probe path listing paths=() pairs=() i
    bind_start "$1" || return 0
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
    bind_end
}

@test "every binding takes the names libstapsdt took, the notes carry them and bpftrace -l -p lists them" {
    need_bpftrace
    each_variant compat names_check
}

# ---- tracers on the bindings' processes ----------------------------------

BT_REQ='printf("req %d %lu %s\n", arg0, arg1, str(arg2)); exit();'

# traced_check VARIANT: bpftrace -p on the driver reads req's arguments as
# fired, while the binding sees the probe enabled (compat: _fire's first
# byte is the breakpoint's 0xcc), and no longer once bpftrace has gone.  The
# driver serves req, as a server fires on every request, until bpftrace
# has exited on the first event.  The provider: libstapsdt's API takes
# my-app, the native one C identifiers (the other tests name theirs "app",
# so that each fails for what it checks).
traced_check() {
    local p=my_app
    case $1 in *-compat) p=my-app ;; esac
    bind_start "$1" || return 0
    bind_mark
    bind_provider "$p" req int32 uint64 string
    bind_trim || { bind_stop; return 0; }
    bind_bpftrace bt "$DRV_PID" "usdt::$p:req { $BT_REQ }" || { bind_stop; return 0; }
    expect_reply wait req -- "wait <req> enabled"
    expect_state req 3 cc 1
    expect_reply serve req -2000000000 18000000000000000000 GET/index -- "serve <req> [1-9]*"
    bind_bpftrace_end bt
    expect "bpftrace -p $DRV_PID" "$BT_LINES" "req -2000000000 18000000000000000000 GET/index"
    expect_state req 3 90 0
    bind_end
}

@test "bpftrace -p on each binding's process reads req's arguments exactly, while the binding sees it enabled" {
    [ "$(uname -m)" = x86_64 ] || skip "_fire's first byte is read as x86-64's int3"
    need_bpftrace
    each_variant "compat native" traced_check
}

# ---- reload loops --------------------------------------------------------

# toggle_check VARIANT: 1,000 unload/load cycles, every one succeeding,
# with as many open files, mappings and resident memory after as before
# (the slack: one object's file, two objects' mappings (Go's runtime maps
# some of its own as it runs), 2 MB).
toggle_check() {
    local p=app n failed f0 f1 m0 m1 r0 r1
    BIND_NOFILE=1024 bind_start "$1" || return 0
    bind_mark
    bind_provider "$p" req int32
    bind_trim || { bind_stop; return 0; }
    bind toggle "$p" 1000
    expect "toggle" "$REPLY" "toggle 1000 failed * fds * * maps * * rss * *"
    read -r _ n _ failed _ f0 f1 _ m0 m1 _ r0 r1 <<<"$REPLY"
    expect "failed loads and unloads of 1000 cycles" "$failed" 0
    expect_at_most "open files after 1000 cycles, from $f0" "$((f1 - f0))" 1
    expect_at_most "mappings after 1000 cycles, from $m0" "$((m1 - m0))" 8
    expect_at_most "resident kB after 1000 cycles, from $r0" "$((r1 - r0))" 2048
    expect_state req 1 90 0
    bind_end
}

@test "a thousand unload/load cycles under ulimit -n 1024 leave every binding's fds, mappings and RSS flat" {
    each_variant "compat native" toggle_check
}

# ---- pre-fork servers ----------------------------------------------------

# fork_check VARIANT [VAR=VALUE...]: the driver loads its probes and starts
# a worker; bpftrace -p on the worker reads its event; the worker exits as
# its language exits; then the parent's object is whole and bpftrace -p on
# the parent reads the parent's.
fork_check() {
    local p=app path wpid
    bind_start "$@" || return 0
    bind_mark
    bind_provider "$p" req int32 uint64 string
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
    bind_end
}

@test "a pre-fork worker is traced on its own pid, and its exit leaves the parent's probes traceable" {
    need_bpftrace
    each_variant "compat native" fork_check
}

@test "the same with named files (perf's mode): a worker's exit removes none of the parent's" {
    need_bpftrace
    mkdir -p named
    each_variant "compat native" fork_check SDTKIT_RUNTIME_NAMED=1 SDTKIT_RUNTIME_DIR="$PWD/named"
}

# ---- handles kept too long -------------------------------------------------

# stale_check VARIANT: a probe of a destroyed provider (a binding object
# collected late) stays inert: it is not enabled, and firing it does not
# reach the probe of a provider made after, which bpftrace traces.
stale_check() {
    bind_start "$1" || return 0
    bind_mark
    bind_provider old stale int32
    expect_reply destroy old -- "destroy"
    bind_provider new live int32
    bind_trim || { bind_stop; return 0; }
    bind_bpftrace bt "$DRV_PID" 'usdt::new:live /arg0 == 111/ { @stale++; }
        usdt::new:live /arg0 == 999/ { printf("stale %d\n", @stale); clear(@stale); exit(); }' || { bind_stop; return 0; }
    expect_reply wait live -- "wait <live> enabled"
    expect_state stale 1 NULL 0
    expect_reply fire stale 111 -- "fire <stale> 0"
    expect_reply fire stale 111 -- "fire <stale> 0"
    expect_reply serve live 999 -- "serve <live> [1-9]*"
    # every fire of the stale handle before the live one was counted
    bind_bpftrace_end bt
    expect "bpftrace: fires of new:live with the stale handle's value" "$BT_LINES" "stale 0"
    bind_end
}

@test "a probe kept past its provider's destroy stays inert and never fires the next provider's probe" {
    need_bpftrace
    each_variant "compat native" stale_check
}

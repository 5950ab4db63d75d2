#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# README's path works with this build of sdtkit, beside SystemTap's: every
# example of $DOCS runs as written for a newcomer (the system's PATH) who
# sourced build/env.sh, gets sdtkit's files and prints what the document
# shows; and the documents' links lead somewhere.  A line `<!-- readme-test:
# EXAMPLE/NAME -->` marks a block (tests/readme/blocks.awk): a file, `run`
# or `run.STEP` (run by bash -e), `output` or `output.STEP` (its stdout and
# stderr, compared by tests/readme/same-output.awk).

load helpers
load tracers-helpers

DOCS="README.md docs/setup.md docs/troubleshooting.md"

setup_file() {
    export EXAMPLES="$BATS_FILE_TMPDIR/examples" PREFIX_DIR="$ROOT/build/prefix"
    # the system's PATH, as a new login shell of root's has it on Debian
    export SYSTEM_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
    (cd "$ROOT" && awk -v dir="$EXAMPLES" -f tests/readme/blocks.awk $DOCS) > "$BATS_FILE_TMPDIR/blocks"
    make -s -C "$ROOT" env > /dev/null
}

setup() {
    mkdir -p "$BATS_TEST_TMPDIR/home"
}

teardown() { cleanup_tracers; }

# newcomer CMD...: CMD in a newcomer's environment after `. build/env.sh`
# (none with NEWCOMER_BARE=1), in the current directory.
newcomer() {
    env -i HOME="$BATS_TEST_TMPDIR/home" TMPDIR="$TMPDIR" PATH="$SYSTEM_PATH" \
        bash -c '[ -n "$1" ] || . "$0/build/env.sh"; shift; exec "$@"' \
        "$ROOT" "${NEWCOMER_BARE:-}" "$@"
}

# doc_run EXAMPLE [STEP]: the example's run[.STEP] in its directory, as a
# newcomer, its output checked against output[.STEP].
doc_run() {
    local ex=$1 suffix=${2:+.$2}
    cd "$EXAMPLES/$ex"
    [ -f "run$suffix" ]
    [ -s "output$suffix" ]
    newcomer timeout "$HANG_SECONDS" bash -e "run$suffix" > "out$suffix" 2>&1 ||
        { cat "out$suffix"; return 1; }
    awk -v root="$ROOT" -f "$ROOT/tests/readme/same-output.awk" "output$suffix" "out$suffix" ||
        { echo "--- the whole output:"; cat "out$suffix"; return 1; }
}

# sdtkit_used PROGRAM...: in an example's directory, the sdtkit headers of
# every source, the PROGRAMs and the libraries the ELF files load are
# build/prefix's, as a newcomer gets them.
sdtkit_used() {
    local f
    newcomer bash -c 'for f in *.c; do cc -H -fsyntax-only "$f" || exit; done' 2> headers
    grep -E '^\.+ .*/(sys/sdt|sys/sdt-config|usdt|sdtkit|libstapsdt)\.h$' headers > ours ||
        { echo "no sdtkit header included:"; cat headers; return 1; }
    ! grep -v "^\.* $PREFIX_DIR/include/" ours || { echo "(headers not build/prefix's)"; return 1; }
    for f in "$@"; do
        [ "$(newcomer sh -c 'command -v "$1"' sh "$f")" = "$PREFIX_DIR/bin/$f" ]
    done
    for f in *; do
        [ -x "$f" ] && [ "$(head -c4 "$f")" = $'\x7fELF' ] || continue
        newcomer ldd "./$f" | grep -E 'lib(sdtkit|stapsdt)' > libs || continue
        ! grep -v "=> $PREFIX_DIR/lib/" libs || { echo "($f: libraries not build/prefix's)"; return 1; }
    done
}

# need_systemtap: SystemTap's header and dtrace, which README's examples
# would take without build/env.sh.
need_systemtap() {
    need_stap_header
    need_stap_dtrace
}

# doc_traced EXAMPLE PROGRAM...: doc_run EXAMPLE, which bpftrace traces,
# then sdtkit_used PROGRAM...
doc_traced() {
    need_systemtap
    need_bpftrace
    need_cmd cc
    doc_run "$1"
    sdtkit_used "${@:2}"
}

@test "make writes build/env.sh, which puts build/prefix first on every search path" {
    # `make` is `all`, which makes env
    make -pq -C "$ROOT" sdtkit-no-such-target 2>/dev/null | grep -qE '^all:.* env( |$)'
    # a PREFIX or LIBDIR given to make does not move it
    rm -rf "$PREFIX_DIR/share/man"
    make -s -C "$ROOT" env PREFIX="$BATS_TEST_TMPDIR/elsewhere" LIBDIR=/nowhere > /dev/null
    [ ! -e "$BATS_TEST_TMPDIR/elsewhere" ]
    [ -f "$PREFIX_DIR/share/man/man1/dtrace.1" ]
    [ -f "$PREFIX_DIR/lib/libsdtkit.so" ]
    newcomer env > env.out
    local p=$PREFIX_DIR
    grep -qx "PATH=$p/bin:$SYSTEM_PATH" env.out
    grep -qx "CPATH=$p/include" env.out
    grep -qx "LIBRARY_PATH=$p/lib" env.out
    grep -qx "LD_LIBRARY_PATH=$p/lib" env.out
    grep -qx "PKG_CONFIG_PATH=$p/lib/pkgconfig:$p/share/pkgconfig" env.out
    grep -qx "CMAKE_PREFIX_PATH=$p" env.out
    grep -qx "MANPATH=$p/share/man:" env.out
    # before what the variables held
    CPATH=/x MANPATH=/m bash -c '. "$1/build/env.sh" && echo "$CPATH $MANPATH"' sh "$ROOT" > both
    [ "$(cat both)" = "$p/include:/x $p/share/man:/m" ]
}

@test "README's first steps: SystemTap's dtrace and header without build/env.sh, sdtkit's with it" {
    need_systemtap
    NEWCOMER_BARE=1 newcomer sh -c 'command -v dtrace' > bare
    [ "$(cat bare)" = /usr/bin/dtrace ]
    echo '#include <sys/sdt.h>' | NEWCOMER_BARE=1 newcomer cc -H -fsyntax-only -x c - 2> bare
    [ "$(head -1 bare)" = ". $STAP_INCLUDE_DIR/sys/sdt.h" ]
    # README's commands, its own `. build/env.sh` first, in the checkout
    (cd "$ROOT" && NEWCOMER_BARE=1 newcomer timeout "$HANG_SECONDS" bash -e "$EXAMPLES/start/run") \
        > out 2>&1 ||
        { cat out; false; }
    awk -v root="$ROOT" -f "$ROOT/tests/readme/same-output.awk" "$EXAMPLES/start/output" out ||
        { cat out; false; }
}

@test "docs/setup.md's commands name this build's programs, header, version and pkg-config files" {
    need_systemtap
    need_cmd pkg-config
    doc_run which
    # and, as it says, SystemTap's without build/env.sh
    NEWCOMER_BARE=1 newcomer bash run > bare 2>&1 || true
    grep -qx /usr/bin/dtrace bare
    grep -q '^/usr/bin/dtrace invalid option --version$' bare
    grep -qx ". $STAP_INCLUDE_DIR/sys/sdt.h" bare
    ! grep -q SDTKIT_VERSION bare || false
}

@test "the header's SDTKIT_VERSION_MAJOR, _MINOR and _PATCH are VERSION's numbers, in <sys/sdt.h> and <usdt.h>" {
    local h
    for h in sys/sdt.h usdt.h; do
        printf '#include <%s>\nSDTKIT_VERSION_MAJOR.SDTKIT_VERSION_MINOR.SDTKIT_VERSION_PATCH\n' "$h" |
            newcomer cc -E -P -x c - | tail -1 | tr -d ' ' > v
        [ "$(cat v)" = "$(cat "$ROOT/VERSION")" ] || { echo "$h: $(cat v)"; false; }
    done
}

# bats test_tags=release
@test "docs/setup.md's variables for another prefix let a program find the header, dtrace, libsdtkit and its .pc" {
    need_cmd pkg-config
    local p="$BATS_TEST_TMPDIR/home/sdtkit"
    cp "$EXAMPLES/runtime/jit.c" "$BATS_TEST_TMPDIR/"
    cat > "$BATS_TEST_TMPDIR/check" <<'EOF'
command -v dtrace
echo '#include <sdtkit.h>' | cc -H -fsyntax-only -x c - 2>&1 | head -1
cc "$TMPDIR_JIT/jit.c" -o "$TMPDIR_JIT/jit" -lsdtkit
ldd "$TMPDIR_JIT/jit" | grep -o 'libsdtkit.so.1 => [^ ]*'
pkg-config --variable=libdir sdtkit-runtime
EOF
    (cd "$ROOT" && NEWCOMER_BARE=1 newcomer env TMPDIR_JIT="$BATS_TEST_TMPDIR" \
        bash -e -c '. "$0"; . "$1"' "$EXAMPLES/prefix/run" "$BATS_TEST_TMPDIR/check") > out 2>&1 ||
        { cat out; false; }
    [ "$(cat out)" = "$p/bin/dtrace
. $p/include/sdtkit.h
libsdtkit.so.1 => $p/lib/libsdtkit.so.1
$p/lib" ] || { cat out; false; }
}

# bats test_tags=tracer
@test "README's <sys/sdt.h> example compiles with sdtkit's header, and bpftrace reads its probe's arguments" {
    need_cmd readelf
    doc_traced sdt
}

@test "README's sdt-list commands list the <sys/sdt.h> example's probe and find it sound" {
    need_cmd cc
    cd "$EXAMPLES/sdt"
    [ -x app ] || newcomer cc -O2 app.c -o app
    doc_run sdt list
    sdtkit_used sdt-list
}

# bats test_tags=tracer
@test "README's provider-file example builds with sdtkit's dtrace -h and -G, and bpftrace enables and reads it" {
    doc_traced dtrace dtrace
    grep -q "^/\* Generated by sdtkit's dtrace -h" probes.h
}

# bats test_tags=tracer
@test "README's <usdt.h> example compiles with sdtkit's header, and bpftrace raises its semaphore and reads it" {
    doc_traced usdt
}

# bats test_tags=tracer
@test "README's run-time example loads this build's libsdtkit, and bpftrace -p reads the string it fires" {
    doc_traced runtime
}

# bats test_tags=tracer
@test "docs/troubleshooting.md's file_offset turns sdt-list's addresses into the offsets a tracefs uprobe with a semaphore takes" {
    need_tracefs
    need_cmd cc readelf
    local f pc sem off semoff grp="sdtkit_$$_${BATS_TEST_NUMBER}" nop
    for f in probes.d app.c; do cp "$EXAMPLES/dtrace/$f" .; done
    newcomer sh -ec 'dtrace -h -s probes.d -o probes.h; cc -O2 -c app.c
        dtrace -G -s probes.d -o probes.o app.o; cc app.o probes.o -o app'
    # (gcc may unroll the loop: a site for each i, each a uprobe below)
    newcomer sdt-list app > sites
    read -r _ _ _ pc _ sem _ < sites
    . "$EXAMPLES/tracefs/file_offset.sh"
    off=$(file_offset app "$pc")
    semoff=$(file_offset app "$sem")
    # as the document says, the semaphore's offset is not its address
    [ $((semoff)) -ne $((sem)) ]
    # the probe's nop (0x90) is at the offset in the file
    nop=$(od -An -tx1 -j $((off)) -N1 app | tr -d ' ')
    [ "$nop" = 90 ]
    ! file_offset app 0x7fffffff 2> err || false
    [ "$(cat err)" = "file_offset: 0x7fffffff is in no segment of app" ]
    trace_instance
    local n=0
    while read -r _ _ _ pc _ _ _; do
        uprobe_add "p:$grp/site$n $PWD/app:$(file_offset app "$pc")($semoff)"
        echo 1 > "$INST/events/$grp/site$n/enable"
        n=$((n + 1))
    done < sites
    ./app
    for ((n--; n >= 0; n--)); do echo 0 > "$INST/events/$grp/site$n/enable"; done
    # three events: the kernel raised the semaphore, so the program fired
    [ "$(grep -cE ': site[0-9]+: ' "$INST/trace")" -eq 3 ]
}

@test "sdtkit_probe_enabled is two loads and no call, as include/sdtkit.h, sdtkit(3) and README say" {
    need_cmd gcc clang
    printf '#include <sdtkit.h>\nint f(const sdtkit_probe *p) { return sdtkit_probe_enabled(p); }\n' > en.c
    local cc loads
    for cc in gcc clang; do
        $cc -O2 -I "$ROOT/include" -c en.c -o en.o
        objdump -d --no-show-raw-insn en.o | sed -n '/<f>:/,/ret/p' > f.s
        loads=$(grep -c '(%r' f.s)
        [ "$loads" -eq 2 ] || { echo "$cc: $loads loads"; cat f.s; false; }
        ! grep -q call f.s || false
    done
    grep -q 'sdtkit_probe_enabled (req)) *two loads, no call' "$ROOT/include/sdtkit.h"
    grep -q 'two loads and no call' "$ROOT/man/sdtkit.3"
    grep -q 'sdtkit_probe_enabled(req)) { *\/\* two loads, no call \*\/' "$ROOT/README.md"
}

@test "every example the documents mark is run by a test of this file" {
    # EXAMPLE or EXAMPLE.STEP, as the tests above call doc_run
    run sed -n 's|^\([^/]*\)/run|\1|p' "$BATS_FILE_TMPDIR/blocks"
    [ "$status" -eq 0 ]
    [ "$output" = "start
sdt
dtrace
usdt
runtime
sdt.list
which
prefix" ]
    grep -qx tracefs/file_offset.sh "$BATS_FILE_TMPDIR/blocks"
}

@test "every relative link of README.md and docs/ names a file, and its anchor a heading there" {
    cd "$ROOT"
    run awk -f tests/readme/links.awk README.md docs/*.md
    echo "$output"
    [ "$status" -eq 0 ]
    [ -z "$output" ]
}

#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# README.md's examples work as written, against an installed sdtkit, and
# the links of README.md and docs/ lead somewhere.
#
# README marks each file and command block of its examples with a line
# `<!-- readme-test: EXAMPLE/NAME -->` (tests/readme/blocks.awk writes
# them out): NAME is a file of the example, `run` or `run.STEP` a script
# of its commands, run with bash -e in the example's directory, and
# `expect` or `expect.STEP` lines that must appear in that script's output,
# in that order, each as part of a line.
# bats file_tags=tracer

load helpers
load tracers-helpers

setup_file() {
    export EXAMPLES="$BATS_FILE_TMPDIR/readme" STAGE="$BATS_FILE_TMPDIR/stage"
    export PREFIX_DIR="$ROOT/build/prefix"
    # the system's PATH, as a new login shell of root's has it on Debian
    export SYSTEM_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
    awk -v dir="$EXAMPLES" -f "$ROOT/tests/readme/blocks.awk" "$ROOT/README.md" \
        > "$BATS_FILE_TMPDIR/blocks"
    make -s -C "$ROOT" install PREFIX=/usr DESTDIR="$STAGE" > /dev/null
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

# readme_run EXAMPLE [STEP]: run the example's script (run, or run.STEP)
# with the installed sdtkit first on every path; check its output against
# expect (or expect.STEP).
readme_run() {
    local ex=$1 suffix=${2:+.$2} lib
    lib=$(cd "$STAGE/usr/lib" && pwd)
    cd "$EXAMPLES/$ex"
    [ -f "run$suffix" ] && [ -f "expect$suffix" ]
    PATH="$STAGE/usr/bin:$PATH" CPATH="$STAGE/usr/include" LIBRARY_PATH="$lib" \
        LD_LIBRARY_PATH="$lib" timeout 120 bash -e "run$suffix" > "out$suffix" 2>&1 ||
        { cat "out$suffix"; return 1; }
    awk 'NR == FNR { want[++n] = $0; next }
         i < n && index($0, want[i + 1]) { i++ }
         END { if (i < n) { print "not in the output: " want[i + 1]; exit 1 } }' \
        "expect$suffix" "out$suffix" || { cat "out$suffix"; return 1; }
}

@test "make writes build/env.sh, which puts build/prefix first on every search path" {
    # `make` is `all`, which makes env
    make -pq -C "$ROOT" sdtkit-no-such-target 2>/dev/null | grep -qE '^all:.* env( |$)'
    # a PREFIX or LIBDIR given to make does not move it
    rm -rf "$PREFIX_DIR/share/man"
    make -s -C "$ROOT" env PREFIX="$BATS_TEST_TMPDIR/elsewhere" LIBDIR=/nowhere > /dev/null
    [ ! -e "$BATS_TEST_TMPDIR/elsewhere" ]
    [ -f "$PREFIX_DIR/share/man/man1/dtrace.1" ] && [ -f "$PREFIX_DIR/lib/libsdtkit.so" ]
    cd "$BATS_TEST_TMPDIR"
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
    # the man pages are this build's
    [ "$(newcomer man -w dtrace)" = "$p/share/man/man1/dtrace.1" ]
}

@test "the header's SDTKIT_VERSION_MAJOR, _MINOR and _PATCH are VERSION's numbers, in <sys/sdt.h> and <usdt.h>" {
    cd "$BATS_TEST_TMPDIR"
    local h
    for h in sys/sdt.h usdt.h; do
        printf '#include <%s>\nSDTKIT_VERSION_MAJOR.SDTKIT_VERSION_MINOR.SDTKIT_VERSION_PATCH\n' "$h" |
            newcomer cc -E -P -x c - | tail -1 | tr -d ' ' > v
        [ "$(cat v)" = "$(cat "$ROOT/VERSION")" ] || { echo "$h: $(cat v)"; false; }
    done
}

@test "README's <sys/sdt.h> example compiles, and bpftrace reads its probe's arguments" {
    need_bpftrace
    need_cmd cc readelf
    readme_run sdt
}

@test "README's sdt-list commands list the <sys/sdt.h> example's probe and find it sound" {
    need_cmd cc
    [ -x "$EXAMPLES/sdt/app" ] || (cd "$EXAMPLES/sdt" && PATH="$STAGE/usr/bin:$PATH" CPATH="$STAGE/usr/include" cc -O2 app.c -o app)
    readme_run sdt list
}

@test "README's provider-file example builds with dtrace -h and -G, and bpftrace enables and reads it" {
    need_bpftrace
    need_cmd cc
    readme_run dtrace
}

@test "README's <usdt.h> example compiles, and bpftrace raises its semaphore and reads it" {
    need_bpftrace
    need_cmd cc
    readme_run usdt
}

@test "README's run-time example loads its probe, and bpftrace -p reads the string it fires" {
    need_bpftrace
    need_cmd cc
    readme_run runtime
}

@test "sdtkit_probe_enabled is two loads and no call, as include/sdtkit.h, sdtkit(3) and README say" {
    need_cmd gcc clang objdump
    cd "$BATS_TEST_TMPDIR"
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

@test "every example README marks is run by a test of this file" {
    # EXAMPLE or EXAMPLE.STEP, as the tests above call readme_run
    run sed -n 's|^\([^/]*\)/run|\1|p' "$BATS_FILE_TMPDIR/blocks"
    [ "$status" -eq 0 ]
    [ "$output" = "sdt
dtrace
usdt
runtime
sdt.list" ]
}

@test "every relative link of README.md and docs/ names a file, and its anchor a heading there" {
    cd "$ROOT"
    run awk -f tests/readme/links.awk README.md docs/*.md
    echo "$output"
    [ "$status" -eq 0 ]
    [ -z "$output" ]
}

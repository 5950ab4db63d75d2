#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# musl (musl-gcc): make musl builds the tools and run-time libraries with
# it, dynamic and static (tests/run's musl pass runs the tools' suites with
# the dynamic ones; the static ones are compared with them here);
# the header works with it.  Statically linked, a musl program cannot load
# shared objects: run-time probes fail to load, clearly, and never crash.
# bats file_tags=cross

load helpers

M=$ROOT/build/musl

setup() {
    command -v musl-gcc >/dev/null ||
        missing "musl-gcc is not installed (.ci/run installs it from package musl-tools)"
    [ -x "$M/dtrace" ] && [ -x "$M/static/dtrace" ] && [ -f "$M/libsdtkit.so.1" ] ||
        make -s -C "$ROOT" musl > /dev/null
}

# needed FILE: the DT_NEEDED entries of FILE, space separated.
needed() {
    readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | xargs
}

# interp FILE: FILE's program interpreter, or nothing.
interp() {
    readelf -l "$1" | sed -n 's/.*Requesting program interpreter: \(.*\)\]$/\1/p'
}

@test "make musl builds dtrace and sdt-list on musl alone, linked dynamically and statically" {
    local p
    for p in dtrace sdt-list; do
        [ "$(interp "$M/$p")" = /lib/ld-musl-x86_64.so.1 ]
        [ "$(needed "$M/$p")" = libc.so ]
        # static: no interpreter, no dynamic section
        [ -z "$(interp "$M/static/$p")" ]
        ! readelf -d "$M/static/$p" | grep -q NEEDED || false
        # no glibc symbol version anywhere
        ! readelf -V "$M/$p" | grep -q GLIBC_ || false
    done
    [ "$("$M/dtrace" --version)" = "dtrace (sdtkit) $(cat "$ROOT/VERSION")" ]
    [ "$("$M/static/dtrace" --version)" = "dtrace (sdtkit) $(cat "$ROOT/VERSION")" ]
}

@test "musl's static dtrace -h/-G and musl-gcc build a probed program whose semaphore gdb raises" {
    need_cmd gdb
    printf 'provider app {\n  probe start(int, char *);\n};\n' > app.d
    "$M/static/dtrace" -h -s app.d -o app.h
    printf '#include <stdio.h>\n#include "app.h"\nint main(int c, char **v) {\n  if (APP_START_ENABLED()) { APP_START(c + 41, v[0]); puts("fired"); }\n  else puts("not fired");\n  return 0;\n}\n' > app.c
    musl-gcc -O2 -Wall -Wextra -Wpedantic -Werror -I "$INCLUDE" -c app.c -o app.o
    "$M/static/dtrace" -G -s app.d -o app-probes.o app.o
    musl-gcc -static app.o app-probes.o -o app
    [ "$(./app)" = "not fired" ]
    "$M/static/sdt-list" --check app > /dev/null
    echo "app - - $PWD/app >$PWD/out" | gdb_runs "$PWD" app:start
    [ "$(head -2 app.hits)" = $'start hit\nstart arg0 42' ]
    [ "$(cat out)" = fired ]
}

# The static programs have no pass of the suites of their own (the musl
# pass runs them with the dynamic ones, of the same sources and C library):
# what linking changes, they are compared on, byte for byte.
@test "musl's static dtrace and sdt-list write the very bytes and messages of the dynamic ones: every corpus file, every target" {
    need_corpus
    local f arch
    # same [VAR=VALUE...] PROGRAM ARG...: PROGRAM (dtrace or sdt-list), the
    # dynamic one and the static one, in an environment without CC and
    # DEB_HOST_GNU_TYPE but the VARs: their status, output, messages and
    # files written, the same
    same() {
        local v vars=() rc
        while [[ $1 == *=* ]]; do vars+=("$1") && shift; done
        for v in "$M" "$M/static"; do
            rm -rf run && mkdir run
            rc=0
            (cd run && env -u CC -u DEB_HOST_GNU_TYPE "${vars[@]}" "$v/$1" "${@:2}" >stdout 2>stderr) || rc=$?
            echo "$rc" >run/status
            rm -rf "run-${v##*/}" && mv run "run-${v##*/}"
        done
        diff -r run-musl run-static >/dev/null || { echo "differ: $*"; diff -r run-musl run-static | head; return 1; }
    }
    for f in "$CORPUS"/*.d*; do
        same dtrace -h -s "$f" -o out.h
        same dtrace -G -s "$f" -o out.o
    done
    same CC=gcc dtrace -C -h -s "$CORPUS/postgresql-probes.d" -o out.h
    printf 'provider p {\n  probe a(int, char *);\n  probe b();\n};\n' >p.d
    for arch in $ALL_ARCHES; do
        same DEB_HOST_GNU_TYPE="$(arch_triple "$arch")" dtrace -G -s "$PWD/p.d" -o out.o
        [ "$(cat run-static/status)" -eq 0 ]
        cp run-static/out.o "$arch.o"
        same sdt-list --check "$PWD/$arch.o"
        same sdt-list --json "$PWD/$arch.o"
    done
    # and the errors: a bad provider file, a file that is no object
    printf 'provider p {\n  probe a(int, ...);\n};\n' >bad.d
    same dtrace -h -s "$PWD/bad.d" -o out.h
    [ "$(cat run-static/status)" -eq 1 ]
    [ -s run-static/stderr ]
    [ ! -e run-static/out.h ]
    same sdt-list "$PWD/bad.d"
    [ "$(cat run-static/status)" -ne 0 ] && [ -s run-static/stderr ]
}

@test "the header works with musl-gcc: <sys/sdt.h> and <usdt.h>, strict, dynamic and static, and gdb reads the arguments" {
    need_cmd gdb
    cat > probes.c <<'EOF'
#include <stdint.h>
#include <sys/sdt.h>
#include <usdt.h>
int main(int argc, char **argv)
{
    int8_t a = (int8_t)-(argc + 4);
    uint16_t b = (uint16_t)(60000 + argc);
    int64_t c = -5000000000LL * argc;
    (void)argv;
    DTRACE_PROBE3(musl, sdt, a, b, c);
    USDT(musl, usdt, a, b, c);
    return 0;
}
EOF
    local link
    for link in "" -static; do
        musl-gcc -std=c11 -O2 -Wall -Wextra -Wpedantic -Werror $link -I "$INCLUDE" probes.c -o probes
        ./probes
        [ "$(note_probes probes | cut -f1 | sort | xargs)" = "musl:sdt musl:usdt" ]
        [ "$(arg_sizes "$(note_args probes musl:sdt)")" = "-1 2 -8" ]
        [ "$(arg_sizes "$(note_args probes musl:usdt)")" = "-1 2 -8" ]
        echo "probes - - $PWD/probes" | gdb_runs "$PWD" musl:sdt musl:usdt
        [ "$(grep -v hit probes.hits)" = "sdt arg0 -5
sdt arg1 60001
sdt arg2 -5000000000
usdt arg0 -5
usdt arg1 60001
usdt arg2 -5000000000" ] || { echo "$link: $(cat probes.hits)"; false; }
    done
}

@test "libsdtkit.so.1 and libstapsdt.so.0 built with musl have their SONAMEs, need musl's libc alone and export the API only" {
    local so
    for so in libsdtkit.so.1 libstapsdt.so.0; do
        readelf -d "$M/$so" | grep -q "(SONAME).*\[$so\]"
        [ "$(needed "$M/$so")" = libc.so ]
        # the same exported functions as the glibc build
        [ "$(nm -D --defined-only "$M/$so" | awk '$2 == "T" { print $3 }' | sed 's/@.*//' | sort)" = \
          "$(nm -D --defined-only "$ROOT/build/$so" | awk '$2 == "T" { print $3 }' | sed 's/@.*//' | sort)" ]
    done
    nm -D --defined-only "$M/libsdtkit.so.1" | grep -q ' T sdtkit_provider_load@@SDTKIT_1$'
}

@test "a musl program loads both musl libraries by dlopen, as bindings do, and every thread's fires reach the stubs" {
    [ "$(uname -m)" = x86_64 ] || skip "x86-64 only (the breakpoints the test puts on the stubs)"
    musl-gcc -std=c11 -Wall -Wextra -Wpedantic -Werror -I "$INCLUDE" "$ROOT/tests/runtime/dlopened.c" \
        -o dlopened -lpthread
    run ./dlopened "$M/libsdtkit.so.1" "$M/libstapsdt.so.0"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "libsdtkit.so.1: loaded" ]
    [ "${lines[1]}" = "libstapsdt.so.0: loaded" ]
    # musl gives a library loaded later TLS in the threads running then
    [ "${lines[2]}" = "3 threads fired each API 1000 times: 3000 reached libsdtkit's stub, 3000 libstapsdt's" ]
}

@test "musl programs load run-time probes through the musl libraries, both APIs, and gdb stops on them" {
    need_cmd gdb
    local def api
    for def in "" -DSTAPSDT; do
        api=native; [ -z "$def" ] || api=compat
        if [ -z "$def" ]; then lib=:libsdtkit.so.1; else lib=:libstapsdt.so.0; fi
        musl-gcc -std=c11 -Wall -Wextra -Wpedantic -Werror $def -I "$INCLUDE" \
            "$ROOT/tests/release/rt-user.c" -L "$M" -l"$lib" -o user-$api
        [ "$(interp user-$api)" = /lib/ld-musl-x86_64.so.1 ]
        run env LD_LIBRARY_PATH="$M" ./user-$api obj-$api
        [ "$output" = "fired 42 hello" ]
        # the object it loaded: the probe with its arguments, as tracers want it
        "$M/sdt-list" --check obj-$api > /dev/null
        [ "$(note_probes obj-$api | cut -f1)" = release:tick ]
        [ "$(arg_sizes "$(note_args obj-$api release:tick)")" = "-4 8" ]
        # gdb finds the probe in the loaded object and reads the value fired
        echo "$api - - $PWD/user-$api" | LD_LIBRARY_PATH="$M" gdb_runs "$PWD" release:tick
        [ "$(head -2 $api.hits)" = $'tick hit\ntick arg0 42' ] || { echo "$api: $(cat $api.hits)"; false; }
    done
}

@test "statically linked with musl, the run-time libraries refuse to load with a clear error, and firing does nothing" {
    local def api
    for def in "" -DSTAPSDT; do
        api=native; [ -z "$def" ] || api=compat
        if [ -z "$def" ]; then lib=libsdtkit.a; else lib=libstapsdt.a; fi
        musl-gcc -static -std=c11 -Wall -Wextra -Werror $def -I "$INCLUDE" \
            "$ROOT/tests/release/rt-user.c" "$M/$lib" -o static-$api
        [ -z "$(interp static-$api)" ]
        run ./static-$api
        echo "$output"
        # exit 3 after a clean message (a crash would be 139, an abort 134)
        [ "$status" -eq 3 ]
        [[ "$output" == "load failed: "*"cannot load shared objects (it is statically linked"* ]]
        [ "${#lines[@]}" -eq 1 ]
    done
    [[ "$(./static-native)" == "load failed: SDTKIT_E_UNSUPPORTED: "* ]]
}

#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The CMake packages: find_package(sdtkit) gives sdtkit::sdt, sdtkit::dtrace
# and sdtkit_add_provider(), and through LIBDIR/cmake/sdtkit-runtime the
# run-time libraries (components runtime and stapsdt).  Built against one
# DESTDIR install, made once, as a distribution's build sees a staged tree.
# bats file_tags=release

load helpers

setup_file() {
    export STAGE=$BATS_FILE_TMPDIR/stage MULTIARCH=x86_64-linux-gnu
    export PFX=$STAGE/usr LIBD=$BATS_FILE_TMPDIR/stage/usr/lib/x86_64-linux-gnu
    make -s -C "$ROOT" install PREFIX=/usr LIBDIR=/usr/lib/$MULTIARCH DESTDIR="$STAGE" \
        > "$BATS_FILE_TMPDIR/install.log" 2>&1 || true
}

setup() {
    need_cmd cmake
    [ -f "$PFX/share/cmake/sdtkit/sdtkit-config.cmake" ] || { cat "$BATS_FILE_TMPDIR/install.log"; false; }
}

# project DIR CMAKE-LINES...: a C project in DIR whose CMakeLists.txt is the
# lines given after its first two (cmake_minimum_required and project).
project() {
    local dir=$1
    shift
    mkdir -p "$dir"
    { printf 'cmake_minimum_required(VERSION 3.13)\nproject(t C)\n'; printf '%s\n' "$@"; } \
        > "$dir/CMakeLists.txt"
}

# flat: $output on one line, blanks squeezed (CMake wraps its messages).
flat() {
    tr -s ' \n' '  ' <<<"$output"
}

# configure DIR [ARGS...]: cmake -S DIR -B DIR/build, finding the staged
# install as a distribution's build finds a build-dependency.
configure() {
    local dir=$1
    shift
    cmake -S "$dir" -B "$dir/build" -DCMAKE_PREFIX_PATH="$PFX" -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" "$@"
}

@test "make install puts sdtkit's CMake package in share/cmake, the run-time libraries' in LIBDIR/cmake, with no path of the DESTDIR" {
    local d=$PFX/share/cmake/sdtkit r=$LIBD/cmake/sdtkit-runtime
    [ "$(ls "$d" | xargs)" = "sdtkit-config-version.cmake sdtkit-config.cmake" ]
    [ "$(ls "$r" | xargs)" = "sdtkit-runtime-config-version.cmake sdtkit-runtime-config.cmake" ]
    [ "$(stat -c %a "$d/sdtkit-config.cmake")" = 644 ]
    ! grep -q "$STAGE" "$d"/*.cmake "$r"/*.cmake || false
    # the other paths, relative to the prefix, found from each file's place
    grep -q '^set(_sdtkit_up "../../..")$' "$d/sdtkit-config.cmake"
    grep -q "bindir=bin includedir=include)" "$d/sdtkit-config.cmake"
    ! grep -q "$MULTIARCH" "$d/sdtkit-config.cmake" || false
    grep -q '^set(_sdtkit_rt_up "../../../..")$' "$r/sdtkit-runtime-config.cmake"
    grep -q "includedir=include libdir=lib/$MULTIARCH)" "$r/sdtkit-runtime-config.cmake"
    # make uninstall removes them, and their directories
    cp -R "$STAGE" copy
    make -s -C "$ROOT" uninstall PREFIX=/usr LIBDIR=/usr/lib/$MULTIARCH DESTDIR="$PWD/copy" > /dev/null
    [ ! -e copy/usr/share/cmake/sdtkit ] && [ ! -e "copy/usr/lib/$MULTIARCH/cmake/sdtkit-runtime" ]
}

@test "find_package(sdtkit) on a DESTDIR install gives sdtkit::sdt, sdtkit::dtrace and SDTKIT_DTRACE there" {
    project p 'find_package(sdtkit REQUIRED)' \
        'get_target_property(inc sdtkit::sdt INTERFACE_INCLUDE_DIRECTORIES)' \
        'get_target_property(exe sdtkit::dtrace IMPORTED_LOCATION)' \
        'message(STATUS "version=${sdtkit_VERSION} dtrace=${SDTKIT_DTRACE} inc=${inc} exe=${exe}")' \
        'message(STATUS "runtime=${sdtkit_runtime_FOUND} stapsdt=${sdtkit_stapsdt_FOUND}")'
    run configure p
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"-- version=$(cat "$ROOT/VERSION") dtrace=$PFX/bin/dtrace inc=$PFX/include exe=$PFX/bin/dtrace"* ]]
    [[ "$output" == *"-- runtime=TRUE stapsdt=TRUE"* ]]
}

@test "the provider example builds against the DESTDIR install, and its program has its probes and semaphores" {
    cp -R "$ROOT/provider-examples/cmake" ex
    rm -rf ex/build ex/options
    configure ex > setup.log
    run cmake --build ex/build
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"dtrace -h: generating probes.h"* ]]
    [[ "$output" == *"dtrace -G: generating cmq-probes.o"* ]]
    grep -q "$PFX/bin/dtrace -h -s $PWD/ex/probes.d -o $PWD/ex/build/probes.h" \
        ex/build/CMakeFiles/cmq.dir/build.make
    [ "$(ex/build/cmq 2 | wc -l)" -eq 2 ]
    [ "$(note_probes ex/build/cmq | cut -f1 | sort -u | xargs)" = "cmq:done cmq:start" ]
    [ "$(note_field ex/build/cmq cmq:done Semaphore)" != 0x0000000000000000 ]
    # the header came from the staged <sys/sdt.h>
    grep -q -- "-I$PFX/include" ex/build/CMakeFiles/cmq.dir/flags.make
}

@test "sdtkit_add_provider: HEADER names the header, DEFINE_SEMAPHORES needs no object, FLAGS reach dtrace, two targets share a header" {
    mkdir -p p
    printf 'provider app {\n  probe start(int);\n#ifdef EXTRA\n  probe extra(int);\n#endif\n};\n' > p/app.d
    printf '#include "app-probes.h"\nint lib(int n) { APP_EXTRA(n); if (APP_START_ENABLED()) APP_START(n); return n; }\n' > p/lib.c
    printf '#include "app-probes.h"\nint lib(int);\nint main(void) { APP_START(1); return lib(2) - 2; }\n' > p/main.c
    project p 'find_package(sdtkit REQUIRED)' \
        'add_library(applib SHARED lib.c)' \
        'sdtkit_add_provider(applib app.d HEADER gen/app-probes.h DEFINE_SEMAPHORES FLAGS -C -DEXTRA)' \
        'add_executable(app main.c)' \
        'target_link_libraries(app applib)' \
        'sdtkit_add_provider(app app.d HEADER gen/app-probes.h DEFINE_SEMAPHORES FLAGS -C -DEXTRA)'
    configure p > setup.log
    cmake --build p/build > build.log
    p/build/app
    grep -q 'APP_EXTRA' p/build/gen/app-probes.h
    [ "$(note_probes p/build/libapplib.so | cut -f1 | sort -u | xargs)" = "app:extra app:start" ]
    [ "$(note_probes p/build/app | cut -f1 | sort -u | xargs)" = "app:start" ]
    # the semaphores are the header's: no -G object anywhere
    ! find p/build -name '*app.o' | grep -q . || false
    [ "$(grep -c 'dtrace -h: generating app-probes.h' build.log)" -eq 1 ]
    nm p/build/libapplib.so | grep -q ' app_start_semaphore$'
}

@test "sdtkit_add_provider attaches the -G object to a static library, and a program linking it gets the semaphores" {
    mkdir -p p
    printf 'provider st {\n  probe hit(long);\n};\n' > p/st.d
    printf '#include "st.h"\nlong f(long n) { if (ST_HIT_ENABLED()) ST_HIT(n); return n; }\n' > p/st.c
    printf 'long f(long);\nint main(void) { return (int) f(0); }\n' > p/main.c
    project p 'find_package(sdtkit REQUIRED)' 'add_library(st STATIC st.c)' \
        'sdtkit_add_provider(st st.d)' 'add_executable(m main.c)' 'target_link_libraries(m st)'
    configure p > setup.log
    cmake --build p/build > build.log
    p/build/m
    ar t p/build/libst.a | grep -qx st-st.o
    [ "$(note_field p/build/m st:hit Semaphore)" != 0x0000000000000000 ]
    nm p/build/m | grep -q ' st_hit_semaphore$'
}

@test "a cross build finds sdtkit, makes the -G object for the target's compiler, and no x86-64 run-time library" {
    need_arch aarch64
    mkdir -p p
    printf 'provider x {\n  probe hit(int);\n};\n' > p/x.d
    printf '#include "x.h"\nint main(int c, char **v) { (void) v; if (X_HIT_ENABLED()) X_HIT(c); return 0; }\n' > p/main.c
    project p 'find_package(sdtkit REQUIRED)' 'add_executable(x main.c)' 'sdtkit_add_provider(x x.d)' \
        'message(STATUS "runtime=${sdtkit_runtime_FOUND}")'
    configure p -DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=aarch64 \
        -DCMAKE_C_COMPILER=aarch64-linux-gnu-gcc > setup.log
    # the run-time libraries installed are x86-64's: not for this build
    grep -qx -- '-- runtime=FALSE' setup.log
    cmake --build p/build > build.log
    readelf -h p/build/x-x.o | grep -q 'Machine: *AArch64'
    readelf -h p/build/x | grep -q 'Machine: *AArch64'
    [ "$(note_probes p/build/x | cut -f1)" = x:hit ]
}

@test "find_package(sdtkit COMPONENTS runtime stapsdt): imported libraries build programs that load run-time probes, shared and static" {
    project p 'find_package(sdtkit REQUIRED COMPONENTS runtime stapsdt)' \
        "add_executable(native $ROOT/tests/release/rt-user.c)" \
        'target_link_libraries(native PRIVATE sdtkit::runtime)' \
        "add_executable(compat $ROOT/tests/release/rt-user.c)" \
        'target_compile_definitions(compat PRIVATE STAPSDT)' \
        'target_link_libraries(compat PRIVATE sdtkit::stapsdt)' \
        "add_executable(static $ROOT/tests/release/rt-user.c)" \
        'target_link_libraries(static PRIVATE sdtkit::runtime_static)'
    configure p > setup.log
    cmake --build p/build > build.log
    readelf -d p/build/native | grep -q '(NEEDED).*\[libsdtkit.so.1\]'
    readelf -d p/build/compat | grep -q '(NEEDED).*\[libstapsdt.so.0\]'
    ! readelf -d p/build/static | grep -q 'libsdtkit' || false
    local t
    for t in native compat static; do
        [ "$(LD_LIBRARY_PATH="$LIBD" p/build/$t)" = "fired 42 hello" ]
    done
}

@test "wrong uses of the package fail configuring, with a message that says what is wrong" {
    mkdir -p p
    printf 'provider a { probe b(); };\n' > p/a.d
    # CMake lines after find_package  |  the message expected
    local body want
    while IFS='|' read -r body want; do
        project p 'find_package(sdtkit REQUIRED)' 'add_executable(t main.c)' 'add_library(i INTERFACE)' "$body"
        printf 'int main(void) { return 0; }\n' > p/main.c
        rm -rf p/build
        run configure p
        [ "$status" -ne 0 ] || { echo "configured: $body"; false; }
        [[ "$(flat)" == *"$want"* ]] || { echo "$body: $output"; false; }
    done <<'EOF'
sdtkit_add_provider(nosuch a.d)|sdtkit_add_provider: nosuch is not a target
sdtkit_add_provider(i a.d)|sdtkit_add_provider: i is an interface library
sdtkit_add_provider(t missing.d)|sdtkit_add_provider: no provider file
sdtkit_add_provider(t a.d HEADERS x.h)|sdtkit_add_provider: unknown arguments: HEADERS;x.h
find_package(sdtkit REQUIRED COMPONENTS gui)|sdtkit has no component gui (it has runtime and stapsdt)
find_package(sdtkit 0.99 REQUIRED)|requested version "0.99"
EOF
}

@test "a missing run-time library is a missing component, not a broken package" {
    cp -R "$STAGE" part
    rm "part/usr/lib/$MULTIARCH"/libstapsdt.so*
    project p 'find_package(sdtkit REQUIRED COMPONENTS runtime OPTIONAL_COMPONENTS stapsdt)' \
        'message(STATUS "runtime=${sdtkit_runtime_FOUND} stapsdt=${sdtkit_stapsdt_FOUND}")' \
        'if(TARGET sdtkit::stapsdt)' 'message(FATAL_ERROR "sdtkit::stapsdt exists")' 'endif()'
    run cmake -S p -B p/build -DCMAKE_PREFIX_PATH="$PWD/part/usr"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"runtime=TRUE stapsdt=FALSE"* ]]
    # asked for, it is an error naming what is missing
    project p 'find_package(sdtkit REQUIRED COMPONENTS stapsdt)'
    rm -rf p/build
    run cmake -S p -B p/build -DCMAKE_PREFIX_PATH="$PWD/part/usr"
    [ "$status" -ne 0 ]
    [[ "$(flat)" == *"sdtkit's stapsdt library is not installed (sdtkit-runtime in $PWD/part/usr/lib/$MULTIARCH/cmake/sdtkit-runtime has none)"* ]]
    # and without the run-time package at all (as without libsdtkit-dev)
    rm -rf "part/usr/lib/$MULTIARCH/cmake/sdtkit-runtime" p/build
    run cmake -S p -B p/build -DCMAKE_PREFIX_PATH="$PWD/part/usr"
    [ "$status" -ne 0 ]
    [[ "$(flat)" == *"sdtkit's stapsdt library is not installed for this architecture (no sdtkit-runtime $(cat "$ROOT/VERSION") package)"* ]]
}

@test "an install found through a link to its directory, as Debian's /lib to /usr/lib, keeps the prefix it was installed for" {
    local prefix=$PWD/real
    make -s -C "$ROOT" install PREFIX="$prefix" > /dev/null
    ln -s "$prefix/share" share
    project p 'find_package(sdtkit REQUIRED)' 'message(STATUS "dtrace=${SDTKIT_DTRACE}")'
    run cmake -S p -B p/build -Dsdtkit_DIR="$PWD/share/cmake/sdtkit"
    echo "$output"
    [ "$status" -eq 0 ]
    # not $PWD/bin/dtrace, which counting directories up from the link gives
    [[ "$output" == *"-- dtrace=$prefix/bin/dtrace"* ]]
}

@test "sdtkit_add_probe_test: a test that fails when a probe of the target went away, passes on additions" {
    mkdir -p p
    printf '#include <sys/sdt.h>\nint main(int c, char **v) {\n  (void) v;\n  DTRACE_PROBE1(app, start, c);\n#ifdef EXTRA\n  DTRACE_PROBE(app, extra);\n#endif\n  return 0;\n}\n' > p/main.c
    # the previous release: the same program, with and without app:extra
    gcc -O2 -I "$PFX/include" p/main.c -o same
    gcc -O2 -I "$PFX/include" -DEXTRA p/main.c -o more
    project p 'find_package(sdtkit REQUIRED)' 'enable_testing()' 'add_executable(app main.c)' \
        'target_link_libraries(app sdtkit::sdt)' \
        "sdtkit_add_probe_test(app \${BASE})" \
        "sdtkit_add_probe_test(app \${BASE} NAME app-strict STRICT)" \
        "sdtkit_add_probe_test(app \${BASE} NAME app-narrow OPTIONS --provider other)" \
        'get_target_property(l sdtkit::sdt-list IMPORTED_LOCATION)' \
        'message(STATUS "sdt-list=${l}")'
    run configure p -DBASE="$PWD/same"
    [ "$status" -eq 0 ]
    [[ "$output" == *"-- sdt-list=$PFX/bin/sdt-list"* ]]
    cmake --build p/build > build.log
    # the same probes: every test passes
    (cd p/build && ctest --output-on-failure) > same.log
    # the baseline had app:extra: removed, the default and STRICT fail,
    # and the one comparing another provider passes
    configure p -DBASE="$PWD/more" > /dev/null
    run bash -c 'cd p/build && ctest --output-on-failure'
    [ "$status" -ne 0 ]
    [[ "$output" == *"- $PWD/p/build/app: app:extra: removed (1 site, 0 arguments)"* ]]
    [[ "$output" == *"The following tests FAILED:"*"app-probes"*"app-strict"* ]]
    [[ "$output" != *"app-narrow (Failed)"* ]]
    # the new build adds app:extra to the baseline: only STRICT fails
    gcc -O2 -I "$PFX/include" p/main.c -o less
    cmake -S p -B p/build -DBASE="$PWD/less" -DCMAKE_C_FLAGS=-DEXTRA > /dev/null
    cmake --build p/build > build.log
    run bash -c 'cd p/build && ctest --output-on-failure'
    [ "$status" -ne 0 ]
    [[ "$output" == *"+ $PWD/p/build/app: app:extra: added (1 site, 0 arguments)"* ]]
    [[ "$output" == *"The following tests FAILED:"*"app-strict"* ]]
    [[ "$output" != *"app-probes (Failed)"* ]]
    # a target that is not one
    project q 'find_package(sdtkit REQUIRED)' 'sdtkit_add_probe_test(nope old)'
    run configure q
    [ "$status" -ne 0 ]
    [[ "$(flat)" == *"sdtkit_add_probe_test: nope is not a target"* ]]
}

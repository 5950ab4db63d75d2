# SPDX-License-Identifier: MIT
# What the suites of the run-time libraries load, after helpers and
# tracers-helpers: programs built on the libraries under test (the pass's,
# with the flags its programs need: RT_CFLAGS), and started.
RT_LIBDIR=$SDTKIT_RUNTIME_LIBDIR
RT_CFLAGS=${SDTKIT_RUNTIME_CFLAGS:-}

# rt_build OUT SOURCE... [FLAGS...]: a program on both run-time libraries.
rt_build() {
    local out=$1
    shift
    [ -e "$RT_LIBDIR/libsdtkit.so.1" ] ||
        { echo "$RT_LIBDIR/libsdtkit.so.1 is not built (make runtime)"; return 1; }
    cc -std=gnu11 -O2 -g -Wall -Wextra -Werror $RT_CFLAGS -I "$INCLUDE" "$@" -o "$out" \
        "$RT_LIBDIR/libsdtkit.so.1" "$RT_LIBDIR/libstapsdt.so.0" -Wl,-rpath,"$RT_LIBDIR" -lpthread
}

# rt_fixtures: PROBES and SCRIPT, tests/runtime/probes.c and script.c
# built (in setup_file, for the suite: exported).
rt_fixtures() {
    export PROBES=$BATS_FILE_TMPDIR/probes SCRIPT=$BATS_FILE_TMPDIR/script
    rt_build "$PROBES" "$ROOT/tests/runtime/probes.c" && rt_build "$SCRIPT" "$ROOT/tests/runtime/script.c"
}

# rt_start OUT ARGS...: the probes fixture in the background, output in
# OUT; once it has loaded, RT_PID is its pid and RT_PATH its object's path.
rt_start() {
    local out=$1
    shift
    bg "$out" "$PROBES" "$@"
    RT_PID=$BG_PID
    wait_for "$out" '^ready$' || return 1
    RT_PATH=$(head -1 "$out")
}

# SPDX-License-Identifier: MIT
# Helpers of the run-time probe suites (tests/runtime*.bats): building
# programs on the run-time libraries and starting them.  Load after
# helpers and tracers-helpers.

# The libraries under test: `make check` points these at the sanitizer
# build in its second pass, with the flags its programs need.
RT_LIBDIR=$SDTKIT_RUNTIME_LIBDIR
RT_CFLAGS="${SDTKIT_RUNTIME_CFLAGS:-}"
RT_VALUES="$ROOT/tests/runtime/values"

# rt_build OUT SOURCE... [FLAGS...]: a program on both run-time libraries.
rt_build() {
    local out=$1
    shift
    [ -e "$RT_LIBDIR/libsdtkit.so.1" ] ||
        { echo "$RT_LIBDIR/libsdtkit.so.1 is not built (make runtime)"; return 1; }
    cc -std=gnu11 -O2 -g -Wall -Wextra -Werror $RT_CFLAGS -I "$INCLUDE" "$@" -o "$out" \
        "$RT_LIBDIR/libsdtkit.so.1" "$RT_LIBDIR/libstapsdt.so.0" -Wl,-rpath,"$RT_LIBDIR" -lpthread
}

# rt_fixtures: PROBES and SCRIPT (tests/runtime/probes.c and script.c),
# built once per suite.
rt_fixtures() {
    PROBES=$BATS_FILE_TMPDIR/probes
    SCRIPT=$BATS_FILE_TMPDIR/script
    [ -x "$PROBES" ] || rt_build "$PROBES" "$ROOT/tests/runtime/probes.c" || return 1
    [ -x "$SCRIPT" ] || rt_build "$SCRIPT" "$ROOT/tests/runtime/script.c" || return 1
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

# rt_case FILE: run the case file's "> " lines through the script driver
# and compare what it prints with the file's other lines (comments aside).
rt_case() {
    local input expected got
    input=$(sed -n 's/^> //p' "$1")
    expected=$(grep -v '^[>#]' "$1")
    got=$("$SCRIPT" <<<"$input" 2>&1)
    [ "$got" = "$expected" ] || { diff <(echo "$expected") <(echo "$got"); return 1; }
}

#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The run-time libraries against an executable model of their two APIs'
# contracts (tests/runtime/model.h): random sequences of calls of both APIs,
# four providers of each at once, every answer compared with the model's,
# the objects' notes included, while a thread fires and tests every handle
# (tests/runtime/model.c); replays of sequences it found
# (tests/runtime/replays/); the same under ThreadSanitizer and valgrind.
# Each run says how many sequences, calls and answers it compared.

load helpers
load tracers-helpers
load runtime-helpers

# MODEL: tests/runtime/model.c on the pass's libraries.
setup_file() {
    export MODEL=$BATS_FILE_TMPDIR/model
    rt_build "$MODEL" "$ROOT/tests/runtime/model.c"
}

# modelled PROGRAM ARGS...: a run of the model test, named files in a
# directory of the test's own; it must end "0 crashed, 0 mismatched",
# exit 0 and leave no named file.  Its last line goes to the report.
modelled() {
    mkdir -p named
    run timeout "$HANG_SECONDS" "$@" -d "$PWD/named"
    echo "$output" | head -100
    echo "# ${lines[-1]}" >&3
    [ "$status" -eq 0 ]
    [[ "${lines[-1]}" == "model: "*"; 0 crashed, 0 mismatched" ]]
    [ -z "$(ls -A named)" ] || { ls -A named; false; }
}

# Shrinking a failure takes hundreds of runs: the normal pass's.
shrinks() { [ -z "$RT_CFLAGS" ] || echo -x; }

@test "random sequences of both APIs answer every call as the model of their contracts says, while a thread fires every handle" {
    # (ASan's processes are slower: half as many)
    modelled "$MODEL" -n "$([ -z "$RT_CFLAGS" ] && echo 60 || echo 30)" $(shrinks)
}

@test "libstapsdt's API used as libstapsdt documents it answers as the model says (the sequences libstapsdt's own library passes)" {
    # (model -L runs them on libstapsdt's library, with its rules where
    # <libstapsdt.h> lists a difference)
    modelled "$MODEL" -U -s 1001 -n "$([ -z "$RT_CFLAGS" ] && echo 40 || echo 20)" $(shrinks)
}

@test "the native API alone, with no probe added while loaded, answers as the model says" {
    modelled "$MODEL" -a native -l -s 2001 -n "$([ -z "$RT_CFLAGS" ] && echo 40 || echo 20)" $(shrinks)
}

@test "every replay of tests/runtime/replays runs through the library as the model says" {
    local f
    mkdir -p named
    for f in "$ROOT"/tests/runtime/replays/*.replay; do
        run "$MODEL" -r -d "$PWD/named" <"$f"
        [ "$status" -eq 0 ] || { echo "$output" | tail -30; echo "${f##*/}: status $status"; false; }
        [[ "${lines[-1]}" == "model: replay of "*"; 0 mismatched" ]] || { echo "${f##*/}: ${lines[-1]}"; false; }
    done
    [ -z "$(ls -A named)" ]
}

# (the model test's own machinery: the normal pass alone)
# bats test_tags=normal-pass-only
@test "a replay is read back call by call, each printed with its answers" {
    printf '# a comment\n> n0 create app\n> n0 error\n> n0 unload\n> n0 error\n> strerror -4\n> h0 probe\nbogus line\nc1 init my-app\n' >r
    run "$MODEL" -r <r
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "model: not a call: bogus line" ]
    [ "${lines[1]}" = '1: n0 create app: status=0 out=set' ]
    [ "${lines[2]}" = '2: n0 error: error=""' ]
    [[ "${lines[3]}" == "3: n0 unload: status=SDTKIT_E_STATE error=\""*"not loaded\" path=NULL" ]]
    [[ "${lines[4]}" == "4: n0 error: error=\""*"not loaded\"" ]]
    [[ "${lines[5]}" == '5: strerror -4: strerror="SDTKIT_E_STATE: '* ]]
    [ "${lines[6]}" = '6: h0 probe: (skipped: nothing to call it on)' ]
    [[ "${lines[7]}" == '7: c1 init my-app: provider=set name="my-app" probes=NULL '* ]]
    [ "${lines[-1]}" = "model: replay of 7 calls: 8 calls, 16 answers compared; 0 mismatched" ]
    run "$MODEL" -a neither
    [ "$status" -eq 2 ]
    [[ "$output" == "usage: model "* ]]
}

# bats test_tags=normal-pass-only
@test "a library that answers wrong is caught: the seed, the call, both answers, and a replay of one call" {
    # sdtkit_provider_unload answering SDTKIT_E_EXISTS, never its answer:
    # the program's own, which its calls reach first
    printf '#include <sdtkit.h>\nint sdtkit_provider_unload(sdtkit_provider *pv) { (void)pv; return SDTKIT_E_EXISTS; }\n' >wrong.c
    rt_build wrong "$ROOT/tests/runtime/model.c" wrong.c
    run ./wrong -a native -l -s 5 -n 1 -c 40 -t
    echo "$output"
    [ "$status" -eq 1 ]
    local at
    at=$(grep -n '^seed 5: call [0-9]* of 40, n[0-3] unload: status differs (the sequence stops)$' <<<"$output" |
        cut -d: -f1)
    [ -n "$at" ]
    [[ "${lines[at]}" == '  library: status=SDTKIT_E_EXISTS'* ]]
    [[ "${lines[at + 1]}" =~ ^'  model:   status='(0|SDTKIT_E_INVALID|SDTKIT_E_STATE)( |$) ]]
    # shrunk to the one call: an unload where there is no provider
    grep -A1 '^replay of seed 5, 1 calls (model -r < FILE, these lines):$' <<<"$output" | tail -1 >replay
    grep -q '^> n[0-3] unload$' replay
    run ./wrong -r <replay
    echo "$output"
    [ "$status" -eq 1 ]
    [[ "${lines[0]}" =~ ^'1: n'[0-3]' unload: status=SDTKIT_E_EXISTS'$ ]]
    [[ "${lines[1]}" =~ ^'replay: call 1 of 1, n'[0-3]' unload: status differs (the sequence stops)'$ ]]
    [ "${lines[3]}" = "  model:   status=SDTKIT_E_INVALID" ]
    [ "${lines[-1]}" = "model: replay of 1 calls: 1 calls, 1 answers compared; 1 mismatched" ]
}

# (ThreadSanitizer and AddressSanitizer do not mix: the normal pass alone)
# bats test_tags=normal-pass-only
@test "the random sequences under ThreadSanitizer, gcc and clang: no data race beside the firing thread" {
    need_cmd clang
    local cc
    make_srcs RT_COMPAT_SRCS
    for cc in gcc clang; do
        "$cc" -std=c11 -O1 -g -fsanitize=thread -D_POSIX_C_SOURCE=200809L \
            -DSDTKIT_VERSION='"test"' -I "$INCLUDE" "$ROOT/tests/runtime/model.c" "${SRCS[@]}" \
            -o "model-$cc" -ldl -lpthread
        TSAN_OPTIONS=halt_on_error=1:exitcode=66 modelled "./model-$cc" -n 12 -x ||
            { echo "($cc)"; false; }
    done
}

# (the asan pass checks the same under ASan)
# bats test_tags=normal-pass-only
@test "the random sequences under valgrind: no invalid access, no leak definite or possible" {
    need_cmd valgrind
    # each sequence's process is valgrind's too: a report there makes it
    # exit 9, which the model test counts as a crash
    modelled valgrind -q --error-exitcode=9 --leak-check=full \
        --errors-for-leak-kinds=definite,possible "$MODEL" -n 4 -x
}

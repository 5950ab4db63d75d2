#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The libFuzzer harnesses (fuzz/): they build, run their seeds and past
# crashes cleanly, and `make fuzz` reports what it ran.  The long runs are
# `make fuzz`'s business; this keeps the harnesses compiling and working.

load helpers

setup_file() {
    export FUZZ_BUILD="$BATS_FILE_TMPDIR/fuzz"
    # clang with the libFuzzer runtime (Debian: libclang-rt-14-dev)?
    command -v clang >/dev/null 2>&1 || return 0
    echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }' \
        >"$BATS_FILE_TMPDIR/probe.c"
    clang -fsanitize=fuzzer "$BATS_FILE_TMPDIR/probe.c" -o "$BATS_FILE_TMPDIR/probe" \
        2>/dev/null || return 0
    make -s -C "$ROOT" fuzz-build FUZZ_DIR="$FUZZ_BUILD" >"$BATS_FILE_TMPDIR/build.log" 2>&1 ||
        { cat "$BATS_FILE_TMPDIR/build.log" >&3; return 1; }
}

need_harnesses() {
    [ -x "$FUZZ_BUILD/parse_fuzz" ] || missing "clang with libFuzzer is not installed (.ci/run installs libclang-rt-14-dev)"
}

HARNESSES="lex parse objread runtime"

@test "every harness builds and fuzzes 2000 inputs from its seeds without a finding, the run-time one 300" {
    need_harnesses
    local runs
    for h in $HARNESSES; do
        seeds=$h runs=2000
        [ "$h" = lex ] && seeds=parse
        # (an input of the run-time harness loads objects and forks: make
        # fuzz runs about 9 a second of them, of the others 1,000 or more)
        [ "$h" = runtime ] && runs=300
        mkdir -p "$BATS_TEST_TMPDIR/$h"
        cp "$ROOT/fuzz/corpus/$seeds"/* "$BATS_TEST_TMPDIR/$h/"
        run "$FUZZ_BUILD/${h}_fuzz" -runs=$runs -seed=1 -timeout=10 -close_fd_mask=3 \
            -dict="$ROOT/fuzz/$seeds.dict" -artifact_prefix="$BATS_TEST_TMPDIR/$h-" \
            "$BATS_TEST_TMPDIR/$h"
        [ "$status" -eq 0 ] || { echo "$h: status $status"; echo "$output"; return 1; }
        [[ "$output" == *"Done $runs runs"* ]]
        [ -z "$(ls "$BATS_TEST_TMPDIR" | grep -- "^$h-")" ]
    done
}

@test "each seed and each past crash runs cleanly through its harness" {
    need_harnesses
    for h in $HARNESSES; do
        seeds=$h
        [ "$h" = lex ] && seeds=parse
        files=("$ROOT/fuzz/corpus/$seeds"/*)
        if [ -d "$ROOT/fuzz/regressions/$h" ]; then
            files+=("$ROOT/fuzz/regressions/$h"/*)
        fi
        run "$FUZZ_BUILD/${h}_fuzz" -timeout=10 "${files[@]}"
        [ "$status" -eq 0 ] || { echo "$h: status $status"; echo "$output"; return 1; }
        [ "$(grep -c '^Executed ' <<<"$output")" -eq "${#files[@]}" ]
    done
}

@test "the committed seeds are what their harnesses expect" {
    # the objread seeds cover both classes, both byte orders and the archive kinds
    need_cmd file
    cd "$ROOT/fuzz/corpus/objread"
    file -b x86_64.o | grep -q '^ELF 64-bit LSB relocatable'
    file -b i686.o | grep -q '^ELF 32-bit LSB relocatable'
    file -b s390x.o | grep -q '^ELF 64-bit MSB relocatable'
    file -b s390-31.o | grep -q '^ELF 32-bit MSB relocatable'
    [ "$(head -c 8 gnu.a)" = '!<arch>' ]
    grep -qa '^a_member_with_a_long_name.o/$' gnu.a
    [ "$(head -c 8 thin.a)" = '!<thin>' ]
    grep -qa '#1/' bsd.a
    "$SDT_LIST" x86_64.o s390x.o gnu.a | grep -c $'\tseed\thit\t' |
        grep -qx 4
}

@test "the run-time seeds and past crash are what fuzz/make-runtime-seeds writes" {
    mkdir -p gen/fuzz
    (cd gen && "$ROOT/fuzz/make-runtime-seeds" >/dev/null)
    local f n=0
    for f in gen/fuzz/corpus/runtime/* gen/fuzz/regressions/runtime/*; do
        cmp "$f" "$ROOT/${f#gen/}" || { echo "${f#gen/} differs from what the script writes"; false; }
        n=$((n + 1))
    done
    [ "$n" -ge 7 ]
    # the past crash is a seed too (the 2,000 inputs start from the seeds)
    for f in "$ROOT"/fuzz/regressions/runtime/*; do
        cmp "$f" "$ROOT/fuzz/corpus/runtime/${f##*/}"
    done
}

@test "make fuzz runs every harness for FUZZ_SECONDS and reports executions and findings" {
    need_harnesses
    run make -s -C "$ROOT" fuzz FUZZ_SECONDS=1 FUZZ_DIR="$FUZZ_BUILD"
    [ "$status" -eq 0 ]
    for h in $HARNESSES; do
        [[ "$output" == *"fuzz: $h for 1s"* ]]
        line=$(grep "^$h " <<<"$output")
        # harness seconds executions exec/s corpus rss_mb found
        read -r name secs runs rate corpus rss found <<<"$line"
        [ "$secs" -eq 1 ]
        # every seed runs before the clock is looked at; how many more the
        # second holds is the machine's load, not the harness's (a loaded
        # machine gave runtime's 69)
        seeds=$h
        [ "$h" = lex ] && seeds=parse
        [ "$runs" -ge "$(ls "$ROOT/fuzz/corpus/$seeds" | wc -l)" ]
        [ "$corpus" -gt 0 ]
        [ "$found" -eq 0 ]
    done
    # the committed seeds are not touched
    [ -z "$(git -C "$ROOT" status --porcelain fuzz/corpus)" ]
}

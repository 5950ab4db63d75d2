#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The harness: a test lacking something fails under CI naming its package,
# else skips; what the machine refuses skips everywhere; tests/run's passes.

load helpers
load tracers-helpers

setup() {
    HOLDERS=()
}

teardown() {
    [ ${#HOLDERS[@]} -eq 0 ] || kill "${HOLDERS[@]}" 2>/dev/null || true
}

# inner NAME BODY: a one-test suite NAME.bats that loads our helpers.
inner() {
    printf 'load %s/tests/helpers\n@test "inner" {\n%s\n}\n' "$ROOT" "$2" > "$1.bats"
}

@test "a missing command fails under CI, naming its package, and skips elsewhere" {
    # a shell that finds no valgrind
    inner t 'command() { [ "$2" != valgrind ] && builtin command "$@"; }; need_cmd valgrind aarch64-linux-gnu-gcc'
    run fresh env CI=true bats --tap t.bats
    [ "$status" -eq 1 ]
    [[ "$output" == *"not ok 1 inner"* ]]
    [[ "$output" == *"missing under CI: valgrind is not installed (.ci/run installs it from package valgrind)"* ]]
    run fresh env -u CI bats --tap t.bats
    [ "$status" -eq 0 ]
    [[ "$output" == *"ok 1 inner # skip valgrind is not installed"* ]]
}

@test "a cross compiler is named with its Debian package" {
    [ "$(package_of aarch64-linux-gnu-gcc)" = gcc-aarch64-linux-gnu ]
    [ "$(package_of mips64el-linux-gnuabi64-g++)" = g++-mips64el-linux-gnuabi64 ]
    [ "$(package_of ninja)" = ninja-build ]
    [ "$(arch_field alpha libc)" = libc6.1-dev-alpha-cross ]
    [ "$(arch_gcc armel)" = arm-linux-gnueabi-gcc ]
}

@test "a cross compiler without its C library is missing its libc6-dev package" {
    # a fake gcc that finds no libc.a, as gcc says it: the name alone
    mkdir bin
    printf '#!/bin/sh\necho libc.a\n' > bin/aarch64-linux-gnu-gcc
    chmod +x bin/aarch64-linux-gnu-gcc
    inner t 'need_arch aarch64'
    run fresh env CI=true PATH="$PWD/bin:$PATH" bats --tap t.bats
    [ "$status" -eq 1 ]
    [[ "$output" == *"aarch64-linux-gnu-gcc has no C library: libc.a not found (.ci/run installs libc6-dev-arm64-cross)"* ]]
}

@test "a helper of a file the suite did not load fails naming the file to load, not as a command bash did not find" {
    inner t 'need_bpftrace'
    run fresh bats --tap t.bats
    [ "$status" -eq 1 ]
    [[ "$output" == *"failed with status 127"* ]]
    [[ "$output" == *"need_bpftrace is a helper of tests/tracers-helpers.bash, which this suite does not load: add \`load tracers-helpers\` after \`load helpers\`"* ]]
    [[ "$output" != *"command not found"* ]]
    inner t 'rt_build x x.c'
    run fresh bats --tap t.bats
    [[ "$output" == *"rt_build is a helper of tests/runtime-helpers.bash"* ]]
    # a command no helper file has is not found, as bash says
    inner t 'no-such-helper-xyz'
    run fresh bats --tap t.bats
    [ "$status" -eq 1 ]
    [[ "$output" == *"no-such-helper-xyz: command not found"* ]]
}

@test "what the machine refuses skips under CI too, and says so" {
    inner t 'refused "no uprobes in this kernel"'
    run fresh env CI=true bats --tap t.bats
    [ "$status" -eq 0 ]
    [[ "$output" == *"ok 1 inner # skip the machine refuses: no uprobes in this kernel"* ]]
}

@test "under CI the provider corpus and SystemTap's header are required too" {
    inner t 'CORPUS=/nonexistent; need_corpus'
    run fresh env CI=true bats --tap t.bats
    [ "$status" -eq 1 ]
    [[ "$output" == *"no provider corpus at /nonexistent"* ]]
    inner t 'STAP_INCLUDE_DIR=; need_stap_header'
    run fresh env CI=true bats --tap t.bats
    [ "$status" -eq 1 ]
    [[ "$output" == *"installs systemtap-sdt-dev"* ]]
}

# variants [UNBUILT...]: SDTKIT_VARIANTS, a table of four passes, each with
# programs of its own in v/NAME (that do nothing), but the UNBUILT ones.
variants() {
    local v
    rm -rf v
    echo 'name  dir  bin  check  package' >variants.table
    for v in normal:all asan:sanitized musl:tools musl-static:tools; do
        mkdir -p "v/${v%:*}"
        [[ " $* " == *" ${v%:*} "* ]] || printf '#!/bin/sh\n' | tee "v/${v%:*}/dtrace" "v/${v%:*}/sdt-list" >/dev/null
        chmod -f +x "v/${v%:*}"/* || true
        echo "${v%:*}  $PWD/v/${v%:*}  $PWD/v/${v%:*}  ${v#*:}  pkg-${v%:*}" >>variants.table
    done
    export SDTKIT_VARIANTS=$PWD/variants.table
}

@test "tests/run sums all passes in one last line, lists skips and failures, and runs the asan pass after a failure" {
    printf '@test "a" { true; }\n@test "b" { skip "why not"; }\n@test "c" { false; }\n' > plain.bats
    printf '@test "d" { true; }\n@test "e" { [[ $SDTKIT_DTRACE == */v/asan/dtrace ]]; }\n' > dtrace-x.bats
    # no musl build: each musl pass is one skipped test
    variants musl musl-static
    run fresh env -u CI SANITIZED_SUITES=dtrace-x.bats "$ROOT/tests/run" "$PWD/plain.bats" "$PWD/dtrace-x.bats"
    [ "$status" -eq 1 ]
    # d passes twice, e once (in the asan pass, with its programs)
    [ "${lines[${#lines[@]}-1]}" = "4 passed, 2 failed, 3 skipped" ]
    [[ "$output" == *"== tier all, passes: normal asan musl musl-static, 3 suite runs, "* ]]
    [[ "$output" == *"== asan pass:"* ]]
    [[ "$output" == *"normal: b -- why not"* ]]
    [[ "$output" == *"musl: the musl pass -- no $PWD/v/musl/dtrace: make check builds it when its compiler is installed (.ci/run installs pkg-musl)"* ]]
    [[ "$output" == *"normal: c"* ]]
    [[ "$output" == *"normal: e"* ]]
    # a clean run exits 0
    run fresh env -u CI SANITIZED_SUITES=dtrace-x.bats "$ROOT/tests/run" "$PWD/dtrace-x.bats"
    [ "${lines[${#lines[@]}-1]}" = "3 passed, 1 failed, 2 skipped" ]
    printf '@test "d" { true; }\n' > dtrace-y.bats
    run fresh env -u CI SANITIZED_SUITES=dtrace-y.bats "$ROOT/tests/run" "$PWD/dtrace-y.bats"
    [ "$status" -eq 0 ]
    [ "${lines[${#lines[@]}-1]}" = "2 passed, 0 failed, 2 skipped" ]
}

@test "tests/run runs the programs' suites again with the musl builds, and under CI a missing one fails" {
    variants
    printf '@test "d" { true; }\n@test "e" { [ "$SDTKIT_DTRACE" = "%s" ]; }\n' "$PWD/v/musl-static/dtrace" > dtrace-x.bats
    run fresh env SANITIZED_SUITES=dtrace-x.bats "$ROOT/tests/run" "$PWD/dtrace-x.bats"
    [ "$status" -eq 1 ]
    [[ "$output" == *"== musl pass: $PWD/dtrace-x.bats"* ]]
    [[ "$output" == *"== musl-static pass: $PWD/dtrace-x.bats"* ]]
    # d in all four passes, e only where SDTKIT_DTRACE is the static musl one
    [ "${lines[${#lines[@]}-1]}" = "5 passed, 3 failed, 0 skipped" ]
    # under CI, no musl build is a failure of each musl pass, naming the package
    printf '@test "d" { true; }\n' > dtrace-y.bats
    variants musl musl-static
    run fresh env CI=true SANITIZED_SUITES=dtrace-y.bats "$ROOT/tests/run" "$PWD/dtrace-y.bats"
    [ "$status" -eq 1 ]
    [ "${lines[${#lines[@]}-1]}" = "2 passed, 2 failed, 0 skipped" ]
    [[ "$output" == *"no $PWD/v/musl/dtrace: make check builds it when its compiler is installed (.ci/run installs pkg-musl)"* ]]
}

@test "each pass runs in its own directory with its variant's programs and libraries, the asan pass's sanitized" {
    variants
    # each pass writes its environment; every test starts in its own directory
    printf '@test "env" {\n    [ "$PWD" = "$BATS_TEST_TMPDIR" ]\n    env | grep -E "^(SDTKIT_(DTRACE|SDT_LIST|RUNTIME_[A-Z]*)|[AU][A-Z]*SAN_OPTIONS)=" | sort >%s/${SDTKIT_DTRACE//\//_}\n}\n' \
        "$PWD" > dtrace-env.bats
    sed -i "1i load $ROOT/tests/helpers" dtrace-env.bats
    run fresh env SANITIZED_SUITES=dtrace-env.bats "$ROOT/tests/run" "$PWD/dtrace-env.bats"
    [ "$status" -eq 0 ]
    [ "${lines[${#lines[@]}-1]}" = "4 passed, 0 failed, 0 skipped" ]
    v=$PWD/v e=${PWD//\//_}_v
    [ "$(cat "${e}_normal_dtrace")" = "$(printf '%s\n' SDTKIT_DTRACE=$v/normal/dtrace SDTKIT_RUNTIME_LIBDIR=$v/normal SDTKIT_SDT_LIST=$v/normal/sdt-list)" ]
    grep -qx "SDTKIT_RUNTIME_LIBDIR=$v/asan" "${e}_asan_dtrace"
    grep -qx "SDTKIT_RUNTIME_CFLAGS=-fsanitize=address,undefined" "${e}_asan_dtrace"
    grep -q "^ASAN_OPTIONS=.*abort_on_error=1" "${e}_asan_dtrace"
    grep -q "^UBSAN_OPTIONS=.*halt_on_error=1" "${e}_asan_dtrace"
    grep -qx "SDTKIT_SDT_LIST=$v/musl-static/sdt-list" "${e}_musl-static_dtrace"
    # the tools passes test the tools alone: the run-time libraries are normal's
    grep -qx "SDTKIT_RUNTIME_LIBDIR=$v/normal" "${e}_musl_dtrace"
    ! grep -q SAN_OPTIONS "${e}_musl_dtrace" || false
}

@test "every run of a full make check has its line in tests/check-times: every suite in each pass it runs in" {
    local p s runs missing=()
    runs=$(fresh "$ROOT/tests/run" --plan)
    # every suite in the first pass, the sanitized ones in two more (the
    # static musl programs have none: tests/musl.bats compares them)
    [ "$(grep -c '^normal ' <<<"$runs")" -eq "$(ls "$ROOT"/tests/*.bats | wc -l)" ]
    grep -q '^asan tests/runtime.bats$' <<<"$runs"
    grep -q '^musl tests/dtrace-cli.bats$' <<<"$runs"
    ! grep -q '^musl tests/runtime.bats$' <<<"$runs" || false
    ! grep -q '^musl-static ' <<<"$runs" || false
    while read -r p s; do
        grep -q "^$p ${s##*/} " "$ROOT/tests/check-times" || missing+=("$p ${s##*/}")
    done <<<"$runs"
    [ ${#missing[@]} -eq 0 ] || { printf 'no line in tests/check-times: %s\n' "${missing[@]}"; false; }
}

@test "the passes after the first run the declared suites only, not their tests tagged normal-pass-only" {
    printf '@test "a" { true; }\n' > once.bats
    printf '@test "b" { true; }\n# bats test_tags=normal-pass-only\n@test "c" { [[ $SDTKIT_DTRACE == */v/normal/* ]]; }\n' > twice.bats
    variants
    run fresh env SANITIZED_SUITES="other.bats twice.bats" "$ROOT/tests/run" "$PWD/once.bats" "$PWD/twice.bats"
    [ "$status" -eq 0 ]
    # a, b and c, then b alone in each of the three other passes
    [ "${lines[${#lines[@]}-1]}" = "6 passed, 0 failed, 0 skipped" ]
    [[ "$output" == *"== asan pass: $PWD/twice.bats"* ]]
    [[ "$output" == *"== musl-static pass: $PWD/twice.bats"* ]]
}

@test "the first pass runs beside the others, and SDTKIT_CHECK_SERIAL=1 runs them in turn: the same results" {
    # "meet" passes only when the first and the sanitizer pass run together
    printf '@test "meet" {\n    local me=first other=again\n    [[ $SDTKIT_DTRACE == */v/normal/* ]] || { me=again other=first; }\n    touch "%s/$me"\n    for i in $(seq 1 300); do [ -e "%s/$other" ] && return 0; sleep 0.1; done\n    false\n}\n@test "b" { [[ $SDTKIT_DTRACE == */v/normal/* ]]; }\n' "$PWD" "$PWD" > dtrace-x.bats
    printf '@test "a" { true; }\n@test "b" { [[ $SDTKIT_DTRACE == */v/normal/* ]]; }\n' > dtrace-y.bats
    variants
    run fresh env SANITIZED_SUITES=dtrace-x.bats "$ROOT/tests/run" "$PWD/dtrace-x.bats"
    [ "$status" -eq 1 ]
    # meet passes in all four passes, b only in the first
    [ "${lines[${#lines[@]}-1]}" = "5 passed, 3 failed, 0 skipped" ]
    run fresh env SDTKIT_CHECK_SERIAL=1 SANITIZED_SUITES=dtrace-y.bats "$ROOT/tests/run" "$PWD/dtrace-y.bats"
    [ "$status" -eq 1 ]
    [ "${lines[${#lines[@]}-1]}" = "5 passed, 3 failed, 0 skipped" ]
    # in turn, the passes' reports come in order
    [ "$(grep -o '^== [a-z-]* pass' <<<"$output" | tr '\n' ' ')" = "== normal pass == asan pass == musl pass == musl-static pass " ]
}

# where_run ENV...: tests/run's normal pass of a suite that records where
# its files went, with ENV; prints TMPDIR and bats' run directory.
where_run() {
    printf '@test "where" { echo "$TMPDIR $BATS_RUN_TMPDIR" > %s/where; }\n' "$PWD" > where.bats
    rm -f where
    fresh env "$@" SDTKIT_PASSES=normal "$ROOT/tests/run" "$PWD/where.bats" > run.out ||
        { cat run.out; return 1; }
    cat where
}

@test "tests/run keeps the run's files on a tmpfs programs run from when TMPDIR names none, else in /tmp, or in TMPDIR, and leaves none" {
    mkdir mine
    # TMPDIR given: there; what a test leaves in TMPDIR goes with the run
    printf '@test "leaves" { touch "$TMPDIR/left"; }\n' > leaves.bats
    run fresh env TMPDIR="$PWD/mine" SDTKIT_CHECK_TMPFS=/dev/shm SDTKIT_PASSES=normal \
        "$ROOT/tests/run" "$PWD/leaves.bats"
    [ "$status" -eq 0 ]
    [ -z "$(ls -A mine)" ]
    [[ "$(where_run TMPDIR="$PWD/mine" SDTKIT_CHECK_TMPFS=/dev/shm)" == "$PWD/mine/sdtkit-check."*/tmp" $PWD/mine/sdtkit-check."*/tmp/bats-run-* ]]
    # a candidate that is no tmpfs (the checkout, or /var/tmp): /tmp
    local d disk=
    for d in "$ROOT" /var/tmp; do
        [ "$(stat -f -c %T "$d")" = tmpfs ] || { disk=$d; break; }
    done
    [ -n "$disk" ] || skip "the checkout and /var/tmp are both on a tmpfs"
    [[ "$(where_run -u TMPDIR SDTKIT_CHECK_TMPFS="$disk")" == "/tmp/sdtkit-check."* ]]
    # a tmpfs: the first that takes programs
    [ "$(stat -f -c %T /dev/shm)" = tmpfs ] && [ "$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')" -ge 8388608 ] ||
        skip "this machine's /dev/shm is no tmpfs with 8 GiB free"
    [[ "$(where_run -u TMPDIR SDTKIT_CHECK_TMPFS="$disk /dev/shm")" == "/dev/shm/sdtkit-check."* ]]
    # one mounted noexec is passed over (a mount of this test's own)
    [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null ||
        skip "mounting a noexec tmpfs takes root and unshare"
    mkdir noexec
    run fresh unshare --mount sh -c "mount -t tmpfs -o noexec,size=16g tmpfs '$PWD/noexec' &&
        env -u TMPDIR SDTKIT_CHECK_TMPFS='$PWD/noexec /dev/shm' SDTKIT_PASSES=normal '$ROOT/tests/run' '$PWD/where.bats'"
    [ "$status" -eq 0 ]
    [[ "$(cat where)" == "/dev/shm/sdtkit-check."* ]]
}

@test "a process that ignores the signal stop sends is named, with what its threads are doing" {
    bash -c 'trap "" TERM; echo up; exec sleep 1000' > up.txt 3>&- &
    pid=$!
    wait_for up.txt '^up$'
    st=0
    HANG_SECONDS=1 stop "$pid" > stop.txt || st=$?
    kill -KILL "$pid"
    cat stop.txt
    [ "$st" -eq 1 ]
    grep -qx "pid $pid did not stop on SIGTERM" stop.txt
    grep -q "^== $pid: sleep 1000" stop.txt
    grep -q "^State:" stop.txt
    grep -q "^-- thread $pid: sleep " stop.txt
}

@test "stop sends its signal again until the process ends, as bpftrace 0.17 may lose one" {
    # ends at the second SIGTERM only, as bpftrace may
    bash -c 'n=0; trap "n=\$((n + 1)); [ \$n -lt 2 ] || exit 0" TERM; echo up; while :; do sleep 0.05; done' > up.txt 3>&- &
    pid=$!
    wait_for up.txt '^up$'
    HANG_SECONDS=30 stop "$pid"
    ! kill -0 "$pid" 2>/dev/null
}

@test "no background program the suites signal runs under timeout(1), which can miss its child's end" {
    # tracers-helpers.bash's bg says why; a full run met it twice
    run grep -nE '(^|[;&|(]|then|do)[[:space:]]*bg[[:space:]]+[^[:space:]]+[[:space:]]+(env[[:space:]]+([A-Za-z_]+=[^[:space:]]*[[:space:]]+)*)?timeout[[:space:]]' \
        "$ROOT"/tests/*.bats "$ROOT"/tests/*.bash
    [ "$status" -eq 1 ] || { echo "$output"; false; }
}

@test "a failing test is reported at its line and the helper's, without bats' DEBUG trap, which bats --trace keeps" {
    mkdir t
    printf '%s\n' 'quiet_fail() {' '    local x=1' '    [ "$x" = 2 ]' '}' > t/h.bash
    printf '%s\n' "load $ROOT/tests/helpers" 'load h' 'setup_file() { [ -z "${FAIL_FILE:-}" ]; }' \
        '@test "in the body" {' '    true' '    [ 1 = 2 ]' '}' '@test "in a helper" {' '    true' \
        '    quiet_fail' '    echo not here' '}' '@test "traps" {' '    trap -p DEBUG ERR >&3' '}' > t/x.bats
    run fresh bats t/x.bats
    [ "$status" -eq 1 ]
    [[ "$output" == *"not ok 1 in the body"*"(in test file t/x.bats, line 6)"*"\`[ 1 = 2 ]' failed"* ]]
    [[ "$output" == *"not ok 2 in a helper"*"(from function \`quiet_fail' in file t/h.bash, line 3,"*"in test file t/x.bats, line 10)"*"\`quiet_fail' failed"* ]]
    [[ "$output" != *"not here"* ]]
    # no DEBUG trap left while the test runs: the ERR trap records the stack
    [[ "$output" == *"trap -- 'sdtkit_error_trap' ERR"* ]]
    [[ "$output" != *"DEBUG"* ]]
    # a failing setup_file, at its line
    run fresh env FAIL_FILE=1 bats t/x.bats
    [[ "$output" == *"(from function \`setup_file' in test file t/x.bats, line 3)"* ]]
    # bats --trace: bats' own trap, which prints the helpers' commands too
    run fresh bats --trace t/x.bats
    [[ "$output" == *'$$ [ "$x" = 2 ]'* ]]
    [[ "$output" == *"(from function \`quiet_fail' in file t/h.bash, line 3,"* ]]
}

@test "the suites' python3 is Debian's, not a version manager's shim first on PATH" {
    [ -x /usr/bin/python3 ] || missing "no /usr/bin/python3 (.ci/run installs python3)"
    [ "$(python3 -c 'import sys; print(sys.executable)')" = /usr/bin/python3 ]
    # and with a shim first on PATH, as pyenv puts it
    mkdir shims
    printf '#!/bin/sh\necho shim\n' > shims/python3 && chmod +x shims/python3
    [ "$(PATH="$PWD/shims:$PATH" python3 -c 'print("debian")')" = debian ]
}

@test "plain make builds everything and runs the demo, not only the first rule's file" {
    local plan
    # the variant rules come before "all:": the goal must not follow them
    plan=$(make -n -B -C "$ROOT" 2>&1)
    grep -q 'build/bin/dtrace' <<<"$plan"
    grep -q 'demo' <<<"$plan"
    grep -q 'runtime/' <<<"$plan"
    # the examples are built in build/examples, never beside their sources
    grep -q -- "-C build/examples" <<<"$plan"
    ! grep -qE -- "-C provider-examples( |$)" <<<"$plan" || false
}

@test "a program a test started with bg is gone when the test ends: tracers-helpers' teardown ends it" {
    printf '%s\n' "load $ROOT/tests/helpers" "load $ROOT/tests/tracers-helpers" \
        "@test \"bg\" { bg out sleep 1000; echo \"\$BG_PID\" >$PWD/pid; }" >t.bats
    run fresh bats t.bats
    [ "$status" -eq 0 ]
    [ -s pid ]
    ! kill -0 "$(cat pid)" 2>/dev/null || false
}

@test "make check builds the sanitizer and musl programs, and the packages, only when a suite of theirs is to run" {
    local plan
    # (not the outer run's passes: make rpm's %check runs the normal one)
    make() { fresh "$(type -P make)" "$@"; }
    plan=$(make -n -B -C "$ROOT" check SUITES=tests/licence.bats 2>&1)
    ! grep -E 'build/(asan|musl)/' <<<"$plan" || false
    plan=$(make -n -B -C "$ROOT" check SUITES="tests/licence.bats tests/sdt-list.bats" 2>&1)
    grep -q 'build/asan/' <<<"$plan"
    if command -v musl-gcc >/dev/null; then grep -q 'build/musl/' <<<"$plan"; fi
    # the static musl programs for tests/musl.bats alone, which compares them
    ! grep -q 'build/musl/static/' <<<"$plan" || false
    if command -v musl-gcc >/dev/null; then
        grep -q 'build/musl/static/' <<<"$(make -n -B -C "$ROOT" check SUITES=tests/musl.bats 2>&1)"
    fi
    # not the musl ones for a suite the tools passes leave out
    plan=$(make -n -B -C "$ROOT" check SUITES=tests/runtime.bats 2>&1)
    grep -q 'build/asan/' <<<"$plan"
    ! grep -q 'build/musl/' <<<"$plan" || false
    # the packages, for a package suite of the release tier alone
    command -v dpkg-buildpackage >/dev/null || return 0
    grep -q 'dpkg-buildpackage' <<<"$(make -n -B -C "$ROOT" check SUITES=tests/deb.bats 2>&1)"
    ! grep -q 'dpkg-buildpackage' <<<"$(make -n -B -C "$ROOT" check TIER=fast SUITES=tests/deb.bats 2>&1)" || false
    ! grep -q 'dpkg-buildpackage\|testbed' <<<"$plan" || false
    # and for autopkgtest.bats's test tagged tracer, which the tracer tier runs
    grep -q 'dpkg-buildpackage' <<<"$(make -n -B -C "$ROOT" check TIER=tracers SUITES=tests/autopkgtest.bats 2>&1)"
}

@test "a selection that runs no test says so and fails: make check-fast SUITES=tests/header-arch.bats" {
    run fresh make -s -C "$ROOT" check-fast SUITES=tests/header-arch.bats
    [ "$status" -eq 2 ]
    [[ "$output" == *"tests/run: the fast tier runs no test of tests/header-arch.bats:"* ]]
    [[ "$output" == *"tests/header-arch.bats: its tests are tagged cross"* ]]
    [[ "$output" != *" passed, "* ]]
    # a suite of tests tagged cross alone, untagged as a file: the same
    printf '%s\n' '# bats test_tags=cross' '@test "c" { true; }' > crossonly.bats
    run fresh env SDTKIT_TIER=fast "$ROOT/tests/run" "$PWD/crossonly.bats"
    [ "$status" -eq 1 ]
    [[ "$output" == *"$PWD/crossonly.bats: its tests are tagged cross"* ]]
    run fresh env SDTKIT_TIER=cross SDTKIT_PASSES=normal "$ROOT/tests/run" "$PWD/crossonly.bats"
    [ "$status" -eq 0 ]
    [ "${lines[-1]}" = "1 passed, 0 failed, 0 skipped" ]
    # a suite that does not exist is named
    run fresh "$ROOT/tests/run" "$PWD/nosuch.bats"
    [ "$status" -eq 2 ]
    [ "$output" = "tests/run: no suite $PWD/nosuch.bats" ]
}

@test "tests/run --plan reads a suite's tags as bats does: a pass runs the suites with a test of the tier" {
    # a test's tags: the last file_tags line above it, the last test_tags
    # line since the test before (blanks around the commas); the passes
    # after the first leave out normal-pass-only
    printf '%s\n' '# bats test_tags=cross' '@test "a" { true; }' > cross.bats
    printf '%s\n' '# bats file_tags=release' '@test "a" { true; }' '# bats test_tags=tracer' '@test "b" { true; }' > release.bats
    printf '%s\n' '# bats test_tags=tracer' '# bats test_tags=cross' '@test "a" { true; }' > replaced.bats
    printf '%s\n' '@test "a" { true; }' '# bats file_tags=release' '@test "b" { true; }' > filelate.bats
    printf '%s\n' '# bats test_tags=cross' '@test "a" { true; }' '  @test "b" { true; }' > reset.bats
    printf '%s\n' '# bats test_tags= tracer , normal-pass-only' '@test "a" { true; }' > once.bats
    local tier want
    for want in 'all: cross filelate once release replaced reset / cross filelate release replaced reset' \
        'fast: filelate reset / filelate reset' 'cross: cross replaced reset / cross replaced reset' \
        'tracers: once release / release' 'release: filelate release / filelate release'; do
        tier=${want%%:*}
        run fresh env SDTKIT_TIER="$tier" SANITIZED_SUITES="$(echo *.bats)" SDTKIT_PASSES="normal asan" \
            "$ROOT/tests/run" --plan "$PWD"/*.bats
        [ "$status" -eq 0 ]
        [ "$tier: $(sed -n "s|^normal $PWD/\(.*\)\.bats$|\1|p" <<<"$output" | sort | xargs) / $(sed -n "s|^asan $PWD/\(.*\)\.bats$|\1|p" <<<"$output" | sort | xargs)" = "$want" ]
    done
    # as bats counts them
    [ "$(bats --count --filter-tags tracer *.bats)" -eq 2 ]
    [ "$(bats --count --filter-tags '!cross,!tracer,!release' *.bats)" -eq 2 ]
}

@test "tests/run lists each skipped and failed test as bats names it, quotes and dollars too" {
    printf '%s\n' "@test \"it's \\\$HOME 'a' \\\"b\\\"\" { false; }" "@test \"c\" { skip \"it's \\\$(no) 'x'\"; }" > odd.bats
    run fresh env SDTKIT_PASSES=normal "$ROOT/tests/run" "$PWD/odd.bats"
    [ "$status" -eq 1 ]
    [[ "$output" == *$'\nskipped:\n  normal: c -- it\'s $(no) \'x\'\nfailed:\n  normal: it\'s $HOME \'a\' "b"\n'* ]]
    [ "${lines[-1]}" = "0 passed, 1 failed, 1 skipped" ]
}

@test "every suite of tests/sanitized-suites runs the programs through \$DTRACE, \$SDT_LIST or rt_build" {
    local s n=0
    while read -r s _; do
        [ -f "$ROOT/tests/$s" ] || { echo "no tests/$s"; return 1; }
        grep -qE '"\$(DTRACE|SDT_LIST)"|^ *rt_build ' "$ROOT/tests/$s" || { echo "$s runs none"; return 1; }
        n=$((n + 1))
    done < <("$ROOT/tests/table" "$ROOT/tests/sanitized-suites" suite)
    [ "$n" -gt 0 ]
}

@test "tests/arches.table has every column for all 18 architectures, and the suites read a column by its name" {
    local names
    # (tests/table fails for a row with a cell too many or too few)
    names=$("$ROOT/tests/table" "$ROOT/tests/arches.table" name)
    [ "$(sort -u <<<"$names" | wc -l)" -eq 18 ]
    [ "$("$ROOT/tests/table" "$ROOT/tests/arches.table" | grep -c '^x32\.')" -eq 12 ]
    [ "$(wc -w <<<"$ALL_ARCHES")" -eq 18 ]
    [ "$ARCHES" = "x86_64 i686 aarch64 armhf ppc64el s390x riscv64" ]
    [ "$(arch_field x32 machine)" = "Advanced Micro Devices X86-64" ]
    run arch_field x32 2
    [ "$status" -eq 1 ]
    [ "$(arch_field x32 triplet)" = x86_64-linux-gnux32 ]
    [ "$(arch_gcc ppc64el)" = powerpc64le-linux-gnu-gcc ]
    [ "$(arch_gxx x86_64)" = g++ ]
    # a row or column the table lacks is an error, not an empty word
    run arch_field x32 nosuch
    [ "$status" -eq 1 ]
    [[ "$output" == *"no nosuch for x32"* ]]
    run arch_gcc nosuch
    [ "$status" -eq 1 ]
    [ "$(package_of x86_64-linux-gnux32-gcc)" = gcc-x86-64-linux-gnux32 ]
}

@test "tests/packages lists the architectures' compilers and C libraries from tests/arches.table, and .ci/run installs its list, naming none itself" {
    run "$ROOT/tests/packages"
    [ "$status" -eq 0 ]
    [ "$(grep -c '^gcc-.*-linux-gnu' <<<"$output")" -eq 17 ]
    [ "$(grep -c '^g++-.*-linux-gnu' <<<"$output")" -eq 17 ]
    grep -qx gcc-x86-64-linux-gnux32 <<<"$output"
    grep -qx libc6.1-dev-alpha-cross <<<"$output"
    grep -qx libc6-dev <<<"$output"
    # each once; NodeSource's nodejs is the machine image's, never .ci/run's
    [ -z "$(sort <<<"$output" | uniq -d)" ]
    ! grep -qx nodejs <<<"$output" || false
    # (make check in the release tarball, as RPM's %check runs it: no .ci/)
    [ -f "$ROOT/.ci/run" ] || skip "not a checkout: the release tarball leaves out .ci/, the checkout's machinery"
    grep -qx 'PACKAGES=$(tests/packages)' "$ROOT/.ci/run"
    ! grep -v '^ *#' "$ROOT/.ci/run" | grep -E 'libc6[.0-9]*-dev|linux-gnu' || false
}

@test "every command a suite asks need_cmd for has its package in tests/packages.table, which names each package once" {
    local c missing=()
    # need_cmd's literal arguments (up to one that is not), where a command starts, not in comments
    for c in $(cd "$ROOT/tests" && grep -hE '(^|[;&|{(]|then|do)[[:space:]]*need_cmd[[:space:]]' *.bats *.bash |
        grep -v '^[[:space:]]*#' | grep -oE '(^|[;&|{(]|then|do)[[:space:]]*need_cmd[[:space:]][^;|&)}]*' |
        sed 's/.*need_cmd/need_cmd/' | awk '{ for (i = 2; i <= NF && $i ~ /^[A-Za-z0-9][-A-Za-z0-9_.+]*$/; i++) print $i }' | sort -u); do
        package_of "$c" >/dev/null || missing+=("$c")
    done
    [ ${#missing[@]} -eq 0 ] || { echo "no package in tests/packages.table: ${missing[*]}"; false; }
    [ -z "$("$ROOT/tests/table" "$ROOT/tests/packages.table" package | sort | uniq -d)" ]
    # a command no package has is named so, under CI a failure
    inner t 'need_cmd no-such-tool-xyz'
    run fresh env CI=true bats --tap t.bats
    [ "$status" -eq 1 ]
    [[ "$output" == *"missing under CI: no-such-tool-xyz is not installed, and no package of tests/packages.table has it: add its row"* ]]
}

@test "the fast tier leaves the tagged tests out, and fails an untagged one that reaches for a cross compiler or tracer, naming its tag" {
    local me="load $ROOT/tests/helpers"
    printf '%s\n' "$me" '@test "host" { need_cmd gcc; }' '# bats test_tags=cross' '@test "cross" { need_arch aarch64; }' \
        '# bats test_tags=tracer' '@test "tracer" { need_cmd bpftrace; }' > tagged.bats
    printf '%s\n' "$me" '@test "untagged cross" { need_arch aarch64; }' '@test "untagged tracer" { need_cmd gdb; }' \
        '@test "untagged qemu" { need_cmd qemu-aarch64; }' > untagged.bats
    run fresh env SDTKIT_TIER=fast SDTKIT_PASSES=normal "$ROOT/tests/run" "$PWD/tagged.bats"
    [ "$status" -eq 0 ]
    [ "${lines[${#lines[@]}-1]}" = "1 passed, 0 failed, 0 skipped" ]
    run fresh env SDTKIT_TIER=fast SDTKIT_PASSES=normal "$ROOT/tests/run" "$PWD/untagged.bats"
    [ "$status" -eq 1 ]
    [ "${lines[${#lines[@]}-1]}" = "0 passed, 3 failed, 0 skipped" ]
    [[ "$output" == *"needs aarch64-linux-gnu-gcc, but is in the fast tier: tag it cross"* ]]
    [[ "$output" == *"needs gdb, but is in the fast tier: tag it tracer"* ]]
    [[ "$output" == *"needs qemu-aarch64, but is in the fast tier: tag it cross"* ]]
    # the cross tier runs the cross test alone
    run fresh env SDTKIT_TIER=cross SDTKIT_PASSES=normal "$ROOT/tests/run" "$PWD/tagged.bats"
    [ "${lines[${#lines[@]}-1]}" = "1 passed, 0 failed, 0 skipped" ]
}

# bats test_tags=tracer
@test "a gdb that does not link libpython is missing, under CI a failure" {
    need_gdb_python gdb
    need_gdb_python gdb-multiarch
    mkdir bin
    printf '#!/bin/sh\nexit 0\n' > bin/gdb-bad
    chmod +x bin/gdb-bad
    CI=true PATH="$PWD/bin:$PATH" run need_gdb_python gdb-bad
    [ "$status" -eq 1 ]
    [[ "$output" == *"missing under CI: gdb-bad has no Python"* ]]
}

@test "a suite bats cannot run counts as failed, not as nothing" {
    printf '@test "a" { true; }\n@test "b" {\n' > broken.bats
    run fresh "$ROOT/tests/run" "$PWD/broken.bats"
    [ "$status" -ne 0 ]
    [[ "${lines[${#lines[@]}-1]}" =~ ^0\ passed,\ [1-9][0-9]*\ failed ]]
}

# A port only bound is not in /proc/net/tcp: qemu's bind fails on it.
# bats test_tags=cross
@test "qemu's gdb stub moves to another port when the one tried is taken, listening or only bound" {
    need_cmd qemu-x86_64 gdb timeout
    cat > hold.py <<'PY'
import signal, socket, sys
s = socket.socket()
s.bind(("", int(sys.argv[1])))
if len(sys.argv) > 2:
    s.listen(1)
print("ready", flush=True)
signal.pause()
PY
    echo 'int main(void) { return 7; }' | gcc -static -x c - -o prog
    # hold a free port from FIRST on: listening (MODE listen) or bound
    hold() {
        local p
        for p in $(seq "$1" $(($1 + 100))); do
            [ -z "$(listen_inodes "$p")" ] || continue
            "$PYTHON3" hold.py "$p" $2 > "hold-$p.out" 2>&1 3>&- & HELD_PID=$!
            HOLDERS+=("$HELD_PID")
            # ready, or gone (the port was taken meanwhile)
            until grep -q ready "hold-$p.out" || ! kill -0 "$HELD_PID" 2>/dev/null; do sleep 0.05; done
            grep -q ready "hold-$p.out" && { HELD=$p; return 0; }
            kill "$HELD_PID" 2>/dev/null
        done
        return 1
    }
    hold 31000 listen; lp=$HELD l=$HELD_PID
    hold 31200; bp=$HELD b=$HELD_PID
    [ -n "$(listen_inodes "$lp")" ]
    [ -z "$(listen_inodes "$bp")" ]
    QEMU_GDB_PORTS="$lp $bp" qemu_gdb_start qemu-x86_64 ./prog 2>err.txt
    kill "$l" "$b"
    echo "gdb stub on $QEMU_PORT (taken: $lp listening, $bp bound)"
    cat err.txt
    grep -qx "qemu_gdb_start: port $bp is taken; trying another" err.txt
    [ "$QEMU_PORT" != "$lp" ]
    [ "$QEMU_PORT" != "$bp" ]
    pid_listens "$QEMU_PID" "$QEMU_PORT"
    run timeout "$HANG_SECONDS" gdb -batch -nx -ex "file $PWD/prog" -ex "target remote :$QEMU_PORT" -ex continue
    [[ "$output" == *"exited with code 07"* ]]
    wait "$QEMU_PID" || [ $? = 7 ]
}

# bats test_tags=cross
@test "a qemu whose gdb never connects is killed after HANG_SECONDS, not waited on for ever" {
    need_cmd qemu-x86_64 gcc
    echo 'int main(void) { return 7; }' | gcc -static -x c - -o prog
    qemu_gdb_start qemu-x86_64 ./prog
    stuck=$QEMU_PID
    qemu_gdb_start qemu-x86_64 ./prog
    timeout "$HANG_SECONDS" gdb -batch -nx -ex "file $PWD/prog" -ex "target remote :$QEMU_PORT" -ex continue
    # (not through run: qemu_reap waits for children of this shell)
    st=0
    HANG_SECONDS=1 qemu_reap "$stuck" "$QEMU_PID" 2>reap.err || st=$?
    cat reap.err
    [ "$st" -eq 1 ]
    grep -qx "qemu_reap: qemu still running after 1 s, killed: $stuck" reap.err
    ! kill -0 "$stuck" 2>/dev/null || false
    # and one that ends: its status
    qemu_gdb_start qemu-x86_64 ./prog
    timeout "$HANG_SECONDS" gdb -batch -nx -ex "file $PWD/prog" -ex "target remote :$QEMU_PORT" -ex continue
    st=0
    qemu_reap "$QEMU_PID" || st=$?
    [ "$st" -eq 7 ]
}

# bats test_tags=cross
@test "gdb_runs runs several programs in one gdb session, natively and under qemu-user, and files each one's stops" {
    need_cmd gdb gdb-multiarch qemu-aarch64
    need_arch aarch64
    printf '#include <sys/sdt.h>\nint main(int c, char **v) { (void) v; DTRACE_PROBE1(p, a, c); DTRACE_PROBE2(p, b, c, 7); return 0; }\n' >p.c
    gcc -g -I "$INCLUDE" p.c -o host
    aarch64-linux-gnu-gcc -g -static -I "$INCLUDE" p.c -o arm
    printf '%s\n' "one - $PWD/host $PWD/host x" "two - - $PWD/host" | gdb_runs "$PWD" p:a p:b
    printf '%s\n' "three qemu-aarch64 - $PWD/arm x y" "four qemu-aarch64 $PWD/arm $PWD/arm" | gdb_runs "$PWD" p:a p:b
    # each run's stops, with its own argument count
    for r in one:2 two:1 three:3 four:1; do
        [ "$(cat "${r%:*}.hits")" = "$(printf '%s\n' 'a hit' "a arg0 ${r#*:}" 'b hit' "b arg0 ${r#*:}" 'b arg1 7')" ]
    done
    [ "$(sort one.sites)" = "$(note_sites host)" ]
    [ "$(sort four.sites)" = "$(note_sites arm)" ]
    [ ! -e two.sites ]
}

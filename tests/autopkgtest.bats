#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# debian/tests, run by autopkgtest on make deb's packages in a testbed
# without archive, through its chroot virtual server: the dependencies are
# the machine's packages and sdtkit's.  The bpftrace test needs a machine
# of its own (isolation-machine): skipped unless that is ignored.
# bats file_tags=release

load helpers
load package-helpers
load tracers-helpers

# NO_ARCHIVE: the testbed's apt sources, lists and caches removed.
NO_ARCHIVE='rm -rf /etc/apt/sources.list /etc/apt/sources.list.d/* /var/cache/apt/*.bin
    find /var/lib/apt/lists -maxdepth 1 -type f ! -name lock -delete'

# testbed_host DIR CMD...: CMD on the machine with the testbed's root at DIR/root.
testbed_host() {
    TESTBED_SHARE="$ROOT/build/deb:$BATS_RUN_TMPDIR" "$ROOT/tests/testbed.bash" host "$ROOT/build/testbed" "$@"
}

# run_autopkgtest OUT ARGS...: autopkgtest ARGS... on make deb's packages in
# this suite's testbed, its artifacts in OUT, its summary in OUT.summary,
# its output in OUT.log and its exit status in OUT.status.
run_autopkgtest() {
    local out=$1 st=0
    shift
    testbed_host "$W/tb" autopkgtest -o "$out" --summary-file "$out.summary" "$@" \
        "$ROOT/build/deb/$NATIVE/sdtkit_${DEB_VERSION}_$NATIVE.changes" \
        -- chroot "$W/tb/root" >"$out.log" 2>&1 || st=$?
    echo "$st" >"$out.status"
}

setup_file() {
    export W=$BATS_FILE_TMPDIR
    [ -f "$ROOT/build/testbed/ok" ] && command -v autopkgtest >/dev/null && need_debs "$NATIVE" >/dev/null ||
        return 0
    testbed "$W/tb" sh -c "$NO_ARCHIVE" >"$W/tb.log" 2>&1 || return 0
    run_autopkgtest "$W/all"
}

setup() {
    need_deb_tools
    need_testbed
    need_cmd autopkgtest
    need_debs "$NATIVE"
}

@test "autopkgtest passes c, cxx, runtime-pkg-config and cmake, and skips bpftrace, which needs a machine of its own" {
    [ -f "$W/all.status" ] || { cat "$W/tb.log" "$W/all.log" 2>/dev/null; false; }
    cat "$W/all.log"
    # 2: a test was skipped, and none failed
    [ "$(cat "$W/all.status")" -eq 2 ]
    local t
    for t in c cxx runtime-pkg-config cmake; do
        grep -qE "^$t +PASS\$" "$W/all.summary"
    done
    grep -qE '^bpftrace +SKIP .*"isolation-machine"' "$W/all.summary"
    ! grep -qE ' (FAIL|FLAKY)' "$W/all.summary" || false
    # the source package tells Debian it has them
    grep -qx 'Testsuite: autopkgtest' "$ROOT/build/deb/$NATIVE/sdtkit_$DEB_VERSION.dsc"
}

@test "the autopkgtest tests built with sdtkit's packages, which apt installed in the testbed in place of systemtap-sdt-dev" {
    [ -f "$W/all.status" ] || { cat "$W/tb.log" "$W/all.log" 2>/dev/null; false; }
    grep -q '^Removing systemtap-sdt-dev:' "$W/all.log"
    grep -qx "sdtkit	$DEB_VERSION" "$W/all/c-packages"
    grep -qx "sdtkit-tools	$DEB_VERSION" "$W/all/c-packages"
    grep -qx "libsdtkit-dev	$DEB_VERSION" "$W/all/runtime-pkg-config-packages"
    local t
    for t in c cxx cmake; do
        grep -qx "dtrace: /usr/bin/dtrace (sdtkit-tools); <sys/sdt.h>: /usr/include/.*/sys/sdt.h (sdtkit)" \
            "$W/all/$t-stdout"
    done
    # every program's probes checked: (name, probes) as the tests print them
    cat "$W/all"/{c,cxx,runtime-pkg-config,cmake}-stdout | sed -n 's/: \([0-9]*\) probes, [0-9]* notes checked$/ \1/p' |
        sed 's|.*/||' | LC_ALL=C sort >checked
    [ "$(cat checked)" = "cmq 2
compat.so 1
compat.so 1
cxx-ring 3
hello-semaphore-usdt 2
hello-usdt 2
minipg 6
native.so 1
native.so 1
static.so 1
static.so 1
tick 2
usdt-c++11 4
usdt-c++17 4
usdt-jobs 4" ]
}

@test "the tests fail where the packages are not sdtkit's: debian/tests/c with SystemTap's systemtap-sdt-dev" {
    dpkg -s systemtap-sdt-dev >/dev/null 2>&1 ||
        missing "systemtap-sdt-dev is not installed (.ci/run installs it)"
    mkdir tmp
    run testbed "$PWD/tb" sh -c "cd '$ROOT/build/deb/$NATIVE/sdtkit-$(cat "$ROOT/VERSION")' && AUTOPKGTEST_TMP='$PWD/tmp' debian/tests/c"
    echo "$output"
    [ "$status" -eq 1 ]
    [ "$output" = "FAIL: /usr/bin/dtrace is not sdtkit-tools' but systemtap-sdt-dev's" ]
}

@test "debian/tests' probe check fails on a missing probe, a wrong size or semaphore, and an extra probe" {
    need_cmd gcc readelf
    printf '#include <sys/sdt.h>\nint main(int c, char **v) { STAP_PROBE1(t, one, c); STAP_PROBE2(t, two, c, (long) c); (void) v; return 0; }\n' >t.c
    gcc -I "$ROOT/include" t.c -o t
    mkdir tmp
    # probes FILE PROBE... as debian/tests/lib.sh says it, with this tree's sdt-list
    check() {
        (cd "$ROOT" && PATH=${SDT_LIST%/*}:$PATH AUTOPKGTEST_TMP=$BATS_TEST_TMPDIR/tmp \
            sh -c '. debian/tests/lib.sh && probes "$@"' sh "$BATS_TEST_TMPDIR/t" "$@")
    }
    run check 't:one -4 no' 't:two -4,-8 no'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[-1]}" = "$BATS_TEST_TMPDIR/t: 2 probes, 2 notes checked" ]
    local wrong
    for wrong in "'t:one -4 no'" "'t:one -4 no' 't:two -4,-4 no'" "'t:one -4 yes' 't:two -4,-8 no'" \
        "'t:one -4 no' 't:two -4,-8 no' 't:three - no'"; do
        eval "run check $wrong"
        echo "$output"
        [ "$status" -eq 1 ]
        [ "${lines[-1]}" = "FAIL: $BATS_TEST_TMPDIR/t: the probes above differ (-want +got)" ]
    done
}

# bats test_tags=tracer
@test "told to ignore isolation-machine, autopkgtest runs the bpftrace test as root in the testbed: it traces tick's guarded probe" {
    need_bpftrace
    [ -f "$W/all.status" ] || { cat "$W/tb.log" "$W/all.log" 2>/dev/null; false; }
    run_autopkgtest "$W/bpftrace" --test-name bpftrace --ignore-restrictions isolation-machine
    cat "$W/bpftrace.log"
    [ "$(cat "$W/bpftrace.status")" -eq 0 ]
    grep -qE '^bpftrace +PASS$' "$W/bpftrace.summary"
    grep -qx 'loop2 3' "$W/bpftrace/bpftrace-stdout"
    grep -qx 'tick 3: loop2 enabled (semaphore 1)' "$W/bpftrace/bpftrace-stdout"
}

#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sdt-list --diff OLD NEW: the probes of two builds compared as an
# interface.  Each kind of change comes from a real build of a changed
# source (tests/cases/sdt-list-diff, run by diff_case); then what the
# comparison reads (archives, trees, packages, stripped and debug files,
# other architectures and compilers, the run-time library's objects in
# memory) and what it refuses, with exact messages and statuses.

load sdt-list-helpers

setup() {
    T="$BATS_TEST_TMPDIR"
    cd "$T"
}

@test "two builds of the same source compare as no change" { diff_case; }
@test "a probe removed is one line and exit status 2" { diff_case; }
@test "a probe added alone is compatible: exit status 1" { diff_case; }
@test "a probe renamed is one removed and one added" { diff_case; }
@test "an argument added changes the argument count" { diff_case; }
@test "int changed to long changes the argument's size" { diff_case; }
@test "long changed to unsigned long changes the argument's signedness" { diff_case; }
@test "a semaphore removed is a change" { diff_case; }
@test "a semaphore added is a change too" { diff_case; }
@test "a site lost to dead-code elimination is a changed site count" { diff_case; }
@test "a site gained by inlining is compatible" { diff_case; }
@test "several changes are one line each, sorted by probe" { diff_case; }
@test "--provider and --ignore-probe choose the probes compared" { diff_case; }
@test "sites that disagree are compared as sets of sizes" { diff_case; }
@test "every case in tests/cases/sdt-list-diff is run by a test of this file" { every_case_has_its_test diff_case; }

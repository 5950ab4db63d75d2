#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The Debian packages across architectures, in a testbed: sdtkit (Multi-Arch:
# same) of two architectures beside one sdtkit-tools (foreign); the fifteen
# users' Build-Depends on systemtap-sdt-dev in a cross build (apt-get -a
# arm64); and the upgrade from 0.1.0-1's single sdtkit package, built here.
# bats file_tags=release

load helpers
load package-helpers

# OLD_COMMIT: the last commit with the single sdtkit package, 0.1.0-1.
OLD_COMMIT=6ed1417

setup_file() {
    export OLD=$BATS_FILE_TMPDIR/old
    command -v dpkg-buildpackage >/dev/null && git -C "$ROOT" cat-file -e "$OLD_COMMIT^{commit}" 2>/dev/null ||
        return 0
    # 0.1.0-1's binary packages, from OLD_COMMIT's tree
    mkdir -p "$OLD/src"
    (git -C "$ROOT" archive "$OLD_COMMIT" | tar -x -C "$OLD/src" &&
        cd "$OLD/src" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b) >"$OLD.log" 2>&1 || true
}

setup() {
    need_deb_tools
    need_testbed
    need_debs "$NATIVE" arm64
}

# clause_for ARCH CLAUSE: CLAUSE as it applies to ARCH, its architecture
# restrictions reduced (dpkg's Dpkg::Deps); empty when it is not for ARCH.
clause_for() {
    perl -MDpkg::Deps -e 'my $d = deps_parse($ARGV[1], host_arch => $ARGV[0], reduce_arch => 1);
        print $d ? $d->output : ""' "$1" "$2"
}

# in_tb CMD...: CMD in this test's testbed (./tb).
in_tb() {
    testbed "$PWD/tb" "$@"
}

# installed PACKAGE: its status in the testbed is "install ok installed".
installed() {
    [ "$(in_tb dpkg-query -W -f '${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

@test "sdtkit for amd64 and arm64 install side by side with one sdtkit-tools, removing SystemTap's package" {
    in_tb dpkg -s systemtap-sdt-dev:amd64 >/dev/null ||
        missing "systemtap-sdt-dev is not installed (.ci/run installs it)"
    run in_tb apt-get install -y -q "$(deb "$NATIVE" sdtkit)" "$(deb arm64 sdtkit)" "$(deb "$NATIVE" sdtkit-tools)"
    echo "$output"
    [ "$status" -eq 0 ]
    grep -q '^Removing systemtap-sdt-dev:amd64' <<<"$output"
    installed sdtkit:amd64
    installed sdtkit:arm64
    installed sdtkit-tools:amd64
    ! installed systemtap-sdt-dev:amd64 || false
    # each architecture's multiarch links to the one header, and no
    # package is half-installed or broken
    [ "$(in_tb readlink /usr/include/aarch64-linux-gnu/sys/sdt.h)" = ../../sys/sdt.h ]
    [ "$(in_tb readlink /usr/include/x86_64-linux-gnu/sys/sdt.h)" = ../../sys/sdt.h ]
    [ -z "$(in_tb dpkg --audit)" ]
    in_tb apt-get check -q
    # SystemTap's arm64 package cannot go in beside them: apt removes both
    run in_tb apt-get -s install systemtap-sdt-dev:arm64
    echo "$output"
    grep -q '^Remv sdtkit \[' <<<"$output"
    grep -q '^Remv sdtkit:arm64 \[' <<<"$output"
    grep -q '^Inst systemtap-sdt-dev:arm64 ' <<<"$output"
}

@test "with sdtkit:arm64 and the build machine's tools, apt-get -a arm64 satisfies the Build-Depends of all fifteen packages that use systemtap-sdt-dev" {
    local c out
    # shellcheck disable=SC2086
    in_tb apt-cache showsrc $SDT_USERS >showsrc 2>/dev/null || true
    grep -q '^Package: postgresql-15$' showsrc ||
        missing "apt has no deb-src lists (.ci/run adds them: sdtkit-deb-src.sources)"
    sdt_users showsrc
    # without sdtkit, a cross build needs SystemTap's arm64 package for each
    # clause for arm64; gearmand's and php8.2's are not, and need nothing
    local applies=0 other=()
    for c in "${!CLAUSE_USERS[@]}"; do
        if [ -z "$(clause_for arm64 "$c")" ]; then
            other+=("$c")
            continue
        fi
        applies=$((applies + $(wc -w <<<"${CLAUSE_USERS[$c]}")))
        out=$(in_tb apt-get -s -a arm64 satisfy "$c") || { echo "$out"; false; }
        grep -q '^Inst systemtap-sdt-dev:arm64 ' <<<"$out" ||
            { echo "${CLAUSE_USERS[$c]}($c): apt would not install systemtap-sdt-dev:arm64: $out"; false; }
    done
    [ "$applies" -eq 13 ]
    out=$(in_tb apt-get -s -a arm64 satisfy "${other[@]}") || { echo "$out"; false; }
    ! grep -q '^Inst ' <<<"$out" || { echo "${other[*]}: $out"; false; }
    in_tb apt-get install -y -q "$(deb arm64 sdtkit)" "$(deb "$NATIVE" sdtkit-tools)" >/dev/null
    # all clauses together: nothing to install; when apt has something,
    # each alone says which
    if ! out=$(in_tb apt-get -s -a arm64 satisfy "${!CLAUSE_USERS[@]}") || grep -q '^Inst \|^Remv ' <<<"$out"; then
        for c in "${!CLAUSE_USERS[@]}"; do
            out=$(in_tb apt-get -s -a arm64 satisfy "$c") || { echo "${CLAUSE_USERS[$c]}($c): $out"; false; }
            ! grep -q '^Inst \|^Remv ' <<<"$out" || { echo "${CLAUSE_USERS[$c]}($c) still needs: $out"; false; }
        done
        echo "apt has something to do for the clauses together: $out"
        false
    fi
}

# local_repo DIR DEB...: an apt repository of the DEBs in DIR (apt-ftparchive),
# with DIR/sources.list naming it alone.
local_repo() {
    local dir=$1
    shift
    mkdir -p "$dir/lists/partial"
    cp "$@" "$dir/"
    (cd "$dir" && apt-ftparchive packages . >Packages && apt-ftparchive release . >Release)
    echo "deb [trusted=yes] file:$dir ./" >"$dir/sources.list"
}

# local_apt DIR ARGS...: apt-get ARGS in the testbed, seeing the machine's
# packages and the repository in DIR alone (no archive: what it would
# upgrade is sdtkit's).
local_apt() {
    local dir=$1
    shift
    in_tb apt-get -q -o Dir::Etc::sourcelist="$dir/sources.list" -o Dir::Etc::sourceparts=- \
        -o Dir::State::lists="$dir/lists" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= "$@"
}

@test "0.1.0-1's sdtkit upgrades: apt brings sdtkit-tools, every file stays, owned by one package, and builds still find systemtap-sdt-dev" {
    git -C "$ROOT" cat-file -e "$OLD_COMMIT^{commit}" 2>/dev/null ||
        missing "the checkout has no commit $OLD_COMMIT, which builds 0.1.0-1 (a shallow clone?)"
    local old=() p f
    for p in sdtkit libsdtkit1 libstapsdt0 libsdtkit-dev; do old+=("$OLD/${p}_0.1.0-1_$NATIVE.deb"); done
    [ -f "${old[0]}" ] || { cat "$OLD.log"; false; }
    # 0.1.0-1 is the single package: the programs and headers together
    dpkg-deb -c "${old[0]}" >old-list
    grep -q '\./usr/bin/dtrace$' old-list
    grep -q '\./usr/include/sys/sdt\.h$' old-list
    in_tb apt-get install -y -q "${old[@]}" >/dev/null
    in_tb dpkg-query -L sdtkit | sort > old-files
    local new=()
    for p in $DEB_PACKAGES; do new+=("$(deb "$NATIVE" $p)"); done
    local_repo "$PWD/repo" "${new[@]}"
    local_apt "$PWD/repo" update >/dev/null
    # apt-get upgrade keeps sdtkit back (it installs no new package);
    # full-upgrade upgrades all four and installs the tools, removing nothing
    run local_apt "$PWD/repo" -s upgrade
    echo "$output"
    grep -A1 'kept back' <<<"$output" | grep -qw sdtkit
    run local_apt "$PWD/repo" -s full-upgrade
    echo "$output"
    grep -q "^Inst sdtkit-tools ($DEB_VERSION " <<<"$output"
    for p in sdtkit libsdtkit1 libstapsdt0 libsdtkit-dev; do
        grep -q "^Inst $p \[0\.1\.0-1\] ($DEB_VERSION " <<<"$output"
    done
    ! grep -q '^Remv ' <<<"$output" || false
    run local_apt "$PWD/repo" full-upgrade -y
    echo "$output"
    [ "$status" -eq 0 ]
    installed sdtkit
    installed sdtkit-tools
    [ "$(in_tb dpkg-query -W -f '${Version}' sdtkit)" = "$DEB_VERSION" ]
    # every file of 0.1.0-1 is there, owned by sdtkit or sdtkit-tools
    # (directories aside, which several packages share)
    in_tb sh -c 'while read -r f; do [ -d "$f" ] || dpkg-query -S "$f" || echo "gone: $f"; done' \
        <old-files >owners 2>&1
    [ "$(wc -l <owners)" -ge 15 ] || { cat owners; false; }
    ! grep -v "^sdtkit\\(:$NATIVE\\|-tools\\): /" owners || false
    in_tb dpkg-query -S /usr/bin/dtrace | grep -qx 'sdtkit-tools: /usr/bin/dtrace'
    [ -z "$(in_tb dpkg --verify sdtkit sdtkit-tools)" ]
    [ -z "$(in_tb dpkg --audit)" ]
    # a build's dependency on systemtap-sdt-dev is still met
    run local_apt "$PWD/repo" -s satisfy 'systemtap-sdt-dev [linux-any]'
    [ "$status" -eq 0 ]
    ! grep -q '^Inst \|^Remv ' <<<"$output" || false
}

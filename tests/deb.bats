#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# make deb: the Debian package that stands in for systemtap-sdt-dev.  Its
# files and control fields, lintian, reproducibility, that dpkg and apt
# take it for systemtap-sdt-dev, and that the installed tree works.
#
# The package is built once, from a copy of the tree (so the checkout's own
# build/ is left alone), and installed only into scratch dpkg databases and
# directories: the system's systemtap-sdt-dev is never touched.

load helpers

# need_deb_tools: what make deb and these tests run.
need_deb_tools() {
    local c pkg
    for c in dpkg-buildpackage:dpkg-dev dh:debhelper fakeroot:fakeroot lintian:lintian apt-get:apt; do
        pkg=${c#*:}
        command -v "${c%%:*}" >/dev/null 2>&1 ||
            missing "${c%%:*} is not installed (.ci/run installs it from package $pkg)"
    done
}

# copy_tree DIR: the sources as a fresh clone would have them, without build/.
copy_tree() {
    mkdir -p "$1"
    (cd "$ROOT" && tar -c --exclude=./build --exclude=./.git --exclude=./debian/sdtkit .) | tar -x -C "$1"
    make -s -C "$1" clean >/dev/null
}

setup_file() {
    export VERSION ARCH MULTIARCH SRC DEBFILE
    VERSION=$(cat "$ROOT/VERSION")
    ARCH=$(dpkg --print-architecture 2>/dev/null) || return 0
    MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null) || return 0
    SRC=$BATS_FILE_TMPDIR/src
    DEBFILE=$SRC/build/deb/sdtkit_${VERSION}_$ARCH.deb
    command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null || return 0
    copy_tree "$SRC"
    make -s -C "$SRC" deb >"$BATS_FILE_TMPDIR/make-deb.log" 2>&1 || true
}

setup() {
    need_deb_tools
    [ -f "$DEBFILE" ] || { cat "$BATS_FILE_TMPDIR/make-deb.log" >&2; false; }
    cd "$BATS_TEST_TMPDIR"
}

# scratch_admindir DIR: a copy of the system's dpkg database (the status file
# only) in DIR/admin, with an empty DIR/root to install into.
scratch_admindir() {
    mkdir -p "$1/admin/info" "$1/admin/updates" "$1/root"
    cp /var/lib/dpkg/status "$1/admin/status"
}

# ---- the package itself -------------------------------------------------

@test "make deb builds sdtkit_VERSION_ARCH.deb under build/deb, named after VERSION" {
    [ "$(dpkg-deb -f "$DEBFILE" Package)" = sdtkit ]
    [ "$(dpkg-deb -f "$DEBFILE" Version)" = "$VERSION" ]
    [ "$(dpkg-deb -f "$DEBFILE" Architecture)" = "$ARCH" ]
    # debian/changelog names the same version
    [ "$(cd "$ROOT" && dpkg-parsechangelog -S Version)" = "$VERSION" ]
}

@test "the package provides, conflicts with and replaces systemtap-sdt-dev, and needs only libc" {
    [ "$(dpkg-deb -f "$DEBFILE" Provides)" = systemtap-sdt-dev ]
    [ "$(dpkg-deb -f "$DEBFILE" Conflicts)" = systemtap-sdt-dev ]
    [ "$(dpkg-deb -f "$DEBFILE" Replaces)" = systemtap-sdt-dev ]
    [[ "$(dpkg-deb -f "$DEBFILE" Depends)" == "libc6 (>= "*")" ]]
    [ "$(dpkg-deb -f "$DEBFILE" Section)" = devel ]
    # a real description: a synopsis and a long text
    local desc
    desc=$(dpkg-deb -f "$DEBFILE" Description)
    [[ "$(head -1 <<<"$desc")" == *"<sys/sdt.h>"* ]]
    [ "$(wc -l <<<"$desc")" -ge 5 ]
}

@test "the package ships dtrace, sdt-list, the headers (also multiarch), the man pages and a copyright file" {
    dpkg-deb -c "$DEBFILE" | awk '{ print $6 }' | sed 's|^\./|/|' > files
    for f in /usr/bin/dtrace /usr/bin/sdt-list /usr/include/sys/sdt.h /usr/include/sys/sdt-config.h \
        "/usr/include/$MULTIARCH/sys/sdt.h" "/usr/include/$MULTIARCH/sys/sdt-config.h" \
        /usr/share/man/man1/dtrace.1.gz /usr/share/man/man1/sdt-list.1.gz \
        /usr/share/doc/sdtkit/copyright /usr/share/doc/sdtkit/changelog.gz; do
        grep -qx "$f" files || { echo "not in the package: $f"; return 1; }
    done
    # the multiarch headers are links to the one copy in /usr/include/sys
    dpkg-deb -c "$DEBFILE" | grep -q "\./usr/include/$MULTIARCH/sys/sdt.h -> \.\./\.\./sys/sdt.h\$"
    # the copyright file is machine-readable
    dpkg-deb --fsys-tarfile "$DEBFILE" | tar -xO ./usr/share/doc/sdtkit/copyright > copyright
    head -1 copyright | grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/'
}

@test "every file make install PREFIX=/usr installs is in the package" {
    copy_tree inst
    make -s -C inst install PREFIX=/usr DESTDIR="$PWD/stage" >/dev/null
    (cd stage && find . ! -type d | sed 's|^\./|/|') | sort > installed
    dpkg-deb -c "$DEBFILE" | awk '{ print $6 }' | sed 's|^\./|/|' | sort > packaged
    while read -r f; do
        grep -qx -e "$f" -e "$f.gz" packaged || { echo "installed but not packaged: $f"; return 1; }
    done < installed
}

@test "every file of systemtap-sdt-dev that builds use has its counterpart in the package" {
    dpkg -L systemtap-sdt-dev >stap 2>/dev/null ||
        missing "systemtap-sdt-dev is not installed (.ci/run installs it)"
    dpkg-deb -c "$DEBFILE" | awk '{ print $6 }' | sed 's|^\./|/|' > ours
    grep -E '^/usr/(bin|include)/.|/man/.*\.gz$' stap > used
    [ -s used ]
    while read -r f; do
        [ -d "$f" ] || grep -qx "$f" ours || { echo "systemtap-sdt-dev has $f, sdtkit does not"; return 1; }
    done < used
}

@test "lintian finds no errors in the package (warnings are printed)" {
    run lintian --pedantic "$DEBFILE"
    echo "$output"
    ! grep -q '^E: ' <<<"$output"
    # lintian exits 0 unless it reports an error (or fails)
    [ "$status" -eq 0 ]
}

@test "make deb refuses when debian/changelog does not name the version in VERSION" {
    copy_tree other
    echo 9.9.9 > other/VERSION
    run make -s -C other deb
    [ "$status" -ne 0 ]
    [[ "$output" == *"debian/changelog: version $VERSION, but VERSION says 9.9.9"* ]]
    [ ! -e other/build/deb ]
}

@test "make deb leaves nothing in the tree or beside it, and make clean removes what it built" {
    # the copy the package was built from: only build/ was added
    copy_tree fresh
    (cd fresh && find . -path ./build -prune -o -print | sort) > want
    (cd "$SRC" && find . -path ./build -prune -o -print | sort) > got
    diff want got
    [ "$(ls "$BATS_FILE_TMPDIR")" = "$(printf 'make-deb.log\nsrc')" ]
    copy_tree again
    make -s -C again deb >/dev/null 2>&1
    [ -f "again/build/deb/sdtkit_${VERSION}_$ARCH.deb" ]
    make -s -C again clean
    [ ! -e again/build ]
}

# ---- reproducible ---------------------------------------------------------

@test "two builds of the package, in different directories, are the same bytes" {
    copy_tree second
    make -s -C second deb >/dev/null 2>&1
    cmp "$DEBFILE" "second/build/deb/sdtkit_${VERSION}_$ARCH.deb"
    cmp "$SRC/build/deb/sdtkit-dbgsym_${VERSION}_$ARCH.deb" "second/build/deb/sdtkit-dbgsym_${VERSION}_$ARCH.deb"
    # every file is dated from the changelog, not from the build
    local epoch
    epoch=$(cd "$ROOT" && dpkg-parsechangelog -S Timestamp)
    dpkg-deb --fsys-tarfile "$DEBFILE" | tar -tv --full-time | awk '{ print $4 " " $5 }' | sort -u > dates
    [ "$(wc -l < dates)" -eq 1 ]
    [ "$(date -u -d "$(cat dates)" +%s)" -eq "$epoch" ]
}

# ---- dpkg and apt take it for systemtap-sdt-dev -------------------------

@test "apt-get -s install ./sdtkit.deb removes systemtap-sdt-dev and installs sdtkit" {
    dpkg -s systemtap-sdt-dev >/dev/null 2>&1 ||
        missing "systemtap-sdt-dev is not installed (.ci/run installs it)"
    run apt-get -s install "$DEBFILE"
    echo "$output"
    [ "$status" -eq 0 ]
    grep -q '^Remv systemtap-sdt-dev ' <<<"$output"
    grep -q "^Inst sdtkit ($VERSION " <<<"$output"
}

@test "installed into a scratch dpkg database, sdtkit takes the place of systemtap-sdt-dev" {
    scratch_admindir db
    run dpkg --admindir="$PWD/db/admin" --instdir="$PWD/db/root" --force-not-root \
        --force-script-chrootless -i "$DEBFILE"
    echo "$output"
    [ "$status" -eq 0 ]
    if grep -q '^Package: systemtap-sdt-dev$' /var/lib/dpkg/status; then
        grep -q '^Removing systemtap-sdt-dev' <<<"$output"
    fi
    [ "$(dpkg-query --admindir="$PWD/db/admin" -W -f '${Status}' sdtkit)" = "install ok installed" ]
    ! dpkg-query --admindir="$PWD/db/admin" -W -f '${Status}' systemtap-sdt-dev 2>/dev/null | grep -q installed
    [ -x db/root/usr/bin/dtrace ]
    [ -f "db/root/usr/include/$MULTIARCH/sys/sdt.h" ]
}

@test "with sdtkit installed, a Build-Depends on systemtap-sdt-dev is satisfied (dpkg-checkbuilddeps)" {
    # An empty dpkg database, then one holding only build-essential and sdtkit;
    # the build dependency as the fifteen packages write it.
    mkdir -p db/var/lib/dpkg/info db/var/lib/dpkg/updates src/debian
    printf 'Package: build-essential\nStatus: install ok installed\nVersion: 12.9\nArchitecture: %s\nMaintainer: x <x@example.org>\nDescription: x\n' \
        "$ARCH" > db/var/lib/dpkg/status
    cat > src/debian/control <<'EOF'
Source: probe-user
Build-Depends: systemtap-sdt-dev [linux-any],
               systemtap-sdt-dev [!hurd-any !kfreebsd-any],
               systemtap-sdt-dev

Package: probe-user
Architecture: any
Description: a package with USDT probes
EOF
    cd src
    run dpkg-checkbuilddeps --admindir="$BATS_TEST_TMPDIR/db/var/lib/dpkg"
    [ "$status" -eq 1 ]
    [[ "$output" == *"Unmet build dependencies: systemtap-sdt-dev"* ]]
    dpkg --root="$BATS_TEST_TMPDIR/db" --force-not-root --force-depends --force-script-chrootless \
        -i "$DEBFILE" >/dev/null 2>&1
    dpkg-checkbuilddeps --admindir="$BATS_TEST_TMPDIR/db/var/lib/dpkg"
}

@test "with sdtkit installed, apt has nothing to install for systemtap-sdt-dev, and going back removes sdtkit" {
    apt-cache show systemtap-sdt-dev >/dev/null 2>&1 ||
        missing "apt knows no systemtap-sdt-dev (run apt-get update)"
    scratch_admindir db
    # the database without systemtap-sdt-dev: apt would install it
    dpkg --admindir="$PWD/db/admin" --instdir="$PWD/db/root" --force-not-root --force-all \
        --force-script-chrootless --purge systemtap-sdt-dev >/dev/null 2>&1 || true
    run apt-get -s -o Dir::State::status="$PWD/db/admin/status" satisfy 'systemtap-sdt-dev [linux-any]'
    grep -q '^Inst systemtap-sdt-dev ' <<<"$output"
    # with sdtkit: nothing to install
    dpkg --admindir="$PWD/db/admin" --instdir="$PWD/db/root" --force-not-root \
        --force-script-chrootless -i "$DEBFILE" >/dev/null
    run apt-get -s -o Dir::State::status="$PWD/db/admin/status" satisfy 'systemtap-sdt-dev [linux-any]'
    echo "$output"
    [ "$status" -eq 0 ]
    ! grep -q '^Inst ' <<<"$output"
    # going back: apt removes sdtkit to install systemtap-sdt-dev
    run apt-get -s -o Dir::State::status="$PWD/db/admin/status" install systemtap-sdt-dev
    echo "$output"
    [ "$status" -eq 0 ]
    grep -q "^Remv sdtkit \[$VERSION\]" <<<"$output"
    grep -q '^Inst systemtap-sdt-dev ' <<<"$output"
}

# The fifteen Debian 12 source packages that build-depend on
# systemtap-sdt-dev (none with a version: the unversioned Provides is enough).
SDT_USERS="bpftrace ceph gcc-11 gcc-12 gearmand libguestfs libvirt mir openjdk-17
  php8.2 postgresql-15 postgresql-rum python3.11 ruby3.1 sssd"

@test "the build dependencies of all fifteen packages that use systemtap-sdt-dev are satisfied by sdtkit, unedited" {
    apt-cache showsrc postgresql-15 >/dev/null 2>&1 ||
        missing "apt has no deb-src lists (.ci/run adds them: sdtkit-deb-src.sources)"
    scratch_admindir db
    dpkg --admindir="$PWD/db/admin" --instdir="$PWD/db/root" --force-not-root --force-all \
        --force-script-chrootless --purge systemtap-sdt-dev >/dev/null 2>&1 || true
    # clause PKG: PKG's build dependency on systemtap-sdt-dev, as written
    clause() {
        apt-cache showsrc "$1" | grep -E '^Build-Depends' | grep -oE 'systemtap-sdt-dev[^,]*' | head -1
    }
    # satisfy CLAUSE: what apt would install for it, against the scratch database
    satisfy() {
        apt-get -s -o Dir::State::status="$PWD/db/admin/status" satisfy "$1" 2>&1
    }
    local p c out
    local -A users=()
    for p in $SDT_USERS; do
        c=$(clause "$p")
        [ -n "$c" ] || { echo "$p does not build-depend on systemtap-sdt-dev"; false; }
        users[$c]+="$p "
    done
    # apt's answer depends on the clause alone, and most of the fifteen write
    # the same one: each clause is asked once (apt-get -s takes seconds)
    for c in "${!users[@]}"; do
        # without sdtkit, apt would install SystemTap's package for it
        satisfy "$c" | grep -q '^Inst systemtap-sdt-dev ' ||
            { echo "${users[$c]}($c): apt would not install systemtap-sdt-dev without sdtkit"; false; }
    done
    dpkg --admindir="$PWD/db/admin" --instdir="$PWD/db/root" --force-not-root \
        --force-script-chrootless -i "$DEBFILE" >/dev/null
    for c in "${!users[@]}"; do
        out=$(satisfy "$c") || { echo "${users[$c]}($c): $out"; false; }
        ! grep -q '^Inst ' <<<"$out" || { echo "${users[$c]}($c) still needs: $out"; false; }
    done
    # and one whole build-dep, PostgreSQL's: everything but systemtap-sdt-dev
    out=$(apt-get -s -o Dir::State::status="$PWD/db/admin/status" build-dep postgresql-15 2>&1) ||
        { echo "$out"; false; }
    ! grep -q '^Inst systemtap-sdt-dev' <<<"$out"
}

# ---- the installed tree works ---------------------------------------------

@test "the unpacked package's dtrace -h/-G and header build a probed program, by either include path" {
    dpkg-deb -x "$DEBFILE" pkg
    [ "$(pkg/usr/bin/dtrace --version)" = "dtrace (sdtkit) $VERSION" ]
    printf 'provider app {\n  probe start(int, char *);\n};\n' > app.d
    pkg/usr/bin/dtrace -h -s app.d -o app.h
    pkg/usr/bin/dtrace -G -s app.d -o app_probes.o
    cat > app.c <<'EOF'
#include "app.h"
void plain(int);
int main(int argc, char **argv) {
    if (APP_START_ENABLED())
        APP_START(argc, argv[0]);
    plain(argc);
    return 0;
}
EOF
    printf '#include <sys/sdt.h>\nvoid plain(int n) { DTRACE_PROBE1(app, plain, n); }\n' > plain.c
    for inc in pkg/usr/include "pkg/usr/include/$MULTIARCH"; do
        gcc -O2 -Wall -Wextra -Werror -I "$inc" app.c plain.c app_probes.o -o app
        # the header used is the package's, not the system's
        gcc -M -I "$inc" plain.c | grep -q "$inc/sys/sdt.h"
        ./app
        [ "$(note_probes app | cut -f1 | sort -u | tr '\n' ' ')" = "app:plain app:start " ]
        [ "$(pkg/usr/bin/sdt-list app | grep -c 'app')" -ge 2 ]
    done
}

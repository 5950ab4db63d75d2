#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# make deb: the Debian packages, from the release tarball as the orig
# tarball: sdtkit (the headers) and sdtkit-tools (dtrace, sdt-list), which
# together stand in for systemtap-sdt-dev, and the run-time libraries as
# Debian's library policy wants them (libsdtkit1, libstapsdt0,
# libsdtkit-dev).  Their files and fields, lintian, reproducibility, that
# dpkg and apt take sdtkit for systemtap-sdt-dev, and that they work.  The
# packages are make check's, installed only into scratch dpkg databases; a
# second build, in an unpacked copy of the tarball, is made once.
# bats file_tags=release

load helpers
load package-helpers

# copy_tree DIR: the release tarball unpacked into DIR.
copy_tree() {
    mkdir -p "$1"
    tar -xzf "$TARBALL" -C "$1" --strip-components=1
}

setup_file() {
    export VERSION MULTIARCH TARBALL SECOND
    VERSION=$(cat "$ROOT/VERSION")
    TARBALL=$BATS_FILE_TMPDIR/sdtkit-$VERSION.tar.gz
    SECOND=$BATS_FILE_TMPDIR/second/src
    MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null) || return 0
    command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null || return 0
    dist_tarball "$BATS_FILE_TMPDIR" >"$BATS_FILE_TMPDIR/dist.log" 2>&1 || return 0
    (copy_tree "$SECOND" && make -s -C "$SECOND" deb) >"$BATS_FILE_TMPDIR/second.log" 2>&1 || true
}

setup() {
    need_deb_tools
    need_debs "$NATIVE"
    [ -f "$TARBALL" ] || { cat "$BATS_FILE_TMPDIR/dist.log"; false; }
    DEBDIR=$ROOT/build/deb/$NATIVE SRC=$ROOT/build/deb/$NATIVE/sdtkit-$VERSION
    DEBFILE=$(deb "$NATIVE" sdtkit) TOOLSFILE=$(deb "$NATIVE" sdtkit-tools)
}

# described DEB WORDS: DEB has a real description: a synopsis naming
# WORDS, and a long text.
described() {
    local desc
    desc=$(dpkg-deb -f "$1" Description)
    [[ "$(head -1 <<<"$desc")" == *"$2"* ]] || { echo "$1: synopsis without $2: $desc"; return 1; }
    [ "$(wc -l <<<"$desc")" -ge 5 ] || { echo "$1: a short description: $desc"; return 1; }
}

# deb_files PACKAGE: the paths PACKAGE ships, one a line, as /usr/...
deb_files() {
    dpkg-deb -c "$(deb "$NATIVE" "$1")" | awk '{ print $6 }' | sed 's|^\./|/|'
}

# apt_get ARGS... / apt_cache ARGS...: apt-get and apt-cache, with the
# lists' binary cache (off in Docker's images: half of a simulation's CPU)
# kept for the suite; apt rebuilds it when a list changed, atomically.
apt_get() {
    apt-get -o Dir::Cache::srcpkgcache="$BATS_FILE_TMPDIR/srcpkgcache.bin" "$@"
}
apt_cache() {
    apt-cache -o Dir::Cache::srcpkgcache="$BATS_FILE_TMPDIR/srcpkgcache.bin" "$@"
}

# apt_sim STATUS ARGS...: apt_get -s ARGS... against the dpkg status file
# STATUS: its output and exit status, the first answer again for the same
# question (ARGS, STATUS's bytes): each takes about a second of CPU.
apt_sim() {
    local status=$1 key dir=$BATS_FILE_TMPDIR/apt-answers
    shift
    key=$( { printf '%s\n' "$@"; cat "$status"; } | sha1sum)
    key=$dir/${key%% *}
    if [ ! -f "$key.status" ]; then
        mkdir -p "$dir"
        apt_get -s -o Dir::State::status="$status" "$@" >"$key.out" 2>&1
        echo $? >"$key.status.tmp" && mv "$key.status.tmp" "$key.status"
    fi
    cat "$key.out"
    return "$(cat "$key.status")"
}

# scratch_admindir DIR: a copy of the system's dpkg status file in
# DIR/admin, with an empty DIR/root to install into; db_dpkg ARGS...: dpkg
# on ./db's.
scratch_admindir() {
    mkdir -p "$1/admin/info" "$1/admin/updates" "$1/root"
    cp /var/lib/dpkg/status "$1/admin/status"
}
db_dpkg() {
    dpkg --admindir="$PWD/db/admin" --instdir="$PWD/db/root" --force-not-root --force-script-chrootless "$@"
}

# ---- the package itself -------------------------------------------------

@test "make deb builds the five packages under build/deb, versioned VERSION-REVISION from the changelog" {
    local p
    for p in $DEB_PACKAGES; do
        [ -f "$(deb "$NATIVE" $p)" ] || { ls "$DEBDIR"; false; }
        [ "$(dpkg-deb -f "$(deb "$NATIVE" $p)" Package)" = $p ]
        [ "$(dpkg-deb -f "$(deb "$NATIVE" $p)" Version)" = "$DEB_VERSION" ]
        [ "$(dpkg-deb -f "$(deb "$NATIVE" $p)" Architecture)" = "$NATIVE" ]
    done
    # debian/changelog names the upstream version of VERSION, and a revision
    [ "${DEB_VERSION%-*}" = "$VERSION" ]
    [ "$DEB_VERSION" != "$VERSION" ]
    # and nothing else was built (dbgsym packages aside)
    [ "$(cd "$DEBDIR" && ls *.deb | grep -vc dbgsym)" -eq 5 ]
}

@test "the orig tarball is make dist's tarball, and the source package unpacks from it" {
    cmp "$TARBALL" "$DEBDIR/sdtkit_$VERSION.orig.tar.gz"
    grep -qx '3.0 (quilt)' "$SRC/debian/source/format"
    # dpkg-source checks the orig tarball's checksums against the .dsc
    dpkg-source -x "$DEBDIR/sdtkit_$DEB_VERSION.dsc" unpacked > /dev/null
    copy_tree tree
    diff -r -x .pc tree unpacked
}

@test "sdtkit provides, conflicts with and replaces systemtap-sdt-dev, is Multi-Arch: same and depends on sdtkit-tools alone" {
    [ "$(dpkg-deb -f "$DEBFILE" Provides)" = systemtap-sdt-dev ]
    [ "$(dpkg-deb -f "$DEBFILE" Conflicts)" = systemtap-sdt-dev ]
    [ "$(dpkg-deb -f "$DEBFILE" Replaces)" = systemtap-sdt-dev ]
    [ "$(dpkg-deb -f "$DEBFILE" Multi-Arch)" = same ]
    # the tools of this source version, or a binNMU's
    [ "$(dpkg-deb -f "$DEBFILE" Depends)" = "sdtkit-tools (>= $DEB_VERSION)" ]
    [ "$(dpkg-deb -f "$DEBFILE" Section)" = devel ]
    described "$DEBFILE" "<sys/sdt.h>"
}

@test "sdtkit-tools is Multi-Arch: foreign, needs only libc, and takes the files of systemtap-sdt-dev and of sdtkit before 0.1.0-2" {
    [ "$(dpkg-deb -f "$TOOLSFILE" Multi-Arch)" = foreign ]
    [[ "$(dpkg-deb -f "$TOOLSFILE" Depends)" == "libc6 (>= "*")" ]]
    # every real systemtap-sdt-dev, not sdtkit's unversioned Provides
    [ "$(dpkg-deb -f "$TOOLSFILE" Conflicts)" = "systemtap-sdt-dev (>= 0~)" ]
    [ "$(dpkg-deb -f "$TOOLSFILE" Breaks)" = "sdtkit (<< 0.1.0-2~)" ]
    [ "$(dpkg-deb -f "$TOOLSFILE" Replaces)" = "sdtkit (<< 0.1.0-2~), systemtap-sdt-dev" ]
    [ -z "$(dpkg-deb -f "$TOOLSFILE" Provides)" ]
    [ "$(dpkg-deb -f "$TOOLSFILE" Section)" = devel ]
    described "$TOOLSFILE" "dtrace -h/-G"
}

@test "sdtkit ships the headers (also multiarch), pkg-config and CMake files; sdtkit-tools dtrace (also as TRIPLET-dtrace), sdt-list and the man pages; both a copyright file" {
    local f
    deb_files sdtkit > files
    for f in /usr/include/sys/sdt.h /usr/include/sys/sdt-config.h /usr/include/sys/sdt-operands.h \
        /usr/include/usdt.h "/usr/include/$MULTIARCH/sys/sdt.h" "/usr/include/$MULTIARCH/sys/sdt-config.h" \
        /usr/share/pkgconfig/sdtkit.pc /usr/share/cmake/sdtkit/sdtkit-config.cmake \
        /usr/share/doc/sdtkit/copyright /usr/share/doc/sdtkit/changelog.Debian.gz; do
        grep -qx "$f" files || { echo "not in sdtkit: $f"; return 1; }
    done
    # no program, and nothing of the run-time libraries
    ! grep -E '/bin/|/man/|libsdtkit|libstapsdt|sdtkit\.h|sdtkit-runtime' files || false
    deb_files sdtkit-tools > tools
    for f in /usr/bin/dtrace /usr/bin/sdt-list /usr/share/man/man1/dtrace.1.gz \
        /usr/share/man/man1/sdt-list.1.gz /usr/share/doc/sdtkit-tools/copyright; do
        grep -qx "$f" tools || { echo "not in sdtkit-tools: $f"; return 1; }
    done
    ! grep -E '/include/|pkgconfig|cmake|/man3/' tools || false
    # dtrace as TRIPLET-dtrace for each target, as binutils' tools: links,
    # their man pages too, which dh_compress kept pointing at the page
    local arch t
    dpkg-deb -c "$TOOLSFILE" > listing
    for arch in $ALL_ARCHES; do
        t=$(arch_triple "$arch")
        grep -q "\./usr/bin/$t-dtrace -> dtrace\$" listing ||
            { echo "no link $t-dtrace in sdtkit-tools"; return 1; }
        grep -q "\./usr/share/man/man1/$t-dtrace\.1\.gz -> dtrace\.1\.gz\$" listing ||
            { echo "no man page $t-dtrace.1.gz in sdtkit-tools"; return 1; }
    done
    [ "$(grep -c -- '-dtrace$' tools)" -eq 18 ]
    # the multiarch headers are links to the one copy in /usr/include/sys
    dpkg-deb -c "$DEBFILE" | grep -q "\./usr/include/$MULTIARCH/sys/sdt.h -> \.\./\.\./sys/sdt.h\$"
    # the copyright file is machine-readable
    dpkg-deb --fsys-tarfile "$DEBFILE" | tar -xO ./usr/share/doc/sdtkit/copyright > copyright
    head -1 copyright | grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/'
}

@test "every file make install installs is in exactly one package" {
    # make install in the tree dpkg-buildpackage built, not compiling again
    make -s -C "$DEBDIR/sdtkit-$VERSION" install PREFIX=/usr LIBDIR="/usr/lib/$MULTIARCH" \
        DESTDIR="$PWD/stage" >/dev/null
    (cd stage && find . ! -type d | sed 's|^\./|/|') | sort > installed
    [ "$(wc -l < installed)" -ge 25 ]
    local p
    for p in $DEB_PACKAGES; do deb_files $p; done | sort > packaged
    while read -r f; do
        [ "$(grep -cx -e "$f" -e "$f.gz" packaged)" -eq 1 ] ||
            { echo "installed, but in $(grep -cx -e "$f" -e "$f.gz" packaged) packages: $f"; return 1; }
    done < installed
}

# ---- the run-time libraries, as Debian's library policy wants them --------

@test "libsdtkit1 and libstapsdt0 are named after their SONAMEs and ship the library and its SONAME link alone" {
    local p so lib
    while read -r p so; do
        [ "$(dpkg-deb -f "$(deb "$NATIVE" $p)" Section)" = libs ]
        [ "$(dpkg-deb -f "$(deb "$NATIVE" $p)" Multi-Arch)" = same ]
        # libNAME.so.N in package libNAMEN
        lib=${so%.so.*}
        [ "$p" = "$lib${so##*.so.}" ]
        deb_files $p | grep -v '^/usr/share/doc/\|/$' | sort > files
        [ "$(cat files)" = "/usr/lib/$MULTIARCH/$so
/usr/lib/$MULTIARCH/$so.0.0" ]
        dpkg-deb -c "$(deb "$NATIVE" $p)" | grep -q "\./usr/lib/$MULTIARCH/$so -> $so.0.0\$"
        dpkg-deb -x "$(deb "$NATIVE" $p)" x-$p
        readelf -d "x-$p/usr/lib/$MULTIARCH/$so.0.0" | grep -q "(SONAME).*\[$so\]"
        # depends on the C library only
        [[ "$(dpkg-deb -f "$(deb "$NATIVE" $p)" Depends)" == "libc6 (>= "*")" ]]
    done <<'EOF'
libsdtkit1  libsdtkit.so.1
libstapsdt0 libstapsdt.so.0
EOF
}

@test "the library packages carry symbols files listing exactly the headers' functions, and shlibs" {
    local p sym
    for p in libsdtkit1 libstapsdt0; do
        dpkg-deb -e "$(deb "$NATIVE" $p)" ctl-$p
        [ -f ctl-$p/shlibs ]
        [ -f ctl-$p/symbols ]
        grep -q "^\* Build-Depends-Package: libsdtkit-dev$" ctl-$p/symbols
    done
    # the exported functions are the ones the headers declare, and no other
    sed -n 's/^ \(sdtkit_[a-z_]*\)@SDTKIT_1\(\.1\)\{0,1\} .*/\1/p' ctl-libsdtkit1/symbols | sort > exported
    sed -n 's/^[a-z].*[ *]\(sdtkit_[a-z_]*\) *(.*/\1/p' "$ROOT/include/sdtkit.h" | sort > declared
    [ -s declared ] && diff declared exported
    sed -n 's/^ \([A-Za-z]*\)@Base .*/\1/p' ctl-libstapsdt0/symbols | sort > exported
    sed -n 's/^[A-Za-z].*[ *]\([a-z][A-Za-z]*\) *(.*/\1/p' "$ROOT/include/libstapsdt.h" | sort > declared
    [ "$(wc -l < declared)" -eq 8 ] && diff declared exported
}

@test "libsdtkit-dev has the headers, .so links, archives, pkg-config and CMake files and man(3), and needs this very version of both libraries" {
    local p=libsdtkit-dev
    [ "$(dpkg-deb -f "$(deb "$NATIVE" $p)" Section)" = libdevel ]
    [ "$(dpkg-deb -f "$(deb "$NATIVE" $p)" Multi-Arch)" = same ]
    [ "$(dpkg-deb -f "$(deb "$NATIVE" $p)" Provides)" = libstapsdt-dev ]
    [ "$(dpkg-deb -f "$(deb "$NATIVE" $p)" Depends)" = \
      "libsdtkit1 (= $DEB_VERSION), libstapsdt0 (= $DEB_VERSION)" ]
    deb_files $p > files
    local L=/usr/lib/$MULTIARCH f
    for f in /usr/include/sdtkit.h /usr/include/libstapsdt.h $L/libsdtkit.so $L/libstapsdt.so \
        $L/libsdtkit.a $L/libstapsdt.a $L/pkgconfig/sdtkit-runtime.pc $L/pkgconfig/libstapsdt.pc \
        $L/cmake/sdtkit-runtime/sdtkit-runtime-config.cmake \
        /usr/share/man/man3/sdtkit.3.gz /usr/share/man/man3/libstapsdt.3.gz; do
        grep -qx "$f" files || { echo "not in $p: $f"; return 1; }
    done
    dpkg-deb -c "$(deb "$NATIVE" $p)" | grep -q "\.$L/libsdtkit.so -> libsdtkit.so.1\$"
    dpkg-deb -c "$(deb "$NATIVE" $p)" | grep -q "\.$L/libstapsdt.so -> libstapsdt.so.0\$"
}

@test "installed into a scratch root, the packages build a program through pkg-config that loads its probes, and dpkg-shlibdeps names libsdtkit1" {
    need_cmd pkg-config gcc
    scratch_admindir db
    local p debs=()
    for p in $DEB_PACKAGES; do debs+=("$(deb "$NATIVE" $p)"); done
    db_dpkg --force-depends -i "${debs[@]}" > /dev/null
    local L="$PWD/db/root/usr/lib/$MULTIARCH"
    export PKG_CONFIG_PATH="$L/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$PWD/db/root"
    gcc -std=c11 -Wall -Werror $(pkg-config --cflags sdtkit-runtime) "$ROOT/tests/release/rt-user.c" \
        $(pkg-config --libs sdtkit-runtime) -o user
    run env LD_LIBRARY_PATH="$L" ./user
    [ "$output" = "fired 42 hello" ]
    # the dependency a package built against it gets, as dpkg-shlibdeps
    # works it out from the symbols file in the library's package
    mkdir -p shl/debian
    printf 'Source: user\n\nPackage: user\nArchitecture: any\nDescription: x\n' > shl/debian/control
    dpkg-deb -R "$(deb "$NATIVE" libsdtkit1)" shl/debian/libsdtkit1
    cp user shl/
    (cd shl && dpkg-shlibdeps -O -ldebian/libsdtkit1/usr/lib/"$MULTIARCH" user 2>/dev/null) > deps
    cat deps
    grep -q "^shlibs:Depends=libc6 (>= [0-9.]*), libsdtkit1 (>= $VERSION)$" deps
}

@test "every file of systemtap-sdt-dev that builds use has its counterpart in sdtkit or sdtkit-tools" {
    dpkg -L systemtap-sdt-dev >stap 2>/dev/null ||
        missing "systemtap-sdt-dev is not installed (.ci/run installs it)"
    { deb_files sdtkit && deb_files sdtkit-tools; } > ours
    grep -E '^/usr/(bin|include)/.|/man/.*\.gz$' stap > used
    [ -s used ]
    while read -r f; do
        [ -d "$f" ] || grep -qx "$f" ours || { echo "systemtap-sdt-dev has $f, sdtkit does not"; return 1; }
    done < used
}

@test "lintian finds no errors or warnings in any package, source included, and nothing about Multi-Arch at any level" {
    run lintian --pedantic -I --display-experimental "$DEBDIR/sdtkit_${DEB_VERSION}_$NATIVE.changes"
    echo "$output"
    ! grep -q '^[EW]: ' <<<"$output" || false
    # the multi-arch checks (multiarch-foreign-*, dependency-is-not-multi-archified,
    # gzip-file-is-not-multi-arch-same-safe ...) have nothing to say either
    ! grep -i 'multi-\?arch' <<<"$output" || false
    # the .changes lintian read names every package and the source
    local p
    for p in $DEB_PACKAGES; do
        grep -q " ${p}_${DEB_VERSION}_$NATIVE.deb\$" "$DEBDIR/sdtkit_${DEB_VERSION}_$NATIVE.changes"
    done
    grep -q " sdtkit_$DEB_VERSION.dsc\$" "$DEBDIR/sdtkit_${DEB_VERSION}_$NATIVE.changes"
    # lintian exits 0 unless it reports an error (or fails)
    [ "$status" -eq 0 ]
}

@test "make deb refuses when debian/changelog does not name the version in VERSION" {
    copy_tree other
    echo 9.9.9 > other/VERSION
    run make -s -C other deb
    [ "$status" -ne 0 ]
    [[ "$output" == *"debian/changelog: version $DEB_VERSION, but VERSION says 9.9.9"* ]]
    [ ! -e other/build/deb ]
}

@test "make deb leaves nothing in the tree or beside it" {
    [ -f "$SECOND/build/deb/$NATIVE/sdtkit_${DEB_VERSION}_$NATIVE.changes" ] || { cat "$BATS_FILE_TMPDIR/second.log"; false; }
    # the second build's tree, an unpacked tarball: only build/ was added
    copy_tree fresh
    (cd fresh && find . -path ./build -prune -o -print | sort) > want
    (cd "$SECOND" && find . -path ./build -prune -o -print | sort) > got
    diff want got
    # and beside it, nothing
    [ "$(ls "$SECOND/..")" = src ]
    # made again when a file of the tarball changed, and only then
    make -q -C "$SECOND" deb
    touch "$SECOND/README.md"
    run make -q -C "$SECOND" deb
    [ "$status" -eq 1 ]
}

# ---- reproducible ---------------------------------------------------------

@test "two builds of the packages, in different directories, are the same bytes; make clean removes them" {
    [ -f "$SECOND/build/deb/$NATIVE/sdtkit_${DEB_VERSION}_$NATIVE.changes" ] || { cat "$BATS_FILE_TMPDIR/second.log"; false; }
    local f n=0
    for f in "$DEBDIR"/*.deb; do
        cmp "$f" "$SECOND/build/deb/$NATIVE/${f##*/}"
        n=$((n + 1))
    done
    [ "$n" -eq 8 ] # five packages, and the dbgsym of the three with ELF files
    # this build made its own tarball (make dist in the unpacked tarball):
    # the same bytes as make dist's in the checkout
    cmp "$TARBALL" "$SECOND/build/deb/$NATIVE/sdtkit_$VERSION.orig.tar.gz"
    # every file is dated from the changelog, not from the build
    local epoch
    epoch=$(cd "$ROOT" && dpkg-parsechangelog -S Timestamp)
    dpkg-deb --fsys-tarfile "$DEBFILE" | tar -tv --full-time | awk '{ print $4 " " $5 }' | sort -u > dates
    [ "$(wc -l < dates)" -eq 1 ]
    [ "$(date -u -d "$(cat dates)" +%s)" -eq "$epoch" ]
    cp -a "$SECOND" third
    make -s -C third clean
    [ ! -e third/build ]
}

# ---- dpkg and apt take it for systemtap-sdt-dev -------------------------

@test "apt-get -s install ./sdtkit.deb ./sdtkit-tools.deb removes systemtap-sdt-dev, and so does sdtkit-tools alone" {
    dpkg -s systemtap-sdt-dev >/dev/null 2>&1 ||
        missing "systemtap-sdt-dev is not installed (.ci/run installs it)"
    run apt_get -s install "$DEBFILE" "$TOOLSFILE"
    echo "$output"
    [ "$status" -eq 0 ]
    grep -q '^Remv systemtap-sdt-dev ' <<<"$output"
    grep -q "^Inst sdtkit ($DEB_VERSION " <<<"$output"
    grep -q "^Inst sdtkit-tools ($DEB_VERSION " <<<"$output"
    # both have /usr/bin/dtrace: the tools cannot be beside it either
    run apt_get -s install "$TOOLSFILE"
    echo "$output"
    [ "$status" -eq 0 ]
    grep -q '^Remv systemtap-sdt-dev ' <<<"$output"
    ! grep -q '^Inst sdtkit ' <<<"$output" || false
}

@test "installed into a scratch dpkg database, sdtkit takes the place of systemtap-sdt-dev" {
    scratch_admindir db
    run db_dpkg -i "$DEBFILE" "$TOOLSFILE"
    echo "$output"
    [ "$status" -eq 0 ]
    if grep -q '^Package: systemtap-sdt-dev$' /var/lib/dpkg/status; then
        grep -q '^Removing systemtap-sdt-dev' <<<"$output"
    fi
    [ "$(dpkg-query --admindir="$PWD/db/admin" -W -f '${Status}' sdtkit)" = "install ok installed" ]
    [ "$(dpkg-query --admindir="$PWD/db/admin" -W -f '${Status}' sdtkit-tools)" = "install ok installed" ]
    # not installed: unknown to the database, or "deinstall ok config-files",
    # "purge ok not-installed" ... (the last word is "installed" only when it is)
    ! dpkg-query --admindir="$PWD/db/admin" -W -f '${Status}\n' systemtap-sdt-dev 2>/dev/null |
        grep -q ' installed$' || false
    [ -x db/root/usr/bin/dtrace ]
    [ -f "db/root/usr/include/$MULTIARCH/sys/sdt.h" ]
}

@test "with sdtkit installed, a Build-Depends on systemtap-sdt-dev is satisfied (dpkg-checkbuilddeps)" {
    # An empty dpkg database, then one holding only build-essential and sdtkit;
    # the build dependency as the fifteen packages write it.
    mkdir -p db/var/lib/dpkg/info db/var/lib/dpkg/updates src/debian
    printf 'Package: build-essential\nStatus: install ok installed\nVersion: 12.9\nArchitecture: %s\nMaintainer: x <x@example.org>\nDescription: x\n' \
        "$NATIVE" > db/var/lib/dpkg/status
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
        -i "$DEBFILE" "$TOOLSFILE" >/dev/null 2>&1
    dpkg-checkbuilddeps --admindir="$BATS_TEST_TMPDIR/db/var/lib/dpkg"
}

@test "with sdtkit installed, apt has nothing to install for systemtap-sdt-dev, and going back removes sdtkit" {
    apt_cache show systemtap-sdt-dev >/dev/null 2>&1 ||
        missing "apt knows no systemtap-sdt-dev (run apt-get update)"
    scratch_admindir db
    # the database without systemtap-sdt-dev: apt would install it
    db_dpkg --force-all --purge systemtap-sdt-dev >/dev/null 2>&1 || true
    run apt_sim "$PWD/db/admin/status" satisfy 'systemtap-sdt-dev [linux-any]'
    grep -q '^Inst systemtap-sdt-dev ' <<<"$output"
    # with sdtkit: nothing to install
    db_dpkg -i "$DEBFILE" "$TOOLSFILE" >/dev/null
    run apt_sim "$PWD/db/admin/status" satisfy 'systemtap-sdt-dev [linux-any]'
    echo "$output"
    [ "$status" -eq 0 ]
    ! grep -q '^Inst ' <<<"$output" || false
    # going back: apt removes sdtkit to install systemtap-sdt-dev
    run apt_sim "$PWD/db/admin/status" install systemtap-sdt-dev
    echo "$output"
    [ "$status" -eq 0 ]
    grep -q "^Remv sdtkit \[$DEB_VERSION\]" <<<"$output"
    grep -q "^Remv sdtkit-tools \[$DEB_VERSION\]" <<<"$output"
    grep -q '^Inst systemtap-sdt-dev ' <<<"$output"
}

@test "the build dependencies of all fifteen packages that use systemtap-sdt-dev are satisfied by sdtkit, unedited" {
    # the source records of all fifteen, read once
    # shellcheck disable=SC2086
    apt_cache showsrc $SDT_USERS >showsrc 2>/dev/null || true
    grep -q '^Package: postgresql-15$' showsrc ||
        missing "apt has no deb-src lists (.ci/run adds them: sdtkit-deb-src.sources)"
    scratch_admindir db
    db_dpkg --force-all --purge systemtap-sdt-dev >/dev/null 2>&1 || true
    # satisfy CLAUSE...: what apt would install for them, against ./db
    satisfy() {
        apt_sim "$PWD/db/admin/status" satisfy "$@"
    }
    local c out
    sdt_users showsrc
    # each clause, which several of the fifteen write, asked once
    for c in "${!CLAUSE_USERS[@]}"; do
        # without sdtkit, apt would install SystemTap's package for it
        satisfy "$c" | grep -q '^Inst systemtap-sdt-dev ' ||
            { echo "${CLAUSE_USERS[$c]}($c): apt would not install systemtap-sdt-dev without sdtkit"; false; }
    done
    db_dpkg -i "$DEBFILE" "$TOOLSFILE" >/dev/null
    # all clauses at once: nothing to install for them together means
    # nothing for each; when apt has something, each alone says which
    if ! out=$(satisfy "${!CLAUSE_USERS[@]}") || grep -q '^Inst ' <<<"$out"; then
        for c in "${!CLAUSE_USERS[@]}"; do
            out=$(satisfy "$c") || { echo "${CLAUSE_USERS[$c]}($c): $out"; false; }
            ! grep -q '^Inst ' <<<"$out" || { echo "${CLAUSE_USERS[$c]}($c) still needs: $out"; false; }
        done
        echo "apt has something to install for the clauses together: $(satisfy "${!CLAUSE_USERS[@]}")"
        false
    fi
    # and one whole build-dep, PostgreSQL's: everything but systemtap-sdt-dev
    out=$(apt_sim "$PWD/db/admin/status" build-dep postgresql-15) ||
        { echo "$out"; false; }
    ! grep -q '^Inst systemtap-sdt-dev' <<<"$out"
}

# ---- the installed tree works ---------------------------------------------

@test "the unpacked package's dtrace -h/-G and header build a probed program, by either include path" {
    dpkg-deb -x "$DEBFILE" pkg
    dpkg-deb -x "$TOOLSFILE" pkg
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

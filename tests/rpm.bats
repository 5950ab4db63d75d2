#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# make rpm: the RPM packages of sdtkit.spec, from the release tarball:
# sdtkit (dtrace and <sys/sdt.h>, for systemtap-sdt-devel and -dtrace) and
# the run-time libraries (-libs, -devel, -static).  Their fields and files,
# rpmlint, and that in a scratch root (rpm --root) they build and run
# probed programs and rpm takes sdtkit for SystemTap's packages.  Built
# once, in an unpacked copy of the tarball.
# bats file_tags=release

load helpers
load package-helpers

# rpm's brp-elfperms takes the x bits off shared libraries where
# eu-elfclassify is installed (as on Fedora's build machines): the packages
# are made as the machine is and with it hidden (bound to /dev/null).
ELFCLASSIFY=/usr/bin/eu-elfclassify

# rpm_without_elfutils: the packages made again in SRC2 with eu-elfclassify
# hidden, from the first build's compiled tree (--noprep in its _builddir,
# no %check) and its tarball (make -o dist).
rpm_without_elfutils() {
    mkdir -p "$SRC2/build"
    tar -xzf "$TARBALL" -C "$SRC2" --strip-components=1
    cp "$TARBALL" "$SRC2/build/"
    unshare --mount sh -c "mount --bind /dev/null $ELFCLASSIFY && make -s -o dist -C '$SRC2' rpm \
        RPMBUILD=\"rpmbuild --noclean --noprep --nocheck --define '_builddir $SRC/build/rpm/BUILD'\""
}

setup_file() {
    export VERSION RELEASE VR SRC RPMS ARCH TARBALL SRC2 RPMS2
    VERSION=$(cat "$ROOT/VERSION")
    RELEASE=$(sed -n 's/^Release: *\([0-9]*\).*/\1/p' "$ROOT/sdtkit.spec")
    VR=$VERSION-$RELEASE
    TARBALL=$BATS_FILE_TMPDIR/sdtkit-$VERSION.tar.gz
    SRC=$BATS_FILE_TMPDIR/src
    RPMS=$SRC/build/rpm/RPMS/$(uname -m)
    SRC2=$BATS_FILE_TMPDIR/src-no-elfutils
    RPMS2=$SRC2/build/rpm/RPMS/$(uname -m)
    command -v rpmbuild >/dev/null || return 0
    dist_tarball "$BATS_FILE_TMPDIR" >"$BATS_FILE_TMPDIR/make-rpm.log" 2>&1 || return 0
    mkdir -p "$SRC"
    tar -xzf "$TARBALL" -C "$SRC" --strip-components=1
    # --noclean: the tree stays, for make install and the second build.
    # %check's make check-fast: not this run's (fresh), with the checkout's
    # corpus, the normal pass only (the asan pass is this run's), and
    # RPM_SUITES, suites of the tools, the header and the libraries (make
    # check runs them all on the same sources: the test is that %check
    # runs them on what rpmbuild built)
    fresh env SUITES="$RPM_SUITES" SDTKIT_PASSES=normal SDTKIT_CORPUS="$(realpath -e "$CORPUS" 2>/dev/null)" make -s -C "$SRC" rpm \
        RPMBUILD="rpmbuild --noclean" >>"$BATS_FILE_TMPDIR/make-rpm.log" 2>&1 || return 0
    if [ -x "$ELFCLASSIFY" ] && [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null; then
        rpm_without_elfutils >"$BATS_FILE_TMPDIR/make-rpm2.log" 2>&1 || true
    fi
}

setup() {
    need_cmd rpmbuild rpm rpm2cpio cpio rpmlint
    [ -f "$(rpmfile sdtkit)" ] || { cat "$BATS_FILE_TMPDIR/make-rpm.log" "$SRC/build/rpm/build.log" >&2; false; }
}

# RPM_SUITES: the suites %check runs here (rpmbuild alone runs every suite
# of the fast tier).
RPM_SUITES="tests/dtrace-cli.bats tests/dtrace-parse.bats tests/header-strict.bats tests/runtime-model.bats"

# PACKAGES: every binary package of sdtkit.spec.
PACKAGES="sdtkit sdtkit-libs sdtkit-devel sdtkit-static"

# rpmfile PACKAGE: PACKAGE's .rpm.
rpmfile() {
    echo "$RPMS/$1-$VR.$(uname -m).rpm"
}

# q PACKAGE OPTION...: rpm -qp OPTION... of PACKAGE's .rpm.
q() {
    local p=$1
    shift
    rpm -qp "$@" "$(rpmfile "$p")" 2>/dev/null
}

@test "make rpm builds sdtkit, -libs, -devel and -static and the source package, from the tarball, versioned from the spec" {
    local p
    for p in $PACKAGES; do
        [ "$(q $p --qf '%{NAME} %{VERSION} %{RELEASE}')" = "$p $VERSION $RELEASE" ]
    done
    [ "$(ls "$RPMS" | wc -l)" -eq 4 ]
    # the spec names VERSION, and the source package holds make dist's tarball
    grep -qx "Version: *$VERSION" "$ROOT/sdtkit.spec"
    rpm2cpio "$SRC/build/rpm/SRPMS/sdtkit-$VR.src.rpm" | cpio -i --quiet "sdtkit-$VERSION.tar.gz"
    cmp "$TARBALL" "sdtkit-$VERSION.tar.gz"
    # dated from the changelog, as the tarball
    [ "$(q sdtkit --qf '%{BUILDTIME}')" -eq "$(tar -tvzf "$TARBALL" --full-time | head -1 |
        awk '{ print $4 " " $5 }' | xargs -I{} date -u -d {} +%s)" ]
}

@test "sdtkit provides systemtap-sdt-devel, systemtap-sdt-dtrace and /usr/bin/dtrace, and conflicts with both" {
    q sdtkit --provides > provides
    cat provides
    grep -qx "systemtap-sdt-devel = $VR" provides
    grep -qx "systemtap-sdt-dtrace = $VR" provides
    grep -qx /usr/bin/dtrace provides
    grep -qx "pkgconfig(sdtkit) = $VERSION" provides
    grep -qx "cmake(sdtkit) = $VERSION" provides
    q sdtkit-devel --provides | grep -qx "cmake(sdtkit-runtime) = $VERSION"
    [ "$(q sdtkit --conflicts | sort | xargs)" = "systemtap-sdt-devel systemtap-sdt-dtrace" ]
    local p
    for p in sdtkit-libs sdtkit-devel sdtkit-static; do
        [ -z "$(q $p --conflicts)" ]
    done
}

@test "sdtkit needs only the C library; -devel needs this very -libs, -static this very -devel" {
    q sdtkit --requires | grep -v '^rpmlib(\|^rtld(' > requires
    cat requires
    ! grep -v '^libc\.so\.6\|^/usr/bin/pkg-config$' requires || false
    [ "$(q sdtkit-libs --requires | grep -v '^rpmlib(\|^rtld(\|^libc\.so\.6')" = "" ]
    q sdtkit-devel --requires | grep -qx "sdtkit-libs(x86-64) = $VR"
    q sdtkit-static --requires | grep -qx "sdtkit-devel(x86-64) = $VR"
    # -libs provides the SONAMEs, with libsdtkit's version node
    q sdtkit-libs --provides > provides
    grep -qx 'libsdtkit.so.1()(64bit)' provides
    grep -qx 'libsdtkit.so.1(SDTKIT_1)(64bit)' provides
    grep -qx 'libstapsdt.so.0()(64bit)' provides
}

@test "rpm -qpl: the tools (dtrace also as TRIPLET-dtrace) and <sys/sdt.h> in sdtkit, the SONAMEs in -libs, the .so links, headers and .pc in -devel, the archives in -static" {
    # PACKAGE  files it must have (regular expressions of rpm -qpl's lines:
    # man pages are compressed or not, as the build machine's rpm does)
    local p f want
    set -f
    while read -r p want; do
        q $p -l > files
        for f in $want; do
            grep -qx "$f" files || { echo "$p lacks $f"; cat files; false; }
        done
    done <<'EOF'
sdtkit         /usr/bin/dtrace /usr/bin/sdt-list /usr/include/sys/sdt.h /usr/include/sys/sdt-config.h /usr/include/sys/sdt-operands.h /usr/include/usdt.h /usr/share/pkgconfig/sdtkit.pc /usr/share/cmake/sdtkit/sdtkit-config.cmake /usr/share/man/man1/dtrace.1.* /usr/share/licenses/sdtkit-.*/LICENSE
sdtkit-libs    /usr/lib64/libsdtkit.so.1 /usr/lib64/libsdtkit.so.1.0.0 /usr/lib64/libstapsdt.so.0 /usr/lib64/libstapsdt.so.0.0.0 /usr/share/licenses/sdtkit-libs-.*/LICENSE
sdtkit-devel   /usr/include/sdtkit.h /usr/include/libstapsdt.h /usr/lib64/libsdtkit.so /usr/lib64/libstapsdt.so /usr/lib64/pkgconfig/sdtkit-runtime.pc /usr/lib64/pkgconfig/libstapsdt.pc /usr/lib64/cmake/sdtkit-runtime/sdtkit-runtime-config.cmake /usr/share/man/man3/sdtkit.3.* /usr/share/man/man3/libstapsdt.3.*
sdtkit-static  /usr/lib64/libsdtkit.a /usr/lib64/libstapsdt.a
EOF
    # dtrace as TRIPLET-dtrace for each target: links to it, and to its man page
    local arch t
    q sdtkit --qf '[%{FILENAMES} -> %{FILELINKTOS}\n]' > links
    for arch in $ALL_ARCHES; do
        t=$(arch_triple "$arch")
        grep -qx "/usr/bin/$t-dtrace -> dtrace" links || { echo "sdtkit lacks the link $t-dtrace"; false; }
        grep -qx "/usr/share/man/man1/$t-dtrace\.1\(\.gz\)\? -> dtrace\.1\(\.gz\)\?" links ||
            { echo "sdtkit lacks the man page $t-dtrace.1"; grep man1 links; false; }
    done
    [ "$(grep -c -- '-dtrace -> dtrace$' links)" -eq 18 ]
    # no package owns a directory another package owns (/usr/include/sys is glibc's)
    ! q sdtkit -l --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' | grep -q '^d.* /usr/include/sys$' || false
    # the shared libraries are executable, as on RPM distributions
    q sdtkit-libs --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' | grep -q '^-rwxr-xr-x /usr/lib64/libsdtkit.so.1.0.0$'
    # only -libs has shared libraries, only -static archives
    ! q sdtkit -l | grep -q '\.so\|\.a$' || false
    ! q sdtkit-devel -l | grep -q '\.so\.\|\.a$'
}

@test "every file make install installs is in exactly one package" {
    # make install in the tree rpmbuild built, not compiling again
    make -s -C "$SRC/build/rpm/BUILD/sdtkit-$VERSION" install PREFIX=/usr LIBDIR=/usr/lib64 \
        DESTDIR="$PWD/stage" >/dev/null
    (cd stage && find . ! -type d | sed 's|^\./|/|') | sort > installed
    local p
    for p in $PACKAGES; do q $p -l; done | sort > packaged
    local f n
    while read -r f; do
        n=$(grep -cx -e "$f" -e "$f.gz" -e "$f.bz2" packaged)
        [ "$n" -eq 1 ] || { echo "installed, but in $n packages: $f"; false; }
    done < installed
}

# rpmlint_clean SRC RPMS: rpmlint finds no error in the packages in RPMS,
# SRC's source package and the spec (warnings printed), and every filter
# of sdtkit.rpmlintrc is still used.
rpmlint_clean() {
    local p rpms=()
    for p in $PACKAGES; do rpms+=("$2/$p-$VR.$(uname -m).rpm"); done
    run rpmlint -r "$ROOT/sdtkit.rpmlintrc" "${rpms[@]}" "$1/build/rpm/SRPMS/sdtkit-$VR.src.rpm" \
        "$ROOT/sdtkit.spec"
    echo "$output"
    [[ "$output" == *"5 packages and 1 specfiles checked; 0 errors"* ]] || return 1
    ! grep -q 'unused-rpmlintrc-filter' <<<"$output"
}

@test "rpmlint finds no errors in the packages and the spec (with sdtkit.rpmlintrc; warnings are printed)" {
    rpmlint_clean "$SRC" "$RPMS"
}

# modes RPMS: "package mode path" of every file of the packages in RPMS,
# build-id links as BUILD-ID, without their two-digit directories.
modes() {
    local p
    for p in $PACKAGES; do
        rpm -qp --qf "[$p %{FILEMODES:perms} %{FILENAMES}\n]" "$1/$p-$VR.$(uname -m).rpm" 2>/dev/null
    done | sed -E '/^[^ ]+ d[^ ]+ \/usr\/lib\/\.build-id\/[0-9a-f]{2}$/d
        s|(/usr/lib/\.build-id)/[0-9a-f]{2}/[0-9a-f]+$|\1/BUILD-ID|' | sort
}

@test "built with and without elfutils (rpm's brp-elfperms), the packages have the same files and modes, and rpmlint no error" {
    [ -x "$ELFCLASSIFY" ] || missing "eu-elfclassify is not installed (.ci/run installs it from package elfutils)"
    [ "$(id -u)" -eq 0 ] || refused "not root: hiding eu-elfclassify needs a mount namespace"
    [ -f "$RPMS2/sdtkit-$VR.$(uname -m).rpm" ] || { cat "$BATS_FILE_TMPDIR/make-rpm2.log" "$SRC2/build/rpm/build.log"; false; }
    modes "$RPMS" > with
    modes "$RPMS2" > without
    [ "$(grep -c . with)" -ge 25 ]
    diff with without
    grep -q '^sdtkit-libs -rwxr-xr-x /usr/lib64/libstapsdt.so.0.0.0$' with
    # the libraries were stripped, and have their build-id links, as the programs
    [ "$(grep -c '^sdtkit-libs lrwxrwxrwx /usr/lib/.build-id/BUILD-ID$' with)" -eq 2 ]
    rpmlint_clean "$SRC2" "$RPMS2"
}

@test "make rpm's %check runs the fast tier of the test suites on what it built, and it passes" {
    local log=$SRC/build/rpm/build.log s
    # the fast tier of the suites asked for, in rpmbuild's tree, the normal pass
    grep -q '^== tier fast, passes: normal, 4 suite runs' "$log"
    for s in $RPM_SUITES; do
        grep -q "^== normal pass: $s " "$log"
    done
    local last
    last=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log")
    echo "$last"
    [[ "$last" == *" passed, 0 failed, "* ]]
    [ "${last%% *}" -ge 100 ]
}

@test "rpmbuild --target aarch64 cross-builds the four packages: every ELF file AArch64, no %check, and they run under qemu-aarch64" {
    need_arch aarch64
    need_cmd qemu-aarch64
    mkdir -p cross/build
    tar -xzf "$TARBALL" -C cross --strip-components=1
    cp "$TARBALL" cross/build/
    make -s -o dist -C cross rpm RPMBUILD="rpmbuild --target aarch64"
    local r=cross/build/rpm/RPMS/aarch64 p
    [ "$(ls "$r" | wc -l)" -eq 4 ]
    mkdir x
    for p in $PACKAGES; do
        [ "$(rpm -qp --qf '%{ARCH}' "$r/$p-$VR.aarch64.rpm")" = aarch64 ]
        (cd x && rpm2cpio "../$r/$p-$VR.aarch64.rpm" | cpio -id --quiet)
    done
    # the programs, the libraries and the archives' members
    elf_headers x >headers
    cat headers
    [ "$(wc -l <headers)" -ge 6 ]
    ! grep -v '	ELF64 little AArch64$' headers || false
    grep -q 'libsdtkit\.a(libsdtkit\.o)	' headers
    grep -qx 'a cross build for aarch64: its programs do not run here, no tests' cross/build/rpm/build.log
    ! grep -q '^== tier' cross/build/rpm/build.log || false
    # the libraries need aarch64's C library
    rpm -qp --requires "$r/sdtkit-libs-$VR.aarch64.rpm" | grep -qx 'libc.so.6(GLIBC_2.17)(64bit)'
    local run=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
    [ "$("${run[@]}" x/usr/bin/dtrace --version)" = "dtrace (sdtkit) $VERSION" ]
    printf 'provider app {\n  probe start(int);\n};\n' >app.d
    "${run[@]}" x/usr/bin/dtrace -h -s app.d -o app.h
    printf '#include "app.h"\nint main(int c, char **v) { (void) v; if (APP_START_ENABLED()) APP_START(c); return 0; }\n' >app.c
    aarch64-linux-gnu-gcc -O2 -Wall -Werror -I x/usr/include -c app.c -o app.o
    "${run[@]}" x/usr/bin/dtrace -G -s app.d -o app-probes.o app.o
    aarch64-linux-gnu-gcc app.o app-probes.o -o app
    "${run[@]}" ./app
    [ "$("${run[@]}" x/usr/bin/sdt-list --check app | cut -f2,3)" = "app	start" ]
    aarch64-linux-gnu-gcc -std=c11 -I x/usr/include "$ROOT/tests/release/rt-user.c" \
        x/usr/lib64/libsdtkit.so.1 -o rt
    [ "$(LD_LIBRARY_PATH=x/usr/lib64 "${run[@]}" ./rt)" = "fired 42 hello" ]
}

# scratch_root DIR: an empty rpm database in DIR, the packages installed
# there without their dependencies (the C library is Debian's, not rpm's).
scratch_root() {
    local p rpms=()
    for p in $PACKAGES; do rpms+=("$(rpmfile $p)"); done
    rpm --root "$1" --initdb
    rpm --root "$1" -i --nodeps --noscripts "${rpms[@]}"
}

@test "installed with rpm --root, dtrace and the header build a probed program, and the libraries load run-time probes" {
    need_cmd gcc pkg-config
    scratch_root "$PWD/root"
    local R=$PWD/root
    [ "$(rpm --root "$R" -q --whatprovides systemtap-sdt-devel)" = "sdtkit-$VR.$(uname -m)" ]
    [ "$("$R/usr/bin/dtrace" --version)" = "dtrace (sdtkit) $VERSION" ]
    printf 'provider app {\n  probe start(int, char *);\n};\n' > app.d
    "$R/usr/bin/dtrace" -h -s app.d -o app.h
    printf '#include "app.h"\nint main(int c, char **v) { if (APP_START_ENABLED()) APP_START(c, v[0]); APP_START(c, v[0]); return 0; }\n' > app.c
    gcc -O2 -Wall -Werror -I "$R/usr/include" -c app.c -o app.o
    gcc -M -I "$R/usr/include" app.c | grep -q "$R/usr/include/sys/sdt.h"
    "$R/usr/bin/dtrace" -G -s app.d -o app-probes.o app.o
    gcc app.o app-probes.o -o app
    ./app
    [ "$(note_probes app | cut -f1 | sort -u)" = app:start ]
    [ "$(note_field app app:start Semaphore)" != 0x0000000000000000 ]
    # the run-time libraries, through their pkg-config files
    export PKG_CONFIG_PATH="$R/usr/lib64/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$R"
    gcc -std=c11 -Wall -Werror $(pkg-config --cflags sdtkit-runtime) "$ROOT/tests/release/rt-user.c" \
        $(pkg-config --libs sdtkit-runtime) -o native
    gcc -std=c11 -Wall -Werror -DSTAPSDT $(pkg-config --cflags libstapsdt) "$ROOT/tests/release/rt-user.c" \
        $(pkg-config --libs libstapsdt) -o compat
    [ "$(LD_LIBRARY_PATH="$R/usr/lib64" ./native)" = "fired 42 hello" ]
    [ "$(LD_LIBRARY_PATH="$R/usr/lib64" ./compat)" = "fired 42 hello" ]
    gcc -std=c11 $(pkg-config --cflags sdtkit-runtime) "$ROOT/tests/release/rt-user.c" \
        "$R/usr/lib64/libsdtkit.a" -lpthread -ldl -o static
    [ "$(./static)" = "fired 42 hello" ]
}

# noarch_rpm NAME SPEC-LINES: a package NAME without files, with the spec's
# other lines as given; prints its path.
noarch_rpm() {
    local name=$1
    shift
    mkdir -p "top/$name"
    {
        printf 'Name: %s\nVersion: 5.0\nRelease: 1\nSummary: a test package\nLicense: MIT\nBuildArch: noarch\n' "$name"
        printf '%s\n' "$@"
        printf '%%description\nA test package.\n%%files\n'
    } > "top/$name.spec"
    rpmbuild -bb --quiet --define "_topdir $PWD/top/$name" "top/$name.spec" >/dev/null 2>&1
    ls "top/$name"/RPMS/noarch/*.rpm
}

@test "rpm takes sdtkit for SystemTap's packages: what requires them installs, and they conflict with it" {
    scratch_root "$PWD/root"
    # a package that needs SystemTap's, as Fedora's postgresql and python3 do
    user=$(noarch_rpm probe-user 'Requires: systemtap-sdt-devel' 'Requires: systemtap-sdt-dtrace' \
        'Requires: /usr/bin/dtrace')
    run rpm --root "$PWD/root" -i "$user"
    echo "$output"
    [ "$status" -eq 0 ]
    rpm --root "$PWD/root" -q probe-user
    # SystemTap's own packages cannot go in beside sdtkit
    local p
    for p in systemtap-sdt-devel systemtap-sdt-dtrace; do
        run rpm --root "$PWD/root" -i "$(noarch_rpm $p)"
        echo "$output"
        [ "$status" -ne 0 ]
        [[ "$output" == *"$p conflicts with (installed) sdtkit-$VR"* ]]
    done
    # without sdtkit, the user does not install
    rpm --root "$PWD/empty" --initdb
    run rpm --root "$PWD/empty" -i "$user"
    [ "$status" -ne 0 ]
    [[ "$output" == *"systemtap-sdt-devel is needed by probe-user"* ]]
}

# SPDX-License-Identifier: MIT
# Helpers of the package suites (deb, deb-multiarch, deb-cross,
# autopkgtest, rpm): the Debian packages, each built once per run in RUN_DIR by
# whichever suite asks first (under a lock, as dist_tarball), and testbeds,
# throwaway roots where they are installed (tests/testbed.bash): nothing is
# ever installed on the machine, whose systemtap-sdt-dev other suites read.

# RUN_DIR: what the package suites of one make check share (tests/run's,
# on a tmpfs, where a testbed's overlayfs stacks), else bats' own run's.
RUN_DIR=${SDTKIT_RUN_DIR:-$BATS_RUN_TMPDIR}

# DEB_PACKAGES: every binary package make deb builds.
DEB_PACKAGES="sdtkit sdtkit-tools libsdtkit1 libstapsdt0 libsdtkit-dev"

# need_deb_tools: what make deb, the builds and these suites run.
need_deb_tools() {
    local c
    for c in dpkg-buildpackage:dpkg-dev dh:debhelper fakeroot:fakeroot lintian:lintian apt-get:apt; do
        command -v "${c%%:*}" >/dev/null 2>&1 ||
            missing "${c%%:*} is not installed (.ci/run installs it from package ${c#*:})"
    done
}

# need_testbed: what a testbed needs: root (mounts, chroot), unshare, its
# layers on another file system than the machine's root (overlayfs stacks
# no file system on itself: make check's run directory is on a tmpfs, a
# bats run of its own needs TMPDIR=/dev/shm); crossbuild-essential-* for
# the cross builds in it.
need_testbed() {
    [ "$(id -u)" -eq 0 ] || refused "not root: a testbed (tests/testbed.bash) needs mounts and chroot"
    local d
    for d in "$RUN_DIR" "$BATS_RUN_TMPDIR"; do
        [ "$(stat -c %d "$d")" != "$(stat -c %d /)" ] ||
            refused "$d is on the root file system, which overlayfs cannot stack on itself: TMPDIR on a tmpfs (/dev/shm), as make check puts it"
    done
    need_cmd unshare
    local p
    for p in crossbuild-essential-arm64 crossbuild-essential-s390x; do
        dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q ' installed$' ||
            missing "$p is not installed (.ci/run installs it)"
    done
}

# shared_build NAME FUNCTION ARGS...: FUNCTION ARGS... run once per run,
# in RUN_DIR/NAME (made empty for it, its output in RUN_DIR/NAME.log),
# under RUN_DIR/NAME.lock; later calls wait for the first.  Fails, printing
# the log, when the first failed.
shared_build() {
    local name=$1 d=$RUN_DIR/$1
    shift
    (
        flock -w "$HANG_SECONDS" 8 || { echo "$HANG_SECONDS s waiting for $name" >&2; exit 1; }
        [ -e "$d.ok" ] || [ -e "$d.failed" ] && exit
        rm -rf "$d" && mkdir -p "$d"
        if (cd "$d" && "$@") >"$d.log" 2>&1; then : >"$d.ok"; else : >"$d.failed"; fi
    ) 8>"$d.lock"
    [ -e "$d.ok" ] || { tail -n 40 "$d.log" >&2; return 1; }
}

# build_native_debs: make deb, in ./src, an unpacked copy of make dist's
# tarball (put where its own make dist would write the same bytes: make -o
# dist does not make it again).
build_native_debs() {
    local tarball
    dist_tarball "$PWD" || return
    tarball=$(echo sdtkit-*.tar.gz)
    mkdir -p src/build
    tar -xzf "$tarball" -C src --strip-components=1
    mv "$tarball" src/build/
    make -s -o dist -C src deb
}

# native_debs: make deb's packages, made once per run: NATIVE_DEBS is
# their directory, NATIVE_SRC the source tree they were built in.
native_debs() {
    NATIVE_SRC=$RUN_DIR/native-deb/src
    NATIVE_DEBS=$NATIVE_SRC/build/deb
    shared_build native-deb build_native_debs
}

# testbed_base: the base layer of every testbed (tests/testbed.bash base),
# made once per run.  Its apt-get update reaches Debian's archive.
testbed_base() {
    shared_build testbed-base "$ROOT/tests/testbed.bash" base "$RUN_DIR/testbed-base" || return
}

# testbed DIR CMD...: CMD as root in the testbed whose own layer is DIR
# (kept from call to call), RUN_DIR and the test's directories shared.
# testbed_host DIR CMD...: CMD on the machine with that root at DIR/root.
testbed() {
    testbed_base || return
    TESTBED_SHARE="$RUN_DIR:$BATS_RUN_TMPDIR" "$ROOT/tests/testbed.bash" chroot \
        "$RUN_DIR/testbed-base" "$@"
}
testbed_host() {
    testbed_base || return
    TESTBED_SHARE="$RUN_DIR:$BATS_RUN_TMPDIR" "$ROOT/tests/testbed.bash" host \
        "$RUN_DIR/testbed-base" "$@"
}

# build_cross_debs ARCH: the packages cross-built for ARCH in a testbed
# (./tb), from make dist's tarball unpacked in ./sdtkit-VERSION, as a
# distribution's cross build makes them: dpkg-buildpackage -a ARCH with
# the cross and nocheck profiles, the binary packages only.
build_cross_debs() {
    local tarball
    dist_tarball "$PWD" || return
    tarball=$(echo sdtkit-*.tar.gz)
    tar -xzf "$tarball"
    mv "$tarball" "sdtkit_$(cat "$ROOT/VERSION").orig.tar.gz"
    testbed "$PWD/tb" sh -c "cd '$PWD/${tarball%.tar.gz}' && DEB_BUILD_OPTIONS=nocheck \
        dpkg-buildpackage -a '$1' -Pcross,nocheck -us -uc -b"
}

# cross_debs ARCH: the packages cross-built for ARCH (Debian's name:
# arm64, s390x), made once per run; CROSS_DEBS is their directory.
cross_debs() {
    CROSS_DEBS=$RUN_DIR/cross-deb-$1
    shared_build "cross-deb-$1" build_cross_debs "$1"
}

# SDT_USERS: the fifteen Debian 12 source packages that build-depend on
# systemtap-sdt-dev (none with a version: the unversioned Provides is enough).
SDT_USERS="bpftrace ceph gcc-11 gcc-12 gearmand libguestfs libvirt mir openjdk-17
  php8.2 postgresql-15 postgresql-rum python3.11 ruby3.1 sssd"

# sdt_clauses SHOWSRC: "PKG<TAB>its build dependency on systemtap-sdt-dev,
# as written" for each package of SHOWSRC (apt-cache showsrc's output: the
# first source record of each, the first such clause of its Build-Depends
# lines).
sdt_clauses() {
    awk '
        /^Package: / { pkg = $2 }
        /^Build-Depends/ && !(pkg in seen) && match($0, /systemtap-sdt-dev[^,]*/) {
            seen[pkg] = 1; print pkg "\t" substr($0, RSTART, RLENGTH) }' "$1"
}

# sdt_users SHOWSRC: CLAUSE_USERS[CLAUSE], the packages of SDT_USERS that
# write CLAUSE (sdt_clauses of SHOWSRC), space-separated; fails naming one
# that has no such clause.
sdt_users() {
    local p c
    local -A clause=()
    declare -gA CLAUSE_USERS=()
    while IFS=$'\t' read -r p c; do clause[$p]=$c; done < <(sdt_clauses "$1")
    for p in $SDT_USERS; do
        c=${clause[$p]:-}
        [ -n "$c" ] || { echo "$p does not build-depend on systemtap-sdt-dev"; return 1; }
        CLAUSE_USERS[$c]+="$p "
    done
}

# deb_version: the packages' version, from debian/changelog.
deb_version() {
    (cd "$ROOT" && dpkg-parsechangelog -S Version)
}

# elf_headers PATH...: "FILE<TAB>CLASS DATA MACHINE" of every ELF file
# under the PATHs, and of every member of their ar archives, as
# tests/arches.table writes them (readelf -h; FILE is empty for a lone file).
elf_headers() {
    find "$@" -type f -print0 | xargs -0 readelf -h 2>/dev/null | awk '
        /^File: / { f = $2 }
        /^ *Class:/ { c = $2 }
        /^ *Data:/ { d = ($0 ~ /little/) ? "little" : "big" }
        /^ *Machine:/ { sub(/^ *Machine: */, ""); print f "\t" c " " d " " $0 }'
}

# SPDX-License-Identifier: MIT
# Helpers of the Debian package suites (deb, deb-multiarch, deb-cross,
# autopkgtest): make deb's packages, which make check builds for them
# (packaging.mk: this machine's architecture's, and arm64's and s390x's
# cross-built in a testbed), and testbeds, throwaway roots where they are
# installed (tests/testbed.bash, on make check's base layer build/testbed):
# nothing is ever installed on the machine, whose systemtap-sdt-dev other
# suites read.

# DEB_PACKAGES: every binary package make deb builds; DEB_VERSION theirs
# (debian/changelog's first entry); NATIVE, this machine's architecture.
DEB_PACKAGES="sdtkit sdtkit-tools libsdtkit1 libstapsdt0 libsdtkit-dev"
read -r _ DEB_VERSION _ <"$ROOT/debian/changelog"
DEB_VERSION=${DEB_VERSION//[()]/}
NATIVE=$(dpkg --print-architecture 2>/dev/null)

# deb ARCH PACKAGE: the .deb of PACKAGE, of make deb's packages for ARCH
# (Debian's name) in build/deb/ARCH.
deb() {
    echo "$ROOT/build/deb/$1/${2}_${DEB_VERSION}_$1.deb"
}

# need_debs ARCH...: make check has built the packages of each ARCH.
need_debs() {
    local a
    for a in "$@"; do
        [ -f "$ROOT/build/deb/$a/sdtkit_${DEB_VERSION}_$a.changes" ] || {
            echo "no packages for $a in build/deb/$a: make check builds them (make deb, make testbed-deb-$a)"
            return 1
        }
    done
}

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
# bats run of its own needs TMPDIR=/dev/shm), the base layer make check
# makes (build/testbed), and crossbuild-essential-* for the cross builds.
need_testbed() {
    [ "$(id -u)" -eq 0 ] || refused "not root: a testbed (tests/testbed.bash) needs mounts and chroot"
    [ "$(stat -c %d "$BATS_RUN_TMPDIR")" != "$(stat -c %d /)" ] ||
        refused "$BATS_RUN_TMPDIR is on the root file system, which overlayfs cannot stack on itself: TMPDIR on a tmpfs (/dev/shm), as make check puts it"
    need_cmd unshare
    local p
    for p in crossbuild-essential-arm64 crossbuild-essential-s390x; do
        dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q ' installed$' ||
            missing "$p is not installed (.ci/run installs it)"
    done
    [ -f "$ROOT/build/testbed/ok" ] || { echo "no testbed base layer: make check makes it (make build/testbed/ok)"; return 1; }
}

# testbed DIR CMD...: CMD as root in the testbed whose own layer is DIR
# (kept from call to call), the packages and the run's directories shared.
# testbed_host DIR CMD...: CMD on the machine with that root at DIR/root.
testbed() {
    TESTBED_SHARE="$ROOT/build/deb:$BATS_RUN_TMPDIR" "$ROOT/tests/testbed.bash" chroot "$ROOT/build/testbed" "$@"
}
testbed_host() {
    TESTBED_SHARE="$ROOT/build/deb:$BATS_RUN_TMPDIR" "$ROOT/tests/testbed.bash" host "$ROOT/build/testbed" "$@"
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

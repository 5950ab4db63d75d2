# SPDX-License-Identifier: MIT
# Helpers of the Debian package suites (tests/README.md, 6): make deb's
# packages, which make check builds (packaging.mk), and testbeds, throwaway
# roots they are installed in (tests/testbed.bash), never the machine.

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
    need_cmd dpkg-buildpackage dh fakeroot lintian apt-get
}

# need_testbed: root, unshare, the run's files off the root file system
# (overlayfs cannot stack it on itself: TMPDIR=/dev/shm), the base layer
# build/testbed, and crossbuild-essential-* for the cross builds.
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
testbed() {
    TESTBED_SHARE="$ROOT/build/deb:$BATS_RUN_TMPDIR" "$ROOT/tests/testbed.bash" chroot "$ROOT/build/testbed" "$@"
}

# SDT_USERS: the fifteen Debian 12 source packages that build-depend on
# systemtap-sdt-dev (none with a version: the unversioned Provides is enough).
SDT_USERS="bpftrace ceph gcc-11 gcc-12 gearmand libguestfs libvirt mir openjdk-17
  php8.2 postgresql-15 postgresql-rum python3.11 ruby3.1 sssd"

# sdt_users SHOWSRC: CLAUSE_USERS[CLAUSE], the packages of SDT_USERS whose
# first source record in SHOWSRC (apt-cache showsrc's output) first writes
# CLAUSE, their dependency on systemtap-sdt-dev; fails naming one with none.
sdt_users() {
    local p c
    local -A clause=()
    declare -gA CLAUSE_USERS=()
    while IFS=$'\t' read -r p c; do clause[$p]=$c; done < <(awk '/^Package: / { pkg = $2 }
        /^Build-Depends/ && !(pkg in seen) && match($0, /systemtap-sdt-dev[^,]*/) {
            seen[pkg] = 1; print pkg "\t" substr($0, RSTART, RLENGTH) }' "$1")
    for p in $SDT_USERS; do
        c=${clause[$p]:-}
        [ -n "$c" ] || { echo "$p does not build-depend on systemtap-sdt-dev"; return 1; }
        CLAUSE_USERS[$c]+="$p "
    done
}

# elf_headers PATH...: "FILE<TAB>CLASS DATA MACHINE" of every ELF file and
# archive member under the PATHs, as arches.table writes them (FILE empty
# for a lone file).
elf_headers() {
    find "$@" -type f -print0 | xargs -0 readelf -h 2>/dev/null | awk '
        /^File: / { f = $2 }
        /^ *Class:/ { c = $2 }
        /^ *Data:/ { d = ($0 ~ /little/) ? "little" : "big" }
        /^ *Machine:/ { sub(/^ *Machine: */, ""); print f "\t" c " " d " " $0 }'
}

#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/testbed.bash: throwaway Debian roots for the package suites, so that
# what they install (sdtkit's packages, SystemTap's arm64 ones, autopkgtest's
# test dependencies) never reaches the machine, whose own systemtap-sdt-dev
# the other suites compare against.
#
# A testbed is the machine's root seen through overlayfs: its files are the
# machine's, what is written goes to an upper directory of the testbed's
# own, and the mounts live in a mount namespace of their own, gone when the
# command ends.  Layers stack: the base (below) under each testbed.
#
#   testbed.bash base BASE
#       makes BASE/upper, the layer every testbed starts from: arm64 and
#       s390x added to dpkg's architectures (apt's: arm64), apt's lists
#       updated, libc6 of both installed (what dpkg-shlibdeps reads in a
#       cross build), and neither man-db's index nor services started by
#       packages (make check makes it: build/testbed, packaging.mk).
#   testbed.bash chroot BASE DIR CMD...
#       runs CMD as root in a chroot of the machine under BASE/upper under
#       DIR/upper (made when missing: what CMD changes is there for the next
#       call with the same DIR), with a clean environment.
#   testbed.bash host BASE DIR CMD...
#       mounts the same root at DIR/root and runs CMD on the machine, in
#       the mount namespace that holds it (for autopkgtest's chroot virtual
#       server, which runs chroot itself).
#
# The root has /proc, /dev and /sys (with tracefs and debugfs) of the
# machine, and each directory of TESTBED_SHARE (colon-separated) bound at its
# own path, so that files written there on either side are seen on both.
set -eu

# The environment of a command in the chroot.
CHROOT_ENV=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
    LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive TMPDIR=/tmp)

die() {
    echo "testbed: $*" >&2
    exit 1
}

# mount_root LOWERS DIR: the overlay at DIR/root, upper DIR/upper, with the
# machine's /proc, /dev, /sys and the TESTBED_SHARE directories.
mount_root() {
    local lowers=$1 dir=$2 root=$2/root d
    mkdir -p "$dir/upper" "$dir/work" "$root"
    [ "$(stat -L -c %d "$dir")" != "$(stat -c %d /)" ] ||
        die "$dir is on the root file system, which overlayfs cannot stack on itself (a tmpfs: /dev/shm)"
    mount -t overlay overlay -o "lowerdir=$lowers,upperdir=$dir/upper,workdir=$dir/work" "$root" ||
        die "the kernel refuses an overlay mount of / (overlayfs)"
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount --rbind /sys "$root/sys"
    local IFS=:
    for d in ${TESTBED_SHARE:-}; do
        case $d in /dev/*) continue ;; esac # already there, through /dev
        mkdir -p "$root$d"
        mount --bind "$d" "$root$d"
    done
}

# in_root DIR CMD...: CMD in the chroot DIR/root, in a clean environment.
in_root() {
    local root=$1/root
    shift
    chroot "$root" env -i "${CHROOT_ENV[@]}" "$@"
}

# The base layer's commands: architectures, lists, the C libraries.
# apt's caches of the lists, which Docker's images turn off (docker-clean),
# are made here once, for every testbed: each apt run parsed the lists of
# three architectures again without them.  Then apt reads the lists of the
# machine's architecture and arm64 alone (the s390x tests need its C
# library, which dpkg knows, and nothing of apt): each apt-get -s took half
# as long again with three.  apt reads local repositories as root: its
# user _apt cannot enter the run's directories (mode 700).
BASE_SCRIPT='
set -e
dpkg --add-architecture arm64
dpkg --add-architecture s390x
rm -f /var/lib/man-db/auto-update /etc/apt/apt.conf.d/docker-clean
printf "#!/bin/sh\nexit 101\n" > /usr/sbin/policy-rc.d
chmod 755 /usr/sbin/policy-rc.d
apt-get update -q
apt-get install -y -q --no-install-recommends libc6:arm64 libc6:s390x
printf "APT::Architectures { \"%s\"; \"arm64\"; };\n" "$(dpkg --print-architecture)" \
    > /etc/apt/apt.conf.d/99testbed-architectures
echo "APT::Sandbox::User \"root\";" > /etc/apt/apt.conf.d/99testbed-sandbox
apt-cache stats >/dev/null
'

inside() {
    local what=$1
    shift
    case $what in
        base)
            mount_root / "$1"
            in_root "$1" sh -c "$BASE_SCRIPT"
            ;;
        chroot)
            mount_root "$1/upper:/" "$2"
            in_root "$2" "${@:3}"
            ;;
        host)
            mount_root "$1/upper:/" "$2"
            "${@:3}"
            ;;
        *) die "no command '$what' (base, chroot, host)" ;;
    esac
}

[ $# -ge 2 ] || die "usage: testbed.bash base BASE | chroot BASE DIR CMD... | host BASE DIR CMD..."
if [ "${1:-}" = --inside ]; then
    shift
    inside "$@"
    exit
fi
[ "$(id -u)" -eq 0 ] || die "not root: a testbed needs mounts and chroot"
case $1 in
    base) ;;
    chroot | host) [ $# -ge 4 ] || die "usage: testbed.bash $1 BASE DIR CMD..." ;;
esac
exec unshare --mount --propagation private -- "$0" --inside "$@"

#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/testbed.bash: throwaway Debian roots for the package suites, so that
# what they install never reaches the machine, whose own systemtap-sdt-dev
# the other suites compare against.  A testbed is the machine's root through
# overlayfs, written to an upper directory of its own, mounted in a mount
# namespace of its own; the base layer is under each testbed.
#
#   base BASE: makes BASE/upper (make check's build/testbed): arm64 and
#       s390x added to dpkg (to apt: arm64), apt's lists updated, libc6 of
#       both installed, no man-db index and no services started.
#   chroot BASE DIR CMD...: CMD as root, in a clean environment, in a chroot
#       of the machine under BASE/upper under DIR/upper (kept for the next
#       call with the same DIR).
#   host BASE DIR CMD...: the same root at DIR/root, and CMD on the machine
#       in its mount namespace (for autopkgtest's chroot virtual server).
#
# The root has the machine's /proc, /dev and /sys, and each directory of
# TESTBED_SHARE (colon-separated) bound at its own path.
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
        [[ $d != /dev/* ]] || continue # already there, through /dev
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

# The base layer's commands.  apt's list caches (off in Docker's images)
# made once for every testbed; then apt reads the lists of this machine's
# architecture and arm64 alone (s390x needs only its C library), and reads
# local repositories as root (_apt cannot enter the run's directories).
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

#!/bin/bash
# Debian roots for CI's other lanes (Debian 13 and Debian testing), made with debootstrap
# from Debian's archive and kept between runs where the machine keeps them: a root, its
# installed packages and its ccache live under AMPSCOPE_ROOTS, so a later run pays only
# for what changed. On a new machine the first run makes them from scratch.
#
#   .ci/debian-root.sh ensure NAME SUITE            make the root if it is not there
#   .ci/debian-root.sh run NAME CHECKOUT COMMAND    copy CHECKOUT (its files, .git included,
#                                                   no build trees) to /srv/ampscope in the
#                                                   root (AMPSCOPE_ROOT_WORKDIR) and run
#                                                   COMMAND there with bash
#   .ci/debian-root.sh dev NAME CHECKOUT COMMAND    the same, but over the copy already there:
#                                                   its build trees are kept (for development)
#   .ci/debian-root.sh shell NAME                   an interactive shell in the root
#
# COMMAND runs as root in a clean environment (HOME, PATH, CI, the ctest and ccache
# settings passed through), with /proc, /sys, /dev and a /dev/shm of its own mounted:
# LibTorch's threads, the tests' own sshd and Python's multiprocessing need them.
set -euo pipefail

roots=${AMPSCOPE_ROOTS:-/var/cache/ampscope-ci}
mirror=${AMPSCOPE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# Where `run` puts the checkout inside the root (replaced on every run).
workdir=${AMPSCOPE_ROOT_WORKDIR:-/srv/ampscope}

usage() {
    echo "usage: .ci/debian-root.sh ensure NAME SUITE | run|dev NAME CHECKOUT COMMAND | shell NAME" >&2
    exit 2
}

root_of() { echo "$roots/$1"; }

ensure() {
    local name=$1 suite=$2 root
    root=$(root_of "$name")
    # The marker is written last: a debootstrap cut off half way is started again.
    if [ -f "$root/.ampscope-root-complete" ]; then
        echo "debian-root: $name ($suite) kept from an earlier run: $root"
        return
    fi
    command -v debootstrap >/dev/null || { apt-get update -q && apt-get install -y -q debootstrap; }
    # --one-file-system: never into a mount left below the root.
    rm -rf --one-file-system "$root"
    mkdir -p "$roots"
    echo "debian-root: making $name from $suite ($mirror) in $root"
    debootstrap --variant=minbase --components=main,contrib,non-free "$suite" "$root" "$mirror"
    # The archive this machine reaches can be a snapshot, and testing's Release file is
    # valid for a week only: apt would refuse it as expired. The root is CI's own, for
    # building and testing; its packages still come signed from the archive.
    echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99ampscope-archive-snapshot"
    touch "$root/.ampscope-root-complete"
}

# The mounts live in a mount namespace of the command's own (unshare): they vanish when
# it ends, however it ends, and two commands in one root do not unmount each other's.
mount_script='
set -e
root=$1; shift
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --rbind /dev "$root/dev"
mount -t tmpfs -o mode=1777 shm "$root/dev/shm"
exec chroot "$root" "$@"'

# The checkout as a fresh clone would have it: tracked and untracked files that git does
# not ignore (a clean clone has only the tracked ones), and .git for the revision.
copy_checkout() {
    local checkout=$1 dest=$2 keep=${3:-}
    [ -n "$keep" ] || rm -rf --one-file-system "$dest"
    mkdir -p "$dest"
    # .git's index is left out: the build reads only HEAD's revision, and an index being
    # rewritten by a commit in the checkout would stop tar half way.
    (cd "$checkout" && { git ls-files -co --exclude-standard -z; find .git ! -name index ! -name '*.lock' -print0; } |
        tar --null --no-recursion -T - -cf -) | tar -C "$dest" -xf -
}

in_root() {
    local name=$1; shift
    local root
    root=$(root_of "$name")
    [ -f "$root/.ampscope-root-complete" ] || { echo "debian-root: no root $name in $roots (run ensure first)" >&2; exit 2; }
    mkdir -p "$root/proc" "$root/sys" "$root/dev"
    unshare --mount --propagation private /bin/sh -c "$mount_script" mount-root "$root" /usr/bin/env -i \
        HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        LANG=C.UTF-8 TERM=dumb CI="${CI:-}" \
        CTEST_PARALLEL_LEVEL="${CTEST_PARALLEL_LEVEL:-2}" CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-10G}" \
        AMPSCOPE_REQUIRE_SSHD="${AMPSCOPE_REQUIRE_SSHD:-}" \
        "$@"
}

case ${1:-} in
    ensure)
        [ $# -eq 3 ] || usage
        ensure "$2" "$3"
        ;;
    run)
        [ $# -eq 4 ] || usage
        copy_checkout "$3" "$(root_of "$2")$workdir"
        in_root "$2" /bin/bash -c "cd $workdir && $4"
        ;;
    dev)
        [ $# -eq 4 ] || usage
        copy_checkout "$3" "$(root_of "$2")$workdir" keep
        in_root "$2" /bin/bash -c "cd $workdir && $4"
        ;;
    shell)
        [ $# -eq 2 ] || usage
        in_root "$2" /bin/bash
        ;;
    *) usage ;;
esac

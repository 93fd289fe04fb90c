#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# chroot-lane.sh - run the whole suite (unit + integration, slurmdbd and
# MariaDB included) in a Debian chroot: by default Debian 13 and its Slurm
# 24.11; OPTIMUS_SUITE=bookworm for Debian 12 and its Slurm 22.05.
#
# Usage (as root): contrib/chroot-lane.sh [pytest arguments...]
#   e.g. contrib/chroot-lane.sh -k test_hints
#        contrib/chroot-lane.sh --run 'contrib/build.sh && make check'
#        contrib/chroot-lane.sh --run bash     # a shell in the chroot's tree
#
# The chroot is made with debootstrap from the same package registry as the
# host's apt sources and cached in $OPTIMUS_CHROOT (default
# /var/cache/slurm-optimus/chroot-$OPTIMUS_SUITE); later runs reuse it.
# OPTIMUS_FRESH=1 throws a cached chroot away first: the lane then starts
# from an empty system, so a package that contrib/install-deps.sh forgets
# fails the lane (CI runs both lanes this way). The working
# tree (tracked and untracked files, not ignored ones) is copied to /optimus in
# the chroot and built there with the project's own scripts:
# contrib/install-deps.sh, contrib/slurm-source.sh, contrib/run-tests.sh.
# The chroot is a system of its own, so the Debian packages are built and
# installed into it (OPTIMUS_TEST_PACKAGE=1, the default here) and
# test_install.py checks the installed packages. Every mount is undone on
# exit, also on failure or interruption.
#
# Why a chroot and not a container: it needs nothing but debootstrap, runs on
# a bare Debian 12 host, and the localhost cluster of the harness only needs
# /proc, /sys, /dev and free ports, which the chroot shares with the host.
set -eu

suite=${OPTIMUS_SUITE:-trixie}
root=${OPTIMUS_CHROOT:-/var/cache/slurm-optimus/chroot-$suite}
root=$(realpath -m "$root")	# as /proc/PID/root shows it
top=$(cd "$(dirname "$0")/.." && pwd)

die() { echo "chroot-lane.sh: $*" >&2; exit 1; }
say() { echo "== [$suite] $(date -u +%H:%M:%S) $*"; }

[ "$(id -u)" = 0 ] || die "run as root (debootstrap, chroot, mount)"
run=""
if [ "${1:-}" = --run ]; then
	[ $# -ge 2 ] || die "--run needs a command"
	run=$2
	shift 2
fi

# ---------------------------------------------------------------- registry
# The mirror the host already uses (deb822 or one-line format), so that the
# chroot comes from the same registry.
mirror=""
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
	mirror=$(awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
	secmirror=$(awk '/^URIs:/ && $2 ~ /security/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
elif [ -f /etc/apt/sources.list ]; then
	mirror=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list)
	secmirror=$(awk '$1 == "deb" && $2 ~ /security/ { print $2; exit }' /etc/apt/sources.list)
fi
[ -n "$mirror" ] || die "no Debian mirror found in /etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list"
[ -n "${secmirror:-}" ] || secmirror=${mirror%/debian}/debian-security

# ---------------------------------------------------------------- mounts
mounted=""
# Processes left running inside the chroot (a test's daemons or tasks after an
# interruption) would keep the host busy and its mounts in use: every process
# whose root is the chroot is killed before the unmounts.
kill_chroot_processes() {
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -9 "${p#/proc/}" 2>/dev/null
	done
	return 0
}
cleanup() {
	rc=$?
	kill_chroot_processes
	for m in $mounted; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null ||
			echo "chroot-lane.sh: cannot unmount $m" >&2
	done
	mounted=""
	exit $rc
}
trap cleanup EXIT
# The chroot's command runs in the background and is waited for, so that a
# signal is acted on at once (sh runs traps only between commands): it stops
# that command, then the EXIT trap unmounts.
child=""
trap '[ -n "$child" ] && kill -TERM "$child" 2>/dev/null; exit 130' INT TERM HUP

mount_in() { # mount_in TARGET mount-arguments...: mounts and records it (last mounted, first unmounted)
	target=$1; shift
	mkdir -p "$target"
	mountpoint -q "$target" && return 0
	mount "$@" "$target" || die "mount $* $target failed"
	mounted="$target $mounted"
}

# ---------------------------------------------------------------- chroot
if [ "${OPTIMUS_FRESH:-0}" = 1 ] && [ -e "$root" ]; then
	# Never delete through a mount of the host's /dev, /proc or /run that an
	# interrupted run left behind: a lane killed outright (SIGKILL, a lost
	# CI runner) cannot run its EXIT trap, and the next lane reuses its
	# mounts without owning them. Its processes are killed and its mounts
	# undone, deepest first; if one stays, nothing is deleted.
	kill_chroot_processes
	for m in $(awk -v r="$root" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/mounts | sort -r); do
		say "OPTIMUS_FRESH=1: unmounting $m, left by an interrupted run"
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
	done
	awk -v r="$root" '$2 == r || index($2, r "/") == 1 { found = 1 } END { exit !found }' /proc/mounts &&
		die "$root still has mounts (see /proc/mounts): unmount them before OPTIMUS_FRESH=1"
	say "OPTIMUS_FRESH=1: removing the cached chroot $root"
	rm -rf "$root"
fi
if [ ! -f "$root/.optimus-bootstrapped" ]; then
	command -v debootstrap >/dev/null || {
		say "installing debootstrap"
		# Wait for another apt-get to finish instead of failing on its lock.
		apt_wait="-o DPkg::Lock::Timeout=600"
		DEBIAN_FRONTEND=noninteractive apt-get $apt_wait install -y -q debootstrap ||
			{ apt-get $apt_wait update -q && DEBIAN_FRONTEND=noninteractive apt-get $apt_wait install -y -q debootstrap; } ||
			die "cannot install debootstrap"
	}
	say "debootstrap $suite from $mirror into $root"
	rm -rf "$root.new"
	mkdir -p "$(dirname "$root")"
	debootstrap --variant=minbase "$suite" "$root.new" "$mirror" ||
		die "debootstrap $suite failed (see $root.new/debootstrap/debootstrap.log)"
	rm -rf "$root"
	mv "$root.new" "$root"
	touch "$root/.optimus-bootstrapped"
fi

# Sources of the chroot: binary and source packages of the suite, its
# updates and its security fixes, from the host's registry.
cat > "$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb deb-src
URIs: $mirror
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb deb-src
URIs: $secmirror
Suites: $suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
rm -f "$root/etc/apt/sources.list"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# The chroot shares the host's name and network: Slurm resolves the submit
# host's name (a job's alloc_node) when a job completes, and waits 10 s per
# failed lookup, so the host's names must resolve inside too.
cp /etc/hosts "$root/etc/hosts"
hostname > "$root/etc/hostname" 2>/dev/null || true
# Debian's packages start their daemons at install time; the harness runs its
# own instances, and services must not start inside a chroot anyway.
printf '#!/bin/sh\n# slurm-optimus chroot: no service starts at install time\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"

# The chroot's root made a mount point of its own (a private bind of
# itself): inside a chroot whose root is a plain folder, `unshare --mount`
# cannot make its mounts private ("cannot change root filesystem
# propagation: Invalid argument"), and test_failover.py runs each
# controller in its own mount namespace.
mount_in "$root" --bind "$root"
mount --make-private "$root" || die "mount --make-private $root failed"
mount_in "$root/proc" -t proc proc
mount_in "$root/sys" -t sysfs sysfs
mount_in "$root/dev" --bind /dev
mount_in "$root/dev/pts" --bind /dev/pts
[ -d /dev/shm ] && mount_in "$root/dev/shm" -t tmpfs -o mode=1777 shm
mount_in "$root/run" -t tmpfs -o mode=755 run
mkdir -p "$root/run/lock"

# ---------------------------------------------------------------- the tree
# A copy, not a bind mount: the host lane configures the tree in place, and
# both lanes must be able to build at the same time. Files keep their times so
# a second run of the same tree rebuilds only what changed. A copy of another
# tree (another worktree or clone) starts empty: its sources may be older than
# the objects the last tree built there, and make would keep those (seen: a
# link error, then a slurmctld segfault from a job_model_t of another layout).
say "copying the working tree to $root/optimus"
if [ "$(cat "$root/optimus/.optimus-tree" 2>/dev/null)" != "$top" ]; then
	rm -rf "$root/optimus"
fi
mkdir -p "$root/optimus"
"$top/contrib/tree-tar.sh" | tar -C "$root/optimus" -xpf -
echo "$top" > "$root/optimus/.optimus-tree"
# The copy has no .git: the list of what it holds, for test_release.py's
# check that `make dist` ships every file.
"$top/contrib/tree-tar.sh" --list > "$root/optimus/.optimus-files"

# ---------------------------------------------------------------- run
in_chroot() {
	chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" \
		OPTIMUS_TEST_FIRST_JOB_ID="${OPTIMUS_TEST_FIRST_JOB_ID:-1}" \
		OPTIMUS_TEST_PACKAGE="${OPTIMUS_TEST_PACKAGE:-1}" \
		OPTIMUS_TEST_ALONE="${OPTIMUS_TEST_ALONE:-with}" \
		OPTIMUS_TEST_RPM="${OPTIMUS_TEST_RPM:-1}" \
		OPTIMUS_TEST_REPRO="${OPTIMUS_TEST_REPRO:-1}" \
		OPTIMUS_TEST_DISTCHECK="${OPTIMUS_TEST_DISTCHECK:-1}" \
		OPTIMUS_TEST_LINTIAN="${OPTIMUS_TEST_LINTIAN:-1}" \
		OPTIMUS_TEST_WORKERS="${OPTIMUS_TEST_WORKERS:-2}" /bin/sh -c "cd /optimus && $1" sh "$@" &
	child=$!
	wait "$child"
}
if [ -n "$run" ]; then
	say "running in the chroot: $run"
	in_chroot "contrib/install-deps.sh && $run"
else
	say "install-deps, build against Slurm from Debian $suite, unit and integration tests"
	in_chroot 'shift; exec contrib/run-tests.sh "$@"' "$@"
fi

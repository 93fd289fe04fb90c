#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# install-deps.sh - install, as root, every Debian package slurm-optimus needs
# to build, test and run its demonstration. Safe to run again.
set -eu
[ "$(id -u)" = 0 ] || { echo "install-deps.sh: run as root (apt-get)" >&2; exit 1; }

# clang + libclang-rt-dev: the libFuzzer targets of testsuite/fuzz/run.sh.
# debhelper, dh-python: contrib/build-deb.sh; rpm (rpmbuild): contrib/build-rpm.sh;
# lintian, rpmlint: contrib/release-check.sh, with rpmlint's spelling check
# always on (python3-enchant, hunspell-en-us: its filters are written for
# the words it flags, and a filter that matches nothing is an error); man-db (lexgrog): the man
# pages' whatis names (test_release.py). python3-prometheus-client: the parser
# that checks `optimusctl metrics`.
PACKAGES="
	build-essential autoconf automake libtool pkgconf dpkg-dev debhelper dh-python rpm
	lintian rpmlint python3-enchant hunspell-en-us man-db
	slurmctld slurmd slurm-client slurmdbd munge libmunge-dev libslurm-dev
	libgsl-dev libjson-c-dev libqhull-dev check
	python3 python3-pytest python3-prometheus-client python3-numpy python3-sklearn python3-torch
	mariadb-server mariadb-client
	clang libclang-rt-dev
"

missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
export DEBIAN_FRONTEND=noninteractive
# Wait for an apt-get or dpkg already running (a boot-time upgrade, another
# script) instead of failing at once on its lock.
apt_wait="-o DPkg::Lock::Timeout=600"
apt-get $apt_wait update -q
# The Debian packages start their daemons through invoke-rc.d; the project
# runs its own instances, so keep the system ones from starting.
# A policy-rc.d of the machine's own is left as it is; ours is removed
# after apt-get, whatever apt-get returned (not by an EXIT trap: dash ran
# the trap's text wrongly on a bare Debian 12 host, "-f: not found", and
# left the file behind).
ours=0
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
	chmod +x /usr/sbin/policy-rc.d
	ours=1
fi
rc=0
apt-get $apt_wait install -y -q --no-install-recommends $missing || rc=$?
[ "$ours" = 0 ] || rm -f /usr/sbin/policy-rc.d
exit "$rc"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# run-tests.sh - install dependencies, build, and run every test:
# the Check unit tests (make check), the pytest tests that need no cluster
# (testsuite/offline) and the pytest integration tests against real
# slurmctld/slurmd/munged (and slurmdbd + MariaDB) on localhost.
# Run as root on Debian. Extra arguments go to pytest. With
# OPTIMUS_TEST_PACKAGE=1 (CI's chroot lanes) the unit tests run inside `make
# distcheck` of the release tarball, and the release is checked as a
# packager would (contrib/release-check.sh: Debian packages and RPMs built
# from that tarball as an ordinary user with no network, a second Debian
# build compared with the first, lintian, rpmlint); the Debian packages are
# then installed into this system before the integration tests.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
contrib/install-deps.sh
contrib/build.sh
if [ "${OPTIMUS_TEST_PACKAGE:-0}" = 1 ]; then
	echo "== $(date -u +%H:%M:%S) release check (contrib/release-check.sh): distcheck with the unit tests, packages, lint"
	contrib/release-check.sh
	echo "== $(date -u +%H:%M:%S) the Debian packages installed into this system"
	dpkg -i debs/*.deb
	export OPTIMUS_TEST_PACKAGE
else
	echo "== $(date -u +%H:%M:%S) unit tests (make check)"
	if ! make -j2 check; then
		cat testsuite/unit/*.log 2>/dev/null | tail -n 100
		exit 1
	fi
fi
echo "== $(date -u +%H:%M:%S) pytest: offline tests (no cluster)"
# Debian's pytest, whatever python3 comes first on PATH. Extra arguments
# (-k ...) apply to both runs; arguments that name test files or folders
# run just those, in one pytest.
for arg in "$@"; do
	case $arg in
	testsuite/*) exec /usr/bin/python3 -m pytest -v -p no:cacheprovider \
		--durations=30 "$@" ;;
	esac
done
rc=0
/usr/bin/python3 -m pytest -v -p no:cacheprovider testsuite/offline "$@" || rc=$?
# 5: -k deselected every offline test.
[ "$rc" = 0 ] || [ "$rc" = 5 ] || exit "$rc"
# The integration modules run on OPTIMUS_TEST_WORKERS (default 2) workers
# at once (testsuite/run_integration.py says why and how they stay apart);
# it prints each module's wall time and one summary line for all.
echo "== $(date -u +%H:%M:%S) pytest: integration tests (real localhost clusters, ${OPTIMUS_TEST_WORKERS:-2} at once)"
exec /usr/bin/python3 testsuite/run_integration.py "$@"

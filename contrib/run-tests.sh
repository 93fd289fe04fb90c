#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# run-tests.sh - install dependencies, build, and run every test:
# the Check unit tests (make check), the pytest tests that need no cluster
# (testsuite/offline) and the pytest integration tests against real
# slurmctld/slurmd/munged (and slurmdbd + MariaDB) on localhost.
# Run as root on Debian. Extra arguments go to pytest.
#
# With OPTIMUS_TEST_PACKAGE=1 (CI's chroot lanes) the release is checked as a
# packager would (contrib/release-check.sh): its packages (the Debian
# packages, and the RPMs unless OPTIMUS_TEST_RPM=0) are built from the
# release tarball as an ordinary user with no network and the Debian
# packages installed into this system before the integration tests; its
# checks (make distcheck, which runs the unit tests from the tarball, a
# second Debian build compared with the first, lintian) run at nice 19
# beside the pytest runs, which mostly wait for daemons and jobs, and their
# output is printed when they end. With OPTIMUS_TEST_DISTCHECK=0 the unit
# tests run here instead (make check).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
contrib/install-deps.sh
contrib/build.sh
package=${OPTIMUS_TEST_PACKAGE:-0}
if [ "$package" != 1 ] || [ "${OPTIMUS_TEST_DISTCHECK:-1}" = 0 ]; then
	echo "== $(date -u +%H:%M:%S) unit tests (make check)"
	if ! make -j2 check; then
		cat testsuite/unit/*.log 2>/dev/null | tail -n 100
		exit 1
	fi
fi
checks_pid=""
checks_log=$top/release-checks.log
if [ "$package" = 1 ]; then
	echo "== $(date -u +%H:%M:%S) release packages (contrib/release-check.sh packages)"
	contrib/release-check.sh packages
	echo "== $(date -u +%H:%M:%S) the Debian packages installed into this system"
	dpkg -i debs/*.deb
	export OPTIMUS_TEST_PACKAGE
	echo "== $(date -u +%H:%M:%S) release checks started beside the tests (contrib/release-check.sh checks, nice 19)"
	nice -n 19 contrib/release-check.sh checks > "$checks_log" 2>&1 &
	checks_pid=$!
fi
# The release checks' output and status, once they ended.
checks_wait() {
	[ -n "$checks_pid" ] || return 0
	crc=0
	wait "$checks_pid" || crc=$?
	echo "== $(date -u +%H:%M:%S) release checks ended (exit $crc): their output"
	cat "$checks_log"
	return "$crc"
}
echo "== $(date -u +%H:%M:%S) pytest: offline tests (no cluster)"
# Debian's pytest, whatever python3 comes first on PATH. Extra arguments
# (-k ...) apply to both runs; arguments that name test files or folders
# run just those, in one pytest.
for arg in "$@"; do
	case $arg in
	testsuite/*)
		rc=0
		/usr/bin/python3 -m pytest -v -p no:cacheprovider --durations=30 "$@" || rc=$?
		checks_wait || rc=1
		exit "$rc" ;;
	esac
done
rc=0
/usr/bin/python3 -m pytest -v -p no:cacheprovider testsuite/offline "$@" || rc=$?
# 5: -k deselected every offline test.
if [ "$rc" = 0 ] || [ "$rc" = 5 ]; then
	rc=0
	# The integration modules run on OPTIMUS_TEST_WORKERS (default 2)
	# workers at once (testsuite/run_integration.py says why and how they
	# stay apart); it prints each module's wall time and one summary line
	# for all.
	echo "== $(date -u +%H:%M:%S) pytest: integration tests (real localhost clusters, ${OPTIMUS_TEST_WORKERS:-2} at once)"
	/usr/bin/python3 testsuite/run_integration.py "$@" || rc=$?
fi
checks_wait || { [ "$rc" != 0 ] || rc=1; }
exit "$rc"

#!/bin/sh
# run-tests.sh - install dependencies, build, and run every test:
# the Check unit tests (make check), the pytest tests that need no cluster
# (testsuite/offline) and the pytest integration tests against real
# slurmctld/slurmd/munged (and slurmdbd + MariaDB) on localhost.
# Run as root on Debian. Extra arguments go to pytest. With
# OPTIMUS_TEST_PACKAGE=1 it also builds the Debian packages and installs them
# into this system before the integration tests (CI's chroot lanes do).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
contrib/install-deps.sh
contrib/build.sh
echo "== $(date -u +%H:%M:%S) unit tests (make check)"
if ! make -j2 check; then
	cat testsuite/unit/*.log 2>/dev/null | tail -n 100
	exit 1
fi
# OPTIMUS_TEST_PACKAGE=1 (CI's chroot lanes): build the Debian packages and
# install them into this system, for test_install.py's package tests.
if [ "${OPTIMUS_TEST_PACKAGE:-0}" = 1 ]; then
	echo "== $(date -u +%H:%M:%S) Debian packages (contrib/build-deb.sh), installed into this system"
	debs=$(contrib/build-deb.sh "$top/debs")
	echo "$debs"
	# shellcheck disable=SC2086
	dpkg -i $debs
	export OPTIMUS_TEST_PACKAGE
fi
echo "== $(date -u +%H:%M:%S) pytest: offline tests (no cluster), then integration tests (real localhost cluster)"
# Debian's pytest, whatever python3 comes first on PATH. One run for both
# folders, so that the pytest arguments (-k ...) apply to both. The 30
# slowest tests are listed at the end: CI has 45 minutes for both lanes.
exec /usr/bin/python3 -m pytest -v -p no:cacheprovider --durations=30 \
	testsuite/offline testsuite/integration "$@"

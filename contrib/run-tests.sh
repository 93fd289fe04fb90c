#!/bin/sh
# run-tests.sh - install dependencies, build, and run every test:
# the Check unit tests (make check) and the pytest integration tests against
# real slurmctld/slurmd/munged (and slurmdbd + MariaDB) on localhost.
# Run as root on Debian. Extra arguments go to pytest.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
contrib/install-deps.sh
contrib/build.sh
echo "== unit tests (make check)"
if ! make -j2 check; then
	cat testsuite/unit/*.log 2>/dev/null | tail -n 100
	exit 1
fi
echo "== integration tests (real localhost cluster)"
# Debian's pytest, whatever python3 comes first on PATH.
exec /usr/bin/python3 -m pytest -v -p no:cacheprovider testsuite/integration "$@"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# release-check.sh - what a site's packager does with a release, checked on
# this configured tree (contrib/build.sh first). Every build below runs as
# an ordinary user with the network unreachable (contrib/run-offline.sh);
# the one download, the Slurm source, happens before (contrib/slurm-source.sh
# --tarball, cached).
#   packages  1. `make dist`: the release tarball, kept in release/
#             2. the Debian source and binary packages from the tarball
#                (contrib/build-deb.sh, nocheck: distcheck runs the unit tests)
#             3. the source and binary RPMs (contrib/build-rpm.sh, --without
#                check) and rpmlint: no error and no warning but those
#                filtered, each with its reason, in
#                contrib/rpm/slurm-optimus.rpmlintrc
#   checks    4. `make distcheck` from that tarball (configure, build,
#                make check, install, uninstall, dist again)
#             5. a second Debian build of the same tarball in another folder,
#                compared file by file with the first (contrib/compare-debs.py)
#             6. lintian --pedantic on the source and binary packages: no tag
#                but the overridden ones (debian/source/lintian-overrides,
#                debian/*.lintian-overrides, each with its reason)
# The packages are what the integration tests install (test_install.py);
# the checks read only what the packages step left (release/ and debs/),
# never the tree's own `make dist` output, so they can run while tests
# that call `make dist` run (contrib/run-tests.sh does so in CI's lanes).
# Each step's wall time is printed; the first failure ends the run (exit 1).
#
# Usage: contrib/release-check.sh [packages|checks|all]   (default: all)
#   (as root in CI's lanes: contrib/run-tests.sh runs it when
#   OPTIMUS_TEST_PACKAGE=1)
#   OPTIMUS_TEST_RPM=0       skip step 3    OPTIMUS_TEST_DISTCHECK=0  skip step 4
#   OPTIMUS_TEST_REPRO=0     skip step 5    OPTIMUS_TEST_LINTIAN=0    skip step 6
# Leaves the tarball in ./release, the Debian packages in ./debs (what
# test_install.py installs and checks) and the RPMs in ./rpms.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
die() { echo "release-check.sh: $*" >&2; exit 1; }
step_t0=0
step() { step_t0=$(date +%s); echo "== $(date -u +%H:%M:%S) release-check: $*"; }
done_step() { echo "== release-check: $1 took $(( $(date +%s) - step_t0 )) s"; }
[ -f Makefile ] || die "configure this tree first (contrib/build.sh)"
version=$(sed -n 's/^PACKAGE_VERSION = //p' Makefile)
slurm_src=$(sed -n 's/^SLURM_SRC = //p' Makefile)
slurm_tarball=$(contrib/slurm-source.sh --tarball) || die "no Slurm source tarball"
work=$(mktemp -d "${TMPDIR:-/tmp}/slurm-optimus-release.XXXXXX")
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"

phase=${1:-all}
case $phase in packages|checks|all) ;; *) die "usage: $0 [packages|checks|all]" ;; esac
tarball=$top/release/slurm-optimus-$version.tar.gz

if [ "$phase" != checks ]; then
	step "make dist: release/slurm-optimus-$version.tar.gz"
	rm -rf release
	mkdir release
	rm -f "slurm-optimus-$version.tar.gz"
	make -s dist >/dev/null || die "make dist failed"
	mv "slurm-optimus-$version.tar.gz" "$tarball"
	done_step "make dist"

	step "Debian packages from the tarball (contrib/build-deb.sh)"
	rm -rf debs
	DIST_TARBALL=$tarball SLURM_TARBALL=$slurm_tarball DEB_BUILD_OPTIONS=nocheck \
		contrib/build-deb.sh "$top/debs" || die "the Debian build failed"
	done_step "the Debian build"

	if [ "${OPTIMUS_TEST_RPM:-1}" = 1 ]; then
		step "RPMs from the tarball (contrib/build-rpm.sh), rpmlint"
		rm -rf rpms
		DIST_TARBALL=$tarball RPMBUILD_ARGS="--without check" \
			contrib/build-rpm.sh "$slurm_tarball" "$top/rpms" || die "the RPM build failed"
		out=$(rpmlint -r contrib/rpm/slurm-optimus.rpmlintrc rpms/*.rpm 2>&1) || true
		echo "$out"
		echo "$out" | grep -qE ' 0 errors, 0 warnings' ||
			die "rpmlint found errors or warnings nobody explained (above): fix them, or filter them with the reason in contrib/rpm/slurm-optimus.rpmlintrc"
		done_step "the RPM build and rpmlint"
	fi
fi
[ "$phase" = packages ] && { echo "== release-check: packages built"; exit 0; }
[ -f "$tarball" ] && ls debs/*.deb >/dev/null 2>&1 ||
	die "no release/slurm-optimus-$version.tar.gz or debs/: run '$0 packages' first"

if [ "${OPTIMUS_TEST_DISTCHECK:-1}" = 1 ]; then
	step "make distcheck from slurm-optimus-$version.tar.gz"
	mkdir "$work/distcheck"
	tar -C "$work/distcheck" -xzf "$tarball"
	contrib/run-offline.sh "$work/distcheck" sh -c \
		"cd slurm-optimus-$version && ./configure -q --with-slurm-source='$slurm_src' >../distcheck.log 2>&1 &&
		 make -j2 distcheck >>../distcheck.log 2>&1" ||
		{ tail -n 60 "$work/distcheck/distcheck.log" >&2
		  find "$work/distcheck" -name test-suite.log -exec tail -n 80 {} \; >&2
		  die "make distcheck failed (last lines above)"; }
	grep -E '^# (TOTAL|PASS|FAIL|ERROR):' "$work/distcheck/distcheck.log" | tail -n 4
	grep -F 'archives ready for distribution' "$work/distcheck/distcheck.log" ||
		die "make distcheck did not end with its 'ready for distribution' line"
	done_step distcheck
fi

if [ "${OPTIMUS_TEST_REPRO:-1}" = 1 ]; then
	step "a second Debian build, compared with the first"
	DIST_TARBALL=$tarball SLURM_TARBALL=$slurm_tarball DEB_BUILD_OPTIONS=nocheck \
		contrib/build-deb.sh "$work/debs2" >/dev/null || die "the second Debian build failed"
	/usr/bin/python3 contrib/compare-debs.py debs "$work/debs2" ||
		die "two builds of the same tarball differ (above)"
	done_step "the second Debian build and the comparison"
fi

if [ "${OPTIMUS_TEST_LINTIAN:-1}" = 1 ]; then
	step "lintian --pedantic"
	mkdir "$work/lintian"
	cp debs/* "$work/lintian/"
	contrib/run-offline.sh "$work/lintian" sh -c \
		'lintian --pedantic --display-info --fail-on error,warning,pedantic *.changes' ||
		die "lintian found tags nobody explained (above): fix them, or override them with the reason"
	done_step lintian
fi

echo "== release-check: passed"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# build-deb.sh - build the Debian source package of slurm-optimus from the
# release tarball, and its binary packages from that source package the way
# sbuild or pbuilder would: dpkg-buildpackage as an ordinary user with the
# network unreachable (contrib/run-offline.sh).
#
# Usage: contrib/build-deb.sh [OUTDIR]     (default OUTDIR: ./debs)
#   DIST_TARBALL   the release tarball (default: slurm-optimus-VERSION.tar.gz
#                  at the top of this tree, made by `make dist` when missing:
#                  that needs a configured tree)
#   SLURM_TARBALL  the source of the Slurm release to build for (default:
#                  `contrib/slurm-source.sh --tarball`, whose download, the one
#                  step that uses the network, needs root once)
#   DEB_BUILD_OPTIONS  added to "noddebs parallel=2" (CI adds nocheck:
#                  `make distcheck` ran the unit tests on the same tarball)
# The source package is format 3.0 (quilt) with two upstream tarballs:
# slurm-optimus_V.orig.tar.gz is the release tarball as it is, and
# slurm-optimus_V.orig-slurm.tar.gz the Slurm source (unpacked in slurm/).
# Prints the paths of the .deb files made; OUTDIR also gets the source
# package (.dsc, tarballs), the .buildinfo and the .changes (for lintian).
# The build fails when an installed file names the build folder.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/debs}
die() { echo "build-deb.sh: $*" >&2; exit 1; }
command -v dpkg-buildpackage >/dev/null || die "dpkg-buildpackage not found (apt-get install dpkg-dev debhelper)"

version=$(dpkg-parsechangelog -l "$top/debian/changelog" -SVersion)
upstream=${version%-*}
dist=${DIST_TARBALL:-$top/slurm-optimus-$upstream.tar.gz}
if [ ! -f "$dist" ] && [ -z "${DIST_TARBALL:-}" ]; then
	[ -f "$top/Makefile" ] || die "no $dist and no configured tree to make it (contrib/build.sh, then make dist)"
	make -C "$top" -s dist >&2 || die "make dist failed"
fi
[ -f "$dist" ] || die "no release tarball $dist"
slurm=${SLURM_TARBALL:-$("$top/contrib/slurm-source.sh" --tarball)} ||
	die "no Slurm source tarball (contrib/slurm-source.sh --tarball failed)"
[ -f "$slurm" ] || die "no Slurm source tarball $slurm"

work=$(mktemp -d "${TMPDIR:-/tmp}/slurm-optimus-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
cp "$dist" "$work/slurm-optimus_$upstream.orig.tar.gz"
cp "$slurm" "$work/slurm-optimus_$upstream.orig-slurm.tar.gz"
src="$work/slurm-optimus-$upstream"
tar -C "$work" -xzf "$work/slurm-optimus_$upstream.orig.tar.gz"
[ -d "$src/debian" ] || die "$dist holds no slurm-optimus-$upstream/debian"
mkdir "$src/slurm"
tar -C "$src/slurm" --strip-components=1 -xzf "$work/slurm-optimus_$upstream.orig-slurm.tar.gz"

# Source package and binary packages in one run; no debug-symbol packages
# (they double the build time); both cores.
"$top/contrib/run-offline.sh" "$work" env \
	DEB_BUILD_OPTIONS="noddebs parallel=2 ${DEB_BUILD_OPTIONS:-}" \
	sh -c "cd slurm-optimus-$upstream && dpkg-buildpackage -us -uc >../build.log 2>&1" ||
	{ tail -n 40 "$work/build.log" >&2; die "dpkg-buildpackage failed (last lines above)"; }

# No installed file may name the folder it was built in.
for deb in "$work"/*.deb; do
	rm -rf "$work/check"
	dpkg-deb -x "$deb" "$work/check"
	hits=$(grep -rlF "$work" "$work/check" || true)
	[ -z "$hits" ] || die "${deb##*/} names its build folder $work in: $hits"
done
rm -rf "$work/check"

mkdir -p "$out"
for f in "$work"/*.dsc "$work"/*.tar.* "$work"/*.buildinfo "$work"/*.changes; do
	cp "$f" "$out/"
done
for f in "$work"/*.deb; do
	cp "$f" "$out/"
	echo "$out/${f##*/}"
done

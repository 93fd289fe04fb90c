#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# build-deb.sh - build the Debian packages of slurm-optimus for the Slurm on
# this machine (dpkg-buildpackage -us -uc -b) from a copy of the tree, so that
# the working tree's own build is left alone (dpkg-buildpackage cleans and
# reconfigures the tree it runs in).
#
# Usage: contrib/build-deb.sh [OUTDIR]     (default OUTDIR: ./debs)
# Prints the paths of the .deb files made. Needs debhelper (contrib/install-deps.sh).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/debs}
die() { echo "build-deb.sh: $*" >&2; exit 1; }
command -v dpkg-buildpackage >/dev/null || die "dpkg-buildpackage not found (apt-get install dpkg-dev debhelper)"
# The Slurm source first, in the tree's own cache (needs root the first time).
SLURM_SRC=$("$top/contrib/slurm-source.sh") || die "no Slurm source tree (contrib/slurm-source.sh failed)"
export SLURM_SRC

work=$(mktemp -d "${TMPDIR:-/tmp}/slurm-optimus-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/slurm-optimus"
# Tracked and untracked files, not ignored ones (no build products).
"$top/contrib/tree-tar.sh" | tar -C "$work/slurm-optimus" -xf -
# No debug-symbol packages (they double the build time); both cores.
(cd "$work/slurm-optimus" && DEB_BUILD_OPTIONS="noddebs parallel=2 ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1) ||
	{ tail -n 40 "$work/build.log" >&2; die "dpkg-buildpackage failed (last lines above)"; }
mkdir -p "$out"
for f in "$work"/*.deb; do
	cp "$f" "$out/"
	echo "$out/${f##*/}"
done

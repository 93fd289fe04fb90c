#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# build-rpm.sh - build the RPM packages of slurm-optimus with rpmbuild,
# against a configured Slurm source tree (contrib/rpm/slurm-optimus.spec).
#
# Usage: contrib/build-rpm.sh [SLURM_SOURCE [OUTDIR]]
#   SLURM_SOURCE  a Slurm source tree with ./configure run in it, of the
#                 release slurmctld runs (default: contrib/slurm-source.sh's,
#                 on Debian); OUTDIR default ./rpms
# Prints the paths of the .rpm files made. BuildRequires are not checked
# when rpm's database does not hold them (a Debian build host: --nodeps).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "build-rpm.sh: $*" >&2; exit 1; }
command -v rpmbuild >/dev/null || die "rpmbuild not found (Debian: apt-get install rpm; RPM systems: rpm-build)"
src=${1:-$("$top/contrib/slurm-source.sh")} || die "no Slurm source tree"
out=${2:-$top/rpms}
[ -f "$src/config.h" ] || die "$src is not a configured Slurm source tree (no config.h)"
version=$(sed -n 's/^AC_INIT(\[slurm-optimus\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")

work=$(mktemp -d "${TMPDIR:-/tmp}/slurm-optimus-rpm.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/SOURCES" "$work/slurm-optimus-$version"
"$top/contrib/tree-tar.sh" | tar -C "$work/slurm-optimus-$version" -xf -
tar -C "$work" -czf "$work/SOURCES/slurm-optimus-$version.tar.gz" "slurm-optimus-$version"
nodeps=""
rpm -q gsl-devel >/dev/null 2>&1 || nodeps=--nodeps
# shellcheck disable=SC2086
rpmbuild -bb $nodeps --define "_topdir $work" --define "slurm_source $src" \
	"$top/contrib/rpm/slurm-optimus.spec" >"$work/build.log" 2>&1 ||
	{ tail -n 40 "$work/build.log" >&2; die "rpmbuild failed (last lines above)"; }
mkdir -p "$out"
for f in "$work"/RPMS/*/*.rpm; do
	cp "$f" "$out/"
	echo "$out/${f##*/}"
done

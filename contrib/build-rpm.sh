#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# build-rpm.sh - build the RPM packages of slurm-optimus (source RPM and
# binary RPMs, contrib/rpm/slurm-optimus.spec) from the release tarball and
# the source of the Slurm release to build for, the way mock or Koji
# would: rpmbuild as an ordinary user with the network unreachable
# (contrib/run-offline.sh).
#
# Usage: contrib/build-rpm.sh [SLURM_TARBALL [OUTDIR]]
#   SLURM_TARBALL  the Slurm source tarball of the release slurmctld runs
#                  (slurm-X.Y.Z.tar.bz2 of SchedMD, or any .tar.{bz2,gz,xz}
#                  whose top folder is slurm-X.Y.Z; default:
#                  `contrib/slurm-source.sh --tarball`, Debian's); OUTDIR
#                  default ./rpms
#   DIST_TARBALL   the release tarball (default: slurm-optimus-VERSION.tar.gz
#                  at the top of this tree, made by `make dist` when missing)
#   RPMBUILD_ARGS  more rpmbuild arguments (CI: --without check, since
#                  `make distcheck` ran the unit tests on the same tarball)
# Prints the paths of the binary .rpm files made; OUTDIR also gets the
# source RPM. BuildRequires are not checked when rpm's database does not
# hold them (a Debian build host: --nodeps).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "build-rpm.sh: $*" >&2; exit 1; }
command -v rpmbuild >/dev/null || die "rpmbuild not found (Debian: apt-get install rpm; RPM systems: rpm-build)"
slurm=${1:-$("$top/contrib/slurm-source.sh" --tarball)} || die "no Slurm source tarball"
out=${2:-$top/rpms}
[ -f "$slurm" ] || die "no Slurm source tarball $slurm"
version=$(sed -n 's/^AC_INIT(\[slurm-optimus\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")
dist=${DIST_TARBALL:-$top/slurm-optimus-$version.tar.gz}
if [ ! -f "$dist" ] && [ -z "${DIST_TARBALL:-}" ]; then
	[ -f "$top/Makefile" ] || die "no $dist and no configured tree to make it (contrib/build.sh, then make dist)"
	make -C "$top" -s dist >&2 || die "make dist failed"
fi
[ -f "$dist" ] || die "no release tarball $dist"
# The Slurm release from the tarball's top folder (slurm-X.Y.Z/).
slurm_version=$(tar -tf "$slurm" | head -n 1 | sed -n 's|^slurm-\([0-9][0-9.]*[0-9]\)/.*|\1|p')
[ -n "$slurm_version" ] || die "$slurm: its top folder is not slurm-X.Y.Z/"

work=$(mktemp -d "${TMPDIR:-/tmp}/slurm-optimus-rpm.XXXXXX")
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
mkdir -p "$work/SOURCES" "$work/SPECS"
cp "$dist" "$work/SOURCES/slurm-optimus-$version.tar.gz"
# Source1 named as the spec's slurm_tarball (its top folder is what counts).
case $slurm in
*.tar.bz2|*.tar.gz|*.tar.xz) slurm_tarball=slurm-$slurm_version.tar.${slurm##*.tar.} ;;
*) die "$slurm: not a .tar.bz2, .tar.gz or .tar.xz" ;;
esac
cp "$slurm" "$work/SOURCES/$slurm_tarball"
# The spec of the release tarball (what a site gets with it), preceded by
# the Slurm release it is built for: the source RPM then carries it, and
# its spec parses on its own (rpmlint reads it).
{
	echo "# The Slurm release of Source1 (contrib/build-rpm.sh)."
	echo "%global slurm_version $slurm_version"
	echo "%global slurm_tarball $slurm_tarball"
	tar -xzOf "$dist" "slurm-optimus-$version/contrib/rpm/slurm-optimus.spec"
} > "$work/SPECS/slurm-optimus.spec" || die "$dist holds no contrib/rpm/slurm-optimus.spec"
nodeps=""
rpm -q gsl-devel >/dev/null 2>&1 || nodeps=--nodeps
# shellcheck disable=SC2086
"$top/contrib/run-offline.sh" "$work" sh -c \
	'rpmbuild -ba "$@" >build.log 2>&1' sh $nodeps \
	--define "_topdir $work" \
	${RPMBUILD_ARGS:-} SPECS/slurm-optimus.spec ||
	{ tail -n 40 "$work/build.log" >&2; die "rpmbuild failed (last lines above)"; }
mkdir -p "$out"
cp "$work"/SRPMS/*.src.rpm "$out/"
for f in "$work"/RPMS/*/*.rpm; do
	cp "$f" "$out/"
	echo "$out/${f##*/}"
done

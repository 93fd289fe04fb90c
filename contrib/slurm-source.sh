#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# slurm-source.sh - the Slurm source of the installed Slurm release (the
# release of libslurm-dev's headers), from Debian's source packages, in two
# forms made from one download:
#   --tarball  a tarball of the source as Debian builds it (its patches
#              applied), not configured: the second upstream tarball of the
#              Debian source package (slurm-optimus_X.orig-slurm.tar.gz) and
#              the RPM's Source1 (contrib/build-deb.sh, contrib/build-rpm.sh)
#   (default)  that tarball unpacked and configured (contrib/slurm-configure.sh)
#              for a build from this checkout (contrib/build.sh, README)
#
# Usage: contrib/slurm-source.sh [--tarball] [CACHE_DIR]
# Prints the path on stdout. Both are cached in CACHE_DIR (default:
# /var/cache/slurm-optimus, or $SLURM_OPTIMUS_CACHE); a second run for the
# same installed release is instant. Only the download needs root (it may
# enable deb-src entries and run apt-get update and apt-get source); it is
# the one step of a package build that uses the network, and runs before it.
#
# Why: libslurm-dev ships only the public headers; sched and job_submit plugins
# need slurmctld's internal headers and a config.h of the very same version.
set -eu

want=tree
if [ "${1:-}" = --tarball ]; then
	want=tarball
	shift
fi
cache=${1:-${SLURM_OPTIMUS_CACHE:-/var/cache/slurm-optimus}}
top=$(cd "$(dirname "$0")/.." && pwd)

die() { echo "slurm-source.sh: $*" >&2; exit 1; }

command -v dpkg-query >/dev/null || die "dpkg-query not found: this script supports Debian and derivatives only"
# The source package's version of the installed headers (22.05.8-4+deb12u3).
full=$(dpkg-query -W -f='${source:Version}' libslurm-dev 2>/dev/null) ||
	die "libslurm-dev is not installed (apt-get install libslurm-dev)"
[ -n "$full" ] || die "libslurm-dev is not installed (apt-get install libslurm-dev)"
upstream=${full%%-*}
upstream=${upstream#*:}
tree="$cache/slurm-wlm-$upstream"
tarball="$cache/slurm-wlm-$full.tar.gz"

if [ "$want" = tree ] && [ -f "$tree/.optimus-configured-$full" ]; then
	echo "$tree"
	exit 0
fi

# ---------------------------------------------------------------- download
fetch() {
	[ "$(id -u)" = 0 ] || die "the Slurm source of $full is not cached in $cache yet; run once as root"
	mkdir -p "$cache"
	# Enable deb-src entries for the suites the binary packages come from.
	if ! apt-get source --print-uris "slurm-wlm=$full" >/dev/null 2>&1; then
		src=/etc/apt/sources.list.d/optimus-deb-src.sources
		if [ -f /etc/apt/sources.list.d/debian.sources ]; then
			sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > "$src"
		elif [ -f /etc/apt/sources.list ]; then
			grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' > /etc/apt/sources.list.d/optimus-deb-src.list
		else
			die "no apt sources found to derive deb-src entries from"
		fi
		apt-get update -q >&2 || die "apt-get update failed"
	fi
	command -v dpkg-source >/dev/null || { apt-get install -y -q dpkg-dev >&2 || die "cannot install dpkg-dev"; }

	work=$(mktemp -d "$cache/.fetch.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	src="$work/slurm-$upstream"
	# The Debian source package (upstream tarball + Debian patches) first.
	# Some registries serve only the upstream tarball of a suite (Debian
	# 13's answers 404 for the .dsc and the Debian tarball of
	# 24.11.5-4+deb13u1): then take the upstream tarball alone, and check
	# below that its public headers are the installed ones, so that a
	# Debian patch touching them cannot go unnoticed.
	if (cd "$work" && apt-get source -q --download-only "slurm-wlm=$full" >&2); then
		(cd "$work" && dpkg-source -x ./*.dsc "$src" >&2) || die "dpkg-source failed to unpack slurm-wlm $full"
		rm -rf "$src/.pc"	# quilt's record of the applied patches
	else
		echo "slurm-source.sh: no Debian source package for slurm-wlm=$full; using the upstream tarball" >&2
		rm -rf "${work:?}"/*
		(cd "$work" && apt-get source -q --download-only --tar-only "slurm-wlm=$full" >&2) ||
			die "apt-get source --tar-only slurm-wlm=$full failed (is the matching deb-src suite enabled?)"
		set -- "$work"/slurm-wlm_*.orig.tar.*
		[ -f "$1" ] || die "apt-get source --tar-only slurm-wlm=$full gave no .orig tarball"
		mkdir "$src"
		tar -C "$src" --strip-components=1 -xf "$1" || die "cannot unpack $1"
	fi
	# Slurm's web documentation carries minified JavaScript (jquery.min.js)
	# without its source; it is never built here, so the component leaves
	# it out rather than ship a file whose source the package lacks.
	find "$src" -name '*.min.js' -type f -delete
	# The same bytes from the same source: names sorted, no owner, times
	# clamped to the Slurm package's own date.
	stamp=$(dpkg-parsechangelog -l "$src/debian/changelog" -STimestamp 2>/dev/null) ||
		stamp=$(find "$src" -type f -printf '%T@\n' | sort -n | tail -n 1 | cut -d. -f1)
	tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner \
		--mtime="@$stamp" --clamp-mtime -cf - "slurm-$upstream" |
		gzip -9n > "$work/tarball" || die "cannot write the tarball of $src"
	mv "$work/tarball" "$tarball"
	rm -rf "$work"
	trap - EXIT
}
[ -f "$tarball" ] || fetch
if [ "$want" = tarball ]; then
	echo "$tarball"
	exit 0
fi

# ---------------------------------------------------------------- configure
work=$(mktemp -d "$cache/.configure.XXXXXX")
trap 'rm -rf "$work"' EXIT
tar -C "$work" -xzf "$tarball" || die "cannot unpack $tarball"
"$top/contrib/slurm-configure.sh" "$work/slurm-$upstream" \
	--libdir="/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)"

# The public headers of the tree must be those of the installed libslurm-dev
# (slurm_version.h is generated by configure, hence checked after it).
if [ -d /usr/include/slurm ]; then
	for h in /usr/include/slurm/*.h; do
		cmp -s "$h" "$work/slurm-$upstream/slurm/${h##*/}" ||
			die "the Slurm source of $full differs from the installed header $h: refusing a tree that does not match the installed Slurm"
	done
fi

rm -rf "$tree"
mv "$work/slurm-$upstream" "$tree"
touch "$tree/.optimus-configured-$full"
echo "$tree"

#!/bin/sh
# slurm-source.sh - obtain and configure (headers only) the Slurm source tree
# that matches the installed slurmctld, from Debian's source packages.
#
# Usage: contrib/slurm-source.sh [CACHE_DIR]
# Prints the path of the configured tree on stdout. A second run with the same
# installed version is instant: the configured tree is cached in CACHE_DIR
# (default: /var/cache/slurm-optimus, or $SLURM_OPTIMUS_CACHE).
#
# Why: libslurm-dev ships only the public headers; sched and job_submit plugins
# need slurmctld's internal headers and a config.h of the very same version.
set -eu

cache=${1:-${SLURM_OPTIMUS_CACHE:-/var/cache/slurm-optimus}}

die() { echo "slurm-source.sh: $*" >&2; exit 1; }

command -v dpkg-query >/dev/null || die "dpkg-query not found: this script supports Debian and derivatives only"
full=$(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null) ||
	die "slurmctld is not installed (apt-get install slurmctld)"
[ -n "$full" ] || die "slurmctld is not installed (apt-get install slurmctld)"
upstream=${full%%-*}
upstream=${upstream#*:}
tree="$cache/slurm-wlm-$upstream"

if [ -f "$tree/.optimus-configured-$full" ]; then
	echo "$tree"
	exit 0
fi

[ "$(id -u)" = 0 ] || die "the Slurm source for $full is not cached in $cache yet; run once as root"
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
(cd "$work" && apt-get source -q --download-only "slurm-wlm=$full" >&2) ||
	die "apt-get source slurm-wlm=$full failed (is the matching deb-src suite enabled?)"
(cd "$work" && dpkg-source -x ./*.dsc src >&2) || die "dpkg-source failed to unpack slurm-wlm $full"

(cd "$work/src" && ./configure -q --sysconfdir=/etc/slurm --with-munge \
	--enable-multiple-slurmd --prefix=/usr \
	--libdir=/usr/lib/x86_64-linux-gnu >"$work/configure.log" 2>&1) ||
	{ tail -20 "$work/configure.log" >&2; die "configure of slurm $upstream failed"; }

rm -rf "$tree"
mv "$work/src" "$tree"
touch "$tree/.optimus-configured-$full"
echo "$tree"

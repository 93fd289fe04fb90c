#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# run-offline.sh - run a build the way sbuild, pbuilder, mock and Koji do:
# as an ordinary user and with the network unreachable (a network namespace
# of its own, which holds only a loopback that is down). A build that
# downloads anything, writes outside its folder or needs root fails here
# rather than in a distribution's builder.
#
# Usage: contrib/run-offline.sh DIR COMMAND [ARGS...]
#   DIR  the folder the build writes in: the command runs there, HOME is
#        DIR/.home, and as root DIR is given to the build user first.
# As root: `unshare --net`, then the command as OPTIMUS_BUILD_USER (default
# nobody) through runuser. As another user: `unshare --map-current-user
# --net` (a user namespace; the user stays who they are). The environment is
# emptied but for PATH, HOME, LANG and those the command sets itself
# (`run-offline.sh DIR env DEB_BUILD_OPTIONS=... dpkg-buildpackage ...`).
set -eu
die() { echo "run-offline.sh: $*" >&2; exit 1; }
[ $# -ge 2 ] || die "usage: run-offline.sh DIR COMMAND [ARGS...]"
dir=$(cd "$1" && pwd) || die "no folder $1"
shift
mkdir -p "$dir/.home"
clean_env="PATH=/usr/local/bin:/usr/bin:/bin HOME=$dir/.home LANG=C.UTF-8"
# The check that the build runs offline: any interface but lo in the
# namespace's /proc/net/dev fails the run before the command starts.
offline='n=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " " | grep -vx lo | wc -l)
[ "$n" = 0 ] || { echo "run-offline.sh: the network is reachable ($n interfaces): refusing" >&2; exit 1; }
cd "$0" && exec "$@"'
if [ "$(id -u)" = 0 ]; then
	user=${OPTIMUS_BUILD_USER:-nobody}
	id "$user" >/dev/null 2>&1 || die "no user $user (OPTIMUS_BUILD_USER)"
	chown -R "$user" "$dir"
	# shellcheck disable=SC2086
	exec unshare --net -- runuser -u "$user" -- env -i $clean_env \
		/bin/sh -c "$offline" "$dir" "$@"
fi
# shellcheck disable=SC2086
exec unshare --map-current-user --net -- env -i $clean_env \
	/bin/sh -c "$offline" "$dir" "$@"

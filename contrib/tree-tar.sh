#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# tree-tar.sh - write to stdout a tar of this source tree as a fresh clone
# plus uncommitted work would have it: tracked and untracked files, not
# ignored ones (no build products). Outside git: the whole folder but .git,
# debs/ and rpms/. Used by chroot-lane.sh, which works on a copy so that the
# tree's own build is left alone.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# Usage: contrib/tree-tar.sh [--list]
#   --list: the files' paths, one a line, instead of the tar (a copy
#   without .git keeps it as .optimus-files, for test_release.py).
files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -z --cached --others --exclude-standard |
			xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh
	else
		find . -path ./.git -prune -o -path ./debs -prune -o -path ./rpms -prune \
			-o ! -type d -printf '%P\0'
	fi
}
if [ "${1:-}" = --list ]; then
	files | tr '\0' '\n'
else
	files | tar --null -T - -cf -
fi

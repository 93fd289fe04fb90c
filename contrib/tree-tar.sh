#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# tree-tar.sh - write to stdout a tar of this source tree as a fresh clone
# plus uncommitted work would have it: tracked and untracked files, not
# ignored ones (no build products). Outside git: the whole folder but .git.
# Used by chroot-lane.sh, build-deb.sh and build-rpm.sh, which each work on
# a copy so that the tree's own build is left alone.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf -
else
	tar --exclude=.git --exclude=./debs --exclude=./rpms -cf - .
fi

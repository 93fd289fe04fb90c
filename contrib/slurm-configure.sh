#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# slurm-configure.sh - run Slurm's ./configure in an unpacked Slurm source
# tree, for the config.h and generated headers the sched and job_submit
# plugins include (no `make` of Slurm is needed). The one set of options
# (those of Debian's build of Slurm), used by contrib/slurm-source.sh, by
# debian/rules and by the RPM spec.
#
# Usage: contrib/slurm-configure.sh SLURM_TREE [extra configure options...]
#   (e.g. --libdir=/usr/lib64). Quiet; on failure prints the end of
#   config.log's summary and exits 1. Needs a C compiler and munge.h.
set -eu
die() { echo "slurm-configure.sh: $*" >&2; exit 1; }
[ $# -ge 1 ] || die "usage: slurm-configure.sh SLURM_TREE [configure options...]"
tree=$1
shift
[ -x "$tree/configure" ] || die "$tree has no configure script (not an unpacked Slurm source)"
cd "$tree"
# No dependency tracking: nothing of Slurm is compiled, and config.status
# would otherwise run make once per Makefile of Slurm's (minutes).
./configure -q --sysconfdir=/etc/slurm --with-munge --enable-multiple-slurmd \
	--prefix=/usr --disable-dependency-tracking "$@" >configure.out 2>&1 ||
	{ tail -n 20 configure.out >&2; die "configure of the Slurm source in $tree failed"; }
rm -f configure.out
[ -f config.h ] && [ -f slurm/slurm_version.h ] ||
	die "configure in $tree made no config.h or slurm/slurm_version.h"

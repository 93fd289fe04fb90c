#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# build.sh - fetch the matching Slurm source (cached), configure and build.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
slurm_src=$(contrib/slurm-source.sh)
if [ ! -f Makefile ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ] ||
   [ -n "$(find mk src -name '*.mk' -newer Makefile.in 2>/dev/null | head -n 1)" ]; then
	mkdir -p m4	# libtoolize fills it; aclocal warns if it is missing
	autoreconf -fi
	./configure -q --with-slurm-source="$slurm_src"
fi
make -j2

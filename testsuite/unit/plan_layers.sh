#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
#
# plan_layers.sh - HACKING.md's map of plan/ names its files from the top
# down, and every plan/ file calls only the files the map lists after it.
# This reads the map and the symbols of the built objects (nm): a
# function or datum that a plan/ object uses and one listed at or above
# it defines fails the check, and so does a plan/*.c the map leaves out.
# Run by make check from the top build folder ($srcdir: the sources).
set -u
top=${srcdir:-.}
objdir=src/common/plan

order=$(awk '
	/^      plan\/ / { inmap = 1 }
	inmap && /^      [a-z_]+\// && !/^      plan\// { exit }
	inmap && !/^ / { exit }
	inmap {
		s = $0
		while (match(s, /plan[a-z_]*\.c/)) {
			f = substr(s, RSTART, RLENGTH)
			if (!(f in seen)) { seen[f] = 1; print f }
			s = substr(s, RSTART + RLENGTH)
		}
	}' "$top/HACKING.md")
if [ -z "$order" ]; then
	echo "plan_layers: no plan/ entry in $top/HACKING.md" >&2
	exit 99
fi

fail=0
for path in "$top"/src/common/plan/*.c; do
	f=${path##*/}
	if ! printf '%s\n' "$order" | grep -qx "$f"; then
		echo "plan_layers: $f is not in HACKING.md's map of plan/"
		fail=1
	fi
done

# One line a symbol: rank (the file's place in the map), D or U, name,
# file.
syms=$(k=0
for f in $order; do
	k=$((k + 1))
	n=${f%.c}
	obj=
	for o in "$objdir"/.libs/*-"$n".o "$objdir"/*-"$n".o; do
		[ -f "$o" ] && { obj=$o; break; }
	done
	if [ -z "$obj" ]; then
		echo "plan_layers: no object for $f in $objdir" >&2
		echo "missing"
		continue
	fi
	nm -g "$obj" | awk -v k="$k" -v f="$f" '
		$1 == "U" { print k, "U", $2, f; next }
		NF == 3 && $2 ~ /^[TDRBC]$/ { print k, "D", $3, f }'
done)
if printf '%s\n' "$syms" | grep -qx missing; then
	exit 99
fi

printf '%s\n' "$syms" | awk '
	$2 == "D" { rank[$3] = $1; home[$3] = $4; next }
	{ use[++n] = $0 }
	END {
		bad = 0
		for (u = 1; u <= n; u++) {
			split(use[u], a, " ")
			if ((a[3] in rank) && rank[a[3]] <= a[1]) {
				printf "plan_layers: %s calls %s of %s, " \
				       "which the map lists above it\n",
				       a[4], a[3], home[a[3]]
				bad = 1
			}
		}
		exit bad
	}' || fail=1
[ "$fail" = 0 ] && echo "plan_layers: $(printf '%s\n' "$order" | wc -l) files, each calls only the files below it"
exit "$fail"

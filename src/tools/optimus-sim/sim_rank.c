/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* sim_rank.c - see sim_rank.h. */
#define _GNU_SOURCE	/* qsort_r */
#include <math.h>
#include <stdlib.h>

#include "sim_rank.h"

static int by_drop(const void *a, const void *b, void *arg)
{
	const double *drop = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (drop[x] != drop[y])
		return drop[x] > drop[y] ? -1 : 1;
	return x < y ? -1 : 1;
}

void sim_rank_by_drop(size_t *idx, size_t n, const double *drop)
{
	qsort_r(idx, n, sizeof(*idx), by_drop, (void *)drop);
}

void sim_rank_add_cpu(const size_t *idx, size_t n, const double *cpu,
		      double from, double to, double *sum)
{
	size_t lo = (size_t)floor(from * n + 0.5);
	size_t hi = (size_t)floor(to * n + 0.5);

	for (size_t k = lo; k < hi && k < n; k++)
		*sum += cpu[idx[k]];
}

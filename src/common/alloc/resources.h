/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * resources.h - multi-resource vectors (CPU, memory, GPU).
 *
 * Every task (a parameter server or a worker) and every capacity (a server's
 * free room, the cluster's total) is one vector. The hot helpers are inline
 * because the allocators and the placement call them per task.
 */
#ifndef OPTIMUS_RESOURCES_H
#define OPTIMUS_RESOURCES_H

#include <stdbool.h>

enum res_kind { RES_CPU = 0, RES_MEM = 1, RES_GPU = 2, RES_NUM = 3 };

typedef struct res_vec {
	double v[RES_NUM];
} res_vec_t;

/*
 * Relative slack when comparing sums of doubles against a capacity, so that
 * e.g. ten tasks of 0.1 CPU still fit in 1 CPU.
 */
#define RES_EPS 1e-9

static inline res_vec_t res_add(res_vec_t a, res_vec_t b)
{
	for (int r = 0; r < RES_NUM; r++)
		a.v[r] += b.v[r];
	return a;
}

static inline res_vec_t res_sub(res_vec_t a, res_vec_t b)
{
	for (int r = 0; r < RES_NUM; r++)
		a.v[r] -= b.v[r];
	return a;
}

/* p * ps + w * worker: the footprint of p parameter servers and w workers. */
static inline res_vec_t res_combo(res_vec_t ps, int p, res_vec_t worker, int w)
{
	res_vec_t out;
	for (int r = 0; r < RES_NUM; r++)
		out.v[r] = p * ps.v[r] + w * worker.v[r];
	return out;
}

static inline bool res_fits(res_vec_t need, res_vec_t avail)
{
	for (int r = 0; r < RES_NUM; r++)
		if (need.v[r] > avail.v[r] + RES_EPS * (1.0 + avail.v[r]))
			return false;
	return true;
}

static inline double res_dot(res_vec_t a, res_vec_t b)
{
	double s = 0.0;
	for (int r = 0; r < RES_NUM; r++)
		s += a.v[r] * b.v[r];
	return s;
}

res_vec_t res_make(double cpu, double mem, double gpu);
/* max_r d_r / cap_r; INFINITY when d needs a resource the capacity lacks. */
double res_dominant_share(res_vec_t d, res_vec_t cap);
/* sum_r v_r / scale_r over resources with scale_r > 0: a scalar "size". */
double res_norm_sum(res_vec_t v, res_vec_t scale);
/* All components finite and non-negative. */
bool res_is_valid(res_vec_t v);
bool res_is_zero(res_vec_t v);
/* Component-wise maximum. */
res_vec_t res_max(res_vec_t a, res_vec_t b);

#endif

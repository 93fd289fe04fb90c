/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* resources.c - multi-resource vector helpers (see resources.h). */
#include <math.h>

#include "alloc/resources.h"

res_vec_t res_make(double cpu, double mem, double gpu)
{
	res_vec_t v = { { [RES_CPU] = cpu, [RES_MEM] = mem, [RES_GPU] = gpu } };
	return v;
}

double res_dominant_share(res_vec_t d, res_vec_t cap)
{
	double share = 0.0;
	for (int r = 0; r < RES_NUM; r++) {
		if (d.v[r] <= 0.0)
			continue;
		if (cap.v[r] <= 0.0)
			return INFINITY;
		share = fmax(share, d.v[r] / cap.v[r]);
	}
	return share;
}

double res_norm_sum(res_vec_t v, res_vec_t scale)
{
	double s = 0.0;
	for (int r = 0; r < RES_NUM; r++)
		if (scale.v[r] > 0.0)
			s += v.v[r] / scale.v[r];
	return s;
}

bool res_is_valid(res_vec_t v)
{
	for (int r = 0; r < RES_NUM; r++)
		if (!isfinite(v.v[r]) || v.v[r] < 0.0)
			return false;
	return true;
}

bool res_is_zero(res_vec_t v)
{
	for (int r = 0; r < RES_NUM; r++)
		if (v.v[r] != 0.0)
			return false;
	return true;
}

res_vec_t res_max(res_vec_t a, res_vec_t b)
{
	for (int r = 0; r < RES_NUM; r++)
		a.v[r] = fmax(a.v[r], b.v[r]);
	return a;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* cap.c - the most one job may hold (see cap.h). */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "alloc/cap.h"

void cap_init(job_cap_t *c)
{
	memset(c, 0, sizeof(*c));
	for (int r = 0; r < RES_NUM; r++)
		c->total.v[r] = c->per_server.v[r] = INFINITY;
	c->servers = INFINITY;
}

/* *bound = v with its words, if v is below it. */
static void cap_lower(double *bound, char *why, double v, const char *fmt,
		      va_list ap)
{
	if (!(v < *bound))
		return;
	*bound = v > 0.0 ? v : 0.0;
	vsnprintf(why, CAP_WHY_LEN, fmt, ap);
}

void cap_lower_total(job_cap_t *c, int r, double v, const char *fmt, ...)
{
	va_list ap;

	if (r < 0 || r >= RES_NUM)
		return;
	va_start(ap, fmt);
	cap_lower(&c->total.v[r], c->why_total[r], v, fmt, ap);
	va_end(ap);
}

void cap_lower_per_server(job_cap_t *c, int r, double v, const char *fmt,
			  ...)
{
	va_list ap;

	if (r < 0 || r >= RES_NUM)
		return;
	va_start(ap, fmt);
	cap_lower(&c->per_server.v[r], c->why_per_server[r], v, fmt, ap);
	va_end(ap);
}

void cap_lower_servers(job_cap_t *c, double v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cap_lower(&c->servers, c->why_servers, floor(v), fmt, ap);
	va_end(ap);
}

bool cap_is_set(const job_cap_t *c)
{
	if (isfinite(c->servers))
		return true;
	for (int r = 0; r < RES_NUM; r++)
		if (isfinite(c->total.v[r]) || isfinite(c->per_server.v[r]))
			return true;
	return false;
}

bool cap_allows(const job_cap_t *c, const res_vec_t *charge, size_t k)
{
	res_vec_t sum = res_make(0, 0, 0);

	if (!c)
		return true;
	if ((double)k > c->servers)
		return false;
	for (size_t i = 0; i < k; i++) {
		if (!res_fits(charge[i], c->per_server))
			return false;
		sum = res_add(sum, charge[i]);
	}
	return res_fits(sum, c->total);
}

const char *cap_why_over(const job_cap_t *c, res_vec_t least, res_vec_t task)
{
	if (!c)
		return NULL;
	if (c->servers < 1.0)
		return c->why_servers;
	for (int r = 0; r < RES_NUM; r++)
		if (task.v[r] > c->per_server.v[r] + RES_EPS)
			return c->why_per_server[r];
	for (int r = 0; r < RES_NUM; r++)
		if (least.v[r] > c->total.v[r] + RES_EPS)
			return c->why_total[r];
	return NULL;
}

int cap_tasks_in_total(const job_cap_t *c, res_vec_t d)
{
	double n = INFINITY;

	if (!c)
		return INT_MAX;
	for (int r = 0; r < RES_NUM; r++)
		if (d.v[r] > 0.0)
			n = fmin(n, floor(c->total.v[r] / d.v[r] + 1e-9));
	return n < (double)INT_MAX ? (int)n : INT_MAX;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * alloc/quality.c - quality-driven allocation (Algorithm 1 of the
 * quality-driven scheduling paper).
 *
 * Every job starts with one unit, or its min_units (in input order, while
 * units last: a fair share guaranteed to it, plan/plan_fair.c); then
 * each remaining unit goes to the job whose predicted loss drops the most
 * with one more unit, weight_j * (Loss_j(a_j) - Loss_j(a_j + 1)). As in
 * Algorithm 1 the loop runs while units remain: it does not stop on a
 * non-positive reduction, only when every job reached its max_units.
 * A max-heap holds one entry per job; only the job that grew is re-keyed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "alloc/alloc.h"
#include "util/heap.h"
#include "util/errmsg.h"

static double quality_weight(const alloc_job_t *job)
{
	return job->weight > 0.0 ? job->weight : 1.0;
}

static double quality_gain(const alloc_job_t *job, int units)
{
	double now = job->loss_after(job->loss_ctx, units);
	double next = job->loss_after(job->loss_ctx, units + 1);

	return quality_weight(job) * (now - next);
}

static void quality_refresh(heap_t *h, const alloc_job_t *job, uint32_t i,
			    int units)
{
	if (job->max_units > 0 && units >= job->max_units)
		heap_remove(h, i);
	else
		heap_set(h, i, quality_gain(job, units));
}

static int quality_check(const alloc_job_t *jobs, size_t n,
			 const alloc_params_t *prm, alloc_result_t *out)
{
	if ((n && !jobs) || !prm || prm->total_units < 0)
		return errmsg_set(out->err, sizeof(out->err), -EINVAL,
				  "invalid jobs or units");
	for (size_t i = 0; i < n; i++) {
		if (jobs[i].loss_after && jobs[i].weight >= 0.0 &&
		    isfinite(jobs[i].weight))
			continue;
		return errmsg_set(out->err, sizeof(out->err), -EINVAL,
				  "job %u: no loss function or bad weight",
				  jobs[i].id);
	}
	return 0;
}

static void quality_loop(const alloc_job_t *jobs, heap_t *h, long left,
			 alloc_result_t *out)
{
	uint32_t i;

	while (left > 0 && heap_top(h, &i, NULL)) {
		alloc_grant_t *g = &out->grants[i];
		g->units++;
		left--;
		out->units_used++;
		out->steps++;
		quality_refresh(h, &jobs[i], i, g->units);
	}
}

int alloc_quality_run(const alloc_job_t *jobs, size_t n,
		      const alloc_params_t *prm, alloc_result_t *out)
{
	heap_t h;
	long left;
	int rc = alloc_result_init(out, jobs, n);

	if (rc || (rc = quality_check(jobs, n, prm, out)))
		return rc;
	if (heap_init(&h, n))
		return -ENOMEM;
	left = prm->total_units;
	for (size_t i = 0; i < n; i++) {
		long first = jobs[i].min_units > 1 ? jobs[i].min_units : 1;

		if (left == 0) {
			out->grants[i].status = ALLOC_MIN_UNFIT;
			out->nleft_out++;
			continue;
		}
		if (first > left)
			first = left;
		out->grants[i].units = (int)first;
		out->units_used += first;
		left -= first;
		quality_refresh(&h, &jobs[i], i, (int)first);
	}
	quality_loop(jobs, &h, left, out);
	heap_free(&h);
	return 0;
}

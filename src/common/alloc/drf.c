/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * alloc/drf.c - the fairness baseline: Dominant Resource Fairness by
 * progressive filling.
 *
 * As in the Optimus paper's fairness scheduler, a job grows by PS + worker
 * pairs: after its minimum, the job with the lowest dominant share of the
 * cluster gets one more PS and one more worker. When one kind reached its
 * max (or no longer fits) the job adds single tasks of the other kind; a
 * job that can add nothing leaves the heap. DRF knows nothing of speed: it
 * fills until capacity or every job's max is reached. The heap is keyed by
 * minus the dominant share, so the lowest share comes first.
 */
#include <errno.h>

#include "alloc/alloc.h"
#include "util/heap.h"

typedef struct drf {
	const alloc_job_t *jobs;
	const alloc_params_t *prm;
	alloc_result_t *out;
	res_vec_t room;
	heap_t heap;
} drf_t;

/* Grow job i by a pair, or by the one task that still can; false if none. */
static bool drf_grow(drf_t *d, size_t i)
{
	const alloc_job_t *job = &d->jobs[i];
	alloc_grant_t *g = &d->out->grants[i];
	bool ps = alloc_task_fits(job, g, true, d->room);
	bool wk = alloc_task_fits(job, g, false, d->room);
	res_vec_t pair = res_add(job->ps_demand, job->worker_demand);

	if (ps && wk && !res_fits(pair, d->room))
		wk = false;   /* both alone fit, not together: add the PS */
	if (!ps && !wk)
		return false;
	if (ps) {
		alloc_add_task(job, g, true, d->out);
		d->room = res_sub(d->room, job->ps_demand);
	}
	if (wk) {
		alloc_add_task(job, g, false, d->out);
		d->room = res_sub(d->room, job->worker_demand);
	}
	return true;
}

static double drf_key(const drf_t *d, size_t i)
{
	const alloc_job_t *job = &d->jobs[i];
	const alloc_grant_t *g = &d->out->grants[i];

	return -res_dominant_share(res_combo(job->ps_demand, g->ps,
					     job->worker_demand, g->workers),
				   d->prm->capacity);
}

int alloc_drf_run(const alloc_job_t *jobs, size_t n,
		  const alloc_params_t *prm, alloc_result_t *out)
{
	drf_t d = { .jobs = jobs, .prm = prm, .out = out };
	uint32_t i;
	int rc = alloc_result_init(out, jobs, n);

	if (rc || (rc = alloc_check_task_jobs(jobs, n, prm, out)))
		return rc;
	alloc_grant_minimums(jobs, n, prm, out);
	if (heap_init(&d.heap, n))
		return -ENOMEM;
	d.room = res_sub(prm->capacity, out->used);
	for (size_t j = 0; j < n; j++)
		if (out->grants[j].status == ALLOC_OK)
			heap_set(&d.heap, j, drf_key(&d, j));
	while (heap_top(&d.heap, &i, NULL)) {
		if (drf_grow(&d, i))
			heap_set(&d.heap, i, drf_key(&d, i));
		else
			heap_remove(&d.heap, i);
	}
	heap_free(&d.heap);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * alloc/fifo.c - the FIFO baseline.
 *
 * Jobs are served in input order (the caller sorts them by arrival). Each
 * gets its requested size: (req_ps, req_workers) when set, else its max,
 * else its min (at least 1 + 1). The first job whose request does not fit
 * blocks the queue: it and every job after it wait, as strict FIFO does.
 */
#include "alloc/alloc.h"

static int fifo_size(int req, int max, int min)
{
	int n = req > 0 ? req : (max > 0 ? max : min);

	if (n < min)
		n = min;
	if (max > 0 && n > max)
		n = max;
	return n;
}

int alloc_fifo_run(const alloc_job_t *jobs, size_t n,
		   const alloc_params_t *prm, alloc_result_t *out)
{
	res_vec_t room;
	bool blocked = false;
	int rc = alloc_result_init(out, jobs, n);

	if (rc || (rc = alloc_check_task_jobs(jobs, n, prm, out)))
		return rc;
	room = prm->capacity;
	for (size_t i = 0; i < n; i++) {
		const alloc_job_t *job = &jobs[i];
		alloc_grant_t *g = &out->grants[i];
		int p = job->no_ps ? 0 : fifo_size(job->req_ps, job->max_ps,
						   alloc_min_ps(job));
		int w = fifo_size(job->req_workers, job->max_workers,
				  alloc_min_workers(job));

		if (blocked) {
			g->status = ALLOC_WAITING;
			out->nleft_out++;
		} else {
			blocked = !alloc_grant_if_fits(job, p, w, &room, g,
						       ALLOC_WAITING, out);
		}
	}
	return 0;
}

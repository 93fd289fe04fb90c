/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * alloc.c - helpers shared by the allocators: result set-up, input checks,
 * minimum grants and one-task increments.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "util/errmsg.h"

void alloc_params_init(alloc_params_t *prm, res_vec_t capacity)
{
	memset(prm, 0, sizeof(*prm));
	prm->capacity = capacity;
	prm->damping = ALLOC_DAMPING_DEFAULT;
	prm->tetris_eps = ALLOC_TETRIS_EPS_DEFAULT;
}

int alloc_result_init(alloc_result_t *out, const alloc_job_t *jobs, size_t n)
{
	memset(out, 0, sizeof(*out));
	out->grants = calloc(n ? n : 1, sizeof(*out->grants));
	if (!out->grants)
		return errmsg_set(out->err, sizeof(out->err), -ENOMEM,
				  "out of memory for %zu jobs", n);
	out->njobs = n;
	for (size_t i = 0; i < n; i++)
		out->grants[i].id = jobs[i].id;
	return 0;
}

void alloc_result_free(alloc_result_t *out)
{
	free(out->grants);
	out->grants = NULL;
	out->njobs = 0;
}

int alloc_min_ps(const alloc_job_t *job)
{
	if (job->no_ps)
		return 0;
	return job->min_ps > 1 ? job->min_ps : 1;
}

int alloc_min_workers(const alloc_job_t *job)
{
	return job->min_workers > 1 ? job->min_workers : 1;
}

bool alloc_below_max(int count, int max)
{
	return max <= 0 || count < max;
}

static int alloc_check_job(const alloc_job_t *j, alloc_result_t *out)
{
	const char *why = NULL;

	if (!j->speed)
		why = "no speed function";
	else if (!(j->remaining_steps >= 0.0) || !isfinite(j->remaining_steps))
		why = "remaining steps must be finite and >= 0";
	else if (!res_is_valid(j->ps_demand) || !res_is_valid(j->worker_demand))
		why = "task demands must be finite and >= 0";
	else if ((!j->no_ps && res_is_zero(j->ps_demand)) ||
		 res_is_zero(j->worker_demand))
		why = "a task must demand some resource";
	else if (j->max_ps > 0 && j->max_ps < alloc_min_ps(j))
		why = "max PS below min PS";
	else if (j->max_workers > 0 && j->max_workers < alloc_min_workers(j))
		why = "max workers below min workers";
	if (!why)
		return 0;
	return errmsg_set(out->err, sizeof(out->err), -EINVAL,
			  "job %u: %s", j->id, why);
}

int alloc_check_task_jobs(const alloc_job_t *jobs, size_t n,
			  const alloc_params_t *prm, alloc_result_t *out)
{
	if ((n && !jobs) || !prm || !res_is_valid(prm->capacity))
		return errmsg_set(out->err, sizeof(out->err), -EINVAL,
				  "invalid jobs or capacity");
	for (size_t i = 0; i < n; i++) {
		int rc = alloc_check_job(&jobs[i], out);
		if (rc)
			return rc;
	}
	return 0;
}

double alloc_speed(const alloc_job_t *job, int p, int w)
{
	double f = (p > 0 || job->no_ps) && w > 0 ?
			   job->speed(job->speed_ctx, p, w) : 0.0;

	return f > 0.0 && isfinite(f) ? f : 0.0;
}

/*
 * Q / f(p, w). A non-positive or non-finite speed means the job would never
 * finish: its completion time is infinite.
 */
double alloc_jct(const alloc_job_t *job, int p, int w)
{
	double f = job->speed(job->speed_ctx, p, w);

	if (!(f > 0.0) || !isfinite(f))
		return INFINITY;
	return job->remaining_steps / f;
}

bool alloc_grant_if_fits(const alloc_job_t *job, int p, int w,
			 res_vec_t *room, alloc_grant_t *g,
			 enum alloc_status unfit, alloc_result_t *out)
{
	res_vec_t need = res_combo(job->ps_demand, p, job->worker_demand, w);

	if (!res_fits(need, *room)) {
		g->status = unfit;
		out->nleft_out++;
		return false;
	}
	g->ps = p;
	g->workers = w;
	*room = res_sub(*room, need);
	out->used = res_add(out->used, need);
	return true;
}

void alloc_grant_minimums(const alloc_job_t *jobs, size_t n,
			  const alloc_params_t *prm, alloc_result_t *out)
{
	res_vec_t room = prm->capacity;

	for (size_t i = 0; i < n; i++)
		(void)alloc_grant_if_fits(&jobs[i], alloc_min_ps(&jobs[i]),
					  alloc_min_workers(&jobs[i]), &room,
					  &out->grants[i], ALLOC_MIN_UNFIT, out);
}

bool alloc_task_fits(const alloc_job_t *job, const alloc_grant_t *g,
		     bool is_ps, res_vec_t room)
{
	if (is_ps)
		return !job->no_ps && alloc_below_max(g->ps, job->max_ps) &&
		       res_fits(job->ps_demand, room);
	return alloc_below_max(g->workers, job->max_workers) &&
	       res_fits(job->worker_demand, room);
}

void alloc_add_task(const alloc_job_t *job, alloc_grant_t *g, bool is_ps,
		    alloc_result_t *out)
{
	if (is_ps) {
		g->ps++;
		out->used = res_add(out->used, job->ps_demand);
	} else {
		g->workers++;
		out->used = res_add(out->used, job->worker_demand);
	}
	out->steps++;
}

double alloc_total_jct(const alloc_job_t *jobs, const alloc_result_t *res)
{
	double total = 0.0;

	for (size_t i = 0; i < res->njobs; i++) {
		const alloc_grant_t *g = &res->grants[i];
		if (g->status == ALLOC_OK && (g->ps > 0 || jobs[i].no_ps) &&
		    g->workers > 0)
			total += alloc_jct(&jobs[i], g->ps, g->workers);
	}
	return total;
}

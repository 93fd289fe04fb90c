/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * alloc/tetris.c - the Tetris baseline (multi-resource packing + SRTF).
 *
 * After the minimums, each step adds the one task (a PS or a worker of some
 * job) with the highest Tetris score
 *
 *     score = align + eps * mean_align * srtf
 *     align = sum_r (demand_r / cap_r) * (room_r / cap_r)
 *     srtf  = T_min / T_j,  T_j = Q_j / f_j(p_j, w_j)
 *
 * i.e. the dot product of the task demand and the remaining capacity (both
 * normalized by the cluster capacity), plus the SRTF preference for jobs
 * with the shortest remaining time, weighted as in the Tetris paper by eps
 * times the mean alignment so the two terms are commensurate. A task is a
 * candidate when it fits, stays within the job's max and makes the job
 * faster (Tetris packs tasks a job asks for; a DL job "asks" for any task
 * that speeds it up). The alignment of every job changes with the room, so
 * each step rescans the jobs: O(steps * jobs), fine for a baseline.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "alloc/alloc.h"

typedef struct tetris {
	const alloc_job_t *jobs;
	size_t n;
	const alloc_params_t *prm;
	alloc_result_t *out;
	res_vec_t room;
	double *speed;      /* f(p, w) now */
	double *speed_ps;   /* f(p + 1, w) */
	double *speed_wk;   /* f(p, w + 1) */
} tetris_t;

static void tetris_cache(tetris_t *t, size_t i)
{
	const alloc_job_t *job = &t->jobs[i];
	const alloc_grant_t *g = &t->out->grants[i];

	t->speed[i] = job->speed(job->speed_ctx, g->ps, g->workers);
	t->speed_ps[i] = job->speed(job->speed_ctx, g->ps + 1, g->workers);
	t->speed_wk[i] = job->speed(job->speed_ctx, g->ps, g->workers + 1);
}

static bool tetris_candidate(const tetris_t *t, size_t i, bool is_ps)
{
	const alloc_grant_t *g = &t->out->grants[i];

	if (g->status != ALLOC_OK)
		return false;
	if ((is_ps ? t->speed_ps[i] : t->speed_wk[i]) <= t->speed[i])
		return false;
	return alloc_task_fits(&t->jobs[i], g, is_ps, t->room);
}

static double tetris_align(const tetris_t *t, size_t i, bool is_ps)
{
	res_vec_t d = is_ps ? t->jobs[i].ps_demand : t->jobs[i].worker_demand;
	res_vec_t cap = t->prm->capacity;
	double s = 0.0;

	for (int r = 0; r < RES_NUM; r++)
		if (cap.v[r] > 0.0)
			s += d.v[r] / cap.v[r] * (t->room.v[r] / cap.v[r]);
	return s;
}

static double tetris_remaining(const tetris_t *t, size_t i)
{
	if (!(t->speed[i] > 0.0))
		return INFINITY;
	return t->jobs[i].remaining_steps / t->speed[i];
}

static double tetris_srtf(double tmin, double ti)
{
	if (ti == 0.0)
		return 1.0;
	return isfinite(ti) ? tmin / ti : 0.0;
}

/* One rescan; false when no task is a candidate. */
static bool tetris_pick(const tetris_t *t, size_t *best_i, bool *best_ps)
{
	double sum = 0.0, tmin = INFINITY, best = -INFINITY;
	size_t count = 0;

	for (size_t i = 0; i < t->n; i++)
		for (int k = 0; k < 2; k++)
			if (tetris_candidate(t, i, k)) {
				sum += tetris_align(t, i, k);
				count++;
				tmin = fmin(tmin, tetris_remaining(t, i));
			}
	bool found = false;

	if (count == 0)
		return false;
	for (size_t i = 0; i < t->n; i++)
		for (int k = 0; k < 2; k++) {
			if (!tetris_candidate(t, i, k))
				continue;
			double s = tetris_align(t, i, k) + t->prm->tetris_eps *
				   (sum / count) *
				   tetris_srtf(tmin, tetris_remaining(t, i));
			if (!found || s > best) {
				found = true;
				best = s;
				*best_i = i;
				*best_ps = k;
			}
		}
	return found;
}

int alloc_tetris_run(const alloc_job_t *jobs, size_t n,
		     const alloc_params_t *prm, alloc_result_t *out)
{
	tetris_t t = { .jobs = jobs, .n = n, .prm = prm, .out = out };
	size_t i = 0;
	bool is_ps = false;
	int rc = alloc_result_init(out, jobs, n);

	if (rc || (rc = alloc_check_task_jobs(jobs, n, prm, out)))
		return rc;
	alloc_grant_minimums(jobs, n, prm, out);
	t.room = res_sub(prm->capacity, out->used);
	t.speed = malloc((n + 1) * sizeof(double));
	t.speed_ps = malloc((n + 1) * sizeof(double));
	t.speed_wk = malloc((n + 1) * sizeof(double));
	if (!t.speed || !t.speed_ps || !t.speed_wk)
		rc = -ENOMEM;
	for (size_t j = 0; !rc && j < n; j++)
		tetris_cache(&t, j);
	while (!rc && tetris_pick(&t, &i, &is_ps)) {
		alloc_add_task(&jobs[i], &out->grants[i], is_ps, out);
		t.room = res_sub(t.room, is_ps ? jobs[i].ps_demand :
				 jobs[i].worker_demand);
		tetris_cache(&t, i);
	}
	free(t.speed);
	free(t.speed_ps);
	free(t.speed_wk);
	return rc;
}

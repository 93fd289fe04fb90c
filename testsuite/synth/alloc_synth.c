/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* alloc_synth.c - synthetic jobs and the naive greedy (alloc_synth.h). */
#include <math.h>

#include "alloc_synth.h"

double fixture_speed(void *ctx, int p, int w)
{
	const fixture_speed_t *s = ctx;

	return 1.0 / (s->th[0] * s->batch / w + s->th[1] +
		      s->th[2] * (double)w / p + s->th[3] * w + s->th[4] * p);
}

double fixture_loss(void *ctx, int units)
{
	const fixture_loss_t *l = ctx;

	return l->mu * pow(l->done + l->per_unit * units, -l->b) + l->c;
}

uint64_t fixture_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double fixture_uniform(uint64_t *state, double lo, double hi)
{
	return lo + (hi - lo) * (fixture_rand(state) >> 11) * 0x1.0p-53;
}

static void fixture_demands(alloc_job_t *job, uint64_t *st)
{
	job->ps_demand = res_make(fixture_uniform(st, 1, 4),
				  fixture_uniform(st, 2, 10), 0);
	if (fixture_rand(st) % 4 == 0)
		job->worker_demand = res_make(fixture_uniform(st, 1, 4),
					      fixture_uniform(st, 4, 16), 1);
	else
		job->worker_demand = res_make(fixture_uniform(st, 2, 6),
					      fixture_uniform(st, 4, 16), 0);
}

void fixture_jobs(alloc_job_t *jobs, fixture_speed_t *speeds,
		  fixture_loss_t *losses, size_t n, uint64_t seed)
{
	uint64_t st = seed;

	for (size_t i = 0; i < n; i++) {
		alloc_job_t *job = &jobs[i];
		fixture_speed_t *s = &speeds[i];
		fixture_loss_t *l = &losses[i];

		*job = (alloc_job_t){ .id = i + 1, .user = job };
		s->batch = 256;
		s->th[0] = fixture_uniform(&st, 0.01, 0.05);
		s->th[1] = fixture_uniform(&st, 0.05, 0.5);
		s->th[2] = fixture_uniform(&st, 0.05, 0.3);
		s->th[3] = fixture_uniform(&st, 0.002, 0.02);
		s->th[4] = fixture_uniform(&st, 0.002, 0.02);
		job->speed = fixture_speed;
		job->speed_ctx = s;
		job->remaining_steps = fixture_uniform(&st, 1e3, 1e5);
		fixture_demands(job, &st);
		job->early_stage = fixture_rand(&st) % 5 == 0;
		*l = (fixture_loss_t){
			.mu = fixture_uniform(&st, 0.5, 2),
			.b = fixture_uniform(&st, 0.3, 1.2),
			.c = fixture_uniform(&st, 0, 0.1),
			.done = fixture_uniform(&st, 1, 200),
			.per_unit = fixture_uniform(&st, 1, 20),
		};
		job->loss_after = fixture_loss;
		job->loss_ctx = l;
	}
}

/* Same arithmetic as alloc/optimus.c so that the choices match exactly. */
static double naive_gain(const alloc_job_t *job, const alloc_grant_t *g,
			 bool is_ps, const alloc_params_t *prm)
{
	double now = alloc_jct(job, g->ps, g->workers);
	double next = alloc_jct(job, g->ps + is_ps, g->workers + !is_ps);
	double share = res_dominant_share(is_ps ? job->ps_demand :
					  job->worker_demand, prm->capacity);
	double gain = (now - next) / share;

	if (isnan(gain))
		return -INFINITY;
	if (job->early_stage && gain > 0.0)
		gain *= prm->damping;
	return gain;
}

int fixture_naive_optimus(const alloc_job_t *jobs, size_t n,
			  const alloc_params_t *prm, alloc_result_t *out)
{
	int rc = alloc_result_init(out, jobs, n);

	if (rc || (rc = alloc_check_task_jobs(jobs, n, prm, out)))
		return rc;
	alloc_grant_minimums(jobs, n, prm, out);
	for (;;) {
		res_vec_t room = res_sub(prm->capacity, out->used);
		double best = 0.0;
		size_t bi = n;
		bool bps = false;

		for (size_t i = 0; i < n; i++) {
			alloc_grant_t *g = &out->grants[i];
			if (g->status != ALLOC_OK)
				continue;
			for (int k = 0; k <= 1; k++) {
				if (!alloc_task_fits(&jobs[i], g, k, room))
					continue;
				double gain = naive_gain(&jobs[i], g, k, prm);
				if (gain > best) {
					best = gain;
					bi = i;
					bps = k;
				}
			}
		}
		if (bi == n)
			return 0;
		alloc_add_task(&jobs[bi], &out->grants[bi], bps, out);
	}
}

/* Same arithmetic as alloc/rate.c so that the choices match exactly. */
static double naive_rate(const alloc_job_t *j, int p, int w)
{
	double f = (p > 0 || j->no_ps) && w > 0 ?
			   j->speed(j->speed_ctx, p, w) : 0.0;

	if (!(f > 0.0) || !isfinite(f))
		return 0.0;
	return f / fmax(j->remaining_steps, 1e-9);
}

static void naive_offer(const alloc_job_t *j, const alloc_params_t *prm,
			double now, double next, res_vec_t need, size_t i,
			int kind, int k, double *best, size_t *bi, int *bkind,
			int *bk)
{
	double share = res_dominant_share(need, prm->capacity);
	double g = share > 0.0 ? (next - now) / share : 0.0;

	if (j->early_stage && g > 0.0)
		g *= prm->damping;
	if (isfinite(g) && g > *best) {
		*best = g;
		*bi = i;
		*bkind = kind;
		*bk = k;
	}
}

/* Room is taken off step by step, as alloc/rate.c does (the same
 * rounding). */
static void naive_grant_min(const alloc_job_t *j, alloc_grant_t *g,
			    res_vec_t *room, alloc_result_t *out)
{
	res_vec_t need = res_combo(j->ps_demand, alloc_min_ps(j),
				   j->worker_demand, alloc_min_workers(j));

	g->ps = alloc_min_ps(j);
	g->workers = alloc_min_workers(j);
	g->status = ALLOC_OK;
	*room = res_sub(*room, need);
	out->used = res_add(out->used, need);
}

int fixture_naive_rate(const alloc_job_t *jobs, size_t n,
		       const alloc_params_t *prm, alloc_result_t *out)
{
	int rc = alloc_result_init(out, jobs, n);
	res_vec_t room = prm->capacity;

	if (rc || (rc = alloc_check_task_jobs(jobs, n, prm, out)))
		return rc;
	for (size_t i = 0; i < n; i++) {
		const alloc_job_t *j = &jobs[i];
		res_vec_t min = res_combo(j->ps_demand, alloc_min_ps(j),
					  j->worker_demand,
					  alloc_min_workers(j));
		out->grants[i].status = ALLOC_MIN_UNFIT;
		/* The minimums of the jobs that keep theirs come first. */
		if (j->keeps_min && res_fits(min, room))
			naive_grant_min(j, &out->grants[i], &room, out);
	}
	for (;;) {
		double best = 0.0;
		size_t bi = n;
		int bkind = 0, bk = 0;

		for (size_t i = 0; i < n; i++) {
			const alloc_job_t *j = &jobs[i];
			alloc_grant_t *g = &out->grants[i];
			if (g->status != ALLOC_OK) {
				int mp = alloc_min_ps(j);
				int mw = alloc_min_workers(j);
				res_vec_t min = res_combo(j->ps_demand, mp,
							  j->worker_demand,
							  mw);
				if (res_fits(min, room))
					naive_offer(j, prm, 0.0,
						    naive_rate(j, mp, mw), min,
						    i, 0, 0, &best, &bi,
						    &bkind, &bk);
				continue;
			}
			double now = naive_rate(j, g->ps, g->workers);
			if (alloc_task_fits(j, g, true, room))
				naive_offer(j, prm, now, naive_rate(j, g->ps + 1,
					    g->workers), j->ps_demand, i, 1, 0,
					    &best, &bi, &bkind, &bk);
			for (int k = 1; k <= (j->no_ps ? ALLOC_BUNDLE : 1);
			     k++) {
				res_vec_t need = res_combo(j->worker_demand, k,
							   j->ps_demand, 0);
				if ((j->max_workers > 0 &&
				     g->workers + k > j->max_workers) ||
				    !res_fits(need, room))
					break;
				naive_offer(j, prm, now, naive_rate(j, g->ps,
					    g->workers + k), need, i, 2, k,
					    &best, &bi, &bkind, &bk);
			}
		}
		if (bi == n)
			break;
		const alloc_job_t *j = &jobs[bi];
		if (bkind == 0)
			naive_grant_min(j, &out->grants[bi], &room, out);
		for (int k = 0; bkind && k < (bkind == 1 ? 1 : bk); k++) {
			alloc_add_task(j, &out->grants[bi], bkind == 1, out);
			room = res_sub(room, bkind == 1 ? j->ps_demand :
					     j->worker_demand);
		}
	}
	for (size_t i = 0; i < n; i++)
		if (out->grants[i].status != ALLOC_OK)
			out->nleft_out++;
	return 0;
}

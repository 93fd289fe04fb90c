/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_alloc.c - from job models to allocator input (speeds, losses,
 * bounds from caps), and the allocation of a subset of the jobs with the
 * policies' allocators (doc/design/planning.md): the plan's policy allocates the
 * jobs in tasks; jobs whose rules allocate in units (Algorithm 1,
 * plan_policy_quality.c) are allocated apart, on a share of the capacity
 * in proportion to the number of jobs of each kind.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plan/plan_priv.h"

static double plan_speed_cb(void *ctx, int p, int w)
{
	const plan_cb_t *cb = ctx;
	int n = job_model_speed_p(cb->model, p, w, cb->node_workers);

	return plan_explore_speed(cb, w, n, job_model_speed(cb->model,
							    cb->profiles, n,
							    w));
}

int plan_speed_p(const plan_ctx_t *c, size_t i, int ps, int workers)
{
	return job_model_speed_p(c->jobs[i].model, ps, workers,
				 c->cb[i].node_workers);
}

/* Whole tasks of demand d in v (the scarcest resource decides). */
static int plan_tasks_in(res_vec_t v, res_vec_t d)
{
	double n = INFINITY;

	for (int r = 0; r < RES_NUM; r++)
		if (d.v[r] > 0.0)
			n = fmin(n, floor(v.v[r] / d.v[r] + 1e-9));
	return isfinite(n) && n >= 1.0 ? (n > 1e6 ? 1000000 : (int)n) : 1;
}

/*
 * A server's size is its free room plus what the running jobs of the plan
 * use there: *big gets the largest, resource by resource. False when out
 * of memory.
 */
static bool plan_biggest_server(const plan_ctx_t *c, res_vec_t *big)
{
	res_vec_t *size = calloc(c->nservers + 1, sizeof(*size));

	if (!size)
		return false;
	for (size_t s = 0; s < c->nservers; s++)
		size[s] = c->free0[s];
	for (size_t i = 0; i < c->n; i++)
		for (size_t k = 0; c->jobs[i].running && k < c->jobs[i].nslots;
		     k++)
			if (c->jobs[i].slots[k].server < c->nservers)
				size[c->jobs[i].slots[k].server] = res_add(
					size[c->jobs[i].slots[k].server],
					plan_slot_usage(c, i, k));
	*big = res_make(0, 0, 0);
	for (size_t s = 0; s < c->nservers; s++)
		*big = res_max(*big, size[s]);
	free(size);
	return true;
}

/*
 * An all-reduce job placed on the fewest servers (Theorem 1) has as many
 * workers per server as the largest one holds.
 */
void plan_node_workers(plan_ctx_t *c)
{
	res_vec_t big;

	if (!plan_biggest_server(c, &big))
		return;		/* out of memory: one node per job assumed */
	for (size_t i = 0; i < c->n; i++)
		if (c->aj[i].no_ps)
			c->cb[i].node_workers = plan_tasks_in(big,
							c->aj[i].worker_demand);
}

/* Beyond any job's task count: a bound this large bounds nothing. */
#define PLAN_CAP_TASKS_NONE 1000000

static int plan_cap_min(double a, double b)
{
	double m = fmin(a, b);

	return m < PLAN_CAP_TASKS_NONE ? (int)m : PLAN_CAP_TASKS_NONE;
}

/* A bound from the cap lowers the job's max (0: none), never below its
 * minimum (the minimum is within the cap: plan_cap_bound). */
static void plan_cap_lower(int *max, int bound, int min)
{
	if (bound >= PLAN_CAP_TASKS_NONE)
		return;
	if (bound < min)
		bound = min;
	if (*max <= 0 || bound < *max)
		*max = bound;
}

/*
 * A PS job's PS p and workers w, each at most its own bound, lowered
 * together until both fit the cap in all and p + w the task bound: each
 * step takes one task off the kind further above its minimum (relative
 * to its bound), so that neither kind is starved for the other.
 */
static void plan_cap_ps_job(alloc_job_t *a, const job_cap_t *cap, int tasks)
{
	int minp = alloc_min_ps(a), minw = alloc_min_workers(a);
	int p0 = plan_cap_min(a->max_ps > 0 ? a->max_ps : INFINITY,
			      fmin(cap_tasks_in_total(cap, a->ps_demand),
				   tasks));
	int w0 = plan_cap_min(a->max_workers > 0 ? a->max_workers : INFINITY,
			      fmin(cap_tasks_in_total(cap, a->worker_demand),
				   tasks));
	int p = p0 < minp ? minp : p0, w = w0 < minw ? minw : w0;

	while ((p > minp || w > minw) &&
	       (!res_fits(plan_need(a, p, w), cap->total) ||
		(double)p + w > (double)tasks)) {
		if (w <= minw ||
		    (p > minp && (double)(p - minp) * (w0 - minw + 1) >
				 (double)(w - minw) * (p0 - minp + 1)))
			p--;
		else
			w--;
	}
	plan_cap_lower(&a->max_ps, p < p0 ? p : p0, minp);
	plan_cap_lower(&a->max_workers, w < w0 ? w : w0, minw);
}

/*
 * A job's cap (its resource manager's limits) as its allocator bounds: no
 * more tasks than the cap holds in all, nor than its most servers could
 * hold (each the largest server, within the cap on one server). The
 * placement checks the exact charge (alloc/cap.h); these bounds keep the
 * allocators from granting what no placement within the cap could give.
 * A job whose minimum is over its cap is not allocated (over_cap says
 * why): it waits, or a running one keeps its size.
 */
void plan_cap_bound(plan_ctx_t *c)
{
	res_vec_t big;
	bool sized = plan_biggest_server(c, &big);

	for (size_t i = 0; i < c->n; i++) {
		const job_cap_t *cap = c->jobs[i].cap;
		alloc_job_t *a = &c->aj[i];
		res_vec_t task = a->no_ps ? a->worker_demand :
				 res_max(a->ps_demand, a->worker_demand);
		double tasks = INFINITY;

		if (!cap)
			continue;
		c->over_cap[i] = cap_why_over(cap, plan_min_need(a), task);
		if (c->over_cap[i])
			continue;
		if (sized && isfinite(cap->servers)) {
			res_vec_t one = big;

			for (int r = 0; r < RES_NUM; r++)
				one.v[r] = fmin(one.v[r], cap->per_server.v[r]);
			tasks = cap->servers * plan_tasks_in(one, task);
		}
		if (a->no_ps)
			plan_cap_lower(&a->max_workers, plan_cap_min(
				cap_tasks_in_total(cap, a->worker_demand),
				tasks), alloc_min_workers(a));
		else
			plan_cap_ps_job(a, cap, plan_cap_min(tasks, INFINITY));
		if (a->max_workers > 0 &&
		    (a->max_units <= 0 || a->max_workers < a->max_units))
			a->max_units = a->max_workers;
	}
}

/* Speeds cached up to this many workers (beyond: computed). */
#define PLAN_SPEED_CACHE 1024

static double plan_cached_speed_cb(void *ctx, int p, int w)
{
	plan_cb_t *cb = ctx;

	if (w < 0 || w >= cb->ncache)
		return cb->speed(ctx, p, w);
	if (isnan(cb->cache[w]))
		cb->cache[w] = cb->speed(ctx, p, w);
	return cb->cache[w];
}

/* An all-reduce job's speed depends on its workers only (the nodes follow
 * from them): one evaluation per count in a plan. */
int plan_speed_cache(plan_ctx_t *c)
{
	for (size_t i = 0; i < c->n; i++) {
		alloc_job_t *a = &c->aj[i];
		plan_cb_t *cb = &c->cb[i];
		int most = a->max_workers > 0 ? a->max_workers :
			   PLAN_SPEED_CACHE - 1;

		if (!a->no_ps)
			continue;
		cb->ncache = most < PLAN_SPEED_CACHE ? most + 1 :
			     PLAN_SPEED_CACHE;
		cb->cache = malloc((size_t)cb->ncache * sizeof(double));
		if (!cb->cache)
			return plan_fail(c->out, -ENOMEM, "out of memory");
		for (int w = 0; w < cb->ncache; w++)
			cb->cache[w] = NAN;
		cb->speed = a->speed;
		a->speed = plan_cached_speed_cb;
	}
	return 0;
}

static double plan_loss_cb(void *ctx, int units)
{
	const plan_cb_t *cb = ctx;

	return job_model_loss_after(cb->model, cb->profiles, cb->interval,
				    units);
}

static res_vec_t plan_task_res(const hints_res_t *r)
{
	return res_make(r->cpus, (double)r->mem_mb, r->gpus);
}

/* One allocator job per plan job, built once: the models stay read-only. */
void plan_alloc_build(plan_ctx_t *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const job_model_t *m = c->jobs[i].model;
		const optimus_hints_t *h = &m->hints;
		alloc_job_t *a = &c->aj[i];
		bool fitted;

		c->cb[i] = (plan_cb_t){ .model = m,
					.profiles = c->prm->profiles,
					.interval = c->prm->interval, .i = i };
		memset(a, 0, sizeof(*a));
		a->id = m->job_id;
		a->speed = plan_speed_cb;
		a->speed_ctx = &c->cb[i];
		a->remaining_steps = job_model_remaining_steps(m, &fitted);
		a->early_stage = !fitted;
		/* The plan never preempts: a running job keeps its minimum. */
		a->keeps_min = c->jobs[i].running;
		a->no_ps = hints_is_allreduce(h);
		/* an all-reduce job has no PS task to count */
		a->ps_demand = a->no_ps ? res_make(0, 0, 0) :
			       plan_task_res(&h->ps_res);
		a->worker_demand = plan_task_res(&h->worker_res);
		if (c->prm->uniform_task_cpus && !a->no_ps) {
			double cpus = fmax(a->ps_demand.v[RES_CPU],
					   a->worker_demand.v[RES_CPU]);
			a->ps_demand.v[RES_CPU] = cpus;
			a->worker_demand.v[RES_CPU] = cpus;
		}
		a->min_ps = (int)h->min_ps;
		a->max_ps = (int)h->max_ps;
		a->min_workers = (int)h->min_workers;
		a->max_workers = (int)h->max_workers;
		a->loss_after = plan_loss_cb;
		a->loss_ctx = &c->cb[i];
		a->weight = h->weight;
		a->max_units = (int)h->max_workers;
	}
}

/* A size limit (0: none) lowers the job's max, never below its min. */
static void plan_limit(alloc_job_t *a, int lim_ps, int lim_w)
{
	if (lim_ps > 0 && (a->max_ps <= 0 || lim_ps < a->max_ps))
		a->max_ps = lim_ps < alloc_min_ps(a) ? alloc_min_ps(a) : lim_ps;
	if (lim_w > 0 && (a->max_workers <= 0 || lim_w < a->max_workers))
		a->max_workers = lim_w < alloc_min_workers(a) ?
			alloc_min_workers(a) : lim_w;
	if (lim_w > 0 && (a->max_units <= 0 || lim_w < a->max_units))
		a->max_units = a->max_workers;
}

/*
 * Run one allocator over the jobs idx[0..k) (in order) of the jobs in[]
 * this allocation takes, the group having `frac` of the capacity; copy the
 * grants. Under contention between users each one's fair share is
 * guaranteed first (plan_fair.c).
 */
static int plan_alloc_group(plan_ctx_t *c, const bool *in, const size_t *idx,
			    size_t k, res_vec_t cap, long units, double frac,
			    alloc_run_fn run, bool units_based,
			    alloc_grant_t *grants)
{
	alloc_job_t *jobs;
	alloc_grant_t *fair;
	alloc_params_t prm;
	alloc_result_t res = { 0 };
	int rc;

	if (!k)
		return 0;
	jobs = malloc(k * sizeof(*jobs));
	fair = malloc(k * sizeof(*fair));
	if (!jobs || !fair) {
		free(jobs);
		free(fair);
		return -ENOMEM;
	}
	for (size_t j = 0; j < k; j++) {
		jobs[j] = c->aj[idx[j]];
		plan_limit(&jobs[j], c->lim_ps[idx[j]], c->lim_w[idx[j]]);
	}
	alloc_params_init(&prm, cap);
	prm.damping = c->prm->damping;
	prm.total_units = units;
	rc = plan_fair_guarantee(c, in, idx, k, jobs, cap, units, frac, run,
				 units_based, fair);
	if (!rc && (rc = run(jobs, k, &prm, &res)))
		plan_fail(c->out, rc, "allocation: %.140s", res.err);
	if (!rc) {
		plan_fair_hold(fair, res.grants, k);
		for (size_t j = 0; j < k; j++)
			grants[idx[j]] = res.grants[j];
	}
	alloc_result_free(&res);
	free(jobs);
	free(fair);
	return rc;
}

static res_vec_t plan_scale(res_vec_t v, double f)
{
	for (int r = 0; r < RES_NUM; r++)
		v.v[r] *= f;
	return v;
}

int plan_alloc(plan_ctx_t *c, const bool *in, res_vec_t cap,
	       const res_vec_t *room, size_t nroom, alloc_grant_t *grants)
{
	size_t *task = malloc((c->n + 1) * sizeof(*task));
	size_t *qual = malloc((c->n + 1) * sizeof(*qual));
	size_t nt = 0, nq = 0;
	double t0 = plan_clock(), share;
	int rc = -ENOMEM;

	if (!task || !qual)
		goto out;
	for (size_t k = 0; k < c->n; k++) {
		size_t i = c->order[k];

		grants[i] = (alloc_grant_t){ .id = c->aj[i].id,
					     .status = ALLOC_MIN_UNFIT };
		if (!in[i] || c->over_cap[i])
			continue;
		if (c->rules[i]->allocate_units)
			qual[nq++] = i;
		else
			task[nt++] = i;
	}
	/* Both kinds present: shares by job counts. */
	share = nt + nq ? 1.0 / (nt + nq) : 0.0;
	rc = plan_alloc_group(c, in, task, nt, plan_scale(cap, nt * share), 0,
			      nt * share, c->policy->allocator ?
			      c->policy->allocator(c) : c->policy->allocate,
			      false, grants);
	if (!rc && nq) {
		const plan_policy_ops_t *q = c->rules[qual[0]];

		rc = plan_alloc_group(c, in, qual, nq,
				      plan_scale(cap, nq * share),
				      q->units(c, qual, nq, room, nroom,
					       nq * share), nq * share,
				      q->allocate_units, true, grants);
	}
out:
	free(task);
	free(qual);
	c->alloc_s += plan_clock() - t0;
	return rc;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_fair.c - fair shares between users (doc/design/planning.md "Fair shares
 * between users").
 *
 * The policies' greedy objectives (Optimus' Eqn. 9, the quality-driven loss
 * reduction, goodput's completion rate) give the next task to the job whose
 * model predicts the largest gain, and a job's model is what it reports and
 * declares: its speeds, weight=, a profile. Left to them, one user's claims
 * take another user's GPUs. So under contention every user with demand is
 * first guaranteed min(demand, its fair share of the capacity), and the
 * policy's own allocation shares only what is left above these floors.
 *
 * A user's fair fraction is water-filled over the users with demand, in
 * proportion to their share weights (the adapter's; sched/optimus passes
 * Slurm's normalized association shares): a user asking less than its
 * share keeps its demand and leaves the rest to the others. Demand and
 * shares are dominant shares of the plan's capacity (free room plus what
 * the running jobs hold), so on a GPU cluster the fraction is of the GPUs.
 * With one user, or with demands the capacity holds, the policy alone
 * decides.
 *
 * The guarantee is an allocation by the policy itself of each user's jobs
 * alone on its fraction of the room, topped up to the whole fraction (or
 * the jobs' largest sizes) where the policy's objective stops short: a
 * share is the user's whether or not its jobs' models predict a gain from
 * it, as a GPU is granted to whoever asked for it. Its grants then become
 * those jobs' minimums in the policy's run over the whole room (every
 * allocator grants minimums before it grows anyone), so the policy still
 * chooses among a user's own jobs and shares the surplus by its objective.
 * Should the policy's run still give a guaranteed job less (strict FIFO
 * blocks the queue), the guarantees alone are the allocation.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_priv.h"

/* Shares compared with this slack: a user at exactly its share holds it. */
#define FAIR_EPS 1e-9

/* A share weight: 0 (not given) is an equal share, a negative one none. */
static double fair_weight(double share)
{
	if (share < 0.0)
		return 0.0;
	return share > 0.0 && isfinite(share) ? share : 1.0;
}

/* Index of user `user` in users[0..*n), added if new. */
static size_t fair_user_index(uint32_t *users, size_t *n, uint32_t user)
{
	for (size_t u = 0; u < *n; u++)
		if (users[u] == user)
			return u;
	users[*n] = user;
	return (*n)++;
}

/* Job i's demand: its needs at its largest size (INFINITY: no limit). */
static res_vec_t fair_demand(const plan_ctx_t *c, size_t i)
{
	const alloc_job_t *a = &c->aj[i];

	if (a->max_workers <= 0 || (!a->no_ps && a->max_ps <= 0))
		return res_make(INFINITY, INFINITY, INFINITY);
	return plan_need(a, a->no_ps ? 0 : a->max_ps, a->max_workers);
}

/*
 * Water-filling: users whose demand is below their weighted share of what
 * is left get their demand; the rest share what then remains by weight.
 */
static void fair_fill(const double *demand, const double *weight, size_t n,
		      double *frac, bool *done)
{
	double left = 1.0;

	for (size_t u = 0; u < n; u++) {
		done[u] = !(demand[u] > 0.0);
		frac[u] = 0.0;
	}
	for (;;) {
		double w = 0.0, taken = 0.0;
		bool capped = false;

		for (size_t u = 0; u < n; u++)
			if (!done[u])
				w += weight[u];
		if (!(w > 0.0))
			return;
		for (size_t u = 0; u < n; u++)
			if (!done[u] && demand[u] <= left * weight[u] / w) {
				frac[u] = demand[u];
				taken += demand[u];
				done[u] = capped = true;
			}
		left -= taken;
		if (capped)
			continue;
		for (size_t u = 0; u < n; u++)
			if (!done[u])
				frac[u] = left * weight[u] / w;
		return;
	}
}

int plan_fair_setup(plan_ctx_t *c)
{
	size_t n = c->n + 1;
	uint32_t *users = calloc(n, sizeof(*users));
	res_vec_t *need = calloc(n, sizeof(*need));
	double *demand = calloc(n, sizeof(*demand));
	double *weight = calloc(n, sizeof(*weight));
	bool *done = calloc(n, sizeof(*done));
	double total = 0.0;
	size_t asking = 0;
	int rc = 0;

	c->fair_user = calloc(n, sizeof(*c->fair_user));
	c->fair_frac = calloc(n, sizeof(*c->fair_frac));
	c->fair_held = calloc(n, sizeof(*c->fair_held));
	if (!users || !need || !demand || !weight || !done || !c->fair_user ||
	    !c->fair_frac || !c->fair_held) {
		rc = plan_fail(c->out, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < c->n; i++) {
		const plan_job_t *j = &c->jobs[i];
		size_t u = fair_user_index(users, &c->nusers, j->user);

		c->fair_user[i] = u;
		/* The user's weight: the largest its jobs carry (an adapter
		 * gives the same to every job of a user). */
		weight[u] = fmax(weight[u], fair_weight(j->share));
		/* A finished job still listed asks for nothing. */
		if (!j->running && j->model->phase == JM_DONE)
			continue;
		need[u] = res_add(need[u], fair_demand(c, i));
	}
	for (size_t u = 0; u < c->nusers; u++) {
		double d = res_dominant_share(need[u], c->capacity);

		demand[u] = isfinite(d) ? fmin(d, 1.0) :
			    res_is_zero(need[u]) ? 0.0 : 1.0;
		total += demand[u];
		asking += demand[u] > 0.0;
	}
	/* Contention: two users or more whose demands the capacity cannot
	 * all hold. Otherwise each can have its demand: the policy decides. */
	c->contended = asking >= 2 && total > 1.0 + FAIR_EPS;
	fair_fill(demand, weight, c->nusers, c->fair_frac, done);
out:
	free(users);
	free(need);
	free(demand);
	free(weight);
	free(done);
	return rc;
}

/* Dominant share of the plan's capacity that v takes (0 when empty). */
static double fair_part(const plan_ctx_t *c, res_vec_t v)
{
	double d = res_dominant_share(v, c->capacity);

	return isfinite(d) ? d : res_is_zero(v) ? 0.0 : 1.0;
}

/*
 * The room user u is guaranteed in this allocation: its fraction of the
 * capacity (of the group's part of it, frac) less what its jobs outside
 * the allocation hold (kept jobs in pass 2), never below nothing.
 */
static res_vec_t fair_room(const plan_ctx_t *c, const bool *in, size_t u,
			   double frac)
{
	res_vec_t r;

	for (int k = 0; k < RES_NUM; k++)
		r.v[k] = c->capacity.v[k] * c->fair_frac[u] * frac;
	for (size_t i = 0; i < c->n; i++)
		if (c->fair_user[i] == u && c->jobs[i].running && !in[i])
			r = res_sub(r, c->usage[i]);
	for (int k = 0; k < RES_NUM; k++)
		r.v[k] = fmax(r.v[k], 0.0);
	return r;
}

/* The users' rooms within cap: scaled down where they add up beyond it. */
static void fair_rooms_fit(res_vec_t *room, const bool *has, size_t n,
			   res_vec_t cap)
{
	res_vec_t sum = res_make(0, 0, 0);

	for (size_t u = 0; u < n; u++)
		if (has[u])
			sum = res_add(sum, room[u]);
	for (int k = 0; k < RES_NUM; k++) {
		double f = sum.v[k] > cap.v[k] && sum.v[k] > 0.0 ?
			   fmax(cap.v[k], 0.0) / sum.v[k] : 1.0;

		for (size_t u = 0; u < n; u++)
			room[u].v[k] *= f;
	}
}

/* The smallest ratio room / cap over the resources cap has. */
static double fair_ratio(res_vec_t room, res_vec_t cap)
{
	double r = 1.0;

	for (int k = 0; k < RES_NUM; k++)
		if (cap.v[k] > 0.0)
			r = fmin(r, room.v[k] / cap.v[k]);
	return fmax(r, 0.0);
}

static bool fair_granted(const alloc_grant_t *g)
{
	return g->status == ALLOC_OK && (g->workers > 0 || g->units > 0);
}

/* The next job of jobs[0..m) to take one more worker on `left`: the one
 * with the least share of `room` (each job's own minimum first, in
 * order); m when none can. */
static size_t fair_next(const alloc_job_t *jobs, size_t m,
			const alloc_grant_t *g, res_vec_t left, res_vec_t room)
{
	size_t best = m;
	double least = INFINITY;

	for (size_t s = 0; s < m; s++) {
		const alloc_job_t *a = &jobs[s];
		double d;

		if (!fair_granted(&g[s])) {
			if (res_fits(plan_min_need(a), left))
				return s;
			continue;
		}
		if (!alloc_task_fits(a, &g[s], false, left))
			continue;
		d = res_dominant_share(plan_need(a, g[s].ps, g[s].workers),
				       room);
		if (d < least) {
			least = d;
			best = s;
		}
	}
	return best;
}

/*
 * The user's room used up to its jobs' largest sizes: what the policy left
 * of it goes to the user's jobs one worker at a time, a job without a
 * grant its minimum first, else the job holding the least.
 */
static void fair_top_up(const alloc_job_t *jobs, size_t m, alloc_grant_t *g,
			res_vec_t room)
{
	res_vec_t left = room;
	size_t s;

	for (s = 0; s < m; s++)
		if (fair_granted(&g[s]))
			left = res_sub(left, plan_need(&jobs[s], g[s].ps,
						       g[s].workers));
	while ((s = fair_next(jobs, m, g, left, room)) < m) {
		const alloc_job_t *a = &jobs[s];

		if (fair_granted(&g[s])) {
			g[s].workers++;
			left = res_sub(left, a->worker_demand);
			continue;
		}
		g[s].status = ALLOC_OK;
		g[s].ps = alloc_min_ps(a);
		g[s].workers = alloc_min_workers(a);
		left = res_sub(left, plan_min_need(a));
	}
}

/* User u's jobs among jobs[0..k) allocated on its room alone; each grant
 * becomes the job's minimum (guaranteed[j] the grant). */
static int fair_user_guarantee(plan_ctx_t *c, const size_t *idx, size_t k,
			       alloc_job_t *jobs, size_t u, res_vec_t room,
			       long units, alloc_run_fn run, bool units_based,
			       alloc_grant_t *guaranteed, alloc_job_t *sub,
			       size_t *at)
{
	alloc_params_t prm;
	alloc_result_t res;
	size_t m = 0;
	int rc;

	for (size_t j = 0; j < k; j++)
		if (c->fair_user[idx[j]] == u) {
			at[m] = j;
			sub[m++] = jobs[j];
		}
	if (!m)
		return 0;
	alloc_params_init(&prm, room);
	prm.damping = c->prm->damping;
	prm.total_units = units;
	rc = run(sub, m, &prm, &res);
	if (rc) {
		plan_fail(c->out, rc, "allocation of a fair share: %.120s",
			  res.err);
		alloc_result_free(&res);
		return rc;
	}
	/* Quality units: Algorithm 1 hands out every unit already. */
	if (!units_based)
		fair_top_up(sub, m, res.grants, room);
	for (size_t s = 0; s < m; s++) {
		const alloc_grant_t *g = &res.grants[s];
		alloc_job_t *a = &jobs[at[s]];

		if (!fair_granted(g))
			continue;
		guaranteed[at[s]] = *g;
		if (units_based) {
			a->min_units = g->units;
			continue;
		}
		if (!a->no_ps)
			a->min_ps = g->ps;
		a->min_workers = g->workers;
		a->keeps_min = true;
	}
	alloc_result_free(&res);
	return 0;
}

int plan_fair_guarantee(plan_ctx_t *c, const bool *in, const size_t *idx,
			size_t k, alloc_job_t *jobs, res_vec_t cap, long units,
			double frac, alloc_run_fn run, bool units_based,
			alloc_grant_t *guaranteed)
{
	size_t n = c->nusers + 1, users = 0;
	bool *has = calloc(n, sizeof(*has));
	res_vec_t *room = calloc(n, sizeof(*room));
	alloc_job_t *sub = malloc((k + 1) * sizeof(*sub));
	size_t *at = malloc((k + 1) * sizeof(*at));
	int rc = 0;

	for (size_t j = 0; j < k; j++)
		guaranteed[j] = (alloc_grant_t){ .id = jobs[j].id,
						 .status = ALLOC_MIN_UNFIT };
	if (!has || !room || !sub || !at) {
		rc = plan_fail(c->out, -ENOMEM, "out of memory");
		goto out;
	}
	if (!c->contended)
		goto out;
	for (size_t j = 0; j < k; j++) {
		size_t u = c->fair_user[idx[j]];

		users += !has[u];
		has[u] = true;
	}
	/* One user in this allocation: no one to be fair to. */
	if (users < 2)
		goto out;
	for (size_t u = 0; u < c->nusers; u++)
		if (has[u])
			room[u] = fair_room(c, in, u, frac);
	fair_rooms_fit(room, has, c->nusers, cap);
	for (size_t u = 0; !rc && u < c->nusers; u++)
		if (has[u])
			rc = fair_user_guarantee(c, idx, k, jobs, u, room[u],
						 (long)floor(units *
						 fair_ratio(room[u], cap)),
						 run, units_based, guaranteed,
						 sub, at);
out:
	free(has);
	free(room);
	free(sub);
	free(at);
	return rc;
}

void plan_fair_hold(const alloc_grant_t *guaranteed, alloc_grant_t *grants,
		    size_t k)
{
	for (size_t j = 0; j < k; j++) {
		const alloc_grant_t *f = &guaranteed[j];
		const alloc_grant_t *g = &grants[j];

		if (!fair_granted(f) ||
		    (g->status == ALLOC_OK && g->ps >= f->ps &&
		     g->workers >= f->workers && g->units >= f->units))
			continue;
		/* A guarantee not kept: the guarantees alone. */
		for (size_t i = 0; i < k; i++)
			grants[i] = guaranteed[i];
		return;
	}
}

/* Would job i take more room in this plan: a pending job pass 1 granted,
 * or a running one decided to grow? */
static bool fair_wants_more(const plan_ctx_t *c, size_t i)
{
	const alloc_grant_t *g = &c->grant1[i];

	if (!c->jobs[i].running)
		return c->state[i] == PS_PENDING && g->status == ALLOC_OK &&
		       g->workers > 0;
	return c->state[i] == PS_RESIZE &&
	       !res_fits(plan_need(&c->aj[i], g->ps, g->workers), c->usage[i]);
}

void plan_fair_pass1(plan_ctx_t *c)
{
	size_t n = c->nusers + 1;
	res_vec_t *held = calloc(n, sizeof(*held));
	bool *wants = calloc(n, sizeof(*wants));

	c->fair_owed = false;
	if (!held || !wants || !c->contended)
		goto out;
	for (size_t i = 0; i < c->n; i++) {
		size_t u = c->fair_user[i];

		if (c->jobs[i].running)
			held[u] = res_add(held[u], c->usage[i]);
		wants[u] = wants[u] || fair_wants_more(c, i);
	}
	for (size_t u = 0; u < c->nusers; u++) {
		c->fair_held[u] = fair_part(c, held[u]);
		if (wants[u] && c->fair_held[u] < c->fair_frac[u] - FAIR_EPS)
			c->fair_owed = true;
	}
out:
	free(held);
	free(wants);
}

bool plan_fair_yields(const plan_ctx_t *c, size_t i)
{
	size_t u;

	if (!c->fair_owed || !c->jobs[i].running)
		return false;
	u = c->fair_user[i];
	return c->fair_held[u] > c->fair_frac[u] + FAIR_EPS;
}

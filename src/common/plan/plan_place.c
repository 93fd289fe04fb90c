/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_place.c - placement of the jobs a plan starts or resizes, on the
 * room the kept jobs leave: Theorem 1 (placement.h), or, for the ablation
 * (plan_params_t.placement false), a first-fit spread that deals the tasks
 * out one by one over the servers in turn, as a default container
 * scheduler would, ignoring colocation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_priv.h"

/* Add one task to the job's slot on server s (slots kept per server). */
static void plan_slots_add(plan_slots_t *s, uint32_t server, bool is_ps)
{
	size_t k;

	for (k = 0; k < s->n && s->v[k].server != server; k++)
		;
	if (k == s->n)
		s->v[s->n++] = (place_slot_t){ server, 0, 0 };
	if (is_ps)
		s->v[k].ps++;
	else
		s->v[k].workers++;
}

/*
 * One task on the first server, from *next on, that holds it; *next moves
 * past it so that the tasks spread. False if no server holds it.
 */
static bool plan_spread_task(res_vec_t *room, size_t ns, size_t *next,
			     res_vec_t need, plan_slots_t *s, bool is_ps,
			     const plan_job_t *j)
{
	for (size_t t = 0; t < ns; t++) {
		size_t sv = (*next + t) % ns;

		if (j->has_closed && sv == j->closed_server)
			continue;
		if (res_fits(need, room[sv])) {
			room[sv] = res_sub(room[sv], need);
			plan_slots_add(s, (uint32_t)sv, is_ps);
			*next = (sv + 1) % ns;
			return true;
		}
	}
	return false;
}

/* A job that does not fit whole gives its tasks back. */
static int plan_spread_job(plan_ctx_t *c, size_t i, const alloc_grant_t *g,
			   res_vec_t *room, size_t *next)
{
	plan_slots_t *s = &c->placed[i];
	const alloc_job_t *a = &c->aj[i];
	int ntask = g->ps + g->workers;
	bool ok = true;

	s->v = calloc(ntask ? ntask : 1, sizeof(*s->v));
	if (!s->v)
		return -ENOMEM;
	for (int t = 0; ok && t < ntask; t++) {
		bool is_ps = t < g->ps;

		ok = plan_spread_task(room, c->nservers, next, is_ps ?
				      a->ps_demand : a->worker_demand, s, is_ps,
				      &c->jobs[i]);
	}
	if (ok) {
		s->ok = true;
		return 0;
	}
	for (size_t k = 0; k < s->n; k++)
		room[s->v[k].server] = res_add(room[s->v[k].server],
			plan_need(a, s->v[k].ps, s->v[k].workers));
	plan_slots_clear(s);
	return 0;
}

static int plan_place_spread(plan_ctx_t *c, const bool *which,
			     const alloc_grant_t *g, const res_vec_t *room0)
{
	res_vec_t *room = malloc((c->nservers + 1) * sizeof(*room));
	size_t next = 0;
	int rc = 0;

	if (!room)
		return -ENOMEM;
	memcpy(room, room0, c->nservers * sizeof(*room));
	for (size_t k = 0; !rc && k < c->n; k++) {
		size_t i = c->order[k];

		if (which[i])
			rc = plan_spread_job(c, i, &g[i], room, &next);
	}
	free(room);
	return rc;
}

static int plan_copy_assign(plan_slots_t *s, const place_assign_t *a)
{
	if (a->status != PLACE_OK)
		return 0;
	s->v = malloc((a->nslots ? a->nslots : 1) * sizeof(*s->v));
	if (!s->v)
		return -ENOMEM;
	memcpy(s->v, a->slots, a->nslots * sizeof(*s->v));
	s->n = a->nslots;
	s->ok = true;
	return 0;
}

static int plan_place_theorem1(plan_ctx_t *c, const bool *which,
			       const alloc_grant_t *g, const res_vec_t *room)
{
	place_job_t *pl = malloc((c->n + 1) * sizeof(*pl));
	size_t *idx = malloc((c->n + 1) * sizeof(*idx));
	place_result_t res;
	size_t k = 0;
	int rc = -ENOMEM;

	memset(&res, 0, sizeof(res));
	if (!pl || !idx)
		goto out;
	for (size_t j = 0; j < c->n; j++) {
		size_t i = c->order[j];

		if (!which[i])
			continue;
		pl[k] = plan_place_job(c, i, g[i].ps, g[i].workers);
		idx[k++] = i;
	}
	rc = placement_run(room, c->nservers, pl, k, &res);
	if (rc)
		plan_fail(c->out, rc, "placement: %.140s", res.err);
	for (size_t j = 0; !rc && j < k; j++)
		rc = plan_copy_assign(&c->placed[idx[j]], &res.jobs[j]);
	placement_result_free(&res);
out:
	free(pl);
	free(idx);
	return rc;
}

place_job_t plan_place_job(const plan_ctx_t *c, size_t i, int ps,
			   int workers)
{
	return (place_job_t){
		.id = c->aj[i].id, .ps_demand = c->aj[i].ps_demand,
		.worker_demand = c->aj[i].worker_demand, .ps = ps,
		.workers = workers, .same_on_each = c->prm->uniform_node_share,
		.separate = c->jobs[i].model->hints.layout ==
			    HINTS_LAYOUT_SEPARATE,
		.has_closed = c->jobs[i].has_closed,
		.closed_server = c->jobs[i].closed_server,
		.cap = c->jobs[i].cap,
	};
}

/*
 * Servers a placement of pj on room must see: those of `cand` (NULL: all)
 * that hold one of its tasks, and for each resource the first of them
 * with the most of it free (the placement weighs the resources by those
 * maxima). The others are never chosen. With cand NULL the placement is
 * the one on every server (ties go to the lower index either way).
 */
static size_t plan_place_servers(const plan_ctx_t *c, const place_job_t *pj,
				 const res_vec_t *room,
				 const plan_servers_t *cand, uint32_t *idx)
{
	size_t n = cand ? cand->n : c->nservers, most[RES_NUM] = { 0 }, k = 0;

	for (size_t q = 1; q < n; q++)
		for (int r = 0; r < RES_NUM; r++) {
			size_t s = cand ? cand->v[q] : q;
			size_t m = cand ? cand->v[most[r]] : most[r];

			if (room[s].v[r] > room[m].v[r])
				most[r] = q;
		}
	for (size_t q = 0; q < n; q++) {
		size_t s = cand ? cand->v[q] : q;
		bool keep = (pj->workers > 0 &&
			     res_fits(pj->worker_demand, room[s])) ||
			    (pj->ps > 0 && res_fits(pj->ps_demand, room[s]));

		for (int r = 0; !keep && r < RES_NUM; r++)
			keep = most[r] == q;
		if (keep)
			idx[k++] = (uint32_t)s;
	}
	return k;
}

/* Does room hold one task of one of the set's shapes? */
static bool plan_servers_holds(const plan_servers_t *set, res_vec_t room)
{
	for (size_t k = 0; k < set->nneeds; k++)
		if (res_fits(set->needs[k], room))
			return true;
	return false;
}

int plan_servers_for(const plan_ctx_t *c, const res_vec_t *room,
		     const size_t *jobs, size_t njobs, plan_servers_t *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t k = 0; k < njobs; k++) {
		const alloc_job_t *a = &c->aj[jobs[k]];
		res_vec_t t[2] = { a->worker_demand, a->ps_demand };
		bool has[2] = { true, !a->no_ps };

		for (int q = 0; q < 2; q++) {
			bool seen = !has[q];

			for (size_t u = 0; !seen && u < out->nneeds; u++)
				seen = !memcmp(&out->needs[u], &t[q],
					       sizeof(t[q]));
			if (seen)
				continue;
			if (out->nneeds == PLAN_SERVER_SHAPES)
				return 0;	/* v NULL: every server */
			out->needs[out->nneeds++] = t[q];
		}
	}
	out->v = malloc((c->nservers + 1) * sizeof(*out->v));
	out->in = calloc(c->nservers + 1, sizeof(*out->in));
	if (!out->v || !out->in) {
		plan_servers_free(out);
		return -ENOMEM;
	}
	for (size_t s = 0; s < c->nservers; s++)
		if (plan_servers_holds(out, room[s]))
			plan_servers_add(out, (uint32_t)s);
	return 0;
}

void plan_servers_prune(plan_servers_t *set, const res_vec_t *room)
{
	size_t n = 0;

	for (size_t k = 0; set->v && k < set->n; k++) {
		uint32_t s = set->v[k];

		if (plan_servers_holds(set, room[s]))
			set->v[n++] = s;
		else
			set->in[s] = false;
	}
	if (set->v)
		set->n = n;
}

void plan_servers_add(plan_servers_t *set, uint32_t s)
{
	if (!set->v || set->in[s])
		return;
	set->in[s] = true;
	set->v[set->n++] = s;
}

void plan_servers_free(plan_servers_t *set)
{
	free(set->v);
	free(set->in);
	memset(set, 0, sizeof(*set));
}

int plan_place_one(const plan_ctx_t *c, const place_job_t *pj,
		   const res_vec_t *room, const plan_servers_t *cand,
		   plan_slots_t *s)
{
	size_t cap = cand ? cand->n : c->nservers;
	uint32_t *idx = malloc((cap + 1) * sizeof(*idx));
	res_vec_t *sub = malloc((cap + 1) * sizeof(*sub));
	place_job_t one = *pj;
	place_result_t res;
	size_t n;
	int rc = -ENOMEM;

	memset(&res, 0, sizeof(res));
	if (!idx || !sub)
		goto out;
	n = plan_place_servers(c, pj, room, cand, idx);
	if (cand)
		qsort(idx, n, sizeof(*idx), plan_u32_cmp);
	one.has_closed = false;
	for (size_t k = 0; k < n; k++) {
		sub[k] = room[idx[k]];
		if (pj->has_closed && idx[k] == pj->closed_server) {
			one.has_closed = true;
			one.closed_server = (uint32_t)k;
		}
	}
	if ((rc = placement_run(sub, n, &one, 1, &res)))
		goto out;
	rc = 0;
	if (res.jobs[0].status != PLACE_OK)
		goto out;
	if ((rc = plan_copy_assign(s, &res.jobs[0])))
		goto out;
	for (size_t k = 0; k < s->n; k++)
		s->v[k].server = idx[s->v[k].server];
	rc = 1;
out:
	placement_result_free(&res);
	free(idx);
	free(sub);
	return rc;
}

/* The same placement problem: shapes, counts, layout, closed server, cap. */
static bool plan_same_place(const place_job_t *a, const place_job_t *b)
{
	return !memcmp(&a->ps_demand, &b->ps_demand, sizeof(a->ps_demand)) &&
	       !memcmp(&a->worker_demand, &b->worker_demand,
		       sizeof(a->worker_demand)) &&
	       a->ps == b->ps && a->workers == b->workers &&
	       a->same_on_each == b->same_on_each &&
	       a->separate == b->separate && a->has_closed == b->has_closed &&
	       (!a->has_closed || a->closed_server == b->closed_server) &&
	       a->cap == b->cap;
}

bool plan_nofit_known(const plan_nofit_t *f, const place_job_t *pj,
		      size_t with)
{
	for (size_t k = 0; k < f->n; k++)
		if (f->with[k] == with && plan_same_place(&f->v[k], pj))
			return true;
	return false;
}

void plan_nofit_add(plan_nofit_t *f, const place_job_t *pj, size_t with)
{
	if (f->n == PLAN_NOFIT)
		return;
	f->v[f->n] = *pj;
	f->with[f->n++] = with;
}

bool plan_place_alone(const plan_ctx_t *c, size_t i, int ps, int workers,
		      res_vec_t *room, const plan_servers_t *cand,
		      plan_slots_t *s)
{
	place_job_t pl = plan_place_job(c, i, ps, workers);

	if (plan_place_one(c, &pl, room, cand && cand->v ? cand : NULL, s) != 1)
		return false;
	plan_take_slots(c, room, i, s->v, s->n);
	return true;
}

int plan_place(plan_ctx_t *c, const bool *which, const alloc_grant_t *g,
	       const res_vec_t *room)
{
	double t0 = plan_clock();
	int rc;

	for (size_t i = 0; i < c->n; i++)
		plan_slots_clear(&c->placed[i]);
	rc = c->prm->placement ? plan_place_theorem1(c, which, g, room) :
				 plan_place_spread(c, which, g, room);
	c->place_s += plan_clock() - t0;
	return rc;
}

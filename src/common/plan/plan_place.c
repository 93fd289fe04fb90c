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

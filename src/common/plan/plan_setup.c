/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_setup.c - the context of one plan (plan_ctx_t): the plan's policy
 * and the rules of each job (plan_policy.c), the allocator input, a
 * running job's current size and usage, the capacity, the order of the
 * jobs, the policy's own set-up, exploration, caps and fair shares.
 */
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_priv.h"

void plan_ctx_free(plan_ctx_t *c)
{
	for (size_t i = 0; c->cb && i < c->n; i++)
		free(c->cb[i].cache);
	for (size_t i = 0; c->placed && i < c->n; i++)
		plan_slots_clear(&c->placed[i]);
	free(c->order);
	free(c->order_key);
	free(c->aj);
	free(c->cb);
	free(c->cur_ps);
	free(c->cur_w);
	free(c->usage);
	free(c->grant1);
	free(c->grant2);
	free(c->state);
	free(c->lim_ps);
	free(c->lim_w);
	free(c->over_cap);
	free(c->shrink);
	free(c->placed);
	free(c->room);
	free(c->free0);
	free(c->fair_user);
	free(c->fair_frac);
	free(c->fair_held);
	if (c->policy && c->policy->cleanup)
		c->policy->cleanup(c);
	free(c->rules);
}

static int plan_ctx_alloc(plan_ctx_t *c)
{
	size_t n = c->n + 1;

	c->order = calloc(n, sizeof(*c->order));
	c->order_key = calloc(n, sizeof(*c->order_key));
	c->aj = calloc(n, sizeof(*c->aj));
	c->cb = calloc(n, sizeof(*c->cb));
	c->cur_ps = calloc(n, sizeof(*c->cur_ps));
	c->cur_w = calloc(n, sizeof(*c->cur_w));
	c->usage = calloc(n, sizeof(*c->usage));
	c->grant1 = calloc(n, sizeof(*c->grant1));
	c->grant2 = calloc(n, sizeof(*c->grant2));
	c->state = calloc(n, sizeof(*c->state));
	c->lim_ps = calloc(n, sizeof(*c->lim_ps));
	c->lim_w = calloc(n, sizeof(*c->lim_w));
	c->over_cap = calloc(n, sizeof(*c->over_cap));
	c->shrink = calloc(n, sizeof(*c->shrink));
	c->placed = calloc(n, sizeof(*c->placed));
	c->room = calloc(c->nservers + 1, sizeof(*c->room));
	c->free0 = calloc(c->nservers + 1, sizeof(*c->free0));
	c->rules = calloc(n, sizeof(*c->rules));
	c->out->decisions = calloc(n, sizeof(*c->out->decisions));
	if (!c->rules || !c->order || !c->order_key || !c->aj || !c->cb || !c->cur_ps ||
	    !c->cur_w || !c->usage || !c->grant1 || !c->grant2 || !c->state ||
	    !c->lim_ps || !c->lim_w || !c->over_cap || !c->shrink ||
	    !c->placed || !c->room || !c->free0 || !c->out->decisions)
		return plan_fail(c->out, -ENOMEM, "out of memory");
	c->out->ndecisions = c->n;
	return 0;
}

/* A running job's size and usage: from its slots, else from its model. */
static void plan_current(plan_ctx_t *c, size_t i)
{
	const plan_job_t *j = &c->jobs[i];

	c->usage[i] = res_make(0, 0, 0);
	if (!j->running)
		return;
	if (!j->nslots) {
		c->cur_ps[i] = j->model->cur_ps;
		c->cur_w[i] = j->model->cur_workers;
	}
	for (size_t k = 0; k < j->nslots; k++) {
		c->cur_ps[i] += j->slots[k].ps;
		c->cur_w[i] += j->slots[k].workers;
		c->usage[i] = res_add(c->usage[i], plan_slot_usage(c, i, k));
	}
	if (!j->nslots)
		c->usage[i] = plan_need(&c->aj[i], c->cur_ps[i], c->cur_w[i]);
}

/*
 * Allocation order: running jobs first (they hold servers; the allocators
 * grant minimums in input order), then pending ones by the policy's order
 * key (Tetris: shortest first), then by first submission and job id.
 * qsort_r keeps plan_run reentrant.
 */
static int plan_cmp(const void *a, const void *b, void *arg)
{
	const plan_ctx_t *c = arg;
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
	const plan_job_t *x = &c->jobs[ia];
	const plan_job_t *y = &c->jobs[ib];

	if (x->running != y->running)
		return x->running ? -1 : 1;
	if (!x->running && c->order_key[ia] != c->order_key[ib])
		return c->order_key[ia] < c->order_key[ib] ? -1 : 1;
	if (x->model->first_submit != y->model->first_submit)
		return x->model->first_submit < y->model->first_submit ? -1 : 1;
	if (x->model->job_id != y->model->job_id)
		return x->model->job_id < y->model->job_id ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static void plan_order(plan_ctx_t *c)
{
	for (size_t i = 0; i < c->n; i++) {
		c->order[i] = i;
		c->order_key[i] = c->policy->order_key ?
				  c->policy->order_key(c, i) : 0.0;
	}
	qsort_r(c->order, c->n, sizeof(*c->order), plan_cmp, c);
}

int plan_setup(plan_ctx_t *c)
{
	int rc;

	if (!(c->policy = plan_policy_ops(c->prm->policy)))
		return plan_fail(c->out, -EINVAL, "unknown policy %d",
				 c->prm->policy);
	if ((rc = plan_ctx_alloc(c)))
		return rc;
	for (size_t i = 0; i < c->n; i++)
		c->rules[i] = plan_policy_rules(c, i);
	plan_alloc_build(c);
	/*
	 * A negative free room (the caller's accounting of other jobs drifted
	 * past the server's size) means a full server, not an error.
	 */
	c->capacity = res_make(0, 0, 0);
	for (size_t s = 0; s < c->nservers; s++) {
		for (int r = 0; r < RES_NUM; r++)
			c->free0[s].v[r] = fmax(c->server_free[s].v[r], 0.0);
		c->capacity = res_add(c->capacity, c->free0[s]);
	}
	c->server_free = c->free0;
	for (size_t i = 0; i < c->n; i++) {
		plan_current(c, i);
		c->capacity = res_add(c->capacity, c->usage[i]);
		c->out->decisions[i].job_id = c->jobs[i].model->job_id;
	}
	plan_node_workers(c);
	if (c->policy->setup && (rc = c->policy->setup(c)))
		return rc;
	plan_explore_setup(c);
	plan_cap_bound(c);
	if ((rc = plan_speed_cache(c)))
		return rc;
	plan_order(c);
	return plan_fair_setup(c);
}

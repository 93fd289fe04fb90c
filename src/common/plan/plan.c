/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan.c - the checks, set-up and words of a plan: parameters and their
 * defaults, the policy and action names, the checks of a plan's input,
 * the per-plan context (plan_setup, plan_ctx_free), a running job's
 * current size and usage, the order of the jobs, failure and reasons.
 * The passes themselves: plan_run.c.
 */
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_priv.h"
#include "util/errmsg.h"
#include "util/names.h"

static const char *const policy_names[] = {
	"optimus", "quality", "drf", "tetris", "fifo", "goodput",
};

static const char *const action_names[] = {
	"wait", "start", "keep", "resize", "preempt",
};

void plan_params_init(plan_params_t *prm)
{
	memset(prm, 0, sizeof(*prm));
	prm->policy = PLAN_OPTIMUS;
	prm->interval = PLAN_INTERVAL_DEFAULT;
	prm->damping = ALLOC_DAMPING_DEFAULT;
	prm->resize_threshold = PLAN_RESIZE_THRESHOLD_DEFAULT;
	prm->resize_threshold_large = PLAN_RESIZE_THRESHOLD_LARGE_DEFAULT;
	prm->large_tasks = PLAN_LARGE_TASKS_DEFAULT;
	prm->min_resize_interval = PLAN_MIN_RESIZE_INTERVAL_DEFAULT;
	prm->restart_cost = PLAN_RESTART_COST_DEFAULT;
	prm->rebatch_cost = PLAN_REBATCH_COST_DEFAULT;
	prm->placement = true;
	prm->shrink_for_pending = true;
	prm->explore_scaling = false;
}

bool plan_preempt_default(plan_policy_t p)
{
	return p == PLAN_GOODPUT;
}

const char *plan_policy_name(plan_policy_t p)
{
	return names_at(policy_names, NAMES_COUNT(policy_names), (unsigned)p);
}

int plan_policy_parse(const char *name, plan_policy_t *out)
{
	int i = names_find(policy_names, NAMES_COUNT(policy_names), name,
			   false);

	if (i < 0)
		return i;
	*out = (plan_policy_t)i;
	return 0;
}

const char *plan_action_name(plan_action_t a)
{
	return names_at(action_names, NAMES_COUNT(action_names), (unsigned)a);
}

void plan_reason(plan_decision_t *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
	va_end(ap);
}

void plan_free(plan_t *p)
{
	if (!p)
		return;
	for (size_t i = 0; p->decisions && i < p->ndecisions; i++)
		free(p->decisions[i].slots);
	free(p->decisions);
	p->decisions = NULL;
	p->ndecisions = 0;
}

/* ---- set-up ---- */

int plan_fail(plan_t *out, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errmsg_vset(out->err, sizeof(out->err), rc, fmt, ap);
	va_end(ap);
	return rc;
}

static int plan_check_prm(const plan_params_t *p, plan_t *out)
{
	if ((unsigned)p->policy > PLAN_GOODPUT)
		return plan_fail(out, -EINVAL, "unknown policy %d", p->policy);
	if (!(p->interval > 0.0) || !isfinite(p->interval) ||
	    !(p->damping > 0.0 && p->damping <= 1.0) ||
	    !(p->resize_threshold >= 0.0) || !isfinite(p->resize_threshold) ||
	    !(p->resize_threshold_large >= 0.0) ||
	    !isfinite(p->resize_threshold_large) || p->large_tasks < 1 ||
	    !(p->min_resize_interval >= 0.0) ||
	    !isfinite(p->min_resize_interval) || !(p->restart_cost >= 0.0) ||
	    !isfinite(p->restart_cost) || !(p->rebatch_cost >= 0.0) ||
	    !isfinite(p->rebatch_cost))
		return plan_fail(out, -EINVAL, "invalid plan parameters");
	return 0;
}

int plan_check(const plan_job_t *jobs, size_t n, const res_vec_t *sf,
		      size_t ns, const plan_params_t *prm, plan_t *out)
{
	if (!prm || (n && !jobs) || (ns && !sf))
		return plan_fail(out, -EINVAL, "missing jobs, servers or "
				 "parameters");
	for (size_t s = 0; s < ns; s++)
		for (int r = 0; r < RES_NUM; r++)
			if (!isfinite(sf[s].v[r]) ||
			    fabs(sf[s].v[r]) > PLAN_ROOM_MAX)
				return plan_fail(out, -EINVAL, "server %zu: "
						 "free room not finite or "
						 "beyond %g", s, PLAN_ROOM_MAX);
	for (size_t i = 0; i < n; i++) {
		if (!jobs[i].model)
			return plan_fail(out, -EINVAL, "job %zu: no model", i);
		if (jobs[i].nslots && !jobs[i].slots)
			return plan_fail(out, -EINVAL, "job %u: no slots",
					 jobs[i].model->job_id);
		for (size_t k = 0; k < jobs[i].nslots; k++)
			if (jobs[i].slots[k].server >= ns ||
			    (jobs[i].slot_usage &&
			     !res_is_valid(jobs[i].slot_usage[k])))
				return plan_fail(out, -EINVAL, "job %u: bad "
						 "slot %zu", jobs[i].model->job_id,
						 k);
	}
	return plan_check_prm(prm, out);
}

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
	plan_goodput_free(c);
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
	c->out->decisions = calloc(n, sizeof(*c->out->decisions));
	if (!c->order || !c->order_key || !c->aj || !c->cb || !c->cur_ps ||
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
 * grant minimums in input order), then by first submission and job id.
 * Under Tetris, pending jobs come shortest remaining time (at their
 * minimum size) first: its SRTF preference decides which waiting job
 * starts when not all fit, as its packing score does for tasks.
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
		const alloc_job_t *a = &c->aj[i];
		c->order[i] = i;
		c->order_key[i] = c->prm->policy != PLAN_TETRIS ? 0.0 :
			alloc_jct(a, alloc_min_ps(a), alloc_min_workers(a));
	}
	qsort_r(c->order, c->n, sizeof(*c->order), plan_cmp, c);
}

int plan_setup(plan_ctx_t *c)
{
	int rc = plan_ctx_alloc(c);

	if (rc)
		return rc;
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
	if ((rc = plan_goodput_setup(c)))
		return rc;
	plan_explore_setup(c);
	plan_cap_bound(c);
	if ((rc = plan_speed_cache(c)))
		return rc;
	plan_order(c);
	return plan_fair_setup(c);
}

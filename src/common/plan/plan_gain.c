/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_gain.c - what a change of a running job is worth, for every
 * policy's verdict: its predicted time by its policy, the one gain
 * formula (a resize, a re-batch), the threshold the gain must pass, and
 * whether a smaller size is a shrink that frees room for others.
 */
#include <math.h>

#include "plan/plan_priv.h"

double plan_time(const plan_ctx_t *c, size_t i, int ps, int w)
{
	return c->rules[i]->time(c, i, ps, w);
}

double plan_gain(plan_decision_t *d, double now, double planned,
		 double cost)
{
	d->remaining_now = now;
	d->remaining_planned = planned;
	if (!(now > 0.0) || !isfinite(now) || !isfinite(planned))
		return d->gain = 0.0;
	return d->gain = (now - planned - cost) / now;
}

double plan_resize_gain(const plan_ctx_t *c, size_t i, int ps, int w,
			plan_decision_t *d)
{
	double now = plan_time(c, i, c->cur_ps[i], c->cur_w[i]);

	return plan_gain(d, now, plan_time(c, i, ps, w),
			 c->prm->restart_cost);
}

/* The threshold is smaller for large jobs (Optimus open problem 3). */
double plan_threshold(const plan_ctx_t *c, size_t i, int ps, int w)
{
	int tasks = c->cur_ps[i] + c->cur_w[i];

	if (ps + w > tasks)
		tasks = ps + w;
	return tasks >= c->prm->large_tasks ? c->prm->resize_threshold_large :
					      c->prm->resize_threshold;
}

/*
 * A shrink: the target needs no more of any resource than the current
 * size, and pending jobs got room in pass 1 (Optimus re-allocates every
 * interval so that new jobs start; the minimum interval bounds it), or,
 * under a policy that shrinks for growth, no job waits and a running
 * job's growth passed its verdict (plan_growth_shrink), or another user
 * below its fair share gets the room: a user above its fair share while
 * another is below it yields whatever the gain (plan_fair.c).
 */
bool plan_is_shrink(const plan_ctx_t *c, size_t i, const alloc_grant_t *g)
{
	const alloc_job_t *a = &c->aj[i];

	return ((c->prm->shrink_for_pending && c->pending_granted) ||
		c->growth_granted ||
		plan_fair_yields(c, i)) &&
	       res_fits(plan_need(a, g->ps, g->workers),
			plan_need(a, c->cur_ps[i], c->cur_w[i]));
}

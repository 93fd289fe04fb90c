/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_policy_optimus.c - Policy=optimus (doc/design/planning.md): jobs sized by
 * Optimus' marginal gain (alloc/optimus.c) with the speed model's
 * predicted time; a running job resized when the gain passes the
 * threshold, or shrunk so that pending jobs start. A job that asks for
 * quality (--scheduler=quality) is planned by quality's rules
 * (plan_policy_quality.c). Its job operations are also those of the
 * policies without their own (PLAN_OPTIMUS_JOB_OPS).
 */
#include <math.h>
#include <stdio.h>

#include "plan/plan_priv.h"

double plan_optimus_time(const plan_ctx_t *c, size_t i, int ps, int w)
{
	const job_model_t *m = c->jobs[i].model;
	int n = plan_speed_p(c, i, ps, w);
	double f;

	if (!c->cb[i].exploring)
		return job_model_remaining_time(m, c->prm->profiles, n, w);
	/* The gain of a resize with the speed the allocator granted by. */
	f = plan_explore_speed(&c->cb[i], w, n,
			       job_model_speed(m, c->prm->profiles, n, w));
	return f > 0.0 && isfinite(f) ? job_model_remaining_steps(m, NULL) / f :
	       INFINITY;
}

double plan_optimus_rate(const plan_ctx_t *c, size_t i, int w, int n)
{
	return job_model_speed(c->jobs[i].model, c->prm->profiles, n, w);
}

/*
 * A job resizes when the gain beats the threshold, or shrinks so that
 * pending jobs start; but not when it will end before a restart would be
 * over: by ending it frees its room sooner than a checkpoint-requeue.
 * Pass 2's re-check: pass 1's shrink excuses the gain only if pass 2
 * still shrinks it; a pass-2 grant above its size is a growth and must
 * pay like one (test_replay: 5 -> 6 workers for a 3% gain).
 */
const char *plan_optimus_verdict(plan_ctx_t *c, size_t i,
				 const alloc_grant_t *g, bool again,
				 char *why, size_t len)
{
	plan_decision_t *d = &c->out->decisions[i];
	double thr = plan_threshold(c, i, g->ps, g->workers);

	if (again) {
		if (c->shrink[i] && !plan_is_shrink(c, i, g))
			c->shrink[i] = false;
		if (plan_resize_gain(c, i, g->ps, g->workers, d) > thr ||
		    c->shrink[i])
			return NULL;
	} else {
		c->shrink[i] = plan_resize_gain(c, i, g->ps, g->workers, d) <=
			       thr;
		if (!c->shrink[i])
			return NULL;
		if (plan_is_shrink(c, i, g)) {
			if (!(d->remaining_now <= c->prm->restart_cost))
				return NULL;
			snprintf(why, len, "ends in %.0fs, before a restart "
				 "(%.0fs) would", d->remaining_now,
				 c->prm->restart_cost);
			return why;
		}
	}
	snprintf(why, len, "gain %.1f%% of %d/%d below %.1f%%",
		 100.0 * d->gain, g->ps, g->workers, 100.0 * thr);
	return why;
}

/* Only with shrink_for_pending, and when it ends after a restart would
 * (as in pass 1). */
bool plan_optimus_may_shrink(const plan_ctx_t *c, size_t i)
{
	return c->prm->shrink_for_pending &&
	       plan_time(c, i, c->cur_ps[i], c->cur_w[i]) >
	       c->prm->restart_cost;
}

const plan_policy_ops_t plan_policy_optimus = {
	.name = "optimus",
	.allocate = alloc_optimus_run,
	.by_hints = true,
	PLAN_OPTIMUS_JOB_OPS,
};

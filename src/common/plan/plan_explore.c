/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_explore.c - ExploreScaling in a plan (plan_params_t.explore_scaling;
 * doc/design/planning.md "Exploring scaling"): every all-reduce job is planned
 * with its optimistic speed beyond the GPUs and nodes it ran on, and a
 * grant of at most twice the most GPUs it had (job/job_explore.c, the
 * rule's home). Without it, a job whose prior predicts no gain across
 * nodes never runs across nodes, and never measures that it could. A job
 * whose rate is optimistic by itself (plan_policy_ops_t.optimistic: a
 * goodput job on its batch fit) is left alone: the cap would only spread
 * its growth over doublings, a restart each.
 */
#include <math.h>

#include "plan/plan_priv.h"

typedef struct plan_explore_best {
	const plan_ctx_t *c;
	size_t i;
	double per_gpu;
} plan_explore_best_t;

static void plan_explore_per_gpu(void *ctx, int w, int n)
{
	plan_explore_best_t *b = ctx;
	/* Its policy's rate without the optimism. */
	double r = b->c->rules[b->i]->rate(b->c, b->i, w, n) / w;

	if (r > b->per_gpu && isfinite(r))
		b->per_gpu = r;
}

void plan_explore_setup(plan_ctx_t *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const job_model_t *m = c->jobs[i].model;
		const plan_policy_ops_t *r = c->rules[i];
		alloc_job_t *a = &c->aj[i];
		plan_cb_t *cb = &c->cb[i];
		plan_explore_best_t best = { c, i, 0.0 };
		int cap;

		if (!c->prm->explore_scaling ||
		    !hints_is_allreduce(&m->hints) ||
		    (r->optimistic && r->optimistic(c, i)))
			continue;
		job_model_explored(m, &cb->explore.workers,
				   &cb->explore.nodes);
		job_model_explored_each(m, plan_explore_per_gpu, &best);
		cb->explore.per_gpu = best.per_gpu;
		cb->exploring = true;
		cap = job_model_explore_cap(m);
		if (cap < alloc_min_workers(a))
			cap = alloc_min_workers(a);
		if (a->max_workers <= 0 || cap < a->max_workers)
			a->max_workers = cap;
		if (a->max_units <= 0 || cap < a->max_units)
			a->max_units = cap;
	}
}

double plan_explore_speed(const plan_cb_t *cb, int w, int n, double f)
{
	return cb->exploring ? job_model_explore_speed(f, w, n, &cb->explore) :
			       f;
}

double plan_explore_min_interval(const plan_ctx_t *c, size_t i, int ps,
				 int w)
{
	const plan_cb_t *cb = &c->cb[i];
	int n;

	if (!cb->exploring)
		return c->prm->min_resize_interval;
	n = c->rules[i]->nodes(c, i, ps, w);
	return job_model_explore_growth(c->cur_w[i], w, n, &cb->explore) ?
	       0.0 : c->prm->min_resize_interval;
}

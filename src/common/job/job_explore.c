/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * job_explore.c - exploring how a job scales (ExploreScaling;
 * doc/design/planning.md "Exploring scaling"), Pollux's rule (Qiao et al., OSDI
 * 2021, section 4.1): a job whose model has not seen a configuration is
 * optimistic about it, and may grow at most to twice the most GPUs it has
 * had, so that optimism costs at most one doubling before the job has
 * measured the truth there.
 *
 * The rule's numbers live here; the plan applies them to its all-reduce
 * jobs when its parameters ask (plan/plan_explore.c).
 */
#include <math.h>

#include "job/job_model.h"

/* fn on (workers, nodes), nodes within 1..workers. */
static void explore_visit(int w, int n, job_explore_fn fn, void *ctx)
{
	if (w < 1)
		return;
	/* A run recorded without its nodes spanned at least one. */
	fn(ctx, w, n < 1 ? 1 : n > w ? w : n);
}

/*
 * What the job measured: its runs (the plan's starts and resizes), the
 * configurations of its speed samples (an all-reduce job's p is its
 * nodes, job_model_speed_p), pre-runs included, and of its step times at
 * any batch (an adaptive job).
 */
void job_model_explored_each(const job_model_t *m, job_explore_fn fn,
			     void *ctx)
{
	for (size_t k = 0; m && k < m->nruns; k++)
		explore_visit(m->runs[k].workers, m->runs[k].nodes, fn, ctx);
	for (size_t k = 0; m && k < m->speed.nsamples; k++)
		explore_visit(m->speed.samples[k].w, m->speed.samples[k].p, fn,
			      ctx);
	for (size_t k = 0; m && k < m->batch.nsamples; k++)
		explore_visit(m->batch.samples[k].w, m->batch.samples[k].n, fn,
			      ctx);
}

static void explore_most(void *ctx, int w, int n)
{
	int *most = ctx;

	if (w > most[0])
		most[0] = w;
	if (n > most[1])
		most[1] = n;
}

void job_model_explored(const job_model_t *m, int *workers, int *nodes)
{
	int most[2] = { 0, 0 };

	job_model_explored_each(m, explore_most, most);
	*workers = most[0];
	*nodes = most[1];
}

int job_model_explore_cap(const job_model_t *m)
{
	int w, n;

	job_model_explored(m, &w, &n);
	return w > 0 ? JOB_EXPLORE_GROWTH * w : 1;
}

/*
 * Beyond the extent (more GPUs or more nodes than any run): the larger of
 * the model and perfect scaling from the best per-GPU rate the job ran
 * at. Perfect scaling: a job's rate per GPU never rises with more GPUs
 * (the work of a step is shared, its synchronisation is not), so it is
 * the most a job could gain, the optimism that lets it try.
 */
double job_model_explore_speed(double predicted, int workers, int nodes,
			       const job_explore_t *x)
{
	if (!x || !(x->per_gpu > 0) || !isfinite(x->per_gpu) ||
	    (workers <= x->workers && nodes <= x->nodes))
		return predicted;
	return fmax(predicted, workers * x->per_gpu);
}

/*
 * The minimum resize interval keeps a job's restarts a small share of its
 * time; a growth beyond its extent is bounded in number instead, by the
 * cap (log2 of its largest size, one doubling each), and Pollux grows a
 * job every round while it explores. Held to the interval, a job that
 * should run on 16 GPUs spent 4 intervals (1200 s at 300 s) getting there
 * (doc/design/planning.md "Exploring scaling").
 */
bool job_model_explore_growth(int cur_workers, int workers, int nodes,
			      const job_explore_t *x)
{
	return x && workers > cur_workers &&
	       (workers > x->workers || nodes > x->nodes);
}

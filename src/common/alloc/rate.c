/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * alloc/rate.c - the completion-rate allocation: Eqn. 9's greedy with the
 * average JCT as its objective instead of the sum of remaining times.
 *
 * By Little's law the average JCT is the mean number of jobs in the system
 * over their arrival rate, so a scheduler that lowers the average JCT
 * empties the system fastest. At a given moment job j leaves at the rate
 * f_j(p, w) / Q_j (fluid view: it ends after Q_j / f_j), and the greedy
 * maximises the sum of these rates: every step gives one task to the job
 * whose rate grows most per dominant share, (f(after) - f(now)) / Q. A job
 * without its minimum has rate 0 and gets its minimum as one block, so a
 * job may wait: short jobs go first, as in shortest remaining time first,
 * and extra tasks go where they speed a short job most. Optimus' own
 * objective, the sum of Q / f, instead gives every job its minimum and
 * the extra tasks to the longest jobs (their remaining time drops most),
 * which shares the cluster like processor sharing. Early-stage jobs are
 * damped as in Optimus. No parameter besides the damping.
 *
 * All-reduce jobs (no_ps) have no PS and grow by bundles of workers, as
 * in alloc/optimus.c. Each job sits once in a max-heap keyed by the gain
 * of its best step that fits (as in alloc/optimus.c): a job's rates depend
 * on its own grant only and the room only shrinks, so a key can only be
 * too high, never too low; the top is taken if its step still fits, else
 * its best is computed again. The grants are those of a rescan of every
 * job at every step (testsuite/synth fixture_naive_rate), at O(log n) plus
 * one job's steps per grant instead of n jobs' (bench/bench_alloc).
 *
 * The greedy itself (alloc_greedy_run) takes the objective as a value per
 * job, summed over the jobs: here the completion rate f/Q; alloc/
 * fair_speedup.c gives it another (the power mean of speedups over the
 * fair share, Pollux's). A step's gain is always (value after - value
 * now) / dominant share, the value of a job without a grant its value at
 * 0 workers.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "util/errmsg.h"
#include "util/heap.h"

/* A job about to end has the highest rate, never an infinite one. */
#define RATE_MIN_STEPS 1e-9

typedef struct rate_pick {
	size_t job;
	int kind;		/* 0: minimum block, 1: PS, 2: workers */
	int k;			/* workers of the bundle */
	double gain;
} rate_pick_t;

static double rate_of(const alloc_job_t *j, size_t i, int p, int w,
		      void *ctx)
{
	(void)i;
	(void)ctx;
	double f = alloc_speed(j, p, w);

	return f > 0.0 ? f / fmax(j->remaining_steps, RATE_MIN_STEPS) : 0.0;
}

/* The gain of a step whose footprint is `share` of the capacity (its
 * dominant share). */
static double rate_gain(const alloc_job_t *j, const alloc_params_t *prm,
			double now, double next, double share)
{
	double g = share > 0.0 ? (next - now) / share : 0.0;

	if (j->early_stage && g > 0.0)
		g *= prm->damping;
	return isfinite(g) ? g : 0.0;
}

/*
 * The bundles of k workers (k = 1..ALLOC_BUNDLE) of one task shape: each
 * one's footprint and dominant share of the capacity. The jobs of an
 * allocation share a few shapes and every refresh of a job weighs all its
 * bundles: worked out once per shape, by the same operations on the same
 * operands as per refresh, they are the same values.
 */
typedef struct rate_bundles {
	res_vec_t worker, ps;			/* the shape */
	res_vec_t need[ALLOC_BUNDLE + 1];	/* [k] */
	double share[ALLOC_BUNDLE + 1];
} rate_bundles_t;

/* Shapes worked out once per allocation; a job of any other shape has
 * its bundles worked out at each refresh. */
#define RATE_SHAPES 16

static void rate_bundles_fill(rate_bundles_t *b, const alloc_job_t *j,
			      const alloc_params_t *prm)
{
	b->worker = j->worker_demand;
	b->ps = j->ps_demand;
	for (int k = 1; k <= ALLOC_BUNDLE; k++) {
		b->need[k] = res_combo(j->worker_demand, k, j->ps_demand, 0);
		b->share[k] = res_dominant_share(b->need[k], prm->capacity);
	}
}

/* Each job's shape's bundles (NULL past RATE_SHAPES shapes) in of[],
 * the shapes in shapes[]. */
static void rate_bundles_index(const alloc_job_t *jobs, size_t n,
			       const alloc_params_t *prm,
			       rate_bundles_t *shapes,
			       const rate_bundles_t **of)
{
	size_t nshapes = 0;

	for (size_t i = 0; i < n; i++) {
		const alloc_job_t *j = &jobs[i];
		size_t k = 0;

		while (k < nshapes &&
		       (memcmp(&shapes[k].worker, &j->worker_demand,
			       sizeof(res_vec_t)) ||
			memcmp(&shapes[k].ps, &j->ps_demand,
			       sizeof(res_vec_t))))
			k++;
		if (k == nshapes && nshapes < RATE_SHAPES)
			rate_bundles_fill(&shapes[nshapes++], j, prm);
		of[i] = k < nshapes ? &shapes[k] : NULL;
	}
}

/* The objective: each job's value, and its context. */
typedef struct rate_objective {
	alloc_value_fn value;
	void *ctx;
} rate_objective_t;

/* The best step of job i, if it has a positive gain; b: its shape's
 * bundles, NULL to work them out here. */
static void rate_consider(const alloc_job_t *jobs, size_t i,
			  const rate_objective_t *obj,
			  const alloc_params_t *prm, const alloc_grant_t *g,
			  const rate_bundles_t *b, res_vec_t room,
			  rate_pick_t *best)
{
	const alloc_job_t *j = &jobs[i];
	int p = g->ps, w = g->workers;
	rate_bundles_t own;

	if (g->status != ALLOC_OK) {
		int mp = alloc_min_ps(j), mw = alloc_min_workers(j);
		res_vec_t need = res_combo(j->ps_demand, mp, j->worker_demand,
					   mw);
		double x;
		if (!res_fits(need, room))
			return;
		x = rate_gain(j, prm, obj->value(j, i, 0, 0, obj->ctx),
			      obj->value(j, i, mp, mw, obj->ctx),
			      res_dominant_share(need, prm->capacity));
		if (x > best->gain)
			*best = (rate_pick_t){ i, 0, 0, x };
		return;
	}
	double now = obj->value(j, i, p, w, obj->ctx);
	if (alloc_task_fits(j, g, true, room)) {
		double x = rate_gain(j, prm, now,
				     obj->value(j, i, p + 1, w, obj->ctx),
				     res_dominant_share(j->ps_demand,
							prm->capacity));
		if (x > best->gain)
			*best = (rate_pick_t){ i, 1, 0, x };
	}
	if (!b) {
		rate_bundles_fill(&own, j, prm);
		b = &own;
	}
	/* All-reduce jobs grow by the best bundle of up to ALLOC_BUNDLE
	 * workers, as in alloc/optimus.c: one worker past a node may slow
	 * the ring where several more speed it up. */
	int kmax = j->no_ps ? ALLOC_BUNDLE : 1;
	for (int k = 1; k <= kmax; k++) {
		if ((j->max_workers > 0 && w + k > j->max_workers) ||
		    !res_fits(b->need[k], room))
			break;
		double x = rate_gain(j, prm, now,
				     obj->value(j, i, p, w + k, obj->ctx),
				     b->share[k]);
		if (x > best->gain)
			*best = (rate_pick_t){ i, 2, k, x };
	}
}

/* Grant job j its minimum if it fits the room. */
static void rate_grant_min(const alloc_job_t *j, alloc_grant_t *g,
			   res_vec_t *room, alloc_result_t *out)
{
	res_vec_t need = res_combo(j->ps_demand, alloc_min_ps(j),
				   j->worker_demand, alloc_min_workers(j));

	if (!res_fits(need, *room))
		return;
	g->ps = alloc_min_ps(j);
	g->workers = alloc_min_workers(j);
	g->status = ALLOC_OK;
	*room = res_sub(*room, need);
	out->used = res_add(out->used, need);
}

/* Job i in the heap with its best step that fits, or out of it. */
static void rate_refresh(const alloc_job_t *jobs, size_t i,
			 const rate_objective_t *obj,
			 const alloc_params_t *prm, const alloc_grant_t *g,
			 const rate_bundles_t *b, res_vec_t room, heap_t *h,
			 rate_pick_t *pick)
{
	rate_pick_t best = { i, 0, 0, 0.0 };

	/* An impossible job index marks "none": rate_consider only replaces
	 * a pick with a larger positive gain. */
	best.job = SIZE_MAX;
	rate_consider(jobs, i, obj, prm, g, b, room, &best);
	if (best.job == SIZE_MAX) {
		heap_remove(h, (uint32_t)i);
		return;
	}
	pick[i] = best;
	heap_set(h, (uint32_t)i, best.gain);
}

/* The step of pick p still fits the room. */
static bool rate_pick_fits(const alloc_job_t *j, const alloc_grant_t *g,
			   const rate_pick_t *p, res_vec_t room)
{
	if (p->kind == 0)
		return res_fits(res_combo(j->ps_demand, alloc_min_ps(j),
					  j->worker_demand,
					  alloc_min_workers(j)), room);
	if (p->kind == 1)
		return alloc_task_fits(j, g, true, room);
	return res_fits(res_combo(j->worker_demand, p->k, j->ps_demand, 0),
			room);
}

int alloc_greedy_run(const alloc_job_t *jobs, size_t n,
		     const alloc_params_t *prm, alloc_value_fn value,
		     void *ctx, const char *name, alloc_result_t *out)
{
	const rate_objective_t obj = { value, ctx };
	int rc = alloc_result_init(out, jobs, n);
	rate_pick_t *pick = NULL;
	rate_bundles_t *shapes = NULL;
	const rate_bundles_t **of = NULL;
	res_vec_t room;
	heap_t h = { 0 };
	uint32_t i;

	if (rc || (rc = alloc_check_task_jobs(jobs, n, prm, out)))
		return rc;
	if (!(pick = calloc(n ? n : 1, sizeof(*pick))) ||
	    !(shapes = malloc(RATE_SHAPES * sizeof(*shapes))) ||
	    !(of = malloc((n ? n : 1) * sizeof(*of))) || heap_init(&h, n)) {
		free(pick);
		free(shapes);
		free(of);
		heap_free(&h);
		return errmsg_set(out->err, sizeof(out->err), -ENOMEM,
				  "%s: out of memory", name);
	}
	rate_bundles_index(jobs, n, prm, shapes, of);
	for (size_t k = 0; k < n; k++)
		out->grants[k].status = ALLOC_MIN_UNFIT;
	room = prm->capacity;
	/* A job that keeps its minimum anyway (a running job: the plan has
	 * no preemption) cannot give it to another: a grant of nothing would
	 * promise its GPUs to jobs that then wait for them. */
	for (size_t k = 0; k < n; k++)
		if (jobs[k].keeps_min)
			rate_grant_min(&jobs[k], &out->grants[k], &room, out);
	for (size_t k = 0; k < n; k++)
		rate_refresh(jobs, k, &obj, prm, &out->grants[k], of[k], room,
			     &h, pick);
	while (heap_top(&h, &i, NULL)) {
		const alloc_job_t *j = &jobs[i];
		alloc_grant_t *g = &out->grants[i];
		const rate_pick_t *best = &pick[i];
		/* Another job may have taken the room since its gain. */
		if (!rate_pick_fits(j, g, best, room)) {
			rate_refresh(jobs, i, &obj, prm, g, of[i], room, &h,
				     pick);
			continue;
		}
		if (best->kind == 0)
			rate_grant_min(j, g, &room, out);
		for (int k = 0; best->kind && k < (best->kind == 1 ? 1 :
						   best->k); k++) {
			alloc_add_task(j, g, best->kind == 1, out);
			room = res_sub(room, best->kind == 1 ? j->ps_demand :
					     j->worker_demand);
		}
		rate_refresh(jobs, i, &obj, prm, g, of[i], room, &h, pick);
	}
	for (size_t k = 0; k < n; k++)
		if (out->grants[k].status != ALLOC_OK)
			out->nleft_out++;
	free(pick);
	free(shapes);
	free(of);
	heap_free(&h);
	return 0;
}

int alloc_rate_run(const alloc_job_t *jobs, size_t n,
		   const alloc_params_t *prm, alloc_result_t *out)
{
	return alloc_greedy_run(jobs, n, prm, rate_of, NULL,
				"completion-rate greedy", out);
}

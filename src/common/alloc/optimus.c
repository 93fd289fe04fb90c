/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * alloc/optimus.c - Optimus' greedy allocation (Eqn. 9 of the paper).
 *
 * Every job first gets its minimum (at least 1 PS + 1 worker; an all-reduce
 * job 1 worker and never a PS: Eqn. 9 with workers only). Then the job
 * with the largest marginal gain gets one more task, where the gain of a
 * task is the JCT reduction it brings, Q/f(p,w) - Q/f(p+1,w) for a PS or
 * Q/f(p,w) - Q/f(p,w+1) for a worker, divided by the task's dominant share
 * of the cluster capacity, and multiplied by the damping factor for
 * early-stage jobs. Each job sits once in a max-heap keyed by its better
 * feasible gain, so one step costs O(log n) plus three speed evaluations
 * for the job that changed, instead of a rescan of all jobs.
 *
 * An all-reduce job's speed is not concave in w: one worker more than a
 * node holds makes the ring cross the network and the job slower
 * (allreduce_speed.h), so a one-worker step sees no gain where k workers
 * more would bring one. Its increment is the bundle of k <= ALLOC_BUNDLE
 * workers with the best gain per dominant share (k = 1 for PS jobs, as
 * in the paper).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "alloc/alloc.h"
#include "util/heap.h"

typedef struct optimus {
	const alloc_job_t *jobs;
	const alloc_params_t *prm;
	alloc_result_t *out;
	heap_t heap;
	res_vec_t room;     /* capacity not granted yet */
	double *jct;        /* Q / f(p, w) at the current grant */
	bool *next_ps;      /* the job's best next task is a PS */
	int *next_k;        /* workers in its best next bundle */
} optimus_t;

/* Gain per dominant share of k more tasks of one kind. */
static double optimus_gain(const optimus_t *o, size_t i, bool is_ps, int k)
{
	const alloc_job_t *job = &o->jobs[i];
	const alloc_grant_t *g = &o->out->grants[i];
	double next = alloc_jct(job, g->ps + is_ps * k,
				g->workers + !is_ps * k);
	double share = k * res_dominant_share(is_ps ? job->ps_demand :
					      job->worker_demand,
					      o->prm->capacity);
	double gain = (o->jct[i] - next) / share;

	/* inf - inf: the job cannot run either way, so there is no gain. */
	if (isnan(gain))
		return -INFINITY;
	if (job->early_stage && gain > 0.0)
		gain *= o->prm->damping;
	return gain;
}

/*
 * Put job i in the heap with its better feasible, positive gain, or take it
 * out: capacity only shrinks, so a job whose tasks do not fit now never
 * will again in this run.
 */
/* k more workers fit job i's max and the room. */
static bool optimus_workers_fit(const optimus_t *o, size_t i, int k)
{
	const alloc_job_t *job = &o->jobs[i];

	return (job->max_workers <= 0 ||
		o->out->grants[i].workers + k <= job->max_workers) &&
	       res_fits(res_combo(job->worker_demand, k, job->ps_demand, 0),
			o->room);
}

/* The best worker bundle of job i: its gain, k in *best_k. */
static double optimus_worker_gain(const optimus_t *o, size_t i, int *best_k)
{
	int kmax = o->jobs[i].no_ps ? ALLOC_BUNDLE : 1;
	double best = -INFINITY;

	*best_k = 1;
	for (int k = 1; k <= kmax && optimus_workers_fit(o, i, k); k++) {
		double gk = optimus_gain(o, i, false, k);

		if (gk > best) {
			best = gk;
			*best_k = k;
		}
	}
	return best;
}

static void optimus_refresh(optimus_t *o, size_t i)
{
	const alloc_grant_t *g = &o->out->grants[i];
	double gp = -INFINITY, gw = -INFINITY;

	if (alloc_task_fits(&o->jobs[i], g, true, o->room))
		gp = optimus_gain(o, i, true, 1);
	if (alloc_task_fits(&o->jobs[i], g, false, o->room))
		gw = optimus_worker_gain(o, i, &o->next_k[i]);
	if (!(gp > 0.0) && !(gw > 0.0)) {
		heap_remove(&o->heap, i);
		return;
	}
	o->next_ps[i] = gp > gw;
	heap_set(&o->heap, i, fmax(gp, gw));
}

static void optimus_loop(optimus_t *o)
{
	uint32_t i;

	while (heap_top(&o->heap, &i, NULL)) {
		const alloc_job_t *job = &o->jobs[i];
		alloc_grant_t *g = &o->out->grants[i];
		bool is_ps = o->next_ps[i];
		int k = is_ps ? 1 : o->next_k[i];

		/* Another job may have taken the room since the gain was computed. */
		if (is_ps ? !alloc_task_fits(job, g, true, o->room) :
			    !optimus_workers_fit(o, i, k)) {
			optimus_refresh(o, i);
			continue;
		}
		for (int t = 0; t < k; t++) {
			alloc_add_task(job, g, is_ps, o->out);
			o->room = res_sub(o->room, is_ps ? job->ps_demand :
					  job->worker_demand);
		}
		o->jct[i] = alloc_jct(job, g->ps, g->workers);
		optimus_refresh(o, i);
	}
}

static int optimus_setup(optimus_t *o, size_t n)
{
	o->jct = malloc((n ? n : 1) * sizeof(*o->jct));
	o->next_ps = malloc((n ? n : 1) * sizeof(*o->next_ps));
	o->next_k = calloc(n ? n : 1, sizeof(*o->next_k));
	if (!o->jct || !o->next_ps || !o->next_k || heap_init(&o->heap, n))
		return -ENOMEM;
	o->room = res_sub(o->prm->capacity, o->out->used);
	for (size_t i = 0; i < n; i++) {
		const alloc_grant_t *g = &o->out->grants[i];
		if (g->status != ALLOC_OK)
			continue;
		o->jct[i] = alloc_jct(&o->jobs[i], g->ps, g->workers);
		optimus_refresh(o, i);
	}
	return 0;
}

int alloc_optimus_run(const alloc_job_t *jobs, size_t n,
		      const alloc_params_t *prm, alloc_result_t *out)
{
	optimus_t o = { .jobs = jobs, .prm = prm, .out = out };
	int rc = alloc_result_init(out, jobs, n);

	if (rc)
		return rc;
	rc = alloc_check_task_jobs(jobs, n, prm, out);
	if (rc)
		return rc;
	alloc_grant_minimums(jobs, n, prm, out);
	rc = optimus_setup(&o, n);
	if (!rc)
		optimus_loop(&o);
	free(o.jct);
	free(o.next_ps);
	free(o.next_k);
	heap_free(&o.heap);
	return rc;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_catalog_truth.c - the catalogue's synthetic jobs as the engines'
 * truth (sim_truth_ops.h): each operation reads the job's sim_truth_t
 * (sim_truth.h). Progress is counted in steps; one iteration is one step
 * of every worker.
 */
#include <errno.h>
#include <math.h>

#include "sim_truth.h"
#include "util/errmsg.h"

static int cat_max_replicas(const void *job, double bsz)
{
	const sim_truth_t *t = job;

	(void)bsz;
	return t->model->max_workers;
}

/* The catalogue's jobs split their batch evenly and never accumulate. */
static void cat_split(const void *job, double bsz, int replicas,
		      int *atomic, int *accum)
{
	(void)job;
	*atomic = replicas > 0 ? (int)ceil(bsz / replicas) : 0;
	*accum = 0;
}

static int cat_step_time(const void *job, const sim_truth_run_t *run,
			 double *step, double *sync, char *err, size_t errlen)
{
	const sim_truth_t *t = job;

	if (run->ps < 1 || run->workers < 1 || !run->node_ps)
		return errmsg_set(err, errlen, -EDOM, "%s: %d PS, %d workers: "
				  "no step time", t->model->name, run->ps,
				  run->workers);
	double x = sim_truth_cross(run->node_ps, run->node_workers,
				   run->nnodes);

	*step = sim_truth_step(t, run->ps, run->workers, x, run->paa, sync);
	return 0;
}

/* No micro-steps: the catalogue's split never accumulates. */
static double cat_iteration_time(const void *job, double step, double sync,
				 int accum)
{
	(void)job;
	(void)sync;
	(void)accum;
	return step;
}

/* An asynchronous job's workers step each on their own: an iteration
 * (one step of every worker) moves it as many steps as it has workers;
 * a synchronous job's workers make one step together. */
static int cat_gain(const void *job, const sim_truth_run_t *run, int epoch,
		    double *gain)
{
	const sim_truth_t *t = job;

	(void)epoch;
	*gain = t->mode == SPEED_ASYNC ? (double)run->workers : 1.0;
	return 0;
}

static double cat_epoch_start(const void *job, int epoch)
{
	const sim_truth_t *t = job;

	return epoch * t->epoch_steps;
}

static double cat_work(const void *job)
{
	const sim_truth_t *t = job;

	return t->total_steps;
}

static int cat_loss(const void *job, double progress, double *loss)
{
	*loss = sim_truth_loss(job, progress);
	return 0;
}

/* The catalogue's jobs measure no gradient statistics. */
static int cat_gradients(const void *job, double bsz, int epoch,
			 double *sqr, double *var)
{
	(void)job;
	(void)bsz;
	(void)epoch;
	(void)sqr;
	(void)var;
	return -EDOM;
}

static double cat_checkpoint(const void *job)
{
	return sim_truth_checkpoint(job);
}

static double cat_iterations_to(const void *job, double bsz, int epoch)
{
	(void)bsz;
	return cat_epoch_start(job, epoch + 1);
}

const sim_truth_ops_t sim_catalog_truth = {
	.max_replicas = cat_max_replicas,
	.split = cat_split,
	.step_time = cat_step_time,
	.iteration_time = cat_iteration_time,
	.gain = cat_gain,
	.epoch_start = cat_epoch_start,
	.work = cat_work,
	.loss = cat_loss,
	.gradients = cat_gradients,
	.checkpoint = cat_checkpoint,
	.oracle_split = cat_split,
	.iterations_to = cat_iterations_to,
};

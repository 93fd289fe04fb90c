/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/app_truth.c - the measured applications as the engines' truth
 * (sim_truth_ops.h): each operation is the application's own rule of
 * measured/app.h, read for the job's application (px_spec_t.app).
 */
#include <errno.h>

#include "measured/engine.h"

static int app_max_replicas(const void *job, double bsz)
{
	const px_spec_t *sp = job;

	return px_app_max_replicas(sp->app, bsz);
}

/* A batch above the smallest validated on one GPU always accumulates
 * (the peer's rule, part of the measured truth). */
static void app_split(const void *job, double bsz, int replicas,
		      int *atomic, int *accum)
{
	const px_spec_t *sp = job;

	px_app_split_job(sp->app, bsz, replicas, atomic, accum);
}

/* All-reduce: the GPUs on each node are the whole placement. */
static int app_step_time(const void *job, const sim_truth_run_t *run,
			 double *step, double *sync, char *err, size_t errlen)
{
	const px_spec_t *sp = job;

	return px_app_step_time(sp->app, run->node_workers, run->nnodes,
				run->atomic, step, sync, err, errlen);
}

static double app_iteration_time(const void *job, double step, double sync,
				 int accum)
{
	(void)job;
	return px_app_iteration_time(step, sync, accum);
}

static int app_gain(const void *job, const sim_truth_run_t *run, int epoch,
		    double *gain)
{
	const px_spec_t *sp = job;

	return px_app_gain(sp->app, sim_truth_run_batch(run), epoch, gain);
}

static double app_epoch_start(const void *job, int epoch)
{
	const px_spec_t *sp = job;

	return px_app_progress(sp->app, epoch);
}

/* Done at the start of the first epoch it does not count. */
static double app_work(const void *job)
{
	const px_spec_t *sp = job;

	return app_epoch_start(job, sp->epochs);
}

/* The measured applications have no loss curve. */
static int app_loss(const void *job, double progress, double *loss)
{
	(void)job;
	(void)progress;
	(void)loss;
	return -EDOM;
}

static int app_gradients(const void *job, double bsz, int epoch,
			 double *sqr, double *var)
{
	const px_spec_t *sp = job;

	return px_app_grad_stats(sp->app, bsz, epoch, sqr, var);
}

/* The measured set-up's restart cost was measured whole, the checkpoint
 * in it (px_shape_t.restart). */
static double app_checkpoint(const void *job)
{
	(void)job;
	return 0.0;
}

/* The peer's oracle accumulates on one GPU whatever the batch. */
static void app_oracle_split(const void *job, double bsz, int replicas,
			     int *atomic, int *accum)
{
	const px_spec_t *sp = job;

	px_app_split_batch(sp->app, bsz, replicas, true, atomic, accum);
}

static double app_iterations_to(const void *job, double bsz, int epoch)
{
	const px_spec_t *sp = job;

	return px_app_iteration(sp->app, bsz, epoch);
}

const sim_truth_ops_t px_app_truth = {
	.max_replicas = app_max_replicas,
	.split = app_split,
	.step_time = app_step_time,
	.iteration_time = app_iteration_time,
	.gain = app_gain,
	.epoch_start = app_epoch_start,
	.work = app_work,
	.loss = app_loss,
	.gradients = app_gradients,
	.checkpoint = app_checkpoint,
	.oracle_split = app_oracle_split,
	.iterations_to = app_iterations_to,
};

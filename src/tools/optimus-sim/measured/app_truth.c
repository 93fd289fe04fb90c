/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/app_truth.c - the measured applications as the engine's truth
 * (measured/job_truth.h): each operation is the application's own rule of
 * measured/app.h, read for the job's application (px_spec_t.app).
 */
#include "measured/engine.h"

static int app_max_replicas(const px_spec_t *job, double bsz)
{
	return px_app_max_replicas(job->app, bsz);
}

/* A batch above the smallest validated on one GPU always accumulates
 * (the peer's rule, part of the measured truth). */
static void app_split(const px_spec_t *job, double bsz, int replicas,
		      int *atomic, int *accum)
{
	px_app_split_job(job->app, bsz, replicas, atomic, accum);
}

static int app_step_time(const px_spec_t *job, const int *placement,
			 size_t nnodes, int atomic, double *step, double *sync,
			 char *err, size_t errlen)
{
	return px_app_step_time(job->app, placement, nnodes, atomic, step,
				sync, err, errlen);
}

static double app_iteration_time(const px_spec_t *job, double step,
				 double sync, int accum)
{
	(void)job;
	return px_app_iteration_time(step, sync, accum);
}

static int app_gain(const px_spec_t *job, double bsz, int epoch,
		    double *gain)
{
	return px_app_gain(job->app, bsz, epoch, gain);
}

static double app_epoch_start(const px_spec_t *job, int epoch)
{
	return px_app_progress(job->app, epoch);
}

static int app_gradients(const px_spec_t *job, double bsz, int epoch,
			 double *sqr, double *var)
{
	return px_app_grad_stats(job->app, bsz, epoch, sqr, var);
}

/* The peer's oracle accumulates on one GPU whatever the batch. */
static void app_oracle_split(const px_spec_t *job, double bsz, int replicas,
			     int *atomic, int *accum)
{
	px_app_split_batch(job->app, bsz, replicas, true, atomic, accum);
}

static double app_iterations_to(const px_spec_t *job, double bsz, int epoch)
{
	return px_app_iteration(job->app, bsz, epoch);
}

const px_truth_t px_app_truth = {
	.max_replicas = app_max_replicas,
	.split = app_split,
	.step_time = app_step_time,
	.iteration_time = app_iteration_time,
	.gain = app_gain,
	.epoch_start = app_epoch_start,
	.gradients = app_gradients,
	.oracle_split = app_oracle_split,
	.iterations_to = app_iterations_to,
};

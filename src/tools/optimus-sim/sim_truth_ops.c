/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_truth_ops.c - what follows from a truth's answers, whichever truth
 * (sim_truth_ops.h): a configuration's batch and a job's true speed.
 */
#include "sim_truth_ops.h"

double sim_truth_run_batch(const sim_truth_run_t *run)
{
	return (double)run->workers * run->atomic * (run->accum + 1);
}

int sim_truth_progress_rate(const sim_truth_ops_t *t, const void *job,
			    const sim_truth_run_t *run, int epoch,
			    double *rate)
{
	double step, sync, gain;
	int rc = t->step_time(job, run, &step, &sync, NULL, 0);

	if (rc || (rc = t->gain(job, run, epoch, &gain)))
		return rc;
	*rate = gain / t->iteration_time(job, step, sync, run->accum);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_truth_ops.c - what follows from a truth's answers, whichever truth
 * (sim_truth_ops.h): a configuration's batch and what a job measures of
 * a configuration.
 */
#include <math.h>

#include "sim_truth_ops.h"

double sim_truth_run_batch(const sim_truth_run_t *run)
{
	return (double)run->workers * run->atomic * (run->accum + 1);
}

int sim_truth_measure(const sim_truth_ops_t *t, const void *job,
		      const sim_truth_run_t *run, int epoch,
		      sim_truth_sample_t *out, char *err, size_t errlen)
{
	int rc = t->step_time(job, run, &out->step, &out->sync, err, errlen);

	if (rc)
		return rc;
	out->iteration = t->iteration_time(job, out->step, out->sync,
					   run->accum);
	out->moves = !t->gain(job, run, epoch, &out->gain);
	out->rate = out->moves ? out->gain / out->iteration : NAN;
	if (!out->moves)
		out->gain = NAN;
	return 0;
}

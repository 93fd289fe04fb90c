/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/job_truth.h - what the measured engine (measured/engine.c) asks
 * of a job's truth, and nothing else: a table of operations each job's
 * spec points to (px_spec_t.truth). The engine runs the rounds, holds the
 * GPUs and charges the starts; how long a step takes, how far it gets the
 * job, where its epochs end and what it measures of its gradients are the
 * truth's. The measured applications of the Pollux artifact are one truth
 * (px_app_truth, measured/app_truth.c); a unit test gives another.
 *
 * Every operation takes the job's spec (the truth's own data hangs from
 * it: px_spec_t.app for the measured one) and is pure: the same question
 * gets the same answer. Progress is counted in the truth's own units,
 * from 0 at the start of epoch 0; the job is done when its progress
 * reaches the start of epoch spec->epochs.
 */
#ifndef OPTIMUS_POLLUX_JOB_TRUTH_H
#define OPTIMUS_POLLUX_JOB_TRUTH_H

#include <stdbool.h>
#include <stddef.h>

struct px_spec;

typedef struct px_truth {
	/* Most GPUs a job at global batch bsz may use. */
	int (*max_replicas)(const struct px_spec *job, double bsz);
	/* The per-GPU batch and extra micro-steps the job runs global
	 * batch bsz at on `replicas` GPUs, when no policy chose them. */
	void (*split)(const struct px_spec *job, double bsz, int replicas,
		      int *atomic, int *accum);
	/* Seconds of one step at per-GPU batch `atomic` on `placement`
	 * (GPUs per node, nnodes nodes), and of it the all-reduce (sync):
	 * 0, or -errno with a message naming the job. */
	int (*step_time)(const struct px_spec *job, const int *placement,
			 size_t nnodes, int atomic, double *step,
			 double *sync, char *err, size_t errlen);
	/* Seconds of one iteration: a step of `step` seconds (`sync` of
	 * them all-reduce) and `accum` extra micro-steps. */
	double (*iteration_time)(const struct px_spec *job, double step,
				 double sync, int accum);
	/* Progress one iteration at global batch bsz makes during `epoch`
	 * (0-based): 0 or -EDOM. */
	int (*gain)(const struct px_spec *job, double bsz, int epoch,
		    double *gain);
	/* Progress at the start of `epoch` (0 for epoch 0). */
	double (*epoch_start)(const struct px_spec *job, int epoch);
	/* The gradient statistics (squared norm, variance) the job
	 * measures during `epoch` at global batch bsz: 0, or -EDOM when it
	 * has none there. */
	int (*gradients)(const struct px_spec *job, double bsz, int epoch,
			 double *sqr, double *var);
	/* What an oracle reads of it (px_job_true_step,
	 * px_job_remaining_steps): the split an oracle assumes for global
	 * batch bsz on `replicas` GPUs, and the iterations at batch bsz
	 * from the start to the end of `epoch` (< 0 outside the truth). */
	void (*oracle_split)(const struct px_spec *job, double bsz,
			     int replicas, int *atomic, int *accum);
	double (*iterations_to)(const struct px_spec *job, double bsz,
				int epoch);
} px_truth_t;

/* The measured applications (measured/app.h), for a spec whose `app` is
 * one of them. */
extern const px_truth_t px_app_truth;

#endif

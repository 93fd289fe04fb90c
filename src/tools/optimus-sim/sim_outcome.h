/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_outcome.h - what a simulated run came to, one record for both
 * engines (sim_run.h's sim_result_t and measured/engine.h's px_result_t
 * each hold one): every job's outcome, as its engine recorded it, and the
 * figures over them, computed in one place from those outcomes
 * (sim_outcome_figures).
 */
#ifndef OPTIMUS_SIM_OUTCOME_H
#define OPTIMUS_SIM_OUTCOME_H

#include <stddef.h>

#include "sim_decision.h"

typedef struct sim_job_outcome {
	double submit;		/* seconds */
	double start;		/* its first allocation; < 0: none */
	double end;		/* its completion; < 0: not done */
	/* Its starts from a checkpoint and its batch changes taken in
	 * place (sim_job_outcome_take). */
	unsigned restarts, rebatches;
	/* Seconds of its decisions' costs it spent without progress
	 * (sim_job_outcome_lose). */
	double lost;
	double gpu_seconds;	/* GPUs held x seconds, restarts included */
} sim_job_outcome_t;

typedef struct sim_outcome {
	sim_job_outcome_t *jobs;	/* per job, workload order; owned */
	size_t njobs, ndone;
	/* Of the jobs done: the mean, median and 99th percentile of their
	 * JCTs (end - submit; NAN: none done), the last end (0: none). */
	double avg_jct, median_jct, p99_jct, makespan;
	/* The GPU-seconds the jobs held (their sum), and the share of the
	 * cluster's GPUs held (sim_outcome_use). */
	double gpu_seconds, gpu_util;
	size_t restarts, rebatches;	/* of every job */
	double lost;			/* seconds lost by the jobs done */
	double run_seconds;	/* theirs from first allocation to end */
} sim_outcome_t;

/* Room for n jobs, none started or done: 0 or -ENOMEM. */
int sim_outcome_init(sim_outcome_t *o, size_t n);
void sim_outcome_free(sim_outcome_t *o);

/*
 * What a run came to, the one builder of both engines: o holds the
 * outcomes of an engine's n jobs (the i-th at jobs + i x stride, each
 * beginning with its sim_job_core_t, sim_job_core.h) and the figures
 * over them
 * (sim_outcome_figures), gpu_util the share of `gpus` GPUs that `held`
 * GPU-seconds are (sim_outcome_use): the jobs' own sum (o->gpu_seconds)
 * when held < 0. 0 or -ENOMEM.
 */
int sim_outcome_build(sim_outcome_t *o, const void *jobs, size_t n,
		      size_t stride, double gpus, double held, double now);

/* The figures of o from its jobs' outcomes but gpu_util: 0 or -ENOMEM. */
int sim_outcome_figures(sim_outcome_t *o);
/*
 * The share of a cluster's `capacity` (of GPUs, CPUs) that `held` of it
 * (its integral over time, as the engine sums it) is over the makespan of
 * o's figures, or to `now` when no job is done; 0 if the cluster has none.
 */
double sim_outcome_use(const sim_outcome_t *o, double capacity, double held,
		       double now);

/*
 * What a decision `take` carried out at `now` counts in the job's outcome,
 * one rule for both engines: a first start is its first allocation, not
 * a restart; every start from its checkpoint is a restart, whatever
 * called for it (a resize, a start after a preemption, a re-allocation
 * of a policy that places its own jobs); a batch change taken in place
 * is a re-batch. The other takes count nothing.
 */
void sim_job_outcome_take(sim_job_outcome_t *j, sim_take_t take, double now);
/*
 * The job spent `seconds` of a decision's cost (sim_start_cost.h: a first
 * start's, a restart's, a re-batch's) without progress: every such second
 * is lost, whatever the decision. An engine adds them as they pass, so
 * that a cost cut short by the next decision is lost only as far as it
 * ran, or at once where nothing cuts one short (sim_apply.c).
 */
void sim_job_outcome_lose(sim_job_outcome_t *j, double seconds);

/* The job's JCT, NAN if not done. */
double sim_job_outcome_jct(const sim_job_outcome_t *j);
/* Seconds from its submission to its first allocation, NAN if none. */
double sim_job_outcome_wait(const sim_job_outcome_t *j);

/* The median and 99th percentile of v[0..n), which it sorts; NAN when
 * n is 0. */
void sim_outcome_quantiles(double *v, size_t n, double *median,
			   double *p99);

#endif

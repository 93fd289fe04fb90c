/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_truth_ops.h - what either engine asks of a job's truth, and nothing
 * else: a table of operations each job points to. The engines run the
 * jobs, hold their servers or GPUs and charge their starts; how long a
 * step takes in a configuration, how far an iteration gets the job,
 * where its epochs end, where it is done, its loss, what it measures of
 * its gradients and what a restart from its checkpoint costs are the
 * truth's. Two truths implement it: the catalogue's synthetic jobs
 * (sim_catalog_truth, sim_catalog_truth.c, for the parameter-server
 * engine, sim_run.c) and the measured applications of the Pollux artifact
 * (px_app_truth, measured/app_truth.c, for the measured engine,
 * measured/engine.c); a unit test gives a third.
 *
 * Every operation takes the truth's own data for the job (`job`: the
 * synthetic engine's sim_truth_t, the measured engine's px_spec_t) and is
 * pure: the same question gets the same answer. Progress is counted in
 * the truth's own units from 0 at the start of epoch 0; the job is done
 * when its progress reaches work().
 */
#ifndef OPTIMUS_SIM_TRUTH_OPS_H
#define OPTIMUS_SIM_TRUTH_OPS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A configuration a job runs in: its tasks on each node it holds, and
 * how it splits its batch. A parameter-server job has ps > 0 and
 * node_ps; an all-reduce job has neither.
 */
typedef struct sim_truth_run {
	int workers;		/* workers (GPUs), on all its nodes */
	int ps;			/* parameter servers; 0: all-reduce */
	size_t nnodes;
	const int *node_workers;	/* workers on each node */
	const int *node_ps;		/* PS on each node; NULL: none */
	/* Parameter-server jobs: PAA's parameter assignment, else
	 * MXNet's default (alloc/paa.h). */
	bool paa;
	int atomic, accum;	/* per-GPU batch, extra micro-steps */
} sim_truth_run_t;

typedef struct sim_truth_ops {
	/* Most GPUs a job at global batch bsz may use. */
	int (*max_replicas)(const void *job, double bsz);
	/* The per-GPU batch and extra micro-steps the job runs global
	 * batch bsz at on `replicas` GPUs, when no policy chose them. */
	void (*split)(const void *job, double bsz, int replicas,
		      int *atomic, int *accum);
	/* Seconds of one step of `run`, and of it the exchange of
	 * gradients or parameters (all-reduce or parameter servers):
	 * 0, or -errno with a message naming the job. */
	int (*step_time)(const void *job, const sim_truth_run_t *run,
			 double *step, double *sync, char *err,
			 size_t errlen);
	/* Seconds of one iteration: a step of `step` seconds (`sync` of
	 * them exchange) and `accum` extra micro-steps. */
	double (*iteration_time)(const void *job, double step, double sync,
				 int accum);
	/* Progress one iteration of `run` makes during `epoch`
	 * (0-based): 0 or -EDOM. */
	int (*gain)(const void *job, const sim_truth_run_t *run, int epoch,
		    double *gain);
	/* Progress at the start of `epoch` (0 for epoch 0). */
	double (*epoch_start)(const void *job, int epoch);
	/* Progress at which the job is done. */
	double (*work)(const void *job);
	/* The loss the job reaches at `progress`: 0, or -EDOM when the
	 * truth has no loss curve. */
	int (*loss)(const void *job, double progress, double *loss);
	/* The gradient statistics (squared norm, variance) the job
	 * measures during `epoch` at global batch bsz: 0, or -EDOM when it
	 * has none there. */
	int (*gradients)(const void *job, double bsz, int epoch,
			 double *sqr, double *var);
	/* Seconds to save and load its checkpoint, what a restart costs
	 * it besides the start itself (sim_start_cost.h); 0 where the
	 * engine's restart cost holds it. */
	double (*checkpoint)(const void *job);
	/* What an oracle reads of it (px_job_true_step,
	 * px_job_remaining_steps): the split an oracle assumes for global
	 * batch bsz on `replicas` GPUs, and the iterations at batch bsz
	 * from the start to the end of `epoch` (< 0 outside the truth). */
	void (*oracle_split)(const void *job, double bsz, int replicas,
			     int *atomic, int *accum);
	double (*iterations_to)(const void *job, double bsz, int epoch);
} sim_truth_ops_t;

/* The global batch `run` trains on per iteration: every GPU's batch
 * times its micro-steps. */
double sim_truth_run_batch(const sim_truth_run_t *run);

/* What a job running `run` measures of itself (sim_truth_measure). */
typedef struct sim_truth_sample {
	double step, sync;	/* seconds of a step, of them the exchange */
	double iteration;	/* seconds of an iteration, micro-steps in */
	/* Whether the truth gives the job progress there; then the
	 * progress of an iteration and per second (gain / iteration). */
	bool moves;
	double gain, rate;
} sim_truth_sample_t;

/*
 * The one way either engine measures a configuration of a job, a run's
 * or a pre-run's: its truth's step time of `run`, the iteration it makes
 * and the progress of that iteration during `epoch`. 0, or the truth's
 * -errno (message in err) where it has no step time; no progress there
 * is no error (out->moves false): a pre-run times steps only.
 */
int sim_truth_measure(const sim_truth_ops_t *t, const void *job,
		      const sim_truth_run_t *run, int epoch,
		      sim_truth_sample_t *out, char *err, size_t errlen);

#endif

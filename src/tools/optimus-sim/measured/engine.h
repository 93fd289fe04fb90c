/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/engine.h - optimus-sim on the measured workloads of the Pollux
 * artifact: 16 nodes of 4 GPUs, every job data-parallel with all-reduce,
 * a plan every 60 s, 30 s without progress after every change of a job's
 * GPUs, and each job's progress drawn from its truth (sim_truth_ops.h:
 * the measured applications, measured/app.h, for the artifact's jobs). A
 * policy (measured/policy.h) maps the active jobs to GPUs at every round.
 * doc/design/simulator.md, "Measured workloads".
 */
#ifndef OPTIMUS_POLLUX_SIM_H
#define OPTIMUS_POLLUX_SIM_H

#include <stdbool.h>
#include <stddef.h>

#include "job/job_model.h"
#include "measured/app.h"
#include "plan/plan.h"
#include "sim_engine.h"
#include "sim_job_core.h"
#include "sim_outcome.h"
#include "sim_start_cost.h"
#include "sim_truth_ops.h"

#define PX_GPUS (PX_NODES * PX_NODE_GPUS)	/* the most a cluster has */
#define PX_ROUND 60.0		/* seconds between plans */
#define PX_RESTART 30.0		/* seconds lost per re-allocation */

/*
 * The simulated cluster and its timing: the artifact's by default
 * (px_shape_default: 16 nodes, PX_ROUND, PX_RESTART for a first start and
 * a re-allocation alike, the plugin's minimum
 * resize interval, time limits in whole minutes); `experiment pollux
 * --nodes ...` sets another, e.g. the localhost cluster of
 * bench/pollux_replay.py with its compression (doc/design/simulator.md).
 */
typedef struct px_shape {
	int nodes;		/* of PX_NODE_GPUS GPUs, 1..PX_NODES */
	double round;		/* seconds between plans */
	double start;		/* seconds lost at a job's first allocation */
	/* Seconds each first start adds to the starts queued behind it
	 * (sim_start_cost.h: `start` + this times the starts ahead
	 * still launching); 0: every start costs `start` (the default). */
	double start_queued;
	double restart;		/* seconds lost per re-allocation */
	double min_resize;	/* stability rule: seconds between resizes */
	double limit_unit;	/* slurm-backfill's limits are whole units */
	/* Our policies plan with ExploreScaling (plan_params_t.
	 * explore_scaling): on in this set-up (doc/design/simulator.md). */
	bool explore_scaling;
	/* slurm-backfill's limits count this start, not `start`: a user's
	 * allowance for the wait between allocation and launch, which the
	 * limit covers (bench/pollux_replay.py); < 0: `start`. */
	double limit_start;
	/* The jobs as bench/pollux_replay.py submits them (--bench-hints):
	 * no epoch_steps= (each learns its epoch's length from the whole
	 * epochs it reports), and a goodput job's batch range starts at its
	 * submitted batch, its size within that batch's largest. Off by
	 * default: the sweep's jobs are the artifact's. */
	bool bench_hints;
	/* Seconds lost per batch change taken in place (our policies'
	 * re-batch of a kept job: plan_rebatch, job/job_rebatch.c): the
	 * plan's RebatchCost by default, not a restart. */
	double rebatch;
	/* The jobs never say their batch (examples/replay_trainer.py, the
	 * cluster's side of bench/pollux_replay.py): every batch change is
	 * a restart. Off by default: they take changes in place. */
	bool rebatch_by_restart;
	/* The objective goodput allocates by (--goodput-objective):
	 * the completion rate by default, the plugin's. */
	plan_goodput_objective_t goodput_objective;
} px_shape_t;

px_shape_t px_shape_default(void);
/* The set-up's stability interval for a restart cost: the plugin's
 * default ratio, MinResizeInterval / RestartCost = 1800 / 180 = 10
 * (doc/design/simulator.md), unless --min-resize sets it. */
double px_min_resize_for(double restart);

typedef struct px_spec {
	char name[48];
	/* What the engine asks of the job's truth (sim_truth_ops.h), each
	 * operation given this spec as the truth's data, and the measured
	 * application it reads (px_app_truth's data; NULL under another
	 * truth). */
	const sim_truth_ops_t *truth;
	const px_app_t *app;
	double submit;		/* seconds */
	int replicas;		/* GPUs the user asked for */
	double bsz;		/* global batch size */
	int epochs;		/* counted until done: the application's, or
				 * fewer (a slice, `experiment pollux
				 * --epochs`) */
	/* What its user says at submission (measured/declared.h): epochs=
	 * (0: none) and whether epoch_steps= is given; px_workload_read
	 * gives the exact ones, `epochs` and epoch_steps=. */
	int declared_epochs;
	bool epoch_steps_hint;
} px_spec_t;

typedef struct px_workload {
	px_spec_t *jobs;
	size_t n;
} px_workload_t;

/* Read name,time,application,num_replicas,batch_size: 0 or -errno with
 * "path: row N, ..." in err (an unknown model, a size out of the
 * measured domain, a batch outside the validated range). */
int px_workload_read(const char *path, const px_app_t *apps, size_t napps,
		     px_workload_t *out, char *err, size_t errlen);
void px_workload_free(px_workload_t *w);

/* What a job reports of one step it ran (what a fitted model sees). */
typedef struct px_obs {
	int nodes, replicas, atomic, accum;
	double step, sync;	/* seconds */
} px_obs_t;

/*
 * A job estimates its gradient statistics every PX_ESTIMATE_STEPS steps
 * it runs, as the DDP example does by default (examples/torch_trainer.py
 * --stats-every; optimus_report.GradientStats), and reports each: its
 * truth's statistics of the epoch at the batch it runs (measured/app.h
 * units, the variance over B0 examples). Consecutive equal estimates are
 * one entry with their count.
 */
#define PX_ESTIMATE_STEPS 10.0
typedef struct px_estimate {
	double grad_sqr, grad_var;
	long count;
} px_estimate_t;

typedef struct px_job {
	/* What both engines keep of a job (sim_job_core.h). Its id is its
	 * index in the workload + 1; its truth spec->truth on spec; its
	 * record one a policy of ours makes (none under a peer baseline);
	 * its hold its GPUs, a slot per run of GPUs on one node in the
	 * order they were granted, each GPU a worker; its outcome counts
	 * every re-allocation after the first a restart (sim_outcome.h);
	 * its progress reaches each epoch's start at a whole second
	 * (job_run). */
	sim_job_core_t core;
	const px_spec_t *spec;
	int atomic, accum;	/* per-GPU batch, extra micro-steps */
	double bsz;		/* global batch it runs at (spec's at first) */
	/* The gradient estimates it made since a policy last took them
	 * (px_job_estimates_take), in order, and the steps it ran since its
	 * last one. */
	px_estimate_t *estimates;
	size_t nestimates, estimates_cap;
	double estimate_steps;
	double rescale;		/* seconds of restart left */
	/* When its current run's first step may come: the allocation or
	 * re-batch plus the seconds charged for it (a first start's,
	 * queued behind the starts launching, a restart's or a re-batch's:
	 * sim_apply_decision.h). What a record of the run times it from. */
	double began;
	int epoch;		/* its current epoch, from 0 */
	double steps;		/* steps run */
	/* Steps per second of its current run once it steps (what a job
	 * measures of its own steps, reported with its progress); 0 before
	 * its first step after an allocation, and while it holds nothing. */
	double rate;
	/* The all-reduce seconds of that step, as the job times them and
	 * says in its progress (sync_seconds); 0 when rate is. */
	double sync;
	int max_replicas;	/* px_job_max_replicas, within the cluster */
	px_obs_t *obs;		/* distinct configurations run, in order */
	int nobs;
	size_t obs_cap;
	/* Set by a policy with a new allocation: the round after its restart
	 * is a charged pre-run (px_prerun), then cleared. */
	bool prerun;
} px_job_t;

/* The job whose core c is (its first member): how the code both engines
 * share hands a job back (sim_apply_ops_t). */
static inline px_job_t *px_job_of(sim_job_core_t *c)
{
	return (px_job_t *)c;
}

/* Hand the job's estimates since the last call to the caller (which
 * frees *out) and forget them: how many, 0 with *out NULL if none. */
size_t px_job_estimates_take(px_job_t *j, px_estimate_t **out);

/* GPUs the job holds. */
static inline int px_job_gpus(const px_job_t *j)
{
	return sim_hold_workers(&j->core.hold);
}

/* The node of each of its GPUs in grant order, into node[]: how many. */
static inline int px_job_gpu_nodes(const px_job_t *j, int *node)
{
	return sim_hold_worker_servers(&j->core.hold, node);
}

typedef struct px_sim px_sim_t;

/* A policy: next allocation of the active jobs (indices into s->jobs, in
 * submission order).
 * next[j] / nnext[j]: node per GPU, in grant order (px_job_gpu_nodes); the
 * engine starts with every job's current allocation there, and moves each
 * job whose next GPUs differ to them (a start, a resize, a preemption to
 * none: sim_apply_decision.h). A policy that carries out its own plan's
 * decisions (px_sim_apply) leaves what its jobs then hold. 0 or -errno
 * (s->err). */
typedef struct px_policy {
	const char *name;
	int (*plan)(struct px_policy *p, px_sim_t *s, const size_t *active,
		    size_t nactive, int (*next)[PX_GPUS], int *nnext);
	void (*destroy)(struct px_policy *p);
	void *state;
	/* What the policy reads from the truth at no cost (an oracle),
	 * said beside its figures; NULL: nothing. */
	const char *oracle;
} px_policy_t;

struct px_sim {
	px_shape_t shape;
	/* The loop, its queue and its time (sim_engine.h). */
	sim_engine_t eng;
	px_job_t *jobs;
	res_vec_t free[PX_NODES];	/* per node, what no job holds */
	/* What a decision costs a job: the shape's (sim_start_cost.h). */
	sim_start_costs_t costs;
	size_t rounds;
	char *err;
	size_t errlen;
};

typedef struct px_result {
	char label[32];
	const char *oracle;	/* the policy's, static */
	sim_outcome_t run;	/* every job's, workload order */
	double *limit;		/* per job: slurm-backfill's time limit (s),
				 * 0 under other policies */
} px_result_t;

/* A decision for job `job` of s, taken by its record m (NULL: by none,
 * its action the take: sim_apply_decision.h). */
typedef struct px_decision {
	size_t job;
	const plan_decision_t *d;
	job_model_t *m;
} px_decision_t;

/*
 * Carry out dec[0..n) on s's jobs by the one rule (sim_apply_decision.h),
 * in their order: each GPU a worker using a GPU, a CPU and a unit of
 * memory; a start, a restart or a resize at the decision's batch (its
 * plan's split, else the job's own), after the seconds charged; a
 * preempted job holding nothing. 0 or -errno (s->err).
 */
int px_sim_apply(px_sim_t *s, const px_decision_t *dec, size_t n);
/* The next allocation a[0..n) of job i (a node per GPU) as a decision no
 * plan made, into *d on slots[] (PX_GPUS of them): a start on them, a
 * resize to them from the GPUs it holds, a preemption to none; 0 if its
 * GPUs are the same (no decision), else 1. */
int px_move_decision(const px_sim_t *s, size_t i, const int *a, int n,
		     plan_decision_t *d, place_slot_t *slots);

/* Run w under policy p (p->destroy is called) on `shape` (NULL: the
 * default): 0 or -errno + message. */
int px_sim_run(const px_workload_t *w, const px_shape_t *shape,
	       px_policy_t *p, px_result_t *out, char *err, size_t errlen);
/* GPUs of the simulated cluster. */
int px_sim_gpus(const px_sim_t *s);
/* Each node's room, room[0..PX_NODES): its GPUs, a GPU one of each
 * resource (as the plan sees them); none beyond the shape's nodes (a
 * slice's smaller cluster). */
void px_sim_room(const px_sim_t *s, res_vec_t *room);
void px_result_free(px_result_t *r);

/*
 * The pre-run configurations, GPUs on the fewest nodes ({GPUs, nodes}):
 * the Optimus paper's few short runs before a job is scheduled. Charged
 * (px_job_t.prerun): the job spends the round after its restart running
 * each one that its GPUs hold on the first of its GPUs (in grant order)
 * and records its step time there, with no progress; the GPUs and the
 * time are its own. Free (--oracle-prerun, measured/plan_adapter.c): the truth.
 */
extern const int px_prerun[5][2];

/* Step time (s) of job j on `replicas` GPUs packed on as few nodes as
 * possible at its batch size, accumulation included: the truth the oracles
 * use. -1 outside its truth. */
double px_job_true_step(const px_job_t *j, int replicas);
/* Most GPUs a job may use: its truth's (measured: its batch over the
 * smallest per-GPU batch measured; NCF one, the artifact's rule), within
 * the simulated cluster. */
int px_job_max_replicas(const px_job_t *j);
/* Seconds from the first allocation to completion of `spec` alone on
 * `replicas` GPUs packed on the fewest nodes, its first restart (the
 * shape's; NULL: the default) included: the truth, for rules that model
 * what a user knows (a Slurm time limit). 0 or -errno with a message. */
int px_spec_true_runtime(const px_spec_t *spec, int replicas,
			 const px_shape_t *shape, double *out, char *err,
			 size_t errlen);
/* Steps left to its last counted epoch at its batch size (>= 1). */
double px_job_remaining_steps(const px_job_t *j);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_apply_decision.h - what a plan's decisions do to simulated jobs, the
 * one rule both engines carry them out by (sim_apply.c for the synthetic
 * jobs, measured/engine.c for the measured ones):
 *
 *   1. every decision is taken by its job's record (sim_decision_take),
 *      which says what the job takes (sim_take_t); a decision the record
 *      refuses is the engine's to answer;
 *   2. the jobs that stop (a resize, a preemption) give their servers back
 *      (sim_hold_release), before any job takes, so a start may use them;
 *   3. a preempted job holds nothing and waits;
 *   4. in the decisions' order (the jobs' own, the order their first
 *      starts queue in), a start, a restart or a resize holds its
 *      decision's slots (sim_hold_take), and it or a batch change in place
 *      is charged (sim_start_charge); a wait or a keep leaves the job as
 *      it holds.
 *
 * What a take means to the engine's own job (a synthetic job's RESUME
 * after its cost, a measured job's rounds) is the engine's, told through
 * sim_apply_ops_t. The batch a start or a batch change runs at is the
 * decision's (sim_apply_batch). A decision no record takes (a measured
 * peer baseline's next allocation, a charged pre-run) follows the same
 * steps, its take said by its action and the job's outcome
 * (sim_apply_job_t.m NULL).
 */
#ifndef OPTIMUS_SIM_APPLY_DECISION_H
#define OPTIMUS_SIM_APPLY_DECISION_H

#include <stddef.h>
#include <time.h>

#include "alloc/resources.h"
#include "job/job_model.h"
#include "plan/plan.h"
#include "sim_decision.h"
#include "sim_job_core.h"
#include "sim_start_cost.h"

typedef struct sim_apply_job {
	const plan_decision_t *d;
	/* Its record, which takes d; NULL: no record does, and d's action
	 * says the take (a START is the job's first start until its
	 * outcome says it started, then one from its checkpoint). */
	job_model_t *m;
	/* The job: its slots, its truth's checkpoint (what a restart
	 * charges), its outcome. */
	sim_job_core_t *job;
	res_vec_t ps, worker;	/* what each PS and worker uses of a server */
	/* Set by sim_apply_decisions: what the job took, and the seconds it
	 * was charged for it (0 but for a start or a batch change). */
	sim_take_t take;
	double cost;
} sim_apply_job_t;

/* Where the decisions are carried out: the servers' free room, what a
 * decision costs, and the time (the records' and the charges'). */
typedef struct sim_apply_env {
	res_vec_t *free;
	size_t nservers;
	sim_start_costs_t *costs;
	double now;
	time_t record_now;
} sim_apply_env_t;

/* What each engine adds to a job j of the list, its own job the one that
 * embeds j->job (sim_job_core.h); each returns 0 or the run's error. */
typedef struct sim_apply_ops {
	/* j's record refused its decision (plan_apply's rc, why): 0 leaves
	 * the job as it is (its take SIM_TAKE_KEEP). */
	int (*refused)(void *ctx, sim_apply_job_t *j, int rc,
		       const char *why);
	/* j's decision placed `slot` where its server has no room. */
	int (*no_room)(void *ctx, sim_apply_job_t *j,
		       const place_slot_t *slot);
	/* j was preempted and gave its servers back. */
	int (*preempted)(void *ctx, sim_apply_job_t *j);
	/* j took a start, a restart or a resize (on its decision's slots)
	 * or a batch change in place, charged j->cost. */
	int (*taken)(void *ctx, sim_apply_job_t *j);
} sim_apply_ops_t;

/* Carry out jobs[0..n)'s decisions (see above): 0 or the first error. */
int sim_apply_decisions(sim_apply_job_t *jobs, size_t n,
			const sim_apply_env_t *env, const sim_apply_ops_t *ops,
			void *ctx);

/*
 * The global batch a start or a batch change of d runs at: d's, else
 * `submitted` (the plan chose none: the job's own). *atomic and *accum:
 * the plan's split of it (per-GPU batch, extra micro-steps) when it sent
 * one, else *atomic 0: the job splits it itself.
 */
double sim_apply_batch(const plan_decision_t *d, double submitted, int *atomic,
		       int *accum);

#endif

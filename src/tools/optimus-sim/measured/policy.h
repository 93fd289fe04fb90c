/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/policy.h - the policies of the measured-workload experiment.
 *
 * The peer's rules, as the Pollux paper's artifact describes them and
 * labelled as theirs: `peer-optimus-oracle` (one GPU at a time to the job
 * whose remaining time drops most, true step times and remaining steps,
 * batch fixed at submission) and `tiresias` (two-queue discretised
 * least-attained-service, jobs at their submitted size).
 *
 * Ours, through the plan itself (plan_run, measured/plan_adapter.c: the plugin's
 * records and rules) on all-reduce jobs: `optimus` (Policy=optimus, Eqn.
 * 9 on models fitted from what the jobs report of the configurations they
 * ran in), `optimus-rate` (the completion-rate greedy, alloc/rate.c, at
 * the submitted batch), `goodput` (Policy=goodput: the same greedy on
 * progress per second at the best batch for the GPUs and nodes, each
 * job's batch chosen with its GPUs from its efficiency and step-time
 * models), `quality` (Algorithm 1), `optimus-oracle` (Eqn. 9 on records
 * given the true step times and remaining steps), `drf` and `fifo`
 * (Policy=drf, Policy=fifo, every job at its submitted size);
 * `slurm-backfill` (Slurm's priority order with reservations and backfill
 * under time limits, at the submitted size: what a Slurm user gets today)
 * and `first-fit` (the same without reservations), measured/slurm_backfill.c.
 *
 * The fitted ones (optimus, optimus-rate, goodput, quality) take a
 * pre-run mode:
 * none (the default), charged (labelled "+charged-prerun": the job's
 * first round measures the pre-run configurations on its own GPUs, see
 * px_prerun) or oracle (labelled "+oracle-prerun": true step times it
 * never ran, for free).
 */
#ifndef OPTIMUS_POLLUX_POLICY_H
#define OPTIMUS_POLLUX_POLICY_H

#include "job/job_model.h"
#include "plan/plan.h"
#include "measured/engine.h"

typedef enum px_prerun_mode {
	PX_PRERUN_NONE = 0, PX_PRERUN_CHARGED, PX_PRERUN_ORACLE,
} px_prerun_mode_t;

/* A new policy by name, or NULL if unknown; its label (p->name) names
 * the pre-run when one applies to it. */
px_policy_t *px_policy_new(const char *name, px_prerun_mode_t prerun);
/* Every label, in the experiment's order. */
extern const char *const px_policy_names[];
extern const size_t px_policy_count;

/* Constructors (measured/peer_baselines.c, measured/slurm_backfill.c). */
px_policy_t *px_peer_optimus_new(void);
px_policy_t *px_tiresias_new(void);
px_policy_t *px_backfill_new(const char *name);
/* optimus, optimus-rate, goodput, goodput-nopreempt, quality,
 * optimus-oracle, drf, fifo through plan_run (measured/plan_adapter.c);
 * NULL for another name. */
px_policy_t *px_plan_new(const char *name, px_prerun_mode_t prerun);
/* What a job of `spec` says at submission under our policy `policy` (a
 * name px_plan_new takes) on the cluster of `shape`, as --scheduler=
 * text (hints_format): the hints its record is given, an adaptive job's
 * batch range included, a fixed batch left to the job (no batch=). 0; -EINVAL for another policy; -ERANGE with the
 * reason in err when the plugin would refuse them (hints_validate: an
 * adaptive job's range beyond what its per-GPU batch and accumulation
 * hold on its fewest GPUs, outside --bench-hints); -ENOSPC. */
int px_plan_hints(const char *policy, const px_shape_t *shape,
		  const px_spec_t *spec, char *buf, size_t len, char *err,
		  size_t errlen);
/* For tests: the record a policy of measured/plan_adapter.c made for job
 * `job` of the run it plans (px_job_t.core.jm; NULL for another policy or
 * before the job was first planned). */
const job_model_t *px_plan_job_model(const px_policy_t *p, size_t job);
/* For tests: the plan of its last round (decisions[k] answers job
 * (*job)[k] of the engine), or NULL before the first. */
const plan_t *px_plan_last(const px_policy_t *p, const size_t **job);

/* For tests: slurm-backfill's time limit of job `job` in seconds (0 until
 * the job is submitted, or for another policy). */
double px_backfill_limit(const px_policy_t *p, size_t job);

#endif

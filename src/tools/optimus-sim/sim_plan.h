/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_plan.h - one plan of a simulated cluster, the one way both engines
 * reach plan_run (sim_apply.c for the synthetic jobs,
 * measured/plan_adapter.c for the measured ones): each job given to the
 * plan by one rule from its record and its hold, the engine's
 * configuration made the plan's by one builder, the core's rules choose
 * who enters the plan and build its parameters (plan_interval_prepare, as
 * sched/optimus does), servers closed to new tasks get no room, and
 * plan_run decides. The decisions are taken by sim_decision.h.
 */
#ifndef OPTIMUS_SIM_PLAN_H
#define OPTIMUS_SIM_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "plan/plan.h"
#include "plan/plan_input.h"
#include "plan/plan_interval.h"
#include "sim_job_core.h"

/*
 * What a simulated run plans with, as optimus.conf's values are for
 * sched/optimus (plan_interval.h's plan_params_for builds each plan's
 * parameters from them): what both engines say.
 */
typedef struct sim_plan_conf {
	plan_policy_t policy;
	double interval;	/* seconds between plans */
	double restart_cost;	/* seconds a restart costs, as priced */
	double min_resize_interval;	/* seconds between a job's resizes */
	/* Preempt=: 1 yes, 0 no, -1 the policy's default
	 * (plan_preempt_default). */
	int preempt;
} sim_plan_conf_t;

/*
 * The plan's parameters *pc from c, the core's defaults for the rest
 * (plan_params_init); an engine sets after it what only it says (the
 * synthetic engine its damping, placement and resize threshold, the
 * measured one its re-batch cost and scaling exploration).
 */
void sim_plan_params(plan_params_t *pc, const sim_plan_conf_t *c);

typedef struct sim_plan_in {
	const plan_input_t *in;	/* every job the engine has */
	size_t n;
	time_t now;
	res_vec_t *room;	/* each server's room for the jobs */
	size_t nservers;
	const plan_params_t *conf;	/* the engine's configuration */
	/* A straggler's node as a server (plan_interval_prepare); NULL:
	 * none. */
	plan_server_of_fn server_of;
	void *server_arg;
	/* Per server: closed to new tasks (drained), its room 0 in the
	 * plan itself; NULL: none. */
	const bool *closed;
} sim_plan_in_t;

/*
 * A simulated job as the plan's input, its record job->jm: running on the
 * slots of its hold while it holds any, a decision's cost still passing
 * or not (whether the plan takes it then is its record's phase's say),
 * else waiting for the plan when `queued`, held as job_submit/optimus
 * holds a job; else not submitted yet or done. A start takes its slots
 * at once in both engines, so there is never a start applied and not
 * running.
 */
void sim_plan_input_job(plan_input_t *in, const sim_job_core_t *job,
			bool queued);

/*
 * Plan p's jobs into *plan: decisions[k] is for p->in[which[k]] (room for
 * p->n), *nplanned of them; p->room is left as plan_run leaves it; *wall
 * adds the seconds plan_run took on the clock (stderr's, never a figure;
 * NULL: not timed).
 * 0, or -errno with the plan's message in plan->err.
 */
int sim_plan_run(const sim_plan_in_t *p, plan_t *plan, size_t *which,
		 size_t *nplanned, double *wall);

#endif

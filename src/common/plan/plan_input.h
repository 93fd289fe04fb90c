/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_input.h - which jobs enter a plan and how: the rules that turn what
 * an adapter knows about each job (where the resource manager has it, what
 * it holds, the start applied last) into plan_job_t and the free room.
 *
 * sched/optimus (planner_input.c) and optimus-sim (sim_apply.c) only
 * translate their own records into plan_input_t; every rule below runs in
 * both, so the simulator plans with the rules slurmctld plans with.
 */
#ifndef OPTIMUS_PLAN_INPUT_H
#define OPTIMUS_PLAN_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "plan/plan.h"

/*
 * How long a start applied to a pending job reserves its slots. Slurm runs
 * a released job within seconds (a requeued one after cred_expire + 1 s);
 * one that still waits after this is planned anew.
 */
#define PLAN_START_RESERVED_SECONDS 60

/* Where the resource manager has a job. */
typedef enum plan_input_state {
	PLAN_INPUT_OTHER = 0,	/* not submitted, completing or finished */
	PLAN_INPUT_QUEUED,	/* pending */
	PLAN_INPUT_RUNNING,	/* running (or suspended) */
} plan_input_state_t;

/* What an adapter knows about one job when it plans. */
typedef struct plan_input {
	job_model_t *model;	/* may be NULL: the job is only counted */
	plan_input_state_t state;
	bool held;		/* queued and held until a plan starts it */
	/* Queued for a reason not the planner's (a user's or an admin's
	 * hold, a dependency, a begin time): not planned. */
	bool blocked;
	/* What the job holds now, whatever its state: slots[k] on server
	 * slots[k].server, using usage[k] there. */
	const place_slot_t *slots;
	const res_vec_t *usage;
	size_t nslots;
	/* The start applied last (0 slots: none) and when. */
	const place_slot_t *start_slots;
	const res_vec_t *start_usage;
	size_t nstart;
	time_t started_at;
	/* The job's cap (plan_job_t.cap); NULL: none. */
	const job_cap_t *cap;
	/* Whose job it is and that user's share weight (plan_job_t.user,
	 * .share: fair shares between users, plan/plan_fair.c). */
	uint32_t user;
	double share;
} plan_input_t;

/* Is the job the planner's to decide on now? */
bool plan_input_plannable(const plan_input_t *in);
/*
 * Released by an earlier plan and not running yet: the plans that follow
 * must not give its room to others while the resource manager holds it.
 */
bool plan_input_start_reserved(const plan_input_t *in, time_t now);

/*
 * The plan's jobs from in[0..n): jobs[k] answers in[which[k]] (both have
 * room for n). server_free[s] comes in as what server s has for these jobs
 * and goes out less what each of them holds and each reserved start takes
 * (plan_run's server_free). The plannable jobs' models are refitted.
 * Returns how many jobs enter the plan.
 */
size_t plan_input_collect(const plan_input_t *in, size_t n, time_t now,
			  res_vec_t *server_free, size_t nservers,
			  plan_job_t *jobs, size_t *which);

/*
 * What a resize costs (plan_params_t.restart_cost): the mean of the
 * resizes measured on the jobs of in[0..n) (checkpoint signal to restart),
 * else fallback (the configured cost).
 */
double plan_input_restart_cost(const plan_input_t *in, size_t n,
			       double fallback);

#endif

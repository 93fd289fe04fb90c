/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan.h - one scheduling interval: from job models and free servers to
 * decisions (start, keep, resize, wait), for every policy.
 *
 * The sched/optimus plugin and optimus-sim both call plan_run(), so the
 * policy logic exists once. A plan is:
 *   1. allocation: how many PS and workers each job gets (alloc.h), with
 *      the policy of the plan (Optimus marginal gain, quality-driven,
 *      DRF, Tetris, FIFO, goodput: one file each, plan_policy_NAME.c, and
 *      a row of plan_policy_list.h);
 *   2. stability: a running job is resized only when the predicted gain
 *      passes a threshold (smaller for large jobs) and its last resize is
 *      older than a minimum interval (Optimus open problem 3); other running
 *      jobs keep their allocation and their servers;
 *   3. placement (placement.h, Theorem 1) of the jobs to start or resize on
 *      the room left by the jobs that keep theirs; a job that cannot be
 *      placed waits (a running one then keeps its allocation instead).
 */
#ifndef OPTIMUS_PLAN_H
#define OPTIMUS_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "alloc/alloc.h"
#include "job/job_model.h"
#include "alloc/placement.h"
#include "alloc/resources.h"
#include "models/speed_profiles.h"

/* Policy= values, one a row of plan_policy_list.h. */
typedef enum plan_policy {
#define PLAN_POLICY(value, ops) value,
#include "plan/plan_policy_list.h"
#undef PLAN_POLICY
} plan_policy_t;

/* The objective goodput allocates by (plan_params_t.goodput_objective). */
typedef enum plan_goodput_objective {
	/* The completion-rate greedy, sum of f/Q (alloc/rate.c). */
	PLAN_GOODPUT_RATE = 0,
	/* Pollux's: the harmonic mean of each job's speedup over its fair
	 * share (alloc/fair_speedup.c). */
	PLAN_GOODPUT_SPEEDUP,
	/* The same with Pollux's restart weighting: a change of a job's
	 * GPUs weighs its speedup by max(age - restarts x R, 0) / (age + R),
	 * R the restart cost. */
	PLAN_GOODPUT_SPEEDUP_RESTART,
} plan_goodput_objective_t;

typedef struct plan_params {
	plan_policy_t policy;
	time_t now;
	double interval;		/* seconds between plans (quality: T) */
	double damping;			/* early-stage gain factor, 0.95 */
	double resize_threshold;	/* relative gain to resize, 0.10 */
	double resize_threshold_large;	/* for jobs >= large_tasks, 0.05 */
	int large_tasks;		/* PS + workers making a job large, 16 */
	double min_resize_interval;	/* seconds between resizes of a job */
	double restart_cost;		/* seconds a resize costs (estimate) */
	bool placement;			/* false: ablation, first-fit spread */
	/* Every task of a job gets the larger of the PS and worker CPU
	 * counts, as in Slurm, where one step's tasks are uniform; false. */
	bool uniform_task_cpus;
	/* Every server of a job holds the fullest server's task count, as
	 * Slurm's --ntasks-per-node allocates (place_job_t.same_on_each);
	 * false. */
	bool uniform_node_share;
	const speed_profiles_t *profiles;	/* shared speed profiles */
	/* A running job may also be shrunk (after the min interval)
	 * when pass 1 gives it less so that pending jobs can start; true. */
	bool shrink_for_pending;
	/* ExploreScaling (job/job_explore.c, plan_explore.c): an all-reduce
	 * job is optimistic beyond the GPUs and nodes it ran on, and granted
	 * at most twice the most GPUs it had (Pollux's rule); false. */
	bool explore_scaling;
	/* Preemption with aging (plan_preempt.c, doc/design/planning.md): after
	 * the plan's decisions, a waiting job with no GPU may take one,
	 * freed by preempting the running job with the most attained
	 * service; false. */
	bool preempt;
	/* Pass 2's rounds stay exact while their allocations add up to at
	 * most this many jobs; past it a round settles (plan_run.c,
	 * doc/design/planning.md); PLAN_ROUND_BUDGET_DEFAULT. */
	size_t round_budget;
	/* Seconds a re-batch in place costs a job that took none yet
	 * (RebatchCost; its own mean once it took one:
	 * plan_policy_goodput.c). */
	double rebatch_cost;
	/* Policy=goodput's allocation objective; PLAN_GOODPUT_RATE. */
	plan_goodput_objective_t goodput_objective;
} plan_params_t;

/* Defaults of plan_params_init() (doc/design/planning.md). */
#define PLAN_INTERVAL_DEFAULT 600.0
#define PLAN_RESIZE_THRESHOLD_DEFAULT 0.10
#define PLAN_RESIZE_THRESHOLD_LARGE_DEFAULT 0.05
#define PLAN_LARGE_TASKS_DEFAULT 16
#define PLAN_MIN_RESIZE_INTERVAL_DEFAULT 1800.0
#define PLAN_RESTART_COST_DEFAULT 180.0
/* The simulator's plans (at most 320 jobs on 64 GPUs) took up to 30
 * rounds, 9,600 job allocations: all stay exact. A plan of 4,000 jobs
 * settles at its fifth round, one of 40,000 at its first. */
#define PLAN_ROUND_BUDGET_DEFAULT 16384
#define PLAN_REBATCH_COST_DEFAULT 5.0
/* Largest free room of a server in any resource (CPUs, MB, GPUs) that
 * plan_run() accepts: far beyond any machine, small enough that counts of
 * tasks derived from it stay exact integers. */
#define PLAN_ROOM_MAX 1e12

void plan_params_init(plan_params_t *prm);
const char *plan_policy_name(plan_policy_t p);
/* Preemption's default under a policy (optimus.conf Preempt=, the
 * simulator's configuration): on under Policy=goodput, off otherwise. */
bool plan_preempt_default(plan_policy_t p);
/* A baseline whose jobs its paper runs at their submitted size (DRF,
 * Tetris, FIFO): the simulator's experiments fix their jobs' size under
 * it unless told otherwise. */
bool plan_policy_fixed_size(plan_policy_t p);
/* "optimus", "quality", "drf", "tetris", "fifo", "goodput": 0, or
 * -EINVAL. */
int plan_policy_parse(const char *name, plan_policy_t *out);

/* One job as the plan sees it. */
typedef struct plan_job {
	job_model_t *model;		/* read only during plan_run */
	bool running;			/* holds servers now */
	/* Where a running job's tasks are now (server index, ps, workers). */
	const place_slot_t *slots;
	size_t nslots;
	/* What a running job uses on each of its slots' servers. */
	const res_vec_t *slot_usage;
	/*
	 * A start not complete yet: applied but not begun (a requeued job is
	 * held a few seconds by Slurm; running is set and the slots are the
	 * ones it was given). It keeps its slots (KEEP, "start in progress")
	 * rather than being planned anew. A run whose tasks are still
	 * starting is not this: it has not declared its checkpoint, which
	 * keeps it from any resize (job_model_not_resizable).
	 */
	bool starting;
	/*
	 * A server closed to the job: the node where its straggler was found
	 * (job_model_t.avoid_node). No placement of the job uses it, and a
	 * running job with a slot on it is moved, at its size, to servers
	 * without it when they can hold it (plan_straggler.c).
	 */
	bool has_closed;
	uint32_t closed_server;
	/*
	 * The most the resource manager lets the job hold (its limits, less
	 * what its owner's other jobs hold; alloc/cap.h); NULL: no cap. No
	 * decision gives it more (every placement is checked against it),
	 * and a job whose minimum is over it waits, saying which limit.
	 */
	const job_cap_t *cap;
	/*
	 * Fair shares between users (plan_fair.c): the user the job belongs
	 * to (the adapter's key: sched/optimus the job's uid) and that
	 * user's share weight (Slurm: its association's normalized shares;
	 * 0: 1, an equal share; negative: none). Under contention each user
	 * with demand first gets min(demand, its weighted share of the
	 * plan's capacity), the policy's greedy then shares the rest.
	 */
	uint32_t user;
	double share;
} plan_job_t;

typedef enum plan_action {
	PLAN_WAIT = 0,	/* pending job not started this interval */
	PLAN_START,	/* pending job: start with ps/workers on slots */
	PLAN_KEEP,	/* running job: keep allocation and servers */
	PLAN_RESIZE,	/* running job: checkpoint, requeue, restart on slots */
	/* Running job: checkpoint, requeue, and wait pending; its GPUs go to
	 * waiting jobs (plan_preempt.c). ps = workers = 0, no slots; reason
	 * says for whom and why. */
	PLAN_PREEMPT,
} plan_action_t;

/* Why a RESIZE: a new size, or a move off a straggler's server. */

typedef struct plan_decision {
	uint32_t job_id;
	plan_action_t action;
	int ps, workers;		/* START/RESIZE: target; KEEP: current */
	size_t nslots;
	place_slot_t *slots;		/* START/RESIZE: placement */
	double remaining_now;		/* predicted s with current alloc */
	double remaining_planned;	/* predicted s with the decision */
	double gain;			/* relative gain of a resize */
	bool moves_off_straggler;	/* RESIZE at the same size, elsewhere */
	/*
	 * The job this decision gives the job's GPUs to (its owner is told:
	 * job_model_stop_reason): PREEMPT, the waiting job started on its
	 * servers; a RESIZE that shrinks it for pending jobs, the one it was
	 * shrunk for, else the first that starts in this plan. 0: none.
	 */
	uint32_t for_job;
	/*
	 * The batch of the run a START/RESIZE begins (Policy=goodput, an
	 * adaptive job with its step-time fit): global = local_batch *
	 * workers * (accum + 1). 0: the job keeps its submitted batch. A
	 * RESIZE at the same size on the same slots changes only the batch
	 * (rebatch) by a restart; a KEEP with rebatch and in_place changes
	 * it in the running job (job/job_rebatch.c).
	 */
	double batch;
	int local_batch, accum;
	bool rebatch;
	bool in_place;
	char reason[128];		/* why (WAIT, KEEP): for users */
} plan_decision_t;

typedef struct plan {
	size_t ndecisions;
	plan_decision_t *decisions;	/* decisions[i] answers jobs[i] */
	size_t nstart, nresize, nkeep, nwait, npreempt;
	size_t nrebatch;	/* KEEPs re-batched in place */
	double alloc_seconds, place_seconds;	/* time spent planning */
	/* The restart cost every gain was weighed against (seconds: the
	 * restarts measured, else RestartCost; plan_input_restart_cost). */
	double restart_cost;
	/* Why the run failed, written with errmsg_set: a result carries its
	 * own message because its callers (plan_run's passes, the plugin's
	 * log, the simulator) read it after the result, not at the call. */
	char err[160];
} plan_t;

/*
 * Plan one interval. server_free[s] is what server s has free for optimus
 * jobs, NOT counting what running optimus jobs (in `jobs`) use there: the
 * plan adds back the usage of the jobs it resizes. Returns 0, or -errno
 * with a message in out->err (out is always initialised: plan_free() it).
 * The models are only read: call job_model_refit() on them before.
 * A negative free room counts as 0 (a full server); NaN/inf or a
 * magnitude above PLAN_ROOM_MAX is -EINVAL.
 * slot_usage may be NULL: the usage is then the slots' tasks times the
 * hints' per-task demands.
 */
int plan_run(const plan_job_t *jobs, size_t njobs,
	     const res_vec_t *server_free, size_t nservers,
	     const plan_params_t *prm, plan_t *out);
void plan_free(plan_t *p);
/* "wait", "start", "keep", "resize", "preempt". */
const char *plan_action_name(plan_action_t a);

/* A plan as JSON (optimusctl plan). */
json_object *plan_to_json(const plan_t *p);
/* One decision as JSON (in a plan, and a job's latest in optimusctl job);
 * non-finite times are null; NULL on no memory. */
json_object *plan_decision_to_json(const plan_decision_t *d);

#endif

/*
 * plan_interval.h - the steps of one scheduling interval before plan_run(),
 * the same for both adapters (sched/optimus planner_decide.c, optimus-sim
 * sim_apply.c): who enters the plan and the free room (plan_input_collect),
 * each job's straggler server closed to it, and the parameters, built by
 * one builder from one configuration struct (optimus.conf's values in
 * slurmctld, the simulator's configuration in optimus-sim).
 *
 * plan_run() stays a separate call: sched/optimus prepares under its
 * registry lock and plans without it (queries need not wait for a plan).
 */
#ifndef OPTIMUS_PLAN_INTERVAL_H
#define OPTIMUS_PLAN_INTERVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "plan/plan.h"
#include "plan/plan_input.h"

/* What an interval is planned with; plan_conf_init() gives the defaults
 * of plan_params_init(). */
typedef struct plan_conf {
	plan_policy_t policy;
	double interval;		/* Policy=, PlanInterval= */
	double damping;			/* Damping= */
	double resize_threshold;	/* ResizeThreshold= */
	double resize_threshold_large;	/* ResizeThresholdLarge= */
	int large_tasks;		/* LargeJobTasks= */
	double min_resize_interval;	/* MinResizeInterval= */
	/* RestartCost=: used until resizes were measured
	 * (plan_input_restart_cost) */
	double restart_cost;
	bool placement;			/* false: the spread ablation */
	bool uniform_task_cpus;		/* Slurm: one step's tasks are alike */
	bool uniform_node_share;	/* Slurm: --ntasks-per-node */
	const speed_profiles_t *profiles;	/* may be NULL */
} plan_conf_t;

void plan_conf_init(plan_conf_t *conf);

/* The one parameter builder: conf's values, the time, and the restart
 * cost from the input's measured resizes (else conf's). */
void plan_params_from_conf(plan_params_t *prm, const plan_conf_t *conf,
			   const plan_input_t *in, size_t n, time_t now);

/* The server index of a node name (a job's straggler node): 0 with
 * *server set, or -1 when the adapter has no such server now. */
typedef int (*plan_server_of_fn)(void *arg, const char *node,
				 uint32_t *server);

/*
 * Everything of an interval before plan_run(): jobs[k] answers
 * in[which[k]] (room for n each), server_free as plan_input_collect()
 * takes and leaves it, each job's straggler server (job_model_t.avoid_node,
 * resolved by server_of) closed to it, *prm built from conf. Returns how
 * many jobs enter the plan.
 */
size_t plan_interval_prepare(const plan_input_t *in, size_t n, time_t now,
			     res_vec_t *server_free, size_t nservers,
			     const plan_conf_t *conf,
			     plan_server_of_fn server_of, void *arg,
			     plan_job_t *jobs, size_t *which,
			     plan_params_t *prm);

#endif

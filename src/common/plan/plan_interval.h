/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_interval.h - the steps of one scheduling interval before plan_run(),
 * the same for both adapters (sched/optimus planner_decide.c, optimus-sim
 * sim_apply.c): who enters the plan and the free room (plan_input_collect),
 * each job's straggler server closed to it, and the parameters, built by
 * one builder from one configuration struct, plan_params_t (optimus.conf's
 * values in slurmctld, the simulator's configuration in optimus-sim).
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

/*
 * What an interval is planned with is a plan_params_t filled by the adapter
 * from its configuration (plan_params_init, then optimus.conf's values in
 * slurmctld, the simulator's configuration in optimus-sim), its
 * restart_cost the configured one. The one builder: a copy of it with the
 * time of the plan and the restart cost measured over the input's resizes
 * (plan_input_restart_cost; the configured one until there are some).
 */
void plan_params_for(plan_params_t *prm, const plan_params_t *conf,
		     const plan_input_t *in, size_t n, time_t now);

/* The server index of a node name (a job's straggler node): 0 with
 * *server set, or -1 when the adapter has no such server now. */
typedef int (*plan_server_of_fn)(void *arg, const char *node,
				 uint32_t *server);

/*
 * Everything of an interval before plan_run(): jobs[k] answers
 * in[which[k]] (room for n each), server_free as plan_input_collect()
 * takes and leaves it, each job's straggler server (job_model_t.avoid_node,
 * resolved by server_of) closed to it, *prm built from conf
 * (plan_params_for). Returns how
 * many jobs enter the plan.
 */
size_t plan_interval_prepare(const plan_input_t *in, size_t n, time_t now,
			     res_vec_t *server_free, size_t nservers,
			     const plan_params_t *conf,
			     plan_server_of_fn server_of, void *arg,
			     plan_job_t *jobs, size_t *which,
			     plan_params_t *prm);

#endif

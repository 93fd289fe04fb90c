/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_interval.c - the steps of one interval before plan_run(), for both
 * adapters (plan_interval.h).
 */
#include "plan/plan_interval.h"

void plan_params_for(plan_params_t *prm, const plan_params_t *conf,
		     const plan_input_t *in, size_t n, time_t now)
{
	*prm = *conf;
	prm->now = now;
	prm->restart_cost = plan_input_restart_cost(in, n, conf->restart_cost);
}

/* The straggler's server is closed to its job at every placement; moving
 * the job off it is plan_straggler.c's. */
static void close_straggler_server(plan_job_t *job,
				   plan_server_of_fn server_of, void *arg)
{
	uint32_t server;

	if (server_of && job->model->avoid_node[0] &&
	    !server_of(arg, job->model->avoid_node, &server)) {
		job->has_closed = true;
		job->closed_server = server;
	}
}

size_t plan_interval_prepare(const plan_input_t *in, size_t n, time_t now,
			     res_vec_t *server_free, size_t nservers,
			     const plan_params_t *conf,
			     plan_server_of_fn server_of, void *arg,
			     plan_job_t *jobs, size_t *which,
			     plan_params_t *prm)
{
	size_t njobs = plan_input_collect(in, n, now, server_free, nservers,
					  jobs, which);

	for (size_t k = 0; k < njobs; k++)
		close_straggler_server(&jobs[k], server_of, arg);
	plan_params_for(prm, conf, in, n, now);
	return njobs;
}

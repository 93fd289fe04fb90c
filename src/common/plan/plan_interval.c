/*
 * plan_interval.c - the steps of one interval before plan_run(), for both
 * adapters (plan_interval.h).
 */
#include "plan/plan_interval.h"

void plan_conf_init(plan_conf_t *conf)
{
	plan_params_t d;

	plan_params_init(&d);
	*conf = (plan_conf_t){
		.policy = d.policy,
		.interval = d.interval,
		.damping = d.damping,
		.resize_threshold = d.resize_threshold,
		.resize_threshold_large = d.resize_threshold_large,
		.large_tasks = d.large_tasks,
		.min_resize_interval = d.min_resize_interval,
		.restart_cost = d.restart_cost,
		.placement = d.placement,
		.uniform_task_cpus = d.uniform_task_cpus,
		.uniform_node_share = d.uniform_node_share,
		.profiles = d.profiles,
	};
}

void plan_params_from_conf(plan_params_t *prm, const plan_conf_t *conf,
			   const plan_input_t *in, size_t n, time_t now)
{
	plan_params_init(prm);
	prm->policy = conf->policy;
	prm->now = now;
	prm->interval = conf->interval;
	prm->damping = conf->damping;
	prm->resize_threshold = conf->resize_threshold;
	prm->resize_threshold_large = conf->resize_threshold_large;
	prm->large_tasks = conf->large_tasks;
	prm->min_resize_interval = conf->min_resize_interval;
	prm->restart_cost = plan_input_restart_cost(in, n, conf->restart_cost);
	prm->placement = conf->placement;
	prm->uniform_task_cpus = conf->uniform_task_cpus;
	prm->uniform_node_share = conf->uniform_node_share;
	prm->profiles = conf->profiles;
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
			     const plan_conf_t *conf,
			     plan_server_of_fn server_of, void *arg,
			     plan_job_t *jobs, size_t *which,
			     plan_params_t *prm)
{
	size_t njobs = plan_input_collect(in, n, now, server_free, nservers,
					  jobs, which);

	for (size_t k = 0; k < njobs; k++)
		close_straggler_server(&jobs[k], server_of, arg);
	plan_params_from_conf(prm, conf, in, n, now);
	return njobs;
}

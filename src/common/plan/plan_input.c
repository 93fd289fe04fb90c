/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_input.c - which jobs enter a plan and how (see plan_input.h).
 */
#include "plan/plan_input.h"

bool plan_input_plannable(const plan_input_t *in)
{
	job_phase_t ph;

	if (!in->model)
		return false;
	ph = in->model->phase;
	if (ph == JM_DONE || ph == JM_CHECKPOINTING)
		return false;
	if (in->state == PLAN_INPUT_QUEUED)
		return !in->blocked &&
		       (in->held || ph == JM_PENDING || ph == JM_REQUEUED);
	return in->state == PLAN_INPUT_RUNNING && ph == JM_RUNNING;
}

bool plan_input_start_reserved(const plan_input_t *in, time_t now)
{
	job_phase_t ph;

	if (!in->model || in->state != PLAN_INPUT_QUEUED || in->held ||
	    !in->nstart)
		return false;
	ph = in->model->phase;
	return (ph == JM_PENDING || ph == JM_REQUEUED) &&
	       now - in->started_at < PLAN_START_RESERVED_SECONDS;
}

/* Take what `usage` uses on the servers of `slots` off the free room. */
static void take_room(res_vec_t *server_free, size_t nservers,
		      const place_slot_t *slots, const res_vec_t *usage,
		      size_t nslots)
{
	for (size_t k = 0; k < nslots; k++) {
		size_t s = slots[k].server;

		if (s < nservers)
			server_free[s] = res_sub(server_free[s], usage[k]);
	}
}

/* A reserved start takes part in the plan as a job running on its slots. */
static void collect_reserved(const plan_input_t *in, res_vec_t *server_free,
			     size_t nservers, plan_job_t *job)
{
	take_room(server_free, nservers, in->start_slots, in->start_usage,
		  in->nstart);
	job->running = true;
	job->starting = true;
	job->slots = in->start_slots;
	job->nslots = in->nstart;
	job->slot_usage = in->start_usage;
}

size_t plan_input_collect(const plan_input_t *in, size_t n, time_t now,
			  res_vec_t *server_free, size_t nservers,
			  plan_job_t *jobs, size_t *which)
{
	size_t count = 0;

	for (size_t i = 0; i < n; i++) {
		plan_job_t *job = &jobs[count];

		/* server_free is the room nobody uses: plan_run() adds back
		 * the usage of the running jobs it decides to resize. */
		take_room(server_free, nservers, in[i].slots, in[i].usage,
			  in[i].nslots);
		if (!plan_input_plannable(&in[i]))
			continue;
		job_model_refit(in[i].model);
		*job = (plan_job_t){ .model = in[i].model,
				     .running = in[i].state ==
						PLAN_INPUT_RUNNING,
				     .cap = in[i].cap,
				     .user = in[i].user,
				     .share = in[i].share };
		if (plan_input_start_reserved(&in[i], now)) {
			collect_reserved(&in[i], server_free, nservers, job);
		} else if (job->running) {
			job->slots = in[i].slots;
			job->nslots = in[i].nslots;
			job->slot_usage = in[i].usage;
		}
		which[count++] = i;
	}
	return count;
}

double plan_input_restart_cost(const plan_input_t *in, size_t n,
			       double fallback)
{
	double seconds = 0.0;
	unsigned resizes = 0;

	for (size_t i = 0; i < n; i++) {
		const job_model_t *m = in[i].model;

		/* None timed, or one still in progress (signalled, or
		 * restarted and not at its first step yet). Over the timed
		 * restarts only: a preempted job's restart, untimed, made the
		 * mean a restart that cost nothing (test_preemption
		 * test_preempted_restart_is_not_a_free_restart). */
		if (!m || m->resize_began || m->restart_from ||
		    !m->restarts_timed)
			continue;
		seconds += m->resize_seconds;
		resizes += m->restarts_timed;
	}
	return resizes ? seconds / resizes : fallback;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* sim_plan.c - one plan of a simulated cluster (sim_plan.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_plan.h"

static double clock_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

void sim_plan_params(plan_params_t *pc, const sim_plan_conf_t *c)
{
	plan_params_init(pc);
	pc->policy = c->policy;
	pc->interval = c->interval;
	pc->restart_cost = c->restart_cost;
	pc->min_resize_interval = c->min_resize_interval;
	pc->preempt = c->preempt < 0 ? plan_preempt_default(c->policy) :
		      c->preempt > 0;
}

void sim_plan_input_job(plan_input_t *in, const sim_job_core_t *job,
			bool queued)
{
	const sim_hold_t *hold = &job->hold;

	*in = (plan_input_t){ .model = job->jm };
	if (hold->n) {
		in->state = PLAN_INPUT_RUNNING;
		in->slots = hold->slots;
		in->usage = hold->usage;
		in->nslots = hold->n;
	} else if (queued) {
		in->state = PLAN_INPUT_QUEUED;
		in->held = true;
	}
}

int sim_plan_run(const sim_plan_in_t *p, plan_t *plan, size_t *which,
		 size_t *nplanned, double *wall)
{
	plan_job_t *jobs = calloc(p->n + 1, sizeof(*jobs));
	plan_params_t prm;
	size_t n;
	int rc;

	*nplanned = 0;
	if (!jobs) {
		memset(plan, 0, sizeof(*plan));
		snprintf(plan->err, sizeof(plan->err), "out of memory");
		return -ENOMEM;
	}
	n = plan_interval_prepare(p->in, p->n, p->now, p->room, p->nservers,
				  p->conf, p->server_of, p->server_arg, jobs,
				  which, &prm);
	for (size_t k = 0; p->closed && k < p->nservers; k++)
		if (p->closed[k])
			p->room[k] = res_make(0, 0, 0);
	double t0 = clock_seconds();
	rc = plan_run(jobs, n, p->room, p->nservers, &prm, plan);
	if (wall)
		*wall += clock_seconds() - t0;
	*nplanned = n;
	free(jobs);
	return rc;
}

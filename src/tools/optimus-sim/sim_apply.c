/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_apply.c - one scheduling interval: the jobs report their progress,
 * each is translated into the core's plan input (sim_input_job), the
 * plan is made as both engines make it (sim_plan.h: who enters, the
 * models refit, plan_run), and its decisions are carried out on the
 * simulated servers as both engines carry them out
 * (sim_apply_decision.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_apply_decision.h"
#include "sim_plan.h"
#include "sim_state.h"
#include "util/errmsg.h"

static bool is_active(const sim_job_t *j)
{
	return j->st == SJ_PENDING || sim_job_holds(j);
}

/* The plan's parameters of a synthetic run, from its configuration:
 * what both engines say (sim_plan_params), then what only it says. */
static void run_plan_params(const sim_config_t *c, plan_params_t *pc)
{
	sim_plan_params(pc, &(sim_plan_conf_t){ .policy = c->policy,
		.interval = c->interval, .restart_cost = c->restart_base,
		.min_resize_interval = c->min_resize_interval,
		.preempt = c->preempt });
	pc->damping = c->damping;
	pc->placement = c->placement;
	if (c->resize_threshold >= 0.0)
		pc->resize_threshold = pc->resize_threshold_large =
			c->resize_threshold;
}

/* A simulated job as the plan's input (sim_plan_input_job). A pending
 * job holds nothing; a running or restarting one holds its slots. */
void sim_input_job(const sim_job_t *j, plan_input_t *in)
{
	sim_plan_input_job(in, &j->core, j->st == SJ_PENDING);
}

/* The simulated servers run nothing but the simulated jobs. */
void sim_input_room(const sim_state_t *s, res_vec_t *room)
{
	for (size_t k = 0; k < s->cfg->nservers; k++)
		room[k] = s->cfg->server;
}

/* The running jobs report; every job is translated into in[]. */
static int report_all(sim_state_t *s, plan_input_t *in)
{
	for (size_t i = 0; i < s->eng.njobs; i++) {
		sim_job_t *j = &s->jobs[i];

		if (j->st == SJ_RUNNING) {
			int rc = sim_job_report(s, j);
			if (!rc)
				rc = sim_straggler_report(s, j);
			if (rc)
				return errmsg_set(s->err, s->errlen, rc,
						  "job %u: report: %d", j->core.id,
						  rc);
		}
		sim_input_job(j, &in[i]);
	}
	return 0;
}

/* A simulated trainer takes every decision the plan makes: a refusal is
 * an error in the simulation. */
static int apply_refused(void *ctx, sim_apply_job_t *j, int rc,
			 const char *why)
{
	sim_state_t *s = ctx;

	if (j->d->action != PLAN_PREEMPT)
		return rc;
	return errmsg_set(s->err, s->errlen, -EPERM, "job %u: plan "
			  "preempted a job its record refuses: %s",
			  j->job->id, why);
}

static int apply_no_room(void *ctx, sim_apply_job_t *j,
			 const place_slot_t *slot)
{
	sim_state_t *s = ctx;

	return errmsg_set(s->err, s->errlen, -ENOSPC, "plan placed job "
			  "%u beyond server %u's room", j->job->id,
			  slot->server);
}

/*
 * A preemption: the job checkpoints (simulated trainers always can), is
 * requeued and waits pending. A RESUME still queued for it is stale
 * (gen).
 */
static int apply_preempted(void *ctx, sim_apply_job_t *a)
{
	sim_job_t *j = sim_job_of(a->job);

	j->st = SJ_PENDING;
	j->gen++;
	sim_job_set_speed(ctx, j);
	return 0;
}

/*
 * A start, first or from the checkpoint (after a preemption, or a
 * resize), on the decision's PS and workers: the job holds its servers
 * without progress until its RESUME; a free first start runs at once. A
 * restarting job is not planned (sim_input_job), so its cost always runs
 * out whole: all of it is lost now. A batch change in place the
 * synthetic jobs cannot take: they run one batch, and their hints give
 * the plan no batch range to choose from (sim_job.c).
 */
static int apply_taken(void *ctx, sim_apply_job_t *a)
{
	sim_state_t *s = ctx;
	sim_job_t *j = sim_job_of(a->job);
	double cost = a->cost;
	int rc = 0;

	if (a->take == SIM_TAKE_REBATCH)
		return errmsg_set(s->err, s->errlen, -ENOTSUP, "job %u: plan "
				  "re-batched a job that runs one batch",
				  j->core.id);
	sim_job_outcome_lose(&j->core.outcome, cost);
	if (a->take == SIM_TAKE_START && !(cost > 0.0)) {
		sim_job_run(s, j);
	} else {
		j->st = SJ_RESTARTING;
		sim_job_set_speed(s, j);
		rc = sim_events_push(&s->eng.q, s->eng.now + cost,
				     SIM_EV_RESUME, j->core.id, j->gen);
	}
	if (!rc && a->d->moves_off_straggler)
		sim_straggler_drain(s, j);
	return rc;
}

static const sim_apply_ops_t apply_ops = {
	.refused = apply_refused,
	.no_room = apply_no_room,
	.preempted = apply_preempted,
	.taken = apply_taken,
};

/* The plan carried out on the jobs by the one rule (sim_apply_decision.h):
 * each job's slots use its model's share of a server. */
static int apply(sim_state_t *s, const plan_t *p, sim_job_t **act)
{
	sim_apply_job_t *jobs = calloc(p->ndecisions + 1, sizeof(*jobs));
	int rc;

	if (!jobs)
		return -ENOMEM;
	for (size_t k = 0; k < p->ndecisions; k++) {
		sim_job_t *j = act[k];
		jobs[k] = (sim_apply_job_t){ .d = &p->decisions[k],
			.m = j->core.jm, .job = &j->core,
			.ps = j->spec.model->ps,
			.worker = j->spec.model->worker };
	}
	rc = sim_apply_decisions(jobs, p->ndecisions, &(sim_apply_env_t){
		.free = s->free, .nservers = s->cfg->nservers,
		.costs = &s->costs, .now = s->eng.now,
		.record_now = sim_time(s->eng.now) }, &apply_ops, s);
	free(jobs);
	return rc;
}

int sim_apply_tick(sim_state_t *s)
{
	size_t cap = s->eng.njobs + 1, n = 0, active = 0;
	plan_input_t *in = calloc(cap, sizeof(*in));
	size_t *which = calloc(cap, sizeof(*which));
	sim_job_t **act = calloc(cap, sizeof(*act));
	res_vec_t *room = calloc(s->cfg->nservers, sizeof(*room));
	plan_params_t conf;
	plan_t plan;
	int rc = -ENOMEM;

	memset(&plan, 0, sizeof(plan));
	if (!in || !which || !act || !room || (rc = report_all(s, in)))
		goto out;
	for (size_t i = 0; i < s->eng.njobs; i++)
		active += is_active(&s->jobs[i]);
	if (!active)
		goto out;
	sim_input_room(s, room);
	run_plan_params(s->cfg, &conf);
	rc = sim_plan_run(&(sim_plan_in_t){ .in = in, .n = s->eng.njobs,
		.now = sim_time(s->eng.now), .room = room,
		.nservers = s->cfg->nservers, .conf = &conf,
		.server_of = sim_server_of, .server_arg = (void *)s,
		.closed = s->drained }, &plan, which, &n, &s->plan_wall);
	s->plans++;
	for (size_t k = 0; k < n; k++)
		act[k] = &s->jobs[which[k]];
	if (rc)
		errmsg_set(s->err, s->errlen, 0, "plan_run: %s", plan.err);
	else
		rc = apply(s, &plan, act);
	plan_free(&plan);
out:
	free(in);
	free(which);
	free(act);
	free(room);
	return rc;
}

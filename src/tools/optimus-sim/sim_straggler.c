/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_straggler.c - slow servers in the simulator, and the straggler
 * detection and replacement that sched/optimus runs (models/straggler.h,
 * plan_straggler.c), so that optimus-sim can show what replacing
 * stragglers is worth.
 *
 * A share of the servers (config.straggler_share, chosen by the seed) runs
 * workers config.straggler_slowdown times slower. A synchronous job with a
 * worker there advances at the pace of that worker; an asynchronous one
 * loses that worker's part of its speed. With config.straggler_detect,
 * each running job sends one worker report per rank at every plan (its
 * true per-worker step times with a 5% jitter), and the plan closes the
 * straggler's server to the job and moves it, as in slurmctld; with
 * config.straggler_drain the server is drained when the job moves off it
 * and takes no new task (StragglerDrain).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "sim_state.h"

/* Spread of per-worker step times around their truth. */
#define WORKER_JITTER 0.05

int sim_straggler_init(sim_state_t *s)
{
	const sim_config_t *c = s->cfg;
	size_t nslow = (size_t)llround(c->straggler_share * c->nservers);
	gsl_rng *rng;

	s->slow_server = calloc(c->nservers + 1, sizeof(*s->slow_server));
	s->drained = calloc(c->nservers + 1, sizeof(*s->drained));
	if (!s->slow_server || !s->drained)
		return -ENOMEM;
	if (!nslow)
		return 0;
	/* Its own stream: the jobs' draws stay what they are without it. */
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng)
		return -ENOMEM;
	gsl_rng_set(rng, c->seed ^ 0x5eedf00dULL);
	for (size_t k = 0; k < nslow && k < c->nservers;) {
		size_t v = gsl_rng_uniform_int(rng, c->nservers);

		if (!s->slow_server[v]) {
			s->slow_server[v] = true;
			k++;
		}
	}
	gsl_rng_free(rng);
	return 0;
}

/* The server of worker `rank` (workers counted slot by slot). */
static uint32_t worker_server(const sim_job_t *j, int rank)
{
	int seen = 0;

	for (size_t k = 0; k < j->core.hold.n; k++) {
		seen += j->core.hold.slots[k].workers;
		if (rank < seen)
			return j->core.hold.slots[k].server;
	}
	return j->core.hold.n ? j->core.hold.slots[j->core.hold.n - 1].server : 0;
}

double sim_straggler_factor(const sim_state_t *s, const sim_job_t *j)
{
	double slow = s->cfg->straggler_slowdown;
	int nslow = 0, workers = sim_hold_workers(&j->core.hold);

	if (!s->slow_server || slow <= 1.0 || workers < 1)
		return 1.0;
	for (size_t k = 0; k < j->core.hold.n; k++)
		if (s->slow_server[j->core.hold.slots[k].server])
			nslow += j->core.hold.slots[k].workers;
	if (!nslow)
		return 1.0;
	if (j->core.jm->hints.mode == HINTS_MODE_SYNC)
		return 1.0 / slow;
	return (workers - nslow + nslow / slow) / workers;
}

int sim_straggler_report(sim_state_t *s, sim_job_t *j)
{
	straggler_params_t p;
	report_t rep = { .kind = REPORT_WORKER, .job_id = j->core.id,
			 .received = (double)sim_time(s->eng.now) };
	job_feed_out_t out;
	int workers = sim_hold_workers(&j->core.hold);

	if (!s->cfg->straggler_detect || j->st != SJ_RUNNING)
		return 0;
	straggler_params_init(&p);
	for (int r = 0; r < workers; r++) {
		uint32_t sv = worker_server(j, r);
		double t = (s->slow_server[sv] ? s->cfg->straggler_slowdown : 1.0) *
			   (1.0 + gsl_ran_gaussian(j->rng, WORKER_JITTER));

		rep.worker = (report_worker_t){ .rank = (uint32_t)r,
						.step_time = fmax(t, 1e-3) };
		snprintf(rep.worker.node, sizeof(rep.worker.node), "s%u", sv);
		if (job_feed_report(j->core.jm, &j->core.feed, &rep, 0, &p, &out))
			return out.rc ? out.rc : -ESRCH;
		s->stragglers += out.straggler_found;
	}
	return 0;
}

int sim_server_of(void *arg, const char *node, uint32_t *server)
{
	const sim_state_t *s = arg;
	unsigned sv;
	char end;

	if (sscanf(node, "s%u%c", &sv, &end) != 1 || sv >= s->cfg->nservers)
		return -1;
	*server = sv;
	return 0;
}

/* As sched/optimus with StragglerDrain=yes: the node is drained when its
 * straggler's job is moved off it (planner_decide.c move_off_straggler). */
void sim_straggler_drain(sim_state_t *s, const sim_job_t *j)
{
	uint32_t sv;

	if (s->cfg->straggler_drain &&
	    !sim_server_of(s, j->core.jm->avoid_node, &sv))
		s->drained[sv] = true;
}

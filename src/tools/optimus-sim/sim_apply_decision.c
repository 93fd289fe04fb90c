/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_apply_decision.c - what a plan's decisions do to simulated jobs
 * (sim_apply_decision.h).
 */
#include <errno.h>

#include "sim_apply_decision.h"

/* Every record takes its decision first: a refused one leaves its job as
 * it holds, so it gives nothing back below. */
static int take_all(sim_apply_job_t *jobs, size_t n,
		    const sim_apply_env_t *env, const sim_apply_ops_t *ops,
		    void *ctx)
{
	int rc = 0;

	for (size_t k = 0; k < n && !rc; k++) {
		sim_apply_job_t *j = &jobs[k];
		char why[256] = "";
		int r;

		j->cost = 0.0;
		if (!j->m) {
			j->take = sim_decision_kind(j->d,
						    j->job->outcome.start >= 0);
			continue;
		}
		r = sim_decision_take(j->m, j->d, env->record_now, &j->take,
				      why, sizeof(why));
		if (r)
			rc = ops->refused(ctx, j, r, why);
	}
	return rc;
}

/* A start, a restart or a resize holds its decision's slots. */
static int hold_slots(sim_apply_job_t *j, const sim_apply_env_t *env,
		      const sim_apply_ops_t *ops, void *ctx)
{
	size_t at;
	int rc = sim_hold_take(&j->job->hold, env->free, env->nservers,
			       j->d->slots, j->d->nslots, j->ps, j->worker,
			       &at);

	return rc == -ENOSPC ? ops->no_room(ctx, j, &j->d->slots[at]) : rc;
}

int sim_apply_decisions(sim_apply_job_t *jobs, size_t n,
			const sim_apply_env_t *env, const sim_apply_ops_t *ops,
			void *ctx)
{
	int rc = take_all(jobs, n, env, ops, ctx);

	for (size_t k = 0; k < n && !rc; k++)
		if (jobs[k].take == SIM_TAKE_RESIZE ||
		    jobs[k].take == SIM_TAKE_PREEMPT)
			sim_hold_release(&jobs[k].job->hold, env->free);
	for (size_t k = 0; k < n && !rc; k++)
		if (jobs[k].take == SIM_TAKE_PREEMPT)
			rc = ops->preempted(ctx, &jobs[k]);
	for (size_t k = 0; k < n && !rc; k++) {
		sim_apply_job_t *j = &jobs[k];

		switch (j->take) {
		case SIM_TAKE_START:
		case SIM_TAKE_RESTART:
		case SIM_TAKE_RESIZE:
			if ((rc = hold_slots(j, env, ops, ctx)))
				break;
			/* fall through */
		case SIM_TAKE_REBATCH:
			j->cost = sim_start_charge(env->costs, j->job, j->take,
						   env->now);
			rc = ops->taken(ctx, j);
			break;
		default:
			break;
		}
	}
	return rc;
}

double sim_apply_batch(const plan_decision_t *d, double submitted, int *atomic,
		       int *accum)
{
	if (!(d->batch > 0)) {
		*atomic = *accum = 0;
		return submitted;
	}
	*atomic = d->local_batch;
	*accum = d->accum;
	return d->batch;
}

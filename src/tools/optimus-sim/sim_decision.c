/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* sim_decision.c - a plan decision taken by a simulated job (sim_decision.h). */
#include "job/job_feed.h"
#include "plan/plan_apply.h"
#include "sim_decision.h"

sim_take_t sim_decision_kind(const plan_decision_t *d, bool ran)
{
	switch (d->action) {
	case PLAN_START:
		/* A job that ran is one a preemption stopped: it resumes
		 * from its checkpoint. */
		return ran ? SIM_TAKE_RESTART : SIM_TAKE_START;
	case PLAN_RESIZE:
		return SIM_TAKE_RESIZE;
	case PLAN_PREEMPT:
		return SIM_TAKE_PREEMPT;
	case PLAN_KEEP:
		return d->in_place ? SIM_TAKE_REBATCH : SIM_TAKE_KEEP;
	case PLAN_WAIT:
	default:
		return SIM_TAKE_WAIT;
	}
}

int sim_decision_take(job_model_t *m, const plan_decision_t *d, time_t now,
		      sim_take_t *take, char *why, size_t len)
{
	int rc = plan_apply(m, d, now, why, len);

	*take = rc ? SIM_TAKE_KEEP : sim_decision_kind(d, m->nruns > 0);
	if (!rc && *take == SIM_TAKE_PREEMPT)
		job_model_requeued(m, now);
	return rc;
}

void sim_decision_started(job_model_t *m, time_t began, int ps, int workers,
			  int nodes)
{
	job_model_started(m, began, ps, workers, nodes);
	(void)job_feed_checkpoint(m, (double)began, m->step, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* plan/plan_apply.c - a decision's change to its job's record (plan_apply.h). */
#include <errno.h>

#include "plan/plan_apply.h"
#include "util/errmsg.h"

int plan_apply(job_model_t *m, const plan_decision_t *d, time_t now,
	       char *why, size_t len)
{
	const char *no;

	if (!m || !d)
		return errmsg_set(why, len, -EINVAL, "no record or decision");
	switch (d->action) {
	case PLAN_START:
		break;
	case PLAN_RESIZE:
		job_model_resizing(m, now);
		job_model_stop_reason(m, d->for_job, d->reason);
		break;
	case PLAN_PREEMPT:
		no = job_model_not_resizable(m);
		if (no || m->phase != JM_RUNNING)
			return errmsg_set(why, len, -EPERM, "%s", no ? no :
					  job_phase_name(m->phase));
		job_model_preempting(m, now);
		job_model_stop_reason(m, d->for_job, d->reason);
		return 0;
	case PLAN_KEEP:
		if (!d->in_place)
			return 0;
		return job_model_rebatch_send(m, now, d->batch, d->local_batch,
					      d->accum, why, len);
	case PLAN_WAIT:
	default:
		return 0;
	}
	m->plan_ps = d->ps;
	m->plan_workers = d->workers;
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* job/job_admit.c - would a job's record take a report (job_admit.h). */
#include <errno.h>

#include "job/job_admit.h"
#include "report/run.h"
#include "util/errmsg.h"

int job_model_admit(const job_model_t *m, const report_t *r,
		    uint32_t current_run, char *err, size_t errlen)
{
	const report_speed_t *s = &r->speed;

	if (report_run_verdict(r, current_run) == REPORT_RUN_STALE) {
		if (r->run < current_run)
			return errmsg_set(err, errlen, -EINVAL, "report of "
					  "run %u: the job's current run is %u "
					  "(SLURM_RESTART_COUNT)", r->run,
					  current_run);
		return 0;	/* a run the record has not seen yet */
	}
	if (m->phase != JM_RUNNING)
		return 0;	/* the planner judges it, caught up */
	switch (r->kind) {
	case REPORT_WORKER:
		return job_model_worker_check(m, (int64_t)r->worker.rank, err,
					      errlen);
	case REPORT_SPEED:
		return job_model_speed_check(m, (int)s->ps, (int)s->workers,
					     (int)s->local_batch,
					     (int)s->accum, s->steps_per_sec,
					     err, errlen);
	default:
		return 0;
	}
}

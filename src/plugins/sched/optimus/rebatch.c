/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * rebatch.c - re-batch in place, sched/optimus' side (rebatch.h).
 *
 * The change lives in the job's record (job_batch_t.offer), which the
 * planner thread writes under the registry's lock; the listener thread
 * reads it under the same lock to put it in the reply to each of the
 * job's reports until the job runs at it, so that no reply waits on
 * slurmctld.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>

#include "src/common/log.h"

#include "plan/plan_apply.h"

#include "optimus_conf.h"
#include "rebatch.h"
#include "report/run.h"

extern void rebatch_send(reg_job_t *rj, const plan_decision_t *d)
{
	job_model_t *m = rj->model;
	double from = job_model_batch_global(m);
	char err[256];

	/* Sent now, not at the snapshot: the job's time to take it counts
	 * from here. */
	if (plan_apply(m, d, time(NULL), err, sizeof(err))) {
		error("sched/optimus: JobId=%u: re-batch in place not sent: %s",
		      m->job_id, err);
		return;
	}
	info("sched/optimus: JobId=%u: re-batch in place %.0f -> %.0f (%d x %d workers x %d, LR x %.3g; predicted %.0fs -> %.0fs, gain %.0f%%): sent in the reply to its next report",
	     m->job_id, from, d->batch, d->local_batch, d->workers,
	     d->accum + 1, m->batch.offer.lr_scale, d->remaining_now,
	     d->remaining_planned, 100.0 * d->gain);
}

extern int rebatch_reply(const report_t *r, report_rebatch_t *out)
{
	const job_rebatch_t *o;
	reg_job_t *rj;
	int found = 0;

	registry_lock();
	rj = registry_find(r->job_id);
	/* A run that is over (its node taken for dead) gets nothing: the
	 * change is for the run going now (report/run.h). */
	if (rj && report_run_verdict(r, rj->restart_cnt) != REPORT_RUN_STALE &&
	    (o = job_model_rebatch_open(rj->model))) {
		*out = (report_rebatch_t){ (uint64_t)llround(o->global),
			(uint32_t)o->local, (uint32_t)o->accum, o->lr_scale };
		found = 1;
	}
	registry_unlock();
	return found;
}

extern void rebatch_said(reg_job_t *rj, const report_t *r,
			 const job_feed_out_t *out)
{
	const job_model_t *m = rj->model;

	if (out->rebatch == 1)
		info("sched/optimus: JobId=%u: re-batched in place %.0f -> %.0f (%d x %d workers x %d) at step %"PRIu64", %.0fs after the plan sent it (%u re-batches in place, mean %.2fs, no restart)",
		     m->job_id, out->batch_before, (double)r->progress.batch,
		     m->batch.local, m->cur_workers, m->batch.accum + 1,
		     r->progress.step,
		     difftime((time_t)r->received, m->batch.offer.sent),
		     m->batch.rebatches,
		     job_model_rebatch_cost(m, optimus_conf.rebatch_cost));
	else if (out->rebatch < 0)
		info("sched/optimus: JobId=%u: progress report says batch %.0f, neither its run's %.0f nor a change sent: not followed",
		     m->job_id, (double)r->progress.batch, out->batch_before);
}

extern bool rebatch_expire(reg_job_t *rj, time_t now)
{
	job_model_t *m = rj->model;

	if (!job_model_rebatch_expire(m, now, optimus_conf.rebatch_timeout))
		return false;
	info("sched/optimus: JobId=%u: did not take the re-batch in place to %.0f within %us (RebatchTimeout): its batch changes go the restart path from now (checkpoint, requeue, restart)",
	     m->job_id, m->batch.offer.global, optimus_conf.rebatch_timeout);
	return true;
}

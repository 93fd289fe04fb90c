/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* job/job_feed.c - a job's reports into its record (job_feed.h). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "job/job_feed.h"
#include "report/run.h"

double job_feed_run_speed(const job_model_t *m, const job_feed_t *f,
			  double received, double step)
{
	/* The record's whole second, when it was restored from the state
	 * file and no report came since. */
	double last = (time_t)f->progress_received == m->last_report ?
		      f->progress_received : (double)m->last_report;
	double dt = received - last, dsteps = step - m->step;

	if (m->phase != JM_RUNNING || !m->reports || dt < 1.0 || dsteps <= 0)
		return 0.0;
	if (m->nruns && (double)m->runs[m->nruns - 1].start > m->last_report)
		return 0.0;	/* the previous report was from another run */
	return dsteps / dt;
}

int job_feed_progress(job_model_t *m, job_feed_t *f, const job_progress_t *p,
		      job_feed_out_t *out)
{
	double speed = isnan(p->timed) ?
		       job_feed_run_speed(m, f, p->received, p->step) :
		       p->timed;
	int said = 0, rc;

	if (out) {
		out->rebatch = 0;
		out->batch_before = job_model_batch_global(m);
	}
	if (p->batch > 0 && m->batch.adaptive) {
		said = job_model_rebatch_said(m, (time_t)p->received, p->batch,
					      p->rebatch_seconds);
		if (said == 1)
			speed = 0.0;
		if (out)
			out->rebatch = said;
	}
	rc = isnan(p->loss) ?
	     job_model_progress(m, (time_t)p->received, p->step, speed,
				p->epoch) :
	     job_model_report(m, (time_t)p->received, p->step, p->loss, speed,
			      p->epoch);
	if (!rc)
		f->progress_received = p->received;
	/* The part of the step just timed that was all-reduce: a claim
	 * beyond the step is not kept, the report's progress is. */
	if (!rc && p->sync_seconds > 0)
		(void)job_model_batch_sync(m, p->sync_seconds);
	return rc;
}

int job_feed_speed(job_model_t *m, double received, const report_speed_t *s,
		   char *why, size_t len)
{
	int w = (int)s->workers;
	int n = job_model_speed_p(m, (int)s->ps, w, 0);
	int rc = job_model_speed_claim(m, (time_t)received, (int)s->ps, w,
				       (int)s->local_batch, (int)s->accum,
				       s->steps_per_sec, why, len);

	if (rc)
		return rc;
	if (!s->local_batch)
		return job_model_speed_sample(m, n, w, s->steps_per_sec);
	if (w == m->cur_workers && m->cur_nodes >= 1)
		n = m->cur_nodes;
	return job_model_batch_sample_sync(m, w, n < 1 ? 1 : n > w ? w : n,
					   (int)s->local_batch, (int)s->accum,
					   1.0 / s->steps_per_sec,
					   s->sync_seconds);
}

int job_feed_checkpoint(job_model_t *m, double received, double step,
			bool *acked)
{
	/* Any confirmation shows that the job can checkpoint, and one
	 * received at or after its run's start that this run can: the
	 * record's rule then makes it resizable (job_model_not_resizable). */
	int rc = job_model_checkpoint(m, (time_t)received, step);

	if (acked)
		*acked = !rc && m->phase == JM_CHECKPOINTING &&
			 received >= (double)job_model_signalled(m);
	return rc;
}

static job_feed_verdict_t feed_verdict(job_feed_out_t *out, int rc)
{
	out->rc = rc;
	if (!rc)
		out->verdict = JOB_FEED_TAKEN;
	else if (rc == -ESRCH)
		out->verdict = JOB_FEED_LATE;
	else if (out->verdict != JOB_FEED_CLAIM_REFUSED)
		out->verdict = JOB_FEED_REFUSED;
	return out->verdict;
}

job_feed_verdict_t job_feed_report(job_model_t *m, job_feed_t *f,
				   const report_t *r, uint32_t current_run,
				   const straggler_params_t *straggler,
				   job_feed_out_t *out)
{
	job_progress_t p;
	int rc;

	memset(out, 0, sizeof(*out));
	if (report_run_verdict(r, current_run) == REPORT_RUN_STALE)
		return out->verdict = JOB_FEED_STALE;
	/* A job's last reports often reach the feed after its end: its
	 * final steps and loss, and gradient statistics measured while it
	 * ran (a short job's only ones), are its own. The other kinds are
	 * about a run that is over. */
	if (m->phase == JM_DONE) {
		if (r->kind != REPORT_PROGRESS && r->kind != REPORT_GRADIENTS)
			return out->verdict = JOB_FEED_AFTER_END;
		out->after_end = true;
	}
	switch (r->kind) {
	case REPORT_PROGRESS:
		p = (job_progress_t){ .received = r->received,
			.step = (double)r->progress.step,
			.loss = r->progress.loss,
			.epoch = r->progress.epoch < 0 ? 0 : r->progress.epoch,
			.batch = (double)r->progress.batch,
			.rebatch_seconds = r->progress.rebatch_seconds,
			.sync_seconds = r->progress.sync_seconds,
			.timed = NAN };
		rc = job_feed_progress(m, f, &p, out);
		break;
	case REPORT_SPEED:
		rc = job_feed_speed(m, r->received, &r->speed, out->why,
				    sizeof(out->why));
		if (rc == -EPERM)
			out->verdict = JOB_FEED_CLAIM_REFUSED;
		break;
	case REPORT_CHECKPOINT:
		rc = job_feed_checkpoint(m, r->received,
					 (double)r->checkpoint.step,
					 &out->checkpoint_acked);
		if (out->checkpoint_acked)
			out->ack_seconds = r->received -
					   (double)job_model_signalled(m);
		break;
	case REPORT_WORKER:
		rc = job_model_worker_report(m, straggler,
					     (int)r->worker.rank,
					     r->worker.node,
					     r->worker.step_time +
					     r->worker.lag);
		out->straggler_found = rc == 1;
		rc = rc < 0 ? rc : 0;
		break;
	case REPORT_GRADIENTS:
		rc = job_model_gradients(m, r->gradients.grad_sqr,
					 r->gradients.grad_var,
					 r->gradients.var_batch,
					 r->gradients.estimates, out->why,
					 sizeof(out->why));
		break;
	default:
		rc = -EINVAL;
	}
	return feed_verdict(out, rc);
}

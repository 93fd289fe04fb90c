/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * planner_reports.c - feed the reports received by the listener to the
 * registry: the job models and the recent reports (queries).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <time.h>

#include "src/common/log.h"

#include "report/run.h"

#include "optimus_conf.h"
#include "planner.h"
#include "rebatch.h"
#include "registry.h"

#define DRAIN_BATCH 256

/*
 * Progress reports carry the cumulative step; the speed of the current run
 * is the step rate between two reports of the same run, over their arrival
 * times to the sub-second (whole seconds made a 2 s interval up to 50%
 * long: issue 29, testsuite/integration/test_replay_trainer.py).
 */
static double run_speed(const reg_job_t *rj, const report_t *r)
{
	const job_model_t *m = rj->model;
	/* The model's whole second, when the record was restored from the
	 * state file and no report came since. */
	double last = (time_t) rj->progress_received == m->last_report ?
		rj->progress_received : (double) m->last_report;
	double dt = r->received - last;
	double dsteps = (double) r->progress.step - m->step;

	if (m->phase != JM_RUNNING || !m->reports || dt < 1.0 || dsteps <= 0)
		return 0.0;
	if (m->nruns && (double) m->runs[m->nruns - 1].start > m->last_report)
		return 0.0;	/* the previous report was from another run */
	return dsteps / dt;
}

/*
 * The job wrote the checkpoint of the resize (or preemption) under way: it
 * may be requeued at once (planner_follow_resizes) instead of at the end
 * of its grace. An older confirmation, or one outside a resize or
 * preemption, changes nothing.
 */
static int checkpoint_confirmed(reg_job_t *rj, const report_t *r)
{
	job_model_t *m = rj->model;
	/* Any confirmation shows that the job can checkpoint, and one
	 * received at or after its run's start that this run can: the
	 * core's rule makes it resizable (job_model_not_resizable). */
	int rc = job_model_checkpoint(m, (time_t) r->received,
				      (double) r->checkpoint.step);

	if (rc)
		return rc;

	if (m->phase != JM_CHECKPOINTING ||
	    r->received < (double) job_model_signalled(m)) {
		debug("sched/optimus: JobId=%u: checkpoint of step %"PRIu64" confirmed outside a resize, ignored",
		      r->job_id, r->checkpoint.step);
		return 0;
	}
	rj->checkpoint_acked = true;
	info("sched/optimus: JobId=%u: checkpoint of step %"PRIu64" confirmed %.0fs after the signal",
	     r->job_id, r->checkpoint.step,
	     r->received - (double) job_model_signalled(m));
	return 0;
}

/*
 * One worker's pace into the job's straggler detector; the finding is
 * logged once, when it is made (the plan then moves the job off the node).
 */
static int worker_reported(reg_job_t *rj, const report_t *r)
{
	job_model_t *m = rj->model;
	const report_worker_t *w = &r->worker;
	int rc = job_model_worker_report(m, &optimus_conf.straggler,
					 (int) w->rank, w->node,
					 w->step_time + w->lag);

	if (rc == 1)
		info("sched/optimus: JobId=%u: straggler: worker %d on node %s is %.1fx slower than the median of the others (%s training, %u reports in a row); the job will move off %s",
		     r->job_id, m->straggler.rank, m->straggler.node,
		     m->straggler.slowdown,
		     straggler_mode_name(m->straggler.mode),
		     optimus_conf.straggler.consecutive, m->straggler.node);
	return rc < 0 ? rc : 0;
}

/*
 * A speed claim the record refused (job_model_speed_claim): said with its
 * reason, once a second per job at most with the count refused since (a
 * job may send hundreds).
 */
static void claim_refused(reg_job_t *rj, const report_t *r, const char *why)
{
	time_t now = time(NULL);

	rj->claims_refused++;
	if (now == rj->claims_logged)
		return;
	info("sched/optimus: JobId=%u: speed report refused: %s (%u refused since the last line)",
	     r->job_id, why, rj->claims_refused);
	rj->claims_logged = now;
	rj->claims_refused = 0;
}

/*
 * A speed sample, once the record took the claim (job/job_claims.c). At
 * the run's own batch it is a sample of the speed model (all-reduce jobs:
 * the nodes of the run, job_model_speed_p); at a batch of its own
 * (local_batch given: the trainer timed other per-worker batches) it is a
 * step time of the goodput model (job_model_batch_sample) only, on the
 * run's nodes.
 */
static int speed_reported(reg_job_t *rj, const report_t *r)
{
	job_model_t *m = rj->model;
	const report_speed_t *s = &r->speed;
	int w = (int) s->workers;
	int n = job_model_speed_p(m, s->ps, s->workers, 0);
	char why[256];

	if (job_model_speed_claim(m, (time_t) r->received, (int) s->ps, w,
				  (int) s->local_batch, (int) s->accum,
				  s->steps_per_sec, why, sizeof(why))) {
		claim_refused(rj, r, why);
		return 0;
	}
	if (!s->local_batch)
		return job_model_speed_sample(m, n, w, s->steps_per_sec);
	if (w == m->cur_workers && m->cur_nodes >= 1)
		n = m->cur_nodes;
	if (!(s->steps_per_sec > 0))
		return -EINVAL;
	return job_model_batch_sample(m, w, n < 1 ? 1 : n > w ? w : n,
				      (int) s->local_batch, (int) s->accum,
				      1.0 / s->steps_per_sec);
}

/* Gradient statistics into the job's efficiency model. The listener
 * checked every value; the record says why it would refuse one. */
static int gradients_reported(reg_job_t *rj, const report_t *r)
{
	const report_gradients_t *g = &r->gradients;
	char err[256];
	int rc = job_model_gradients(rj->model, g->grad_sqr, g->grad_var,
				     g->var_batch, err, sizeof(err));

	if (rc)
		info("sched/optimus: JobId=%u: gradient statistics refused: %s",
		     r->job_id, err);
	return rc;
}

/*
 * A report of a run that is not the job's current one (report/run.h):
 * dropped, nothing kept. Its run reports on until its node comes back,
 * one report a second or more: the line is written once a second per job
 * at most, with the count dropped since.
 */
static void stale_dropped(reg_job_t *rj, const report_t *r)
{
	time_t now = time(NULL);

	rj->stale_dropped++;
	if (now == rj->stale_logged)
		return;
	info("sched/optimus: JobId=%u: %s report of run %u dropped: the job's current run is %u (%u such reports since the last line)",
	     r->job_id, protocol_report_name(r->kind), r->run,
	     rj->restart_cnt, rj->stale_dropped);
	rj->stale_logged = now;
	rj->stale_dropped = 0;
}

static void feed_one(const report_t *r)
{
	reg_job_t *rj = registry_find(r->job_id);
	job_model_t *m;
	double speed;
	int rc = 0;

	/* The rule is the core's; the current run is Slurm's restart count
	 * as the last snapshot copied it (planner_sync, before this drain). */
	if (rj && report_run_verdict(r, rj->restart_cnt) == REPORT_RUN_STALE) {
		stale_dropped(rj, r);
		return;
	}

	/* Every authorised report is kept for queries, a job the planner
	 * does not track (not an optimus job) included. */
	if (registry_recent() && report_history_add(registry_recent(), r))
		error("sched/optimus: JobId=%u: no memory to keep a report",
		      r->job_id);
	if (!rj) {
		debug("sched/optimus: report for untracked JobId=%u dropped",
		      r->job_id);
		return;
	}
	m = rj->model;
	/* The listener refuses a report for a finished job ("finished"), so
	 * every queued report was sent while the job ran. A job's last
	 * progress report often reaches the queue in the same second as its
	 * end, and the tick marks the job done before draining: that report
	 * is its final step and loss, so it is applied, and the final
	 * SystemComment is written again with it. So are gradient statistics
	 * sent with it (measured while the job ran: a short job's only ones;
	 * testsuite/integration/test_pollux_replay.py). Its other kinds are
	 * about a run that is over (pace, speed, checkpoints). */
	if (m->phase == JM_DONE) {
		if (r->kind != REPORT_PROGRESS &&
		    r->kind != REPORT_GRADIENTS) {
			debug("sched/optimus: JobId=%u: report of kind %d after the job finished dropped",
			      r->job_id, r->kind);
			return;
		}
		/* Said, so that a test can tell this path was taken
		 * (test_adaptive_batch.py). */
		debug("sched/optimus: JobId=%u: %s report sent before the job's end applied to its finished record",
		      r->job_id, protocol_report_name(r->kind));
		rj->accounted = false;
	}
	switch (r->kind) {
	case REPORT_PROGRESS:
		speed = run_speed(rj, r);
		/* The report that says a new batch taken in place: its steps
		 * since the last report are at both batches, so its step
		 * rate is a sample of neither. */
		if (rebatch_said(rj, r))
			speed = 0.0;
		rc = job_model_report(m, (time_t) r->received,
				      (double) r->progress.step,
				      r->progress.loss, speed,
				      r->progress.epoch < 0 ? 0 : r->progress.epoch);
		if (!rc)
			rj->progress_received = r->received;
		break;
	case REPORT_SPEED:
		rc = speed_reported(rj, r);
		break;
	case REPORT_CHECKPOINT:
		rc = checkpoint_confirmed(rj, r);
		break;
	case REPORT_WORKER:
		rc = worker_reported(rj, r);
		break;
	case REPORT_GRADIENTS:
		rc = gradients_reported(rj, r);
		break;
	default:
		rc = -1;
	}
	/* A run that is over still reporting (its node taken for dead by
	 * Slurm, its processes alive) is late, not wrong: said as such. */
	if (rc == -ESRCH)
		info("sched/optimus: JobId=%u: %s report of a run that is over dropped (the job is %s)",
		     r->job_id, protocol_report_name(r->kind),
		     job_phase_name(m->phase));
	else if (rc)
		info("sched/optimus: JobId=%u: %s report refused by the model (rc %d)",
		     r->job_id, protocol_report_name(r->kind), rc);
}

extern void planner_feed_reports(report_queue_t *q)
{
	report_t batch[DRAIN_BATCH];
	size_t n;

	do {
		n = report_queue_drain(q, batch, DRAIN_BATCH);
		for (size_t i = 0; i < n; i++)
			feed_one(&batch[i]);
	} while (n == DRAIN_BATCH);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * planner_reports.c - the reports received by the listener into the
 * registry: each into its job's record by the core's rules
 * (job/job_feed.h), kept for queries, and what became of it said in
 * slurmctld's log.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <time.h>

#include "src/common/log.h"

#include "job/job_feed.h"

#include "optimus_conf.h"
#include "planner.h"
#include "rebatch.h"
#include "registry.h"

#define DRAIN_BATCH 256

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

/* The checkpoint of the stop under way confirmed: the job may be
 * requeued at once (planner_follow_resizes) instead of at the end of its
 * grace. */
static void checkpoint_said(reg_job_t *rj, const report_t *r,
			    const job_feed_out_t *out)
{
	if (!out->checkpoint_acked) {
		debug("sched/optimus: JobId=%u: checkpoint of step %"PRIu64" confirmed outside a resize, ignored",
		      r->job_id, r->checkpoint.step);
		return;
	}
	rj->checkpoint_acked = true;
	info("sched/optimus: JobId=%u: checkpoint of step %"PRIu64" confirmed %.0fs after the signal",
	     r->job_id, r->checkpoint.step, out->ack_seconds);
}

/* A straggler found: said once, when it is (the plan then moves the job
 * off the node). */
static void straggler_said(const reg_job_t *rj, const report_t *r)
{
	const job_model_t *m = rj->model;

	info("sched/optimus: JobId=%u: straggler: worker %d on node %s is %.1fx slower than the median of the others (%s training, %u reports in a row); the job will move off %s",
	     r->job_id, m->straggler.rank, m->straggler.node,
	     m->straggler.slowdown, straggler_mode_name(m->straggler.mode),
	     optimus_conf.straggler.consecutive, m->straggler.node);
}

static void feed_one(const report_t *r)
{
	reg_job_t *rj = registry_find(r->job_id);
	job_feed_verdict_t v = JOB_FEED_TAKEN;
	job_feed_out_t out;
	job_model_t *m;

	/* The current run is Slurm's restart count as the last snapshot
	 * copied it (planner_sync, before this drain). */
	if (rj)
		v = job_feed_report(rj->model, &rj->feed, r, rj->restart_cnt,
				    &optimus_conf.straggler, &out);
	if (v == JOB_FEED_STALE) {
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
	if (v == JOB_FEED_AFTER_END) {
		debug("sched/optimus: JobId=%u: report of kind %d after the job finished dropped",
		      r->job_id, r->kind);
		return;
	}
	if (out.after_end) {
		/* Said, so that a test can tell this path was taken
		 * (test_adaptive_batch.py); the final SystemComment is
		 * written again with it. */
		debug("sched/optimus: JobId=%u: %s report sent before the job's end applied to its finished record",
		      r->job_id, protocol_report_name(r->kind));
		rj->accounted = false;
	}
	if (r->kind == REPORT_PROGRESS)
		rebatch_said(rj, r, &out);
	else if (r->kind == REPORT_CHECKPOINT && v == JOB_FEED_TAKEN)
		checkpoint_said(rj, r, &out);
	else if (r->kind == REPORT_WORKER && out.straggler_found)
		straggler_said(rj, r);
	else if (r->kind == REPORT_GRADIENTS && out.rc)
		info("sched/optimus: JobId=%u: gradient statistics refused: %s",
		     r->job_id, out.why);
	switch (v) {
	case JOB_FEED_CLAIM_REFUSED:
		claim_refused(rj, r, out.why);
		break;
	case JOB_FEED_LATE:
		/* A run that is over still reporting (its node taken for
		 * dead by Slurm, its processes alive) is late, not wrong. */
		info("sched/optimus: JobId=%u: %s report of a run that is over dropped (the job is %s)",
		     r->job_id, protocol_report_name(r->kind),
		     job_phase_name(m->phase));
		break;
	case JOB_FEED_REFUSED:
		info("sched/optimus: JobId=%u: %s report refused by the model (rc %d)",
		     r->job_id, protocol_report_name(r->kind), out.rc);
		break;
	default:
		break;
	}
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

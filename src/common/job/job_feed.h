/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * job/job_feed.h - a job's reports into its record: the one set of rules
 * by which what a run reports changes the record, whoever feeds it
 * (sched/optimus from the listener's queue, optimus-sim from its
 * simulated jobs). The adapter keeps what is its own: finding the
 * record, its locks, and what it says in its log about each outcome.
 */
#ifndef OPTIMUS_JOB_FEED_H
#define OPTIMUS_JOB_FEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job/job_model.h"
#include "models/straggler.h"
#include "report/protocol.h"

/* What the feed keeps of a job beside its record. */
typedef struct job_feed {
	/*
	 * Arrival of the last progress report taken, to the sub-second:
	 * the record keeps whole seconds (last_report), and a step rate
	 * over an interval that starts at a truncated second runs low by
	 * up to a second per interval (job_feed_run_speed).
	 */
	double progress_received;
} job_feed_t;

/* A progress report as the feed takes it. */
typedef struct job_progress {
	double received;	/* arrival, seconds since the epoch */
	double step;		/* cumulative training steps */
	double loss;		/* NAN: none said (the loss models are not fed) */
	double epoch;		/* epochs so far, >= 0 */
	/* The global batch the run says it trains at (0: not said), and
	 * how long its change to it took as it timed it (< 0: not said). */
	double batch;
	double rebatch_seconds;
	/* The all-reduce part of the run's steps as the job timed it (0:
	 * not said; job_model_batch_sync). */
	double sync_seconds;
	/*
	 * The run's steps per second as the job timed them itself (0: no
	 * sample); NAN: not said, the feed's own from the steps between
	 * two reports (job_feed_run_speed). The protocol's progress
	 * report carries none; a simulated job times its run.
	 */
	double timed;
} job_progress_t;

/* What became of one report. */
typedef enum job_feed_verdict {
	JOB_FEED_TAKEN = 0,	/* the record took it */
	JOB_FEED_STALE,		/* another run's (report/run.h): nothing kept */
	JOB_FEED_AFTER_END,	/* about a run, after the job finished */
	JOB_FEED_LATE,		/* of a run that is over (the record's -ESRCH) */
	JOB_FEED_CLAIM_REFUSED,	/* a speed claim refused (why) */
	JOB_FEED_REFUSED,	/* the record refused it (rc; why, when said) */
} job_feed_verdict_t;

typedef struct job_feed_out {
	job_feed_verdict_t verdict;
	int rc;
	char why[256];
	/* A progress or gradients report sent before the job's end and
	 * taken into its finished record. */
	bool after_end;
	/* A checkpoint report: it confirms the stop under way (a resize's
	 * or a preemption's checkpoint), and how long after the signal. */
	bool checkpoint_acked;
	double ack_seconds;
	/* A worker report: the straggler was found by this one. */
	bool straggler_found;
	/* A progress report saying its batch: job_model_rebatch_said's
	 * verdict (1: a change sent was taken, -1: not followed, 0: no
	 * change), and the run's batch before it. */
	int rebatch;
	double batch_before;
} job_feed_out_t;

/*
 * The speed of the current run from two of its progress reports: the
 * steps between the last one taken and this one over their arrival
 * times; 0 when there is none to take (the job not running, no report
 * before, less than a second between them or no step made, or the last
 * one from another run).
 */
double job_feed_run_speed(const job_model_t *m, const job_feed_t *f,
			  double received, double step);

/*
 * A progress report: its speed (p->timed, else job_feed_run_speed), none
 * from the report that says a batch change taken in place (its steps are
 * at both batches), then the record's report (with a loss) or progress
 * (without). 0, or the record's error; out (may be NULL) says what the
 * batch it said did.
 */
int job_feed_progress(job_model_t *m, job_feed_t *f, const job_progress_t *p,
		      job_feed_out_t *out);

/*
 * A speed report: a claim checked against the run (job_model_speed_claim;
 * -EPERM with why when refused), then a sample of the speed model at the
 * run's batch, or of the goodput model at a per-worker batch of its own
 * (on the run's nodes). 0, or the record's error.
 */
int job_feed_speed(job_model_t *m, double received, const report_speed_t *s,
		   char *why, size_t len);

/*
 * A checkpoint report at `step`: the run declared it can checkpoint
 * (job_model_checkpoint), and, when it arrives at or after the signal of
 * the stop under way, it confirms that stop's checkpoint (*acked; the
 * job may be requeued at once). 0 or the record's error.
 */
int job_feed_checkpoint(job_model_t *m, double received, double step,
			bool *acked);

/*
 * One report of a job whose current run is `current_run`: dropped when it
 * is another run's; after the job's end only a progress or gradients
 * report is taken (sent while it ran: its last steps, loss and
 * statistics), the kinds about a run are dropped; else fed by its kind.
 * `straggler` is the detector's parameters. The verdict, also in out.
 */
job_feed_verdict_t job_feed_report(job_model_t *m, job_feed_t *f,
				   const report_t *r, uint32_t current_run,
				   const straggler_params_t *straggler,
				   job_feed_out_t *out);

#endif

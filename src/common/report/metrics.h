/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * report/metrics.h - the scheduler's figures for Prometheus (doc/metrics.md),
 * written in the text exposition format (util/prom_text.h).
 *
 * The figures come from three owners: the report service counts what it
 * accepted and refused (metrics_channel_t), the planner its plans, waits
 * and saves (metrics_sched_t), and the registry describes each job
 * (metrics_job_t). The service gathers them for a `metrics` query and
 * asks metrics_render() for the text, showing a job's series only to whom
 * may see the job (the rule of the queries: its owner, root or
 * SlurmUser); the scheduler-wide figures are shown to everyone, like
 * sdiag's.
 *
 * Counters count from the start of this slurmctld (optimus_start_time_
 * seconds) and start again from 0 when it restarts, as a process's
 * counters do (Prometheus' rate() and increase() take resets in their
 * stride); a job's own counters (resizes, preemptions, restarts, resize
 * seconds, reports) are kept in the state file and survive the restart.
 */
#ifndef OPTIMUS_REPORT_METRICS_H
#define OPTIMUS_REPORT_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One job; every figure NAN when unknown (its series is then left out). */
typedef struct metrics_job {
	uint32_t job_id;
	uint32_t uid;
	bool ended;			/* done: its series are left out */
	char policy[16], mode[16], phase[16];
	char model[64];			/* the user's model= hint: user text */
	double ps, workers, gpus;	/* held now */
	double plan_ps, plan_workers;	/* the last plan's size */
	double remaining_seconds;	/* predicted at the size held */
	double steps_per_sec;		/* measured (last report) */
	double step, loss;		/* last reported */
	double reports, resizes, restarts, resize_seconds;	/* counters */
	double preemptions;				/* counter */
} metrics_job_t;

/* The plan's decisions, in the order of plan_t's counts. */
enum { METRICS_START, METRICS_RESIZE, METRICS_KEEP, METRICS_WAIT,
       METRICS_PREEMPT, METRICS_NACTIONS };

/* The planner's figures since this slurmctld started. */
typedef struct metrics_sched {
	uint64_t plans, plan_failures, planned_jobs;	/* counters */
	double plan_seconds;		/* the last plan's duration */
	double plan_time;		/* when it ran (s since epoch), 0: never */
	uint64_t plan_jobs;		/* jobs in the last plan */
	uint64_t plan_decisions[METRICS_NACTIONS];	/* of the last plan */
	uint64_t preemptions;		/* checkpoint signals sent for one */
	uint64_t ckpt_confirmed, ckpt_expired;	/* waits ended by ... */
	double ckpt_wait_seconds;	/* their total length */
	uint64_t state_saves, state_save_failures;
	double state_save_time;		/* last successful save, 0: never */
} metrics_sched_t;

/*
 * What the planner gives: its figures and every job it tracks. per_job
 * (optimus.conf MetricsPerJob, default no) asks for the series of each
 * job: a job_id label has as many values as jobs ever run, and model= is
 * the user's text, so by default no series names a job (what
 * prometheus-slurm-exporter does) and the text stays the same size
 * whatever the jobs; asked for, a job's series end when the job does.
 */
typedef struct metrics {
	bool planner;		/* false: no planner attached yet */
	bool per_job;		/* the optimus_job_* families too */
	metrics_sched_t sched;
	const char *const *phases;	/* every phase name, for optimus_jobs */
	size_t nphases;
	metrics_job_t *jobs;
	size_t njobs, cap;
} metrics_t;

/* A new zeroed job record in m (every figure NAN); NULL on no memory. */
metrics_job_t *metrics_add_job(metrics_t *m);
void metrics_free(metrics_t *m);

/* One counter of the report channel: a label value and its count. */
typedef struct metrics_count {
	const char *label;
	uint64_t n;
} metrics_count_t;

#define METRICS_CHANNEL_MAX 24

/* The report service's counts (report_service_counts()). */
typedef struct metrics_channel {
	double start_time;	/* when the counting began (s since epoch) */
	metrics_count_t accepted[METRICS_CHANNEL_MAX];	/* by message type */
	size_t naccepted;
	metrics_count_t refused[METRICS_CHANNEL_MAX];	/* by reason */
	size_t nrefused;
} metrics_channel_t;

/*
 * The whole text: the channel's counters, the planner's figures (when
 * m->planner) and, when m->per_job, the series of each job that has not
 * ended and for which visible(uid of the job's owner, arg) is true. 0, or
 * -EINVAL (a bad name: a bug) / -ENOMEM.
 */
int metrics_render(FILE *f, const metrics_channel_t *c, const metrics_t *m,
		   bool (*visible)(uint32_t owner, void *arg), void *arg);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * report/service.h - serve one report/query request, without any I/O.
 *
 * The listener (src/plugins/sched/optimus/listener.c) owns sockets and the
 * thread; this file owns the decisions, in this order: envelope, munge
 * credential (uid, payload bound to it, munge's expiry and replay checks),
 * message fields, our own replay/staleness check (replay_cache.h),
 * authorisation (the uid must own the job, or be root or SlurmUser), the
 * scheduler's admission of a report (would the job's record take it:
 * report_callbacks_t.admit), then the action: push the report to the bounded queue (or, while no consumer
 * is attached, to the service's own per-job history: one home per report),
 * or answer the query through the registered callback, whose answer is the
 * whole answer. It counts every outcome (optimus_reports_*_total) and
 * answers the `metrics` query itself (report/metrics.h), from its counts and
 * the planner's figures, showing each job's series only to whom the rule
 * of authorize() lets see the job.
 */
#ifndef OPTIMUS_REPORT_SERVICE_H
#define OPTIMUS_REPORT_SERVICE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "report/munge_auth.h"
#include "report/protocol.h"
#include "report/history.h"
#include "report/metrics.h"
#include "report/queue.h"
#include "report/viewer.h"

/* Registered by the plugin. Both are called from the listener thread. */
typedef struct report_callbacks {
	/* 0 with the job's owner in *uid and its current run in *run (its
	 * restart count: a report naming another run is refused), 1 with
	 * them when the job has finished (its record is closed to reports,
	 * still open to queries), or -ENOENT when there is no such job (the
	 * plugin takes a short slurmctld job read lock). */
	int (*job_owner)(uint32_t job_id, uid_t *uid, uint32_t *run);
	/* The answer to q asked by v (caller owns it), NULL on failure.
	 * NULL callback: answered from the report history. Authorisation is
	 * already done: a job query reaches it only from the owner/admin; a
	 * status answer shows only the jobs v may see, at most v->max_jobs
	 * (report/viewer.h). */
	json_object *(*query)(const query_t *q, const report_viewer_t *v);
	/* Would the scheduler take report r (its job owned by the sender,
	 * not finished)? 0, or < 0 with the reason in err: r is refused to
	 * its sender ("rejected") and nothing is queued. NULL: every report
	 * is queued. Called from the listener thread, so it must not wait
	 * for slurmctld or the planner's work (a short lock at most). */
	int (*admit)(const report_t *r, char *err, size_t errlen);
	/* A batch change for the job of the accepted report r, for its
	 * reply ("rebatch", protocol.h): 1 with *out, else 0. NULL: none.
	 * It must not wait on slurmctld: the plugin reads its registry
	 * under the registry's own lock. */
	int (*rebatch)(const report_t *r, report_rebatch_t *out);
} report_callbacks_t;

/* Checks a credential; munge_auth_verify in production, a fake in tests. */
typedef munge_auth_status_t (*report_verify_fn)(const char *socket,
						const char *cred,
						const char *payload, size_t len,
						uid_t *uid, char *err,
						size_t errlen);

typedef struct report_service_conf {
	const char *munge_socket;	/* NULL: munge's default */
	uid_t admin_uid;		/* SlurmUser; root is always admin */
	unsigned replay_window;		/* s: messages older/newer are stale */
	size_t replay_capacity;		/* nonces remembered */
	size_t queue_capacity;		/* reports waiting for the planner */
	size_t history_jobs;		/* jobs kept until a consumer attaches */
	size_t history_per_job;		/* reports kept per job and kind */
	size_t status_max_jobs;		/* jobs a status reply holds at most */
	report_verify_fn verify;	/* NULL: munge_auth_verify */
} report_service_conf_t;

#define REPORT_SERVICE_CONF_DEFAULT ((report_service_conf_t){ \
	.munge_socket = NULL, .admin_uid = 0, .replay_window = 300, \
	.replay_capacity = 1 << 18, .queue_capacity = 4096, \
	.history_jobs = 1024, .history_per_job = 512, \
	.status_max_jobs = REPORT_STATUS_MAX_JOBS_DEFAULT, .verify = NULL })

/* What happened to one request, for the listener's log. */
typedef struct report_outcome {
	int accepted;		/* 1: served; 0: refused with code/reason */
	const char *code;	/* "ok", "bad_request", "invalid", "replayed",
				 * "expired", "stale", "forbidden", "no_job",
				 * "finished", "rejected", "old_run",
				 * "busy", "unavailable", "error" */
	char reason[320];
	uid_t uid;		/* (uid_t)-1 until the credential is checked */
	msg_type_t type;	/* 0 until the message is parsed */
	uint32_t job_id;
} report_outcome_t;

typedef struct report_service report_service_t;

report_service_t *report_service_create(const report_service_conf_t *conf,
					const report_callbacks_t *cb);
void report_service_destroy(report_service_t *s);

/* Handle one frame body received at `now` (s since epoch). Returns the
 * malloc'd reply text (NULL only when out of memory). */
char *report_service_handle(report_service_t *s, const char *body,
			    size_t len, double now, report_outcome_t *out);

/* Replace the query callback (thread-safe; NULL restores the default). */
void report_service_set_query(report_service_t *s,
			      json_object *(*query)(const query_t *,
						    const report_viewer_t *));

/* The planner's figures for the metrics query (thread-safe; NULL: none,
 * the default). fn fills m with every job it tracks (metrics_add_job) and
 * sets m->planner; 0, or < 0 on failure. Called from the listener thread. */
void report_service_set_metrics(report_service_t *s,
				int (*fn)(metrics_t *m));

/* Count an outcome decided outside report_service_handle() (the listener's
 * own refusals: too_large, busy); report_service_handle() counts its own. */
void report_service_count(report_service_t *s, const report_outcome_t *out);
/* A copy of the counts (label pointers are static). */
void report_service_counts(report_service_t *s, metrics_channel_t *c);

/* The planner calls this once and then drains the queue every interval,
 * keeping the reports itself (its registry answers the queries); until
 * someone has, reports are kept in the history, since a queue nobody
 * drains would fill up and shed every report. */
report_queue_t *report_service_attach_consumer(report_service_t *s);
report_history_t *report_service_history(report_service_t *s);

/* The history-based answer (the default query callback's). */
json_object *report_service_history_query(report_service_t *s,
					  const query_t *q,
					  const report_viewer_t *v);

#endif

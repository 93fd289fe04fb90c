/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * listener.h - the report/query listener thread inside slurmctld.
 *
 * Accepts framed, munge-authenticated JSON requests (doc/design/reports.md) on
 * ReportAddress:ReportPort of optimus.conf, in its own poll()-based thread
 * with non-blocking sockets, so it never blocks slurmctld. Decisions are in
 * the core (report/service.h); this file owns the sockets, the thread, the
 * log and the slurmctld-side callbacks.
 */
#ifndef OPTIMUS_SCHED_LISTENER_H
#define OPTIMUS_SCHED_LISTENER_H

#include <json-c/json.h>

#include "report/protocol.h"
#include "report/history.h"
#include "report/metrics.h"
#include "report/queue.h"

/* Read optimus.conf and start the thread: SLURM_SUCCESS or SLURM_ERROR
 * (logged; slurmctld goes on without reports). */
extern int listener_start(void);
extern void listener_stop(void);

/* For the planner: the queue of validated reports to drain every interval
 * (report_queue_drain); NULL when the listener is not running. */
extern report_queue_t *listener_attach_consumer(void);
/* For the planner: answer queries (status, job N, plan) from now on. */
extern void listener_set_query(json_object *(*query)(
	const query_t *q, const report_viewer_t *v));
/* For the planner: its figures for the metrics query from now on. */
extern void listener_set_metrics(int (*fn)(metrics_t *m));
/* The per-job report history (also what queries fall back to). */
extern report_history_t *listener_history(void);

#endif

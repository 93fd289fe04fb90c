/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * query.h - answers to optimusctl's queries (status, job N, plan) from the
 * planner's registry. Called from the listener thread.
 */
#ifndef OPTIMUS_QUERY_H
#define OPTIMUS_QUERY_H

#include <sys/types.h>

#include <json-c/json.h>

#include "report/metrics.h"
#include "report/protocol.h"
#include "report/viewer.h"

/* The answer to q asked by v: a status shows only the jobs v may see, at
 * most v->max_jobs (report/viewer.h). */
extern json_object *query_answer(const query_t *q, const report_viewer_t *v);

/* The planner's figures and every job's, for the metrics query
 * (report_service_set_metrics): 0, or -1 with no memory. */
extern int query_metrics(metrics_t *m);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * report/history.h - the last reports of each job, for queries.
 *
 * Per job a ring of the most recent progress points and speed samples, and
 * the last checkpoint confirmation, for `optimusctl show job N` and
 * `status`. One instance holds a job's reports: sched/optimus' registry
 * (registry.h), or the report service's while no planner consumes its
 * queue. Bounded in jobs (the least recently updated job is forgotten
 * first) and in reports per job. Thread-safe.
 */
#ifndef OPTIMUS_REPORT_HISTORY_H
#define OPTIMUS_REPORT_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "report/protocol.h"
#include "report/viewer.h"

typedef struct report_history report_history_t;

report_history_t *report_history_create(size_t max_jobs, size_t per_job);
void report_history_destroy(report_history_t *h);
/* 0, or -ENOMEM. */
int report_history_add(report_history_t *h, const report_t *r);
/* {"job":N,"uid":U,"progress":[...],"speed_samples":[...],"reports":n}, or
 * NULL when the job has no reports. */
json_object *report_history_job_json(report_history_t *h, uint32_t job_id);
/*
 * Put back a job's reports from report_history_job_json's answer (the
 * state file): the newest per_job of each kind, the last
 * checkpoint and the count. 0, or -EINVAL/-EBADMSG with a reason in err
 * (reports read before the fault stay).
 */
int report_history_job_restore(report_history_t *h, json_object *o,
			       char *err, size_t len);
/*
 * {"jobs":[{"job":N,"uid":U,"reports":count,"last":{...}}...],
 *  "truncated":bool,"jobs_total":n}: the jobs v may see, at most
 * v->max_jobs of them (jobs_total: how many it may see).
 */
json_object *report_history_status_json(report_history_t *h,
					const report_viewer_t *v);
size_t report_history_jobs(report_history_t *h);

#endif

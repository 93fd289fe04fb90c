/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * registry.h - sched/optimus' table of optimus jobs and their models.
 *
 * The planner thread owns the records; the listener thread reads them to
 * answer queries. One mutex guards the table and every record in it.
 * The planner thread is the only one that adds, removes or changes a
 * record: it takes the mutex to change one, and may read without it
 * (fitting copies, writing the state file), which is why queries never
 * wait for fitting or for the state file's fsync. Every other thread reads
 * under the mutex only.
 */
#ifndef OPTIMUS_REGISTRY_H
#define OPTIMUS_REGISTRY_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <json-c/json.h>

#include "job/job_feed.h"
#include "job/job_model.h"
#include "plan/plan.h"
#include "models/speed_profiles.h"
#include "report/history.h"
#include "report/metrics.h"

/* Plugin-side bookkeeping beside the core's job model. */
typedef struct reg_job {
	uint32_t job_id;	/* model->job_id, the key of the index */
	job_model_t *model;
	time_t last_seen;	/* last snapshot that had the job */
	bool accounted;		/* final SystemComment queued for slurmdbd */
	uint8_t account_tries;	/* refused queueings (accounting off, full) */
	bool checkpoint_acked;	/* the job confirmed its checkpoint */
	uint16_t restart_cnt;	/* Slurm's count at our last look */
	/* Reports of another run dropped since the last line saying so,
	 * and that line's second (one a second per job at most). */
	uint32_t stale_dropped;
	time_t stale_logged;
	/* Speed claims refused since the last line saying so, and its
	 * second (planner_reports.c claim_refused). */
	uint32_t claims_refused;
	time_t claims_logged;
	bool blocked;		/* pending for others' reasons at our last look */
	bool at_gate;		/* waiting at optimus' gate at our last look */
	plan_decision_t last;	/* latest decision (slots not kept) */
	/* The START applied last: its slots and what it takes on each
	 * (xmalloc'd), and when it was applied; reserved until Slurm runs the
	 * job (planner_decide). */
	place_slot_t *start_slots;
	res_vec_t *start_usage;
	size_t nstart;
	time_t started_at;
	double start_batch;	/* the batch of that START (0: submitted) */
	job_feed_t feed;	/* the core's feed beside the record */
} reg_job_t;

extern void registry_init(void);
extern void registry_fini(void);
extern void registry_lock(void);
extern void registry_unlock(void);

/* With the lock held. */
extern reg_job_t *registry_find(uint32_t job_id);
/* Adds a record taking ownership of model; NULL if the id exists. */
extern reg_job_t *registry_add(job_model_t *model);
extern void registry_remove(uint32_t job_id);
/* Calls fn for every record, in job id order; stops when fn returns < 0. */
extern void registry_for_each(int (*fn)(reg_job_t *rj, void *arg), void *arg);
extern int registry_count(void);
/* Shared speed profiles (by hints.model), fed by every job's samples. */
extern speed_profiles_t *registry_profiles(void);
/*
 * The recent reports of every job that reported (optimusctl show job,
 * status), fed with the models by planner_feed_reports(): the registry is
 * the one home of a job's reports. Bounded like the report service's
 * history: REGISTRY_RECENT_JOBS jobs (least recently updated
 * forgotten first), REGISTRY_RECENT_PER_JOB reports per job and kind.
 */
#define REGISTRY_RECENT_JOBS 1024
#define REGISTRY_RECENT_PER_JOB 512
extern report_history_t *registry_recent(void);

/*
 * The planner's figures for the metrics query (report/metrics.h): changed
 * by the planner thread under the lock, read under it. They count from
 * this slurmctld's start (doc/metrics.md).
 */
extern metrics_sched_t *registry_stats(void);

/* The latest plan, as JSON (owned by the registry); may be NULL. */
extern void registry_set_plan_json(json_object *plan);
extern json_object *registry_plan_json(void);

/*
 * The whole table as JSON, and back (state file): back returns the number
 * of job records skipped (err says so; each is logged), or -EINVAL when o
 * is not an optimus state at all.
 */
extern json_object *registry_to_json(void);
extern int registry_from_json(const json_object *o, char *err, size_t len);

#endif

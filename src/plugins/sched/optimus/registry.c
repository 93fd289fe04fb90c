/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * registry.c - sched/optimus' table of optimus jobs and their models.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/xhash.h"
#include "src/common/xmalloc.h"

#include "lock_hold.h"
#include "models/model_json.h"
#include "registry.h"
#include "slurm_compat.h"
#include "util/errmsg.h"

#define REGISTRY_FORMAT 1	/* version of the JSON written by to_json */

static pthread_mutex_t registry_mutex = PTHREAD_MUTEX_INITIALIZER;
static list_t *jobs;			/* of reg_job_t, sorted by job id */
/* The same records by job id: registry_find() runs for every job of every
 * snapshot and every report, in O(1) rather than a walk of the list. */
static xhash_t *by_id;
static uint32_t last_id;		/* largest id in jobs */
static speed_profiles_t *profiles;
static report_history_t *recent;
static json_object *plan_json;
static metrics_sched_t stats;
static struct timespec held_since;	/* written by the lock holder only */

static void reg_job_free(void *x)
{
	reg_job_t *rj = x;

	job_model_free(rj->model);
	xfree(rj->start_slots);
	xfree(rj->start_usage);
	xfree(rj);
}

static int reg_job_cmp(void *a, void *b)
{
	uint32_t x = (*(reg_job_t **) a)->job_id;
	uint32_t y = (*(reg_job_t **) b)->job_id;

	return (x > y) - (x < y);
}

static int reg_job_match(void *x, void *key)
{
	return ((reg_job_t *) x)->job_id == *(uint32_t *) key;
}

static void reg_job_id(void *item, const char **key, uint32_t *len)
{
	*key = (const char *) &((reg_job_t *) item)->job_id;
	*len = sizeof(uint32_t);
}

extern void registry_init(void)
{
	slurm_mutex_lock(&registry_mutex);
	if (!jobs)
		jobs = list_create(reg_job_free);
	if (!by_id)
		by_id = xhash_init(reg_job_id, NULL);
	if (!profiles)
		profiles = speed_profiles_new();
	if (!recent && !(recent = report_history_create(
			REGISTRY_RECENT_JOBS, REGISTRY_RECENT_PER_JOB)))
		error("sched/optimus: no memory for the recent reports");
	slurm_mutex_unlock(&registry_mutex);
}

extern void registry_fini(void)
{
	slurm_mutex_lock(&registry_mutex);
	xhash_free_ptr(&by_id);
	FREE_NULL_LIST(jobs);
	last_id = 0;
	speed_profiles_free(profiles);
	profiles = NULL;
	report_history_destroy(recent);
	recent = NULL;
	if (plan_json)
		json_object_put(plan_json);
	plan_json = NULL;
	memset(&stats, 0, sizeof(stats));
	slurm_mutex_unlock(&registry_mutex);
}

extern void registry_lock(void)
{
	slurm_mutex_lock(&registry_mutex);
	lock_hold_begin(&held_since);
}

extern void registry_unlock(void)
{
	lock_hold_end(LOCK_SITE_REGISTRY, &held_since);
	slurm_mutex_unlock(&registry_mutex);
}

extern reg_job_t *registry_find(uint32_t job_id)
{
	return by_id ? xhash_get(by_id, (const char *) &job_id,
				 sizeof(job_id)) : NULL;
}

extern reg_job_t *registry_add(job_model_t *model)
{
	reg_job_t *rj;

	if (!jobs || !by_id || registry_find(model->job_id))
		return NULL;
	rj = xmalloc(sizeof(*rj));
	rj->job_id = model->job_id;
	rj->model = model;
	list_append(jobs, rj);
	/* Slurm's ids mostly grow: sort only when one arrives out of order
	 * (a sort per job made a burst of arrivals quadratic). */
	if (rj->job_id < last_id)
		list_sort(jobs, reg_job_cmp);
	else
		last_id = rj->job_id;
	xhash_add(by_id, rj);
	return rj;
}

extern void registry_remove(uint32_t job_id)
{
	if (by_id)
		xhash_delete(by_id, (const char *) &job_id, sizeof(job_id));
	if (jobs)
		list_delete_all(jobs, reg_job_match, &job_id);
}

struct for_each_arg {
	int (*fn)(reg_job_t *, void *);
	void *arg;
};

static int for_each_cb(void *x, void *arg)
{
	struct for_each_arg *a = arg;

	return a->fn(x, a->arg);
}

extern void registry_for_each(int (*fn)(reg_job_t *rj, void *arg), void *arg)
{
	struct for_each_arg a = { fn, arg };

	if (jobs)
		list_for_each(jobs, for_each_cb, &a);
}

extern int registry_count(void)
{
	return jobs ? list_count(jobs) : 0;
}

extern speed_profiles_t *registry_profiles(void)
{
	return profiles;
}

extern report_history_t *registry_recent(void)
{
	return recent;
}

extern void registry_set_plan_json(json_object *plan)
{
	if (plan_json)
		json_object_put(plan_json);
	plan_json = plan;
}

extern json_object *registry_plan_json(void)
{
	return plan_json;
}

extern metrics_sched_t *registry_stats(void)
{
	return &stats;
}

static int add_job_json(reg_job_t *rj, void *arg)
{
	json_object *o = job_model_to_json(rj->model), *hist;

	if (!o)
		return -1;
	json_object_object_add(o, "accounted",
			       json_object_new_boolean(rj->accounted));
	/* The job's recent reports (bounded like the history itself), so
	 * that a restart keeps `optimusctl show job`'s points. */
	if (recent && (hist = report_history_job_json(recent, rj->job_id)))
		json_object_object_add(o, "recent", hist);
	json_object_array_add(arg, o);
	return 0;
}

extern json_object *registry_to_json(void)
{
	json_object *root = json_object_new_object();
	json_object *arr = json_object_new_array();

	json_object_object_add(root, "format",
			       json_object_new_int(REGISTRY_FORMAT));
	json_object_object_add(root, "jobs", arr);
	registry_for_each(add_job_json, arr);
	/* The speed profiles the finished jobs fed: a restart of slurmctld
	 * (under Slurm 24.11 every `scontrol reconfigure`) must not lose
	 * them, nor what PublishProfiles= lends to other users. */
	if (profiles)
		json_object_object_add(root, "profiles",
				       speed_profiles_to_json(profiles));
	return root;
}

/* The saved profiles, if any: a bad one loses only the profiles (the
 * jobs' records are kept), said once. */
static void restore_profiles(const json_object *o)
{
	json_object *saved;
	speed_profiles_t *loaded = NULL;
	char why[256] = "";

	if (!json_object_object_get_ex(o, "profiles", &saved))
		return;
	if (speed_profiles_from_json(saved, &loaded, why, sizeof(why))) {
		error("sched/optimus: state: speed profiles ignored: %s", why);
		return;
	}
	speed_profiles_free(profiles);
	profiles = loaded;
}

/*
 * Load every job: a record with a value out of its bounds is loaded
 * without that value (job_model_from_json_salvaged), said with the job;
 * only a record that cannot be told (its job id, uid or hints) is skipped.
 */
extern int registry_from_json(const json_object *o, char *err, size_t len)
{
	json_object *fmt, *arr;
	size_t n, bad = 0;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "format", &fmt) ||
	    json_object_get_int(fmt) != REGISTRY_FORMAT ||
	    !json_object_object_get_ex(o, "jobs", &arr) ||
	    !json_object_is_type(arr, json_type_array))
		return errmsg_set(err, len, -EINVAL, "not an optimus state "
				  "(format %d with a jobs array expected)",
				  REGISTRY_FORMAT);
	n = json_object_array_length(arr);
	for (size_t i = 0; i < n; i++) {
		json_object *jo = json_object_array_get_idx(arr, i);
		json_object *acc;
		char why[1024] = "";
		job_model_t *m = job_model_from_json_salvaged(jo, why,
							      sizeof(why));
		reg_job_t *rj;

		if (!m || !(rj = registry_add(m))) {
			error("sched/optimus: state: job record %zu ignored: %s",
			      i, m ? "duplicate job id" : why);
			job_model_free(m);
			bad++;
			continue;
		}
		if (why[0])
			error("sched/optimus: state: JobId=%u: out of bounds, refused (the rest of the record kept): %s",
			      rj->job_id, why);
		if (json_object_object_get_ex(jo, "accounted", &acc))
			rj->accounted = json_object_get_boolean(acc);
		/* Optional: a state file may have none. A bad
		 * history loses only the history, not the record. */
		if (recent && json_object_object_get_ex(jo, "recent", &acc) &&
		    report_history_job_restore(recent, acc, why, sizeof(why)))
			error("sched/optimus: state: JobId=%u: recent reports ignored: %s",
			      rj->job_id, why);
	}
	restore_profiles(o);
	if (bad)
		errmsg_set(err, len, 0, "%zu of %zu job records ignored", bad,
			   n);
	return (int) bad;
}

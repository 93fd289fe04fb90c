/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * report/history.c - per-job rings of recent reports (report/history.h).
 *
 * Jobs live in a flat array searched linearly: a few hundred active
 * training jobs at most, and a query or report touches one job.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/history.h"
#include "util/errmsg.h"

typedef struct report_ring {
	report_t *items;
	size_t next;		/* slot of the next write */
	size_t count;		/* min(total written, capacity) */
} report_ring_t;

typedef struct job_history {
	uint32_t job_id;	/* 0: free */
	uid_t uid;
	uint64_t reports;
	double last_update;
	report_ring_t progress;
	report_ring_t speed;
	report_t checkpoint;	/* the last checkpoint confirmation */
	bool has_checkpoint;
} job_history_t;

struct report_history {
	pthread_mutex_t lock;
	job_history_t *jobs;
	size_t max_jobs;
	size_t per_job;
};

report_history_t *report_history_create(size_t max_jobs, size_t per_job)
{
	report_history_t *h;

	if (!max_jobs || !per_job)
		return NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->jobs = calloc(max_jobs, sizeof(*h->jobs));
	if (!h->jobs) {
		free(h);
		return NULL;
	}
	h->max_jobs = max_jobs;
	h->per_job = per_job;
	pthread_mutex_init(&h->lock, NULL);
	return h;
}

static void job_clear(job_history_t *j)
{
	free(j->progress.items);
	free(j->speed.items);
	memset(j, 0, sizeof(*j));
}

void report_history_destroy(report_history_t *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->max_jobs; i++)
		job_clear(&h->jobs[i]);
	pthread_mutex_destroy(&h->lock);
	free(h->jobs);
	free(h);
}

static job_history_t *job_find(report_history_t *h, uint32_t job_id)
{
	for (size_t i = 0; i < h->max_jobs; i++)
		if (h->jobs[i].job_id == job_id)
			return &h->jobs[i];
	return NULL;
}

/* A free slot, else the least recently updated job's, cleared. */
static job_history_t *job_claim(report_history_t *h, uint32_t job_id)
{
	job_history_t *victim = &h->jobs[0];

	for (size_t i = 0; i < h->max_jobs; i++) {
		job_history_t *j = &h->jobs[i];

		if (j->job_id == 0) {
			victim = j;
			break;
		}
		if (j->last_update < victim->last_update)
			victim = j;
	}
	job_clear(victim);
	victim->job_id = job_id;
	return victim;
}

static int ring_add(report_ring_t *ring, size_t capacity, const report_t *r)
{
	if (!ring->items) {
		ring->items = calloc(capacity, sizeof(*ring->items));
		if (!ring->items)
			return -ENOMEM;
	}
	ring->items[ring->next] = *r;
	ring->next = (ring->next + 1) % capacity;
	if (ring->count < capacity)
		ring->count++;
	return 0;
}

int report_history_add(report_history_t *h, const report_t *r)
{
	job_history_t *j;
	int rc = 0;

	pthread_mutex_lock(&h->lock);
	j = job_find(h, r->job_id);
	if (!j)
		j = job_claim(h, r->job_id);
	j->uid = r->uid;
	j->last_update = r->received;
	j->reports++;
	if (r->kind == REPORT_CHECKPOINT) {
		j->checkpoint = *r;
		j->has_checkpoint = true;
	} else if (r->kind == REPORT_WORKER || r->kind == REPORT_GRADIENTS) {
		/* Counted only: the job's record holds what they tell (its
		 * straggler detector, its efficiency model). */
	} else {
		rc = ring_add(r->kind == REPORT_PROGRESS ? &j->progress :
			      &j->speed, h->per_job, r);
	}
	pthread_mutex_unlock(&h->lock);
	return rc;
}

static int restore_list(report_history_t *h, json_object *o, const char *key,
			report_kind_t kind, uint32_t job_id, char *err,
			size_t len)
{
	json_object *a;
	size_t n;

	if (!json_object_object_get_ex(o, key, &a))
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return errmsg_set(err, len, -EINVAL, "\"%s\" is not an array",
				  key);
	n = json_object_array_length(a);
	/* Only the newest per_job fit in the ring anyway. */
	for (size_t i = n > h->per_job ? n - h->per_job : 0; i < n; i++) {
		report_t r;
		int rc = protocol_report_from_json(
			json_object_array_get_idx(a, i), &r, err, len);

		if (rc)
			return rc;
		if (r.kind != kind || r.job_id != job_id)
			return errmsg_set(err, len, -EINVAL,
					  "a report of another job or kind in \"%s\"",
					  key);
		if ((rc = report_history_add(h, &r)))
			return errmsg_set(err, len, rc, "no memory");
	}
	return 0;
}

int report_history_job_restore(report_history_t *h, json_object *o,
			       char *err, size_t len)
{
	json_object *v;
	int64_t job, reports = 0;
	job_history_t *j;
	int rc;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "job", &v) ||
	    (job = json_object_get_int64(v)) < 1 || job > UINT32_MAX)
		return errmsg_set(err, len, -EINVAL,
				  "recent reports need an integer \"job\" >= 1");
	if (json_object_object_get_ex(o, "reports", &v))
		reports = json_object_get_int64(v);
	if ((rc = restore_list(h, o, "progress", REPORT_PROGRESS,
			       (uint32_t)job, err, len)) ||
	    (rc = restore_list(h, o, "speed_samples", REPORT_SPEED,
			       (uint32_t)job, err, len)))
		return rc;
	if (json_object_object_get_ex(o, "last_checkpoint", &v)) {
		report_t r;

		if ((rc = protocol_report_from_json(v, &r, err, len)))
			return rc;
		if (r.kind != REPORT_CHECKPOINT || r.job_id != (uint32_t)job)
			return errmsg_set(err, len, -EINVAL,
					  "\"last_checkpoint\" is not this job's checkpoint");
		(void) report_history_add(h, &r);
	}
	/* The count of every report ever received, not only those kept. */
	pthread_mutex_lock(&h->lock);
	if ((j = job_find(h, (uint32_t)job)) && reports > (int64_t)j->reports)
		j->reports = (uint64_t)reports;
	pthread_mutex_unlock(&h->lock);
	return 0;
}

/* Oldest first. */
static json_object *ring_json(const report_ring_t *ring, size_t capacity)
{
	json_object *a = json_object_new_array();
	size_t start = (ring->next + capacity - ring->count) % capacity;

	for (size_t i = 0; a && i < ring->count; i++)
		json_object_array_add(a, protocol_report_to_json(
					      &ring->items[(start + i) % capacity]));
	return a;
}

static const report_t *ring_last(const report_ring_t *ring, size_t capacity)
{
	if (!ring->count)
		return NULL;
	return &ring->items[(ring->next + capacity - 1) % capacity];
}

json_object *report_history_job_json(report_history_t *h, uint32_t job_id)
{
	json_object *o = NULL;
	job_history_t *j;

	pthread_mutex_lock(&h->lock);
	j = job_find(h, job_id);
	if (j && job_id && (o = json_object_new_object())) {
		json_object_object_add(o, "job", json_object_new_int64(job_id));
		json_object_object_add(o, "uid", json_object_new_int64(j->uid));
		json_object_object_add(o, "reports",
				       json_object_new_int64((int64_t)j->reports));
		json_object_object_add(o, "progress",
				       ring_json(&j->progress, h->per_job));
		json_object_object_add(o, "speed_samples",
				       ring_json(&j->speed, h->per_job));
		if (j->has_checkpoint)
			json_object_object_add(o, "last_checkpoint",
					       protocol_report_to_json(&j->checkpoint));
	}
	pthread_mutex_unlock(&h->lock);
	return o;
}

static json_object *job_summary(const job_history_t *j, size_t per_job)
{
	json_object *o = json_object_new_object();
	const report_t *p = ring_last(&j->progress, per_job);
	const report_t *s = ring_last(&j->speed, per_job);

	if (!o)
		return NULL;
	json_object_object_add(o, "job", json_object_new_int64(j->job_id));
	json_object_object_add(o, "uid", json_object_new_int64(j->uid));
	json_object_object_add(o, "reports", json_object_new_int64((int64_t)j->reports));
	if (p)
		json_object_object_add(o, "last_progress", protocol_report_to_json(p));
	if (s)
		json_object_object_add(o, "last_speed", protocol_report_to_json(s));
	if (j->has_checkpoint)
		json_object_object_add(o, "last_checkpoint",
				       protocol_report_to_json(&j->checkpoint));
	return o;
}

json_object *report_history_status_json(report_history_t *h,
					const report_viewer_t *v)
{
	json_object *o = json_object_new_object();
	json_object *jobs = json_object_new_array();
	size_t visible = 0;

	if (!o || !jobs) {
		json_object_put(o);
		json_object_put(jobs);
		return NULL;
	}
	pthread_mutex_lock(&h->lock);
	for (size_t i = 0; i < h->max_jobs; i++) {
		const job_history_t *j = &h->jobs[i];

		if (!j->job_id || !report_viewer_may_see(v, (uint32_t)j->uid))
			continue;
		if (visible++ < v->max_jobs)
			json_object_array_add(jobs, job_summary(j, h->per_job));
	}
	pthread_mutex_unlock(&h->lock);
	json_object_object_add(o, "jobs", jobs);
	json_object_object_add(o, "truncated",
			       json_object_new_boolean(visible > v->max_jobs));
	json_object_object_add(o, "jobs_total",
			       json_object_new_int64((int64_t)visible));
	return o;
}

size_t report_history_jobs(report_history_t *h)
{
	size_t n = 0;

	pthread_mutex_lock(&h->lock);
	for (size_t i = 0; i < h->max_jobs; i++)
		n += h->jobs[i].job_id != 0;
	pthread_mutex_unlock(&h->lock);
	return n;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * report/queue.c - ring buffer under one mutex (report/queue.h).
 *
 * A mutex rather than a lock-free ring: pushes come from one thread at a few
 * thousand a second at most and drains every scheduling interval, so
 * contention is negligible and the code stays obviously correct.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "report/queue.h"
#include "util/grow.h"

/* How many reports of one uid are queued; entries with n 0 are reused. */
typedef struct uid_count {
	uid_t uid;
	size_t n;
} uid_count_t;

struct report_queue {
	pthread_mutex_t lock;
	report_t *ring;
	size_t capacity;
	size_t head;		/* index of the oldest report */
	size_t length;
	uint64_t refused;
	uid_count_t *holders;	/* one entry per uid seen, n 0 when none */
	size_t nholders, holders_cap;
};

/* The uid's entry, added (with n 0) when missing; NULL on no memory. */
static uid_count_t *holder_of(report_queue_t *q, uid_t uid)
{
	uid_count_t *free_entry = NULL, *v;

	for (size_t i = 0; i < q->nholders; i++) {
		if (q->holders[i].uid == uid)
			return &q->holders[i];
		if (!q->holders[i].n && !free_entry)
			free_entry = &q->holders[i];
	}
	if (free_entry) {
		free_entry->uid = uid;
		return free_entry;
	}
	v = grow_array(q->holders, &q->holders_cap, q->nholders,
		       sizeof(*v), 8);
	if (!v)
		return NULL;
	q->holders = v;
	q->holders[q->nholders] = (uid_count_t){ .uid = uid, .n = 0 };
	return &q->holders[q->nholders++];
}

/* The most one uid may hold: capacity / (holders + 1), at least 1, the
 * holders counting `h` (the pusher) whether it holds reports or not. */
static size_t share_of(const report_queue_t *q, const uid_count_t *h)
{
	size_t holders = h->n ? 0 : 1;

	for (size_t i = 0; i < q->nholders; i++)
		holders += q->holders[i].n > 0;
	return q->capacity / (holders + 1) ? q->capacity / (holders + 1) : 1;
}

report_queue_t *report_queue_create(size_t capacity)
{
	report_queue_t *q;

	if (capacity == 0)
		return NULL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->ring = calloc(capacity, sizeof(*q->ring));
	if (!q->ring) {
		free(q);
		return NULL;
	}
	q->capacity = capacity;
	pthread_mutex_init(&q->lock, NULL);
	return q;
}

void report_queue_destroy(report_queue_t *q)
{
	if (!q)
		return;
	pthread_mutex_destroy(&q->lock);
	free(q->holders);
	free(q->ring);
	free(q);
}

int report_queue_push(report_queue_t *q, const report_t *r)
{
	uid_count_t *h;
	int rc = 0;

	pthread_mutex_lock(&q->lock);
	h = holder_of(q, r->uid);
	if (!h) {
		rc = -ENOMEM;
	} else if (q->length == q->capacity || h->n >= share_of(q, h)) {
		q->refused++;
		rc = -EAGAIN;
	} else {
		q->ring[(q->head + q->length) % q->capacity] = *r;
		q->length++;
		h->n++;
	}
	pthread_mutex_unlock(&q->lock);
	return rc;
}

size_t report_queue_drain(report_queue_t *q, report_t *out, size_t max)
{
	size_t n;

	pthread_mutex_lock(&q->lock);
	n = q->length < max ? q->length : max;
	for (size_t i = 0; i < n; i++) {
		out[i] = q->ring[(q->head + i) % q->capacity];
		holder_of(q, out[i].uid)->n--;	/* present: pushed */
	}
	q->head = (q->head + n) % q->capacity;
	q->length -= n;
	pthread_mutex_unlock(&q->lock);
	return n;
}

size_t report_queue_length(report_queue_t *q)
{
	size_t n;

	pthread_mutex_lock(&q->lock);
	n = q->length;
	pthread_mutex_unlock(&q->lock);
	return n;
}

size_t report_queue_capacity(const report_queue_t *q)
{
	return q->capacity;
}

uint64_t report_queue_refused(report_queue_t *q)
{
	uint64_t n;

	pthread_mutex_lock(&q->lock);
	n = q->refused;
	pthread_mutex_unlock(&q->lock);
	return n;
}

size_t report_queue_held(report_queue_t *q, uid_t uid)
{
	size_t n = 0;

	pthread_mutex_lock(&q->lock);
	for (size_t i = 0; i < q->nholders; i++)
		if (q->holders[i].uid == uid)
			n = q->holders[i].n;
	pthread_mutex_unlock(&q->lock);
	return n;
}

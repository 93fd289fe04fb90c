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

struct report_queue {
	pthread_mutex_t lock;
	report_t *ring;
	size_t capacity;
	size_t head;		/* index of the oldest report */
	size_t length;
	uint64_t refused;
};

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
	free(q->ring);
	free(q);
}

int report_queue_push(report_queue_t *q, const report_t *r)
{
	int rc = 0;

	pthread_mutex_lock(&q->lock);
	if (q->length == q->capacity) {
		q->refused++;
		rc = -EAGAIN;
	} else {
		q->ring[(q->head + q->length) % q->capacity] = *r;
		q->length++;
	}
	pthread_mutex_unlock(&q->lock);
	return rc;
}

size_t report_queue_drain(report_queue_t *q, report_t *out, size_t max)
{
	size_t n;

	pthread_mutex_lock(&q->lock);
	n = q->length < max ? q->length : max;
	for (size_t i = 0; i < n; i++)
		out[i] = q->ring[(q->head + i) % q->capacity];
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

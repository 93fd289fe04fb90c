/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * report/queue.h - bounded, thread-safe FIFO of validated reports.
 *
 * The listener thread pushes; the planner drains every interval. A full
 * queue refuses the push (-EAGAIN) so the listener can shed load with an
 * error reply instead of growing without bound or blocking.
 *
 * The queue is shared fairly per uid: a uid may hold at most
 * capacity / (holders + 1) reports, holders counting the uids with reports
 * in the queue and the pusher, so a share is always left for a user who
 * has none in it. One user sending as fast as it can fills only its own
 * share; a push beyond the share is refused like a full queue.
 */
#ifndef OPTIMUS_REPORT_QUEUE_H
#define OPTIMUS_REPORT_QUEUE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "report/protocol.h"

typedef struct report_queue report_queue_t;

report_queue_t *report_queue_create(size_t capacity);
void report_queue_destroy(report_queue_t *q);
/* 0, or -EAGAIN when full or r->uid is at its share (counted in
 * report_queue_refused()). */
int report_queue_push(report_queue_t *q, const report_t *r);
/* Move up to max reports, oldest first, into out; returns how many. */
size_t report_queue_drain(report_queue_t *q, report_t *out, size_t max);
size_t report_queue_length(report_queue_t *q);
size_t report_queue_capacity(const report_queue_t *q);
uint64_t report_queue_refused(report_queue_t *q);
/* Reports of uid in the queue now. */
size_t report_queue_held(report_queue_t *q, uid_t uid);

#endif

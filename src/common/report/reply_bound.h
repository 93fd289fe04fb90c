/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * report/reply_bound.h - how much of the listener's replies may wait for
 * their readers (doc/design/reports.md "Replies").
 *
 * Replies are written without blocking, and a connection has at most one
 * reply waiting (its next request is read once the reply is out). That
 * reply is at most REPLY_BOUND_MAX bytes (a status reply is bounded by
 * ReportStatusMaxJobs, a job's answer by the history kept per job), and
 * every reply waiting on all connections together at most
 * REPLY_BOUND_BUDGET: so readers who never read hold at most that much of
 * slurmctld's memory. Past either, the query is answered with a refusal
 * of a few bytes instead (too_large, busy).
 */
#ifndef OPTIMUS_REPORT_REPLY_BOUND_H
#define OPTIMUS_REPORT_REPLY_BOUND_H

#include <stddef.h>

#define REPLY_BOUND_MAX ((size_t)4 * 1024 * 1024)
#define REPLY_BOUND_BUDGET ((size_t)64 * 1024 * 1024)

typedef enum reply_bound_verdict {
	REPLY_BOUND_OK = 0,
	REPLY_BOUND_TOO_LARGE,	/* over REPLY_BOUND_MAX by itself */
	REPLY_BOUND_BUSY,	/* over the budget with what already waits */
} reply_bound_verdict_t;

/* May a reply frame of len bytes wait, with queued bytes waiting already? */
reply_bound_verdict_t reply_bound_verdict(size_t len, size_t queued);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * report/viewer.h - who asks a query, and what a reply may show them.
 *
 * The one rule of who sees a job (its queries, its reports, its metrics
 * series): its owner, root or SlurmUser, as Slurm's PrivateData=jobs
 * would. The report service makes a viewer for each authenticated query
 * (report/service.c); whoever answers one (the planner's registry,
 * report/history.c) shows only the jobs report_viewer_may_see() lets it
 * see, and at most max_jobs of them in a status reply: a reply's size does
 * not grow with the jobs of others, nor beyond the bound (a `truncated`
 * marker then says more were visible).
 */
#ifndef OPTIMUS_REPORT_VIEWER_H
#define OPTIMUS_REPORT_VIEWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The most jobs a status reply holds unless configured (StatusMaxJobs). */
#define REPORT_STATUS_MAX_JOBS_DEFAULT 1000

typedef struct report_viewer {
	uid_t uid;		/* from the request's munge credential */
	bool admin;		/* root or SlurmUser: sees every job */
	size_t max_jobs;	/* jobs a status reply holds at most (> 0) */
} report_viewer_t;

/* May the viewer see a job of owner `owner`? */
bool report_viewer_may_see(const report_viewer_t *v, uint32_t owner);

#endif

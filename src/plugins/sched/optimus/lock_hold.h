/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * lock_hold.h - how long sched/optimus holds locks.
 *
 * Every hold of a slurmctld lock by the plugin (the snapshot's read locks,
 * the write locks that apply decisions) and every hold of the registry
 * lock (planner and queries) is timed; the longest of each since the last
 * lock_hold_take() is kept. The planner logs them after every plan and
 * puts them into the plan's JSON ("lock_holds", optimusctl plan --json),
 * so that the load benchmark (bench/load_scale.py) can read them.
 */
#ifndef OPTIMUS_LOCK_HOLD_H
#define OPTIMUS_LOCK_HOLD_H

#include <time.h>

typedef enum lock_site {
	LOCK_SITE_SNAPSHOT = 0,	/* slurmctld read locks: copy in */
	LOCK_SITE_APPLY,	/* slurmctld write locks: apply decisions */
	LOCK_SITE_REGISTRY,	/* the registry mutex, any thread */
	LOCK_SITE_NUM,
} lock_site_t;

/* Call right after taking the lock, then right before releasing it. */
extern void lock_hold_begin(struct timespec *since);
extern void lock_hold_end(lock_site_t site, const struct timespec *since);

/* Longest hold per site, in seconds, since the last take (then reset);
 * also the longest since the plugin started. */
extern void lock_hold_take(double last[LOCK_SITE_NUM],
			   double ever[LOCK_SITE_NUM]);
extern const char *lock_site_name(lock_site_t site);

#endif

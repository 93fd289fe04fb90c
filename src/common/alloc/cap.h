/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * cap.h - the most one job may hold, as its resource manager's limits
 * allow (Slurm: the partition's, the QOS', the association's, less what
 * the owner's other jobs use): in all, on one server, and servers.
 *
 * The bounds are in the terms the resource manager counts a size in: a job
 * on k servers is charged there what the placement takes on each
 * (placement.h: with same_on_each, the fullest server's share on every
 * server, as Slurm counts a request of so many tasks per node), and the
 * total is the sum of those charges. INFINITY where nothing limits.
 *
 * Each bound keeps the words of the limit that set it, so that a job whose
 * minimum is over its cap can say why it waits.
 */
#ifndef OPTIMUS_CAP_H
#define OPTIMUS_CAP_H

#include <stdbool.h>
#include <stddef.h>

#include "alloc/resources.h"

#define CAP_WHY_LEN 96

typedef struct job_cap {
	res_vec_t total;	/* cpus, MB, gpus in all */
	res_vec_t per_server;	/* cpus, MB, gpus on any one server */
	double servers;		/* servers */
	char why_total[RES_NUM][CAP_WHY_LEN];
	char why_per_server[RES_NUM][CAP_WHY_LEN];
	char why_servers[CAP_WHY_LEN];
} job_cap_t;

/* Nothing limits. */
void cap_init(job_cap_t *c);
/*
 * Lower one bound to v (negative: 0) if v is below it, its words then
 * given by fmt; a bound at or below v stays with its own words (the
 * tighter limit is the one that binds).
 */
void cap_lower_total(job_cap_t *c, int r, double v, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void cap_lower_per_server(job_cap_t *c, int r, double v, const char *fmt,
			  ...) __attribute__((format(printf, 4, 5)));
void cap_lower_servers(job_cap_t *c, double v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Anything lower than INFINITY? */
bool cap_is_set(const job_cap_t *c);

/*
 * Does a job charged charge[0..k) on its k servers stay within the cap
 * (c NULL: always)?
 */
bool cap_allows(const job_cap_t *c, const res_vec_t *charge, size_t k);

/*
 * Why a job whose smallest size is `least` in all and whose largest task
 * is `task` cannot have any size within the cap: the words of the first
 * bound it is over (servers, then per server, then in all), or NULL when
 * that size is within it (or c is NULL).
 */
const char *cap_why_over(const job_cap_t *c, res_vec_t least, res_vec_t task);

/* The most whole tasks of demand d within the cap in all (INT_MAX: no
 * bound). */
int cap_tasks_in_total(const job_cap_t *c, res_vec_t d);

#endif

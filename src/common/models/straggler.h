/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * straggler.h - find a slow worker of a training job from its workers' own
 * step times (Optimus, section 5.3 "Straggler handling").
 *
 * Every worker reports, now and then, its rank, the node it runs on and its
 * own time per step (for a synchronous job: the compute part of the step,
 * before it waits for the others; a parameter server may instead report the
 * lag with which a worker's gradients arrive, added to that worker's time).
 * The detector keeps each rank's latest figure. A round is complete when
 * every rank the job has now reported since the previous round; then each
 * rank is compared with the median of the OTHER ranks (leave-one-out, so
 * that one slow rank of two is still found):
 *   async: slow when its speed is below `async_ratio` (0.5, the paper's
 *          50%) of that median speed, i.e. its step time above median/0.5;
 *   sync and all-reduce: slow when its step time exceeds the median by
 *          more than `sync_factor` (default 1.5).
 * A rank slow in `consecutive` rounds in a row (default 3) is a straggler:
 * one noisy round never triggers, a truly slow node does within that many
 * rounds. The result names the node, so the scheduler can restart the job
 * without it.
 */
#ifndef OPTIMUS_STRAGGLER_H
#define OPTIMUS_STRAGGLER_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define STRAGGLER_MAX_RANKS 1024
#define STRAGGLER_NODE_LEN 64

/* Defaults (sched_optimus(8), optimus.conf StragglerAsyncRatio, ...). */
#define STRAGGLER_ASYNC_RATIO_DEFAULT 0.5
#define STRAGGLER_SYNC_FACTOR_DEFAULT 1.5
#define STRAGGLER_CONSECUTIVE_DEFAULT 3

typedef enum straggler_mode {
	STRAGGLER_ASYNC = 0,	/* asynchronous PS training */
	STRAGGLER_SYNC,		/* synchronous PS or all-reduce training */
} straggler_mode_t;

typedef struct straggler_params {
	double async_ratio;	/* 0 < r < 1 */
	double sync_factor;	/* > 1 */
	unsigned consecutive;	/* >= 1 */
} straggler_params_t;

typedef struct straggler_rank {
	double step_time;	/* latest seconds per step, > 0 */
	char node[STRAGGLER_NODE_LEN];
	bool fresh;		/* reported since the last round */
	unsigned slow_rounds;	/* consecutive rounds found slow */
} straggler_rank_t;

typedef struct straggler {
	straggler_mode_t mode;
	size_t nranks;		/* ranks the job has now (its workers) */
	straggler_rank_t *ranks;
	unsigned rounds;	/* complete rounds evaluated */
	/* The finding, once a rank was slow `consecutive` rounds in a row;
	 * it stays until straggler_reset() (a new run of the job). */
	bool detected;
	int rank;
	char node[STRAGGLER_NODE_LEN];
	double slowdown;	/* its step time over the others' median */
} straggler_t;

void straggler_params_init(straggler_params_t *p);
/* 0, or -EINVAL for a value out of its range (err says which). */
int straggler_params_check(const straggler_params_t *p, char *err,
			   size_t errlen);

/* A detector for nranks workers (1..STRAGGLER_MAX_RANKS): 0, -EINVAL,
 * -ENOMEM. straggler_reset() forgets everything for a new run with nranks. */
int straggler_init(straggler_t *s, straggler_mode_t mode, size_t nranks);
int straggler_reset(straggler_t *s, size_t nranks);
void straggler_clear(straggler_t *s);

/*
 * One worker's figure. rank in [0, nranks), node a printable name, step_time
 * finite and > 0. Evaluates a round when it completes one. Returns 1 when
 * this observation made the detector find a straggler, 0 otherwise, or
 * -EINVAL (bad value; nothing changed).
 */
int straggler_observe(straggler_t *s, const straggler_params_t *p, int rank,
		      const char *node, double step_time);

const char *straggler_mode_name(straggler_mode_t m);

#endif

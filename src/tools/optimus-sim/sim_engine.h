/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_engine.h - the one event loop of optimus-sim, for the synthetic
 * workloads (sim_run.c) and the measured ones (measured/engine.c) alike:
 * the events taken from the queue (sim_events.h) in order, time moved to
 * each, and in one place what follows a job's arrival, its completion,
 * the end of its restart, an interval's tick and the plan an arrival or a
 * completion calls for. What the two kinds of workload do differently is
 * each one's small table of operations (sim_engine_ops_t).
 */
#ifndef OPTIMUS_SIM_ENGINE_H
#define OPTIMUS_SIM_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_events.h"

/* Every operation gets the kind's state (sim_engine_t.ctx); 0 or -errno.
 * advance, tick_begin and tick_end may be NULL (nothing to do there);
 * arrive and resume are asked only by the events a kind queues. */
typedef struct sim_engine_ops {
	/* Move the jobs, and what is counted over time, from the engine's
	 * now to t, before the event at t is handled. NULL: the jobs move
	 * at their ticks (the measured rounds run a round ahead). */
	int (*advance)(void *ctx, double t);
	/* Job `job` is submitted now. */
	int (*arrive)(void *ctx, uint32_t job);
	/* Job `job`'s completion event of generation `gen`: *done when the
	 * job completes now (false: a stale event). */
	int (*finish)(void *ctx, uint32_t job, uint32_t gen, bool *done);
	/* The restart of job `job` (generation `gen`) is over. */
	int (*resume)(void *ctx, uint32_t job, uint32_t gen);
	/* The policy plans now: at a tick, or when an arrival or a
	 * completion calls for it. */
	int (*plan)(void *ctx);
	/* A tick's steps before its plan, and after it while a job is
	 * not done. */
	int (*tick_begin)(void *ctx);
	int (*tick_end)(void *ctx);
} sim_engine_ops_t;

typedef struct sim_engine {
	sim_events_t q;
	double now;
	size_t njobs, ndone;
	double interval;	/* seconds between ticks */
	double horizon;		/* no tick after this time */
	/* Plan at once when a job arrives or ends, besides at every tick
	 * (sched/optimus reacts to them like Slurm's own scheduler). */
	bool event_plans;
	bool plan_queued;	/* a SIM_EV_PLAN is in the queue */
	double last_plan;	/* time of the latest plan, -1: none */
	const sim_engine_ops_t *ops;
	void *ctx;
	/* After each tick: the share of the jobs done (NULL: none). */
	void (*progress)(void *arg, double done);
	void *progress_arg;
} sim_engine_t;

/* An engine at time 0, its queue empty, no plan yet. */
void sim_engine_init(sim_engine_t *e, const sim_engine_ops_t *ops,
		     void *ctx, size_t njobs, double interval,
		     double horizon);
void sim_engine_free(sim_engine_t *e);
/* Run the events queued (the first tick among them) until none is left:
 * 0 or the first operation's -errno. */
int sim_engine_run(sim_engine_t *e);

#endif

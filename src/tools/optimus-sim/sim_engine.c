/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_engine.c - the one event loop of both kinds of workload (see
 * sim_engine.h).
 */
#include <string.h>

#include "sim_engine.h"

void sim_engine_init(sim_engine_t *e, const sim_engine_ops_t *ops,
		     void *ctx, size_t njobs, double interval,
		     double horizon)
{
	memset(e, 0, sizeof(*e));
	sim_events_init(&e->q);
	e->ops = ops;
	e->ctx = ctx;
	e->njobs = njobs;
	e->interval = interval;
	e->horizon = horizon;
	e->last_plan = -1.0;
}

void sim_engine_free(sim_engine_t *e)
{
	sim_events_free(&e->q);
}

static bool all_done(const sim_engine_t *e)
{
	return e->ndone == e->njobs;
}

/*
 * An arrival or a completion calls for a plan at once: one per instant,
 * after all of its events, and none when the interval's tick planned
 * then.
 */
static int queue_plan(sim_engine_t *e)
{
	if (!e->event_plans || e->plan_queued)
		return 0;
	e->plan_queued = true;
	return sim_events_push(&e->q, e->now, SIM_EV_PLAN, 0, 0);
}

static int plan_now(sim_engine_t *e)
{
	if (e->last_plan == e->now || all_done(e))
		return 0;
	e->last_plan = e->now;
	return e->ops->plan(e->ctx);
}

/* A tick: its plan, its round while a job is not done, the next tick an
 * interval later within the horizon. */
static int tick(sim_engine_t *e)
{
	const sim_engine_ops_t *o = e->ops;
	int rc = o->tick_begin ? o->tick_begin(e->ctx) : 0;

	if (!rc)
		rc = plan_now(e);
	if (rc || all_done(e))
		return rc;
	if (o->tick_end && (rc = o->tick_end(e->ctx)))
		return rc;
	if (e->now + e->interval > e->horizon)
		return 0;
	return sim_events_push(&e->q, e->now + e->interval, SIM_EV_TICK, 0,
			       0);
}

static int handle(sim_engine_t *e, const sim_event_t *ev)
{
	const sim_engine_ops_t *o = e->ops;
	bool done = false;
	int rc;

	switch (ev->kind) {
	case SIM_EV_FINISH:
		if ((rc = o->finish(e->ctx, ev->job, ev->gen, &done)) || !done)
			return rc;
		e->ndone++;
		return queue_plan(e);
	case SIM_EV_RESUME:
		return o->resume(e->ctx, ev->job, ev->gen);
	case SIM_EV_ARRIVAL:
		rc = o->arrive(e->ctx, ev->job);
		return rc ? rc : queue_plan(e);
	case SIM_EV_PLAN:
		e->plan_queued = false;
		return plan_now(e);
	case SIM_EV_TICK:
		break;
	}
	return tick(e);
}

int sim_engine_run(sim_engine_t *e)
{
	sim_event_t ev;
	int rc = 0;

	while (!rc && sim_events_pop(&e->q, &ev)) {
		if (e->ops->advance && (rc = e->ops->advance(e->ctx, ev.time)))
			break;
		e->now = ev.time;
		rc = handle(e, &ev);
		if (e->progress && ev.kind == SIM_EV_TICK && e->njobs)
			e->progress(e->progress_arg,
				    (double)e->ndone / e->njobs);
	}
	return rc;
}

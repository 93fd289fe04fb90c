/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_events.h - the event queue of the one loop of both engines
 * (sim_engine.c; the rounds of measured/engine.c queue only ticks and
 * completions): a binary min-heap ordered by time, then kind
 * (completions and restarts before arrivals before the scheduling tick
 * and the event plan of the same instant, so that a plan sees every job
 * that finished or arrived at its time), then insertion order, so that
 * runs are deterministic.
 */
#ifndef OPTIMUS_SIM_EVENTS_H
#define OPTIMUS_SIM_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum sim_ev_kind {
	SIM_EV_FINISH = 0,	/* a job reaches its last step */
	SIM_EV_RESUME,		/* a resized job's restart is over */
	SIM_EV_ARRIVAL,		/* a job is submitted */
	SIM_EV_TICK,		/* a scheduling interval starts */
	SIM_EV_PLAN,		/* a plan after arrivals or completions */
} sim_ev_kind_t;

typedef struct sim_event {
	double time;
	sim_ev_kind_t kind;
	uint32_t job;
	uint32_t gen;		/* job generation: stale events are ignored */
	uint64_t seq;
} sim_event_t;

typedef struct sim_events {
	sim_event_t *v;
	size_t n, cap;
	uint64_t next_seq;
} sim_events_t;

void sim_events_init(sim_events_t *q);
void sim_events_free(sim_events_t *q);
/* 0 or -ENOMEM / -EINVAL (time not finite). */
int sim_events_push(sim_events_t *q, double time, sim_ev_kind_t kind,
		    uint32_t job, uint32_t gen);
/* The earliest event; false when empty. */
bool sim_events_pop(sim_events_t *q, sim_event_t *out);

#endif

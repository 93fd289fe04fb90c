/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_start_cost.h - the seconds without progress a simulated job loses
 * when it takes a decision (sim_decision.h), the one model of both
 * engines: a first start, a start from a checkpoint (a resize, or a
 * start after a preemption) and a batch change taken in place.
 *
 * A first start can queue behind the first starts launching before it:
 * on the localhost cluster of bench/pollux_replay.py the launches of jobs
 * allocated together queue on the one host (four slurmds, each job a
 * slurmstepd and a Python trainer): the i-th of a burst reached its first
 * step about 2 s after the one before it, where a job starting alone took
 * 2 to 4 s (doc/design/simulator.md, "A start cost that depends on the
 * starts together"; calibrated by bench/start_cost.py).
 */
#ifndef OPTIMUS_SIM_START_COST_H
#define OPTIMUS_SIM_START_COST_H

#include "sim_decision.h"
#include "sim_job_core.h"
#include "sim_outcome.h"

typedef struct sim_start_costs {
	double first;		/* a first start alone */
	double first_queued;	/* added per first start launching ahead */
	/* A start from a checkpoint, besides the job's own checkpoint
	 * save and load (the truth's: 0 where `restart` was measured
	 * whole). */
	double restart;
	double rebatch;		/* a batch change taken in place */
	/* The first starts launching until then (sim_start_queued); 0 at
	 * the start of a run. */
	double busy_until;
} sim_start_costs_t;

/*
 * Seconds lost by a job taking `take` at `now` (SIM_TAKE_START,
 * SIM_TAKE_RESTART, SIM_TAKE_RESIZE, SIM_TAKE_REBATCH; 0 for the others),
 * `checkpoint` the seconds of its checkpoint's save and load. A first
 * start queues (sim_start_queued, c->busy_until).
 */
double sim_start_cost(sim_start_costs_t *c, sim_take_t take,
		      double checkpoint, double now);

/*
 * Job j taking `take` at `now`, as both engines charge it: its cost
 * (sim_start_cost, a restart's with its truth's checkpoint seconds) and
 * the take counted in its outcome (sim_job_outcome_take). Returns the seconds it will run without
 * progress; the engine loses them (sim_job_outcome_lose) at once where
 * nothing cuts them short (sim_apply.c), else as they pass
 * (measured/engine.c).
 */
double sim_start_charge(sim_start_costs_t *c, sim_job_core_t *j,
			sim_take_t take, double now);

/*
 * A first start at `now` (seconds): `base` (a start alone) plus the
 * seconds the launches before it still hold the launcher (*busy_until -
 * now, when later), after which this one holds it `per_queued` seconds
 * more (*busy_until updated). Jobs starting together in that order cost
 * base, base + per_queued, base + 2 per_queued, ...; starts further apart
 * than per_queued each cost base. per_queued 0: every start costs base
 * (the pooled single-number cost, experiment pollux's default).
 */
double sim_start_queued(double base, double per_queued, double now,
			double *busy_until);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_decision.h - a plan decision taken by a simulated job's record, the
 * one rule of both engines (through sim_apply_decision.h, which carries
 * the decisions out): the record changes through the core's plan_apply,
 * as sched/optimus changes it, a preempted job is requeued, and what the
 * decision is to the job's servers is said (sim_take_t). What a job holds
 * (sim_hold.h) and what a start costs (sim_start_cost.h) have their own
 * homes, both engines' too.
 */
#ifndef OPTIMUS_SIM_DECISION_H
#define OPTIMUS_SIM_DECISION_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "job/job_model.h"
#include "plan/plan.h"

typedef enum sim_take {
	SIM_TAKE_WAIT = 0,	/* holds nothing: a pending job not started */
	/* Keeps its servers as they are: a KEEP, or a decision its record
	 * refused (an engine that cannot refuse it treats that as an
	 * error: the rc). */
	SIM_TAKE_KEEP,
	SIM_TAKE_REBATCH,	/* keeps them at d->batch, sent in place */
	SIM_TAKE_PREEMPT,	/* gives them back, requeued, pending */
	SIM_TAKE_START,		/* its first run, on d->slots */
	SIM_TAKE_RESTART,	/* a start after a preemption: from its
				 * checkpoint, on d->slots */
	SIM_TAKE_RESIZE,	/* stops and restarts on d->slots */
} sim_take_t;

/*
 * What d is to its job: a START one from the checkpoint if the job ran
 * before (`ran`: its record has runs, or, for a decision no record takes,
 * its outcome has a start). sim_decision_take's and sim_apply_decision.c's
 * one reading of a decision.
 */
sim_take_t sim_decision_kind(const plan_decision_t *d, bool ran);

/*
 * The record m of d's job takes d at `now` (plan_apply; a PREEMPT's job
 * requeued): *take says what the engine carries out. 0, or plan_apply's
 * -errno with why (*take is SIM_TAKE_KEEP, the record unchanged).
 */
int sim_decision_take(job_model_t *m, const plan_decision_t *d, time_t now,
		      sim_take_t *take, char *why, size_t len);

/*
 * The run a start or a restart began is on the record m from `began`
 * (when the decision's cost ran out), on ps PS and `workers` workers over
 * `nodes` servers, and says at once that it can checkpoint: a simulated
 * trainer installs its handler as it starts, and the core resizes or
 * preempts a run only once it said so.
 */
void sim_decision_started(job_model_t *m, time_t began, int ps, int workers,
			  int nodes);

#endif

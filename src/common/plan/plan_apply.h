/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan/plan_apply.h - a decision's change to its job's record, the one
 * rule every adapter of the plan calls when it carries a decision out
 * (sched/optimus planner_decide.c, optimus-sim sim_apply.c and
 * measured/plan_adapter.c). What the decision does outside the record
 * (Slurm's request, the signal, the simulated GPUs) is the adapter's.
 */
#ifndef OPTIMUS_PLAN_APPLY_H
#define OPTIMUS_PLAN_APPLY_H

#include <stddef.h>
#include <time.h>

#include "job/job_model.h"
#include "plan/plan.h"

/*
 * The record of d's job at `now`:
 * - START: the size planned (plan_ps, plan_workers);
 * - RESIZE: the stop under way (job_model_resizing), why and for whom,
 *   as its owner is told (job_model_stop_reason), the size planned;
 * - PREEMPT: refused unless the job runs and its run declared its
 *   checkpoint (a signal would kill a job that cannot: its work lost);
 *   else the stop under way (job_model_preempting), why and for whom;
 * - KEEP re-batched in place: the batch change sent (job_model_rebatch_send);
 * - WAIT, any other KEEP: nothing.
 * 0, or -EPERM/-EINVAL with why: the record is unchanged and the adapter
 * carries nothing out.
 */
int plan_apply(job_model_t *m, const plan_decision_t *d, time_t now,
	       char *why, size_t len);

#endif

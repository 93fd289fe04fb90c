/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * rebatch.h - re-batch in place, sched/optimus' side: the plan's batch
 * change at a job's GPUs sent in the reply to the job's reports instead
 * of a checkpoint-requeue-restart. The rules are the record's
 * (job/job_rebatch.c) and the plan's (plan/plan_policy_goodput.c,
 * plan_rebatch); this file applies them and logs (doc/design/reports.md
 * "Re-batch in place").
 */
#ifndef OPTIMUS_SCHED_REBATCH_H
#define OPTIMUS_SCHED_REBATCH_H

#include <stdbool.h>
#include <time.h>

#include "job/job_feed.h"
#include "plan/plan.h"
#include "registry.h"
#include "report/protocol.h"

/* A KEEP re-batched in place (d->in_place): the change sent to the job
 * from now (planner thread, registry lock held). */
extern void rebatch_send(reg_job_t *rj, const plan_decision_t *d);
/*
 * The report service's callback (listener thread): the change sent to the
 * job of the accepted report r and not taken yet, for its reply: 1 with
 * *out, else 0. Takes the registry's lock only, never slurmctld's.
 */
extern int rebatch_reply(const report_t *r, report_rebatch_t *out);
/* A progress report that said the batch it runs at, fed to the record
 * (job/job_feed.h, planner thread, registry lock held): what it did said
 * in the log. */
extern void rebatch_said(reg_job_t *rj, const report_t *r,
			 const job_feed_out_t *out);
/* A change not taken within RebatchTimeout: withdrawn, the job's batch
 * changes go the restart path from now. True when this call withdrew
 * one (plan now). Planner thread, registry lock held. */
extern bool rebatch_expire(reg_job_t *rj, time_t now);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * planner.h - sched/optimus' planner thread.
 *
 * Every second it follows the optimus jobs (snapshot, reports, resizes in
 * progress); every PlanInterval seconds, and at once when a job arrives,
 * ends or is requeued, it fits the models and plans. Only
 * the snapshot and the application of decisions hold slurmctld locks;
 * fitting and the state file hold no lock (planner.c).
 */
#ifndef OPTIMUS_PLANNER_H
#define OPTIMUS_PLANNER_H

#include <stdbool.h>

#include "report/queue.h"
#include "snapshot.h"

extern int planner_start(report_queue_t *reports);
extern void planner_stop(void);
/* Ask for a plan at the next tick (reconfigure, tests). */
extern void planner_kick(void);

/*
 * planner_sync.c: follow the jobs in a snapshot (registry lock held).
 * True when a job arrived, ended or came back to pending: plan now.
 */
extern bool planner_sync(const snapshot_t *snap);
/* planner_reports.c: feed drained reports to the models (registry lock). */
extern void planner_feed_reports(report_queue_t *q);
/* planner_decide.c: plan and turn decisions into actions, then apply. */
extern void planner_plan(const snapshot_t *snap);
/* planner_requeue.c: requeue jobs whose checkpoint is done or overdue. */
extern void planner_follow_resizes(void);

#endif

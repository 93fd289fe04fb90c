/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * planner_input.h - the translate step of sched/optimus' planning: a
 * snapshot of slurmctld and the registry's records become the core's
 * plan_input_t (plan/plan_input.h), which holds every rule of who enters
 * the plan and how.
 *
 * No Slurm calls and no allocation here, so that a unit test drives the
 * plugin's path from a recorded input without slurmctld (test_replay).
 */
#ifndef OPTIMUS_PLANNER_INPUT_H
#define OPTIMUS_PLANNER_INPUT_H

#include "plan/plan_input.h"
#include "registry.h"
#include "snapshot.h"

/* The snapshot's record of job_id, or NULL. */
extern const snap_job_t *planner_input_find(const snapshot_t *snap,
					    uint32_t job_id);
/*
 * Registry record rj as the plan's input, given the snapshot's record sj
 * (NULL: Slurm no longer has the job). slots has room for sj->nnodes
 * slots: it receives where the job's tasks are (the even split it started
 * with), and in points into it.
 */
extern void planner_input_job(const reg_job_t *rj, const snap_job_t *sj,
			      place_slot_t *slots, plan_input_t *in);
/* Each node's room for optimus jobs: capacity less what other jobs use,
 * never negative (server_free has snap->nnodes entries). */
extern void planner_input_room(const snapshot_t *snap,
			       res_vec_t *server_free);
/* The snapshot's index of a node name, for the core's interval
 * (plan_server_of_fn; snapshot is a const snapshot_t *). */
extern int planner_input_server_of(void *snapshot, const char *node,
				   uint32_t *server);

#endif

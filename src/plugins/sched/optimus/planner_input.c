/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * planner_input.c - slurmctld's view of a job as the plan's input (see
 * planner_input.h); the rules themselves are in plan/plan_input.c.
 */
#include <string.h>

#include "alloc/placement.h"
#include "planner_input.h"

extern const snap_job_t *planner_input_find(const snapshot_t *snap,
					    uint32_t job_id)
{
	for (int i = 0; i < snap->njobs; i++)
		if (snap->jobs[i].job_id == job_id)
			return &snap->jobs[i];
	return NULL;
}

/* A job's slots on its nodes: the even split it started with. */
static void current_slots(const job_model_t *m, const snap_job_t *sj,
			  place_slot_t *slots)
{
	for (int i = 0; i < sj->nnodes; i++) {
		slots[i].server = sj->node_index[i];
		slots[i].ps = placement_share_front(m->cur_ps, sj->nnodes, i);
		slots[i].workers = placement_share_back(m->cur_workers,
							sj->nnodes, i);
	}
}

static plan_input_state_t input_state(const snap_job_t *sj)
{
	if (!sj)
		return PLAN_INPUT_OTHER;
	switch (sj->state) {
	case SNAP_PENDING:
		return PLAN_INPUT_QUEUED;
	case SNAP_RUNNING:
		return PLAN_INPUT_RUNNING;
	default:
		return PLAN_INPUT_OTHER;
	}
}

extern void planner_input_job(const reg_job_t *rj, const snap_job_t *sj,
			      place_slot_t *slots, plan_input_t *in)
{
	*in = (plan_input_t){ .model = rj->model,
			      .state = input_state(sj),
			      .held = sj && sj->held,
			      .blocked = sj && sj->blocked,
			      .start_slots = rj->start_slots,
			      .start_usage = rj->start_usage,
			      .nstart = rj->nstart,
			      .started_at = rj->started_at,
			      .cap = sj ? sj->cap : NULL,
			      /* Fair shares are per user (plan_fair.c). */
			      .user = rj->model->uid,
			      .share = sj ? sj->share : 0.0 };
	if (sj && sj->nnodes > 0) {
		current_slots(rj->model, sj, slots);
		in->slots = slots;
		in->usage = sj->usage;
		in->nslots = (size_t)sj->nnodes;
	}
}

extern void planner_input_room(const snapshot_t *snap,
			       res_vec_t *server_free)
{
	for (int i = 0; i < snap->nnodes; i++) {
		res_vec_t f = res_sub(snap->nodes[i].capacity,
				      snap->nodes[i].other_used);

		for (int r = 0; r < RES_NUM; r++)
			if (f.v[r] < 0)
				f.v[r] = 0;
		server_free[i] = f;
	}
}

extern int planner_input_server_of(void *snapshot, const char *node,
				   uint32_t *server)
{
	const snapshot_t *snap = snapshot;

	for (int i = 0; i < snap->nnodes; i++)
		if (!strcmp(snap->nodes[i].name, node)) {
			*server = (uint32_t) i;
			return 0;
		}
	return -1;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_slots.c - the bottom of plan/: what every part of one interval
 * uses and none of them owns: a job's resource need at a size, what a
 * running job uses on each of its servers, the room the decisions leave,
 * copying and clearing slot lists, the clock of the plan's own timings.
 * It calls nothing else of plan/.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plan/plan_priv.h"

/* Monotonic seconds, for the plan's alloc_s/place_s timings. */
double plan_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A job's resources with ps PS and workers workers. */
res_vec_t plan_need(const alloc_job_t *j, int ps, int workers)
{
	return res_combo(j->ps_demand, ps, j->worker_demand, workers);
}

res_vec_t plan_min_need(const alloc_job_t *j)
{
	return plan_need(j, alloc_min_ps(j), alloc_min_workers(j));
}

/* What running job i uses on the server of its slot k: the adapter's
 * measured usage when it gave one, else its need at the slot's size. */
res_vec_t plan_slot_usage(const plan_ctx_t *c, size_t i, size_t k)
{
	const plan_job_t *j = &c->jobs[i];

	return j->slot_usage ? j->slot_usage[k] :
	       plan_need(&c->aj[i], j->slots[k].ps, j->slots[k].workers);
}

/* Give running job i's servers back to room: what it uses on each. */
void plan_add_servers(const plan_ctx_t *c, res_vec_t *room, size_t i)
{
	const plan_job_t *j = &c->jobs[i];

	for (size_t k = 0; k < j->nslots; k++)
		room[j->slots[k].server] = res_add(room[j->slots[k].server],
						   plan_slot_usage(c, i, k));
}

/* Room a decision's slots take (plan_need per server, as placed). */
void plan_take_slots(const plan_ctx_t *c, res_vec_t *room, size_t i,
			    const place_slot_t *v, size_t n)
{
	for (size_t k = 0; k < n; k++)
		room[v[k].server] = res_sub(room[v[k].server],
			plan_need(&c->aj[i], v[k].ps, v[k].workers));
}

/* The room every decision of the plan leaves on each server. */
void plan_room_after(const plan_ctx_t *c, res_vec_t *room)
{
	memcpy(room, c->free0, c->nservers * sizeof(*room));
	for (size_t i = 0; i < c->n; i++) {
		const plan_decision_t *d = &c->out->decisions[i];

		if (d->action == PLAN_RESIZE)
			plan_add_servers(c, room, i);
		if (d->action == PLAN_RESIZE || d->action == PLAN_START)
			plan_take_slots(c, room, i, d->slots, d->nslots);
	}
}

/* The decision's own copy of a placement's slots. */
int plan_copy_slots(plan_decision_t *d, const place_slot_t *v, size_t n)
{
	d->slots = malloc((n ? n : 1) * sizeof(*d->slots));
	if (!d->slots)
		return -ENOMEM;
	memcpy(d->slots, v, n * sizeof(*v));
	d->nslots = n;
	return 0;
}

void plan_slots_clear(plan_slots_t *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

int plan_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

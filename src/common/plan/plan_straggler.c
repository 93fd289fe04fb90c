/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_straggler.c - move a running job off the server of its straggler
 * (Optimus, section 5.3: a straggler is replaced; on Slurm the job is
 * checkpointed, requeued and restarted on other servers).
 *
 * This runs after the plan's decisions, on the room they leave: a job the
 * plan keeps on a server closed to it (where its straggler was detected,
 * plan_job_t.closed_server) is placed again at its current size without
 * that server. Every other placement of the job (a start, a resize) also
 * leaves the closed server out (place_job_t.closed_server). When the
 * other servers can hold it, its decision becomes a RESIZE at the same size
 * (moves_off_straggler); when they cannot, it keeps its servers and its
 * reason says so. The same stability rules as any resize apply: not while
 * a start is in progress, not before the minimum interval since its last
 * resize, and only a job that can checkpoint (job_model_why_not_resizable).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_priv.h"

/* Why kept job i may not be moved off its straggler now (NULL: it may):
 * the rules of any resize (job_model_why_not_resizable). */
static const char *plan_straggler_blocker(const plan_ctx_t *c, size_t i,
					  char *why, size_t len)
{
	const plan_job_t *j = &c->jobs[i];

	if (j->starting)
		return "its start is in progress";
	return job_model_why_not_resizable(j->model, c->prm->now,
					   c->prm->min_resize_interval, why,
					   len);
}

/* Place job i alone at its size on room without the straggler's server. */
static int plan_place_elsewhere(plan_ctx_t *c, size_t i, const res_vec_t *room,
				place_result_t *res)
{
	const plan_decision_t *d = &c->out->decisions[i];
	res_vec_t *mine = malloc(c->nservers * sizeof(*mine));
	place_job_t pj = plan_place_job(c, i, d->ps, d->workers);
	int rc;

	if (!mine)
		return -ENOMEM;
	memcpy(mine, room, c->nservers * sizeof(*mine));
	plan_add_servers(c, mine, i);
	rc = placement_run(mine, c->nservers, &pj, 1, res);
	free(mine);
	return rc;
}

static int plan_move_one(plan_ctx_t *c, size_t i, res_vec_t *room)
{
	plan_decision_t *d = &c->out->decisions[i];
	const plan_job_t *j = &c->jobs[i];
	char because[96];
	const char *why = plan_straggler_blocker(c, i, because,
						 sizeof(because));
	place_result_t res;
	int rc;

	memset(&res, 0, sizeof(res));
	if (why) {
		plan_reason(d, "optimus: straggler %.1fx slower on server %u, "
			    "not moved: %s", j->model->avoid_slowdown,
			    j->closed_server, why);
		return 0;
	}
	rc = plan_place_elsewhere(c, i, room, &res);
	if (!rc && res.jobs[0].status != PLACE_OK) {
		plan_reason(d, "optimus: straggler %.1fx slower on server %u, "
			    "not moved: no other room for %d PS + %d workers",
			    j->model->avoid_slowdown, j->closed_server, d->ps,
			    d->workers);
	} else if (!rc) {
		free(d->slots);
		d->slots = NULL;
		rc = plan_copy_slots(d, res.jobs[0].slots, res.jobs[0].nslots);
		if (!rc) {
			d->action = PLAN_RESIZE;
			d->moves_off_straggler = true;
			d->gain = 0;
			c->out->nkeep--;
			c->out->nresize++;
			plan_add_servers(c, room, i);
			plan_take_slots(c, room, i, d->slots, d->nslots);
			plan_reason(d, "optimus: moves off a straggler %.1fx "
				    "slower on server %u",
				    j->model->avoid_slowdown, j->closed_server);
		}
	}
	placement_result_free(&res);
	return rc;
}

/* Does running job i hold a slot on the server closed to it? */
static bool plan_on_closed_server(const plan_job_t *j)
{
	for (size_t k = 0; j->has_closed && k < j->nslots; k++)
		if (j->slots[k].server == j->closed_server)
			return true;
	return false;
}

int plan_move_stragglers(plan_ctx_t *c)
{
	res_vec_t *room = NULL;
	int rc = 0;

	for (size_t i = 0; !rc && i < c->n; i++) {
		if (!c->jobs[i].running || !plan_on_closed_server(&c->jobs[i]) ||
		    c->out->decisions[i].action != PLAN_KEEP)
			continue;
		if (!room) {
			room = malloc(c->nservers * sizeof(*room));
			if (!room)
				return -ENOMEM;
			plan_room_after(c, room);
		}
		rc = plan_move_one(c, i, room);
	}
	free(room);
	return rc;
}

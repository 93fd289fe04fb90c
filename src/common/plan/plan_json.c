/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* plan_json.c - a plan as JSON, for `optimusctl plan` and the state file.
 * Non-finite times (a job that waits has no predicted end) are null. */
#include <math.h>

#include "plan/plan.h"
#include "util/json_num.h"

static json_object *slots_to_json(const plan_decision_t *d)
{
	json_object *a = json_object_new_array();

	for (size_t k = 0; a && k < d->nslots; k++) {
		json_object *s = json_object_new_object();

		if (!s || json_object_array_add(a, s)) {
			json_object_put(s);
			json_object_put(a);
			return NULL;
		}
		json_object_object_add(s, "server",
				       json_object_new_int64(d->slots[k].server));
		json_object_object_add(s, "ps", json_object_new_int(d->slots[k].ps));
		json_object_object_add(s, "workers",
				       json_object_new_int(d->slots[k].workers));
	}
	return a;
}

json_object *plan_decision_to_json(const plan_decision_t *d)
{
	json_object *o = json_object_new_object();
	json_object *slots = slots_to_json(d);

	if (!o || !slots) {
		json_object_put(o);
		json_object_put(slots);
		return NULL;
	}
	json_object_object_add(o, "job_id", json_object_new_int64(d->job_id));
	json_object_object_add(o, "action",
			       json_object_new_string(plan_action_name(d->action)));
	json_object_object_add(o, "ps", json_object_new_int(d->ps));
	json_object_object_add(o, "workers", json_object_new_int(d->workers));
	json_object_object_add(o, "slots", slots);
	json_object_object_add(o, "remaining_now", json_num_new(d->remaining_now));
	json_object_object_add(o, "remaining_planned",
			       json_num_new(d->remaining_planned));
	json_object_object_add(o, "gain", json_num_new(d->gain));
	/* The batch a START/RESIZE chose (Policy=goodput); absent: the job
	 * keeps its submitted batch. */
	if (d->batch > 0) {
		json_object_object_add(o, "batch", json_num_new(d->batch));
		json_object_object_add(o, "local_batch",
				       json_object_new_int(d->local_batch));
		json_object_object_add(o, "accum",
				       json_object_new_int(d->accum));
		json_object_object_add(o, "rebatch",
				       json_object_new_boolean(d->rebatch));
		json_object_object_add(o, "in_place",
				       json_object_new_boolean(d->in_place));
	}
	/* The job it gives its GPUs to (a preemption, a shrink for a
	 * pending job); absent: none. */
	if (d->for_job)
		json_object_object_add(o, "for_job",
				       json_object_new_int64(d->for_job));
	json_object_object_add(o, "reason", json_object_new_string(d->reason));
	return o;
}

json_object *plan_to_json(const plan_t *p)
{
	json_object *o, *a;

	if (!p || !(o = json_object_new_object()))
		return NULL;
	a = json_object_new_array();
	for (size_t i = 0; a && i < p->ndecisions; i++) {
		json_object *d = plan_decision_to_json(&p->decisions[i]);

		if (!d || json_object_array_add(a, d)) {
			json_object_put(d);
			json_object_put(a);
			a = NULL;
		}
	}
	if (!a) {
		json_object_put(o);
		return NULL;
	}
	json_object_object_add(o, "decisions", a);
	json_object_object_add(o, "nstart", json_object_new_int64(p->nstart));
	json_object_object_add(o, "nresize", json_object_new_int64(p->nresize));
	json_object_object_add(o, "nkeep", json_object_new_int64(p->nkeep));
	json_object_object_add(o, "nwait", json_object_new_int64(p->nwait));
	json_object_object_add(o, "npreempt",
			       json_object_new_int64(p->npreempt));
	json_object_object_add(o, "nrebatch",
			       json_object_new_int64(p->nrebatch));
	json_object_object_add(o, "alloc_seconds", json_num_new(p->alloc_seconds));
	json_object_object_add(o, "place_seconds", json_num_new(p->place_seconds));
	json_object_object_add(o, "restart_cost", json_num_new(p->restart_cost));
	if (p->err[0])
		json_object_object_add(o, "error",
				       json_object_new_string(p->err));
	return o;
}

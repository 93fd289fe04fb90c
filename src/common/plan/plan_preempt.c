/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_preempt.c - preemption with aging (doc/design/planning.md
 * "Preemption with aging"), run by plan_run() after the plan's decisions
 * when prm->preempt.
 *
 * While a job waits with nothing (not running, its decision WAIT), the
 * waiting job with the least key gets its minimum (one GPU for an
 * all-reduce job), placed as the plan places (Theorem 1: the fewest
 * servers) on the room the decisions leave. Its key is its attained
 * service (job_model_attained, GPU-seconds) less the seconds it has
 * waited since its submission or the requeue of its last preemption:
 * a preempted job regains priority as it waits, so no one starves.
 *
 * When the room cannot hold it, the running job with the most attained
 * service among those that may be preempted gives all its servers back
 * (PLAN_PREEMPT: checkpoint, requeue, wait pending): one the plan keeps
 * (not resized, not moved), whose start is complete, that can checkpoint
 * and is past the minimum resize interval (job_model_why_not_resizable),
 * and has run at least min_resize_interval since its last start (k x the
 * restart cost, k the minimum interval's ratio). It is preempted only if
 * its attained service exceeds the waiting job's key by more than
 * min_resize_interval x the GPUs it holds (k restarts' worth of its GPUs)
 * and the waiting job fits on the room with its servers given back.
 * Otherwise the waiting job is passed over in this plan (no job
 * qualifies, or its minimum needs more than one job's servers: a job the
 * rule cannot serve must not keep it from the others) and the next least
 * key is tried.
 *
 * Decided before any run (the probe of doc/design/simulator.md "Preemption with
 * aging"), not tuned; the batch of each START it adds is chosen after it
 * like any START's (the policy's `after`).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_priv.h"

/* Does job i wait with nothing in this plan, for room (not for its
 * limits: no preemption gives it a minimum over its cap)? */
static bool plan_waits(const plan_ctx_t *c, size_t i)
{
	return !c->jobs[i].running && c->jobs[i].model->phase != JM_DONE &&
	       c->out->decisions[i].action == PLAN_WAIT && !c->over_cap[i];
}

/* Attained service less the seconds waited since waiting_since. */
static double plan_preempt_key(const plan_ctx_t *c, size_t i)
{
	const job_model_t *m = c->jobs[i].model;
	double waited = difftime(c->prm->now, m->waiting_since);

	return job_model_attained(m, c->prm->now) - (waited > 0 ? waited : 0);
}

/* The waiting job with the least key not tried yet, or c->n. */
static size_t plan_least_key(const plan_ctx_t *c, const bool *tried,
			     double *key)
{
	size_t best = c->n;

	for (size_t i = 0; i < c->n; i++) {
		double k;

		if (tried[i] || !plan_waits(c, i))
			continue;
		k = plan_preempt_key(c, i);
		if (best == c->n || k < *key) {
			best = i;
			*key = k;
		}
	}
	return best;
}

/* May running job i be preempted now (its decision KEEP)? */
static bool plan_preemptible(const plan_ctx_t *c, size_t i)
{
	const plan_job_t *j = &c->jobs[i];
	const job_model_t *m = j->model;
	const job_run_t *r = m->nruns ? &m->runs[m->nruns - 1] : NULL;
	char why[96];

	return j->running && !j->starting && m->phase == JM_RUNNING &&
	       c->out->decisions[i].action == PLAN_KEEP && r && !r->end &&
	       difftime(c->prm->now, r->start) >= c->prm->min_resize_interval &&
	       !job_model_why_not_resizable(m, c->prm->now,
					    c->prm->min_resize_interval, why,
					    sizeof(why));
}

/* The preemptible running job with the most attained service, or c->n. */
static size_t plan_most_served(const plan_ctx_t *c, double *attained)
{
	size_t best = c->n;

	for (size_t i = 0; i < c->n; i++) {
		double a;

		if (!plan_preemptible(c, i))
			continue;
		a = job_model_attained(c->jobs[i].model, c->prm->now);
		if (best == c->n || a > *attained) {
			best = i;
			*attained = a;
		}
	}
	return best;
}

/* Place waiting job w at its minimum on room: 1 with its slots in res,
 * 0 when it does not fit, or -errno. */
static int plan_place_min(plan_ctx_t *c, size_t w, const res_vec_t *room,
			  place_result_t *res)
{
	place_job_t pj = plan_place_job(c, w, alloc_min_ps(&c->aj[w]),
					alloc_min_workers(&c->aj[w]));
	int rc;

	memset(res, 0, sizeof(*res));
	rc = placement_run(room, c->nservers, &pj, 1, res);
	if (rc)
		return rc;
	return res->jobs[0].status == PLACE_OK;
}

/* Waiting job w starts at its minimum on res's slots. */
static int plan_preempt_start(plan_ctx_t *c, size_t w, res_vec_t *room,
			      const place_result_t *res, double key)
{
	plan_decision_t *d = &c->out->decisions[w];
	const job_model_t *m = c->jobs[w].model;
	int rc;

	d->action = PLAN_START;
	d->ps = alloc_min_ps(&c->aj[w]);
	d->workers = alloc_min_workers(&c->aj[w]);
	d->remaining_now = INFINITY;
	d->remaining_planned = plan_time(c, w, d->ps, d->workers);
	free(d->slots);
	d->slots = NULL;
	if ((rc = plan_copy_slots(d, res->jobs[0].slots, res->jobs[0].nslots)))
		return rc;
	plan_take_slots(c, room, w, d->slots, d->nslots);
	c->out->nwait--;
	c->out->nstart++;
	plan_reason(d, "optimus: least attained service first (key %.0f "
		    "GPU-s: %.0f attained, waited %.0f s)", key,
		    job_model_attained(m, c->prm->now),
		    difftime(c->prm->now, m->waiting_since));
	return 0;
}

/* Running job v gives its servers back for waiting job w. */
static void plan_preempt_one(plan_ctx_t *c, size_t v, size_t w,
			     res_vec_t *room, double attained)
{
	plan_decision_t *d = &c->out->decisions[v];
	const job_model_t *mw = c->jobs[w].model;

	plan_add_servers(c, room, v);
	free(d->slots);
	d->slots = NULL;
	d->nslots = 0;
	d->action = PLAN_PREEMPT;
	d->ps = d->workers = 0;
	d->remaining_planned = INFINITY;
	d->gain = 0;
	c->out->nkeep--;
	c->out->npreempt++;
	d->for_job = mw->job_id;
	plan_reason(d, "optimus: preempted for JobId=%u (preemption with "
		    "aging: attained %.0f GPU-s, JobId=%u waited %.0f s)",
		    mw->job_id, attained, mw->job_id,
		    difftime(c->prm->now, mw->waiting_since));
}

/* One waiting job w (least key): 1 when it got its minimum, 0 when it
 * could not, or -errno. */
static int plan_preempt_for(plan_ctx_t *c, size_t w, double key,
			    res_vec_t *room, res_vec_t *trial)
{
	place_result_t res;
	double attained = 0, held;
	size_t v;
	int rc = plan_place_min(c, w, room, &res);

	if (rc == 1)
		rc = plan_preempt_start(c, w, room, &res, key) ? -ENOMEM : 1;
	placement_result_free(&res);
	if (rc)
		return rc;
	v = plan_most_served(c, &attained);
	if (v == c->n)
		return 0;
	held = job_model_gpus(c->jobs[v].model, c->cur_ps[v], c->cur_w[v]);
	if (!(attained - key > c->prm->min_resize_interval * held))
		return 0;
	memcpy(trial, room, c->nservers * sizeof(*trial));
	plan_add_servers(c, trial, v);
	rc = plan_place_min(c, w, trial, &res);
	if (rc == 1) {
		plan_preempt_one(c, v, w, room, attained);
		rc = plan_preempt_start(c, w, room, &res, key) ? -ENOMEM : 1;
	}
	placement_result_free(&res);
	return rc;
}

int plan_preempt(plan_ctx_t *c)
{
	res_vec_t *room = malloc((c->nservers + 1) * sizeof(*room));
	res_vec_t *trial = malloc((c->nservers + 1) * sizeof(*trial));
	bool *tried = calloc(c->n + 1, sizeof(*tried));
	int rc = room && trial && tried ? 0 : -ENOMEM;

	if (!rc)
		plan_room_after(c, room);
	while (rc >= 0) {
		double key = 0;
		size_t w = plan_least_key(c, tried, &key);

		if (w == c->n)
			break;
		tried[w] = true;
		rc = plan_preempt_for(c, w, key, room, trial);
	}
	free(room);
	free(trial);
	free(tried);
	return rc < 0 ? rc : 0;
}

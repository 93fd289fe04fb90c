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

/* A job and the number it is ranked by. */
typedef struct plan_ranked {
	size_t i;
	double key;
} plan_ranked_t;

/* Least key first; equal keys by the plan's index. */
static int plan_ranked_cmp(const void *a, const void *b)
{
	const plan_ranked_t *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * The waiting jobs by key, least first, and the preemptible running jobs
 * by attained service, most first (key: minus it), each sorted once:
 * keys do not change within a plan, and a job leaves its list only by
 * what this pass does (a waiting job started, a running one preempted).
 * Searching both for every waiting job took a quarter of a second at
 * thousands of jobs.
 */
static int plan_preempt_ranks(const plan_ctx_t *c, plan_ranked_t **waiting,
			      size_t *nwaiting, plan_ranked_t **served,
			      size_t *nserved)
{
	*waiting = malloc((c->n + 1) * sizeof(**waiting));
	*served = malloc((c->n + 1) * sizeof(**served));
	*nwaiting = *nserved = 0;
	if (!*waiting || !*served)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++) {
		if (plan_waits(c, i))
			(*waiting)[(*nwaiting)++] = (plan_ranked_t){
				i, plan_preempt_key(c, i) };
		else if (plan_preemptible(c, i))
			(*served)[(*nserved)++] = (plan_ranked_t){
				i, -job_model_attained(c->jobs[i].model,
						       c->prm->now) };
	}
	qsort(*waiting, *nwaiting, sizeof(**waiting), plan_ranked_cmp);
	qsort(*served, *nserved, sizeof(**served), plan_ranked_cmp);
	return 0;
}

/* Place waiting job w at its minimum on room (with running job `with`'s
 * servers added, in cand; c->n: none): 1 with its slots in *s, 0 when it
 * does not fit (known from f, or found and added to it), or -errno. */
static int plan_place_min(plan_ctx_t *c, size_t w, const res_vec_t *room,
			  const plan_servers_t *cand, size_t with,
			  plan_nofit_t *f, plan_slots_t *s)
{
	place_job_t pj = plan_place_job(c, w, alloc_min_ps(&c->aj[w]),
					alloc_min_workers(&c->aj[w]));
	int rc;

	if (plan_nofit_known(f, &pj, with))
		return 0;
	rc = plan_place_one(c, &pj, room, cand->v ? cand : NULL, s);
	if (rc == 0)
		plan_nofit_add(f, &pj, with);
	return rc;
}

/* Waiting job w starts at its minimum on slots s. */
static int plan_preempt_start(plan_ctx_t *c, size_t w, res_vec_t *room,
			      const plan_slots_t *s, double key)
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
	if ((rc = plan_copy_slots(d, s->v, s->n)))
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

/* Running job v, its servers given back to the room already, is
 * preempted for waiting job w. */
static void plan_preempt_one(plan_ctx_t *c, size_t v, size_t w,
			     double attained)
{
	plan_decision_t *d = &c->out->decisions[v];
	const job_model_t *mw = c->jobs[w].model;

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

/*
 * One waiting job w (least key): 1 when it got its minimum, 0 when it
 * could not, or -errno. served[*next..]: the preemptible jobs left, most
 * attained service first. The room changes (f emptied) when it starts.
 * A trial preemption gives the running job's servers back on the room
 * itself; when the waiting job does not fit there, the entries saved
 * before (`saved`: as many as the most slots of a job) are put back, the
 * room as it was to the bit (adding the usage and taking it away again
 * would round): a copy of the whole room per trial took as long as the
 * rest of the pass.
 */
static int plan_preempt_for(plan_ctx_t *c, size_t w, double key,
			    res_vec_t *room, res_vec_t *saved,
			    const plan_ranked_t *served, size_t nserved,
			    size_t *next, plan_servers_t *cand,
			    plan_nofit_t *f)
{
	const plan_job_t *jv;
	plan_slots_t s = { 0 };
	double attained, held;
	size_t v;
	int rc = plan_place_min(c, w, room, cand, c->n, f, &s);

	if (rc == 1)
		rc = plan_preempt_start(c, w, room, &s, key) ? -ENOMEM : 1;
	plan_slots_clear(&s);
	if (rc)
		goto out;
	if (*next == nserved)
		return 0;
	v = served[*next].i;
	attained = -served[*next].key;
	held = job_model_gpus(c->jobs[v].model, c->cur_ps[v], c->cur_w[v]);
	if (!(attained - key > c->prm->min_resize_interval * held))
		return 0;
	jv = &c->jobs[v];
	for (size_t k = 0; k < jv->nslots; k++)
		saved[k] = room[jv->slots[k].server];
	plan_add_servers(c, room, v);
	for (size_t k = 0; k < jv->nslots; k++)
		plan_servers_add(cand, jv->slots[k].server);
	rc = plan_place_min(c, w, room, cand, v, f, &s);
	if (rc == 1) {
		plan_preempt_one(c, v, w, attained);
		(*next)++;
		rc = plan_preempt_start(c, w, room, &s, key) ? -ENOMEM : 1;
	} else {
		for (size_t k = 0; k < jv->nslots; k++)
			room[jv->slots[k].server] = saved[k];
	}
	plan_slots_clear(&s);
out:
	if (rc == 1) {
		f->n = 0;
		plan_servers_prune(cand, room);
	}
	return rc;
}

/*
 * The servers a waiting job's minimum could use: those whose room holds
 * one task of a waiting job; a preemption adds the servers it frees
 * (plan_preempt_for). Starts only take room, so the set stays a superset.
 */
static int plan_preempt_servers(const plan_ctx_t *c, const res_vec_t *room,
				const plan_ranked_t *waiting, size_t nwaiting,
				plan_servers_t *cand)
{
	size_t *idx = malloc((nwaiting + 1) * sizeof(*idx));
	int rc;

	if (!idx)
		return -ENOMEM;
	for (size_t k = 0; k < nwaiting; k++)
		idx[k] = waiting[k].i;
	rc = plan_servers_for(c, room, idx, nwaiting, cand);
	free(idx);
	return rc;
}

int plan_preempt(plan_ctx_t *c)
{
	res_vec_t *room = malloc((c->nservers + 1) * sizeof(*room));
	res_vec_t *saved = NULL;
	plan_ranked_t *waiting = NULL, *served = NULL;
	size_t nwaiting = 0, nserved = 0, next = 0, most = 0;
	plan_nofit_t f = { .n = 0 };
	plan_servers_t cand = { 0 };
	int rc;

	for (size_t i = 0; i < c->n; i++)
		if (c->jobs[i].nslots > most)
			most = c->jobs[i].nslots;
	saved = malloc((most + 1) * sizeof(*saved));
	rc = room && saved ? 0 : -ENOMEM;

	if (!rc)
		rc = plan_preempt_ranks(c, &waiting, &nwaiting, &served,
					&nserved);
	if (!rc)
		plan_room_after(c, room);
	if (!rc)
		rc = plan_preempt_servers(c, room, waiting, nwaiting, &cand);
	for (size_t k = 0; rc >= 0 && k < nwaiting; k++)
		rc = plan_preempt_for(c, waiting[k].i, waiting[k].key, room,
				      saved, served, nserved, &next, &cand, &f);
	plan_servers_free(&cand);
	free(room);
	free(saved);
	free(waiting);
	free(served);
	return rc < 0 ? rc : 0;
}

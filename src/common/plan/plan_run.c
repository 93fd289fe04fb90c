/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_run.c - one scheduling interval (plan_run; doc/design/planning.md has the
 * rules and their defaults):
 *
 *   pass 1   allocate every job over the whole capacity (free room plus
 *            what the running jobs use) with the plan's policy;
 *   decide   each running job KEEPs its allocation and servers unless the
 *            resize passes the gain threshold and the minimum interval;
 *   pass 2   allocate the pending and resized jobs over the room the kept
 *            jobs leave, and place them; a resize that no longer pays or
 *            cannot be placed becomes KEEP and a pending job that cannot
 *            be placed WAITs; then pass 2 runs again without them. Each
 *            round fixes at least one job, so it ends within n + 1 rounds;
 *   after    kept jobs moved off their stragglers (plan_straggler.c),
 *            preemption with aging when configured (plan_preempt.c), what
 *            follows under the plan's policy (its `after`: goodput's
 *            batches).
 *
 * What a policy decides (its allocator, a job's predicted time, the
 * verdict on a running job, its words) are its operations (plan_priv.h,
 * plan_policy_*.c); these mechanics call them for every policy alike.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_priv.h"

/* A grant holds at least the job's minimum: 1 PS or more for PS jobs,
 * none for all-reduce ones. */
static bool plan_granted(const alloc_grant_t *g)
{
	return g->status == ALLOC_OK && g->workers > 0;
}

static bool plan_resizable(const plan_ctx_t *c, size_t i)
{
	char why[96];

	return !job_model_why_not_resizable(c->jobs[i].model, c->prm->now,
					    c->prm->min_resize_interval, why,
					    sizeof(why));
}

static void plan_keep(plan_ctx_t *c, size_t i, const char *why)
{
	plan_decision_t *d = &c->out->decisions[i];

	c->state[i] = PS_KEEP;
	c->shrink[i] = false;
	if (why)
		plan_reason(d, "optimus: keeps %d PS + %d workers: %s",
			    c->cur_ps[i], c->cur_w[i], why);
}

/* Is grant g running job i's current size? */
static bool plan_at_current(const plan_ctx_t *c, size_t i,
			    const alloc_grant_t *g)
{
	return g->ps == c->cur_ps[i] && g->workers == c->cur_w[i];
}

/*
 * Pass 1 verdict on running job i against its grant g: why it keeps its
 * allocation, or NULL when it is resized (state set accordingly).
 */
static const char *plan_verdict(plan_ctx_t *c, size_t i,
				const alloc_grant_t *g, char *why, size_t len)
{
	const char *kept;

	if (c->jobs[i].model->phase == JM_CHECKPOINTING)
		return "resize in progress";
	if (c->jobs[i].starting)
		return "start in progress";
	if (c->over_cap[i])
		return c->over_cap[i];
	if (!plan_granted(g))
		return "no better allocation fits";
	if (plan_at_current(c, i, g))
		return "already at its planned size";
	if ((kept = c->rules[i]->verdict(c, i, g, false, why, len)))
		return kept;
	return job_model_why_not_resizable(c->jobs[i].model, c->prm->now,
					   plan_explore_min_interval(c, i,
								     g->ps,
								     g->workers),
					   why, len);
}

/*
 * Kept job i shrunk to its pass-1 grant whatever its own gain, when that
 * grant is a shrink (plan_is_shrink), unless it is starting or
 * checkpointing, could not be resized now, or ends before a restart
 * would: what the fair-share and the growth shrinks share.
 */
static void plan_shrink_to_grant(plan_ctx_t *c, size_t i)
{
	const alloc_grant_t *g = &c->grant1[i];
	plan_decision_t *d = &c->out->decisions[i];

	if (c->state[i] != PS_KEEP || c->jobs[i].starting ||
	    c->jobs[i].model->phase == JM_CHECKPOINTING ||
	    !plan_granted(g) ||
	    plan_at_current(c, i, g) ||
	    !plan_is_shrink(c, i, g) ||
	    plan_time(c, i, c->cur_ps[i], c->cur_w[i]) <=
	    c->prm->restart_cost ||
	    !plan_resizable(c, i))
		return;
	(void)plan_resize_gain(c, i, g->ps, g->workers, d);
	c->state[i] = PS_RESIZE;
	c->shrink[i] = true;
}

/*
 * A kept job of a user above its fair share, while a user below its own
 * wants more (plan_fair.c): shrunk to its pass-1 grant.
 */
static void plan_fair_shrink(plan_ctx_t *c, size_t i)
{
	if (plan_fair_yields(c, i))
		plan_shrink_to_grant(c, i);
}

/*
 * Under a policy that shrinks for growth (goodput's completion rate, whose
 * pass 1 is the allocation that empties the system fastest): when no job
 * waits and a running job's growth passed its verdict, a kept job that
 * pass 1 gave less is shrunk to its pass-1 grant (plan_shrink_to_grant),
 * as for a pending job; pass 2 shares the room it leaves.
 * Without it such a job kept the room a growth needed for as long as the
 * growing job ran (doc/design/planning.md, step 3).
 */
static void plan_growth_shrink(plan_ctx_t *c)
{
	bool growth = false;

	c->growth_granted = false;
	if (!c->policy->shrink_for_growth)
		return;
	for (size_t i = 0; i < c->n; i++) {
		if (c->state[i] == PS_PENDING)
			return;
		growth |= c->jobs[i].running && c->state[i] == PS_RESIZE &&
			  !c->shrink[i] && c->grant1[i].workers > c->cur_w[i];
	}
	c->growth_granted = growth;
	for (size_t i = 0; growth && i < c->n; i++)
		plan_shrink_to_grant(c, i);
}

static void plan_decide_running(plan_ctx_t *c, size_t i)
{
	char buf[96];
	const char *why = plan_verdict(c, i, &c->grant1[i], buf, sizeof(buf));

	if (why)
		plan_keep(c, i, why);
	else
		c->state[i] = PS_RESIZE;
}

/* Room per server: the free room plus what the resized jobs use now. */
static res_vec_t plan_room(plan_ctx_t *c)
{
	res_vec_t cap = res_make(0, 0, 0);

	memcpy(c->room, c->server_free, c->nservers * sizeof(*c->room));
	for (size_t i = 0; i < c->n; i++)
		if (c->state[i] == PS_RESIZE)
			plan_add_servers(c, c->room, i);
	for (size_t s = 0; s < c->nservers; s++)
		cap = res_add(cap, c->room[s]);
	return cap;
}

/*
 * Pass 1's room per server: the free room plus what every running job
 * uses there; a running job whose servers are not known (no slots) counts
 * on one more, virtual, server. Returns the entries: nservers + 1.
 */
static size_t plan_room_all(plan_ctx_t *c)
{
	memcpy(c->room, c->free0, c->nservers * sizeof(*c->room));
	c->room[c->nservers] = res_make(0, 0, 0);
	for (size_t i = 0; i < c->n; i++) {
		if (!c->jobs[i].running)
			continue;
		if (c->jobs[i].nslots)
			plan_add_servers(c, c->room, i);
		else
			c->room[c->nservers] = res_add(c->room[c->nservers],
						       c->usage[i]);
	}
	return c->nservers + 1;
}

/* A resize whose pass-2 grant no longer pays becomes KEEP: true if so. */
static bool plan_recheck_resize(plan_ctx_t *c, size_t i)
{
	const alloc_grant_t *g = &c->grant2[i];
	char why[96];

	if (!plan_granted(g)) {
		plan_keep(c, i, "no room on the servers left");
		return true;
	}
	if (plan_at_current(c, i, g)) {
		plan_keep(c, i, c->lim_ps[i] || c->lim_w[i] ?
			  "a larger size cannot be placed" :
			  "already at its planned size");
		return true;
	}
	/* Pass 1's target may have been exempt from the minimum interval
	 * (a growth beyond the explored extent); pass 2's must be too. */
	if (job_model_why_not_resizable(c->jobs[i].model, c->prm->now,
					plan_explore_min_interval(c, i, g->ps,
								  g->workers),
					why, sizeof(why))) {
		plan_keep(c, i, why);
		return true;
	}
	if (!c->rules[i]->verdict(c, i, g, true, why, sizeof(why)))
		return false;
	plan_keep(c, i, why);
	return true;
}

/* Tasks of job i at (ps, workers) above its minimum. */
static int plan_extra_tasks(const plan_ctx_t *c, size_t i, int ps, int w)
{
	return ps - alloc_min_ps(&c->aj[i]) + w - alloc_min_workers(&c->aj[i]);
}

/*
 * Did resize i give way in pass 2: pass 1 grew it, and pass 2 granted it
 * its current size, others taking the room?
 */
static bool plan_gave_way(const plan_ctx_t *c, size_t i)
{
	const alloc_grant_t *g1 = &c->grant1[i], *g2 = &c->grant2[i];

	return plan_granted(g2) && plan_at_current(c, i, g2) &&
	       g1->ps + g1->workers > c->cur_ps[i] + c->cur_w[i];
}

static bool plan_above_min(const plan_ctx_t *c, size_t i,
			   const alloc_grant_t *g)
{
	return g->ps > alloc_min_ps(&c->aj[i]) ||
	       g->workers > alloc_min_workers(&c->aj[i]);
}

/* Limit job i to 3/4 of its grant g (at least one task fewer). */
static void plan_lower_limit(plan_ctx_t *c, size_t i, const alloc_grant_t *g)
{
	c->lim_ps[i] = g->ps - g->ps / 4;
	c->lim_w[i] = g->workers - g->workers / 4;
	if (c->lim_ps[i] + c->lim_w[i] < g->ps + g->workers)
		return;
	if (g->workers > alloc_min_workers(&c->aj[i]))
		c->lim_w[i] = g->workers - 1;
	else
		c->lim_ps[i] = g->ps - 1;
}

/* Could job i be placed at g if it were alone on `room`? */
static bool plan_fits_on(const plan_ctx_t *c, const res_vec_t *room,
			 size_t i, const alloc_grant_t *g)
{
	place_job_t pl = plan_place_job(c, i, g->ps, g->workers);
	place_result_t res;
	bool ok = !placement_run(room, c->nservers, &pl, 1, &res) &&
		  res.jobs[0].status == PLACE_OK;

	placement_result_free(&res);
	return ok;
}

static bool plan_fits_alone(const plan_ctx_t *c, size_t i,
			    const alloc_grant_t *g)
{
	return plan_fits_on(c, c->room, i, g);
}

/*
 * May kept running job j shrink for a pending job? Above its minimum,
 * neither starting nor checkpointing, its last resize old enough, and as
 * its policy allows (may_shrink).
 */
static bool plan_may_shrink_kept(const plan_ctx_t *c, size_t j)
{
	const plan_job_t *job = &c->jobs[j];
	const alloc_job_t *a = &c->aj[j];

	/* A limit set means it was tried in this plan already. */
	if (c->state[j] != PS_KEEP || !job->running || job->starting ||
	    c->lim_ps[j] || c->lim_w[j] ||
	    !job->nslots || job->model->phase == JM_CHECKPOINTING ||
	    !plan_resizable(c, j) ||
	    (c->cur_ps[j] <= alloc_min_ps(a) &&
	     c->cur_w[j] <= alloc_min_workers(a)))
		return false;
	return c->rules[j]->may_shrink(c, j);
}

/* Would pending job i fit at g on the room plus kept job j's servers? */
static bool plan_fits_without(plan_ctx_t *c, size_t i,
			      const alloc_grant_t *g, size_t j,
			      res_vec_t *tmp)
{
	memcpy(tmp, c->room, c->nservers * sizeof(*tmp));
	plan_add_servers(c, tmp, j);
	return plan_fits_on(c, tmp, i, g);
}

/*
 * Pass 1 granted pending job i its minimum in the aggregate, but the free
 * room lies in fragments no set of servers can combine, while kept jobs
 * hold whole servers. The kept job that may shrink, whose servers would
 * then hold job i, with the most tasks above its minimum, is resized to
 * 3/4 of its size (at least one task fewer): true if one was.
 */
static bool plan_shrink_kept(plan_ctx_t *c, size_t i, const alloc_grant_t *g)
{
	res_vec_t *tmp = malloc((c->nservers + 1) * sizeof(*tmp));
	size_t best = c->n;
	int most = 0;

	if (!tmp)
		return false;
	for (size_t j = 0; j < c->n; j++) {
		int extra = plan_extra_tasks(c, j, c->cur_ps[j], c->cur_w[j]);

		if (extra > most && plan_may_shrink_kept(c, j) &&
		    plan_fits_without(c, i, g, j, tmp)) {
			most = extra;
			best = j;
		}
	}
	free(tmp);
	if (best == c->n)
		return false;
	alloc_grant_t cur = { .ps = c->cur_ps[best], .workers = c->cur_w[best] };
	c->state[best] = PS_RESIZE;
	c->shrink[best] = true;
	/* named if it starts (plan_resize_reasons) */
	c->out->decisions[best].for_job = c->jobs[i].model->job_id;
	plan_lower_limit(c, best, &cur);
	return true;
}

/* The placed job of this round with the most tasks above its minimum. */
static size_t plan_biggest_placed(const plan_ctx_t *c, const bool *which)
{
	size_t best = c->n;
	int most = 0;

	for (size_t j = 0; j < c->n; j++) {
		const alloc_grant_t *g = &c->grant2[j];
		int extra = plan_extra_tasks(c, j, g->ps, g->workers);

		if (which[j] && c->placed[j].ok && extra > most) {
			most = extra;
			best = j;
		}
	}
	return best;
}

/* The room this round's placed jobs leave: c->room less their slots. */
static void plan_leftover(const plan_ctx_t *c, const bool *which,
			  res_vec_t *left)
{
	memcpy(left, c->room, c->nservers * sizeof(*left));
	for (size_t j = 0; j < c->n; j++)
		if (which[j] && c->placed[j].ok)
			plan_take_slots(c, left, j, c->placed[j].v,
					c->placed[j].n);
}

/*
 * The room this round's placed jobs leave (*left) and the servers where a
 * pending or resized job could use it (*cand): 0, or -ENOMEM (nothing
 * kept).
 */
static int plan_left_open(const plan_ctx_t *c, const bool *which,
			  res_vec_t **left, plan_servers_t *cand)
{
	size_t *idx = malloc((c->n + 1) * sizeof(*idx)), n = 0;
	int rc = -ENOMEM;

	*left = malloc((c->nservers + 1) * sizeof(**left));
	if (idx && *left) {
		plan_leftover(c, which, *left);
		for (size_t i = 0; i < c->n; i++)
			if (c->state[i] == PS_PENDING ||
			    c->state[i] == PS_RESIZE)
				idx[n++] = i;
		rc = plan_servers_for(c, *left, idx, n, cand);
	}
	free(idx);
	if (rc) {
		free(*left);
		*left = NULL;
	}
	return rc;
}

/*
 * Job i placed with the most workers fewer than its grant and at least
 * its minimum (its PS as granted) that the room `left` holds: its grant
 * and placement set, that room taken off `left`. False, nothing changed,
 * when `left` holds not even its minimum.
 */
static bool plan_fit_left(plan_ctx_t *c, size_t i, res_vec_t *left,
			  const plan_servers_t *cand)
{
	alloc_grant_t *g = &c->grant2[i];

	for (int w = g->workers - 1; w >= 1 &&
	     w >= alloc_min_workers(&c->aj[i]); w--)
		if (plan_place_alone(c, i, g->ps, w, left, cand,
				     &c->placed[i])) {
			g->workers = w;
			return true;
		}
	return false;
}

/*
 * A job that could not be placed at its grant (the aggregate fitted, the
 * servers' fragments did not) is limited to 3/4 of it for the next round.
 * At its minimum, the placed job with the most tasks above its own
 * minimum is limited instead (minimums come first, as in Optimus); a
 * pending job may then have a kept job shrink (plan_shrink_kept), and
 * when none can the job is fixed: a resize keeps, a pending job waits.
 */
static void plan_unplaced(plan_ctx_t *c, size_t i, const bool *which)
{
	const alloc_grant_t *g = &c->grant2[i];
	size_t j;
	char why[64];

	if (plan_above_min(c, i, g)) {
		plan_lower_limit(c, i, g);
		return;
	}
	if (plan_fits_alone(c, i, g) &&
	    (j = plan_biggest_placed(c, which)) < c->n) {
		plan_lower_limit(c, j, &c->grant2[j]);
		return;
	}
	if (c->state[i] == PS_RESIZE) {
		snprintf(why, sizeof(why), "%d/%d cannot be placed", g->ps,
			 g->workers);
		plan_keep(c, i, why);
		return;
	}
	if (plan_shrink_kept(c, i, g))
		return;
	c->state[i] = PS_EXCLUDED;
	plan_reason(&c->out->decisions[i], "optimus: no set of servers can "
		    "hold its minimum %d PS + %d workers on the room left",
		    g->ps, g->workers);
}

/*
 * Pending jobs not granted this round, in the plan's order, started at
 * their minimum on the room `left` that holds it (taken off `left`): the
 * room placed jobs could not use is not left idle while a job waits.
 * `left` only shrinks: a placement found not to fit is not tried again.
 */
static void plan_start_on_left(plan_ctx_t *c, res_vec_t *left,
			       const plan_servers_t *cand)
{
	res_vec_t total = res_make(0, 0, 0);
	plan_nofit_t f = { .n = 0 };

	for (size_t s = 0; s < c->nservers; s++)
		total = res_add(total, left[s]);
	for (size_t k = 0; k < c->n; k++) {
		size_t i = c->order[k];
		const alloc_job_t *a = &c->aj[i];
		res_vec_t need = plan_min_need(a);
		place_job_t pj;

		if (c->state[i] != PS_PENDING || plan_granted(&c->grant2[i]) ||
		    c->over_cap[i] || !res_fits(need, total))
			continue;
		pj = plan_place_job(c, i, alloc_min_ps(a), alloc_min_workers(a));
		if (plan_nofit_known(&f, &pj, c->n))
			continue;
		if (!plan_place_alone(c, i, pj.ps, pj.workers, left, cand,
				      &c->placed[i])) {
			plan_nofit_add(&f, &pj, c->n);
			continue;
		}
		c->grant2[i].status = ALLOC_OK;
		c->grant2[i].ps = pj.ps;
		c->grant2[i].workers = c->grant2[i].units = pj.workers;
		c->lim_ps[i] = c->grant2[i].ps;
		c->lim_w[i] = c->grant2[i].workers;
		total = res_sub(total, need);
	}
}

/*
 * Place the granted jobs. The allocation shares the room in the
 * aggregate, its fragments on the servers are the placement's: a job
 * the servers cannot hold at its grant, above its minimum, is placed at
 * the most workers the room left by the others holds (a resize only if it
 * still pays); when none has to round again, what room is left starts
 * waiting jobs at their minimum (plan_start_on_left). Limiting such
 * a job and allocating again instead freed one fragment per round to
 * the next job in line: hundreds of rounds, each a whole allocation, at
 * a few thousand jobs. *changed when another round must follow.
 */
static int plan_place_round(plan_ctx_t *c, bool *which, bool settle,
			    bool *changed)
{
	res_vec_t *left = NULL;
	plan_servers_t cand = { 0 };
	int rc;

	for (size_t i = 0; i < c->n; i++)
		which[i] = c->state[i] == PS_RESIZE ||
			   (c->state[i] == PS_PENDING && plan_granted(&c->grant2[i]));
	if ((rc = plan_place(c, which, c->grant2, c->room)))
		return rc;
	for (size_t i = 0; !rc && i < c->n; i++) {
		if (!which[i] || c->placed[i].ok)
			continue;
		if (settle && !left &&
		    (rc = plan_left_open(c, which, &left, &cand)))
			break;
		if (settle && plan_above_min(c, i, &c->grant2[i]) &&
		    plan_fit_left(c, i, left, &cand)) {
			c->lim_ps[i] = c->grant2[i].ps;
			c->lim_w[i] = c->grant2[i].workers;
			if (c->state[i] == PS_RESIZE && plan_recheck_resize(c, i))
				*changed = true;
			continue;
		}
		*changed = true;
		plan_unplaced(c, i, which);
	}
	if (!rc && left && !*changed)
		plan_start_on_left(c, left, &cand);
	plan_servers_free(&cand);
	free(left);
	return rc;
}

/* One round of pass 2; *changed when a job was fixed (round again). */
static int plan_round(plan_ctx_t *c, bool *which, res_vec_t *cap,
		      bool settle, bool *changed)
{
	int rc;

	*changed = false;
	*cap = plan_room(c);
	for (size_t i = 0; i < c->n; i++)
		which[i] = c->state[i] == PS_PENDING ||
			   c->state[i] == PS_RESIZE;
	if ((rc = plan_alloc(c, which, *cap, c->room, c->nservers, c->grant2)))
		return rc;
	/*
	 * A resize that gave way to others' grants (plan_gave_way): while
	 * one of those is fixed this round, the room is shared again next
	 * round, the one that gave way with it. A settling round fixes it at
	 * once: each round more is a whole allocation (at 40,000 jobs, a
	 * plan of 20 s instead of 0.7).
	 */
	for (size_t i = 0; i < c->n; i++)
		if (c->state[i] == PS_RESIZE &&
		    (settle || !plan_gave_way(c, i)) &&
		    plan_recheck_resize(c, i))
			*changed = true;
	for (size_t i = 0; !*changed && i < c->n; i++)
		if (c->state[i] == PS_RESIZE && plan_gave_way(c, i) &&
		    plan_recheck_resize(c, i))
			*changed = true;
	if (*changed)
		return 0;
	return plan_place_round(c, which, settle, changed);
}

/*
 * Nothing starts or resizes: the safe outcome when pass 2 does not settle
 * within its bound (it should: every round with a change lowers a limit or
 * fixes a job).
 */
static void plan_give_up(plan_ctx_t *c)
{
	for (size_t i = 0; i < c->n; i++) {
		if (c->state[i] == PS_RESIZE)
			plan_keep(c, i, "the plan did not settle");
		if (c->state[i] != PS_PENDING)
			continue;
		c->state[i] = PS_EXCLUDED;
		plan_reason(&c->out->decisions[i], "optimus: the plan did not "
			    "settle this interval");
	}
}

static int plan_pass2(plan_ctx_t *c, res_vec_t *cap)
{
	bool *which = calloc(c->n + 1, sizeof(*which));
	bool changed = true;
	size_t bound = 4 * c->n + 64;
	int rc = which ? 0 : -ENOMEM;

	for (size_t r = 0; !rc && changed && r < bound; r++)
		rc = plan_round(c, which, cap,
				(r + 1) * c->n > c->prm->round_budget,
				&changed);
	if (!rc && changed) {
		plan_give_up(c);
		*cap = plan_room(c);
	}
	free(which);
	return rc;
}

/*
 * Why a pending job got nothing, in words for `squeue`/`scontrol`. The
 * task allocators grant minimums in order (running jobs, then by
 * submission), so a minimum that fits the room but was not granted went
 * to older jobs.
 */
static void plan_wait_reason(plan_ctx_t *c, size_t i, res_vec_t cap)
{
	const alloc_job_t *a = &c->aj[i];
	res_vec_t need = plan_min_need(a);
	plan_decision_t *d = &c->out->decisions[i];
	const char *where = !res_fits(need, c->capacity) ? "in the cluster" :
		!res_fits(need, cap) ? "left by running jobs" :
		"after older jobs' minimums";

	if (c->over_cap[i])
		plan_reason(d, "optimus: %s (its minimum: cpu=%g gpu=%g)",
			    c->over_cap[i], need.v[RES_CPU], need.v[RES_GPU]);
	else if (!c->rules[i]->wait_reason ||
		 !c->rules[i]->wait_reason(c, i, cap, d))
		plan_reason(d, "optimus: no room %s for the minimum %d PS + %d "
			    "worker(s) (needs cpu=%g mem=%gMB gpu=%g)", where,
			    alloc_min_ps(a), alloc_min_workers(a),
			    need.v[RES_CPU], need.v[RES_MEM], need.v[RES_GPU]);
}

/*
 * The job a shrink makes room for: the one plan_shrink_kept shrank it for
 * (`chosen`) if it starts (in `starts`, sorted), else the first that
 * starts in this plan (the plan's order: the oldest), 0 when none does.
 */
static uint32_t plan_shrunk_for(const uint32_t *starts, size_t nstarts,
				uint32_t first, uint32_t chosen)
{
	if (chosen && bsearch(&chosen, starts, nstarts, sizeof(*starts),
			      plan_u32_cmp))
		return chosen;
	return first;
}

/* A RESIZE's reason, for the job's owner: a shrink names the job it was
 * made for and the rule (in its policy's words when it has its own). */
static void plan_resize_reason(const plan_ctx_t *c, size_t i,
			       plan_decision_t *d)
{
	char whom[32];

	snprintf(whom, sizeof(whom), "%s", c->growth_granted ?
		 "a growing job" : "pending jobs");
	if (d->for_job)
		snprintf(whom, sizeof(whom), "JobId=%u", d->for_job);
	if (c->rules[i]->resize_reason)
		c->rules[i]->resize_reason(c, i, d, whom);
	else if (c->shrink[i] && plan_fair_yields(c, i))
		plan_reason(d, "optimus: shrinks to %d PS + %d workers: its "
			    "user is above their fair share while another "
			    "user is below theirs", d->ps, d->workers);
	else if (c->shrink[i])
		plan_reason(d, "optimus: shrinks to %d PS + %d workers for %s "
			    "(shrink for %s, gain %.1f%%)", d->ps,
			    d->workers, whom, c->growth_granted ?
			    "a running job's growth" : "pending jobs",
			    100.0 * d->gain);
	else
		plan_reason(d, "optimus: grows to %d PS + %d workers (gain "
			    "%.1f%%)", d->ps, d->workers, 100.0 * d->gain);
}

/* Does decision d grow running job i? */
static bool plan_grows(const plan_ctx_t *c, size_t i,
		       const plan_decision_t *d)
{
	return d->action == PLAN_RESIZE && !c->shrink[i] &&
	       d->workers > c->cur_w[i];
}

/* Once every START is known: each RESIZE's reason, a shrink naming the
 * job it makes room for (plan_decision_t.for_job): a job that starts, or,
 * shrunk for growth, a job that grows. */
static int plan_resize_reasons(plan_ctx_t *c)
{
	uint32_t *starts = malloc((c->n + 1) * sizeof(*starts)), first = 0;
	size_t nstarts = 0;

	if (!starts)
		return -ENOMEM;
	for (size_t k = 0; k < c->n; k++)
		if (c->growth_granted ?
		    plan_grows(c, k, &c->out->decisions[k]) :
		    c->out->decisions[k].action == PLAN_START) {
			starts[nstarts++] = c->out->decisions[k].job_id;
			if (!first)
				first = c->out->decisions[k].job_id;
		}
	qsort(starts, nstarts, sizeof(*starts), plan_u32_cmp);
	for (size_t i = 0; i < c->n; i++) {
		plan_decision_t *d = &c->out->decisions[i];

		if (d->action != PLAN_RESIZE) {
			d->for_job = 0;
			continue;
		}
		d->for_job = c->shrink[i] ? plan_shrunk_for(starts, nstarts,
							    first, d->for_job) :
					    0;
		plan_resize_reason(c, i, d);
	}
	free(starts);
	return 0;
}

static int plan_decide(plan_ctx_t *c, size_t i, res_vec_t cap)
{
	plan_decision_t *d = &c->out->decisions[i];
	const plan_job_t *j = &c->jobs[i];
	bool placed = (c->state[i] == PS_PENDING || c->state[i] == PS_RESIZE) &&
		      c->placed[i].ok;

	if (c->state[i] == PS_KEEP) {
		d->action = PLAN_KEEP;
		d->ps = c->cur_ps[i];
		d->workers = c->cur_w[i];
		d->remaining_now = d->remaining_planned =
			plan_time(c, i, d->ps, d->workers);
		c->out->nkeep++;
		return plan_copy_slots(d, j->slots, j->nslots);
	}
	if (!placed) {
		d->action = PLAN_WAIT;
		d->remaining_now = d->remaining_planned = INFINITY;
		if (c->state[i] == PS_PENDING)
			plan_wait_reason(c, i, cap);
		c->out->nwait++;
		return 0;
	}
	d->action = c->state[i] == PS_RESIZE ? PLAN_RESIZE : PLAN_START;
	d->ps = c->grant2[i].ps;
	d->workers = c->grant2[i].workers;
	if (d->action == PLAN_START) {
		d->remaining_now = INFINITY;
		d->remaining_planned = plan_time(c, i, d->ps, d->workers);
		c->out->nstart++;
	} else {
		c->out->nresize++;
	}
	return plan_copy_slots(d, c->placed[i].v, c->placed[i].n);
}

/* Does a pending job wait in this plan? */
static bool plan_leaves_pending_waiting(const plan_job_t *jobs, size_t n,
					const plan_t *p)
{
	for (size_t i = 0; i < n; i++)
		if (!jobs[i].running && jobs[i].model->phase != JM_DONE &&
		    p->decisions[i].action == PLAN_WAIT)
			return true;
	return false;
}

/*
 * The plan after pass 1 (c->grant1 and `all`, the jobs that take part):
 * every decision, under c->prm.
 */
static int plan_decide_all(plan_ctx_t *c, const bool *all)
{
	res_vec_t cap;
	int rc;

	c->pending_granted = false;
	for (size_t i = 0; i < c->n; i++) {
		c->state[i] = c->jobs[i].running ? PS_KEEP :
			      all[i] ? PS_PENDING : PS_EXCLUDED;
		if (!all[i])
			plan_reason(&c->out->decisions[i], "optimus: job done");
		if (!c->jobs[i].running && plan_granted(&c->grant1[i]))
			c->pending_granted = true;
	}
	for (size_t i = 0; i < c->n; i++)
		if (c->jobs[i].running)
			plan_decide_running(c, i);
	plan_fair_pass1(c);
	for (size_t i = 0; i < c->n; i++)
		plan_fair_shrink(c, i);
	plan_growth_shrink(c);
	if ((rc = plan_pass2(c, &cap)))
		return rc;
	for (size_t i = 0; !rc && i < c->n; i++)
		rc = plan_decide(c, i, cap);
	if (!rc)
		rc = plan_resize_reasons(c);
	if (!rc)
		rc = plan_move_stragglers(c);
	if (!rc && c->prm->preempt)
		rc = plan_preempt(c);
	if (!rc && c->policy->after)
		rc = c->policy->after(c);
	if (rc)
		plan_fail(c->out, rc, "out of memory");
	return rc;
}

/*
 * What plan_decide_all changed, undone for another plan on the same pass
 * 1: the decisions, pass 2's limits and shrinks, what it placed (each
 * job's state and pass 2's grants are set anew by plan_decide_all and
 * pass 2's first allocation).
 */
static void plan_undecide(plan_ctx_t *c)
{
	for (size_t i = 0; i < c->n; i++) {
		plan_decision_t *d = &c->out->decisions[i];

		free(d->slots);
		memset(d, 0, sizeof(*d));
		d->job_id = c->jobs[i].model->job_id;
		plan_slots_clear(&c->placed[i]);
		c->shrink[i] = false;
		c->lim_ps[i] = c->lim_w[i] = 0;
	}
	c->out->nstart = c->out->nresize = c->out->nkeep = c->out->nwait = 0;
	c->out->npreempt = c->out->nrebatch = 0;
}

/*
 * Every resize costs a checkpoint and a restart: running jobs are shrunk
 * for pending jobs only when a pending job would otherwise wait, and
 * preempted (prm->preempt) only when one still would. The plan without
 * them and the plan with them share the set-up and pass 1 (neither reads
 * those two parameters): made once, they were half of a plan's time at
 * thousands of jobs.
 */
int plan_run(const plan_job_t *jobs, size_t njobs,
	     const res_vec_t *server_free, size_t nservers,
	     const plan_params_t *prm, plan_t *out)
{
	plan_ctx_t c = { .jobs = jobs, .n = njobs, .server_free = server_free,
			 .nservers = nservers, .prm = prm, .out = out };
	plan_params_t no_shrink;
	bool *all = NULL;
	int rc;

	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if ((rc = plan_check(jobs, njobs, server_free, nservers, prm, out)) ||
	    (rc = plan_setup(&c)))
		goto done;
	all = malloc((njobs + 1) * sizeof(*all));
	if (!all) {
		rc = plan_fail(out, -ENOMEM, "out of memory");
		goto done;
	}
	/* A finished job still listed takes no part (and waits). */
	for (size_t i = 0; i < njobs; i++)
		all[i] = jobs[i].running || jobs[i].model->phase != JM_DONE;
	if ((rc = plan_alloc(&c, all, c.capacity, c.room, plan_room_all(&c),
			     c.grant1)))
		goto done;
	if (!prm->shrink_for_pending) {
		rc = plan_decide_all(&c, all);
		goto done;
	}
	no_shrink = *prm;
	no_shrink.shrink_for_pending = false;
	/* Preemption is for a job that would wait: only in the plan that
	 * runs when one would (the same condition, plan_preempt.c). */
	no_shrink.preempt = false;
	c.prm = &no_shrink;
	rc = plan_decide_all(&c, all);
	if (rc || !plan_leaves_pending_waiting(jobs, njobs, out))
		goto done;
	plan_undecide(&c);
	c.prm = prm;
	rc = plan_decide_all(&c, all);
done:
	out->alloc_seconds = c.alloc_s;
	out->place_seconds = c.place_s;
	out->restart_cost = prm ? prm->restart_cost : 0.0;
	free(all);
	plan_ctx_free(&c);
	return rc;
}

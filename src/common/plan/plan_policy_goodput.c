/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_policy_goodput.c - Policy=goodput (doc/design/planning.md "Goodput").
 *
 * An adaptive job (job_model_batch_limits) of an all-reduce mode is sized
 * by its progress rate in B0-steps per second at the best batch for the
 * GPUs and nodes (job_model_batch_rate: goodput / B0), against the
 * progress it has left in B0-steps (job_model_batch_remaining), with the
 * completion-rate greedy (alloc/rate.c) every job of the plan shares, or,
 * as plan_params_t.goodput_objective chooses, Pollux's objective
 * (alloc/fair_speedup.c), with or without its restart weighting.
 *
 * Placement-aware grants: the rate of w workers is the rate on the nodes
 * the job would really span, not on the fewest that could hold them. At
 * its current size that is where it runs; else the fullest servers of the
 * room it could use (the free room plus its own servers), which is what
 * the placement (Theorem 1, fewest servers first) gives a job alone; when
 * that room cannot hold w, others must shrink first and where is not
 * known: the fewest nodes. Other jobs (not adaptive, PS jobs) are
 * allocated by the same objective, side by side, and kept or resized by
 * Optimus' rules (plan_policy_optimus.c); an adaptive job by the same
 * gain verdict, on its goodput time.
 *
 * After the decisions, each adaptive START/RESIZE gets the best batch for
 * the nodes it was placed on, and a KEEP changes its batch alone when the
 * predicted remaining time drops by the plan's threshold after what the
 * change costs (plan_gain.c): in the running job when it takes
 * changes in place (the job's re-batch time), else by a restart (a
 * RESIZE on its own slots, the restart cost, a resizable job only).
 */
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/allreduce_speed.h"
#include "plan/plan_priv.h"

/* An adaptive job of an all-reduce mode is planned by goodput's rules,
 * the others by Optimus'. */
static const plan_policy_ops_t *plan_goodput_rules(const plan_ctx_t *c,
						   size_t i)
{
	const job_model_t *m = c->jobs[i].model;

	return m->batch.adaptive && hints_is_allreduce(&m->hints) ?
	       &plan_policy_goodput : &plan_policy_optimus;
}

static bool plan_is_goodput(const plan_ctx_t *c, size_t i)
{
	return c->rules[i] == &plan_policy_goodput;
}

/*
 * The free room's servers as goodput reads them: for one worker demand,
 * the workers each server's free room holds, and the servers by that
 * count, most first. The jobs of a plan share a few demands; one sort per
 * demand, not per job (per job, it took seconds at thousands of jobs and
 * servers).
 */
typedef struct gp_free_rank {
	res_vec_t demand;
	int *held;		/* per server */
	uint32_t *by_held;	/* servers, most held first */
} gp_free_rank_t;

/* Per goodput job (NULL otherwise) the workers the servers it could use
 * hold, fullest first, added up, as far as its most workers
 * (held[k]: the k+1 fullest), and their count; the ranks by demand. */
typedef struct gp_state {
	int **held;
	int *nheld;
	gp_free_rank_t *ranks;
	size_t nranks;
} gp_state_t;

static gp_state_t *plan_goodput_state(const plan_ctx_t *c)
{
	return c->policy_state;
}

/* Workers of demand d that room r holds. */
static int plan_workers_in(res_vec_t r, res_vec_t d)
{
	double n = INFINITY;

	for (int k = 0; k < RES_NUM; k++)
		if (d.v[k] > 0.0)
			n = fmin(n, floor(r.v[k] / d.v[k] + 1e-9));
	return isfinite(n) && n > 0 ? (n > 1e6 ? 1000000 : (int)n) : 0;
}

static int plan_int_desc(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* qsort_r's context: the counts the servers are ranked by. */
static int plan_server_by_held(const void *a, const void *b, void *ctx)
{
	const int *held = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return held[x] < held[y] ? 1 : held[x] > held[y] ? -1 :
	       x < y ? -1 : x > y;
}

/* The free room's rank for demand d (made on first use); NULL: out of
 * memory. */
static const gp_free_rank_t *plan_goodput_rank(const plan_ctx_t *c,
					       gp_state_t *st, res_vec_t d)
{
	gp_free_rank_t *r, *more;

	for (size_t k = 0; k < st->nranks; k++)
		if (!memcmp(&st->ranks[k].demand, &d, sizeof(d)))
			return &st->ranks[k];
	more = realloc(st->ranks, (st->nranks + 1) * sizeof(*more));
	if (!more)
		return NULL;
	st->ranks = more;
	r = &st->ranks[st->nranks];
	r->demand = d;
	r->held = malloc((c->nservers + 1) * sizeof(*r->held));
	r->by_held = malloc((c->nservers + 1) * sizeof(*r->by_held));
	if (!r->held || !r->by_held) {
		free(r->held);
		free(r->by_held);
		return NULL;
	}
	for (size_t s = 0; s < c->nservers; s++) {
		r->held[s] = plan_workers_in(c->free0[s], d);
		r->by_held[s] = (uint32_t)s;
	}
	qsort_r(r->by_held, c->nservers, sizeof(*r->by_held),
		plan_server_by_held, r->held);
	st->nranks++;
	return r;
}

/* Is server s one of job i's, or the server closed to it? */
static bool plan_goodput_own(const plan_job_t *j, uint32_t s)
{
	if (j->has_closed && s == j->closed_server)
		return true;
	for (size_t k = 0; j->running && k < j->nslots; k++)
		if (j->slots[k].server == s)
			return true;
	return false;
}

/*
 * Job i's held[] for its most workers `most`: its servers' room (free
 * plus its own) and the free room, fullest first, the server closed to
 * it left out. Only the `most` fullest matter (each holds one worker at
 * least, until they hold none): they are the free rank's first, but for
 * the job's own servers and the closed one, counted apart.
 */
static int plan_goodput_room(plan_ctx_t *c, size_t i, int most)
{
	const plan_job_t *j = &c->jobs[i];
	gp_state_t *st = plan_goodput_state(c);
	const res_vec_t d = c->aj[i].worker_demand;
	const gp_free_rank_t *r = plan_goodput_rank(c, st, d);
	size_t mine = j->running ? j->nslots : 0, n = 0;
	size_t want = most > 0 ? (size_t)most : 1;
	int *held;

	if (!r || !(held = calloc(want + mine + 1, sizeof(*held))))
		return -ENOMEM;
	for (size_t k = 0; k < c->nservers && n < want; k++)
		if (!plan_goodput_own(j, r->by_held[k]))
			held[n++] = r->held[r->by_held[k]];
	/* each of its own servers once: the free room plus what it uses */
	for (size_t k = 0; k < mine; k++) {
		uint32_t s = j->slots[k].server;
		bool seen = j->has_closed && s == j->closed_server;
		res_vec_t room = c->free0[s];

		for (size_t q = 0; !seen && q < k; q++)
			seen = j->slots[q].server == s;
		if (seen)
			continue;
		for (size_t q = k; q < mine; q++)
			if (j->slots[q].server == s)
				room = res_add(room, plan_slot_usage(c, i, q));
		held[n++] = plan_workers_in(room, d);
	}
	qsort(held, n, sizeof(*held), plan_int_desc);
	for (size_t k = 1; k < n; k++)
		held[k] += held[k - 1];
	st->held[i] = held;
	st->nheld[i] = (int)n;
	return 0;
}

/* Nodes goodput job i would span with w workers (placement-aware). */
static int plan_goodput_nodes(const plan_ctx_t *c, size_t i, int w)
{
	const plan_job_t *j = &c->jobs[i];
	const gp_state_t *st = plan_goodput_state(c);
	const int *held = st ? st->held[i] : NULL;
	int nodes = 0;

	if (w < 1)
		return 1;
	if (j->running && w == c->cur_w[i] && j->nslots) {
		for (size_t k = 0; k < j->nslots; k++)
			nodes += j->slots[k].workers > 0;
		return nodes > 0 && nodes <= w ? nodes : 1;
	}
	for (int s = 0; held && s < st->nheld[i]; s++)
		if (held[s] >= w)
			return s + 1 <= w ? s + 1 : w;
	nodes = allreduce_min_nodes(w, c->cb[i].node_workers > 0 ?
				       c->cb[i].node_workers : 1);
	return nodes > w ? w : nodes < 1 ? 1 : nodes;
}

static double plan_goodput_rate(const plan_ctx_t *c, size_t i, int w)
{
	const job_model_t *m = c->jobs[i].model;
	int n;
	double r;

	if (w < 1)
		return 0.0;
	n = plan_goodput_nodes(c, i, w);
	r = plan_explore_speed(&c->cb[i], w, n,
			       job_model_batch_rate(m, c->prm->profiles, w, n));
	return r > 0 && isfinite(r) ? r : 0.0;
}

static double plan_goodput_speed_cb(void *ctx, int p, int w)
{
	const plan_cb_t *cb = ctx;

	(void)p;
	return plan_goodput_rate(cb->ctx, cb->i, w);
}

/* The rate of job i's current run: at the batch it runs at. */
static double plan_goodput_rate_now(const plan_ctx_t *c, size_t i)
{
	const job_model_t *m = c->jobs[i].model;
	const job_batch_t *b = &m->batch;
	int w = c->cur_w[i], n = plan_goodput_nodes(c, i, w);

	if (!b->fitted)
		return plan_goodput_rate(c, i, w);
	if (b->global > 0)
		return job_model_batch_rate_at(m, w, n, b->local, b->accum);
	return job_model_batch_rate_at(m, w, n,
				       (int)ceil(b->submitted / w - 1e-9), 0);
}

/* Remaining seconds of goodput job i with w workers (its current size:
 * at its current batch; else at the best batch for the nodes). The rate
 * at another size through the job's speed callback: its cache
 * (plan_speed_cache) holds what plan_goodput_rate gives, once a plan, as
 * the allocations ask for the same sizes the verdicts do. The same
 * value: that rate reads only the record and what the plan's set-up
 * fixed before the cache was made (the room ranked, the nodes, the
 * explored extent). */
static double plan_goodput_time(const plan_ctx_t *c, size_t i, int ps,
				int w)
{
	const alloc_job_t *a = &c->aj[i];
	double r = c->jobs[i].running && w == c->cur_w[i] ?
		   plan_goodput_rate_now(c, i) : a->speed(a->speed_ctx, ps, w);

	return r > 0 ? job_model_batch_remaining(c->jobs[i].model) / r :
		       INFINITY;
}

/*
 * A job planned on its batch fit is optimistic beyond the configurations
 * it ran: the step-time fit (goodput_fit, models/goodput.h) takes each
 * all-reduce term 0 until a sample of its kind determines it (the ring
 * within a node until the job ran on more than one GPU of a node, the
 * ring across nodes until it crossed nodes), so a size it has not run is
 * predicted without the costs it has not seen. Before its fit it is
 * planned on the record's step-time model, whose prior charges a ring
 * across nodes, and explores as any all-reduce job does.
 */
static bool plan_goodput_optimistic(const plan_ctx_t *c, size_t i)
{
	return c->jobs[i].model->batch.fitted;
}

/* Most GPUs the job can use: with its fit, its largest batch over its
 * smallest per-GPU batch; before, its submitted batch's. */
static int plan_goodput_max_workers(const job_model_t *m)
{
	const job_batch_t *b = &m->batch;
	double most = (b->fitted ? b->limits.max_batch : b->submitted) /
		      b->limits.min_local;
	int hint = (int)m->hints.max_workers;

	most = floor(most + 1e-9);
	if (most < 1)
		most = 1;
	return hint > 0 && hint < most ? hint : (int)most;
}

/*
 * Pollux's restart weighting of job i's speedup at any size but its
 * current one: max(age - restarts x R, 0) / (age + R), age the seconds
 * since its submission, R the restart cost (a change's seconds without
 * progress), restarts its runs after a run. A pending job's grant is a
 * change too (restarts 0 before its first run).
 */
static double plan_goodput_change_weight(const plan_ctx_t *c, size_t i)
{
	const job_model_t *m = c->jobs[i].model;
	double age = fmax(difftime(c->prm->now, m->first_submit), 0.0);
	double r = c->prm->restart_cost;
	double w = fmax(age - (double)m->restarts * r, 0.0) / (age + r);

	/* 0 would mean no weighting: the least weight instead */
	return w > 0.0 && isfinite(w) ? w : 1e-9;
}

/* Per goodput job: its size limit, the room it could use, its speed
 * callback and its remaining progress. */
static int plan_goodput_setup(plan_ctx_t *c)
{
	gp_state_t *st = calloc(1, sizeof(*st));

	c->policy_state = st;
	if (!st || !(st->held = calloc(c->n + 1, sizeof(*st->held))) ||
	    !(st->nheld = calloc(c->n + 1, sizeof(*st->nheld))))
		return plan_fail(c->out, -ENOMEM, "out of memory");
	for (size_t i = 0; i < c->n; i++) {
		alloc_job_t *a = &c->aj[i];
		int most;

		if (!plan_is_goodput(c, i))
			continue;
		most = plan_goodput_max_workers(c->jobs[i].model);
		if (most < alloc_min_workers(a))
			most = alloc_min_workers(a);
		if (plan_goodput_room(c, i, most))
			return plan_fail(c->out, -ENOMEM, "out of memory");
		a->max_workers = a->max_units = most;
		c->cb[i].ctx = c;
		c->cb[i].i = i;
		a->speed = plan_goodput_speed_cb;
		a->remaining_steps = job_model_batch_remaining(
			c->jobs[i].model);
		if (c->prm->goodput_objective ==
		    PLAN_GOODPUT_SPEEDUP_RESTART) {
			a->cur_workers = c->jobs[i].running ? c->cur_w[i] : 0;
			a->change_weight = plan_goodput_change_weight(c, i);
		}
	}
	return 0;
}

static void plan_goodput_free(plan_ctx_t *c)
{
	gp_state_t *st = plan_goodput_state(c);

	for (size_t i = 0; st && st->held && i < c->n; i++)
		free(st->held[i]);
	for (size_t k = 0; st && k < st->nranks; k++) {
		free(st->ranks[k].held);
		free(st->ranks[k].by_held);
	}
	if (st) {
		free(st->held);
		free(st->nheld);
		free(st->ranks);
	}
	free(st);
	c->policy_state = NULL;
}

/* Nodes with workers among a decision's slots. */
static int plan_decision_nodes(const plan_decision_t *d)
{
	int n = 0;

	for (size_t k = 0; k < d->nslots; k++)
		n += d->slots[k].workers > 0;
	return n < 1 ? 1 : n > d->workers ? d->workers : n;
}

static void plan_set_batch(plan_decision_t *d, const goodput_choice_t *g)
{
	d->batch = g->batch;
	d->local_batch = g->local;
	d->accum = g->accum;
}

/*
 * A kept adaptive job whose best batch at its size differs from the one
 * it runs at is re-batched when the gain beats the threshold after what
 * the change costs. In place (job_model_rebatch_in_place: the job takes
 * a change in the reply to its reports) it stays a KEEP with the new
 * batch, priced at the job's own re-batch time (job_model_rebatch_cost:
 * its mean, else RebatchCost), and nothing else holds it back: the run
 * goes on, no work is lost. Otherwise by a restart (a RESIZE on its own
 * slots), priced at the restart cost, when the job may be resized now.
 * While a change sent is not taken, the job keeps its batch.
 */
static void plan_rebatch(plan_ctx_t *c, size_t i, plan_decision_t *d)
{
	const job_model_t *m = c->jobs[i].model;
	const job_batch_t *b = &m->batch;
	const job_rebatch_t *sent = job_model_rebatch_open(m);
	bool in_place = job_model_rebatch_in_place(m);
	double cur = b->global > 0 ? b->global : b->submitted, left, now, thr;
	double cost;
	goodput_choice_t g;
	char why[96];

	if (sent) {
		plan_reason(d, "optimus: keeps %d workers, re-batching in "
			    "place to %.0f (sent %.0fs ago)", d->workers,
			    sent->global, difftime(c->prm->now, sent->sent));
		return;
	}
	if (!b->fitted || c->jobs[i].starting || m->phase != JM_RUNNING ||
	    d->workers < 1 ||
	    job_model_batch_for(m, d->workers, plan_decision_nodes(d), &g) ||
	    g.batch == cur || !(g.goodput > 0) ||
	    (!in_place &&
	     job_model_why_not_resizable(m, c->prm->now,
					 c->prm->min_resize_interval, why,
					 sizeof(why))))
		return;
	now = plan_goodput_rate_now(c, i);
	left = job_model_batch_remaining(m);
	if (!(now > 0))
		return;
	cost = in_place ? job_model_rebatch_cost(m, c->prm->rebatch_cost) :
	       c->prm->restart_cost;
	plan_gain(d, left / now, left / (g.goodput / b->eff.init_batch), cost);
	thr = plan_threshold(c, i, d->ps, d->workers);
	if (!(d->gain > thr)) {
		d->remaining_planned = d->remaining_now;
		d->gain = 0.0;
		return;
	}
	d->rebatch = true;
	plan_set_batch(d, &g);
	if (in_place) {
		d->in_place = true;
		c->out->nrebatch++;
		plan_reason(d, "optimus: re-batches in place to %.0f (%d x %d "
			    "GPUs x %d) (gain %.1f%%, re-batch %.1fs)",
			    g.batch, g.local, d->workers, g.accum + 1,
			    100.0 * d->gain, cost);
		return;
	}
	d->action = PLAN_RESIZE;
	c->out->nkeep--;
	c->out->nresize++;
	plan_reason(d, "optimus: re-batches to %.0f (%d x %d GPUs x %d) "
		    "(gain %.1f%%)", g.batch, g.local, d->workers, g.accum + 1,
		    100.0 * d->gain);
}

/* After the decisions: the batch of every goodput START/RESIZE, and a
 * KEEP re-batched when that pays what the change costs (in place: the
 * job's re-batch time; else a restart). */
static int plan_batches(plan_ctx_t *c)
{
	for (size_t i = 0; i < c->n; i++) {
		plan_decision_t *d = &c->out->decisions[i];
		goodput_choice_t g;

		if (!plan_is_goodput(c, i))
			continue;
		if (d->action == PLAN_KEEP) {
			plan_rebatch(c, i, d);
			continue;
		}
		if ((d->action != PLAN_START && d->action != PLAN_RESIZE) ||
		    d->workers < 1 ||
		    job_model_batch_for(c->jobs[i].model, d->workers,
					plan_decision_nodes(d), &g))
			continue;
		plan_set_batch(d, &g);
	}
	return 0;
}

/* Its rate without exploration's optimism: goodput over B0. */
static double plan_goodput_model_rate(const plan_ctx_t *c, size_t i, int w,
				      int n)
{
	return job_model_batch_rate(c->jobs[i].model, c->prm->profiles, w, n);
}

static int plan_goodput_span(const plan_ctx_t *c, size_t i, int ps, int w)
{
	(void)ps;
	return plan_goodput_nodes(c, i, w);
}

/* The objective the plan's parameters choose: the completion rate, or
 * Pollux's harmonic mean of speedups over the fair share. */
static alloc_run_fn plan_goodput_allocator(const plan_ctx_t *c)
{
	return c->prm->goodput_objective == PLAN_GOODPUT_RATE ?
	       alloc_rate_run : alloc_fair_speedup_run;
}

const plan_policy_ops_t plan_policy_goodput = {
	.name = "goodput",
	.preempt_default = true,
	.shrink_for_growth = true,
	.allocator = plan_goodput_allocator,
	.job_rules = plan_goodput_rules,
	.setup = plan_goodput_setup,
	.cleanup = plan_goodput_free,
	.after = plan_batches,
	.time = plan_goodput_time,
	.rate = plan_goodput_model_rate,
	.nodes = plan_goodput_span,
	.optimistic = plan_goodput_optimistic,
	.verdict = plan_optimus_verdict,
	.may_shrink = plan_optimus_may_shrink,
};

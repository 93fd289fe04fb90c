/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_policy_goodput.c - Policy=goodput (doc/design/planning.md "Goodput").
 *
 * An adaptive job (job_model_batch_limits) of an all-reduce mode is sized
 * by its progress rate in B0-steps per second at the best batch for the
 * GPUs and nodes (job_model_batch_rate: goodput / B0), against the
 * progress it has left in B0-steps (job_model_batch_remaining), with the
 * completion-rate greedy (alloc/rate.c) every job of the plan shares.
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

/* Per goodput job (NULL otherwise): workers the servers it could use
 * hold, fullest first, added up (held[k]: the k+1 fullest). */
static int **plan_goodput_held(const plan_ctx_t *c)
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

/* Job i's held[]: its servers' room and the free room, fullest first,
 * the server closed to it left out. */
static int plan_goodput_room(plan_ctx_t *c, size_t i)
{
	const plan_job_t *j = &c->jobs[i];
	res_vec_t *room = malloc((c->nservers + 1) * sizeof(*room));
	int *held = calloc(c->nservers + 1, sizeof(*held));

	if (!room || !held) {
		free(room);
		free(held);
		return -ENOMEM;
	}
	memcpy(room, c->free0, c->nservers * sizeof(*room));
	if (j->running)
		plan_add_servers(c, room, i);
	for (size_t s = 0; s < c->nservers; s++)
		held[s] = j->has_closed && s == j->closed_server ? 0 :
			  plan_workers_in(room[s], c->aj[i].worker_demand);
	qsort(held, c->nservers, sizeof(*held), plan_int_desc);
	for (size_t s = 1; s < c->nservers; s++)
		held[s] += held[s - 1];
	free(room);
	plan_goodput_held(c)[i] = held;
	return 0;
}

/* Nodes goodput job i would span with w workers (placement-aware). */
static int plan_goodput_nodes(const plan_ctx_t *c, size_t i, int w)
{
	const plan_job_t *j = &c->jobs[i];
	int **all = plan_goodput_held(c);
	const int *held = all ? all[i] : NULL;
	int nodes = 0;

	if (w < 1)
		return 1;
	if (j->running && w == c->cur_w[i] && j->nslots) {
		for (size_t k = 0; k < j->nslots; k++)
			nodes += j->slots[k].workers > 0;
		return nodes > 0 && nodes <= w ? nodes : 1;
	}
	for (size_t s = 0; held && s < c->nservers; s++)
		if (held[s] >= w)
			return (int)s + 1 <= w ? (int)s + 1 : w;
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
 * at its current batch; else at the best batch for the nodes). */
static double plan_goodput_time(const plan_ctx_t *c, size_t i, int ps,
				int w)
{
	double r = c->jobs[i].running && w == c->cur_w[i] ?
		   plan_goodput_rate_now(c, i) : plan_goodput_rate(c, i, w);

	(void)ps;
	return r > 0 ? job_model_batch_remaining(c->jobs[i].model) / r :
		       INFINITY;
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

/* Per goodput job: the room it could use, its speed callback, its
 * remaining progress and size limit. */
static int plan_goodput_setup(plan_ctx_t *c)
{
	c->policy_state = calloc(c->n + 1, sizeof(int *));
	if (!c->policy_state)
		return plan_fail(c->out, -ENOMEM, "out of memory");
	for (size_t i = 0; i < c->n; i++) {
		alloc_job_t *a = &c->aj[i];
		int most;

		if (!plan_is_goodput(c, i))
			continue;
		if (plan_goodput_room(c, i))
			return plan_fail(c->out, -ENOMEM, "out of memory");
		most = plan_goodput_max_workers(c->jobs[i].model);
		if (most < alloc_min_workers(a))
			most = alloc_min_workers(a);
		a->max_workers = a->max_units = most;
		c->cb[i].ctx = c;
		c->cb[i].i = i;
		a->speed = plan_goodput_speed_cb;
		a->remaining_steps = job_model_batch_remaining(
			c->jobs[i].model);
	}
	return 0;
}

static void plan_goodput_free(plan_ctx_t *c)
{
	int **held = plan_goodput_held(c);

	for (size_t i = 0; held && i < c->n; i++)
		free(held[i]);
	free(held);
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

const plan_policy_ops_t plan_policy_goodput = {
	.name = "goodput",
	.preempt_default = true,
	.allocate = alloc_rate_run,
	.job_rules = plan_goodput_rules,
	.setup = plan_goodput_setup,
	.cleanup = plan_goodput_free,
	.after = plan_batches,
	.time = plan_goodput_time,
	.rate = plan_goodput_model_rate,
	.nodes = plan_goodput_span,
	.verdict = plan_optimus_verdict,
	.may_shrink = plan_optimus_may_shrink,
};

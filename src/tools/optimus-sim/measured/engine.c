/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/engine.c - the rounds of the measured-workload simulation on
 * the one event loop (sim_engine.h), a tick every round: every job runs
 * 60 s on what it holds (its restart first), then the policy plans and
 * every job whose GPUs changed restarts (see measured/engine.h).
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "util/errmsg.h"
#include "util/grow.h"
#include "measured/engine.h"
#include "measured/policy.h"
#include "sim_apply_decision.h"
#include "sim_engine.h"

/* Stop a run that has not finished after this long: a policy that starves
 * a job forever is reported, not waited for. */
#define PX_HORIZON (60.0 * 86400.0)

px_shape_t px_shape_default(void)
{
	return (px_shape_t){ .nodes = PX_NODES, .round = PX_ROUND,
			     .start = PX_RESTART, .start_queued = 0.0,
			     .restart = PX_RESTART,
			     .min_resize = px_min_resize_for(PX_RESTART),
			     .limit_unit = 60.0, .explore_scaling = true,
			     .limit_start = -1.0, .bench_hints = false,
			     .rebatch = PLAN_REBATCH_COST_DEFAULT,
			     .rebatch_by_restart = false,
			     .goodput_objective = PLAN_GOODPUT_RATE };
}

double px_min_resize_for(double restart)
{
	return restart * (PLAN_MIN_RESIZE_INTERVAL_DEFAULT /
			  PLAN_RESTART_COST_DEFAULT);
}

int px_sim_gpus(const px_sim_t *s)
{
	return s->shape.nodes * PX_NODE_GPUS;
}

void px_sim_room(const px_sim_t *s, res_vec_t *room)
{
	for (int k = 0; k < PX_NODES; k++) {
		int g = k < s->shape.nodes ? PX_NODE_GPUS : 0;
		room[k] = res_make(g, g, g);
	}
}

/* The job's split of its batch on the GPUs it holds: the plan's (atomic
 * > 0: sim_apply_batch), else its own (its truth's). */
static void job_split(px_job_t *j, int atomic, int accum)
{
	if (atomic > 0) {
		j->atomic = atomic;
		j->accum = accum;
		return;
	}
	j->core.ops->split(j->core.data, j->bsz, px_job_gpus(j), &j->atomic,
			   &j->accum);
}

const int px_prerun[5][2] = { { 1, 1 }, { 2, 1 }, { 4, 1 }, { 8, 2 },
			       { 16, 4 } };

/* Append-only: a policy feeds its models from the ones it has not read. */
static int job_observe(px_sim_t *s, px_job_t *j, const px_obs_t *ob)
{
	px_obs_t *v;

	for (int i = 0; i < j->nobs; i++) {
		const px_obs_t *o = &j->obs[i];
		if (o->nodes == ob->nodes && o->replicas == ob->replicas &&
		    o->atomic == ob->atomic && o->accum == ob->accum)
			return 0;
	}
	if (!(v = grow_array(j->obs, &j->obs_cap, (size_t)j->nobs,
			     sizeof(*v), 8)))
		return errmsg_set(s->err, s->errlen, -ENOMEM, "%s: no memory",
				  j->spec->name);
	j->obs = v;
	j->obs[j->nobs++] = *ob;
	return 0;
}

/* The job ran `steps` steps at batch bsz in its current epoch: counted,
 * with the gradient estimates it made on the way (PX_ESTIMATE_STEPS).
 * 0 or -errno. */
static int job_ran(px_sim_t *s, px_job_t *j, double bsz, double steps)
{
	double sqr, var;
	px_estimate_t *e;
	long n;

	j->steps += steps;
	j->estimate_steps += steps;
	n = (long)floor(j->estimate_steps / PX_ESTIMATE_STEPS);
	if (n < 1)
		return 0;
	j->estimate_steps -= (double)n * PX_ESTIMATE_STEPS;
	if (j->core.ops->gradients(j->core.data, bsz, j->epoch, &sqr, &var))
		return 0;
	e = j->nestimates ? &j->estimates[j->nestimates - 1] : NULL;
	if (e && e->grad_sqr == sqr && e->grad_var == var) {
		e->count += n;
		return 0;
	}
	if (!(e = grow_array(j->estimates, &j->estimates_cap, j->nestimates,
			     sizeof(*e), 4)))
		return errmsg_set(s->err, s->errlen, -ENOMEM, "%s: no memory",
				  j->spec->name);
	j->estimates = e;
	j->estimates[j->nestimates++] = (px_estimate_t){ sqr, var, n };
	return 0;
}

size_t px_job_estimates_take(px_job_t *j, px_estimate_t **out)
{
	size_t n = j->nestimates;

	*out = n ? j->estimates : NULL;
	j->estimates = NULL;
	j->nestimates = j->estimates_cap = 0;
	return n;
}

/* Runs of equal consecutive nodes of alloc[0..n): GPUs per node. */
static int alloc_runs(const int *alloc, int n, int *place)
{
	int nplace = 0;

	for (int i = 0; i < n; i++) {
		if (i == 0 || alloc[i] != alloc[i - 1])
			place[nplace++] = 0;
		place[nplace - 1]++;
	}
	return nplace;
}

/* The charged pre-run (measured/engine.h): each configuration on the first of
 * the job's GPUs, its step time recorded as a run there. */
static int job_prerun(px_sim_t *s, px_job_t *j)
{
	const px_spec_t *sp = j->spec;
	int alloc[PX_GPUS], nalloc = px_job_gpu_nodes(j, alloc), rc = 0;

	for (size_t k = 0; k < 5 && !rc; k++) {
		int w = px_prerun[k][0], place[PX_NODES];
		px_obs_t ob = { .replicas = w };
		if (w > nalloc)
			break;
		ob.nodes = alloc_runs(alloc, w, place);
		j->core.ops->split(j->core.data, sp->bsz, w, &ob.atomic,
				   &ob.accum);
		sim_truth_run_t run = { .workers = w,
					.nnodes = (size_t)ob.nodes,
					.node_workers = place,
					.atomic = ob.atomic,
					.accum = ob.accum };
		sim_truth_sample_t m;
		if ((rc = sim_truth_measure(j->core.ops, j->core.data, &run,
					    j->epoch, &m,
					    s->err, s->errlen)))
			break;
		ob.step = m.step;
		ob.sync = m.sync;
		rc = job_observe(s, j, &ob);
	}
	return rc;
}

/*
 * Run job j for `seconds` from s->eng.now. Progress per second is its truth's
 * gain of an iteration at its batch (measured: the statistical efficiency
 * of the batch over the smallest) over the time of one iteration, its
 * step and accumulation micro-steps; epochs end at the truth's progress
 * boundaries, the job after its last counted epoch, at the rounded second
 * as in the peer's simulator.
 */
static int job_run(px_sim_t *s, px_job_t *j, double seconds)
{
	const px_spec_t *sp = j->spec;
	const sim_truth_ops_t *truth = j->core.ops;
	double t = s->eng.now;
	int reps = px_job_gpus(j);

	if (!reps || j->core.outcome.end >= 0)
		return 0;
	/* The decision's cost passes first; a later decision may cut it
	 * short (apply_taken), so it is lost as it passes. */
	double delay = fmin(j->rescale, seconds);
	j->rescale -= delay;
	sim_job_outcome_lose(&j->core.outcome, delay);
	j->core.outcome.gpu_seconds += delay * reps;
	t += delay;
	seconds -= delay;
	if (j->prerun && seconds > 0) {
		j->prerun = false;
		j->core.outcome.gpu_seconds += seconds * reps;
		return job_prerun(s, j);
	}
	while (seconds > 0 && j->core.outcome.end < 0) {
		sim_truth_run_t run = sim_hold_run(&j->core.hold);
		run.atomic = j->atomic;
		run.accum = j->accum;
		double bsz = sim_truth_run_batch(&run);
		sim_truth_sample_t m;
		int rc = sim_truth_measure(truth, j->core.data, &run,
					   j->epoch, &m, s->err, s->errlen);
		if (rc)
			return rc;
		if (!m.moves)
			return errmsg_set(s->err, s->errlen, -EDOM, "%s: no "
					  "progress per iteration at batch %g "
					  "in epoch %d", sp->name, bsz,
					  j->epoch);
		px_obs_t ob = { (int)j->core.hold.n, reps, j->atomic, j->accum,
				m.step, m.sync };
		if ((rc = job_observe(s, j, &ob)))
			return rc;
		double total = m.iteration;
		double goodput = m.rate;
		j->rate = 1.0 / total;
		j->sync = m.sync;
		double next = truth->epoch_start(j->core.data, j->epoch + 1);
		if (j->core.progress + goodput * seconds < next) {
			j->core.progress += goodput * seconds;
			if ((rc = job_ran(s, j, bsz, seconds / total)))
				return rc;
			j->core.outcome.gpu_seconds += seconds * reps;
			t += seconds;
			seconds = 0;
			break;
		}
		/* Whole seconds, half to even, as Python's round(). */
		double delta = nearbyint((next - j->core.progress) / goodput);
		if ((rc = job_ran(s, j, bsz,
				  (next - j->core.progress) / goodput / total)))
			return rc;
		j->epoch++;
		j->core.progress = next;
		if (j->epoch >= j->spec->epochs)
			j->core.outcome.end = t + delta;
		j->core.outcome.gpu_seconds += delta * reps;
		t += delta;
		seconds -= delta;
	}
	return 0;
}

/* The GPUs alloc[0..n) (a node per GPU) as a placement's slots[]: a slot
 * per run of equal consecutive nodes, each GPU a worker. How many. */
static size_t px_gpu_slots(const int *alloc, int n, place_slot_t *slots)
{
	int place[PX_GPUS], nplace = alloc_runs(alloc, n, place), g = 0;

	for (int k = 0; k < nplace; g += place[k++])
		slots[k] = (place_slot_t){ .server = (uint32_t)alloc[g],
					   .workers = place[k] };
	return (size_t)nplace;
}

/* A decision the job's record refuses leaves the job as it is. */
static int apply_refused(void *ctx, sim_apply_job_t *j, int rc,
			 const char *why)
{
	(void)ctx;
	(void)j;
	(void)rc;
	(void)why;
	return 0;
}

static int apply_no_room(void *ctx, sim_apply_job_t *j,
			 const place_slot_t *slot)
{
	px_sim_t *s = ctx;

	return errmsg_set(s->err, s->errlen, -ENOSPC, "policy placed "
			  "job %s on node %d beyond its GPUs",
			  px_job_of(j->job)->spec->name, (int)slot->server);
}

/* A trainer stopped or restarted counts its steps, its step rate and
 * its all-reduce afresh. */
static void job_restarted(px_job_t *j)
{
	j->rate = 0.0;
	j->sync = 0.0;
	j->estimate_steps = 0.0;
}

/* A preempted job, holding nothing, runs no batch split. */
static int apply_preempted(void *ctx, sim_apply_job_t *a)
{
	px_job_t *j = px_job_of(a->job);

	(void)ctx;
	job_restarted(j);
	j->atomic = j->accum = 0;
	return 0;
}

/* A start, a restart, a resize (on the GPUs it now holds) or a batch
 * change in place (on the same GPUs, its trainer running on): the batch
 * of the decision, without progress for the seconds charged, from which
 * its run's first step may come (px_job_t.began). */
static int apply_taken(void *ctx, sim_apply_job_t *a)
{
	px_sim_t *s = ctx;
	px_job_t *j = px_job_of(a->job);
	int atomic, accum;

	if (a->take != SIM_TAKE_REBATCH)
		job_restarted(j);
	j->bsz = sim_apply_batch(a->d, j->spec->bsz, &atomic, &accum);
	job_split(j, atomic, accum);
	j->rescale = a->cost;
	j->began = s->eng.now + j->rescale;
	return 0;
}

static const sim_apply_ops_t apply_ops = {
	.refused = apply_refused,
	.no_room = apply_no_room,
	.preempted = apply_preempted,
	.taken = apply_taken,
};

/* Each GPU a worker, using a GPU, a CPU and a unit of memory
 * (px_sim_room's units); the restart includes the checkpoint. */
int px_sim_apply(px_sim_t *s, const px_decision_t *dec, size_t n)
{
	sim_apply_job_t *jobs = calloc(n + 1, sizeof(*jobs));
	int rc;

	if (!jobs)
		return errmsg_set(s->err, s->errlen, -ENOMEM, "out of memory");
	for (size_t k = 0; k < n; k++) {
		px_job_t *j = &s->jobs[dec[k].job];
		jobs[k] = (sim_apply_job_t){ .d = dec[k].d, .m = dec[k].m,
			.job = &j->core, .worker = res_make(1, 1, 1) };
	}
	rc = sim_apply_decisions(jobs, n, &(sim_apply_env_t){
		.free = s->free, .nservers = PX_NODES, .costs = &s->costs,
		.now = s->eng.now, .record_now = (time_t)s->eng.now },
		&apply_ops, s);
	free(jobs);
	return rc;
}

/* A job's move to its next GPUs, as a decision (px_move_decision). */
typedef struct px_move {
	plan_decision_t d;
	place_slot_t slots[PX_GPUS];
} px_move_t;

int px_move_decision(const px_sim_t *s, size_t i, const int *a, int n,
		     plan_decision_t *d, place_slot_t *slots)
{
	const px_job_t *j = &s->jobs[i];
	int held[PX_GPUS], nheld = px_job_gpu_nodes(j, held);

	if (n == nheld && !memcmp(a, held, (size_t)n * sizeof(*a)))
		return 0;
	*d = (plan_decision_t){ .job_id = j->core.id,
		.action = !n ? PLAN_PREEMPT : nheld ? PLAN_RESIZE : PLAN_START,
		.workers = n, .slots = slots,
		.nslots = px_gpu_slots(a, n, slots) };
	return 1;
}

/*
 * The policy plans the active jobs, done jobs' GPUs given back first (a
 * policy of ours carries its decisions out itself, px_sim_apply); then
 * each job whose next GPUs differ from what it holds moves to them by the
 * same rule, as a decision no record takes, in submission order (the
 * order their start costs queue in).
 */
static int round_plan(px_sim_t *s, px_policy_t *p, size_t *active,
		      int (*next)[PX_GPUS], int *nnext, px_move_t *move,
		      px_decision_t *dec)
{
	size_t n = 0, nmove = 0;
	int rc;

	for (size_t i = 0; i < s->eng.njobs; i++) {
		px_job_t *j = &s->jobs[i];
		bool act = j->spec->submit <= s->eng.now &&
			   j->core.outcome.end < 0;
		nnext[i] = act ? px_job_gpu_nodes(j, next[i]) : 0;
		if (act)
			active[n++] = i;
	}
	if (!n)
		return 0;
	for (size_t i = 0; i < s->eng.njobs; i++)
		if (s->jobs[i].core.outcome.end >= 0)
			sim_hold_release(&s->jobs[i].core.hold, s->free);
	if ((rc = p->plan(p, s, active, n, next, nnext)))
		return rc;
	for (size_t k = 0; k < n; k++) {
		size_t i = active[k];
		if (px_move_decision(s, i, next[i], nnext[i], &move[nmove].d,
				     move[nmove].slots)) {
			dec[nmove] = (px_decision_t){ i, &move[nmove].d, NULL };
			nmove++;
		}
	}
	s->rounds++;
	return nmove ? px_sim_apply(s, dec, nmove) : 0;
}

/* What the rounds keep between their ticks: the policy, and the scratch
 * of its plans (round_plan), per job. */
typedef struct px_rounds {
	px_sim_t *s;
	px_policy_t *p;
	size_t *active;
	int (*next)[PX_GPUS];
	int *nnext;
	px_move_t *move;
	px_decision_t *dec;
} px_rounds_t;

/* The policy plans at every tick but the first (nothing ran yet). */
static int rounds_plan(void *ctx)
{
	px_rounds_t *x = ctx;

	if (!(x->s->eng.now > 0))
		return 0;
	return round_plan(x->s, x->p, x->active, x->next, x->nnext, x->move,
			  x->dec);
}

/*
 * After a tick's plan, while a job is not done: every job runs the round
 * that starts now, and a job that ends in it has its completion queued
 * at its time.
 */
static int rounds_run(void *ctx)
{
	px_rounds_t *x = ctx;
	px_sim_t *s = x->s;
	int rc = 0;

	if (s->eng.now > PX_HORIZON)
		return errmsg_set(s->err, s->errlen, -ETIMEDOUT, "%s: %zu of "
				  "%zu jobs not done after %.0f days",
				  x->p->name, s->eng.njobs - s->eng.ndone,
				  s->eng.njobs, PX_HORIZON / 86400);
	for (size_t i = 0; i < s->eng.njobs && !rc; i++) {
		px_job_t *j = &s->jobs[i];
		bool was = j->core.outcome.end >= 0;
		rc = job_run(s, j, s->shape.round);
		if (!rc && !was && j->core.outcome.end >= 0)
			rc = sim_events_push(&s->eng.q, j->core.outcome.end,
					     SIM_EV_FINISH, (uint32_t)i, 0);
	}
	return rc;
}

/* A completion queued by rounds_run is the job's one. */
static int rounds_finish(void *ctx, uint32_t job, uint32_t gen, bool *done)
{
	(void)ctx;
	(void)job;
	(void)gen;
	*done = true;
	return 0;
}

/*
 * The measured workloads' part of the loop (sim_engine.h): a tick every
 * round, and each job's completion at its time, counted before a tick of
 * the same instant. A completion rounded past the round's end (job_run:
 * epochs end at a whole second) is counted after that round's plan,
 * which already treats the job as done.
 */
static const sim_engine_ops_t rounds_ops = {
	.finish = rounds_finish,
	.plan = rounds_plan,
	.tick_end = rounds_run,
};

static int sim_loop(px_sim_t *s, px_policy_t *p)
{
	px_rounds_t x = {
		.s = s, .p = p,
		.active = calloc(s->eng.njobs, sizeof(*x.active)),
		.next = calloc(s->eng.njobs, sizeof(*x.next)),
		.nnext = calloc(s->eng.njobs, sizeof(*x.nnext)),
		.move = calloc(s->eng.njobs, sizeof(*x.move)),
		.dec = calloc(s->eng.njobs, sizeof(*x.dec)) };
	int rc = x.active && x.next && x.nnext && x.move && x.dec ? 0 :
		 -ENOMEM;

	s->eng.ctx = &x;
	if (!rc)
		rc = sim_events_push(&s->eng.q, 0.0, SIM_EV_TICK, 0, 0);
	if (!rc)
		rc = sim_engine_run(&s->eng);
	free(x.move);
	free(x.dec);
	free(x.active);
	free(x.next);
	free(x.nnext);
	return rc;
}

/* The rounds keep no integral of the GPUs held besides the jobs' own
 * GPU-seconds (job_run): the figures take their sum (held < 0). */
static int sim_result(const px_sim_t *s, px_result_t *out)
{
	int rc = sim_outcome_build(&out->run, s->jobs, s->eng.njobs,
				   sizeof(*s->jobs), px_sim_gpus(s), -1.0,
				   s->eng.now);

	out->limit = calloc(s->eng.njobs + 1, sizeof(double));
	if (!rc && !out->limit)
		rc = -ENOMEM;
	return rc;
}

/* A shape the engine can run, and every job within it. */
static int shape_check(const px_sim_t *s, const px_workload_t *w)
{
	const px_shape_t *h = &s->shape;

	if (h->nodes < 1 || h->nodes > PX_NODES || !(h->round > 0) ||
	    !(h->start >= 0) || !(h->start_queued >= 0) ||
	    !(h->restart >= 0) || !(h->min_resize >= 0) ||
	    !(h->limit_unit > 0) || !(h->rebatch >= 0))
		return errmsg_set(s->err, s->errlen, -EINVAL, "cluster: %d "
				  "nodes (1..%d), plan every %g s, start %g s "
				  "(+ %g s per start queued), restart %g s, "
				  "re-batch in place %g s, "
				  "resize interval %g s, limit unit %g s",
				  h->nodes, PX_NODES, h->round, h->start,
				  h->start_queued, h->restart, h->rebatch,
				  h->min_resize, h->limit_unit);
	for (size_t i = 0; i < w->n; i++)
		if (w->jobs[i].replicas > px_sim_gpus(s))
			return errmsg_set(s->err, s->errlen, -EINVAL, "%s: %d "
					  "GPUs asked, the cluster has %d",
					  w->jobs[i].name, w->jobs[i].replicas,
					  px_sim_gpus(s));
	return 0;
}

/* Job `id` of spec sp, submitted, neither started nor done; its truth
 * the spec's, its record none until a policy of ours plans it. */
static void job_init(px_job_t *j, const px_spec_t *sp, uint32_t id)
{
	*j = (px_job_t){ .core = { .id = id, .ops = sp->truth, .data = sp,
				   .outcome = { .submit = sp->submit,
						.start = -1.0, .end = -1.0 } },
			 .spec = sp, .bsz = sp->bsz };
}

static void job_free(px_job_t *j)
{
	job_model_free(j->core.jm);
	sim_hold_free(&j->core.hold);
	free(j->obs);
	free(j->estimates);
	j->core.jm = NULL;
}

/* The cluster of `shape` (NULL: the default) at time 0 for njobs jobs:
 * every node free, what a decision costs a job the shape's. */
static void sim_init(px_sim_t *s, const px_shape_t *shape, size_t njobs,
		     char *err, size_t errlen)
{
	*s = (px_sim_t){ .shape = shape ? *shape : px_shape_default(),
			 .err = err, .errlen = errlen };
	s->costs = (sim_start_costs_t){ .first = s->shape.start,
					.first_queued = s->shape.start_queued,
					.restart = s->shape.restart,
					.rebatch = s->shape.rebatch };
	sim_engine_init(&s->eng, &rounds_ops, NULL, njobs, s->shape.round,
			INFINITY);
	px_sim_room(s, s->free);
}

int px_sim_run(const px_workload_t *w, const px_shape_t *shape,
	       px_policy_t *p, px_result_t *out, char *err, size_t errlen)
{
	px_sim_t s;
	int rc;

	sim_init(&s, shape, w->n, err, errlen);
	memset(out, 0, sizeof(*out));
	snprintf(out->label, sizeof(out->label), "%s", p->name);
	out->oracle = p->oracle;
	s.jobs = calloc(w->n + 1, sizeof(*s.jobs));
	rc = s.jobs ? shape_check(&s, w) : -ENOMEM;
	for (size_t i = 0; !rc && i < w->n; i++) {
		const px_spec_t *sp = &w->jobs[i];
		int m = sp->truth->max_replicas(sp, sp->bsz);
		job_init(&s.jobs[i], sp, (uint32_t)i + 1);
		s.jobs[i].max_replicas = m < px_sim_gpus(&s) ? m :
					 px_sim_gpus(&s);
	}
	if (!rc)
		rc = sim_loop(&s, p);
	if (!rc)
		rc = sim_result(&s, out);
	for (size_t i = 0; !rc && i < w->n; i++)
		out->limit[i] = px_backfill_limit(p, i);
	if (p->destroy)
		p->destroy(p);
	for (size_t i = 0; s.jobs && i < w->n; i++)
		job_free(&s.jobs[i]);
	free(s.jobs);
	sim_engine_free(&s.eng);
	return rc;
}

void px_result_free(px_result_t *r)
{
	sim_outcome_free(&r->run);
	free(r->limit);
	r->limit = NULL;
}

double px_job_true_step(const px_job_t *j, int replicas)
{
	const px_spec_t *sp = j->spec;
	int place[PX_NODES], n = 0, atomic, accum;
	sim_truth_sample_t m;

	for (int left = replicas; left > 0 && n < PX_NODES; n++) {
		place[n] = left < PX_NODE_GPUS ? left : PX_NODE_GPUS;
		left -= place[n];
	}
	j->core.ops->oracle_split(j->core.data, sp->bsz, replicas, &atomic,
				  &accum);
	sim_truth_run_t run = { .workers = replicas, .nnodes = (size_t)n,
				.node_workers = place, .atomic = atomic,
				.accum = accum };
	if (sim_truth_measure(j->core.ops, j->core.data, &run, j->epoch, &m,
			      NULL, 0))
		return -1.0;
	return m.iteration;
}

/*
 * The artifact keeps NCF on one GPU under its elastic policies (Pollux and
 * its Optimus+Oracle): peer-optimus-oracle reproduces their published
 * figures to the second with this rule, not without it (5299.8 s against
 * 5301.875 s on workload 6, doc/design/simulator.md). It is the
 * application's constraint, so every policy that sizes jobs itself keeps
 * it; the fixed-size policies run a job at the size it was submitted with.
 */
int px_job_max_replicas(const px_job_t *j)
{
	return j->max_replicas > 0 ? j->max_replicas :
	       j->core.ops->max_replicas(j->core.data, j->spec->bsz);
}

int px_spec_true_runtime(const px_spec_t *spec, int replicas,
			 const px_shape_t *shape, double *out, char *err,
			 size_t errlen)
{
	px_sim_t s;
	px_job_t j;
	int alloc[PX_GPUS], rc;
	place_slot_t slots[PX_GPUS];
	plan_decision_t d;

	sim_init(&s, shape, 1, err, errlen);
	job_init(&j, spec, 1);
	s.jobs = &j;
	if (replicas < 1 || replicas > px_sim_gpus(&s))
		return errmsg_set(err, errlen, -EINVAL, "%s: %d GPUs",
				  spec->name, replicas);
	for (int g = 0; g < replicas; g++)
		alloc[g] = g / PX_NODE_GPUS;
	(void)px_move_decision(&s, 0, alloc, replicas, &d, slots);
	rc = px_sim_apply(&s, &(px_decision_t){ 0, &d, NULL }, 1);
	/* job_run stops at the job's last epoch whatever the seconds. */
	if (!rc)
		rc = job_run(&s, &j, PX_HORIZON);
	job_free(&j);
	if (rc)
		return rc;
	if (j.core.outcome.end < 0)
		return errmsg_set(err, errlen, -ETIMEDOUT, "%s: not done on "
				  "%d GPUs after %.0f days", spec->name,
				  replicas, PX_HORIZON / 86400);
	*out = j.core.outcome.end;
	return 0;
}

double px_job_remaining_steps(const px_job_t *j)
{
	const px_spec_t *sp = j->spec;
	int last = sp->epochs - 1;

	if (last <= j->epoch)
		return 1.0;
	return j->core.ops->iterations_to(j->core.data, sp->bsz, last) -
	       j->core.ops->iterations_to(j->core.data, sp->bsz, j->epoch);
}

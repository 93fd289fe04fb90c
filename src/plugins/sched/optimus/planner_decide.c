/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * planner_decide.c - plan an interval and turn the decisions into actions.
 *
 * Under the registry lock the records are translated (planner_input.c)
 * and the core decides which jobs enter the plan and how
 * (plan/plan_input.c); the plan itself (plan/plan.h, shared with
 * optimus-sim) runs without the lock; the resulting actions are plain
 * copies applied afterwards under slurmctld write locks.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "accounting.h"
#include "apply.h"
#include "optimus_conf.h"
#include "alloc/placement.h"
#include "planner.h"
#include "plan/plan_apply.h"
#include "planner_input.h"
#include "rebatch.h"
#include "registry.h"
#include "roles/roles.h"

#define COMMENT_MAX 1024

/*
 * One plan of the plugin: every registry record with its snapshot record
 * and its plan input (registry order); jobs[k] is the plan's job k, which
 * answers record which[k].
 */
typedef struct decide_ctx {
	const snapshot_t *snap;
	reg_job_t **regs;
	const snap_job_t **snaps;
	plan_input_t *in;
	place_slot_t **slots;	/* each record's current slots */
	size_t nrec;
	plan_job_t *jobs;
	size_t *which;
	size_t n;
	res_vec_t *server_free;
} decide_ctx_t;


static int add_input(reg_job_t *rj, void *arg)
{
	decide_ctx_t *c = arg;
	const snap_job_t *sj = planner_input_find(c->snap, rj->model->job_id);
	size_t i = c->nrec++;

	c->regs[i] = rj;
	c->snaps[i] = sj;
	c->slots[i] = xcalloc(sj && sj->nnodes ? sj->nnodes : 1,
			      sizeof(place_slot_t));
	planner_input_job(rj, sj, c->slots[i], &c->in[i]);
	return 0;
}

static void ctx_init(decide_ctx_t *c, const snapshot_t *snap)
{
	int cap = registry_count() + 1;

	memset(c, 0, sizeof(*c));
	c->snap = snap;
	c->regs = xcalloc(cap, sizeof(*c->regs));
	c->snaps = xcalloc(cap, sizeof(*c->snaps));
	c->in = xcalloc(cap, sizeof(*c->in));
	c->slots = xcalloc(cap, sizeof(*c->slots));
	c->jobs = xcalloc(cap, sizeof(*c->jobs));
	c->which = xcalloc(cap, sizeof(*c->which));
	c->server_free = xcalloc(snap->nnodes ? snap->nnodes : 1,
				 sizeof(res_vec_t));
	planner_input_room(snap, c->server_free);
}

static void ctx_free(decide_ctx_t *c)
{
	for (size_t i = 0; i < c->nrec; i++)
		xfree(c->slots[i]);
	xfree(c->slots);
	xfree(c->regs);
	xfree(c->snaps);
	xfree(c->in);
	xfree(c->jobs);
	xfree(c->which);
	xfree(c->server_free);
}


static char *nodes_of(const snapshot_t *snap, const plan_decision_t *d)
{
	char *list = NULL;

	for (size_t i = 0; i < d->nslots; i++)
		xstrfmtcat(list, "%s%s", i ? "," : "",
			   snap->nodes[d->slots[i].server].name);
	return list;
}

/* The node capacity that hints_size() sizes a request against. */
static hints_res_t node_shape(const snapshot_t *snap, const plan_decision_t *d)
{
	hints_res_t shape = { 0, 0, 0 };

	for (size_t i = 0; i < d->nslots; i++) {
		res_vec_t c = snap->nodes[d->slots[i].server].capacity;

		if (!i || c.v[RES_CPU] < shape.cpus)
			shape.cpus = c.v[RES_CPU];
		if (!i || c.v[RES_MEM] < shape.mem_mb)
			shape.mem_mb = c.v[RES_MEM];
		if (!i || c.v[RES_GPU] < shape.gpus)
			shape.gpus = c.v[RES_GPU];
	}
	return shape;
}

/* What Slurm will allocate on each node: max_tasks_per_node everywhere. */
static void reserve_start(reg_job_t *rj, const plan_decision_t *d,
			  const hints_request_t *req, time_t now)
{
	res_vec_t per_node = res_make(
		(double) req->max_tasks_per_node * req->cpus_per_task,
		(double) req->mem_per_node_mb, req->gpus_per_node);

	xfree(rj->start_slots);
	xfree(rj->start_usage);
	rj->nstart = d->nslots;
	rj->start_slots = xcalloc(d->nslots + 1, sizeof(*rj->start_slots));
	rj->start_usage = xcalloc(d->nslots + 1, sizeof(*rj->start_usage));
	for (size_t k = 0; k < d->nslots; k++) {
		rj->start_slots[k] = d->slots[k];
		rj->start_usage[k] = per_node;
	}
	rj->started_at = now;
	rj->start_batch = d->batch;
}

/* Was the START applied last on the nodes of decision d? */
static bool started_on_nodes_of(const reg_job_t *rj, const plan_decision_t *d)
{
	if (rj->nstart != d->nslots || rj->start_batch != d->batch)
		return false;
	for (size_t k = 0; k < d->nslots; k++)
		if (rj->start_slots[k].server != d->slots[k].server)
			return false;
	return true;
}

static void build_start(action_t *a, const decide_ctx_t *c, size_t i,
			 const plan_decision_t *d)
{
	job_model_t *m = c->regs[i]->model;
	hints_res_t shape = node_shape(c->snap, d);
	/* the batch the plan chose (adaptive jobs under Policy=goodput), for
	 * the tasks' environment (roles_env_job); 0: the submitted one */
	roles_topology_t topo = {
		.ps = d->ps, .workers = d->workers,
		.batch = d->batch > 0 ? (uint64_t) llround(d->batch) : 0,
		.local_batch = d->batch > 0 ? (uint32_t) d->local_batch : 0,
		.accum = d->batch > 0 ? (uint32_t) d->accum : 0 };
	char text[160], err[256];

	if (hints_size(&m->hints, d->ps, d->workers, &shape, d->nslots,
		       &a->req, err, sizeof(err))) {
		error("sched/optimus: JobId=%u: cannot size %d PS + %d workers on %zu nodes: %s",
		      m->job_id, d->ps, d->workers, d->nslots, err);
		a->kind = ACT_NONE;
		return;
	}
	if (roles_topology_format(&topo, text, sizeof(text)) < 0 ||
	    roles_topology_parse(text, &topo, err, sizeof(err))) {
		/* the tasks would refuse it: never start a run on it */
		error("sched/optimus: JobId=%u: planned batch %.0f (%d x %d workers x %d) is not a whole split: %s",
		      m->job_id, d->batch, d->local_batch, d->workers,
		      d->accum + 1, err);
		a->kind = ACT_NONE;
		return;
	}
	a->nodes = nodes_of(c->snap, d);
	if (!c->snaps[i]->held && m->plan_ps == d->ps &&
	    m->plan_workers == d->workers &&
	    started_on_nodes_of(c->regs[i], d)) {
		/* Released with this very plan already: Slurm starts it as
		 * soon as the nodes are free. */
		a->kind = ACT_NONE;
		return;
	}
	a->kind = ACT_START;
	a->topology = xstrdup(text);
	reserve_start(c->regs[i], d, &a->req, c->snap->taken);
	(void)plan_apply(m, d, c->snap->taken, NULL, 0);
}

/* A resize at the same size, elsewhere: said once in slurmctld.log. */
static void move_off_straggler(action_t *a, const job_model_t *m)
{
	info("sched/optimus: JobId=%u: moves off straggler node %s (%.1fx slower): checkpoint, requeue, restart with %d+%d on other nodes",
	     m->job_id, m->avoid_node, m->avoid_slowdown, m->plan_ps,
	     m->plan_workers);
	if (!optimus_conf.straggler_drain)
		return;
	a->drain_node = xstrdup(m->avoid_node);
	a->drain_reason = xstrdup_printf("optimus: straggler of JobId=%u, %.1fx slower than the median worker",
					 m->job_id, m->avoid_slowdown);
}

static void build_resize(action_t *a, const decide_ctx_t *c, size_t i,
			  const plan_decision_t *d)
{
	job_model_t *m = c->regs[i]->model;

	a->kind = ACT_SIGNAL;
	a->signal = m->hints.ckpt_signal;
	(void)plan_apply(m, d, c->snap->taken, NULL, 0);
	if (d->moves_off_straggler) {
		move_off_straggler(a, m);
		return;
	}
	if (d->batch > 0)
		info("sched/optimus: JobId=%u: resize %d+%d -> %d+%d at batch %.0f -> %.0f (%d x %d x %d; predicted %.0fs -> %.0fs, gain %.0f%%)",
		     m->job_id, m->cur_ps, m->cur_workers, d->ps, d->workers,
		     job_model_batch_global(m),
		     d->batch, d->local_batch,
		     d->workers, d->accum + 1, d->remaining_now,
		     d->remaining_planned, 100.0 * d->gain);
	else
		info("sched/optimus: JobId=%u: resize %d+%d -> %d+%d (predicted %.0fs -> %.0fs, gain %.0f%%)",
		     m->job_id, m->cur_ps, m->cur_workers, d->ps, d->workers,
		     d->remaining_now, d->remaining_planned, 100.0 * d->gain);
}

/*
 * The plan takes a running job's GPUs for waiting ones (its rule:
 * plan/plan_preempt.c): the checkpoint signal of a resize, then the
 * requeue (planner_requeue.c); the job is then pending like any other. The
 * record refuses a job that cannot checkpoint (plan_apply): the signal
 * would kill it, its work lost.
 */
static void build_preempt(action_t *a, const decide_ctx_t *c, size_t i,
			  const plan_decision_t *d)
{
	job_model_t *m = c->regs[i]->model;
	const char *why = strncmp(d->reason, "optimus: ", 9) ? d->reason :
			  d->reason + 9;
	char no[256];

	if (plan_apply(m, d, c->snap->taken, no, sizeof(no))) {
		error("sched/optimus: JobId=%u: preemption refused: %s",
		      m->job_id, no);
		a->kind = ACT_NONE;
		return;
	}
	a->kind = ACT_SIGNAL;
	a->signal = m->hints.ckpt_signal;
	a->preempt = true;
	registry_stats()->preemptions++;
	info("sched/optimus: JobId=%u %s: checkpoint signal, requeue at optimus' gate, planned again as pending (%d+%d held, preemption %u)",
	     m->job_id, why, m->cur_ps, m->cur_workers, m->preemptions);
}

static void build_action(action_t *a, decide_ctx_t *c, size_t i,
			const plan_decision_t *d)
{
	reg_job_t *rj = c->regs[i];
	char comment[COMMENT_MAX];

	a->job_id = rj->model->job_id;
	if (d->action != rj->last.action || strcmp(d->reason, rj->last.reason))
		debug("sched/optimus: JobId=%u: %s %d+%d (remaining %.0fs now, %.0fs planned, gain %.1f%%) %s",
		      a->job_id, plan_action_name(d->action), d->ps,
		      d->workers, d->remaining_now, d->remaining_planned,
		      100.0 * d->gain, d->reason);
	rj->last = *d;
	rj->last.slots = NULL;
	rj->last.nslots = 0;
	switch (d->action) {
	case PLAN_START:
		build_start(a, c, i, d);
		break;
	case PLAN_RESIZE:
		build_resize(a, c, i, d);
		break;
	case PLAN_PREEMPT:
		build_preempt(a, c, i, d);
		break;
	case PLAN_WAIT:
		a->kind = ACT_WAIT;
		a->reason = xstrdup(d->reason[0] ? d->reason :
				    "optimus: waiting for the next plan");
		break;
	case PLAN_KEEP:
		a->kind = ACT_NONE;
		if (d->in_place)
			rebatch_send(rj, d);
		break;
	}
	job_model_summary(rj->model, registry_profiles(), comment,
			  sizeof(comment));
	a->comment = xstrdup(comment);
}

/*
 * Jobs outside the plan still get their SystemComment refreshed. A pending
 * job that something else holds (its owner's hold, a requeuehold, a
 * dependency) is not planned, and is kept at optimus' gate meanwhile
 * (ACT_WAIT closes it; a hold is never touched): else, released after
 * Slurm's delay after a requeue ran out, Slurm would start it at once,
 * outside the plan.
 */
static int comment_unplanned(reg_job_t *rj, void *arg)
{
	struct action_list *list = arg;
	job_model_t *m = rj->model;
	char comment[COMMENT_MAX];
	bool held = rj->blocked && !rj->at_gate &&
		    (m->phase == JM_PENDING || m->phase == JM_REQUEUED);
	action_t *a;

	if (list->n >= list->cap || (m->phase == JM_DONE && rj->accounted))
		return 0;
	if (m->phase != JM_DONE && m->phase != JM_CHECKPOINTING && !held)
		return 0;
	a = &list->acts[list->n++];
	a->job_id = m->job_id;
	a->kind = held ? ACT_WAIT : ACT_NONE;
	job_model_summary(m, registry_profiles(), comment, sizeof(comment));
	a->comment = xstrdup(comment);
	if (m->phase == JM_DONE) {
		a->account = true;
		rj->accounted = true;
	}
	return 0;
}

/* The plan's figures for the metrics query (registry lock held). */
static void count_plan(metrics_sched_t *s, int rc, size_t njobs,
		       const plan_t *plan)
{
	s->plans++;
	if (rc) {
		s->plan_failures++;
		return;
	}
	s->planned_jobs += njobs;
	s->plan_jobs = njobs;
	s->plan_decisions[METRICS_START] = plan->nstart;
	s->plan_decisions[METRICS_RESIZE] = plan->nresize;
	s->plan_decisions[METRICS_KEEP] = plan->nkeep;
	s->plan_decisions[METRICS_WAIT] = plan->nwait;
	s->plan_decisions[METRICS_PREEMPT] = plan->npreempt;
}

extern void planner_plan(const snapshot_t *snap)
{
	decide_ctx_t c;
	plan_params_t conf, prm;
	plan_t plan = { 0 };
	struct action_list list;
	action_t *acts;
	int rc;

	registry_lock();
	ctx_init(&c, snap);
	registry_for_each(add_input, &c);
	optimus_conf_publish(registry_profiles());
	optimus_conf_plan(&conf, registry_profiles());
	c.n = plan_interval_prepare(c.in, c.nrec, snap->taken, c.server_free,
				    (size_t) snap->nnodes, &conf,
				    planner_input_server_of,
				    (void *) snap, c.jobs,
				    c.which, &prm);
	/* This thread is the registry's only writer (registry.h): the models
	 * stay as collected while the plan reads them, and queries need not
	 * wait for the plan. */
	registry_unlock();
	rc = plan_run(c.jobs, c.n, c.server_free, snap->nnodes, &prm, &plan);
	registry_lock();
	list.cap = c.n + registry_count() + 1;
	acts = xcalloc(list.cap, sizeof(*acts));
	list.acts = acts;
	list.n = 0;
	count_plan(registry_stats(), rc, c.n, &plan);
	if (rc) {
		error("sched/optimus: planning failed: %s", plan.err);
	} else {
		for (size_t k = 0; k < c.n; k++)
			build_action(&acts[list.n++], &c, c.which[k],
				     &plan.decisions[k]);
		registry_set_plan_json(plan_to_json(&plan));
		debug("sched/optimus: plan: %zu start, %zu resize, %zu keep, %zu wait, %zu preempt (%.1f ms)",
		      plan.nstart, plan.nresize, plan.nkeep, plan.nwait,
		      plan.npreempt,
		      1e3 * (plan.alloc_seconds + plan.place_seconds));
	}
	registry_for_each(comment_unplanned, &list);
	plan_free(&plan);
	ctx_free(&c);
	registry_unlock();

	apply_actions(acts, list.n);	/* slurmctld write locks */
	accounting_queue_ended(acts, list.n);	/* to the accounting thread */
	for (int i = 0; i < list.n; i++)
		action_free_members(&acts[i]);
	xfree(acts);
}

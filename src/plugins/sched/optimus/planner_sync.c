/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * planner_sync.c - follow the optimus jobs seen in a snapshot: new jobs get
 * a model; starts, requeues and completions update it.
 */
#include "config.h"

#include <string.h>

#include "src/common/log.h"
#include "src/common/xmalloc.h"

#include "planner.h"
#include "planner_input.h"
#include "rebatch.h"
#include "registry.h"
#include "roles/roles.h"
#include "util/escape.h"

/* A job missing from slurmctld this long is forgotten (purged by Slurm). */
#define FORGET_AFTER 600

/* adaptive_batch=yes: the record chooses the batch within the hints'
 * limits (job/job_batch.c). */
static void enable_adaptive_batch(job_model_t *m)
{
	goodput_limits_t lim;
	char err[256];

	if (!m->hints.adaptive_batch || hints_batch_limits(&m->hints, &lim))
		return;
	if (job_model_batch_limits(m, (double) m->hints.batch, &lim, err,
				   sizeof(err)))
		error("sched/optimus: JobId=%u: batch kept as submitted: %s",
		      m->job_id, err);
}

static void track_new_job(const snap_job_t *sj, time_t now)
{
	optimus_hints_t hints;
	char err[256], shown[1024];
	job_model_t *m;
	reg_job_t *rj;

	/* the user's text, by the one rule (escape.h): no raw byte of it
	 * reaches the admin's log */
	str_escape(sj->hints, strlen(sj->hints), shown, sizeof(shown));

	if (hints_parse(sj->hints, &hints, err, sizeof(err))) {
		/* job_submit/optimus refuses these; a job submitted before
		 * it was enabled is left to Slurm's own scheduling. */
		error("sched/optimus: JobId=%u: ignoring invalid hints '%s': %s",
		      sj->job_id, shown, err);
		return;
	}
	m = job_model_new(sj->job_id, sj->uid, &hints, sj->submit);
	if (!m || !(rj = registry_add(m))) {
		error("sched/optimus: JobId=%u: cannot track the job", sj->job_id);
		job_model_free(m);
		return;
	}
	enable_adaptive_batch(m);
	rj->restart_cnt = sj->restart_cnt;
	rj->blocked = sj->blocked;
	rj->at_gate = sj->held;
	rj->last_seen = now;
	info("sched/optimus: tracking JobId=%u (%s)", sj->job_id, shown);
}

/*
 * The size a run is recorded at: the topology its tasks were started with
 * (OPTIMUS_TOPOLOGY in its SPANK environment, which spank/optimus reads),
 * for every mode and layout. Neither the plan nor the hints' minimum is
 * what ran: an all-reduce job's plan has 0 PS, which a fallback to the plan
 * would take for "no plan" and record min_workers. Only when the
 * topology is missing or unreadable is the plan (else the minimum) taken,
 * with an error.
 */
static roles_topology_t run_topology(const job_model_t *m,
				     const snap_job_t *sj)
{
	roles_topology_t t = { .ps = (uint32_t) m->plan_ps,
			       .workers = (uint32_t) m->plan_workers };
	char err[128] = "not in the job's environment", shown[256] = "";

	if (sj->topology &&
	    !roles_topology_parse(sj->topology, &t, err, sizeof(err)))
		return t;
	if (m->plan_workers < 1) {
		t.ps = (uint32_t) m->hints.min_ps;
		t.workers = (uint32_t) m->hints.min_workers;
	}
	error("sched/optimus: JobId=%u: unreadable topology '%s' (%s): taking %u PS + %u workers",
	      sj->job_id, sj->topology ?
	      str_escape(sj->topology, strlen(sj->topology), shown,
			 sizeof(shown)) : "", err, t.ps, t.workers);
	return t;
}

/*
 * The batch the run's tasks were given (roles_env_job): the topology's,
 * else the submitted batch over its workers. The record's step samples
 * are taken at it.
 */
static void note_run_batch(job_model_t *m, const roles_topology_t *t)
{
	hints_batch_t b = { t->batch, t->local_batch, t->accum };

	if (!b.batch && hints_batch_split(&m->hints, t->workers, &b, NULL, 0))
		return;
	if (job_model_batch_run(m, (double) b.batch, (int) b.local,
				(int) b.accum))
		error("sched/optimus: JobId=%u: run batch %llu (%u x %u) refused by the record",
		      m->job_id, (unsigned long long) b.batch, b.local,
		      b.accum);
}

/*
 * A running job found without a record (the state file was lost, corrupt
 * or unreadable): its real size is the topology the planner gave it at
 * start, never the minimum of its hints, and it is not resized before it
 * reports again.
 */
static void adopt_running(reg_job_t *rj, const snap_job_t *sj, time_t now)
{
	job_model_t *m = rj->model;
	roles_topology_t t = run_topology(m, sj);

	job_model_adopted(m, sj->start, now, t.ps, t.workers, sj->nnodes);
	note_run_batch(m, &t);
	info("sched/optimus: JobId=%u found running without a record: adopted at %u PS + %u workers, no resize before it reports",
	     sj->job_id, t.ps, t.workers);
}

/*
 * Slurm ran the START applied last: its reservation (planner_decide.c
 * reserve_start) is over. Kept, it came back when the run was requeued
 * within PLAN_START_RESERVED_SECONDS of that START: a preempted job's
 * nodes stayed reserved for it, not given to the job it was preempted for.
 */
static void end_start_reservation(reg_job_t *rj)
{
	xfree(rj->start_slots);
	xfree(rj->start_usage);
	rj->nstart = 0;
}

/*
 * The job runs: close a resize and record the run's topology. A job the
 * planner released always has a plan of at least one worker (an
 * all-reduce plan has 0 PS, so plan_ps says nothing): only a job that
 * never ran and was never planned here is a stranger to adopt (adopting
 * any other would block its resizes for MinResizeInterval).
 */
static void note_running(reg_job_t *rj, const snap_job_t *sj, time_t now)
{
	job_model_t *m = rj->model;
	roles_topology_t t;

	if (m->phase == JM_RUNNING || m->phase == JM_CHECKPOINTING)
		return;
	end_start_reservation(rj);
	if (m->phase == JM_PENDING && m->plan_workers < 1 && !m->nruns) {
		adopt_running(rj, sj, now);
		rj->checkpoint_acked = false;
		return;
	}
	t = run_topology(m, sj);
	if (m->resize_began)
		info("sched/optimus: JobId=%u resized to %u PS + %u workers%s in %.0fs (checkpoint signal to restart)",
		     sj->job_id, t.ps, t.workers,
		     t.batch ? " at its planned batch" : "",
		     difftime(sj->start, m->resize_began));
	/* Starts timing the restart: the run's first report adds the time
	 * since resize_began to resize_seconds (job_model.h). */
	job_model_started(m, sj->start, t.ps, t.workers, sj->nnodes);
	note_run_batch(m, &t);
	rj->checkpoint_acked = false;
}

/*
 * Back to pending while the record says it runs or checkpoints: Slurm
 * requeued it itself (ours set the record to requeued before the request,
 * planner_requeue.c): a node failed under it, or an admin's requeue. A
 * resize under way is abandoned, never requeued a second time, and the
 * restart is not the plan's.
 */
static void note_pending(reg_job_t *rj, const snap_job_t *sj, time_t now)
{
	job_model_t *m = rj->model;

	if (m->phase == JM_DONE) {
		/* A finished job requeued (its owner's scontrol requeue):
		 * a new pending run, planned like any pending job; its end
		 * is accounted again when it ends again. */
		info("sched/optimus: JobId=%u requeued after it ended (restart %u): a new pending run, planned as any pending job",
		     sj->job_id, sj->restart_cnt);
		job_model_rerun(m, now);
		rj->accounted = false;
		rj->account_tries = 0;
		rj->checkpoint_acked = false;
		return;
	}
	if (m->phase != JM_RUNNING && m->phase != JM_CHECKPOINTING)
		return;
	info("sched/optimus: JobId=%u requeued by Slurm (restart %u, not a resize%s): resumes from its checkpoint of step %.0f",
	     sj->job_id, sj->restart_cnt,
	     m->phase == JM_CHECKPOINTING ? "; the resize under way is abandoned" : "",
	     m->ckpt_confirmed ? m->ckpt_step : 0.0);
	job_model_lost_run(m, now);
	rj->checkpoint_acked = false;
}

/*
 * A run that started and ended between two snapshots (a job of a few
 * hundred ms; the planner looks about once a second): recorded from
 * Slurm's finished record, its start and its nodes, so that the job's
 * record says it ran, at what size and batch. A job cancelled while
 * pending has no resources (ran_nodes 0) and no run.
 */
static void note_unseen_run(reg_job_t *rj, const snap_job_t *sj)
{
	job_model_t *m = rj->model;
	roles_topology_t t;

	if ((m->phase != JM_PENDING && m->phase != JM_REQUEUED) ||
	    sj->ran_nodes < 1 || !sj->start)
		return;
	t = run_topology(m, sj);
	job_model_started(m, sj->start, t.ps, t.workers, sj->ran_nodes);
	note_run_batch(m, &t);
	debug("sched/optimus: JobId=%u ran and ended between two plans: its run of %u PS + %u workers on %d nodes recorded from Slurm's record",
	      sj->job_id, t.ps, t.workers, sj->ran_nodes);
}

static void note_finished(reg_job_t *rj, const snap_job_t *sj)
{
	job_model_t *m = rj->model;

	if (m->phase == JM_DONE)
		return;
	note_unseen_run(rj, sj);
	job_model_done(m, sj->end ? sj->end : time(NULL));
	if (sj->failed[0]) {
		job_model_failed(m, sj->failed);
		info("sched/optimus: JobId=%u ended %s", sj->job_id,
		     sj->failed);
	}
	if (m->hints.model[0] && m->speed.nsamples)
		(void) speed_profiles_merge(registry_profiles(), m->uid,
					    m->hints.model, &m->speed);
	info("sched/optimus: JobId=%u done: completion time %.0fs from first submission, %u resizes costing %.0fs",
	     sj->job_id, difftime(m->end_time, m->first_submit), m->restarts,
	     m->resize_seconds);
}

/*
 * The straggler's node a record names (from the saved state), gone from
 * slurm.conf: a node removed while slurmctld was down. Nothing to close to
 * the job or drain any more; said once, the rest of the record kept.
 */
static void forget_vanished_node(reg_job_t *rj, const snapshot_t *snap)
{
	job_model_t *m = rj->model;
	uint32_t server;

	if (!m->avoid_node[0] ||
	    !planner_input_server_of((void *) snap, m->avoid_node, &server))
		return;
	error("sched/optimus: JobId=%u: its straggler's node %s is not in slurm.conf (removed?): forgotten, the rest of the record kept",
	      rj->job_id, m->avoid_node);
	m->avoid_node[0] = '\0';
	m->avoid_slowdown = 0;
}

/* Follow one job; true when the change calls for a plan now. */
static bool sync_job(const snap_job_t *sj, const snapshot_t *snap, time_t now)
{
	reg_job_t *rj = registry_find(sj->job_id);
	job_phase_t before;

	if (!rj) {
		if (sj->state == SNAP_FINISHED)
			return false;	/* ended before we ever saw it */
		track_new_job(sj, now);
		return registry_find(sj->job_id) != NULL;
	}
	before = rj->model->phase;
	rj->last_seen = now;
	forget_vanished_node(rj, snap);
	switch (sj->state) {
	case SNAP_RUNNING:
		note_running(rj, sj, now);
		break;
	case SNAP_PENDING:
		note_pending(rj, sj, now);
		break;
	case SNAP_COMPLETING:
		/* A requeue passes through completing: wait for pending. */
		break;
	case SNAP_FINISHED:
		note_finished(rj, sj);
		break;
	}
	rj->restart_cnt = sj->restart_cnt;
	rj->at_gate = sj->held;
	/* A release, a dependency met, a begin time reached: plan it now. */
	if (rj->blocked != sj->blocked) {
		rj->blocked = sj->blocked;
		if (!sj->blocked)
			return true;
	}
	/* A batch change not taken in place: the plan re-batches it by a
	 * restart now, if that still pays. */
	if (rebatch_expire(rj, now))
		return true;
	return rj->model->phase != before &&
	       (rj->model->phase == JM_DONE || rj->model->phase == JM_REQUEUED);
}

struct forget_arg {
	time_t now;
	uint32_t *ids;
	int n;
};

static int collect_forgotten(reg_job_t *rj, void *arg)
{
	struct forget_arg *f = arg;

	if (f->now - rj->last_seen > FORGET_AFTER)
		f->ids[f->n++] = rj->model->job_id;
	return 0;
}

extern bool planner_sync(const snapshot_t *snap)
{
	struct forget_arg f = { .now = snap->taken };
	bool changed = false;

	for (int i = 0; i < snap->njobs; i++)
		changed |= sync_job(&snap->jobs[i], snap, snap->taken);

	f.ids = xcalloc(registry_count() + 1, sizeof(uint32_t));
	registry_for_each(collect_forgotten, &f);
	for (int i = 0; i < f.n; i++) {
		debug("sched/optimus: forgetting JobId=%u (purged)", f.ids[i]);
		registry_remove(f.ids[i]);
	}
	xfree(f.ids);
	return changed;
}

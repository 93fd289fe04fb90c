/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * apply.c - carry a plan's decisions out in slurmctld.
 */
#include "config.h"

#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/slurm_protocol_defs.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "apply.h"
#include "gate.h"
#include "job_env.h"
#include "job_limits.h"
#include "lock_hold.h"
#include "sized_request.h"
#include "roles/roles.h"

/* One update_job() of the job's description d, by uid. */
static int update_as(job_desc_msg_t *d, uid_t uid)
{
	slurm_msg_t msg;

	slurm_msg_t_init(&msg);
	msg.data = d;
	return update_job(&msg, uid, false);
}

/*
 * The planned size goes to Slurm as the job's owner asking for it: Slurm
 * then holds the job to the owner's association, QOS and partition limits
 * when it starts it, as it does any request of theirs. Given by SlurmUser,
 * an operator, the update would mark the job's CPU, node and memory limits
 * as set by an operator (ADMIN_SET_LIMIT), which those checks skip: the
 * plan's size would pass every limit. ntasks_per_node is the one field
 * job_mgr.c takes only from an operator on a pending job: it goes first,
 * alone, as SlurmUser (it sets no limit and counts no TRES), so that the
 * owner's update, which counts the TRES, sees it in place.
 */
static int update_pending(job_record_t *job, action_t *a)
{
	job_desc_msg_t desc, tasks;
	int rc = SLURM_SUCCESS;

	slurm_init_job_desc_msg(&desc);
	desc.job_id = a->job_id;
	sized_request_write(&desc, &a->req, true);
	desc.req_nodes = a->nodes;
	if (desc.ntasks_per_node != NO_VAL16) {
		slurm_init_job_desc_msg(&tasks);
		tasks.job_id = a->job_id;
		tasks.ntasks_per_node = desc.ntasks_per_node;
		desc.ntasks_per_node = NO_VAL16;
		rc = update_as(&tasks, slurm_conf.slurm_user_id);
	}
	if (rc == SLURM_SUCCESS)
		rc = update_as(&desc, job->user_id);
	if (rc == SLURM_SUCCESS)
		job_limits_as_owner(job);
	desc.req_nodes = NULL;		/* not ours to free */
	xfree(desc.tres_per_node);
	return rc;
}

static int act_start(job_record_t *job, action_t *a)
{
	int rc;

	if (!IS_JOB_PENDING(job))
		return ESLURM_JOB_NOT_PENDING;
	job_env_set(job, ROLES_TOPOLOGY_ENV, a->topology);
	rc = update_pending(job, a);
	if (rc == SLURM_SUCCESS)
		gate_open(job, time(NULL));
	if (rc != SLURM_SUCCESS)
		error("sched/optimus: JobId=%u: cannot start with %u tasks on %s (update as its owner uid %u): %s",
		      a->job_id, a->req.tasks, a->nodes, job->user_id,
		      slurm_strerror(rc));
	else
		info("sched/optimus: JobId=%u planned: %s on %s (%u nodes, %u tasks x %u cpus, %"PRIu64"MB/node, %u gpus/node)",
		     a->job_id, a->topology, a->nodes, a->req.nodes,
		     a->req.tasks, a->req.cpus_per_task,
		     a->req.mem_per_node_mb, a->req.gpus_per_node);
	return rc;
}

static int act_wait(job_record_t *job, action_t *a)
{
	if (!IS_JOB_PENDING(job))
		return ESLURM_JOB_NOT_PENDING;
	/* Released earlier but not started (or requeued by someone else):
	 * close the gate again so that backfill does not start it on other
	 * nodes than planned. Never touches a hold. */
	gate_close(job, time(NULL), 0);
	/*
	 * The job's reason is left to Slurm: BeginTime at the gate, or its
	 * own (a hold, a dependency). Setting optimus' reason as state_desc
	 * would make squeue flip: Slurm's scheduler clears state_desc of
	 * a job whose begin time is ahead at its next pass, and each plan would
	 * set it again. The planner's reason is in the SystemComment
	 * ("waiting: ...", set_comment()), which nothing else clears.
	 * A reason left from an attempt to start it before the gate closed
	 * (Resources, Priority) is what Slurm's next pass turns into
	 * BeginTime: said now, so that squeue does not show it in between.
	 */
	if (job->priority != 0 &&
	    (job->state_reason == WAIT_RESOURCES ||
	     job->state_reason == WAIT_PRIORITY ||
	     job->state_reason == WAIT_NO_REASON)) {
		job->state_reason = WAIT_TIME;
		xfree(job->state_desc);
	}
	return SLURM_SUCCESS;
}

static int act_signal(job_record_t *job, action_t *a)
{
	int rc = job_signal_id(a->job_id, a->signal, KILL_FULL_JOB,
			       slurm_conf.slurm_user_id, false);

	if (rc != SLURM_SUCCESS)
		error("sched/optimus: JobId=%u: cannot send checkpoint signal %d: %s",
		      a->job_id, a->signal, slurm_strerror(rc));
	else
		info("sched/optimus: JobId=%u: checkpoint signal %d sent for a %s",
		     a->job_id, a->signal, a->preempt ? "preemption" : "resize");
	return rc;
}

static int act_requeue(job_record_t *job, action_t *a)
{
	/* No JOB_REQUEUE_HOLD: that is a user hold (priority 0), which only
	 * a release clears. optimus' gate keeps the job for the plan that
	 * resizes it (a preempted job: the plan that starts it again, as any
	 * pending job); Slurm's delay of a requeued job (its begin time,
	 * which the closed gate replaces) is kept for when the gate opens. */
	time_t now = time(NULL);
	int rc = job_requeue(slurm_conf.slurm_user_id, a->job_id, NULL, false,
			     0);

	if (rc == SLURM_SUCCESS)
		gate_close(job, now, now + gate_requeue_delay());

	if (rc != SLURM_SUCCESS)
		error("sched/optimus: JobId=%u: requeue for a %s failed: %s",
		      a->job_id, a->preempt ? "preemption" : "resize",
		      slurm_strerror(rc));
	else
		info("sched/optimus: JobId=%u requeued (held) for a %s",
		     a->job_id, a->preempt ? "preemption" : "resize");
	return rc;
}

/* StragglerDrain=yes: the straggler's node is drained for the admin. */
static void drain_straggler_node(action_t *a)
{
	int rc = drain_nodes(a->drain_node, a->drain_reason,
			     slurm_conf.slurm_user_id);

	if (rc != SLURM_SUCCESS)
		error("sched/optimus: JobId=%u: cannot drain straggler node %s: %s",
		      a->job_id, a->drain_node, slurm_strerror(rc));
	else
		info("sched/optimus: JobId=%u: node %s drained: %s",
		     a->job_id, a->drain_node, a->drain_reason);
}

/*
 * The SystemComment; a waiting job's reason goes there too: Slurm shows
 * Reason=BeginTime for a job at optimus' gate (it clears any state_desc of
 * a job whose begin time is ahead), or its own reason for a hold. Why the
 * plan last stopped the job (for which job, by which rule) is in the
 * comment itself (job_model_summary), so every plan's comment says it.
 */
static void set_comment(job_record_t *job, action_t *a)
{
	const char *why = !a->reason ? NULL :
			  xstrncmp(a->reason, "optimus: ", 9) ? a->reason :
			  a->reason + 9;
	char *text;

	if (!a->comment)
		return;
	if (a->kind == ACT_WAIT && why)
		text = xstrdup_printf("%s waiting: %s", a->comment, why);
	else
		text = xstrdup(a->comment);
	if (!xstrcmp(job->system_comment, text)) {
		xfree(text);
		return;
	}
	xfree(job->system_comment);
	job->system_comment = text;
}

static void apply_one(action_t *a)
{
	job_record_t *job = find_job_record(a->job_id);

	if (!job) {
		a->rc = ESLURM_INVALID_JOB_ID;
		return;
	}
	switch (a->kind) {
	case ACT_START:
		a->rc = act_start(job, a);
		break;
	case ACT_WAIT:
		a->rc = act_wait(job, a);
		break;
	case ACT_SIGNAL:
		a->rc = act_signal(job, a);
		break;
	case ACT_REQUEUE:
		a->rc = act_requeue(job, a);
		break;
	case ACT_NONE:
		a->rc = SLURM_SUCCESS;
		break;
	}
	if (a->drain_node && a->rc == SLURM_SUCCESS)
		drain_straggler_node(a);
	set_comment(job, a);
	last_job_update = time(NULL);
}

extern void apply_actions(action_t *acts, int n)
{
	slurmctld_lock_t write_lock = {
		.conf = READ_LOCK, .job = WRITE_LOCK, .node = WRITE_LOCK,
		.part = READ_LOCK, .fed = READ_LOCK };
	bool started = false;
	struct timespec held;

	if (n <= 0)
		return;
	lock_slurmctld(write_lock);
	lock_hold_begin(&held);
	for (int i = 0; i < n; i++) {
		apply_one(&acts[i]);
		started |= acts[i].kind == ACT_START && !acts[i].rc;
	}
	lock_hold_end(LOCK_SITE_APPLY, &held);
	unlock_slurmctld(write_lock);
	if (started)
		queue_job_scheduler();	/* start released jobs soon */
}

extern void action_free_members(action_t *a)
{
	xfree(a->nodes);
	xfree(a->topology);
	xfree(a->reason);
	xfree(a->comment);
	xfree(a->drain_node);
	xfree(a->drain_reason);
}

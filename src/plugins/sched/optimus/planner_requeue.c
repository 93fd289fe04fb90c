/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * planner_requeue.c - what follows a resize or a preemption the plan
 * decided: once the job's checkpoint is confirmed (planner_reports.c, by
 * the core's feed) or its grace has run out (the record's rule,
 * job_model_requeue_due), the job is requeued at optimus' gate and its
 * record's run ends (job_model_requeued); the checkpoint metrics count
 * which of the two it was.
 */
#include "config.h"

#include <time.h>

#include "src/common/xmalloc.h"

#include "apply.h"
#include "planner.h"
#include "registry.h"

/* Requeue the jobs whose checkpoint is confirmed or whose grace ran out
 * (a resize's or a preemption's). */
static int collect_requeue(reg_job_t *rj, void *arg)
{
	struct action_list *list = arg;
	job_model_t *m = rj->model;
	metrics_sched_t *s = registry_stats();
	time_t now = time(NULL), signalled = job_model_signalled(m);

	if (list->n >= list->cap ||
	    !job_model_requeue_due(m, rj->checkpoint_acked, now))
		return 0;
	if (rj->checkpoint_acked)
		s->ckpt_confirmed++;
	else
		s->ckpt_expired++;
	if (now > signalled)
		s->ckpt_wait_seconds += difftime(now, signalled);
	list->acts[list->n].job_id = m->job_id;
	list->acts[list->n].kind = ACT_REQUEUE;
	list->acts[list->n].preempt = m->preempt_began != 0;
	list->n++;
	job_model_requeued(m, now);
	return 0;
}

extern void planner_follow_resizes(void)
{
	struct action_list list;

	registry_lock();
	list.cap = registry_count() + 1;
	list.acts = xcalloc(list.cap, sizeof(action_t));
	list.n = 0;
	registry_for_each(collect_requeue, &list);
	registry_unlock();
	apply_actions(list.acts, list.n);
	for (int i = 0; i < list.n; i++)
		action_free_members(&list.acts[i]);
	xfree(list.acts);
}

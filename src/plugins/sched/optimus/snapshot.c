/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * snapshot.c - copy the optimus jobs and the nodes' free room out of
 * slurmctld, under read locks held only for the copy.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "src/common/assoc_mgr.h"
#include "src/common/job_resources.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "hints/hints.h"
#include "gate.h"
#include "job_limits.h"
#include "lock_hold.h"
#include "snapshot.h"
#include "roles/roles.h"
#include "roles/spank_env.h"
#include "slurm_gpus.h"

static bool node_usable(node_record_t *node)
{
	return !IS_NODE_DOWN(node) && !IS_NODE_DRAIN(node) &&
	       !IS_NODE_FUTURE(node) && !IS_NODE_NO_RESPOND(node);
}

static void copy_nodes(snapshot_t *s)
{
	node_record_t *node;

	s->nnodes = node_record_count;
	s->nodes = xcalloc(s->nnodes, sizeof(*s->nodes));
	for (int i = 0; (node = next_node(&i)); i++) {
		snap_node_t *sn = &s->nodes[i];

		sn->name = xstrdup(node->name);
		if (node_usable(node))
			sn->capacity = res_make(node->cpus, node->real_memory,
						gpus_of_node(node));
	}
}

static const char *job_hints(job_record_t *job)
{
	return spank_env_get(job->spank_job_env, job->spank_job_env_size,
			     HINTS_SPANK_ENV);
}

/* What a running job uses on each of its nodes. */
static int job_usage(job_record_t *job, int **index, res_vec_t **usage)
{
	job_resources_t *jr = job->job_resrcs;
	double gpus = gpus_of_job_per_node(job);
	int n = 0, first, last;

	if (!jr || !jr->node_bitmap || !jr->nhosts)
		return 0;
	*index = xcalloc(jr->nhosts, sizeof(int));
	*usage = xcalloc(jr->nhosts, sizeof(res_vec_t));
	first = bit_ffs(jr->node_bitmap);
	last = first < 0 ? -2 : bit_fls(jr->node_bitmap);
	for (int i = first; i <= last && n < (int) jr->nhosts; i++) {
		if (!bit_test(jr->node_bitmap, i))
			continue;
		(*index)[n] = i;
		(*usage)[n] = res_make(jr->cpus ? jr->cpus[n] : 0,
				       jr->memory_allocated ?
				       jr->memory_allocated[n] : 0, gpus);
		n++;
	}
	return n;
}

/*
 * Slurm's own notion of a user's share: assoc_mgr's normalized shares,
 * which its fairshare factor uses (the assoc_mgr read lock is held). Only
 * a priority plugin other than priority/basic has them normalized (Slurm
 * keeps them at NO_VAL64 otherwise): then, as without an association,
 * an equal share.
 */
static double job_share(job_record_t *job)
{
	slurmdb_assoc_rec_t *a = job->assoc_ptr;
	double s;

	if (!a || !a->usage)
		return 0.0;
	s = a->usage->shares_norm;
	if (!(s >= 0.0 && s <= 1.0))
		return 0.0;
	return s > 0.0 ? s : -1.0;
}

static snap_state_t job_state(job_record_t *job)
{
	if (IS_JOB_PENDING(job))
		return SNAP_PENDING;
	if (IS_JOB_RUNNING(job) || IS_JOB_SUSPENDED(job))
		return SNAP_RUNNING;
	if (IS_JOB_COMPLETING(job))
		return SNAP_COMPLETING;
	return SNAP_FINISHED;
}

/* The job's limits as its cap, kept only when something limits it. */
static void copy_limits(snap_job_t *sj, job_record_t *job, int gpu_pos)
{
	sj->cap = xmalloc(sizeof(*sj->cap));
	job_limits_read(job, gpu_pos, sj->cap);
	if (!cap_is_set(sj->cap))
		xfree(sj->cap);
}

static void copy_optimus_job(snapshot_t *s, job_record_t *job,
			     const char *hints, int gpu_pos)
{
	snap_job_t *sj = &s->jobs[s->njobs++];

	sj->job_id = job->job_id;
	sj->uid = job->user_id;
	sj->share = job_share(job);
	sj->state = job_state(job);
	sj->held = gate_is_closed(job);
	sj->blocked = IS_JOB_PENDING(job) &&
		      gate_blocked_by_others(job, s->taken);
	sj->batch = job->batch_flag != 0;
	sj->hints = xstrdup(hints);
	sj->topology = xstrdup(spank_env_get(job->spank_job_env,
					     job->spank_job_env_size,
					     ROLES_TOPOLOGY_ENV));
	sj->submit = job->details ? job->details->submit_time : 0;
	sj->start = job->start_time;
	sj->end = job->end_time;
	sj->restart_cnt = job->restart_cnt;
	/* Why a job did not complete, as sacct words it (State, ExitCode). */
	if (sj->state == SNAP_FINISHED &&
	    (job->job_state & JOB_STATE_BASE) != JOB_COMPLETE)
		snprintf(sj->failed, sizeof(sj->failed), "%s exit=%u:%u",
			 job_state_string(job->job_state & JOB_STATE_BASE),
			 WIFEXITED(job->exit_code) ?
			 WEXITSTATUS(job->exit_code) : 0,
			 WIFSIGNALED(job->exit_code) ?
			 WTERMSIG(job->exit_code) : 0);
	if (sj->state == SNAP_PENDING || sj->state == SNAP_RUNNING)
		copy_limits(sj, job, gpu_pos);
	if (sj->state == SNAP_RUNNING || sj->state == SNAP_COMPLETING)
		sj->nnodes = job_usage(job, &sj->node_index, &sj->usage);
	else if (sj->state == SNAP_FINISHED && job->job_resrcs)
		sj->ran_nodes = (int) job->job_resrcs->nhosts;
}

static void add_other_usage(snapshot_t *s, job_record_t *job)
{
	int *index = NULL;
	res_vec_t *usage = NULL;
	int n = job_usage(job, &index, &usage);

	for (int i = 0; i < n; i++)
		if (index[i] < s->nnodes)
			s->nodes[index[i]].other_used =
				res_add(s->nodes[index[i]].other_used, usage[i]);
	xfree(index);
	xfree(usage);
}

static void copy_jobs(snapshot_t *s)
{
	list_itr_t *it = list_iterator_create(job_list);
	int cap = list_count(job_list);
	int gpu_pos = job_limits_gpu_pos(true);
	job_record_t *job;

	s->jobs = xcalloc(cap ? cap : 1, sizeof(*s->jobs));
	while ((job = list_next(it)) && s->njobs < cap) {
		const char *hints = job_hints(job);
		bool holds = IS_JOB_RUNNING(job) || IS_JOB_SUSPENDED(job) ||
			     IS_JOB_COMPLETING(job);

		if (hints && !job->het_job_id)
			copy_optimus_job(s, job, hints, gpu_pos);
		else if (holds)
			add_other_usage(s, job);
	}
	list_iterator_destroy(it);
}

static int snap_job_cmp(const void *a, const void *b)
{
	uint32_t x = ((const snap_job_t *) a)->job_id;
	uint32_t y = ((const snap_job_t *) b)->job_id;

	return (x > y) - (x < y);
}

extern const snap_job_t *snapshot_find_job(const snapshot_t *s,
					   uint32_t job_id)
{
	snap_job_t key = { .job_id = job_id };

	return s->njobs ? bsearch(&key, s->jobs, s->njobs, sizeof(key),
				  snap_job_cmp) : NULL;
}

extern snapshot_t *snapshot_take(void)
{
	slurmctld_lock_t read_lock = {
		.conf = READ_LOCK, .job = READ_LOCK, .node = READ_LOCK,
		.part = READ_LOCK };
	/* The jobs' associations (their shares), after slurmctld's locks as
	 * slurmctld itself takes them. */
	snapshot_t *s = xmalloc(sizeof(*s));
	struct timespec held;

	lock_slurmctld(read_lock);
	job_limits_lock();
	lock_hold_begin(&held);
	s->taken = time(NULL);
	copy_nodes(s);
	copy_jobs(s);
	lock_hold_end(LOCK_SITE_SNAPSHOT, &held);
	job_limits_unlock();
	unlock_slurmctld(read_lock);
	/* Sorted after the locks: the planner finds each job by id. */
	qsort(s->jobs, s->njobs, sizeof(*s->jobs), snap_job_cmp);
	return s;
}

extern void snapshot_free(snapshot_t *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nnodes; i++)
		xfree(s->nodes[i].name);
	for (int i = 0; i < s->njobs; i++) {
		xfree(s->jobs[i].hints);
		xfree(s->jobs[i].topology);
		xfree(s->jobs[i].node_index);
		xfree(s->jobs[i].usage);
		xfree(s->jobs[i].cap);
	}
	xfree(s->nodes);
	xfree(s->jobs);
	xfree(s);
}

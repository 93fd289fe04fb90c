/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * accounting.c - an ended job's final SystemComment in slurmdbd.
 *
 * slurmctld sends a job's completion record to slurmdbd as soon as it ends,
 * before the planner knows the true completion time, and in Slurm 22.05 the
 * completion record does not carry SystemComment at all. The comment is
 * therefore written afterwards with the same call as
 * `sacctmgr modify job where jobid=N set SystemComment=...`, as SlurmUser.
 *
 * Each write is a blocking RPC (about 90 ms): they run on this file's
 * thread, never on the planner's, and never under a slurmctld lock. The
 * planner queues a job's comment (accounting_queue, O(1)); the thread takes
 * every ready comment at once and writes them; a failed write (slurmdbd
 * may not have the job's record yet) is retried ACCOUNT_TRIES times,
 * ACCOUNT_RETRY_SECONDS apart. slurmdbd's modify_job sets one comment for
 * every job it matches, so comments of different jobs cannot share an RPC:
 * the batch is the queue's, the RPCs stay one per job.
 */
#include "config.h"

#include <pthread.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurmdb.h"
#include "slurm/slurm_errno.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xhash.h"
#include "src/common/xstring.h"
#include "src/common/macros.h"
#include "src/slurmctld/slurmctld.h"

#include "accounting.h"
#include "apply.h"
#include "registry.h"
#include "slurm_compat.h"

#define ACCOUNT_TRIES 10
/* Accounting off or its queue full: a comment is offered again at this
 * many later plans at most. */
#define ACCOUNT_QUEUE_TRIES 10
#define ACCOUNT_RETRY_SECONDS 5

typedef struct acct_item {
	uint32_t job_id;
	char *comment;
	int tries;
	time_t not_before;	/* a retry waits until then */
} acct_item_t;

static pthread_mutex_t acct_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t acct_cond = PTHREAD_COND_INITIALIZER;
static pthread_t acct_thread;
static bool acct_stopping;
static list_t *waiting;		/* of acct_item_t, in queueing order */
static xhash_t *by_job;		/* the same items by job id: coalescing */

static bool accounting_enabled(void)
{
	return slurm_conf.accounting_storage_type &&
	       xstrcmp(slurm_conf.accounting_storage_type,
		       "accounting_storage/none");
}

static void acct_item_free(void *x)
{
	acct_item_t *it = x;

	xfree(it->comment);
	xfree(it);
}

static void acct_item_id(void *item, const char **key, uint32_t *len)
{
	*key = (const char *) &((acct_item_t *) item)->job_id;
	*len = sizeof(uint32_t);
}

static slurm_selected_step_t *whole_job(uint32_t job_id)
{
	slurm_selected_step_t *sel = xmalloc(sizeof(*sel));

	sel->array_task_id = NO_VAL;
	sel->het_job_offset = NO_VAL;
	sel->step_id.job_id = job_id;
	sel->step_id.step_id = NO_VAL;
	sel->step_id.step_het_comp = NO_VAL;
	return sel;
}

/* One by one on the planner's path, a mass cancel would stop planning
 * for as long as slurmdbd takes to write them: the thread writes them. */
extern void accounting_queue_ended(const action_t *acts, int n)
{
	for (int i = 0; i < n; i++) {
		reg_job_t *rj;

		if (!acts[i].account ||
		    accounting_queue(acts[i].job_id, acts[i].comment))
			continue;
		registry_lock();
		if ((rj = registry_find(acts[i].job_id)) &&
		    ++rj->account_tries < ACCOUNT_QUEUE_TRIES)
			rj->accounted = false;
		registry_unlock();
	}
}

extern int accounting_set_system_comment(uint32_t job_id, const char *comment)
{
	slurmdb_job_cond_t cond = { 0 };
	slurmdb_job_rec_t *rec;
	list_t *modified;
	int rc = SLURM_ERROR;

	if (!accounting_enabled())
		return SLURM_ERROR;
	cond.db_flags = SLURMDB_JOB_FLAG_NOTSET;
	cond.flags = JOBCOND_FLAG_NO_DEFAULT_USAGE;
	cond.step_list = list_create(slurm_destroy_selected_step);
	list_append(cond.step_list, whole_job(job_id));
	cond.cluster_list = list_create(xfree_ptr);
	list_append(cond.cluster_list, xstrdup(slurm_conf.cluster_name));
	rec = slurmdb_create_job_rec();
	rec->system_comment = xstrdup(comment);

	modified = acct_storage_g_modify_job(acct_db_conn,
					     slurm_conf.slurm_user_id, &cond,
					     rec);
	if (modified && list_count(modified)) {
		rc = SLURM_SUCCESS;
		debug("sched/optimus: JobId=%u: final SystemComment stored in slurmdbd",
		      job_id);
	} else {
		error("sched/optimus: JobId=%u: cannot store SystemComment in slurmdbd: %s",
		      job_id, modified ? "job not found in the database yet" :
		      slurm_strerror(errno));
	}
	FREE_NULL_LIST(modified);
	FREE_NULL_LIST(cond.step_list);
	FREE_NULL_LIST(cond.cluster_list);
	slurmdb_destroy_job_rec(rec);
	return rc;
}

/* With acct_mutex: queue it, or replace the job's waiting comment. */
static bool queue_locked(acct_item_t *it)
{
	acct_item_t *old = xhash_get(by_job, (const char *) &it->job_id,
				     sizeof(it->job_id));

	if (old) {
		xfree(old->comment);
		old->comment = it->comment;
		old->tries = it->tries;
		it->comment = NULL;
		acct_item_free(it);
		return true;
	}
	if (list_count(waiting) >= ACCOUNTING_QUEUE_MAX) {
		acct_item_free(it);
		return false;
	}
	list_append(waiting, it);
	xhash_add(by_job, it);
	pthread_cond_signal(&acct_cond);
	return true;
}

/* With acct_mutex: back to the queue, unless a newer comment of the job
 * was queued meanwhile (it wins). */
static void requeue_locked(acct_item_t *it)
{
	if (xhash_get(by_job, (const char *) &it->job_id, sizeof(it->job_id)))
		acct_item_free(it);
	else
		(void) queue_locked(it);
}

extern bool accounting_queue(uint32_t job_id, const char *comment)
{
	acct_item_t *it;
	bool ok = false;

	if (!accounting_enabled())
		return false;
	it = xmalloc(sizeof(*it));
	it->job_id = job_id;
	it->comment = xstrdup(comment);
	slurm_mutex_lock(&acct_mutex);
	if (waiting)
		ok = queue_locked(it);
	else
		acct_item_free(it);
	slurm_mutex_unlock(&acct_mutex);
	if (!ok)
		error("sched/optimus: JobId=%u: final SystemComment not queued for slurmdbd (%d waiting)",
		      job_id, ACCOUNTING_QUEUE_MAX);
	return ok;
}

/* With acct_mutex: every comment whose time has come, out of the queue. */
static list_t *take_ready(time_t now)
{
	list_t *batch = list_create(acct_item_free);
	list_itr_t *itr = list_iterator_create(waiting);
	acct_item_t *it;

	while ((it = list_next(itr))) {
		if (it->not_before > now)
			continue;
		xhash_delete(by_job, (const char *) &it->job_id,
			     sizeof(it->job_id));
		list_append(batch, list_remove(itr));
	}
	list_iterator_destroy(itr);
	return batch;
}

static bool stopping(void)
{
	bool s;

	slurm_mutex_lock(&acct_mutex);
	s = acct_stopping;
	slurm_mutex_unlock(&acct_mutex);
	return s;
}

/* Write a batch without any lock; the failures go back to the queue. */
static void write_batch(list_t *batch)
{
	struct timespec t0, t1;
	int n = list_count(batch), stored = 0;
	acct_item_t *it;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stopping() && (it = list_pop(batch))) {
		if (!accounting_set_system_comment(it->job_id, it->comment)) {
			stored++;
			acct_item_free(it);
			continue;
		}
		if (++it->tries >= ACCOUNT_TRIES) {
			error("sched/optimus: JobId=%u: final SystemComment not stored after %d tries",
			      it->job_id, it->tries);
			acct_item_free(it);
			continue;
		}
		it->not_before = time(NULL) + ACCOUNT_RETRY_SECONDS;
		slurm_mutex_lock(&acct_mutex);
		requeue_locked(it);
		slurm_mutex_unlock(&acct_mutex);
	}
	/* Left over when stopping: back to the queue, for accounting_stop. */
	slurm_mutex_lock(&acct_mutex);
	while ((it = list_pop(batch)))
		requeue_locked(it);
	slurm_mutex_unlock(&acct_mutex);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	debug("sched/optimus: %d of %d final SystemComments stored in slurmdbd in %.1f s (accounting thread)",
	      stored, n, (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
}

static void *accounting_main(void *arg)
{
	slurm_mutex_lock(&acct_mutex);
	while (!acct_stopping) {
		list_t *batch = take_ready(time(NULL));

		if (!list_count(batch)) {
			struct timespec until;

			FREE_NULL_LIST(batch);
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += 1;
			pthread_cond_timedwait(&acct_cond, &acct_mutex, &until);
			continue;
		}
		slurm_mutex_unlock(&acct_mutex);
		write_batch(batch);
		FREE_NULL_LIST(batch);
		slurm_mutex_lock(&acct_mutex);
	}
	slurm_mutex_unlock(&acct_mutex);
	return NULL;
}

extern void accounting_start(void)
{
	slurm_mutex_lock(&acct_mutex);
	if (!waiting)
		waiting = list_create(acct_item_free);
	if (!by_job)
		by_job = xhash_init(acct_item_id, NULL);
	acct_stopping = false;
	slurm_mutex_unlock(&acct_mutex);
	if (!acct_thread)
		slurm_thread_create(&acct_thread, accounting_main, NULL);
}

extern void accounting_stop(void (*unsent)(uint32_t job_id))
{
	acct_item_t *it;
	int n = 0;

	slurm_mutex_lock(&acct_mutex);
	acct_stopping = true;
	pthread_cond_broadcast(&acct_cond);
	slurm_mutex_unlock(&acct_mutex);
	if (acct_thread) {
		pthread_join(acct_thread, NULL);
		acct_thread = 0;
	}
	slurm_mutex_lock(&acct_mutex);
	while (waiting && (it = list_pop(waiting))) {
		if (unsent)
			unsent(it->job_id);
		acct_item_free(it);
		n++;
	}
	xhash_free_ptr(&by_job);
	FREE_NULL_LIST(waiting);
	slurm_mutex_unlock(&acct_mutex);
	if (n)
		info("sched/optimus: %d final SystemComments not yet in slurmdbd at shutdown: queued again after the restart",
		     n);
}

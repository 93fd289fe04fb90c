/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * gate.c - optimus' own gate on its pending jobs: see gate.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/common/list.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "gate.h"
#include "slurm_compat.h"
#include "job_env.h"
#include "roles/spank_env.h"

static time_t env_time(const job_record_t *job, const char *name)
{
	const char *v = spank_env_get(job->spank_job_env,
				      job->spank_job_env_size, name);

	return v ? (time_t) strtoll(v, NULL, 10) : 0;
}

extern bool gate_is_closed(const job_record_t *job)
{
	return job->details && job->details->begin_time >= OPTIMUS_GATE_TIME;
}

extern time_t gate_user_begin(const job_record_t *job)
{
	if (!job->details)
		return 0;
	if (!gate_is_closed(job))
		return job->details->begin_time;
	return env_time(job, OPTIMUS_SPANK_ENV_BEGIN);
}

/*
 * Whether one of the job's partitions starts jobs: a partition DOWN or
 * INACTIVE starts none of its queued jobs (Slurm's rule); DRAIN refuses
 * new submissions but still starts the queued ones.
 */
static bool partition_starts_jobs(const job_record_t *job)
{
	part_record_t *part;
	list_itr_t *it;
	bool any = false;

	if (!job->part_ptr_list)
		return !job->part_ptr ||
		       (job->part_ptr->state_up & PARTITION_SCHED);
	it = list_iterator_create(job->part_ptr_list);
	while (!any && (part = list_next(it)))
		any = part->state_up & PARTITION_SCHED;
	list_iterator_destroy(it);
	return any;
}

extern bool gate_blocked_by_others(const job_record_t *job, time_t now)
{
	/* Slurm would not start it: planning it would reserve room for a
	 * start that cannot come. */
	if (!partition_starts_jobs(job))
		return true;
	if (job->priority == 0)
		return true;	/* held by a user, an admin or Slurm */
	if (job->state_reason == WAIT_DEPENDENCY ||
	    job->state_reason == WAIT_DEP_INVALID)
		return true;
	/* A begin time kept at the gate (--begin) still ahead. Once the gate
	 * is open, a begin time ahead is Slurm's delay after a requeue: the
	 * job is planned at once, and Slurm starts it when the delay ends. */
	return gate_is_closed(job) && gate_user_begin(job) > now;
}

/* The only writer of OPTIMUS_GATE_TIME: the begin time it replaces. */
static time_t gate_shut(time_t *begin_time)
{
	time_t held = *begin_time;

	*begin_time = OPTIMUS_GATE_TIME;
	return held;
}

extern void gate_close(job_record_t *job, time_t now, time_t not_before)
{
	time_t begin;
	char text[32];

	if (!job->details || gate_is_closed(job))
		return;
	/* A begin time still ahead once the gate was open is Slurm's delay
	 * after a requeue (or an update): kept, with the caller's, for when
	 * the gate opens; it does not keep the job from being planned. */
	begin = gate_shut(&job->details->begin_time);
	if (begin <= now)
		begin = 0;
	if (not_before > begin)
		begin = not_before;
	snprintf(text, sizeof(text), "%lld", (long long) begin);
	job_env_set(job, OPTIMUS_SPANK_ENV_NOT_BEFORE, text);
}

extern void gate_close_submitted(job_desc_msg_t *desc)
{
	char *entry;

	entry = xstrdup_printf("%s=%lld", OPTIMUS_SPANK_ENV_BEGIN,
			       (long long) gate_shut(&desc->begin_time));
	xrecalloc(desc->spank_job_env, desc->spank_job_env_size + 1,
		  sizeof(char *));
	desc->spank_job_env[desc->spank_job_env_size++] = entry;
}

extern void gate_keep_begin(job_record_t *job, job_desc_msg_t *update)
{
	char text[32];

	snprintf(text, sizeof(text), "%lld", (long long) update->begin_time);
	job_env_set(job, OPTIMUS_SPANK_ENV_BEGIN, text);
	update->begin_time = job->details->begin_time;
}

extern time_t gate_requeue_delay(void)
{
	const char *opt = xstrcasestr(slurm_conf.authinfo, "cred_expire=");
	long v = opt ? strtol(opt + 12, NULL, 10) : 0;

	/* Slurm's DEFAULT_EXPIRATION_WINDOW when AuthInfo does not set it. */
	return (v > 0 ? v : 120) + 1;
}

extern void gate_open(job_record_t *job, time_t now)
{
	time_t begin = gate_user_begin(job),
	       not_before = env_time(job, OPTIMUS_SPANK_ENV_NOT_BEFORE);

	if (!job->details || !gate_is_closed(job))
		return;
	if (not_before > begin)
		begin = not_before;
	job->details->begin_time = begin > now ? begin : now;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * job_stop.c - a job the plan stopped, as its owner sees it: for which
 * job and by which rule (the reason of the decision that sent its
 * checkpoint signal), and the step it is at while stopped.
 *
 * The owner reads SystemComment and `optimusctl show job`, not
 * slurmctld.log, and every plan rewrites a waiting job's comment: the
 * stop is kept in the record, not only in the comment of the plan that
 * made it. A stopped job resumes from its checkpoint, which may hold more
 * steps than its last report said.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "job/job_model.h"
#include "util/errmsg.h"
#include "util/escape.h"

void job_model_stop_reason(job_model_t *m, uint32_t for_job,
			   const char *reason)
{
	if (!m)
		return;
	m->stop_for = for_job;
	/* The plan's reasons start with the scheduler's name; the comment
	 * they go into already does. */
	if (reason && !strncmp(reason, "optimus: ", 9))
		reason += 9;
	snprintf(m->stop_reason, sizeof(m->stop_reason), "%s",
		 reason ? reason : "");
}

const char *job_model_stop_text(const job_model_t *m, char *buf, size_t len)
{
	if (!len)
		return buf;
	buf[0] = '\0';
	if (m->stop_reason[0])
		snprintf(buf, len, " last stop: %s", m->stop_reason);
	return buf;
}

double job_model_step_shown(const job_model_t *m)
{
	/* resize_ckpt is set only by a confirmation after the signal and
	 * cleared by the next start: the stop is still going on. */
	if (m->resize_ckpt &&
	    (m->phase == JM_CHECKPOINTING || m->phase == JM_REQUEUED))
		return m->resize_ckpt_step;
	return m->step;
}

int job_model_stop_to_json(json_object *o, const job_model_t *m)
{
	json_object *r;

	if (!m->stop_reason[0])
		return 0;
	r = json_object_new_string(m->stop_reason);
	if (!r || json_object_object_add(o, "stop_reason", r)) {
		json_object_put(r);
		return -ENOMEM;
	}
	r = json_object_new_int64(m->stop_for);
	if (!r || json_object_object_add(o, "stopped_for", r)) {
		json_object_put(r);
		return -ENOMEM;
	}
	return 0;
}

int job_model_stop_from_json(const json_object *o, job_model_t *m,
			     char *err, size_t len)
{
	json_object *r, *f;
	const char *text;
	int64_t id;

	if (!json_object_object_get_ex(o, "stop_reason", &r))
		return 0;
	if (!json_object_is_type(r, json_type_string) ||
	    !json_object_object_get_ex(o, "stopped_for", &f) ||
	    !json_object_is_type(f, json_type_int))
		return errmsg_set(err, len, -EINVAL, "'stop_reason': needs a "
				  "string and an integer 'stopped_for'");
	text = json_object_get_string(r);
	id = json_object_get_int64(f);
	/* The text goes into SystemComment as it is: the plan's own words,
	 * never a control character or a byte that is not UTF-8. */
	if (!*text || strlen(text) >= sizeof(m->stop_reason) ||
	    str_find_unsafe(text, NULL))
		return errmsg_set(err, len, -EINVAL, "'stop_reason': empty, "
				  "longer than %zu bytes or not plain text",
				  sizeof(m->stop_reason) - 1);
	if (id < 0 || id > UINT32_MAX)
		return errmsg_set(err, len, -EINVAL, "'stopped_for': %lld is "
				  "not a job id", (long long)id);
	m->stop_for = (uint32_t)id;
	snprintf(m->stop_reason, sizeof(m->stop_reason), "%s", text);
	return 0;
}

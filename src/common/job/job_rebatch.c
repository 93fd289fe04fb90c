/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * job_rebatch.c - re-batch in place: a batch change at the job's GPUs
 * sent to the running job in the reply to its reports, taken at its next
 * step, instead of a checkpoint-requeue-restart (job_model.h, "Re-batch
 * in place"; doc/design/planning.md).
 *
 * The record keeps what was sent (the reply's field, read by the
 * listener under the registry's lock), whether the job takes changes in
 * place (its progress reports say their batch), how many it took and
 * their time (what the plan prices the next one at), and how many it
 * did not take within the bound (its changes then go the restart path).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "job/job_model.h"
#include "report/protocol.h"
#include "util/errmsg.h"
#include "util/json_num.h"

bool job_model_rebatch_in_place(const job_model_t *m)
{
	return m->batch.adaptive && m->batch.in_place && !m->batch.missed;
}

const job_rebatch_t *job_model_rebatch_open(const job_model_t *m)
{
	return m->batch.offer.open && m->phase == JM_RUNNING ?
	       &m->batch.offer : NULL;
}

/* The run's global batch now (the submitted one until the plan chose). */
static double rebatch_current(const job_batch_t *b)
{
	return b->global > 0 ? b->global : b->submitted;
}

/*
 * A learning rate tuned at the submitted batch, scaled to `global`:
 * AdaScale's gain of global over the submitted batch, gain(global) /
 * gain(submitted) with both against B0 (the gain over B0 of a batch b
 * divided by that of b0 is the gain of b over b0: efficiency.h). 1 before
 * any gradient statistics, as efficiency_gain is then 1.
 */
static double rebatch_lr_scale(const job_batch_t *b, double global)
{
	double g = efficiency_gain(&b->eff, global);
	double g0 = efficiency_gain(&b->eff, b->submitted);

	return g > 0 && g0 > 0 && isfinite(g / g0) ? g / g0 : 1.0;
}

int job_model_rebatch_send(job_model_t *m, time_t now, double global,
			   int local, int accum, char *err, size_t errlen)
{
	const job_batch_t *b;

	if (!m || !m->batch.adaptive || m->phase != JM_RUNNING ||
	    m->cur_workers < 1)
		return errmsg_set(err, errlen, -EINVAL, "re-batch: the job "
				  "is not a running adaptive job");
	b = &m->batch;
	if (local < 1 || accum < 0 || accum > b->limits.max_accum ||
	    local > b->limits.max_local || local < b->limits.min_local ||
	    global != (double)local * m->cur_workers * (accum + 1) ||
	    global < b->limits.min_batch || global > b->limits.max_batch)
		return errmsg_set(err, errlen, -EINVAL, "re-batch to %g (%d x "
				  "%d workers x %d) is not a split of the job's "
				  "%d workers within its limits", global, local,
				  m->cur_workers, accum + 1, m->cur_workers);
	m->batch.offer = (job_rebatch_t){ .global = global, .local = local,
		.accum = accum, .lr_scale = rebatch_lr_scale(b, global),
		.sent = now, .open = true };
	return 0;
}

int job_model_rebatch_said(job_model_t *m, time_t now, double global,
			   double seconds)
{
	job_batch_t *b;
	job_rebatch_t *o;
	double since;

	if (!m || !m->batch.adaptive || !(global > 0) || !isfinite(global))
		return -EINVAL;
	b = &m->batch;
	o = &b->offer;
	/* Only a trainer that reads the reply's field says its batch: its
	 * changes may go in place from now. */
	b->in_place = true;
	if (global == rebatch_current(b))
		return 0;
	if (!(o->global > 0) || global != o->global || m->phase != JM_RUNNING)
		return -EINVAL;
	/* Taken, in time or late (the bound passed: its miss stays
	 * counted): from now its steps are at the new batch. The time is
	 * the job's own account of its change when it gives one within the
	 * time since the change was sent (a claim the record can bound),
	 * else that time: the job ran at its old batch meanwhile, so this
	 * errs on the side of a dearer re-batch. */
	since = now > o->sent ? difftime(now, o->sent) : 0.0;
	if (seconds >= 0 && isfinite(seconds) && seconds < since)
		since = seconds;
	(void)job_model_batch_run(m, o->global, o->local, o->accum);
	b->rebatches++;
	b->rebatch_seconds += since;
	o->open = false;
	return 1;
}

int job_model_rebatch_expire(job_model_t *m, time_t now, double bound)
{
	job_rebatch_t *o;

	if (!m || !m->batch.offer.open)
		return 0;
	o = &m->batch.offer;
	if (difftime(now, o->sent) < bound)
		return 0;
	o->open = false;
	m->batch.missed++;
	return 1;
}

double job_model_rebatch_cost(const job_model_t *m, double fallback)
{
	const job_batch_t *b = &m->batch;

	return b->rebatches ? b->rebatch_seconds / b->rebatches : fallback;
}

void job_model_rebatch_void(job_model_t *m)
{
	if (m)
		memset(&m->batch.offer, 0, sizeof(m->batch.offer));
}

/* ---- JSON ---- */

static int rebatch_add(json_object *o, const char *key, json_object *v)
{
	if (!v || json_object_object_add(o, key, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

int job_model_rebatch_to_json(json_object *batch, const job_model_t *m)
{
	const job_batch_t *b = &m->batch;
	const job_rebatch_t *o = &b->offer;
	json_object *s;

	if (rebatch_add(batch, "rebatches", json_object_new_int64(
				b->rebatches)) ||
	    rebatch_add(batch, "rebatch_seconds",
			json_num_new(b->rebatch_seconds)) ||
	    rebatch_add(batch, "rebatch_missed", json_object_new_int64(
				b->missed)) ||
	    rebatch_add(batch, "in_place", json_object_new_boolean(
				b->in_place)))
		return -ENOMEM;
	if (!(o->global > 0))
		return 0;
	s = json_object_new_object();
	if (rebatch_add(batch, "rebatch_sent", s) ||
	    rebatch_add(s, "batch", json_num_new(o->global)) ||
	    rebatch_add(s, "local_batch", json_object_new_int(o->local)) ||
	    rebatch_add(s, "accum", json_object_new_int(o->accum)) ||
	    rebatch_add(s, "lr_scale", json_num_new(o->lr_scale)) ||
	    rebatch_add(s, "sent", json_object_new_int64(o->sent)) ||
	    rebatch_add(s, "open", json_object_new_boolean(o->open)))
		return -ENOMEM;
	return 0;
}

static int rebatch_bool(const json_object *o, const char *key, bool *out,
			char *err, size_t len)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_boolean))
		return errmsg_set(err, len, -EINVAL, "'batch.%s': not a "
				  "boolean", key);
	*out = json_object_get_boolean(v);
	return 0;
}

/* The change sent, checked as job_model_rebatch_send checks it (the
 * workers: whatever the run's are, known after the runs are read). */
static int rebatch_sent_from(const json_object *batch, job_model_t *m,
			     char *err, size_t len)
{
	json_object *s;
	double v[5] = { 0, 0, 0, 1, 0 };
	bool open = false;
	const goodput_limits_t *l = &m->batch.limits;
	int rc;

	if (!json_object_object_get_ex(batch, "rebatch_sent", &s))
		return 0;
	if (!json_object_is_type(s, json_type_object))
		return errmsg_set(err, len, -EINVAL, "'batch.rebatch_sent': "
				  "not an object");
	if ((rc = json_num_get(s, "batch", l->min_batch, l->max_batch, &v[0],
			       err, len)) ||
	    (rc = json_num_get(s, "local_batch", l->min_local, l->max_local,
			       &v[1], err, len)) ||
	    (rc = json_num_get(s, "accum", 0, l->max_accum, &v[2], err,
			       len)) ||
	    (rc = json_num_get(s, "lr_scale", 0, 1e12, &v[3], err, len)) ||
	    (rc = json_num_get(s, "sent", 0, (double)PROTOCOL_MAX_COUNT,
			       &v[4], err, len)) ||
	    (rc = rebatch_bool(s, "open", &open, err, len)))
		return rc;
	if (v[1] != floor(v[1]) || v[2] != floor(v[2]) || v[4] != floor(v[4]))
		return errmsg_set(err, len, -EINVAL, "'batch.rebatch_sent': "
				  "local_batch, accum and sent must be whole");
	m->batch.offer = (job_rebatch_t){ .global = v[0], .local = (int)v[1],
		.accum = (int)v[2], .lr_scale = v[3], .sent = (time_t)v[4],
		.open = open };
	return 0;
}

int job_model_rebatch_from_json(const json_object *batch, job_model_t *m,
				char *err, size_t len)
{
	job_batch_t *b = &m->batch;
	double n = 0, s = 0, missed = 0;
	int rc;

	/* Each key optional: a state file written before re-batches in
	 * place has none (no re-batch taken, none sent). */
	if ((rc = json_num_get_optional(batch, "rebatches", 0, UINT32_MAX,
					&n, err, len)) ||
	    (rc = json_num_get_optional(batch, "rebatch_seconds", 0,
					(double)PROTOCOL_MAX_COUNT, &s, err,
					len)) ||
	    (rc = json_num_get_optional(batch, "rebatch_missed", 0,
					UINT32_MAX, &missed, err, len)) ||
	    (rc = rebatch_bool(batch, "in_place", &b->in_place, err, len)))
		return rc;
	if (n != floor(n) || missed != floor(missed))
		return errmsg_set(err, len, -EINVAL, "'batch': rebatches and "
				  "rebatch_missed must be whole");
	b->rebatches = (unsigned)n;
	b->rebatch_seconds = s;
	b->missed = (unsigned)missed;
	return b->adaptive ? rebatch_sent_from(batch, m, err, len) : 0;
}

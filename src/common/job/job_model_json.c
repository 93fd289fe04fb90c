/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * job_model_json.c - a job record as JSON and back (state file, optimusctl).
 *
 * The input of job_model_from_json() is untrusted (a state file may be
 * corrupt or edited): every field is checked for presence, type, range and
 * consistency, and the first problem is reported by name. The hints travel
 * as their canonical text, so hints_parse() validates them; the models use
 * model_json.h.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/errmsg.h"
#include "job/job_model.h"
#include "models/model_json.h"
#include "report/protocol.h"
#include "util/json_num.h"

#define JM_TIME_MAX 1e11	/* year ~5000: rejects garbage timestamps */
/* Whatever a report may set, the state file restores (one bound:
 * report/protocol.h). */
#define JM_STEP_MAX ((double) PROTOCOL_MAX_STEP)

/* Set the message and return -EINVAL. */
#define jm_fail(err, len, ...) errmsg_set(err, len, -EINVAL, __VA_ARGS__)

/* Required integer in [lo, hi]. */
static int jm_int(const json_object *o, const char *key, double lo, double hi,
		  double *out, char *err, size_t len)
{
	int rc = json_num_get(o, key, lo, hi, out, err, len);

	if (!rc && *out != floor(*out))
		return jm_fail(err, len, "'%s': %g is not an integer", key, *out);
	return rc;
}

static int jm_child(const json_object *o, const char *key, json_type type,
		    json_object **out, char *err, size_t len)
{
	if (!json_object_object_get_ex(o, key, out) ||
	    !json_object_is_type(*out, type))
		return jm_fail(err, len, "'%s': missing or not of type %s",
			       key, json_type_to_name(type));
	return 0;
}

static int jm_add(json_object *o, const char *key, json_object *v)
{
	if (!v)
		return -ENOMEM;
	return json_object_object_add(o, key, v) ? -ENOMEM : 0;
}

static int jm_add_num(json_object *o, const char *key, double d)
{
	return jm_add(o, key, json_object_new_double(d));
}

static int jm_add_int(json_object *o, const char *key, int64_t i)
{
	return jm_add(o, key, json_object_new_int64(i));
}

static json_object *jm_run_to(const job_run_t *r)
{
	json_object *o = json_object_new_object();

	if (o && !jm_add_int(o, "start", r->start) &&
	    !jm_add_int(o, "end", r->end) && !jm_add_int(o, "ps", r->ps) &&
	    !jm_add_int(o, "workers", r->workers) &&
	    !jm_add_int(o, "nodes", r->nodes) &&
	    !jm_add_num(o, "steps_done", r->steps_done))
		return o;
	json_object_put(o);
	return NULL;
}

static json_object *jm_runs_to(const job_model_t *m)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < m->nruns; i++) {
		json_object *r = jm_run_to(&m->runs[i]);

		if (!r || json_object_array_add(a, r)) {
			json_object_put(r);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

static int jm_hints_to(json_object *o, const optimus_hints_t *h)
{
	char text[HINTS_TEXT_MAX];

	if (hints_format(h, text, sizeof(text)) < 0)
		return -ENOSPC;
	if (jm_add(o, "hints", json_object_new_string(text)))
		return -ENOMEM;
	return jm_add_int(o, "hints_set", h->set);
}

static int jm_scalars_to(json_object *o, const job_model_t *m)
{
	const struct { const char *key; double v; } f[] = {
		{ "job_id", m->job_id }, { "uid", m->uid },
		{ "step", m->step }, { "loss", m->loss },
		{ "steps_per_sec", m->steps_per_sec }, { "epoch", m->epoch },
		{ "last_report", (double)m->last_report },
		{ "reports", (double)m->reports },
		{ "cur_ps", m->cur_ps }, { "cur_workers", m->cur_workers },
		{ "cur_nodes", m->cur_nodes }, { "plan_ps", m->plan_ps },
		{ "plan_workers", m->plan_workers },
		{ "first_submit", (double)m->first_submit },
		{ "end_time", (double)m->end_time },
		{ "last_resize", (double)m->last_resize },
		{ "resize_began", (double)m->resize_began },
		{ "resize_seconds", m->resize_seconds },
		{ "restarts", m->restarts }, { "dirty", m->dirty },
		{ "explicit_cost", m->explicit_cost },
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		int rc = floor(f[i].v) == f[i].v && fabs(f[i].v) < 9e15 ?
			jm_add_int(o, f[i].key, (int64_t)f[i].v) :
			jm_add_num(o, f[i].key, f[i].v);
		if (rc)
			return rc;
	}
	if (jm_add_int(o, "ckpt_confirmed", (int64_t)m->ckpt_confirmed) ||
	    jm_add_int(o, "resizes", m->resizes) ||
	    jm_add_int(o, "fault_restarts", m->fault_restarts) ||
	    jm_add_int(o, "fault_requeue", m->fault_requeue) ||
	    jm_add_int(o, "rerun", m->rerun) ||
	    jm_add_int(o, "reruns", m->reruns) ||
	    jm_add_int(o, "restart_from", (int64_t)m->restart_from) ||
	    jm_add_int(o, "restarts_timed", m->restarts_timed) ||
	    jm_add_num(o, "epoch_mark", m->epoch_mark) ||
	    jm_add_num(o, "epoch_mark_step", m->epoch_mark_step) ||
	    jm_add_num(o, "ckpt_step", m->ckpt_step) ||
	    jm_add_int(o, "not_resumable", m->not_resumable) ||
	    jm_add_num(o, "resume_floor", m->resume_floor) ||
	    jm_add_int(o, "resize_ckpt", m->resize_ckpt) ||
	    jm_add_num(o, "resize_ckpt_step", m->resize_ckpt_step) ||
	    jm_add_int(o, "adopted", (int64_t)m->adopted) ||
	    jm_add_num(o, "attained", m->attained) ||
	    jm_add_int(o, "waiting_since", (int64_t)m->waiting_since) ||
	    jm_add_int(o, "preempt_began", (int64_t)m->preempt_began) ||
	    jm_add_int(o, "preemptions", m->preemptions))
		return -ENOMEM;
	/* For optimusctl: whether the plan may resize it, and why not. */
	if (jm_add(o, "resizable", json_object_new_boolean(
			   m->phase == JM_DONE || !job_model_not_resizable(m))) ||
	    (m->phase != JM_DONE && job_model_not_resizable(m) &&
	     jm_add(o, "not_resizable_because", json_object_new_string(
			    job_model_not_resizable(m)))))
		return -ENOMEM;
	return jm_add(o, "phase",
		      json_object_new_string(job_phase_name(m->phase)));
}

json_object *job_model_to_json(const job_model_t *m)
{
	json_object *o;

	if (!m)
		return NULL;
	o = json_object_new_object();
	if (o && !jm_scalars_to(o, m) && !jm_hints_to(o, &m->hints) &&
	    !jm_add(o, "convergence", convergence_to_json(m->conv)) &&
	    !jm_add(o, "speed", speed_model_to_json(&m->speed)) &&
	    !jm_add(o, "quality", quality_model_to_json(&m->quality)) &&
	    !jm_add(o, "runs", jm_runs_to(m)) &&
	    !job_model_straggler_to_json(o, m) &&
	    !job_model_stop_to_json(o, m) &&
	    !job_model_batch_to_json(o, m))
		return o;
	json_object_put(o);
	return NULL;
}

/* ---- back from JSON ---- */

static int jm_hints_from(const json_object *o, optimus_hints_t *h, char *err,
			 size_t len)
{
	json_object *v;
	char why[160] = "";
	double set;

	if (jm_child(o, "hints", json_type_string, &v, err, len))
		return -EINVAL;
	if (hints_parse(json_object_get_string(v), h, why, sizeof(why)))
		return jm_fail(err, len, "'hints': %s", why);
	if (jm_int(o, "hints_set", 0, (double)((1u << HK_COUNT) - 1), &set,
		   err, len))
		return -EINVAL;
	h->set = (uint32_t)set;
	return 0;
}

static int jm_run_from(json_object *r, size_t i, job_run_t *out, char *err,
		       size_t len)
{
	double v[6];
	char e[128] = "";

	if (!json_object_is_type(r, json_type_object))
		return jm_fail(err, len, "runs[%zu]: not an object", i);
	if (jm_int(r, "start", 0, JM_TIME_MAX, &v[0], e, sizeof(e)) ||
	    jm_int(r, "end", 0, JM_TIME_MAX, &v[1], e, sizeof(e)) ||
	    jm_int(r, "ps", 0, HINTS_MAX_PS, &v[2], e, sizeof(e)) ||
	    jm_int(r, "workers", 0, HINTS_MAX_WORKERS, &v[3], e, sizeof(e)) ||
	    jm_int(r, "nodes", 0, HINTS_MAX_PS + HINTS_MAX_WORKERS, &v[4], e,
		   sizeof(e)) ||
	    json_num_get(r, "steps_done", 0, JM_STEP_MAX, &v[5], e, sizeof(e)))
		return jm_fail(err, len, "runs[%zu]: %s", i, e);
	if (v[1] && v[1] < v[0])
		return jm_fail(err, len, "runs[%zu]: ends before it starts", i);
	*out = (job_run_t){ (time_t)v[0], (time_t)v[1], (int)v[2], (int)v[3],
			    (int)v[4], v[5] };
	return 0;
}

static int jm_runs_from(const json_object *o, job_model_t *m, char *err,
			size_t len)
{
	json_object *a;
	size_t n;

	if (jm_child(o, "runs", json_type_array, &a, err, len))
		return -EINVAL;
	n = json_object_array_length(a);
	if (n > JOB_MODEL_MAX_RUNS)
		return jm_fail(err, len, "'runs': %zu runs, at most %d", n,
			       JOB_MODEL_MAX_RUNS);
	for (size_t i = 0; i < n; i++)
		if (jm_run_from(json_object_array_get_idx(a, i), i,
				&m->runs[i], err, len))
			return -EINVAL;
	m->nruns = n;
	return 0;
}

/* One numeric field: its key, range, integer or not, and destination. */
typedef struct jm_field {
	const char *key;
	double lo, hi;
	bool integer;
	double *dst;
} jm_field_t;

static int jm_fields_from(const json_object *o, const jm_field_t *f, size_t n,
			  char *err, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		int rc = f[i].integer ?
			jm_int(o, f[i].key, f[i].lo, f[i].hi, f[i].dst, err, len) :
			json_num_get(o, f[i].key, f[i].lo, f[i].hi, f[i].dst, err, len);
		if (rc)
			return rc;
	}
	return 0;
}

/* Optional fields (f[i].dst unused): v[i] is set when f[i].key is present
 * and valid, left as it is when absent; 0 or -EINVAL. */
static int jm_optional_from(const json_object *o, const jm_field_t *f,
			    size_t n, double *v, char *err, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		if (!json_object_object_get_ex(o, f[i].key, NULL))
			continue;
		if (jm_fields_from(o, &(jm_field_t){ f[i].key, f[i].lo,
						      f[i].hi, f[i].integer,
						      &v[i] }, 1, err, len))
			return -EINVAL;
	}
	return 0;
}

enum { JF_JOB, JF_UID, JF_STEP, JF_LOSS, JF_SPS, JF_EPOCH, JF_LAST, JF_REPORTS,
       JF_CPS, JF_CW, JF_CN, JF_PPS, JF_PW, JF_SUBMIT, JF_END, JF_RESIZE,
       JF_BEGAN, JF_RSEC, JF_RESTARTS, JF_DIRTY, JF_COST, JF_COUNT };

/*
 * The checkpoint record, the resizes begun, the fault restarts, a restart
 * timed to its first step and the restarts timed:
 * optional, so that a state file written before them still loads (such a
 * job has no confirmed checkpoint yet, counts its resizes from now, and
 * its restarts as timed, the former rule).
 */
static int jm_checkpoint_from(const json_object *o, job_model_t *m, char *err,
			      size_t len)
{
	const jm_field_t f[] = {
		{ "ckpt_confirmed", 0, JM_TIME_MAX, true, NULL },
		{ "ckpt_step", 0, JM_STEP_MAX, false, NULL },
		{ "not_resumable", 0, 1, true, NULL },
		{ "adopted", 0, JM_TIME_MAX, true, NULL },
		{ "resume_floor", 0, JM_STEP_MAX, false, NULL },
		{ "resize_ckpt", 0, 1, true, NULL },
		{ "resize_ckpt_step", 0, JM_STEP_MAX, false, NULL },
		{ "resizes", 0, UINT32_MAX, true, NULL },
		{ "fault_restarts", 0, UINT32_MAX, true, NULL },
		{ "fault_requeue", 0, 1, true, NULL },
		{ "restart_from", 0, JM_TIME_MAX, true, NULL },
		{ "restarts_timed", 0, UINT32_MAX, true, NULL },
		{ "rerun", 0, 1, true, NULL },
		{ "reruns", 0, UINT32_MAX, true, NULL },
	};
	double v[14] = { 0 };

	v[11] = -1;
	if (jm_optional_from(o, f, 14, v, err, len))
		return -EINVAL;
	if (v[11] > m->restarts)
		return jm_fail(err, len, "'restarts_timed' %.0f above "
			       "'restarts' %u", v[11], m->restarts);
	m->ckpt_confirmed = (time_t)v[0];
	m->ckpt_step = v[1];
	m->not_resumable = v[2] != 0.0;
	m->adopted = (time_t)v[3];
	m->resume_floor = v[4];
	m->resize_ckpt = v[5] != 0.0;
	m->resize_ckpt_step = v[6];
	m->resizes = (unsigned)v[7];
	m->fault_restarts = (unsigned)v[8];
	m->fault_requeue = v[9] != 0.0;
	m->restart_from = (time_t)v[10];
	m->restarts_timed = v[11] < 0.0 ? m->restarts : (unsigned)v[11];
	m->rerun = v[12] != 0.0;
	m->reruns = (unsigned)v[13];
	return 0;
}

/*
 * Where an epoch began: optional, so that a state file written
 * before it still loads. Such a job's last report marks it, as the former
 * rule (step / epoch) took it, until its next epoch.
 */
static int jm_epoch_mark_from(const json_object *o, job_model_t *m,
			      char *err, size_t len)
{
	const jm_field_t f[] = {
		{ "epoch_mark", 0, JM_STEP_MAX, false, NULL },
		{ "epoch_mark_step", 0, JM_STEP_MAX, false, NULL },
	};
	double v[2] = { -1, -1 };

	if (jm_optional_from(o, f, 2, v, err, len))
		return -EINVAL;
	if (v[0] < 0.0 || v[1] < 0.0) {
		bool marked = m->epoch >= 1.0;

		v[0] = marked ? m->epoch : 0.0;
		v[1] = marked ? m->step : 0.0;
	}
	m->epoch_mark = v[0];
	m->epoch_mark_step = v[1];
	return 0;
}

/*
 * Preemption's record: optional, so that a state file written
 * before it still loads. Such a job has waited since its submission, and
 * its attained service is what its recorded runs held (the runs are read
 * first; the GPU-seconds of runs trimmed before are unknown, none).
 */
static int jm_preempt_from(const json_object *o, job_model_t *m, char *err,
			   size_t len)
{
	const jm_field_t f[] = {
		{ "attained", 0, HUGE_VAL, false, NULL },
		{ "waiting_since", 0, JM_TIME_MAX, true, NULL },
		{ "preempt_began", 0, JM_TIME_MAX, true, NULL },
		{ "preemptions", 0, UINT32_MAX, true, NULL },
	};
	double v[4] = { -1, -1, 0, 0 };

	if (jm_optional_from(o, f, 4, v, err, len))
		return -EINVAL;
	if (v[0] < 0.0) {
		v[0] = 0.0;
		for (size_t i = 0; i < m->nruns; i++)
			if (m->runs[i].end)
				v[0] += job_model_run_service(
					m, &m->runs[i], m->runs[i].end);
	}
	m->attained = v[0];
	m->waiting_since = v[1] < 0.0 ? m->first_submit : (time_t)v[1];
	m->preempt_began = (time_t)v[2];
	m->preemptions = (unsigned)v[3];
	return 0;
}

static int jm_scalars_from(const json_object *o, job_model_t *m, char *err,
			   size_t len)
{
	double v[JF_COUNT];
	const double T = JM_TIME_MAX, NODES = HINTS_MAX_PS + HINTS_MAX_WORKERS;
	const jm_field_t f[] = {
		{ "job_id", 0, UINT32_MAX, true, &v[JF_JOB] },
		{ "uid", 0, UINT32_MAX, true, &v[JF_UID] },
		{ "step", 0, JM_STEP_MAX, false, &v[JF_STEP] },
		{ "loss", 0, HUGE_VAL, false, &v[JF_LOSS] },
		{ "steps_per_sec", 0, JM_STEP_MAX, false, &v[JF_SPS] },
		{ "epoch", 0, JM_STEP_MAX, false, &v[JF_EPOCH] },
		{ "last_report", 0, T, true, &v[JF_LAST] },
		{ "reports", 0, 9e15, true, &v[JF_REPORTS] },
		{ "cur_ps", 0, HINTS_MAX_PS, true, &v[JF_CPS] },
		{ "cur_workers", 0, HINTS_MAX_WORKERS, true, &v[JF_CW] },
		{ "cur_nodes", 0, NODES, true, &v[JF_CN] },
		{ "plan_ps", 0, HINTS_MAX_PS, true, &v[JF_PPS] },
		{ "plan_workers", 0, HINTS_MAX_WORKERS, true, &v[JF_PW] },
		{ "first_submit", 0, T, true, &v[JF_SUBMIT] },
		{ "end_time", 0, T, true, &v[JF_END] },
		{ "last_resize", 0, T, true, &v[JF_RESIZE] },
		{ "resize_began", 0, T, true, &v[JF_BEGAN] },
		{ "resize_seconds", 0, T, false, &v[JF_RSEC] },
		{ "restarts", 0, UINT32_MAX, true, &v[JF_RESTARTS] },
		{ "dirty", 0, JOB_MODEL_DIRTY_ALL, true, &v[JF_DIRTY] },
		{ "explicit_cost", 0, 1, true, &v[JF_COST] },
	};
	json_object *ph;

	if (jm_fields_from(o, f, JF_COUNT, err, len))
		return -EINVAL;
	if (jm_child(o, "phase", json_type_string, &ph, err, len))
		return -EINVAL;
	if (job_phase_parse(json_object_get_string(ph), &m->phase))
		return jm_fail(err, len, "'phase': unknown phase '%s'",
			       json_object_get_string(ph));
	if (v[JF_END] && v[JF_END] < v[JF_SUBMIT])
		return jm_fail(err, len, "'end_time' before 'first_submit'");
	m->job_id = (uint32_t)v[JF_JOB];
	m->uid = (uint32_t)v[JF_UID];
	m->step = v[JF_STEP];
	m->loss = v[JF_LOSS];
	m->steps_per_sec = v[JF_SPS];
	m->epoch = v[JF_EPOCH];
	m->last_report = (time_t)v[JF_LAST];
	m->reports = (uint64_t)v[JF_REPORTS];
	m->cur_ps = (int)v[JF_CPS];
	m->cur_workers = (int)v[JF_CW];
	m->cur_nodes = (int)v[JF_CN];
	m->plan_ps = (int)v[JF_PPS];
	m->plan_workers = (int)v[JF_PW];
	m->first_submit = (time_t)v[JF_SUBMIT];
	m->end_time = (time_t)v[JF_END];
	m->last_resize = (time_t)v[JF_RESIZE];
	m->resize_began = (time_t)v[JF_BEGAN];
	m->resize_seconds = v[JF_RSEC];
	m->restarts = (unsigned)v[JF_RESTARTS];
	m->dirty = (unsigned)v[JF_DIRTY];
	m->explicit_cost = v[JF_COST] != 0.0;
	if (jm_epoch_mark_from(o, m, err, len))
		return -EINVAL;
	return jm_checkpoint_from(o, m, err, len);
}

/*
 * The models: each parsed by model_json.h, then checked against the hints
 * (a speed model of the other mode would mix Eqn. 3 and Eqn. 4 samples).
 */
static int jm_models_from(const json_object *o, job_model_t *m, char *err,
			  size_t len)
{
	json_object *v;
	char e[160] = "";
	speed_mode_t mode = job_model_speed_mode(&m->hints);

	if (jm_child(o, "convergence", json_type_object, &v, err, len))
		return -EINVAL;
	if (convergence_from_json(v, &m->conv, e, sizeof(e)))
		return jm_fail(err, len, "'convergence': %s", e);
	if (jm_child(o, "speed", json_type_object, &v, err, len))
		return -EINVAL;
	if (speed_model_from_json(v, &m->speed, e, sizeof(e)))
		return jm_fail(err, len, "'speed': %s", e);
	if (m->speed.mode != mode)
		return jm_fail(err, len, "'speed': mode differs from the hints");
	if (jm_child(o, "quality", json_type_object, &v, err, len))
		return -EINVAL;
	if (quality_model_from_json(v, &m->quality, e, sizeof(e)))
		return jm_fail(err, len, "'quality': %s", e);
	return 0;
}

/* The adaptive batch, its problem named by its key ('batch'), as every
 * other part's is: job_model_from_json_salvaged() refuses that part. */
static int jm_batch_from(const json_object *o, job_model_t *m, char *err,
			 size_t len)
{
	char e[160] = "";

	if (!job_model_batch_from_json(o, m, e, sizeof(e)))
		return 0;
	if (!strncmp(e, "'batch'", 7))
		return jm_fail(err, len, "%s", e);
	return jm_fail(err, len, "'batch': %s", e);
}

job_model_t *job_model_from_json(const json_object *o, char *err, size_t len)
{
	job_model_t *m;

	if (!o || !json_object_is_type(o, json_type_object)) {
		jm_fail(err, len, "job record: not a JSON object");
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		jm_fail(err, len, "out of memory");
		return NULL;
	}
	if (jm_hints_from(o, &m->hints, err, len) ||
	    jm_scalars_from(o, m, err, len) || jm_runs_from(o, m, err, len) ||
	    jm_preempt_from(o, m, err, len) ||
	    jm_models_from(o, m, err, len) ||
	    job_model_straggler_from_json(o, m, err, len) ||
	    job_model_stop_from_json(o, m, err, len) ||
	    jm_batch_from(o, m, err, len)) {
		job_model_free(m);
		return NULL;
	}
	return m;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * query.c - answers to optimusctl's queries from the planner's registry.
 *
 * The listener has already checked that a job query comes from the job's
 * owner or an administrator.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "src/common/log.h"
#include "src/common/xmalloc.h"

#include "optimus_conf.h"
#include "query.h"
#include "registry.h"
#include "util/json_num.h"

#define SUMMARY_MAX 1024

/* A status answer being built: the jobs its viewer may see, at most
 * max_jobs of them. */
struct status_walk {
	const report_viewer_t *v;
	json_object *jobs;
	size_t visible;
};

/* One line per job: what `optimusctl status` prints. */
static int status_row(reg_job_t *rj, void *arg)
{
	struct status_walk *w = arg;
	job_model_t *m = rj->model;
	json_object *o;
	char summary[SUMMARY_MAX];
	bool fitted = false;

	if (!report_viewer_may_see(w->v, m->uid) ||
	    w->visible++ >= w->v->max_jobs)
		return 0;
	o = json_object_new_object();
	job_model_summary(m, registry_profiles(), summary, sizeof(summary));
	json_object_object_add(o, "job_id", json_object_new_int64(m->job_id));
	json_object_object_add(o, "uid", json_object_new_int64(m->uid));
	json_object_object_add(o, "policy", json_object_new_string(
		hints_policy_name(m->hints.policy)));
	json_object_object_add(o, "phase",
			       json_object_new_string(job_phase_name(m->phase)));
	json_object_object_add(o, "ps", json_object_new_int(m->cur_ps));
	json_object_object_add(o, "workers", json_object_new_int(m->cur_workers));
	json_object_object_add(o, "plan_ps", json_object_new_int(m->plan_ps));
	json_object_object_add(o, "plan_workers",
			       json_object_new_int(m->plan_workers));
	json_object_object_add(o, "reports", json_object_new_int64(
		(int64_t)m->reports));
	json_object_object_add(o, "step", json_object_new_double(m->step));
	json_object_object_add(o, "loss", json_object_new_double(m->loss));
	json_object_object_add(o, "steps_per_sec",
			       json_object_new_double(m->steps_per_sec));
	json_object_object_add(o, "remaining_steps", json_object_new_double(
		job_model_remaining_steps(m, &fitted)));
	json_object_object_add(o, "fitted", json_object_new_boolean(fitted));
	json_object_object_add(o, "restarts", json_object_new_int(m->restarts));
	json_object_object_add(o, "preemptions",
			       json_object_new_int((int) m->preemptions));
	json_object_object_add(o, "summary", json_object_new_string(summary));
	json_object_array_add(w->jobs, o);
	return 0;
}

/* Key `key` of the registry's recent reports answer `recent`, moved. */
static void add_recent(json_object *o, json_object *recent, const char *key)
{
	json_object *v;

	if (recent && json_object_object_get_ex(recent, key, &v))
		json_object_object_add(o, key, json_object_get(v));
}

/*
 * The jobs v may see, at most v->max_jobs of them, with "truncated" and
 * "jobs_total" (how many v may see): an ordinary user is answered with
 * their own jobs, as Slurm's PrivateData=jobs would, and no reply grows
 * without bound with the registry.
 */
static json_object *answer_status(const report_viewer_t *v)
{
	json_object *o = json_object_new_object();
	struct status_walk w = { .v = v, .jobs = json_object_new_array() };
	json_object *recent = registry_recent() ?
		report_history_status_json(registry_recent(), v) : NULL;

	json_object_object_add(o, "policy",
			       json_object_new_string(optimus_conf.policy));
	json_object_object_add(o, "plan_interval",
			       json_object_new_int(optimus_conf.plan_interval));
	registry_for_each(status_row, &w);
	json_object_object_add(o, "jobs", w.jobs);
	json_object_object_add(o, "truncated",
			       json_object_new_boolean(w.visible > v->max_jobs));
	json_object_object_add(o, "jobs_total",
			       json_object_new_int64((int64_t) w.visible));
	if (recent && json_object_object_get_ex(recent, "jobs", NULL)) {
		json_object_object_add(o, "reporting", json_object_get(
			json_object_object_get(recent, "jobs")));
	}
	json_object_put(recent);
	return o;
}

/* "batch_now": what the job runs at (job_model_batch_now), for
 * optimusctl show job; absent for a job without a batch. */
static void add_batch_now(json_object *o, const job_model_t *m)
{
	const job_run_t *last = m->nruns ? &m->runs[m->nruns - 1] : NULL;
	int w = m->cur_workers || !last ? m->cur_workers : last->workers;
	json_object *b;
	job_batch_now_t now;

	if (job_model_batch_now(m, w, &now) ||
	    !(b = json_object_new_object()))
		return;
	json_object_object_add(b, "batch", json_num_new(now.global));
	json_object_object_add(b, "local_batch", json_object_new_int(now.local));
	json_object_object_add(b, "accum", json_object_new_int(now.accum));
	json_object_object_add(b, "workers", json_object_new_int(w));
	json_object_object_add(b, "adaptive",
			       json_object_new_boolean(m->batch.adaptive));
	json_object_object_add(b, "efficiency", json_num_new(now.efficiency));
	json_object_object_add(b, "goodput", json_num_new(now.goodput));
	json_object_object_add(b, "noise_scale", json_num_new(now.noise_scale));
	json_object_object_add(b, "grad_reports",
			       json_object_new_int64(m->batch.eff.reports));
	/* An adaptive job's work in B0-steps: its progress, the target it
	 * runs to (0: unknown) and what the plan takes as left. */
	if (m->batch.adaptive) {
		json_object_object_add(b, "progress",
				       json_num_new(m->batch.progress));
		json_object_object_add(b, "target_progress", json_num_new(
			job_model_batch_target(m)));
		json_object_object_add(b, "remaining_progress", json_num_new(
			job_model_batch_remaining(m)));
	}
	json_object_object_add(o, "batch_now", b);
}

/* "speed_claims": the job's speed reports the record took and refused,
 * and why the last was refused (job/job_claims.c). */
static void add_claims(json_object *o, const job_model_t *m)
{
	json_object *c = json_object_new_object();

	if (!c)
		return;
	json_object_object_add(c, "taken",
			       json_object_new_int64((int64_t) m->claims.taken));
	json_object_object_add(c, "refused", json_object_new_int64(
		(int64_t) m->claims.refused));
	json_object_object_add(c, "last_refusal", json_object_new_string(
		m->claims.last_refusal));
	json_object_object_add(c, "observed_steps_per_sec",
			       json_num_new(job_model_observed_speed(m)));
	json_object_object_add(o, "speed_claims", c);
}

/*
 * A job the planner tracks: its model, decision and recent reports; any
 * other job that reported: its recent reports; else just its id.
 */
static json_object *answer_job(uint32_t job_id)
{
	reg_job_t *rj = registry_find(job_id);
	json_object *o, *recent = registry_recent() ?
		report_history_job_json(registry_recent(), job_id) : NULL;
	char summary[SUMMARY_MAX];

	if (!rj) {
		if (!recent && (recent = json_object_new_object())) {
			json_object_object_add(recent, "job",
					       json_object_new_int64(job_id));
			json_object_object_add(recent, "reports",
					       json_object_new_int(0));
		}
		return recent;
	}
	o = job_model_to_json(rj->model);
	if (!o) {
		json_object_put(recent);
		return NULL;
	}
	add_recent(o, recent, "progress");
	add_recent(o, recent, "speed_samples");
	add_recent(o, recent, "last_checkpoint");
	json_object_put(recent);
	job_model_summary(rj->model, registry_profiles(), summary,
			  sizeof(summary));
	json_object_object_add(o, "phase_name", json_object_new_string(
		job_phase_name(rj->model->phase)));
	json_object_object_add(o, "summary", json_object_new_string(summary));
	json_object_object_add(o, "decision", plan_decision_to_json(&rj->last));
	/* The steps the job is believed to stop at (steps=, or epochs= and
	 * the epoch length given or learned; 0: unknown). */
	json_object_object_add(o, "target_steps", json_num_new(
		job_model_target_steps(rj->model)));
	add_batch_now(o, rj->model);
	add_claims(o, rj->model);
	return o;
}

/* May an ordinary viewer see the job a plan decision is about? Not a
 * job the registry no longer holds (admins see every decision: they never
 * get here). */
static bool may_see_decision(const report_viewer_t *v, json_object *d)
{
	json_object *id;
	reg_job_t *rj;

	if (!json_object_object_get_ex(d, "job_id", &id))
		return false;
	rj = registry_find((uint32_t)json_object_get_int64(id));
	return rj && report_viewer_may_see(v, rj->model->uid);
}

/* The decisions the viewer may see, as `status` shows its jobs; the plan's
 * counts and timings name no job and stay. */
static void keep_visible_decisions(json_object *o, const report_viewer_t *v)
{
	json_object *all, *kept;

	if (v->admin || !json_object_object_get_ex(o, "decisions", &all) ||
	    !(kept = json_object_new_array()))
		return;
	for (size_t i = 0; i < json_object_array_length(all); i++) {
		json_object *d = json_object_array_get_idx(all, i);

		if (may_see_decision(v, d))
			json_object_array_add(kept, json_object_get(d));
	}
	json_object_object_add(o, "decisions", kept);
}

static json_object *answer_plan(const report_viewer_t *v)
{
	json_object *plan = registry_plan_json(), *o;
	char *conf = optimus_conf_text();

	/* The plan is answered with the configuration it ran with
	 * (optimusctl show config). */
	o = plan ? json_tokener_parse(json_object_to_json_string(plan)) :
		   json_object_new_object();
	if (o) {
		keep_visible_decisions(o, v);
		json_object_object_add(o, "config",
				       json_object_new_string(conf));
	}
	xfree(conf);
	return o;
}

/* One job's figures (report/metrics.h); its series are shown only to whom
 * may see it, which the report service decides. */
static int metrics_row(reg_job_t *rj, void *arg)
{
	job_model_t *m = rj->model;
	metrics_job_t *j = metrics_add_job(arg);
	bool holds = m->phase == JM_RUNNING || m->phase == JM_CHECKPOINTING;
	int ps = holds ? m->cur_ps : 0, w = holds ? m->cur_workers : 0;
	double left;

	if (!j)
		return -1;
	j->job_id = m->job_id;
	j->uid = m->uid;
	j->ended = m->phase == JM_DONE;
	snprintf(j->policy, sizeof(j->policy), "%s",
		 hints_policy_name(m->hints.policy));
	snprintf(j->mode, sizeof(j->mode), "%s",
		 hints_mode_name(m->hints.mode));
	snprintf(j->phase, sizeof(j->phase), "%s", job_phase_name(m->phase));
	snprintf(j->model, sizeof(j->model), "%s", m->hints.model);
	j->ps = ps;
	j->workers = w;
	j->gpus = (double)hints_gpus(&m->hints, ps, w);
	j->plan_ps = m->plan_ps;
	j->plan_workers = m->plan_workers;
	/* at the size held; a job that holds nothing has no such time */
	left = holds && w > 0 ? job_model_remaining_time(m, registry_profiles(),
							  ps, w) : NAN;
	j->remaining_seconds = isfinite(left) ? left : NAN;
	if (m->reports) {
		j->step = m->step;
		j->loss = m->loss;
		if (m->steps_per_sec > 0)
			j->steps_per_sec = m->steps_per_sec;
	}
	j->reports = (double)m->reports;
	j->resizes = m->resizes;
	j->preemptions = m->preemptions;
	j->restarts = m->restarts;
	j->resize_seconds = m->resize_seconds;
	return 0;
}

extern int query_metrics(metrics_t *m)
{
	static const char *phases[JM_DONE + 1];
	int rc = 0;

	for (int p = JM_PENDING; p <= JM_DONE; p++)
		phases[p] = job_phase_name(p);
	m->phases = phases;
	m->nphases = JM_DONE + 1;
	registry_lock();
	m->planner = true;
	m->per_job = optimus_conf.metrics_per_job;
	m->sched = *registry_stats();
	registry_for_each(metrics_row, m);
	if ((size_t)registry_count() != m->njobs)
		rc = -1;	/* no memory for a row */
	registry_unlock();
	return rc;
}

extern json_object *query_answer(const query_t *q, const report_viewer_t *v)
{
	json_object *o = NULL;

	registry_lock();
	switch (q->kind) {
	case QUERY_STATUS:
		o = answer_status(v);
		break;
	case QUERY_JOB:
		o = answer_job(q->job_id);
		break;
	case QUERY_PLAN:
		o = answer_plan(v);
		break;
	case QUERY_METRICS:
		break;	/* the report service answers it (query_metrics) */
	}
	registry_unlock();
	return o;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * report/metrics.c - the catalogue of the scheduler's metrics and their
 * text (report/metrics.h; each one is described in doc/metrics.md).
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report/metrics.h"
#include "util/grow.h"
#include "util/prom_text.h"

metrics_job_t *metrics_add_job(metrics_t *m)
{
	metrics_job_t *jobs = grow_array(m->jobs, &m->cap, m->njobs,
					 sizeof(*jobs), 16), *j;

	if (!jobs)
		return NULL;
	m->jobs = jobs;
	j = &jobs[m->njobs++];
	memset(j, 0, sizeof(*j));
	j->ps = j->workers = j->gpus = j->plan_ps = j->plan_workers = NAN;
	j->remaining_seconds = j->steps_per_sec = j->step = j->loss = NAN;
	j->reports = j->resizes = j->restarts = j->resize_seconds = NAN;
	j->preemptions = NAN;
	return j;
}

void metrics_free(metrics_t *m)
{
	free(m->jobs);
	m->jobs = NULL;
	m->njobs = m->cap = 0;
}

/* A family without labels and its one sample. */
static int single(FILE *f, const char *name, prom_type_t type,
		  const char *help, double v)
{
	return prom_family(f, name, type, help) ||
	       prom_sample(f, name, NULL, 0, v) ? -EINVAL : 0;
}

/* A family of samples labelled `label` = names[i], of values v[i]. */
static int labelled(FILE *f, const char *name, prom_type_t type,
		    const char *help, const char *label,
		    const metrics_count_t *v, size_t n)
{
	if (prom_family(f, name, type, help))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (prom_sample(f, name, &(prom_label_t){ label, v[i].label },
				1, (double)v[i].n))
			return -EINVAL;
	return 0;
}

static int render_channel(FILE *f, const metrics_channel_t *c)
{
	return single(f, "optimus_start_time_seconds", PROM_GAUGE,
		      "When the counters of the scheduler began (slurmctld "
		      "start, seconds since the epoch); they start again from "
		      "0 when slurmctld restarts.", c->start_time) ||
	       labelled(f, "optimus_reports_accepted_total", PROM_COUNTER,
			"Requests the report listener served, by message type "
			"(progress, speed, checkpoint, worker, gradients, "
			"query).", "type",
			c->accepted, c->naccepted) ||
	       labelled(f, "optimus_reports_refused_total", PROM_COUNTER,
			"Requests the report listener refused, by reason (the "
			"code of the refusal, doc/design/reports.md).", "reason",
			c->refused, c->nrefused) ? -EINVAL : 0;
}

static int render_sched(FILE *f, const metrics_t *m)
{
	static const char *const actions[METRICS_NACTIONS] = {
		"start", "resize", "keep", "wait", "preempt" };
	const metrics_sched_t *s = &m->sched;
	metrics_count_t d[METRICS_NACTIONS], w[2] = {
		{ "confirmed", s->ckpt_confirmed },
		{ "grace_expired", s->ckpt_expired } }, saves[2] = {
		{ "ok", s->state_saves }, { "failed", s->state_save_failures } };
	metrics_count_t *ph = calloc(m->nphases + 1, sizeof(*ph));
	int rc;

	if (!ph)
		return -ENOMEM;
	for (size_t i = 0; i < METRICS_NACTIONS; i++)
		d[i] = (metrics_count_t){ actions[i], s->plan_decisions[i] };
	for (size_t i = 0; i < m->nphases; i++) {
		ph[i].label = m->phases[i];
		for (size_t k = 0; k < m->njobs; k++)
			ph[i].n += !strcmp(m->jobs[k].phase, m->phases[i]);
	}
	rc = single(f, "optimus_plans_total", PROM_COUNTER,
		    "Plans the scheduler ran.", (double)s->plans) ||
	     single(f, "optimus_plan_failures_total", PROM_COUNTER,
		    "Plans that failed (no decision applied).",
		    (double)s->plan_failures) ||
	     single(f, "optimus_planned_jobs_total", PROM_COUNTER,
		    "Jobs planned, summed over the plans.",
		    (double)s->planned_jobs) ||
	     single(f, "optimus_plan_duration_seconds", PROM_GAUGE,
		    "Wall time of the last plan: fitting, allocation, "
		    "placement and applying its decisions.", s->plan_seconds) ||
	     single(f, "optimus_plan_last_run_timestamp_seconds", PROM_GAUGE,
		    "When the last plan ran (seconds since the epoch; 0: "
		    "none yet).", s->plan_time) ||
	     single(f, "optimus_plan_jobs", PROM_GAUGE,
		    "Jobs in the last plan.", (double)s->plan_jobs) ||
	     labelled(f, "optimus_plan_decisions", PROM_GAUGE,
		      "Decisions of the last plan, by action.", "action", d,
		      METRICS_NACTIONS) ||
	     single(f, "optimus_preemptions_total", PROM_COUNTER,
		    "Running jobs preempted for waiting ones (checkpoint "
		    "signal sent; requeued, planned again as pending).",
		    (double)s->preemptions) ||
	     labelled(f, "optimus_checkpoint_waits_total", PROM_COUNTER,
		      "Resizes and preemptions that waited for a checkpoint, "
		      "by how the wait ended: the job confirmed its "
		      "checkpoint, or the grace ran out.", "outcome", w, 2) ||
	     single(f, "optimus_checkpoint_wait_seconds_total", PROM_COUNTER,
		    "Time those waits took, summed.", s->ckpt_wait_seconds) ||
	     labelled(f, "optimus_state_file_saves_total", PROM_COUNTER,
		      "Writes of the state file, by result.", "result", saves,
		      2) ||
	     single(f, "optimus_state_file_last_save_timestamp_seconds",
		    PROM_GAUGE, "When the state file was last written "
		    "(seconds since the epoch; 0: never).", s->state_save_time) ||
	     labelled(f, "optimus_jobs", PROM_GAUGE,
		      "Jobs the scheduler tracks, by phase (every user's).",
		      "phase", ph, m->nphases) ? -EINVAL : 0;
	free(ph);
	return rc;
}

/* The families of one figure per job, labelled job_id. */
static const struct job_family {
	const char *name;
	prom_type_t type;
	size_t field;		/* offset of a double in metrics_job_t */
	const char *help;
} job_families[] = {
	{ "optimus_job_ps", PROM_GAUGE, offsetof(metrics_job_t, ps),
	  "Parameter servers the job holds now." },
	{ "optimus_job_workers", PROM_GAUGE, offsetof(metrics_job_t, workers),
	  "Workers the job holds now." },
	{ "optimus_job_gpus", PROM_GAUGE, offsetof(metrics_job_t, gpus),
	  "GPUs the job holds now (its PS and workers times their gpus=)." },
	{ "optimus_job_planned_ps", PROM_GAUGE, offsetof(metrics_job_t, plan_ps),
	  "Parameter servers the last plan gave the job." },
	{ "optimus_job_planned_workers", PROM_GAUGE,
	  offsetof(metrics_job_t, plan_workers),
	  "Workers the last plan gave the job." },
	{ "optimus_job_predicted_remaining_seconds", PROM_GAUGE,
	  offsetof(metrics_job_t, remaining_seconds),
	  "Predicted time to completion at the size held (absent while "
	  "unknown)." },
	{ "optimus_job_speed_steps_per_second", PROM_GAUGE,
	  offsetof(metrics_job_t, steps_per_sec),
	  "Measured training speed, from the job's last progress report." },
	{ "optimus_job_step", PROM_GAUGE, offsetof(metrics_job_t, step),
	  "Last reported training step." },
	{ "optimus_job_loss", PROM_GAUGE, offsetof(metrics_job_t, loss),
	  "Last reported training loss." },
	{ "optimus_job_reports_total", PROM_COUNTER,
	  offsetof(metrics_job_t, reports),
	  "Progress reports the scheduler took from the job." },
	{ "optimus_job_resizes_total", PROM_COUNTER,
	  offsetof(metrics_job_t, resizes),
	  "Resizes the scheduler began (checkpoint signal sent)." },
	{ "optimus_job_preemptions_total", PROM_COUNTER,
	  offsetof(metrics_job_t, preemptions),
	  "Preemptions of the job the scheduler began (checkpoint signal "
	  "sent; its GPUs then went to waiting jobs)." },
	{ "optimus_job_restarts_total", PROM_COUNTER,
	  offsetof(metrics_job_t, restarts),
	  "Runs of the job after its first (resizes and other requeues)." },
	{ "optimus_job_resize_seconds_total", PROM_COUNTER,
	  offsetof(metrics_job_t, resize_seconds),
	  "Time the job lost to resizes: from the checkpoint signal to the "
	  "next start, summed (the resize cost)." },
};

static double job_field(const metrics_job_t *j, size_t field)
{
	double v;

	memcpy(&v, (const char *)j + field, sizeof(v));
	return v;
}

static char *id_text(uint32_t id, char buf[12])
{
	snprintf(buf, 12, "%u", (unsigned)id);
	return buf;
}

static int render_jobs(FILE *f, const metrics_t *m, const bool *shown)
{
	char id[12], uid[12];

	if (prom_family(f, "optimus_job_info", PROM_GAUGE, "Always 1: the "
			"job's owner, policy, mode and model= hint."))
		return -EINVAL;
	for (size_t k = 0; k < m->njobs; k++) {
		const metrics_job_t *j = &m->jobs[k];
		prom_label_t l[] = { { "job_id", id_text(j->job_id, id) },
				     { "uid", id_text(j->uid, uid) },
				     { "policy", j->policy }, { "mode", j->mode },
				     { "model", j->model } };

		if (shown[k] && prom_sample(f, "optimus_job_info", l, 5, 1))
			return -EINVAL;
	}
	if (prom_family(f, "optimus_job_phase", PROM_GAUGE, "Always 1: the "
			"job's phase (pending, running, checkpointing, "
			"requeued, done)."))
		return -EINVAL;
	for (size_t k = 0; k < m->njobs; k++) {
		prom_label_t l[] = { { "job_id", id_text(m->jobs[k].job_id, id) },
				     { "phase", m->jobs[k].phase } };

		if (shown[k] && prom_sample(f, "optimus_job_phase", l, 2, 1))
			return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(job_families) / sizeof(job_families[0]);
	     i++) {
		const struct job_family *jf = &job_families[i];

		if (prom_family(f, jf->name, jf->type, jf->help))
			return -EINVAL;
		for (size_t k = 0; k < m->njobs; k++) {
			double v = job_field(&m->jobs[k], jf->field);
			prom_label_t l = { "job_id", id_text(m->jobs[k].job_id,
							     id) };

			if (shown[k] && isfinite(v) &&
			    prom_sample(f, jf->name, &l, 1, v))
				return -EINVAL;
		}
	}
	return 0;
}

int metrics_render(FILE *f, const metrics_channel_t *c, const metrics_t *m,
		   bool (*visible)(uint32_t owner, void *arg), void *arg)
{
	bool *shown;
	int rc;

	if (render_channel(f, c))
		return -EINVAL;
	if (!m || !m->planner)
		return 0;
	if ((rc = render_sched(f, m)))
		return rc;
	/* Per job only when asked, and never for a job that has ended: the
	 * series a scrape holds are bounded by the jobs alive (metrics.h). */
	if (!m->per_job)
		return 0;
	if (!(shown = calloc(m->njobs + 1, sizeof(*shown))))
		return -ENOMEM;
	for (size_t k = 0; k < m->njobs; k++)
		shown[k] = !m->jobs[k].ended && visible(m->jobs[k].uid, arg);
	rc = render_jobs(f, m, shown);
	free(shown);
	return rc;
}

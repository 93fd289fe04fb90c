/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_exp_qbench.c - the simulator's prediction for one run of
 * bench/quality_fair.py: the bench's own jobs (recorded
 * curve, arrival, cost factor) on its cluster (nodes x CPUs, a driver and
 * 1..max_workers workers of one CPU each), its plan interval and restart
 * cost, planned at arrivals and completions, with quality-vs-fair's
 * set-up for everything else (sim_exp_quality_setup). The bench writes
 * the set-up as JSON: the bench is the one source of truth of its run.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "sim_curves.h"
#include "sim_exp.h"

#define QB_MAX_TIMES 64

static double num(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ?
	       json_object_get_double(v) : NAN;
}

/* The catalogue's model of each family with the bench's tasks: a driver
 * and workers of one CPU, at most max_workers workers. */
static const sim_model_t *bench_model(sim_model_t *models, size_t *n,
				      const char *family, int max_workers)
{
	const sim_model_t *m = sim_catalog_find(family);

	for (size_t i = 0; i < *n; i++)
		if (!strcmp(models[i].name, m ? m->name : ""))
			return &models[i];
	if (!m || *n >= 16)
		return NULL;
	models[*n] = *m;
	models[*n].ps = res_make(1, 300, 0);
	models[*n].worker = res_make(1, 300, 0);
	models[*n].max_workers = max_workers;
	return &models[(*n)++];
}

int sim_exp_quality_bench(sim_exp_t *e, const char *path)
{
	json_object *o = json_object_from_file(path), *jobs, *times;
	sim_curveset_t set = { 0 };
	sim_model_t models[16];
	size_t nmodels = 0;
	sim_workload_t w = { 0 };
	sim_config_t c, f;
	sim_gen_params_t gp;
	int rc = -EINVAL;

	if (!o || !json_object_object_get_ex(o, "jobs", &jobs) ||
	    !json_object_object_get_ex(o, "times", &times)) {
		snprintf(e->err, e->errlen, "%s: not a quality bench set-up "
			 "(jobs, times)", path);
		goto out;
	}
	double cost = num(o, "cost_scale"), interval = num(o, "interval");
	double nodes = num(o, "nodes"), cpus = num(o, "cpus");
	double restart = num(o, "restart"), maxw = num(o, "max_workers");
	size_t nt = json_object_array_length(times);
	if (!(cost > 0) || !(interval > 0) || !(nodes >= 1) || !(cpus >= 2) ||
	    !(restart >= 0) || !(maxw >= 1) || !nt || nt > QB_MAX_TIMES) {
		snprintf(e->err, e->errlen, "%s: cost_scale, interval, nodes, "
			 "cpus, restart, max_workers or times missing or out "
			 "of range", path);
		goto out;
	}
	if ((rc = sim_exp_quality_curves(&set, e->err, e->errlen)))
		goto out;
	w.n = json_object_array_length(jobs);
	if (!(w.jobs = calloc(w.n ? w.n : 1, sizeof(*w.jobs)))) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < w.n; i++) {
		json_object *j = json_object_array_get_idx(jobs, i);
		json_object *name;
		sim_job_spec_t *s = &w.jobs[i];
		const sim_curve_t *cv = NULL;

		if (!json_object_object_get_ex(j, "curve", &name))
			name = NULL;
		for (size_t k = 0; name && k < set.n && !cv; k++)
			if (!strcmp(set.c[k].name, json_object_get_string(name)))
				cv = &set.c[k];
		s->arrival = num(j, "arrival");
		if (!cv || !(s->arrival >= 0) ||
		    !(s->model = bench_model(models, &nmodels, cv->family,
					     (int)maxw))) {
			snprintf(e->err, e->errlen, "%s: job %zu: unknown "
				 "curve or bad arrival", path, i);
			rc = -EINVAL;
			goto out;
		}
		s->mode = SPEED_SYNC;
		/* One iteration: c*S x cost CPU seconds over the workers,
		 * each of one CPU (sim_curve_truth), as the bench sleeps. */
		s->size = cost;
		s->weight = 1.0;
		s->curve = cv;
	}
	sim_exp_quality_setup(e, &c, &gp);
	c.nservers = (size_t)nodes;
	c.server = res_make(cpus, 1e6, 0);
	c.interval = interval;
	c.restart_base = restart;
	c.event_plans = true;
	c.sample_every = interval / 4;
	c.window = json_object_get_double(json_object_array_get_idx(times,
								    nt - 1));
	c.policy = PLAN_QUALITY;
	f = c;
	f.policy = PLAN_DRF;
	if ((rc = sim_exp_variant(e, "quality", &c, &gp, &w)) ||
	    (rc = sim_exp_variant(e, "fair (drf)", &f, &gp, &w)))
		goto out;
	const sim_result_t *q = sim_exp_row(e, "quality");
	const sim_result_t *d = sim_exp_row(e, "fair (drf)");
	double sq = 0, sd = 0;
	for (size_t i = 0; i < nt; i++) {
		double t = json_object_get_double(json_object_array_get_idx(
			times, i));
		double lq = sim_exp_loss_series(q, &t);
		double ld = sim_exp_loss_series(d, &t);
		char name[64], note[96];
		snprintf(name, sizeof(name), "loss at %.0f s, quality/fair", t);
		snprintf(note, sizeof(note), "quality %.4f, fair %.4f", lq, ld);
		sim_report_compare(e->report, name, lq / ld, NAN, "", note);
		sq += lq;
		sd += ld;
	}
	char note[96];
	snprintf(note, sizeof(note), "quality %.4f, fair %.4f (mean over the "
		 "%zu times)", sq / nt, sd / nt, nt);
	sim_report_compare(e->report, "mean loss, quality/fair", sq / sd, NAN,
			   "", note);
out:
	sim_workload_free(&w);
	sim_curves_free(&set);
	if (o)
		json_object_put(o);
	return rc;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* sim_report.c - table, JSON and SVG output of an experiment. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "sim_report.h"
#include "util/svg.h"
#include "util/json_num.h"
#include "util/errmsg.h"

void sim_report_compare(sim_report_t *r, const char *name, double sim,
			double paper, const char *unit, const char *note)
{
	if (r->ncmp >= SIM_REPORT_MAX_CMP)
		return;
	sim_compare_t *c = &r->cmp[r->ncmp++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->sim = sim;
	c->paper = paper;
	snprintf(c->unit, sizeof(c->unit), "%s", unit ? unit : "");
	snprintf(c->note, sizeof(c->note), "%s", note ? note : "");
	c->sd = NAN;
	c->seeds = 0;
}

void sim_report_compare_sd(sim_report_t *r, const char *name, double mean,
			   double sd, unsigned seeds, double paper,
			   const char *unit, const char *note)
{
	size_t i = r->ncmp;

	sim_report_compare(r, name, mean, paper, unit, note);
	if (i < r->ncmp) {
		r->cmp[i].sd = sd;
		r->cmp[i].seeds = seeds;
	}
}

void sim_report_table(FILE *f, const sim_report_t *r)
{
	fprintf(f, "experiment %s (seed %llu, %u seed%s%s)\n\n",
		r->experiment, (unsigned long long)r->seed, r->seeds,
		r->seeds == 1 ? "" : "s", r->quick ? ", quick" : "");
	if (r->nruns)	/* a sweep has points, no rows */
		fprintf(f, "%-22s %9s %11s %11s %7s %7s %9s %8s\n", "run",
			"done", "avg JCT s", "makespan s", "CPU %", "GPU %",
			"restart %", "restarts");
	for (size_t i = 0; i < r->nruns; i++) {
		const sim_result_t *x = &r->runs[i];
		char done[24];
		snprintf(done, sizeof(done), "%zu/%zu", x->run.ndone,
			 x->run.njobs);
		fprintf(f, "%-22s %9s %11.0f %11.0f %7.1f %7.1f %9.2f %8zu\n",
			x->label, done, x->run.avg_jct, x->run.makespan,
			100 * x->cpu_util, 100 * x->run.gpu_util,
			100 * x->restart_share, x->run.restarts);
	}
	if (!r->ncmp)
		return;
	bool spread = false;
	for (size_t i = 0; i < r->ncmp; i++)
		spread |= r->cmp[i].seeds > 1;
	fprintf(f, "\n%-34s %12s", "figure", "simulated");
	if (spread)
		fprintf(f, " %7s %5s", "s.d.", "seeds");
	fprintf(f, " %12s  %s\n", "paper", "note");
	for (size_t i = 0; i < r->ncmp; i++) {
		const sim_compare_t *c = &r->cmp[i];
		char sim[24], paper[24], sd[32] = "";
		snprintf(sim, sizeof(sim), "%.3g%s", c->sim, c->unit);
		/* The spread of a mean over seeds beside it. */
		if (spread && c->seeds > 1)
			snprintf(sd, sizeof(sd), " %7.2g %5u", c->sd,
				 c->seeds);
		else if (spread)
			snprintf(sd, sizeof(sd), " %7s %5s", "-", "1");
		fprintf(f, "%-34s %12s%s", c->name, sim, sd);
		if (isnan(c->paper))
			snprintf(paper, sizeof(paper), "-");
		else
			snprintf(paper, sizeof(paper), "%.3g%s", c->paper,
				 c->unit);
		fprintf(f, " %12s  %s\n", paper, c->note);
	}
}

static json_object *job_json(const sim_job_outcome_t *run,
			     const sim_job_result_t *j, double window)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "id", json_object_new_int64(j->id));
	json_object_object_add(o, "model", json_object_new_string(j->model));
	json_object_object_add(o, "mode",
			       json_object_new_string(j->sync ? "sync" :
							       "async"));
	json_object_object_add(o, "arrival", json_num_new(run->submit));
	json_object_object_add(o, "start", json_num_new(run->start));
	json_object_object_add(o, "end", run->end >= 0 ?
			       json_num_new(run->end) : NULL);
	json_object_object_add(o, "steps", json_num_new(j->total_steps));
	json_object_object_add(o, "restarts",
			       json_object_new_int((int)run->restarts));
	json_object_object_add(o, "cpu_seconds", json_num_new(j->cpu_seconds));
	json_object_object_add(o, "loss0", json_num_new(j->loss0));
	json_object_object_add(o, "loss_end", json_num_new(j->loss_end));
	if (window > 0) {
		json_object_object_add(o, "window_loss", json_num_new(j->window_loss));
		json_object_object_add(o, "window_cpu_seconds",
				       json_num_new(j->window_cpu));
		json_object_object_add(o, "first_interval_cpu_seconds",
				       json_num_new(j->young_cpu));
	}
	return o;
}

static json_object *run_json(const sim_result_t *x, bool with_jobs)
{
	json_object *o = json_object_new_object();
	json_object *series = json_object_new_array();

	json_object_object_add(o, "label", json_object_new_string(x->label));
	json_object_object_add(o, "jobs", json_object_new_int64(x->run.njobs));
	json_object_object_add(o, "jobs_done",
			       json_object_new_int64(x->run.ndone));
	json_object_object_add(o, "avg_jct", json_num_new(x->run.avg_jct));
	json_object_object_add(o, "makespan", json_num_new(x->run.makespan));
	json_object_object_add(o, "cpu_util", json_num_new(x->cpu_util));
	json_object_object_add(o, "gpu_util", json_num_new(x->run.gpu_util));
	json_object_object_add(o, "restart_share",
			       json_num_new(x->restart_share));
	json_object_object_add(o, "restarts",
			       json_object_new_int64(x->run.restarts));
	json_object_object_add(o, "plans", json_object_new_int64(x->plans));
	for (size_t i = 0; i < x->nseries; i++) {
		json_object *pt = json_object_new_array();
		json_object_array_add(pt, json_num_new(x->series_t[i]));
		json_object_array_add(pt, json_num_new(x->series_loss[i]));
		json_object_array_add(series, pt);
	}
	json_object_object_add(o, "loss_series", series);
	if (with_jobs && x->jobs) {
		json_object *jobs = json_object_new_array();
		for (size_t i = 0; i < x->run.njobs; i++)
			json_object_array_add(jobs, job_json(&x->run.jobs[i],
							     &x->jobs[i],
							     x->window));
		json_object_object_add(o, "job_results", jobs);
	}
	return o;
}

json_object *sim_report_json(const sim_report_t *r, bool with_jobs)
{
	json_object *o = json_object_new_object();
	json_object *runs = json_object_new_array();
	json_object *cmp = json_object_new_array();

	json_object_object_add(o, "experiment",
			       json_object_new_string(r->experiment));
	json_object_object_add(o, "seed", json_object_new_int64(r->seed));
	json_object_object_add(o, "seeds", json_object_new_int(r->seeds));
	json_object_object_add(o, "quick", json_object_new_boolean(r->quick));
	for (size_t i = 0; i < r->nruns; i++)
		json_object_array_add(runs, run_json(&r->runs[i], with_jobs));
	json_object_object_add(o, "runs", runs);
	for (size_t i = 0; i < r->ncmp; i++) {
		const sim_compare_t *c = &r->cmp[i];
		json_object *e = json_object_new_object();
		json_object_object_add(e, "name",
				       json_object_new_string(c->name));
		json_object_object_add(e, "simulated", json_num_new(c->sim));
		json_object_object_add(e, "paper", json_num_new(c->paper));
		json_object_object_add(e, "sd", json_num_new(c->sd));
		json_object_object_add(e, "seeds",
				       json_object_new_int(c->seeds ? c->seeds :
							   1));
		json_object_object_add(e, "unit",
				       json_object_new_string(c->unit));
		json_object_object_add(e, "note",
				       json_object_new_string(c->note));
		json_object_array_add(cmp, e);
	}
	json_object_object_add(o, "comparisons", cmp);
	if (r->nsweep) {
		json_object *sw = json_object_new_array();
		for (size_t i = 0; i < r->nsweep; i++) {
			const sim_sweep_point_t *p = &r->sweep[i];
			json_object *e = json_object_new_object();
			json_object_object_add(e, "axis",
					       json_object_new_string(p->axis));
			json_object_object_add(e, "x", json_num_new(p->x));
			json_object_object_add(e, "ratio",
					       json_num_new(p->ratio));
			json_object_object_add(e, "sd", json_num_new(p->sd));
			json_object_object_add(e, "quality_lower_seeds",
					       json_object_new_int(p->better));
			json_object_object_add(e, "quality",
					       json_num_new(p->quality));
			json_object_object_add(e, "fair", json_num_new(p->fair));
			json_object_object_add(e, "fair_length_intervals",
					       json_num_new(p->fair_length));
			json_object_array_add(sw, e);
		}
		json_object_object_add(o, "sweep", sw);
	}
	return o;
}

FILE *sim_report_open_svg(const char *dir, const char *exp,
			  const char *what, char *err, size_t errlen)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s-%s.svg", dir, exp, what);
	if (!(f = fopen(path, "w")))
		errmsg_set(err, errlen, 0, "%s: %s", path, strerror(errno));
	return f;
}

/* JCT and makespan normalised to the first run (paper's Fig. 11). */
static void svg_jct(FILE *f, const sim_report_t *r)
{
	const char *groups[SIM_REPORT_MAX_RUNS];
	double jct[SIM_REPORT_MAX_RUNS], mk[SIM_REPORT_MAX_RUNS];
	const sim_result_t *base = &r->runs[0];
	char title[128];

	for (size_t i = 0; i < r->nruns; i++) {
		groups[i] = r->runs[i].label;
		jct[i] = r->runs[i].run.avg_jct / base->run.avg_jct;
		mk[i] = r->runs[i].run.makespan / base->run.makespan;
	}
	svg_series_t s[2] = { { "average JCT", NULL, jct, r->nruns },
			      { "makespan", NULL, mk, r->nruns } };
	snprintf(title, sizeof(title), "%s: normalised to %s", r->experiment,
		 base->label);
	svg_bars(f, title, "normalised time", groups, r->nruns, s, 2);
}

static void svg_loss(FILE *f, const sim_report_t *r)
{
	svg_series_t s[SIM_REPORT_MAX_RUNS];
	char title[128];

	for (size_t i = 0; i < r->nruns; i++)
		s[i] = (svg_series_t){ r->runs[i].label, r->runs[i].series_t,
				       r->runs[i].series_loss,
				       r->runs[i].nseries };
	snprintf(title, sizeof(title), "%s: mean loss of submitted jobs",
		 r->experiment);
	svg_lines(f, title, "time (s)", "loss", s, r->nruns);
}

int sim_report_svg(const char *dir, const sim_report_t *r, char *err,
		   size_t errlen)
{
	FILE *f;

	if (r->nruns) {
		f = sim_report_open_svg(dir, r->experiment, "jct", err, errlen);
		if (!f)
			return -errno;
		svg_jct(f, r);
		if (fclose(f))
			return -EIO;
	}
	if (r->nruns && r->runs[0].nseries) {
		f = sim_report_open_svg(dir, r->experiment, "loss", err,
					errlen);
		if (!f)
			return -errno;
		svg_loss(f, r);
		if (fclose(f))
			return -EIO;
	}
	return r->svg_extra ? r->svg_extra(dir, r, err, errlen) : 0;
}

void sim_report_free(sim_report_t *r)
{
	for (size_t i = 0; i < r->nruns; i++)
		sim_result_free(&r->runs[i]);
	r->nruns = 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * optimusctl - ask sched/optimus what it knows and plans
 * (see optimusctl(1)): status, show job N, plan, metrics, plan-history;
 * --json for scripts.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_errno.h>

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ascii_plot.h"
#include "hints/hints.h"
#include "models/curve_fit.h"
#include "report/client.h"
#include "util/json_num.h"
#include "util/json_strict.h"
#include "util/svg.h"

typedef struct opts {
	int json;
	int plot;
	int all;
	long points;		/* 0: all */
	const char *addr;
	const char *svg;	/* plan-history: the file to write */
	const char *output;	/* metrics: the file to replace */
	int timeout_ms;
} opts_t;

static void usage(FILE *f)
{
	fprintf(f,
"Usage: optimusctl [OPTIONS] status [--all]\n"
"       optimusctl [OPTIONS] show job N [--points N]\n"
"       optimusctl [OPTIONS] plan\n"
"       optimusctl [OPTIONS] show config\n"
"       optimusctl [OPTIONS] metrics [--output FILE]\n"
"       optimusctl [OPTIONS] plan-history N --svg FILE\n"
"\n"
"Query the sched/optimus scheduler over its munge-authenticated channel.\n"
"  status       the scheduler's jobs (finished ones only with --all): state,\n"
"               reports, last progress and speed\n"
"  show job N   one job: loss points, the scheduler's fitted curve (and an\n"
"               ASCII plot of them), speed samples, and whatever else the\n"
"               scheduler knows (predictions, allocation history); your\n"
"               jobs only unless you are root or SlurmUser\n"
"  plan         the scheduler's current plan, one row per decision; the\n"
"               decisions about your jobs only unless you are root or\n"
"               SlurmUser\n"
"  show config  the settings sched/optimus runs with (optimus.conf's and\n"
"               the defaults it leaves out), one Key=Value a line\n"
"  metrics      the scheduler's figures in Prometheus' text format, for\n"
"               node_exporter's textfile collector (doc/metrics.md); job\n"
"               series of your jobs only unless you are root or SlurmUser\n"
"  plan-history N --svg FILE\n"
"               job N's size over time (PS, workers, GPUs; resizes\n"
"               marked) and its loss, drawn as SVG into FILE ('-': stdout)\n"
"\n"
"Options:\n"
"  --json             print the scheduler's answer as (strict) JSON\n"
"  --all              status: finished jobs too\n"
"  --points N         show job: only the last N points of each series\n"
"  --svg FILE         plan-history: the SVG file to write\n"
"  --output FILE      metrics: replace FILE whole (temporary file + rename)\n"
"  --no-plot          no ASCII plot in 'show job'\n"
"  --addr HOST:PORT   listener (default: $OPTIMUS_REPORT_ADDR, else\n"
"                     ReportAddress/ReportPort of optimus.conf beside\n"
"                     $SLURM_CONF)\n"
"  --timeout MS       connect/reply timeout (default %d)\n"
"  -h, --help         this text\n"
"\n"
"Exit status: 0 answered, 1 refused or unreachable, 2 usage error.\n",
		REPORT_TIMEOUT_MS);
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (o)
		json_object_object_get_ex(o, key, &v);
	return v;
}

static double num(json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return v ? json_object_get_double(v) : 0.0;
}

static const char *str(json_object *o, const char *key, const char *dflt)
{
	json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_string) ?
	       json_object_get_string(v) : dflt;
}

/* The history's row ("reporting") of job id, NULL when none. */
static json_object *history_row(json_object *res, int64_t id)
{
	json_object *rows = get(res, "reporting");
	size_t n = rows && json_object_is_type(rows, json_type_array) ?
		   json_object_array_length(rows) : 0;

	for (size_t i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(rows, i);

		if ((int64_t)num(r, "job") == id)
			return r;
	}
	return NULL;
}

/*
 * One row per job. The scheduler's row (query.c: job_id, phase, reports,
 * step, loss, ps, workers, steps_per_sec, summary) is completed from the
 * listener's history of the same job (last_progress: samples/s; last_speed:
 * a measured speed sample); a job only the history knows is shown with
 * state "reported".
 */
static void print_job_row(json_object *j, json_object *h)
{
	json_object *p = get(h, "last_progress"), *s = get(h, "last_speed");
	int64_t id = (int64_t)(get(j, "job_id") ? num(j, "job_id") :
			       num(j, "job"));
	double reports = get(j, "reports") ? num(j, "reports") : num(h, "reports");
	char speed[64] = "-";

	/* the scheduler's current speed, else the last measured sample */
	if (num(j, "steps_per_sec") > 0 || (get(j, "workers") && !s))
		snprintf(speed, sizeof(speed), "%d,%d,%.4g", (int)num(j, "ps"),
			 (int)num(j, "workers"), num(j, "steps_per_sec"));
	else if (s)
		snprintf(speed, sizeof(speed), "%d,%d,%.4g", (int)num(s, "ps"),
			 (int)num(s, "workers"), num(s, "steps_per_sec"));
	printf("%-10lld %-13s %-8lld %-8lld ", (long long)id,
	       str(j, "phase", "reported"), (long long)num(j, "uid"),
	       (long long)reports);
	/* A job that never reported has no loss: "-", never a perfect 0. */
	if ((get(j, "step") && reports > 0) || p)
		printf("%-12lld %-12.6g %-10.4g ", (long long)num(p ? p : j,
		       "step"), num(p ? p : j, "loss"), num(p, "sps"));
	else
		printf("%-12s %-12s %-10s ", "-", "-", "-");
	printf("%-18s %s\n", speed, str(j, "summary", ""));
}

static void print_header(void)
{
	printf("%-10s %-13s %-8s %-8s %-12s %-12s %-10s %-18s %s\n", "JOBID",
	       "STATE", "UID", "REPORTS", "STEP", "LOSS", "SAMPLES/S",
	       "SPEED(p,w,steps/s)", "SUMMARY");
}

/* The scheduler's jobs (finished ones with --all), then jobs only the
 * history knows. */
static void print_status(json_object *res, const opts_t *o)
{
	json_object *jobs = get(res, "jobs"), *rows = get(res, "reporting");
	size_t n = jobs ? json_object_array_length(jobs) : 0;
	size_t nr = rows ? json_object_array_length(rows) : 0, shown = 0,
	       hidden = 0;

	if (get(res, "policy"))
		printf("Policy %s, plan every %lld s\n", str(res, "policy", "?"),
		       (long long)num(res, "plan_interval"));
	print_header();
	for (size_t i = 0; i < n; i++) {
		json_object *j = json_object_array_get_idx(jobs, i);

		if (!o->all && !strcmp(str(j, "phase", ""), "done")) {
			hidden++;
			continue;
		}
		print_job_row(j, history_row(res, (int64_t)num(j, "job_id")));
		shown++;
	}
	for (size_t i = 0; i < nr; i++) {
		json_object *h = json_object_array_get_idx(rows, i);
		int known = 0;

		for (size_t k = 0; k < n; k++)
			known |= num(json_object_array_get_idx(jobs, k),
				     "job_id") == num(h, "job");
		if (!known) {
			print_job_row(h, h);
			shown++;
		}
	}
	if (!shown)
		printf("(no job)\n");
	if (hidden)
		printf("(%zu finished job%s not shown: --all)\n", hidden,
		       hidden == 1 ? "" : "s");
	/* The reply holds at most ReportStatusMaxJobs of the jobs one may
	 * see (optimus.conf(5)). */
	if (get(res, "truncated") && json_object_get_boolean(
		    get(res, "truncated")))
		printf("(truncated: %zu of the %lld jobs you may see; a reply "
		       "holds at most ReportStatusMaxJobs)\n", n,
		       (long long)num(res, "jobs_total"));
}

/* The curve the plot draws: the scheduler's own fit (convergence.fit of
 * the normalised loss against k = step - origin + 1, times scale). */
typedef struct job_curve {
	curve_coef_t coef;
	double scale, origin;
} job_curve_t;

static int job_fit(json_object *res, job_curve_t *jc)
{
	json_object *conv = get(res, "convergence"), *f = get(conv, "fit");
	json_object *c = get(f, "c");
	const char *form = str(f, "form", NULL);

	if (!c || !form || !json_object_is_type(c, json_type_array) ||
	    json_object_array_length(c) != 3 ||
	    curve_form_parse(form, &jc->coef.form))
		return -1;
	for (int i = 0; i < 3; i++)
		jc->coef.c[i] = json_object_get_double(
			json_object_array_get_idx(c, i));
	jc->coef.rms = num(f, "rms");
	jc->scale = get(f, "scale") ? num(f, "scale") : 1.0;
	jc->origin = num(conv, "origin");
	return 0;
}

static double eval_fit(double x, const void *ctx)
{
	const job_curve_t *jc = ctx;

	return jc->scale * curve_eval(&jc->coef, x - jc->origin + 1.0);
}

static void print_points(json_object *res, const opts_t *o)
{
	json_object *pts = get(res, "progress");
	size_t n = pts && json_object_is_type(pts, json_type_array) ?
		   json_object_array_length(pts) : 0, m = 0;
	double *k = calloc(n + 1, sizeof(*k)), *l = calloc(n + 1, sizeof(*l));
	job_curve_t fit;
	int have_fit;

	for (size_t i = 0; k && l && i < n; i++) {
		json_object *p = json_object_array_get_idx(pts, i);

		if (num(p, "step") <= 0)
			continue;	/* the fitted forms need k > 0 */
		k[m] = num(p, "step");
		l[m++] = num(p, "loss");
	}
	printf("Loss points: %zu%s\n", n, o->points ? " (the last ones, "
	       "--points)" : "");
	have_fit = job_fit(res, &fit) == 0;
	if (have_fit)
		printf("Fit (scheduler): %s c0=%.6g c1=%.6g c2=%.6g rms=%.4g "
		       "(normalised loss x %.6g, k = step - %.0f + 1)\n",
		       curve_form_name(fit.coef.form), fit.coef.c[0],
		       fit.coef.c[1], fit.coef.c[2], fit.coef.rms, fit.scale,
		       fit.origin);
	else
		printf("Fit: none yet (the scheduler fits once it has enough "
		       "points)\n");
	if (o->plot && m > 0) {
		printf("\nloss against step ('*' reported, '.' fitted):\n");
		ascii_plot(stdout, k, l, m, have_fit ? eval_fit : NULL, &fit, 64, 16);
	}
	free(k);
	free(l);
}

static void print_speed(json_object *res)
{
	json_object *sp = get(res, "speed_samples");
	size_t n = sp && json_object_is_type(sp, json_type_array) ?
		   json_object_array_length(sp) : 0;

	printf("\nSpeed samples: %zu\n", n);
	if (n)
		printf("  %-6s %-8s %s\n", "PS", "WORKERS", "STEPS/S");
	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(sp, i);

		printf("  %-6d %-8d %.6g\n", (int)num(s, "ps"),
		       (int)num(s, "workers"), num(s, "steps_per_sec"));
	}
}

/* Everything else the scheduler said (predictions, allocations, ...). */
static void print_rest(json_object *res)
{
	static const char *const shown[] = { "job", "job_id", "uid", "reports",
		"progress", "speed_samples", "batch_now", NULL };

	json_object_object_foreach(res, key, val) {
		int skip = 0;

		for (int i = 0; shown[i]; i++)
			skip |= !strcmp(key, shown[i]);
		if (!skip)
			printf("%s: %s\n", key, json_object_to_json_string_ext(
				       json_strict(val), JSON_C_TO_STRING_PRETTY));
	}
}

/* The job's batch, efficiency and goodput (query.c add_batch_now). */
static void print_batch(json_object *res)
{
	json_object *b = get(res, "batch_now"), *v;
	char eff[32] = "unknown", good[48] = "unknown", noise[32] = "unknown";

	if (!b)
		return;
	if ((v = get(b, "efficiency")) && json_num_is(v))
		snprintf(eff, sizeof(eff), "%.3g", json_object_get_double(v));
	if ((v = get(b, "goodput")) && json_num_is(v))
		snprintf(good, sizeof(good), "%.4g examples/s",
			 json_object_get_double(v));
	if ((v = get(b, "noise_scale")) && json_num_is(v))
		snprintf(noise, sizeof(noise), "%.4g", json_object_get_double(v));
	printf("\nBatch: %.0f = %d per worker x %d workers x %d micro-steps "
	       "(%s)\nEfficiency: %s  Goodput: %s  Noise scale: %s "
	       "(%lld gradient reports)\n", num(b, "batch"),
	       (int)num(b, "local_batch"), (int)num(b, "workers"),
	       (int)num(b, "accum") + 1,
	       json_object_get_boolean(get(b, "adaptive")) ?
	       "adaptive: chosen by the scheduler" : "as submitted", eff, good,
	       noise, (long long)num(b, "grad_reports"));
	if ((v = get(b, "target_progress")) && json_num_is(v)) {
		char target[32] = "unknown";

		if (json_object_get_double(v) > 0)
			snprintf(target, sizeof(target), "%.0f",
				 json_object_get_double(v));
		printf("Progress: %.0f of %s steps at the smallest batch's "
		       "worth\n", num(b, "progress"), target);
	}
}

static void print_job(json_object *res, const opts_t *o)
{
	/* A tracked job's answer is its model (job_id); any other job's is
	 * its recent reports (job). */
	printf("Job %lld: uid %lld, %lld reports\n",
	       (long long)num(res, get(res, "job_id") ? "job_id" : "job"),
	       (long long)num(res, "uid"), (long long)num(res, "reports"));
	print_points(res, o);
	print_speed(res);
	print_batch(res);
	print_rest(res);
}

/*
 * The settings sched/optimus runs with, one "Key=Value" a line as in
 * optimus.conf (defaults included); --json: an object of them.
 */
static void print_config(json_object *res, const opts_t *o)
{
	json_object *c = get(res, "config"), *obj;
	char *text = strdup(c ? json_object_get_string(c) : "");
	char *save = NULL;

	if (!text || !(obj = json_object_new_object())) {
		free(text);
		return;
	}
	if (!c)
		fprintf(stderr, "optimusctl: the scheduler sent no configuration\n");
	for (char *kv = strtok_r(text, " ", &save); kv;
	     kv = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(kv, '=');

		if (!o->json) {
			printf("%s\n", kv);
			continue;
		}
		if (!eq)
			continue;
		*eq = '\0';
		json_object_object_add(obj, kv, json_object_new_string(eq + 1));
	}
	if (o->json)
		printf("%s\n", json_object_to_json_string_ext(
			       obj, JSON_C_TO_STRING_PRETTY));
	json_object_put(obj);
	free(text);
}

static void print_plan(json_object *res)
{
	json_object *planner = get(res, "planner"), *d = get(res, "decisions");
	size_t n = d && json_object_is_type(d, json_type_array) ?
		   json_object_array_length(d) : 0;

	if (planner && !strcmp(json_object_get_string(planner), "none")) {
		printf("No planner has registered yet.\n");
		return;
	}
	if (get(res, "error"))
		printf("Plan error: %s\n", str(res, "error", "?"));
	printf("Plan: %lld start, %lld resize, %lld keep, %lld wait "
	       "(allocation %.3g s, placement %.3g s)\n",
	       (long long)num(res, "nstart"), (long long)num(res, "nresize"),
	       (long long)num(res, "nkeep"), (long long)num(res, "nwait"),
	       num(res, "alloc_seconds"), num(res, "place_seconds"));
	printf("%-10s %-8s %-4s %-8s %-14s %-14s %-8s %s\n", "JOBID", "ACTION",
	       "PS", "WORKERS", "REMAINING_NOW", "REMAINING_PLAN", "GAIN",
	       "REASON");
	for (size_t i = 0; i < n; i++) {
		json_object *x = json_object_array_get_idx(d, i);
		char now[24] = "-", planned[24] = "-", gain[16] = "-";

		/* null: not finite (a job that cannot run now never ends) */
		if (get(x, "remaining_now"))
			snprintf(now, sizeof(now), "%.0f s", num(x, "remaining_now"));
		if (get(x, "remaining_planned"))
			snprintf(planned, sizeof(planned), "%.0f s",
				 num(x, "remaining_planned"));
		if (get(x, "gain"))
			snprintf(gain, sizeof(gain), "%.3g", num(x, "gain"));
		printf("%-10lld %-8s %-4d %-8d %-14s %-14s %-8s %s\n",
		       (long long)num(x, "job_id"), str(x, "action", "?"),
		       (int)num(x, "ps"), (int)num(x, "workers"), now, planned,
		       gain, str(x, "reason", ""));
	}
	if (!n)
		printf("(no decision)\n");
}

/*
 * plan-history: job `res` (the answer of "show job") drawn as SVG. Its
 * runs (start, end, PS, workers) give its size over time as steps, 0
 * between runs; each run after the first is marked: "resize" when its size
 * differs from the run before, else "restart". The loss points below, on
 * the same time axis (seconds since the first submission).
 */
typedef struct history_plot {
	double *x, *ps, *w, *gpus, *lx, *loss;
	size_t n, nloss;
	svg_mark_t *marks;
	char (*labels)[64];
	size_t nmarks;
} history_plot_t;

static void history_point(history_plot_t *h, double x, double ps, double w,
			  double gpus)
{
	h->x[h->n] = x;
	h->ps[h->n] = ps;
	h->w[h->n] = w;
	h->gpus[h->n++] = gpus;
}

static void history_runs(history_plot_t *h, json_object *runs, double t0,
			 double now, const optimus_hints_t *hints)
{
	size_t n = json_object_array_length(runs);

	for (size_t i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(runs, i);
		json_object *prev = i ? json_object_array_get_idx(runs, i - 1) :
				   NULL;
		double s = num(r, "start") - t0, e = num(r, "end");
		int ps = (int)num(r, "ps"), w = (int)num(r, "workers");
		double g = (double)hints_gpus(hints, ps, w);

		e = (e > 0 ? e : now) - t0;
		history_point(h, s, 0, 0, 0);
		history_point(h, s, ps, w, g);
		history_point(h, e, ps, w, g);
		history_point(h, e, 0, 0, 0);
		if (!prev)
			continue;
		snprintf(h->labels[h->nmarks], sizeof(h->labels[0]),
			 "%s %zu: %d PS + %d workers",
			 ps != (int)num(prev, "ps") ||
			 w != (int)num(prev, "workers") ? "resize" : "restart",
			 i, ps, w);
		h->marks[h->nmarks] = (svg_mark_t){ s, h->labels[h->nmarks] };
		h->nmarks++;
	}
}

static void history_loss(history_plot_t *h, json_object *pts, double t0)
{
	size_t n = json_object_array_length(pts);

	for (size_t i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(pts, i);

		if (!get(p, "received"))
			continue;
		h->lx[h->nloss] = num(p, "received") - t0;
		h->loss[h->nloss++] = num(p, "loss");
	}
}

static void history_free(history_plot_t *h)
{
	free(h->x), free(h->ps), free(h->w), free(h->gpus);
	free(h->lx), free(h->loss), free(h->marks), free(h->labels);
}

static int write_plan_history(json_object *res, const char *path)
{
	json_object *runs = get(res, "runs"), *pts = get(res, "progress");
	size_t nr = runs && json_object_is_type(runs, json_type_array) ?
		    json_object_array_length(runs) : 0;
	size_t np = pts && json_object_is_type(pts, json_type_array) ?
		    json_object_array_length(pts) : 0;
	double t0 = num(res, "first_submit"), end = num(res, "end_time");
	history_plot_t h = { 0 };
	optimus_hints_t hints;
	char err[256], title[96];
	FILE *f;
	int rc = 0;

	if (!get(res, "job_id") || !get(res, "first_submit")) {
		fprintf(stderr, "optimusctl: the scheduler has no plan history "
			"of this job (not an optimus job, or not planned yet)\n");
		return 1;
	}
	if (hints_parse(str(res, "hints", "optimus"), &hints, err, sizeof(err)))
		hints_init(&hints, HINTS_POLICY_OPTIMUS);	/* GPUs: 0 */
	h.x = calloc(4 * nr + 1, sizeof(double));
	h.ps = calloc(4 * nr + 1, sizeof(double));
	h.w = calloc(4 * nr + 1, sizeof(double));
	h.gpus = calloc(4 * nr + 1, sizeof(double));
	h.lx = calloc(np + 1, sizeof(double));
	h.loss = calloc(np + 1, sizeof(double));
	h.marks = calloc(nr + 1, sizeof(*h.marks));
	h.labels = calloc(nr + 1, sizeof(*h.labels));
	if (!h.x || !h.ps || !h.w || !h.gpus || !h.lx || !h.loss || !h.marks ||
	    !h.labels) {
		history_free(&h);
		fprintf(stderr, "optimusctl: out of memory\n");
		return 1;
	}
	if (nr)
		history_runs(&h, runs, t0, end > 0 ? end : (double)time(NULL),
			     &hints);
	if (np)
		history_loss(&h, pts, t0);
	snprintf(title, sizeof(title), "Job %lld: size over time",
		 (long long)num(res, "job_id"));
	{
		svg_series_t size[] = { { "PS", h.x, h.ps, h.n },
					{ "workers", h.x, h.w, h.n },
					{ "GPUs", h.x, h.gpus, h.n } };
		svg_series_t loss[] = { { "loss", h.lx, h.loss, h.nloss } };
		svg_chart_t charts[] = {
			{ title, "seconds since submission", "tasks", size, 3,
			  h.marks, h.nmarks },
			{ "Reported loss", "seconds since submission", "loss",
			  loss, 1, h.marks, h.nmarks },
		};

		f = strcmp(path, "-") ? fopen(path, "w") : stdout;
		if (!f) {
			fprintf(stderr, "optimusctl: cannot write %s: %s\n",
				path, strerror(errno));
			history_free(&h);
			return 1;
		}
		svg_stack(f, charts, np ? 2 : 1);
	}
	if ((f != stdout && fclose(f)) || (f == stdout && fflush(f))) {
		fprintf(stderr, "optimusctl: cannot write %s: %s\n", path,
			strerror(errno));
		rc = 1;
	} else if (f != stdout) {
		printf("%s: %zu runs, %zu restarts marked, %zu loss points\n",
		       path, nr, h.nmarks, h.nloss);
	}
	history_free(&h);
	return rc;
}

/* The metrics' text, one line per string of "lines" (report/service.c). */
static void print_metrics(FILE *f, json_object *res)
{
	json_object *lines = get(res, "lines");
	size_t n = lines && json_object_is_type(lines, json_type_array) ?
		   json_object_array_length(lines) : 0;

	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\n", json_object_get_string(
				json_object_array_get_idx(lines, i)));
}

/*
 * metrics --output FILE: the text replaces FILE whole, never half written
 * (node_exporter's textfile collector may read it at any moment): written
 * to a hidden temporary file of the same folder, which the collector does
 * not read (no ".prom" ending), flushed to disk, then renamed over FILE.
 * Mode 0644: the collector runs as another user. On failure FILE is left
 * as it was.
 */
static int write_metrics_file(json_object *res, const char *path)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) : 1;
	char tmp[4096];
	FILE *f = NULL;
	int fd, ok;

	if (snprintf(tmp, sizeof(tmp), "%.*s/.%s.XXXXXX", dirlen,
		     slash ? path : ".", slash ? slash + 1 : path) >=
	    (int)sizeof(tmp)) {
		fprintf(stderr, "optimusctl: --output %s: name too long\n", path);
		return 1;
	}
	if ((fd = mkstemp(tmp)) < 0 || fchmod(fd, 0644) ||
	    !(f = fdopen(fd, "w"))) {
		fprintf(stderr, "optimusctl: cannot write beside %s: %s\n", path,
			strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return 1;
	}
	print_metrics(f, res);
	ok = fflush(f) == 0 && fsync(fd) == 0;
	ok = fclose(f) == 0 && ok && rename(tmp, path) == 0;
	if (!ok) {
		fprintf(stderr, "optimusctl: cannot write %s: %s\n", path,
			strerror(errno));
		unlink(tmp);
		return 1;
	}
	return 0;
}

/* `show config`: the plan's query, of which only the configuration is shown. */
static int show_config;
/* `plan-history N`: the job's query, drawn. */
static int plan_history;

/* The command; -1 after printing one line naming the bad argument. */
static int parse_query(int argc, char **argv, query_t *q)
{
	char *end;
	unsigned long long id;

	if (argc == 0) {
		fprintf(stderr, "optimusctl: say status, show job N or plan "
			"(see --help)\n");
		return -1;
	}
	if (argc == 1 && !strcmp(argv[0], "status"))
		return q->kind = QUERY_STATUS, 0;
	if (argc == 1 && !strcmp(argv[0], "plan"))
		return q->kind = QUERY_PLAN, 0;
	if (argc == 1 && !strcmp(argv[0], "metrics"))
		return q->kind = QUERY_METRICS, 0;
	if (argc == 2 && !strcmp(argv[0], "show") &&
	    !strcmp(argv[1], "config"))
		return show_config = 1, q->kind = QUERY_PLAN, 0;
	if (!strcmp(argv[0], "plan-history")) {
		/* the same job id as "show job N" */
		char *show[] = { "show", "job", argc == 2 ? argv[1] : "" };

		if (argc != 2) {
			fprintf(stderr, "optimusctl: plan-history needs one job "
				"id\n");
			return -1;
		}
		plan_history = 1;
		return parse_query(3, show, q);
	}
	if (!strcmp(argv[0], "show") && argc >= 2 && strcmp(argv[1], "job")) {
		fprintf(stderr, "optimusctl: show '%s': only 'show job N' and "
			"'show config' exist\n", argv[1]);
		return -1;
	}
	if (!strcmp(argv[0], "show") && argc == 3) {
		errno = 0;
		id = strtoull(argv[2], &end, 10);
		if (errno || end == argv[2] || *end || argv[2][0] == '-' ||
		    id < 1 || id > UINT32_MAX) {
			fprintf(stderr, "optimusctl: show job '%s': not a job id "
				"(an integer from 1 to %u)\n", argv[2],
				UINT32_MAX);
			return -1;
		}
		q->kind = QUERY_JOB;
		q->job_id = (uint32_t)id;
		return 0;
	}
	if (!strcmp(argv[0], "show"))
		fprintf(stderr, "optimusctl: show job needs one job id\n");
	else if (strcmp(argv[0], "status") && strcmp(argv[0], "plan") &&
		 strcmp(argv[0], "metrics"))
		fprintf(stderr, "optimusctl: unknown command '%s' (status, show "
			"job N, plan, metrics, plan-history N)\n", argv[0]);
	else
		fprintf(stderr, "optimusctl: %s takes no argument ('%s')\n",
			argv[0], argv[1]);
	return -1;
}

/* A whole-number option value in [lo, hi]; -1 after one line naming it. */
static int opt_long(const char *name, const char *v, long lo, long hi,
		    long *out)
{
	char *end;

	errno = 0;
	*out = strtol(v, &end, 10);
	if (errno || end == v || *end || *out < lo || *out > hi) {
		fprintf(stderr, "optimusctl: --%s '%s': expected an integer from "
			"%ld to %ld\n", name, v, lo, hi);
		return -1;
	}
	return 0;
}

static int parse_opts(int argc, char **argv, opts_t *o)
{
	static const struct option lo[] = {
		{ "json", 0, NULL, 'j' }, { "no-plot", 0, NULL, 'n' },
		{ "addr", 1, NULL, 'a' }, { "timeout", 1, NULL, 't' },
		{ "all", 0, NULL, 'A' }, { "points", 1, NULL, 'p' },
		{ "svg", 1, NULL, 's' }, { "output", 1, NULL, 'o' },
		{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	long v;
	int c;

	*o = (opts_t){ .plot = 1, .timeout_ms = REPORT_TIMEOUT_MS };
	opterr = 0;	/* one line of our own instead of getopt's */
	/* options may follow the command (optimusctl show job 5 --json) */
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'j': o->json = 1; break;
		case 'n': o->plot = 0; break;
		case 'A': o->all = 1; break;
		case 'a': o->addr = optarg; break;
		case 's': o->svg = optarg; break;
		case 'o': o->output = optarg; break;
		case 't':
			if (opt_long("timeout", optarg, 1, 600000, &v))
				return -1;
			o->timeout_ms = (int)v;
			break;
		case 'p':
			if (opt_long("points", optarg, 1, PROTOCOL_MAX_POINTS,
				     &o->points))
				return -1;
			break;
		case 'h': usage(stdout); exit(0);
		default:
			fprintf(stderr, "optimusctl: %s '%s' (see --help)\n",
				optopt && strchr("jnAatpsoh", optopt) ?
				"option needs a value:" : "unknown option",
				argv[optind - 1]);
			return -1;
		}
	}
	return 0;
}

static int request(const opts_t *o, const query_t *q, json_object **res)
{
	message_t m = { .type = MSG_QUERY, .query = *q };
	report_endpoint_t ep;
	char err[512];
	int rc;

	if (o->addr)
		setenv("OPTIMUS_REPORT_ADDR", o->addr, 1);
	if ((rc = report_endpoint_resolve(&ep, err, sizeof(err))) == 0)
		rc = report_client_call(&ep, &m, o->timeout_ms, 0, res, err,
					sizeof(err));
	if (rc)
		fprintf(stderr, "optimusctl: %s\n", err);
	return rc;
}

int main(int argc, char **argv)
{
	json_object *res = NULL;
	query_t q = { 0 };
	opts_t o;
	int rc = 0;

	/* GSL's default error handler aborts: the models return errors. */
	gsl_set_error_handler_off();
	if (parse_opts(argc, argv, &o) ||
	    parse_query(argc - optind, argv + optind, &q))
		return 2;
	if (plan_history != !!o.svg) {
		fprintf(stderr, "optimusctl: %s\n", plan_history ?
			"plan-history needs --svg FILE" :
			"--svg is for plan-history");
		return 2;
	}
	if (o.output && q.kind != QUERY_METRICS) {
		fprintf(stderr, "optimusctl: --output is for metrics\n");
		return 2;
	}
	q.points = (uint32_t)o.points;
	if (request(&o, &q, &res))
		return 1;
	if (!res)
		res = json_object_new_object();
	if (plan_history)
		rc = write_plan_history(res, o.svg);
	else if (show_config)
		print_config(res, &o);
	else if (q.kind == QUERY_METRICS && o.output)
		rc = write_metrics_file(res, o.output);
	else if (o.json)
		printf("%s\n", json_object_to_json_string_ext(
			       json_strict(res), JSON_C_TO_STRING_PRETTY));
	else if (q.kind == QUERY_METRICS)
		print_metrics(stdout, res);
	else if (q.kind == QUERY_STATUS)
		print_status(res, &o);
	else if (q.kind == QUERY_JOB)
		print_job(res, &o);
	else
		print_plan(res);
	json_object_put(res);
	return rc;
}

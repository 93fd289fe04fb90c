/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_curves.c - recorded training curves as the truth of quality jobs
 * (see sim_curves.h and doc/design/simulator.md, "Recorded curves").
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "sim_catalog.h"
#include "sim_curves.h"
#include "sim_truth.h"
#include "util/errmsg.h"

typedef struct curve_row {
	char name[64], family[32];
	double size, step, iter, loss, cpu;
} curve_row_t;

/* One CSV row; 1 parsed, 0 header/blank, -EINVAL bad. */
static int curve_row_parse(char *line, curve_row_t *r)
{
	char *f[7], *save = NULL, *tok;
	int n = 0;

	line[strcspn(line, "\r\n")] = '\0';
	if (!line[0] || line[0] == '#' || !strncmp(line, "curve,", 6))
		return 0;
	for (tok = strtok_r(line, ",", &save); tok && n < 7;
	     tok = strtok_r(NULL, ",", &save))
		f[n++] = tok;
	if (n != 7 || tok || strlen(f[0]) >= sizeof(r->name) ||
	    strlen(f[1]) >= sizeof(r->family))
		return -EINVAL;
	snprintf(r->name, sizeof(r->name), "%s", f[0]);
	snprintf(r->family, sizeof(r->family), "%s", f[1]);
	double *v[5] = { &r->size, &r->step, &r->iter, &r->loss, &r->cpu };
	for (int i = 0; i < 5; i++) {
		char *end;
		*v[i] = strtod(f[2 + i], &end);
		if (end == f[2 + i] || *end || !isfinite(*v[i]) || *v[i] < 0)
			return -EINVAL;
	}
	return 1;
}

static int curve_grow(sim_curve_t *c, size_t *cap, double **raw,
		      double **cpu)
{
	if (c->n < *cap)
		return 0;
	size_t ncap = *cap ? 2 * *cap : 64;
	double *a = realloc(*raw, ncap * sizeof(double));
	if (!a)
		return -ENOMEM;
	*raw = a;
	double *b = realloc(*cpu, ncap * sizeof(double));
	if (!b)
		return -ENOMEM;
	*cpu = b;
	*cap = ncap;
	return 0;
}

/* Normalise a finished curve (sim_curves.h); the raw losses are freed. */
static int curve_close(sim_curve_t *c, double *raw, double *cpu)
{
	double sum = 0.0;
	size_t ncpu = 0;

	c->norm = malloc((c->n ? c->n : 1) * sizeof(double));
	if (!c->norm)
		return -ENOMEM;
	c->raw0 = c->rawmin = raw[0];
	for (size_t i = 0; i < c->n; i++) {
		c->rawmin = fmin(c->rawmin, raw[i]);
		/* Iteration 0 is the untrained model: no CPU spent. */
		if (cpu[i] > 0.0) {
			sum += cpu[i];
			ncpu++;
		}
	}
	double span = c->raw0 - c->rawmin;
	for (size_t i = 0; i < c->n; i++)
		c->norm[i] = span > 0.0 ? SIM_CURVE_LOSS0 *
					  (raw[i] - c->rawmin) / span : 0.0;
	c->cpu_mean = ncpu ? sum / ncpu : 0.0;
	return 0;
}

/* Runs of one family on the same data from the same untrained model. */
static bool curves_same_group(const sim_curve_t *a, const sim_curve_t *b)
{
	return !strcmp(a->family, b->family) &&
	       a->data_size == b->data_size && a->raw0 == b->raw0;
}

/* Renormalise every curve against its group's lowest loss (sim_curves.h):
 * the run's raw losses come back from its own normalisation. */
static void curves_normalise_groups(sim_curveset_t *set)
{
	for (size_t i = 0; i < set->n; i++) {
		sim_curve_t *c = &set->c[i];
		c->reach = c->rawmin;
		for (size_t j = 0; j < set->n; j++)
			if (curves_same_group(c, &set->c[j]))
				c->reach = fmin(c->reach, set->c[j].rawmin);
	}
	for (size_t i = 0; i < set->n; i++) {
		sim_curve_t *c = &set->c[i];
		double own = c->raw0 - c->rawmin, span = c->raw0 - c->reach;
		if (!(own > 0.0) || !(span > 0.0) || c->reach == c->rawmin)
			continue;
		for (size_t k = 0; k < c->n; k++) {
			double raw = c->rawmin + c->norm[k] * own /
						 SIM_CURVE_LOSS0;
			c->norm[k] = SIM_CURVE_LOSS0 * (raw - c->reach) / span;
		}
	}
}

static int curves_fail(char *err, size_t errlen, const char *path,
		       size_t line, const char *why, int rc)
{
	return errmsg_set(err, errlen, rc, "%s:%zu: %s", path, line, why);
}

int sim_curves_read(const char *path, sim_curveset_t *out, char *err,
		    size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t lineno = 0, cap = 0, setcap = 0;
	double *raw = NULL, *cpu = NULL;
	sim_curve_t *cur = NULL;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!f)
		return curves_fail(err, errlen, path, 0, strerror(errno),
				   -errno);
	while (!rc && fgets(line, sizeof(line), f)) {
		curve_row_t r;
		int p;

		lineno++;
		if ((p = curve_row_parse(line, &r)) <= 0) {
			if (p < 0)
				rc = curves_fail(err, errlen, path, lineno,
						 "expected curve,family,"
						 "data_size,step_size,"
						 "iteration,loss,cpu_s", p);
			continue;
		}
		if (!cur || strcmp(cur->name, r.name)) {
			if (cur && (rc = curve_close(cur, raw, cpu)))
				break;
			if (out->n == setcap) {
				size_t nc = setcap ? 2 * setcap : 64;
				sim_curve_t *a = realloc(out->c,
							 nc * sizeof(*a));
				if (!a) {
					rc = -ENOMEM;
					break;
				}
				out->c = a;
				setcap = nc;
			}
			cur = &out->c[out->n++];
			memset(cur, 0, sizeof(*cur));
			snprintf(cur->name, sizeof(cur->name), "%s", r.name);
			snprintf(cur->family, sizeof(cur->family), "%s",
				 r.family);
			cur->data_size = r.size;
			cur->step_size = r.step;
		}
		if ((rc = curve_grow(cur, &cap, &raw, &cpu)))
			break;
		raw[cur->n] = r.loss;
		cpu[cur->n++] = r.cpu;
	}
	if (!rc && cur)
		rc = curve_close(cur, raw, cpu);
	if (!rc && !out->n)
		rc = curves_fail(err, errlen, path, lineno, "no curves",
				 -EINVAL);
	if (!rc)
		curves_normalise_groups(out);
	if (rc == -ENOMEM)
		curves_fail(err, errlen, path, lineno, "out of memory", rc);
	fclose(f);
	free(raw);
	free(cpu);
	if (rc)
		sim_curves_free(out);
	return rc;
}

void sim_curves_free(sim_curveset_t *set)
{
	for (size_t i = 0; set->c && i < set->n; i++)
		free(set->c[i].norm);
	free(set->c);
	memset(set, 0, sizeof(*set));
}

double sim_curve_loss(const sim_curve_t *c, double iters)
{
	if (!(iters > 0.0))
		return c->norm[0];
	if (iters >= (double)(c->n - 1))
		return c->norm[c->n - 1];
	size_t k = (size_t)iters;
	double f = iters - (double)k;
	return c->norm[k] + f * (c->norm[k + 1] - c->norm[k]);
}

double sim_curves_level_share(const sim_curveset_t *set, double level)
{
	double sum = 0.0;

	for (size_t i = 0; i < set->n; i++) {
		const sim_curve_t *c = &set->c[i];
		size_t k = 0;
		while (k + 1 < c->n &&
		       c->norm[k] > SIM_CURVE_LOSS0 * (1.0 - level) + 1e-12)
			k++;
		sum += (double)k / (double)(c->n - 1);
	}
	return set->n ? sum / set->n : NAN;
}

double sim_curves_mean_cpu(const sim_curveset_t *set)
{
	double sum = 0.0;

	for (size_t i = 0; i < set->n; i++)
		sum += set->c[i].cpu_mean * (double)(set->c[i].n - 1);
	return set->n ? sum / set->n : 0.0;
}

int sim_curves_workload(const sim_curveset_t *set, size_t njobs,
			double mean_gap, double cost_scale, gsl_rng *rng,
			sim_workload_t *out, char *err, size_t errlen)
{
	double t = 0.0;

	memset(out, 0, sizeof(*out));
	if (!set->n || !(mean_gap > 0.0) || !(cost_scale > 0.0))
		return errmsg_set(err, errlen, -EINVAL,
				  "curves workload: no curves or bad "
				  "gap/scale");
	out->jobs = calloc(njobs ? njobs : 1, sizeof(*out->jobs));
	if (!out->jobs)
		return -ENOMEM;
	for (size_t i = 0; i < njobs; i++) {
		const sim_curve_t *c = &set->c[gsl_rng_uniform_int(rng,
								   set->n)];
		const sim_model_t *m = sim_catalog_find(c->family);
		sim_job_spec_t *j = &out->jobs[out->n];

		if (!m || m->family != SIM_FAMILY_MLLIB || c->n < 2) {
			errmsg_set(err, errlen, 0, "curve %s: family %s has no "
				   "MLlib catalogue entry or < 2 iterations",
				   c->name, c->family);
			sim_workload_free(out);
			return -EINVAL;
		}
		if (i)
			t += gsl_ran_exponential(rng, mean_gap);
		j->arrival = t;
		j->model = m;
		j->mode = SPEED_SYNC;
		j->size = cost_scale;
		j->weight = 1.0;
		j->curve = c;
		out->n++;
	}
	return 0;
}

int sim_curve_truth(sim_truth_t *t, const sim_curve_t *c, double cost_scale)
{
	if (!c || c->n < 2 || !(cost_scale > 0.0) || !(c->cpu_mean > 0.0))
		return -EINVAL;
	t->rec = c;
	/* One iteration is c*S CPU seconds (scaled) over w units. */
	t->theta[0] = c->cpu_mean * cost_scale / t->model->worker.v[0];
	t->loss0 = SIM_CURVE_LOSS0;
	/* Reports: one per iteration, up to the sim's cap per interval. */
	t->epoch_steps = 2.0;
	/* The run ends with its recorded iterations. */
	t->total_steps = (double)(c->n - 1);
	return 0;
}

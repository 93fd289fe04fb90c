/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* sim_workload.c - generated workloads and the trace reader. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_randist.h>

#include "sim_truth.h"
#include "util/grow.h"
#include "sim_workload.h"
#include "util/errmsg.h"

#define LINE_MAX_LEN 512
/* Google-like spikes: probability an arrival opens a spike, mean size. */
#define SPIKE_PROB 0.1
#define SPIKE_MEAN 6.0

static const char *arrival_names[] = { "poisson", "google", "batch" };

int sim_arrivals_parse(const char *name, sim_arrivals_t *out)
{
	for (int i = 0; i < 3; i++)
		if (name && !strcasecmp(name, arrival_names[i])) {
			*out = (sim_arrivals_t)i;
			return 0;
		}
	return -EINVAL;
}

const char *sim_arrivals_name(sim_arrivals_t a)
{
	return a <= SIM_ARRIVALS_BATCH ? arrival_names[a] : "?";
}

static int workload_grow(sim_workload_t *w, size_t *cap)
{
	size_t old = *cap;
	sim_job_spec_t *v = grow_array(w->jobs, cap, w->n, sizeof(*v), 64);

	if (!v)
		return -ENOMEM;
	/* Fields a generator or the parser leaves unset are 0/NULL. */
	memset(v + old, 0, (*cap - old) * sizeof(*v));
	w->jobs = v;
	return 0;
}

/* Next arrival time: Poisson gaps; Google: some arrivals bring a spike of
 * jobs within seconds, the gaps stretched to keep the mean rate. */
static double next_arrival(const sim_gen_params_t *gp, gsl_rng *rng,
			   double t, int *spike_left)
{
	if (gp->arrivals == SIM_ARRIVALS_BATCH)
		return 0.0;
	if (gp->arrivals == SIM_ARRIVALS_GOOGLE) {
		if (*spike_left > 0) {
			(*spike_left)--;
			return t + gsl_rng_uniform(rng) * 5.0;
		}
		if (gsl_rng_uniform(rng) < SPIKE_PROB)
			*spike_left = (int)gsl_ran_poisson(rng, SPIKE_MEAN);
		double stretch = 1.0 + SPIKE_PROB * SPIKE_MEAN;
		return t + gsl_ran_exponential(rng, gp->mean_gap * stretch);
	}
	return t + gsl_ran_exponential(rng, gp->mean_gap);
}

/* Users size a job by powers of two, one PS per worker (the naive 1:1
 * scaling the Optimus paper measures against): 1, 2, 4 or 8 workers. */
static void draw_request(sim_job_spec_t *j, gsl_rng *rng)
{
	int w = 2 << gsl_rng_uniform_int(rng, 3);

	j->req_workers = w < j->model->max_workers ? w : j->model->max_workers;
	j->req_ps = w < j->model->max_ps ? w : j->model->max_ps;
}

void sim_workload_request(const sim_job_spec_t *j, int *ps, int *workers)
{
	int w = j->model->max_workers < 4 ? j->model->max_workers : 4;
	int p = j->model->max_ps < w ? j->model->max_ps : w;

	*ps = j->req_ps > 0 ? j->req_ps : p;
	*workers = j->req_workers > 0 ? j->req_workers : w;
}

int sim_workload_generate(const sim_gen_params_t *gp, gsl_rng *rng,
			  sim_workload_t *out)
{
	const sim_model_t *models[64];
	size_t nm = sim_catalog_family(gp->family, models, 64), cap = 0;
	double t = 0.0;
	int spike = 0;

	memset(out, 0, sizeof(*out));
	if (!nm || !(gp->mean_gap >= 0.0) || gp->size_sigma < 0.0)
		return -EINVAL;
	for (size_t i = 0; i < gp->njobs; i++) {
		if (workload_grow(out, &cap))
			return -ENOMEM;
		sim_job_spec_t *j = &out->jobs[out->n++];
		/* The first job arrives at 0: the run starts with work. */
		t = i ? next_arrival(gp, rng, t, &spike) : 0.0;
		j->arrival = t;
		j->model = models[gsl_rng_uniform_int(rng, nm)];
		j->mode = gsl_rng_uniform(rng) < gp->sync_fraction ?
			SPEED_SYNC : SPEED_ASYNC;
		/* Within the truth model's domain (sim_truth_max_size). */
		j->size = fmin(exp(gsl_ran_gaussian(rng, gp->size_sigma)),
			       sim_truth_max_size(j->model, SIM_DELTA_DEFAULT));
		j->weight = 1.0;
		/* MLlib jobs have one driver and grow by units only. */
		if (j->model->family == SIM_FAMILY_DL)
			draw_request(j, rng);
	}
	return 0;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int parse_number(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return (errno || end == s || *trim(end) || !isfinite(*out)) ?
		-EINVAL : 0;
}

/* One data line into *j: NULL, or a message. */
/* An integer in [1, max] (a requested task count). */
static int parse_count(const char *s, int max, int *out)
{
	double v;

	if (parse_number(s, &v) || v != floor(v) || v < 1 || v > max)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

static const char *parse_request(char **f, sim_job_spec_t *j)
{
	if (parse_count(f[0], j->model->max_ps, &j->req_ps))
		return "ps must be an integer from 1 to the model's max PS";
	if (parse_count(f[1], j->model->max_workers, &j->req_workers))
		return "workers must be an integer from 1 to the model's max "
		       "workers";
	return NULL;
}

static const char *parse_fields(char *line, sim_job_spec_t *j)
{
	char *f[8];
	int n = 0;

	for (char *tok = line; tok && n < 8; n++) {
		char *comma = strchr(tok, ',');
		if (comma)
			*comma = '\0';
		f[n] = trim(tok);
		tok = comma ? comma + 1 : NULL;
	}
	if (n < 4 || n == 6 || n > 7)
		return "expected arrival_s,model,mode,size[,weight[,ps,workers]]";
	if (parse_number(f[0], &j->arrival) || j->arrival < 0)
		return "arrival must be a number of seconds >= 0";
	if (!(j->model = sim_catalog_find(f[1])))
		return "unknown model (see optimus-sim models)";
	if (!strcasecmp(f[2], "sync"))
		j->mode = SPEED_SYNC;
	else if (!strcasecmp(f[2], "async"))
		j->mode = SPEED_ASYNC;
	else
		return "mode must be sync or async";
	if (parse_number(f[3], &j->size) || !(j->size > 0))
		return "size must be a number > 0";
	if (j->size > sim_truth_max_size(j->model, SIM_DELTA_DEFAULT))
		return "size beyond the model's truth domain (a larger size "
		       "would converge sooner; see sim_truth_max_size in "
		       "doc/design/simulator.md)";
	j->weight = 1.0;
	if (n >= 5 && (parse_number(f[4], &j->weight) || !(j->weight > 0)))
		return "weight must be a number > 0";
	j->req_ps = j->req_workers = 0;
	return n == 7 ? parse_request(&f[5], j) : NULL;
}

int sim_workload_parse(FILE *f, const char *name, sim_workload_t *out,
		       char *err, size_t errlen)
{
	char line[LINE_MAX_LEN];
	size_t cap = 0, lineno = 0;
	bool header_ok = true;	/* no data or header line seen yet */

	memset(out, 0, sizeof(*out));
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			errmsg_set(err, errlen, 0,
				   "%s:%zu: line too long", name,
				   lineno);
			goto fail;
		}
		char *s = trim(line);
		if (!*s || *s == '#')
			continue;
		bool header = header_ok && !strncasecmp(s, "arrival", 7);
		header_ok = false;
		if (header)
			continue;
		if (workload_grow(out, &cap)) {
			errmsg_set(err, errlen, 0, "%s: out of memory", name);
			goto fail;
		}
		const char *why = parse_fields(s, &out->jobs[out->n]);
		if (why) {
			errmsg_set(err, errlen, 0,
				   "%s:%zu: %s", name, lineno, why);
			goto fail;
		}
		out->n++;
	}
	if (!out->n) {
		errmsg_set(err, errlen, 0, "%s: no job in the trace", name);
		goto fail;
	}
	/* Insertion sort: stable (equal arrivals keep file order), and
	 * traces are small or nearly sorted. */
	for (size_t i = 1; i < out->n; i++) {
		sim_job_spec_t key = out->jobs[i];
		size_t k = i;
		while (k > 0 && out->jobs[k - 1].arrival > key.arrival) {
			out->jobs[k] = out->jobs[k - 1];
			k--;
		}
		out->jobs[k] = key;
	}
	return 0;
fail:
	sim_workload_free(out);
	return -EINVAL;
}

int sim_workload_read(const char *path, sim_workload_t *out, char *err,
		      size_t errlen)
{
	FILE *f = fopen(path, "r");

	if (!f) {
		int e = errno;
		errmsg_set(err, errlen, 0, "%s: %s", path, strerror(e));
		memset(out, 0, sizeof(*out));
		return -e;
	}
	int rc = sim_workload_parse(f, path, out, err, errlen);
	fclose(f);
	return rc;
}

void sim_workload_free(sim_workload_t *w)
{
	free(w->jobs);
	w->jobs = NULL;
	w->n = 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_outcome.c - a simulated run's outcome and its figures (see
 * sim_outcome.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <gsl/gsl_vector.h>

#include "sim_job_core.h"
#include "sim_outcome.h"

int sim_outcome_init(sim_outcome_t *o, size_t n)
{
	memset(o, 0, sizeof(*o));
	o->jobs = calloc(n ? n : 1, sizeof(*o->jobs));
	if (!o->jobs)
		return -ENOMEM;
	o->njobs = n;
	for (size_t i = 0; i < n; i++)
		o->jobs[i].start = o->jobs[i].end = -1.0;
	return 0;
}

void sim_outcome_free(sim_outcome_t *o)
{
	free(o->jobs);
	o->jobs = NULL;
}

void sim_job_outcome_take(sim_job_outcome_t *j, sim_take_t take, double now)
{
	switch (take) {
	case SIM_TAKE_START:
		if (j->start < 0)
			j->start = now;
		break;
	case SIM_TAKE_RESTART:
	case SIM_TAKE_RESIZE:
		j->restarts++;
		break;
	case SIM_TAKE_REBATCH:
		j->rebatches++;
		break;
	default:
		break;
	}
}

void sim_job_outcome_lose(sim_job_outcome_t *j, double seconds)
{
	j->lost += seconds;
}

double sim_job_outcome_jct(const sim_job_outcome_t *j)
{
	return j->end >= 0 ? j->end - j->submit : NAN;
}

double sim_job_outcome_wait(const sim_job_outcome_t *j)
{
	return j->start >= 0 ? j->start - j->submit : NAN;
}

void sim_outcome_quantiles(double *v, size_t n, double *median, double *p99)
{
	gsl_sort(v, 1, n);
	*median = n ? gsl_stats_quantile_from_sorted_data(v, 1, n, 0.5) : NAN;
	*p99 = n ? gsl_stats_quantile_from_sorted_data(v, 1, n, 0.99) : NAN;
}

int sim_outcome_figures(sim_outcome_t *o)
{
	double *jct = calloc(o->njobs + 1, sizeof(*jct));
	size_t n = 0;

	if (!jct)
		return -ENOMEM;
	o->makespan = o->gpu_seconds = o->lost = o->run_seconds = 0.0;
	o->restarts = o->rebatches = 0;
	for (size_t i = 0; i < o->njobs; i++) {
		const sim_job_outcome_t *j = &o->jobs[i];
		o->gpu_seconds += j->gpu_seconds;
		o->restarts += j->restarts;
		o->rebatches += j->rebatches;
		if (j->end < 0)
			continue;
		jct[n++] = sim_job_outcome_jct(j);
		o->makespan = fmax(o->makespan, j->end);
		o->lost += j->lost;
		o->run_seconds += j->end - j->start;
	}
	o->ndone = n;
	/* The mean is the JCTs' sum in workload order over their count. */
	gsl_vector_view jv = gsl_vector_view_array(jct, n ? n : 1);
	o->avg_jct = n ? gsl_vector_sum(&jv.vector) / n : NAN;
	sim_outcome_quantiles(jct, n, &o->median_jct, &o->p99_jct);
	free(jct);
	return 0;
}

int sim_outcome_build(sim_outcome_t *o, const void *jobs, size_t n,
		      size_t stride, double gpus, double held, double now)
{
	const char *at = jobs;
	int rc = sim_outcome_init(o, n);

	for (size_t i = 0; !rc && i < n; i++, at += stride)
		o->jobs[i] = ((const sim_job_core_t *)at)->outcome;
	if (!rc)
		rc = sim_outcome_figures(o);
	if (!rc)
		o->gpu_util = sim_outcome_use(o, gpus, held < 0 ?
					      o->gpu_seconds : held, now);
	return rc;
}

double sim_outcome_use(const sim_outcome_t *o, double capacity, double held,
		       double now)
{
	double cap = capacity * (o->makespan > 0 ? o->makespan : now);

	return cap > 0 ? held / cap : 0.0;
}

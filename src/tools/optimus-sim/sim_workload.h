/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_workload.h - the jobs a simulation submits: generated (Poisson
 * arrivals, or spiky arrivals like the Google cluster trace) or read from
 * a trace file.
 *
 * Trace format (CSV, documented in doc/design/simulator.md and optimus-sim(1)):
 * one job per line, `arrival_s,model,mode,size[,weight[,ps,workers]]`;
 * arrival in seconds >= 0, model a catalogue name, mode `sync` or
 * `async`, size > 0 the length relative to the model's median job,
 * weight > 0 (quality policy importance, default 1), ps and workers the
 * size the job is submitted with (integers >= 1, within the model's
 * limits; default: sim_workload_request()). Blank lines and lines starting with '#'
 * are ignored, and so is a header: the first other line, if it starts with
 * "arrival". Jobs are
 * sorted by arrival (stable).
 */
#ifndef OPTIMUS_SIM_WORKLOAD_H
#define OPTIMUS_SIM_WORKLOAD_H

#include <stddef.h>
#include <stdio.h>

#include <gsl/gsl_rng.h>

#include "sim_catalog.h"
#include "models/speed_model.h"

typedef struct sim_job_spec {
	double arrival;
	const sim_model_t *model;
	speed_mode_t mode;
	double size;
	double weight;
	/* The size the user submits the job with (1:1 PS to workers), which
	 * the fixed-size baselines keep (sim_config.fixed_size); 0: the
	 * default of sim_workload_request(). */
	int req_ps, req_workers;
	/* A recorded curve as the truth (sim_curves.h), size then being
	 * the factor on its c*S; NULL: the model's made-up curve. */
	const struct sim_curve *curve;
} sim_job_spec_t;

typedef struct sim_workload {
	sim_job_spec_t *jobs;
	size_t n;
} sim_workload_t;

typedef enum sim_arrivals {
	SIM_ARRIVALS_POISSON = 0,
	SIM_ARRIVALS_GOOGLE,	/* Poisson with spikes of many jobs */
	SIM_ARRIVALS_BATCH,	/* all at time 0 */
} sim_arrivals_t;

/* "poisson", "google", "batch": 0 or -EINVAL. */
int sim_arrivals_parse(const char *name, sim_arrivals_t *out);
const char *sim_arrivals_name(sim_arrivals_t a);

typedef struct sim_gen_params {
	size_t njobs;
	sim_arrivals_t arrivals;
	double mean_gap;	/* mean seconds between arrivals */
	sim_family_t family;
	double sync_fraction;	/* share of sync jobs (DL) */
	double size_sigma;	/* log-normal spread of job sizes */
	/* Draw the jobs from recorded curves instead (sim_curves.h), their
	 * c*S times cost_scale; NULL: the catalogue. */
	const struct sim_curveset *curves;
	double cost_scale;
} sim_gen_params_t;

/* Draw a workload: 0, -EINVAL or -ENOMEM. */
int sim_workload_generate(const sim_gen_params_t *gp, gsl_rng *rng,
			  sim_workload_t *out);
/* Read a trace: 0, or -errno with "file:line: why" in err. */
int sim_workload_read(const char *path, sim_workload_t *out, char *err,
		      size_t errlen);
/* Same from an open stream (name used in messages). */
int sim_workload_parse(FILE *f, const char *name, sim_workload_t *out,
		       char *err, size_t errlen);
void sim_workload_free(sim_workload_t *w);

/*
 * The size job j asks for at submission: its req_ps/req_workers, or, when
 * unset, 4 workers and as many PS (within the model's limits).
 */
void sim_workload_request(const sim_job_spec_t *j, int *ps, int *workers);

#endif

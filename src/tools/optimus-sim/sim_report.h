/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_report.h - an experiment's output: its runs (one per policy or
 * variant, averaged over seeds) and the comparisons with the papers'
 * figures, as a text table, as JSON and as SVG figures.
 */
#ifndef OPTIMUS_SIM_REPORT_H
#define OPTIMUS_SIM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "sim_run.h"

#define SIM_REPORT_MAX_RUNS 12
#define SIM_REPORT_MAX_CMP 64

typedef struct sim_compare {
	char name[64];
	double sim, paper;	/* paper NAN: no figure in the paper */
	/* sim is a mean over `seeds` seeds of this sample standard
	 * deviation; seeds 0: one run's figure (sd NAN). */
	double sd;
	unsigned seeds;
	char unit[8];
	char note[200];
} sim_compare_t;

/* One point of a sweep (experiment quality-sweep): quality/fair of the
 * mean loss at 14 minutes, the set-up changed along one axis. */
#define SIM_REPORT_MAX_SWEEP 24
typedef struct sim_sweep_point {
	char axis[16];		/* "load", "length", "interval" */
	double x;		/* the axis' value */
	double ratio, sd;	/* per-seed quality/fair: mean, s.d. */
	unsigned better;	/* seeds with quality below fair */
	double quality, fair;	/* mean loss at 14 min, mean of seeds */
	double fair_length;	/* fair sharing's mean JCT in intervals */
} sim_sweep_point_t;

typedef struct sim_report {
	const char *experiment;
	uint64_t seed;
	unsigned seeds;
	bool quick;
	size_t nruns;
	sim_result_t runs[SIM_REPORT_MAX_RUNS];
	size_t ncmp;
	sim_compare_t cmp[SIM_REPORT_MAX_CMP];
	size_t nsweep;
	sim_sweep_point_t sweep[SIM_REPORT_MAX_SWEEP];
	/* The experiment's own figures, written after the common ones by
	 * sim_report_svg; NULL: none. */
	int (*svg_extra)(const char *dir, const struct sim_report *r,
			 char *err, size_t errlen);
} sim_report_t;

/* Adds a comparison line (ignored beyond SIM_REPORT_MAX_CMP). */
void sim_report_compare(sim_report_t *r, const char *name, double sim,
			double paper, const char *unit, const char *note);
/* The same for a mean over seeds and its spread. */
void sim_report_compare_sd(sim_report_t *r, const char *name, double mean,
			   double sd, unsigned seeds, double paper,
			   const char *unit, const char *note);
void sim_report_table(FILE *f, const sim_report_t *r);
json_object *sim_report_json(const sim_report_t *r, bool with_jobs);
/* Writes DIR/<experiment>-jct.svg and, when runs have loss series,
 * DIR/<experiment>-loss.svg. 0 or -errno with a message. */
int sim_report_svg(const char *dir, const sim_report_t *r, char *err,
		   size_t errlen);
void sim_report_free(sim_report_t *r);
/* DIR/<exp>-<what>.svg opened for writing, or NULL with a message. */
FILE *sim_report_open_svg(const char *dir, const char *exp, const char *what,
			  char *err, size_t errlen);

#endif

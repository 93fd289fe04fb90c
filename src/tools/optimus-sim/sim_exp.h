/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_exp.h - the experiments that reproduce the papers' figures, each one
 * command (`optimus-sim experiment NAME`), and the helpers they share:
 * the workload and cluster of the Optimus experiments, and running one
 * variant over several seeds into one averaged row of a report.
 */
#ifndef OPTIMUS_SIM_EXP_H
#define OPTIMUS_SIM_EXP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_report.h"
#include "sim_run.h"
#include "sim_workload.h"

/* The most seeds of one experiment (--seeds). */
#define SIM_EXP_MAX_SEEDS 100

typedef struct sim_exp_opts {
	uint64_t seed;
	unsigned seeds;		/* 0: the experiment's default */
	bool quick;		/* small sizes, one seed (tests) */
	/* The command line's workload options; 0: the experiment's own.
	 * Given only to an experiment whose `uses` names them. */
	size_t njobs;
	double mean_gap;
	size_t nservers;
	double interval;
	sim_progress_fn progress;
	void *progress_ctx;
} sim_exp_opts_t;

/* Running state of one experiment (progress over all its runs). */
typedef struct sim_exp {
	const sim_exp_opts_t *opts;
	unsigned seeds;
	size_t runs_total, runs_done;
	sim_report_t *report;
	char *err;
	size_t errlen;
} sim_exp_t;

typedef int (*sim_exp_fn)(sim_exp_t *e);

/* Workload options an experiment takes from the command line; any
 * other is refused (main.c). */
enum {
	SIM_EXP_USE_JOBS = 1 << 0,
	SIM_EXP_USE_GAP = 1 << 1,
	SIM_EXP_USE_SERVERS = 1 << 2,
	SIM_EXP_USE_INTERVAL = 1 << 3,
	SIM_EXP_USE_WORKLOAD = 0xf,
};

typedef struct sim_exp_def {
	const char *name;
	const char *summary;
	sim_exp_fn run;
	unsigned variants;	/* runs per seed, for the progress bar */
	unsigned default_seeds;
	unsigned uses;		/* SIM_EXP_USE_* */
} sim_exp_def_t;

size_t sim_exp_count(void);
const sim_exp_def_t *sim_exp_at(size_t i);
const sim_exp_def_t *sim_exp_find(const char *name);

/* Run experiment `def` into *report: 0 or -errno with a message. */
int sim_exp_run(const sim_exp_def_t *def, const sim_exp_opts_t *opts,
		sim_report_t *report, char *err, size_t errlen);

/*
 * One variant: cfg (its seed replaced by each seed in turn) on workloads
 * drawn from gp (or on `trace` when non-NULL), averaged into a new report
 * row labelled `label`. The row's series and per-job results are the
 * first seed's; every seed's run is kept (sim_exp_seed_run).
 */
int sim_exp_variant(sim_exp_t *e, const char *label, const sim_config_t *cfg,
		    const sim_gen_params_t *gp, const sim_workload_t *trace);

/* Seed s (0 .. e->seeds - 1) of a row made by sim_exp_variant. */
const sim_result_t *sim_exp_seed_run(const sim_result_t *row, unsigned s);
/* A figure of one seed's run; arg: the figure's own parameter. */
typedef double (*sim_exp_figure_fn)(const sim_result_t *r, const void *arg);
/* Mean and sample standard deviation (NAN with one seed) of fig over the
 * row's seeds; seeds whose figure is NAN are left out. The mean. */
double sim_exp_seed_stat(const sim_result_t *row, sim_exp_figure_fn fig,
			 const void *arg, double *sd);
/* Mean of x[0..n) (NAN if n = 0), *sd its sample s.d. (NAN if n < 2). */
double sim_exp_mean_sd(const double *x, unsigned n, double *sd);
/* The command line's workload options (sim_exp_opts_t) over cfg/gp. */
void sim_exp_overrides(const sim_exp_t *e, sim_config_t *cfg,
		       sim_gen_params_t *gp);

/* The Optimus experiments' cluster, workload and errors. */
void sim_exp_optimus_setup(const sim_exp_t *e, sim_config_t *cfg,
			   sim_gen_params_t *gp);
/* The row labelled `label`, or NULL. */
const sim_result_t *sim_exp_row(const sim_exp_t *e, const char *label);
/* The same in a finished report. */
const sim_result_t *sim_exp_row_of(const sim_report_t *r, const char *label);

/* The quality experiments (sim_exp_quality.c, sim_exp_sweep.c). */
struct sim_curveset;
/* The faithful set-up's calibration, fixed before its runs: fair
 * sharing's mean job lasts this many plan intervals, measured on seeds
 * 1001-1010, whatever seeds are reported. */
#define SIM_QUALITY_LENGTH 3.0
#define SIM_QUALITY_CALIBRATION_SEED 1001
#define SIM_QUALITY_CALIBRATION_SEEDS 10
void sim_exp_quality_setup(const sim_exp_t *e, sim_config_t *c,
			   sim_gen_params_t *gp);
/* The recorded curves ($OPTIMUS_SIM_CURVES or the shipped set). */
int sim_exp_quality_curves(struct sim_curveset *set, char *err,
			   size_t errlen);
/* The cost factor on the recorded c*S giving offered load `load`. */
double sim_exp_quality_cost(const struct sim_curveset *set, double load);
/* quality-vs-fair's set-up (quality policy) on the curves `set`. */
int sim_exp_quality_faithful(sim_exp_t *e, const struct sim_curveset *set,
			     sim_config_t *c, sim_gen_params_t *gp,
			     double *load);
/* Mean JCT of the finished jobs (arg unused). */
double sim_exp_mean_jct(const sim_result_t *r, const void *arg);
/* Mean loss at 14 minutes of the jobs submitted by then (arg unused). */
double sim_exp_window_loss(const sim_result_t *r, const void *arg);
/* The loss series (mean over the jobs submitted by then) at time
 * *(const double *)arg; NAN if not sampled then. */
double sim_exp_loss_series(const sim_result_t *r, const void *arg);
/* quality/fair of fig seed by seed: mean ratio, s.d., seeds q < fair. */
double sim_exp_seed_ratio(const sim_result_t *q, const sim_result_t *d,
			  sim_exp_figure_fn fig, double *sd,
			  unsigned *better);

/* Experiments (sim_exp_optimus.c, sim_exp_quality.c). */
int sim_exp_optimus_vs_drf(sim_exp_t *e);
int sim_exp_oracle_gap(sim_exp_t *e);
int sim_exp_ablation(sim_exp_t *e);
int sim_exp_damping(sim_exp_t *e);
int sim_exp_quality_vs_fair(sim_exp_t *e);
int sim_exp_quality_synthetic(sim_exp_t *e);
int sim_exp_quality_sweep(sim_exp_t *e);
int sim_exp_stragglers(sim_exp_t *e);
/* The prediction for one run of bench/quality_fair.py, its set-up and
 * jobs read from the JSON file `path` (sim_exp_qbench.c). */
int sim_exp_quality_bench(sim_exp_t *e, const char *path);

#endif

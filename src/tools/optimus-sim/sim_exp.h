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

typedef struct sim_exp_opts {
	uint64_t seed;
	unsigned seeds;		/* 0: the experiment's default */
	bool quick;		/* small sizes, one seed (tests) */
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

typedef struct sim_exp_def {
	const char *name;
	const char *summary;
	sim_exp_fn run;
	unsigned variants;	/* runs per seed, for the progress bar */
	unsigned default_seeds;
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
 * row labelled `label`. Series and per-job results are the first seed's.
 */
int sim_exp_variant(sim_exp_t *e, const char *label, const sim_config_t *cfg,
		    const sim_gen_params_t *gp, const sim_workload_t *trace);

/* The Optimus experiments' cluster, workload and errors. */
void sim_exp_optimus_setup(const sim_exp_t *e, sim_config_t *cfg,
			   sim_gen_params_t *gp);
/* The row labelled `label`, or NULL. */
const sim_result_t *sim_exp_row(const sim_exp_t *e, const char *label);
/* The same in a finished report. */
const sim_result_t *sim_exp_row_of(const sim_report_t *r, const char *label);

/* Experiments (sim_exp_optimus.c, sim_exp_quality.c). */
int sim_exp_optimus_vs_drf(sim_exp_t *e);
int sim_exp_oracle_gap(sim_exp_t *e);
int sim_exp_ablation(sim_exp_t *e);
int sim_exp_damping(sim_exp_t *e);
int sim_exp_quality_vs_fair(sim_exp_t *e);
int sim_exp_quality_synthetic(sim_exp_t *e);
int sim_exp_stragglers(sim_exp_t *e);

#endif

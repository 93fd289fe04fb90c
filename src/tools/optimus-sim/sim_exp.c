/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_exp.c - the experiment registry and the variant runner (see
 * sim_exp.h).
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <stdlib.h>
#include <strings.h>

#include <gsl/gsl_rng.h>

#include "sim_curves.h"
#include "sim_exp.h"
#include "util/errmsg.h"

static const sim_exp_def_t experiments[] = {
	{ "optimus-vs-drf", "Optimus against DRF, Tetris and FIFO "
	  "(paper: 139% better average JCT, 63% better makespan than DRF)",
	  sim_exp_optimus_vs_drf, 7, 5, SIM_EXP_USE_WORKLOAD },
	{ "oracle-gap", "fitted models at 0% and 10%/20% error against the "
	  "true models (paper: about 15% gap)", sim_exp_oracle_gap, 3, 5, SIM_EXP_USE_WORKLOAD },
	{ "ablation", "allocation, placement and PAA shares of the gain "
	  "(paper: 62%, 17%, 20%; PAA up to 29% speedup)",
	  sim_exp_ablation, 4, 5, SIM_EXP_USE_WORKLOAD },
	{ "damping", "early-stage damping 0.95 against none (paper: JCT "
	  "-2.66%, makespan -1.88%)", sim_exp_damping, 2, 10, SIM_EXP_USE_WORKLOAD },
	{ "quality-vs-fair", "quality-driven against fair sharing on 84 "
	  "recorded scikit-learn curves (paper: loss 0.045 vs 0.09 after "
	  "14 min; 53% of CPU to the top 20%)",
	  sim_exp_quality_vs_fair, 3, 10, SIM_EXP_USE_WORKLOAD },
	{ "quality-vs-fair-synthetic", "the same on the catalogue's made-up "
	  "MLlib curves", sim_exp_quality_synthetic, 2, 5, SIM_EXP_USE_WORKLOAD },
	{ "quality-sweep", "quality/fair loss at 14 min over load, job "
	  "length and plan interval around quality-vs-fair's set-up "
	  "(table and SVG)", sim_exp_quality_sweep, 30, 10, 0 },
	{ "stragglers", "one server in eight 3x slower: JCT with straggler "
	  "replacement against without (paper: no figure)",
	  sim_exp_stragglers, 4, 5, SIM_EXP_USE_WORKLOAD },
};

#define NEXP (sizeof(experiments) / sizeof(experiments[0]))

size_t sim_exp_count(void)
{
	return NEXP;
}

const sim_exp_def_t *sim_exp_at(size_t i)
{
	return i < NEXP ? &experiments[i] : NULL;
}

const sim_exp_def_t *sim_exp_find(const char *name)
{
	for (size_t i = 0; name && i < NEXP; i++)
		if (!strcasecmp(experiments[i].name, name))
			return &experiments[i];
	return NULL;
}

int sim_exp_run(const sim_exp_def_t *def, const sim_exp_opts_t *opts,
		sim_report_t *report, char *err, size_t errlen)
{
	sim_exp_t e = { .opts = opts, .report = report, .err = err,
			.errlen = errlen };

	e.seeds = opts->seeds ? opts->seeds :
		  opts->quick ? 1 : def->default_seeds;
	e.runs_total = (size_t)e.seeds * def->variants;
	memset(report, 0, sizeof(*report));
	report->experiment = def->name;
	report->seed = opts->seed;
	report->seeds = e.seeds;
	report->quick = opts->quick;
	return def->run(&e);
}

const sim_result_t *sim_exp_row_of(const sim_report_t *r, const char *label)
{
	for (size_t i = 0; i < r->nruns; i++)
		if (!strcmp(r->runs[i].label, label))
			return &r->runs[i];
	return NULL;
}

const sim_result_t *sim_exp_row(const sim_exp_t *e, const char *label)
{
	return sim_exp_row_of(e->report, label);
}

void sim_exp_optimus_setup(const sim_exp_t *e, sim_config_t *cfg,
			   sim_gen_params_t *gp)
{
	bool q = e->opts->quick;

	sim_config_init(cfg);
	cfg->nservers = q ? 8 : 16;
	/* The paper's practical prediction errors. */
	cfg->speed_err = 0.10;
	cfg->conv_err = 0.20;
	memset(gp, 0, sizeof(*gp));
	gp->njobs = q ? 20 : 60;
	gp->arrivals = SIM_ARRIVALS_POISSON;
	gp->mean_gap = 120.0;
	gp->family = SIM_FAMILY_DL;
	gp->sync_fraction = 0.5;
	gp->size_sigma = 0.4;
	sim_exp_overrides(e, cfg, gp);
}

void sim_exp_overrides(const sim_exp_t *e, sim_config_t *cfg,
		       sim_gen_params_t *gp)
{
	const sim_exp_opts_t *o = e->opts;

	if (o->njobs)
		gp->njobs = o->njobs;
	if (o->mean_gap > 0)
		gp->mean_gap = o->mean_gap;
	if (o->nservers)
		cfg->nservers = o->nservers;
	if (o->interval > 0)
		cfg->interval = o->interval;
}

const sim_result_t *sim_exp_seed_run(const sim_result_t *row, unsigned s)
{
	if (s == 0)
		return row;
	return s - 1 < row->nmore_seeds ? &row->more_seeds[s - 1] : NULL;
}

double sim_exp_seed_stat(const sim_result_t *row, sim_exp_figure_fn fig,
			 const void *arg, double *sd)
{
	double x[SIM_EXP_MAX_SEEDS], ignored;
	unsigned n = 0;

	for (unsigned s = 0; s <= row->nmore_seeds; s++) {
		double v = fig(sim_exp_seed_run(row, s), arg);
		if (!isnan(v) && n < SIM_EXP_MAX_SEEDS)
			x[n++] = v;
	}
	return sim_exp_mean_sd(x, n, sd ? sd : &ignored);
}

double sim_exp_mean_sd(const double *x, unsigned n, double *sd)
{
	double sum = 0.0, sq = 0.0;

	for (unsigned i = 0; i < n; i++)
		sum += x[i];
	double mean = n ? sum / n : NAN;
	for (unsigned i = 0; i < n; i++)
		sq += (x[i] - mean) * (x[i] - mean);
	*sd = n > 1 ? sqrt(sq / (n - 1)) : NAN;
	return mean;
}

static void variant_progress(void *ctx, double done)
{
	sim_exp_t *e = ctx;

	if (e->opts->progress)
		e->opts->progress(e->opts->progress_ctx,
				  (e->runs_done + done) / e->runs_total);
}

/* Scalars summed into acc (averaged by the caller). */
static void accumulate(sim_result_t *acc, const sim_result_t *r)
{
	sim_outcome_t *a = &acc->run;

	a->ndone += r->run.ndone;
	a->avg_jct += r->run.avg_jct;
	a->median_jct += r->run.median_jct;
	a->p99_jct += r->run.p99_jct;
	a->makespan += r->run.makespan;
	a->gpu_seconds += r->run.gpu_seconds;
	a->gpu_util += r->run.gpu_util;
	a->lost += r->run.lost;
	a->restarts += r->run.restarts;
	a->rebatches += r->run.rebatches;
	acc->cpu_util += r->cpu_util;
	acc->restart_share += r->restart_share;
	acc->stragglers += r->stragglers;
	acc->plans += r->plans;
	acc->plan_wall += r->plan_wall;
}

static void average(sim_result_t *acc, unsigned n)
{
	sim_outcome_t *a = &acc->run;

	a->avg_jct /= n;
	a->median_jct /= n;
	a->p99_jct /= n;
	a->makespan /= n;
	a->gpu_seconds /= n;
	a->gpu_util /= n;
	a->lost /= n;
	acc->cpu_util /= n;
	acc->restart_share /= n;
	/* Counts: rounded means, so that a row reads like one run. */
	a->ndone = (a->ndone + n / 2) / n;
	a->restarts = (a->restarts + n / 2) / n;
	a->rebatches = (a->rebatches + n / 2) / n;
	acc->stragglers = (acc->stragglers + n / 2) / n;
	acc->plans = (acc->plans + n / 2) / n;
}

static int one_seed(sim_exp_t *e, const sim_config_t *cfg,
		    const sim_gen_params_t *gp, const sim_workload_t *trace,
		    uint64_t seed, sim_result_t *out)
{
	sim_config_t c = *cfg;
	sim_workload_t w = { 0 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int rc;

	if (!rng)
		return -ENOMEM;
	/* The workload depends on the seed only: every variant of an
	 * experiment sees the same jobs. */
	gsl_rng_set(rng, seed);
	c.seed = seed;
	if (trace)
		rc = 0;
	else if (gp->curves)
		rc = sim_curves_workload(gp->curves, gp->njobs, gp->mean_gap,
					 gp->cost_scale, rng, &w, e->err,
					 e->errlen);
	else if ((rc = sim_workload_generate(gp, rng, &w)))
		errmsg_set(e->err, e->errlen, 0,
			   "cannot generate the workload");
	if (!rc)
		rc = sim_run(&c, trace ? trace : &w, variant_progress, e, out,
			     e->err, e->errlen);
	sim_workload_free(&w);
	gsl_rng_free(rng);
	return rc;
}

int sim_exp_variant(sim_exp_t *e, const char *label, const sim_config_t *cfg,
		    const sim_gen_params_t *gp, const sim_workload_t *trace)
{
	sim_report_t *r = e->report;
	sim_result_t *row, one;
	int rc = 0;

	if (r->nruns >= SIM_REPORT_MAX_RUNS)
		return -ENOSPC;
	row = &r->runs[r->nruns];
	memset(row, 0, sizeof(*row));
	if (e->seeds > 1 &&
	    !(row->more_seeds = calloc(e->seeds - 1, sizeof(*row->more_seeds))))
		return -ENOMEM;
	for (unsigned s = 0; s < e->seeds && !rc; s++) {
		rc = one_seed(e, cfg, gp, trace, e->opts->seed + s, &one);
		if (rc)
			break;
		if (s == 0) {
			sim_result_t *more = row->more_seeds;
			*row = one;	/* keeps the series and jobs */
			row->more_seeds = more;
			row->nmore_seeds = 0;
			row->run.ndone = row->run.restarts = 0;
			row->run.rebatches = row->plans = 0;
			row->run.avg_jct = row->run.median_jct = 0;
			row->run.p99_jct = row->run.makespan = 0;
			row->run.gpu_seconds = row->run.gpu_util = 0;
			row->run.lost = row->cpu_util = 0;
			row->restart_share = row->plan_wall = 0;
			accumulate(row, &one);
		} else {
			accumulate(row, &one);
			row->more_seeds[row->nmore_seeds++] = one;
		}
		e->runs_done++;
	}
	if (rc) {
		sim_result_free(row);
		return rc;
	}
	average(row, e->seeds);
	snprintf(row->label, sizeof(row->label), "%s", label);
	r->nruns++;
	return 0;
}

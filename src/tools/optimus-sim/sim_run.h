/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_run.h - one simulated run: a workload on a cluster under one policy,
 * driven through the same job_model.h / plan.h code as the sched/optimus
 * plugin.
 */
#ifndef OPTIMUS_SIM_RUN_H
#define OPTIMUS_SIM_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan/plan.h"
#include "alloc/resources.h"
#include "sim_outcome.h"
#include "sim_workload.h"

typedef struct sim_config {
	plan_policy_t policy;
	bool oracle;		/* true models fed instead of measured ones */
	double interval;	/* seconds between plans */
	double damping;
	bool placement;		/* Theorem 1 placement (plan) */
	bool paa;		/* PAA parameter assignment (true speed) */
	double speed_err;	/* std. dev. of a job's speed error */
	double conv_err;	/* std. dev. of a job's convergence error */
	double restart_base;	/* seconds of a resize besides checkpoint */
	double min_resize_interval;
	double resize_threshold;	/* relative gain to resize; < 0: plan's */
	double delta;		/* convergence threshold */
	size_t nservers;
	res_vec_t server;	/* capacity of one server */
	uint64_t seed;
	double horizon;		/* stop planning after this time */
	double sample_every;	/* loss series period (s) */
	double window;		/* snapshot time for resource shares, 0: no */
	/* Plan at once when a job arrives or ends, besides every interval,
	 * as sched/optimus does; false: on the interval's ticks only. */
	bool event_plans;
	/* Every job runs with the size it was submitted with, never resized
	 * (sim_workload_request): the general schedulers the Optimus paper
	 * compares with, which fix a job's allocation at submission. */
	bool fixed_size;
	/* Stragglers (sim_straggler.c): this share of the servers runs
	 * workers straggler_slowdown times slower; with straggler_detect,
	 * jobs send worker reports and the plan moves them off. */
	double straggler_share;
	double straggler_slowdown;
	bool straggler_detect;
	bool straggler_drain;	/* StragglerDrain: no new task on it */
	/* Preempt= (plan/plan_preempt.c): 1 yes, 0 no, -1 the policy's
	 * default as in optimus.conf (plan_preempt_default). */
	int preempt;
} sim_config_t;

/* Defaults of the Optimus experiments (doc/design/simulator.md). */
void sim_config_init(sim_config_t *c);

/* Loss-reduction levels of the quality paper's Figure 3: 50/80/90/95%. */
#define SIM_NLEVELS 4
extern const double sim_levels[SIM_NLEVELS];
/* Plan intervals traced (predicted and realised loss drop) up to the
 * window. */
#define SIM_QT_MAX 16

/* What a synthetic job came to besides its outcome (sim_outcome.h). */
typedef struct sim_job_result {
	uint32_t id;
	const char *model;
	bool sync;
	double total_steps;
	double cpu_seconds;	/* held, over the whole run */
	double loss0, loss_end;
	double window_cpu, window_loss;	/* at config.window */
	/* CPU seconds held in the first interval after arrival: what a
	 * policy gives a job while its loss falls fastest. */
	double young_cpu;
	/* Seconds after arrival until the loss was reduced by sim_levels[l]
	 * (at the loss-series samples); < 0: never (sim_qtrace.c). */
	double level_time[SIM_NLEVELS];
} sim_job_result_t;

typedef struct sim_result {
	char label[48];
	/* Every job's outcome and the figures over them: its restarts
	 * are its resizes and its starts after a preemption, its seconds
	 * lost theirs (a first start costs nothing). */
	sim_outcome_t run;
	double cpu_util;	/* mean share of the CPUs held */
	double restart_share;	/* time lost to restarts / job run time */
	size_t plans;
	size_t stragglers;	/* straggler findings (sim_straggler.c) */
	double plan_wall;	/* wall-clock s in plan_run (stderr only) */
	size_t nseries;
	double *series_t, *series_loss;	/* mean loss of arrived jobs */
	/* Up to config.window: CPU share of the top 20% / bottom 50% of the
	 * jobs ranked, interval by interval, by that interval's loss drop. */
	double epoch_top, epoch_bottom;
	double window;		/* config.window: jobs' window_* are set */
	/* Per plan interval up to the window: the loss drop (sum over the
	 * jobs) the plan's allocation was predicted to bring, and the drop
	 * that happened (sim_qtrace.c). */
	size_t nqt;
	double qt_pred[SIM_QT_MAX], qt_real[SIM_QT_MAX];
	sim_job_result_t *jobs;	/* per job, as run.jobs */
	/* A row of several seeds (sim_exp.h): seeds 2.. in full, owned. */
	struct sim_result *more_seeds;
	unsigned nmore_seeds;
} sim_result_t;

/*
 * Run `w` under `c`; progress (0..1) reported through cb if non-NULL.
 * 0, or -errno with a message in err.
 */
typedef void (*sim_progress_fn)(void *ctx, double done);
int sim_run(const sim_config_t *c, const sim_workload_t *w,
	    sim_progress_fn cb, void *cb_ctx, sim_result_t *out,
	    char *err, size_t errlen);
void sim_result_free(sim_result_t *r);

#endif

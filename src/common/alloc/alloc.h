/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * alloc.h - the job, parameter and result types shared by every allocator
 * (Optimus' marginal-gain greedy, the quality-driven greedy, and the DRF,
 * Tetris and FIFO baselines), so that they can be swapped and compared.
 *
 * An allocator decides how many parameter servers (PS) and workers (or, for
 * the quality-driven one, how many unit resources) each job gets out of the
 * cluster's aggregate free capacity; placement.h then maps tasks to servers.
 * The models are reached through function pointers only, so this file does
 * not depend on the speed or convergence model code.
 */
#ifndef OPTIMUS_ALLOC_H
#define OPTIMUS_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc/resources.h"

/* Training speed (steps per second) with p PS and w workers, f(p,w);
 * p is 0 for all-reduce jobs (no_ps). */
typedef double (*alloc_speed_fn)(void *ctx, int p, int w);
/* Predicted loss after the next interval when the job holds `units` units. */
typedef double (*alloc_loss_fn)(void *ctx, int units);

typedef struct alloc_job {
	uint32_t id;
	void *user;                /* opaque, never touched */

	/* Optimus, DRF, Tetris and FIFO. */
	alloc_speed_fn speed;
	void *speed_ctx;
	double remaining_steps;    /* Q: steps left to convergence */
	res_vec_t ps_demand;       /* one PS task */
	res_vec_t worker_demand;   /* one worker task */
	int min_ps, max_ps;        /* min < 1 means 1; max 0 means no limit */
	bool no_ps;                /* all-reduce: workers only, p always 0,
	                            * ps_demand may be zero */
	int min_workers, max_workers;
	int req_ps, req_workers;   /* FIFO's requested size; 0 means max (or min) */
	bool early_stage;          /* Optimus damps its gain (unreliable fit) */
	bool keeps_min;            /* holds its minimum whatever the grant (a
	                            * running job nobody preempts): the
	                            * completion-rate greedy grants it first */
	/* Pollux's restart weighting (alloc/fair_speedup.c): a grant of
	 * workers other than cur_workers (0: none now) has its speedup
	 * weighed by change_weight, in (0, 1]; 0 means no weighting. */
	int cur_workers;
	double change_weight;

	/* Quality-driven allocation. */
	alloc_loss_fn loss_after;
	void *loss_ctx;
	double weight;             /* importance; 0 means 1 */
	int max_units;             /* 0 means no limit */
	int min_units;             /* held before the greedy; 0 means 1 */
} alloc_job_t;

enum alloc_status {
	ALLOC_OK = 0,      /* granted (ps, workers) or units */
	ALLOC_MIN_UNFIT,   /* its minimum did not fit: left out */
	ALLOC_WAITING,     /* FIFO: queued behind a job that did not fit */
};

typedef struct alloc_grant {
	uint32_t id;
	int ps, workers;
	int units;
	enum alloc_status status;
} alloc_grant_t;

typedef struct alloc_result {
	size_t njobs;
	alloc_grant_t *grants;     /* grants[i] answers jobs[i] */
	res_vec_t used;            /* total footprint granted */
	long units_used;
	size_t nleft_out;          /* grants with status != ALLOC_OK */
	size_t steps;              /* greedy increments made after minimums */
	/* Why an allocator returned an error, written with errmsg_set: a result carries its
	 * own message because its callers (plan_run's passes, the plugin's
	 * log, the simulator) read it after the result, not at the call. */
	char err[160];
} alloc_result_t;

#define ALLOC_DAMPING_DEFAULT 0.95
/* Largest bundle of workers an all-reduce job grows by in one step: its
 * speed is not concave in w (alloc/optimus.c, alloc/rate.c). */
#define ALLOC_BUNDLE 16
#define ALLOC_TETRIS_EPS_DEFAULT 1.0

typedef struct alloc_params {
	res_vec_t capacity;        /* the cluster's free capacity to share */
	double damping;            /* Optimus: gain factor of early-stage jobs */
	long total_units;          /* quality-driven: unit resources to share */
	double tetris_eps;         /* Tetris: weight of its SRTF term */
} alloc_params_t;

/* Every allocator has this signature: same input, same output. */
typedef int (*alloc_run_fn)(const alloc_job_t *jobs, size_t n,
			    const alloc_params_t *prm, alloc_result_t *out);

void alloc_params_init(alloc_params_t *prm, res_vec_t capacity);

int alloc_optimus_run(const alloc_job_t *jobs, size_t n,
		      const alloc_params_t *prm, alloc_result_t *out);
/* Eqn. 9's greedy maximising the completion rate sum f/Q (alloc/rate.c):
 * jobs may wait; ungranted ones are ALLOC_MIN_UNFIT. */
int alloc_rate_run(const alloc_job_t *jobs, size_t n,
		   const alloc_params_t *prm, alloc_result_t *out);
/* Pollux's objective (alloc/fair_speedup.c): the same greedy maximising
 * the power mean with p = -1 of each job's speedup over its rate at its
 * fair share of the capacity; ungranted jobs are ALLOC_MIN_UNFIT. */
int alloc_fair_speedup_run(const alloc_job_t *jobs, size_t n,
			   const alloc_params_t *prm, alloc_result_t *out);
/* A separable objective for alloc_greedy_run: job i (jobs[i]) valued at
 * p PS and w workers, w = 0 for no grant; ctx: the objective's own. */
typedef double (*alloc_value_fn)(const alloc_job_t *job, size_t i, int p,
				 int w, void *ctx);
/* The marginal-gain greedy of alloc/rate.c maximising the sum of `value`
 * over the jobs: each step gives the bundle whose value grows most per
 * dominant share; `name` prefixes its error messages. */
int alloc_greedy_run(const alloc_job_t *jobs, size_t n,
		     const alloc_params_t *prm, alloc_value_fn value,
		     void *ctx, const char *name, alloc_result_t *out);
int alloc_quality_run(const alloc_job_t *jobs, size_t n,
		      const alloc_params_t *prm, alloc_result_t *out);
int alloc_drf_run(const alloc_job_t *jobs, size_t n,
		  const alloc_params_t *prm, alloc_result_t *out);
int alloc_tetris_run(const alloc_job_t *jobs, size_t n,
		     const alloc_params_t *prm, alloc_result_t *out);
int alloc_fifo_run(const alloc_job_t *jobs, size_t n,
		   const alloc_params_t *prm, alloc_result_t *out);

void alloc_result_free(alloc_result_t *out);

/* sum_j Q_j / f_j(p_j, w_j) over granted jobs: what Optimus minimizes. */
double alloc_total_jct(const alloc_job_t *jobs, const alloc_result_t *res);

/* Helpers shared by the allocators (alloc.c). */
int alloc_result_init(alloc_result_t *out, const alloc_job_t *jobs, size_t n);
int alloc_check_task_jobs(const alloc_job_t *jobs, size_t n,
			  const alloc_params_t *prm, alloc_result_t *out);
int alloc_min_ps(const alloc_job_t *job);
int alloc_min_workers(const alloc_job_t *job);
bool alloc_below_max(int count, int max);
double alloc_jct(const alloc_job_t *job, int p, int w);
/* The job's speed on p PS and w workers; 0 where it cannot run (no
 * worker, no PS for a PS job) or its speed is not positive and finite. */
double alloc_speed(const alloc_job_t *job, int p, int w);
/*
 * Grant job p PS + w workers if they fit in *room (taken off it and added
 * to out->used); else mark the grant `unfit` (counted in out->nleft_out).
 */
bool alloc_grant_if_fits(const alloc_job_t *job, int p, int w,
			 res_vec_t *room, alloc_grant_t *g,
			 enum alloc_status unfit, alloc_result_t *out);
/* Grant every job its minimum, in input order; left-out jobs are marked. */
void alloc_grant_minimums(const alloc_job_t *jobs, size_t n,
			  const alloc_params_t *prm, alloc_result_t *out);
/* Can job i take one more PS (is_ps) or worker within its max and room? */
bool alloc_task_fits(const alloc_job_t *job, const alloc_grant_t *g,
		     bool is_ps, res_vec_t room);
void alloc_add_task(const alloc_job_t *job, alloc_grant_t *g, bool is_ps,
		    alloc_result_t *out);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_state.h - the simulator's private state, shared by sim_run.c (its
 * part of the event loop, sim_engine.h), sim_job.c (one job's truth,
 * progress and reports) and sim_apply.c (planning and applying
 * decisions).
 */
#ifndef OPTIMUS_SIM_STATE_H
#define OPTIMUS_SIM_STATE_H

#include <gsl/gsl_rng.h>

#include "job/job_feed.h"
#include "job/job_model.h"
#include "plan/plan_input.h"
#include "plan/plan_interval.h"
#include "sim_engine.h"
#include "sim_hold.h"
#include "sim_job_core.h"
#include "sim_run.h"
#include "sim_start_cost.h"
#include "sim_truth.h"

typedef enum sim_job_state {
	SJ_FUTURE = 0,		/* not submitted yet */
	SJ_PENDING,
	SJ_RUNNING,
	SJ_RESTARTING,		/* resized: checkpoint and restart */
	SJ_DONE,
} sim_job_state_t;

typedef struct sim_job {
	/* What both engines keep of a job (sim_job_core.h): its id, its
	 * truth (sim_catalog_truth on `truth`), its record and feed, its
	 * hold, its outcome and its true progress (in steps). */
	sim_job_core_t core;
	sim_job_spec_t spec;
	/* Its truth's data (sim_truth.h), drawn at its init. */
	sim_truth_t truth;
	sim_job_state_t st;
	double t_step;			/* when core.progress was counted */
	double speed;			/* true steps/s now (0: not moving) */
	double reported;		/* last step reported */
	double speed_bias, conv_scale;	/* injected prediction errors */
	/* Of its queued events (FINISH, RESUME), only those of its latest
	 * generation stand: a change of speed or a preemption makes the
	 * others stale. */
	uint32_t gen;
	gsl_rng *rng;			/* this job's draws: equal across runs */
	sim_job_result_t res;
} sim_job_t;

/* CPU shares per interval by the interval's loss drop (sim_epoch.c). */
typedef struct sim_epoch {
	double *loss, *cpu;	/* per job, at the previous tick */
	double *drop, *held;	/* scratch: per job, over the interval */
	size_t *rank;		/* scratch: jobs that held CPU, ranked */
	double top, bottom, all;	/* CPU seconds summed over intervals */
} sim_epoch_t;

/* Loss-reduction levels and predicted drops (sim_qtrace.c). */
typedef struct sim_qtrace {
	double *loss;		/* per job, at the latest traced plan */
	bool open;		/* a traced interval runs */
	size_t n;
	double pred[SIM_QT_MAX], real[SIM_QT_MAX];
} sim_qtrace_t;

typedef struct sim_state {
	const sim_config_t *cfg;
	gsl_rng *rng;
	/* The loop, its queue and its time (sim_engine.h). */
	sim_engine_t eng;
	sim_job_t *jobs;
	res_vec_t *free;		/* per server, what no job holds */
	double used_int[RES_NUM];	/* integral of held resources */
	double next_sample;
	size_t nseries, series_cap;
	double *series_t, *series_loss;
	size_t plans, stragglers;
	double plan_wall;
	/* What a decision costs a job (the synthetic jobs' first start is
	 * free, as in the papers' simulations; a restart is
	 * config.restart_base plus the job's checkpoint). */
	sim_start_costs_t costs;
	sim_epoch_t epoch;		/* up to the window (config.window) */
	sim_qtrace_t qtrace;		/* up to the window */
	bool *slow_server;		/* per server (sim_straggler.c) */
	/* Per server: a straggler's, drained: closed to new tasks, no
	 * room in the plan (sim_plan_in_t.closed). */
	bool *drained;
	char *err;
	size_t errlen;
} sim_state_t;

/* Simulated seconds start at this wall-clock time: job_model treats a
 * time_t of 0 as "never". */
#define SIM_EPOCH 1000000000

static inline time_t sim_time(double t)
{
	return (time_t)(SIM_EPOCH + (long long)(t + 0.5));
}

/* The job whose core c is (its first member): how the code both engines
 * share hands a job back (sim_apply_ops_t). */
static inline sim_job_t *sim_job_of(sim_job_core_t *c)
{
	return (sim_job_t *)c;
}

/* Does the job hold servers (its hold)? */
static inline bool sim_job_holds(const sim_job_t *j)
{
	return j->st == SJ_RUNNING || j->st == SJ_RESTARTING;
}

/* sim_job.c */
int sim_job_init(sim_state_t *s, sim_job_t *j, uint32_t id,
		 const sim_job_spec_t *spec);
void sim_job_free(sim_job_t *j);
/* Its truth's loss at `step` (NAN where its truth has none). */
double sim_job_true_loss(const sim_job_t *j, double step);

/* sim_epoch.c */
int sim_epoch_init(sim_state_t *s);
void sim_epoch_free(sim_state_t *s);
/* At a tick up to the window: add the interval that ends now. */
void sim_epoch_tick(sim_state_t *s);
/* CPU share of the top 20% (top) or the bottom 50%; NAN if no CPU. */
double sim_epoch_share(const sim_epoch_t *e, bool top);
int sim_job_arrive(sim_state_t *s, sim_job_t *j);
/* A run of j begins now at its size (its first or after a restart). */
void sim_job_run(sim_state_t *s, sim_job_t *j);
void sim_job_advance(sim_job_t *j, double t);
double sim_job_loss_at(const sim_job_t *j, double t);
int sim_job_report(sim_state_t *s, sim_job_t *j);
void sim_job_set_speed(sim_state_t *s, sim_job_t *j);
void sim_job_release(sim_state_t *s, sim_job_t *j);

/* sim_qtrace.c */
int sim_qtrace_init(sim_state_t *s);
void sim_qtrace_free(sim_state_t *s);
/* At a loss-series sample: levels reached by then. */
void sim_qtrace_sample(sim_state_t *s, double t);
/* At a tick up to the window, before its plan / after it. */
void sim_qtrace_close(sim_state_t *s);
void sim_qtrace_open(sim_state_t *s);
void sim_qtrace_result(const sim_state_t *s, sim_result_t *out);
/* sim_straggler.c */
int sim_straggler_init(sim_state_t *s);
/* The job's true speed multiplier from its workers on slow servers. */
double sim_straggler_factor(const sim_state_t *s, const sim_job_t *j);
/* One worker report per rank (config.straggler_detect): 0 or -errno. */
int sim_straggler_report(sim_state_t *s, sim_job_t *j);
/* A server's index from its name "sN" (plan_server_of_fn). */
int sim_server_of(void *arg, const char *node, uint32_t *server);
/* config.straggler_drain: the job's straggler server is drained, as the
 * job moves off it. */
void sim_straggler_drain(sim_state_t *s, const sim_job_t *j);

/* sim_apply.c */
int sim_apply_tick(sim_state_t *s);
/* Job j as the core's plan input (plan/plan_input.h). */
void sim_input_job(const sim_job_t *j, plan_input_t *in);
/* Each server's room for the jobs (cfg->nservers entries). */
void sim_input_room(const sim_state_t *s, res_vec_t *room);

#endif

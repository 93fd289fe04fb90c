/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_truth.h - what is really true about a simulated job, hidden from the
 * scheduler: its speed for a (p, w) and a placement, and its loss curve.
 *
 * True speed is Eqn. (3) (async) or (4) (sync) of the Optimus paper with
 * coefficients derived from the model's figures, except that the
 * PS-bound transfer term is scaled by
 *   (SIM_LOCAL_COST + (1 - SIM_LOCAL_COST) * x) * imbalance(p)
 * where x is the fraction of worker-PS pairs on different servers (so the
 * Theorem 1 placement matters) and imbalance(p) is the most loaded PS's
 * share over the mean with PAA or MXNet's default assignment (paa.h, so
 * PS load balancing matters). The scheduler only sees measured speeds.
 */
#ifndef OPTIMUS_SIM_TRUTH_H
#define OPTIMUS_SIM_TRUTH_H

#include <stdbool.h>
#include <stddef.h>

#include <gsl/gsl_rng.h>

#include "models/convergence.h"
#include "models/curve_fit.h"
#include "alloc/placement.h"
#include "sim_catalog.h"
#include "models/speed_model.h"
#include "sim_truth_ops.h"

/* Cost of intra-server transfer relative to cross-server. */
#define SIM_LOCAL_COST 0.4
/* Effective training GFLOP/s of one worker (one GPU). */
#define SIM_GPU_GFLOPS 4000.0
/* Bytes per second between servers (10 GbE). */
#define SIM_BANDWIDTH 1.25e9
/* Workers of the reference sync configuration: M = batch * this. */
#define SIM_SYNC_REF_WORKERS 8
#define SIM_MAX_PS 64
/* Convergence threshold of every experiment (sim_config.delta). */
#define SIM_DELTA_DEFAULT CONV_DELTA_DEFAULT	/* the core's, one source */
/* A job's loss asymptote is its model's times a flat draw in this range. */
#define SIM_FLOOR_LO 0.6
#define SIM_FLOOR_HI 1.4

typedef struct sim_truth {
	const sim_model_t *model;
	speed_mode_t mode;
	double batch;			/* M (sync) */
	double theta[SPEED_NTHETA];
	int comm;			/* index of the w/p transfer term */
	double imb_paa[SIM_MAX_PS + 1], imb_mxnet[SIM_MAX_PS + 1];
	curve_coef_t curve;		/* loss (un-normalised) vs k = step+1 */
	double loss0;			/* loss at k = 1: the normaliser */
	double epoch_steps;		/* convergence window */
	double delta;			/* convergence threshold */
	double total_steps;		/* steps until converged */
	/* A recorded curve (sim_curves.h) instead of `curve`, or NULL. */
	const struct sim_curve *rec;
} sim_truth_t;

/*
 * A job of model m in mode `mode`, `size` times the median length (DL;
 * MLlib: the curve exponent is divided by size);
 * MLlib jobs draw their curve exponent from rng. delta: convergence
 * threshold on the normalised loss decrease per epoch. 0, -EINVAL, or
 * -EDOM for a DL size above sim_truth_max_size().
 */
int sim_truth_init(sim_truth_t *t, const sim_model_t *m, speed_mode_t mode,
		   double size, double delta, gsl_rng *rng);

/*
 * The largest size of a DL job of model m whose truth converges later than
 * for any smaller size (INFINITY for MLlib). Beyond it the inverse curve,
 * pinned to 1 at the first step, can no longer keep its per-epoch decrease
 * above delta that long: with target K steps, epoch W and c = 1/(1 -
 * floor), it converges at K + 1 - c*delta*K^2/W, which falls once K >
 * W/(2*c*delta), i.e. size > (1 - floor)/(2*delta*epochs); the bound
 * takes the highest floor a job may draw, so it holds for every seed.
 */
double sim_truth_max_size(const sim_model_t *m, double delta);

/*
 * Seconds of one step of a worker with p PS and w workers, cross fraction
 * x, PAA or not, and of it the PS-bound transfer (*comm, may be NULL).
 * The job makes w steps in that time (async) or one (sync). NAN when
 * p < 1 or w < 1.
 */
double sim_truth_step(const sim_truth_t *t, int p, int w, double x,
		      bool paa, double *comm);
/* True loss after `step` steps. */
double sim_truth_loss(const sim_truth_t *t, double step);
/* Seconds to save and load its checkpoint (the model's parameters, 4
 * bytes each) on shared storage: what a restart costs it besides the
 * start itself (sim_start_cost.h). */
double sim_truth_checkpoint(const sim_truth_t *t);

/* Fraction of (worker, PS) pairs on different servers, for ps[i] PS and
 * workers[i] workers on server i of n. */
double sim_truth_cross(const int *ps, const int *workers, size_t n);
/* An even split of p and w over k servers (pre-runs), k within
 * 1..SIM_MAX_PS: ps and workers hold SIM_MAX_PS entries; returns k. */
size_t sim_truth_split_even(int p, int w, int k, int *ps, int *workers);

/* The catalogue's jobs as the engines' truth (sim_truth_ops.h), for a
 * job whose data is a sim_truth_t (sim_catalog_truth.c). */
extern const sim_truth_ops_t sim_catalog_truth;

#endif

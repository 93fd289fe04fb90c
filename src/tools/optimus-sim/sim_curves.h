/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_curves.h - recorded training curves (contrib/record_quality_curves.py,
 * testsuite/data/quality-curves/): the loss of every iteration of a real
 * scikit-learn (or DL) training run with the CPU seconds it took, used as
 * the hidden truth of optimus-sim's quality jobs instead of a made-up
 * curve.
 *
 * CSV columns: curve,family,data_size,step_size,iteration,loss,cpu_s; the
 * rows of a curve are consecutive, iterations 0, 1, 2, ... (a curve
 * without iteration 0 starts at its first row).
 *
 * The loss is normalised per job as the quality paper's figures show it
 * ("initial loss 0.2"): l(k) = 0.2 * (L(k) - Lreach) / (L(0) - Lreach),
 * Lreach the loss the family reaches on that data: the lowest loss of
 * the runs of the same family and data size from the same untrained
 * model (same L(0): the runs that differ only in their step size), so
 * every job enters at 0.2 and a run that stalls stays above 0; a
 * loss-reduction level x (Figure 3) is l <= 0.2 * (1 - x).
 */
#ifndef OPTIMUS_SIM_CURVES_H
#define OPTIMUS_SIM_CURVES_H

#include <stddef.h>

#include <gsl/gsl_rng.h>

#include "sim_truth.h"
#include "sim_workload.h"

#define SIM_CURVE_LOSS0 0.2

typedef struct sim_curve {
	char name[64];
	char family[32];
	double data_size;	/* S of one iteration */
	double step_size;
	size_t n;		/* iterations 0 .. n-1 */
	double *norm;		/* normalised loss per iteration */
	double cpu_mean;	/* CPU s of one iteration (c * S), mean */
	double raw0, rawmin;	/* L(0), the run's lowest loss */
	double reach;		/* Lreach: its group's lowest loss */
} sim_curve_t;

typedef struct sim_curveset {
	sim_curve_t *c;
	size_t n;
} sim_curveset_t;

/* Read a curves CSV: 0, or -errno with "file:line: why" in err. */
int sim_curves_read(const char *path, sim_curveset_t *out, char *err,
		    size_t errlen);
void sim_curves_free(sim_curveset_t *set);

/* Normalised loss after `iters` (fractional) iterations: linear between
 * recorded iterations, the last one's after the end. */
double sim_curve_loss(const sim_curve_t *c, double iters);

/*
 * `njobs` jobs drawn uniformly from `set` (with replacement), Poisson
 * arrivals with mean gap `mean_gap`; each job's model is the catalogue's
 * entry of its family (resources, limits), its size the factor on the
 * recorded c * S (`cost_scale`). 0, -EINVAL (a family without a
 * catalogue entry, in err) or -ENOMEM.
 */
int sim_curves_workload(const sim_curveset_t *set, size_t njobs,
			double mean_gap, double cost_scale, gsl_rng *rng,
			sim_workload_t *out, char *err, size_t errlen);

/* Make `t` (initialised for the curve's catalogue model) follow curve
 * `c`, its iterations costing cost_scale x the recorded c * S: 0 or
 * -EINVAL. */
int sim_curve_truth(sim_truth_t *t, const sim_curve_t *c, double cost_scale);

/* Mean over the curves of the share of their iterations run before the
 * loss is reduced by `level` (0..1) of its reduction. */
double sim_curves_level_share(const sim_curveset_t *set, double level);

/* Mean over the curves of their whole run's CPU seconds (sum of c * S). */
double sim_curves_mean_cpu(const sim_curveset_t *set);

#endif

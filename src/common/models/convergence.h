/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* convergence.h - Optimus convergence model: remaining steps of a job.
 *
 * Feed (step, loss) points as they are reported; call convergence_fit()
 * once per scheduling interval; read convergence_remaining_steps().
 * Loss points are outlier-filtered (a point above the maximum of the
 * previous `outlier_span` points or below the minimum of the next
 * `outlier_span` points is dropped), normalised by the maximum loss seen in
 * the current segment, and fitted by a non-negative curve (curve_fit.h).
 * Memory per job is bounded: at most max_points points are kept, the older
 * half being thinned (every second point kept, weights summed) when full;
 * optionally,
 * points within avg_steps steps are averaged on arrival (per-epoch means).
 * A learning-rate step decay (loss falls far below the fit for
 * drop_confirm consecutive points) resets the fit to a new segment that
 * starts at the drop (Optimus open problem 2).
 */
#ifndef OPTIMUS_CONVERGENCE_H
#define OPTIMUS_CONVERGENCE_H

#include <stddef.h>
#include "models/curve_fit.h"

typedef enum conv_criterion {
	/* converged once the predicted normalised loss decrease over the
	 * next `window` steps is <= delta (the paper's "loss decrease per
	 * step/epoch below delta"); the default */
	CONV_DECREASE = 0,
	/* converged once the normalised loss is within delta of the fitted
	 * asymptote */
	CONV_ASYMPTOTE = 1,
} conv_criterion_t;

/* The paper's convergence threshold: the default of the hints' delta and of
 * convergence_cfg_default (normalised loss units). */
#define CONV_DELTA_DEFAULT 0.001

typedef struct convergence_cfg {
	curve_form_t form;		/* CURVE_INVERSE (Optimus Eqn. 1) */
	conv_criterion_t criterion;	/* CONV_DECREASE */
	double delta;			/* 0.001, normalised loss units */
	double window;			/* 1 step (set to steps per epoch) */
	size_t max_points;		/* 256; 16..4096 */
	double avg_steps;		/* 0: off; else average within buckets */
	size_t min_points;		/* 8 filtered points before a fit */
	int outlier_span;		/* 5 (paper) */
	double drop_frac;		/* 0.15; 0 disables drop detection */
	int drop_confirm;		/* 3 consecutive points */
} convergence_cfg_t;

/* Fields are readable; modify only through the functions. */
typedef struct convergence {
	convergence_cfg_t cfg;
	double *step, *loss, *weight;	/* kept points, step increasing */
	size_t n;
	double origin;		/* first step of the current segment */
	double bucket;		/* avg_steps bucket of the last point */
	unsigned resets;	/* learning-rate drops detected so far */
	int below;		/* consecutive points far below the fit */
	double drop_step;	/* first of those points */
	int fitted;
	curve_coef_t coef;	/* fit of the normalised loss vs k */
	double scale;		/* normaliser: max filtered loss */
	size_t used;		/* points that survived the filter */
} convergence_t;

void convergence_cfg_default(convergence_cfg_t *cfg);
/* 0 or -EINVAL for an invalid configuration. */
int convergence_cfg_check(const convergence_cfg_t *cfg);

/* cfg NULL: defaults. NULL on bad cfg or no memory. */
convergence_t *convergence_new(const convergence_cfg_t *cfg);
void convergence_free(convergence_t *c);
/* A deep copy (points, fit and state); NULL on no memory. */
convergence_t *convergence_clone(const convergence_t *c);

/* step >= 0 and not below the last step; loss finite and >= 0.
 * 0, -EINVAL. May detect a learning-rate drop and reset the segment. */
int convergence_add(convergence_t *c, double step, double loss);

/* Refit on the kept points: 0, -ENODATA (too few points) or -EDOM. */
int convergence_fit(convergence_t *c);

/* Remaining steps after the last point until the criterion holds
 * (INFINITY if the fit never converges). 0 or -ENODATA when not fitted. */
int convergence_remaining_steps(const convergence_t *c, double *steps);

/* Steps since the fitted curve first met the criterion (0 while it has
 * not): how far a job still running has outlived its predicted end.
 * 0, or -ENODATA when not fitted. */
int convergence_overrun_steps(const convergence_t *c, double *steps);

/* Predicted (un-normalised) loss at a step; NAN when not fitted. */
double convergence_predict(const convergence_t *c, double step);

/* Segment-relative abscissa used by the fit: k = step - origin + 1. */
double convergence_k(const convergence_t *c, double step);

/* Outlier filter on n losses: keep[i] = 1 for the points kept. */
void convergence_filter(const double *loss, size_t n, int span,
			unsigned char *keep);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* efficiency.h - statistical efficiency of a data-parallel job's global
 * batch, from the gradient statistics it reports.
 *
 * Definitions (McCandlish, Kaplan, Amodei et al., "An Empirical Model of
 * Large-Batch Training", 2018, Sec. 2: the simple noise scale; Johnson,
 * Agrawal, Gu, Guestrin, "AdaScale SGD", ICML 2020: the gain ratio;
 * Qiao et al., "Pollux", OSDI 2021: efficiency relative to the initial
 * batch, the same quantity written with the noise scale):
 *
 *   G         the true gradient, reported as grad_sqr = |G|^2
 *   Sigma     the per-example gradient covariance, reported as
 *             grad_var = tr(Sigma) / b, the variance of a gradient
 *             estimate averaged over b examples (b = var_batch)
 *   B_noise = tr(Sigma) / |G|^2 = b * grad_var / grad_sqr
 *   E(B)    = (B_noise + B0) / (B_noise + B)      efficiency per example
 *                                                 of batch B against B0
 *   gain(B) = E(B) * B / B0                       one step at B is worth
 *                                                 gain steps at B0
 *
 * With b = B0 and s = B/B0, gain = (var + sqr) / (var/s + sqr): AdaScale's
 * gain ratio r, and the progress per step the Pollux artifact's traces
 * record (testsuite/unit/test_efficiency checks both). E(B0) = 1;
 * B >> B_noise wastes examples (E -> (B_noise + B0)/B), B << B_noise
 * wastes none (E -> 1).
 *
 * Training changes the statistics (the noise scale grows as the loss
 * falls), so every report updates an exponential moving average of |G|^2
 * and of tr(Sigma) separately, the newest weighing `smoothing`; the first
 * report sets both. Before any report, or while both averages are 0 (no
 * gradient signal), B_noise is taken as 0: a larger batch is then worth
 * no more per step than B0 (gain 1), so nothing is gained by growing it.
 */
#ifndef OPTIMUS_EFFICIENCY_H
#define OPTIMUS_EFFICIENCY_H

#include <stdint.h>

/* Weight of the newest report in the moving averages. */
#define EFFICIENCY_SMOOTHING_DEFAULT 0.5

/* Fields are readable; modify only through the functions. */
typedef struct efficiency_model {
	double init_batch;	/* B0: the batch efficiency is relative to */
	double smoothing;	/* weight of the newest report, (0, 1] */
	double sqr;		/* smoothed |G|^2 */
	double trace;		/* smoothed tr(Sigma) */
	unsigned reports;
} efficiency_model_t;

/* init_batch > 0; smoothing in (0, 1]. 0 or -EINVAL. */
int efficiency_init(efficiency_model_t *m, double init_batch,
		    double smoothing);

/* One report: grad_sqr >= 0 and grad_var >= 0 finite, grad_var being the
 * variance of a gradient averaged over var_batch > 0 examples.
 * 0 or -EINVAL (nothing stored). */
int efficiency_report(efficiency_model_t *m, double grad_sqr,
		      double grad_var, double var_batch);
/* `estimates` >= 1 reports of the same values at once: the averages as
 * that many reports in a row leave them (the newest weight
 * 1 - (1 - smoothing)^estimates). 0 or -EINVAL (nothing stored). */
int efficiency_report_many(efficiency_model_t *m, double grad_sqr,
			   double grad_var, double var_batch,
			   uint32_t estimates);

/* B_noise = tr(Sigma)/|G|^2; 0 without signal, INFINITY if only noise. */
double efficiency_noise_scale(const efficiency_model_t *m);

/* E(batch) relative to B0 (see above); batch > 0, else NAN. */
double efficiency_eval(const efficiency_model_t *m, double batch);

/* gain(batch) = E(batch) * batch / B0: B0-steps of progress per step. */
double efficiency_gain(const efficiency_model_t *m, double batch);

#endif

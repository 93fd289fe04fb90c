/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* quality_model.h - quality-driven (SLAQ-style) loss prediction.
 *
 * Loss(k) = mu*k^(-b) + c (mu, b, c >= 0) is fitted to the loss history
 * with weights that decay exponentially with age: a point reported at
 * iteration k_i weighs decay^(k_last - k_i). The CPU time of one iteration
 * is c*S (S = data processed per iteration); the constant c is learned by
 * linear regression (through the origin) of CPU time against S. With `a`
 * units of CPU, the next interval of T seconds runs iter = T*a/(c*S)
 * iterations, and the predicted loss after them is Loss(k_last + iter).
 */
#ifndef OPTIMUS_QUALITY_MODEL_H
#define OPTIMUS_QUALITY_MODEL_H

#include <stddef.h>
#include "models/curve_fit.h"

#define QUALITY_COST_WINDOW 64

/* Fields are readable; modify only through the functions. */
typedef struct quality_model {
	double decay;		/* per-iteration weight factor, (0, 1] */
	size_t cap;		/* loss points kept (oldest dropped) */
	double *iter, *loss;
	size_t n;
	/* Last QUALITY_COST_WINDOW (S, cpu seconds) pairs, a ring. */
	double cost_s[QUALITY_COST_WINDOW], cost_t[QUALITY_COST_WINDOW];
	size_t ncost, cost_next;
	double cost_c;		/* fitted c: CPU seconds per unit of data */
	double data_size;	/* S of the latest cost sample */
	int fitted;		/* loss curve fitted */
	curve_coef_t coef;	/* CURVE_POWER: c[0]=mu, c[1]=b, c[2]=c */
} quality_model_t;

/* decay in (0, 1], cap in 8..4096. 0, -EINVAL, -ENOMEM. */
int quality_model_init(quality_model_t *q, double decay, size_t cap);
void quality_model_clear(quality_model_t *q);
/* dst (uninitialised) becomes a deep copy of src: 0 or -ENOMEM. */
int quality_model_copy(quality_model_t *dst, const quality_model_t *src);

/* iter >= 1 and not below the last one; loss finite >= 0. */
int quality_model_add_loss(quality_model_t *q, double iter, double loss);
/* One iteration processed data_size units in cpu_seconds CPU time. */
int quality_model_add_cost(quality_model_t *q, double data_size,
			   double cpu_seconds);

/* Refit the curve and c: 0, -ENODATA (fewer than 3 points or no cost
 * sample), -EDOM. */
int quality_model_fit(quality_model_t *q);

/* Iterations in the next T seconds with `a` CPUs: T*a/(c*S); 0 if the
 * cost is unknown. */
double quality_model_iters(const quality_model_t *q, double T, double a);
/* Predicted loss after those iterations; NAN if not fitted. */
double quality_model_loss_after(const quality_model_t *q, double T, double a);
/* Algorithm 1's gain of r more units: Loss(a) - Loss(a + r). */
double quality_model_gain(const quality_model_t *q, double T, double a,
			  double r);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* curve_fit.h - non-negative fits of decreasing loss curves l(k).
 *
 * Forms (all coefficients >= 0, k > 0):
 *   CURVE_INVERSE  l = 1/(c0*k + c1) + c2      (Optimus, Eqn. 1)
 *   CURVE_POWER    l = c0*k^(-c1) + c2         (quality-driven paper)
 *   CURVE_EXP      l = c0*exp(-c1*k) + c2
 * c2 is the asymptote in every form. The fit minimises the (optionally
 * weighted) squared error in l; see curve_fit.c and doc/design/models.md for the
 * method (profile over the asymptote + projected Gauss-Newton polish).
 */
#ifndef OPTIMUS_CURVE_FIT_H
#define OPTIMUS_CURVE_FIT_H

#include <stddef.h>

typedef enum curve_form {
	CURVE_INVERSE = 0,
	CURVE_POWER = 1,
	CURVE_EXP = 2,
} curve_form_t;

typedef struct curve_coef {
	curve_form_t form;
	double c[3];
	double rms;		/* weighted RMS residual of the fit, in l units */
} curve_coef_t;

/* Tuning of the fit; curve_fit() uses CURVE_FIT_DEFAULT. */
typedef struct curve_fit_opts {
	int grid;		/* coarse asymptote grid before Brent (>= 3) */
	int brent_iters;	/* 0: keep the best grid point */
	int polish_iters;	/* projected Gauss-Newton steps, 0: none */
} curve_fit_opts_t;

#define CURVE_FIT_DEFAULT ((curve_fit_opts_t){ 4, 8, 2 })

/* Fit n >= 3 points (k[i] > 0, finite l[i] >= 0); wt may be NULL (all 1)
 * or hold non-negative weights. 0 or -EINVAL / -ENODATA / -EDOM. */
int curve_fit(curve_form_t form, const double *k, const double *l,
	      const double *wt, size_t n, curve_coef_t *out);
int curve_fit_with(curve_form_t form, const double *k, const double *l,
		   const double *wt, size_t n, curve_fit_opts_t opts,
		   curve_coef_t *out);

double curve_eval(const curve_coef_t *f, double k);

/* Smallest k >= k_from where l(k) - l(k + window) <= delta, or where
 * l(k) - asymptote <= delta (curve_k_near_asymptote). INFINITY if never
 * (before 1e15 steps). */
double curve_k_decrease_below(const curve_coef_t *f, double k_from,
			      double window, double delta);
double curve_k_near_asymptote(const curve_coef_t *f, double k_from,
			      double delta);

const char *curve_form_name(curve_form_t form);
/* "inverse", "power", "exp"; 0 or -EINVAL. */
int curve_form_parse(const char *name, curve_form_t *form);

#endif

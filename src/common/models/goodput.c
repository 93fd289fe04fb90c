/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* goodput.c - see goodput.h for the formulas. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_vector.h>

#include "models/allreduce_speed.h"
#include "models/goodput.h"
#include "models/nnls.h"

/* The all-reduce part of a step: the form's terms without the batch. */
static double sync_time(const speed_model_t *speed, int w, int n)
{
	double phi[ALLREDUCE_NTHETA];

	allreduce_speed_features(1.0, w, n, phi);
	return speed->theta[2] * phi[2] + speed->theta[3] * phi[3] +
	       speed->theta[4] * phi[4];
}

/* Does the model's gamma hide part of an all-reduce of `sync` seconds
 * (goodput.h)? Not without one (0, or 1), nor without an all-reduce. */
static int overlaps(const speed_model_t *speed, double sync)
{
	return speed->overlap > 1 && sync > 0;
}

/* Seconds of a step: k = accum extra micro-steps of compute g each, and
 * one more whose all-reduce `sync` overlaps its compute by the model's
 * gamma (goodput.h); without an overlap the two add up, as (k + 1) g
 * + sync. */
static double step_seconds(const speed_model_t *speed, int local, int accum,
			   double sync)
{
	double g = speed->theta[0] * local + speed->theta[1];
	double y = speed->overlap;

	if (!overlaps(speed, sync))
		return (accum + 1) * g + sync;
	return accum * g + pow(pow(g, y) + pow(sync, y), 1.0 / y);
}

/* The regressors of T for one sample (goodput.h). */
static void sample_features(const goodput_sample_t *x, double *phi)
{
	allreduce_speed_features(1.0, x->w, x->n, phi);
	phi[0] = (double)(x->accum + 1) * x->local;
	phi[1] = x->accum + 1;
}

static int sample_valid(const goodput_sample_t *x)
{
	return x->w >= 1 && x->n >= 1 && x->n <= x->w && x->local >= 1 &&
	       x->accum >= 0 && x->step > 0 && isfinite(x->step);
}

/* The terms the samples determine (goodput.h). Sync term k (2..4) needs a
 * sample of its kind: a ring inside one node, a ring crossing nodes, more
 * than one worker. */
static int kind_seen(const goodput_sample_t *s, size_t n, int k)
{
	for (size_t i = 0; i < n; i++)
		if ((k == 2 && s[i].n == 1 && s[i].w > 1) ||
		    (k == 3 && s[i].n > 1) || (k == 4 && s[i].w > 1))
			return 1;
	return 0;
}

/* Does column v add to the rank of the kept columns (orthonormal in Q)?
 * Then it joins them, so that the least squares has one answer.
 * Gram-Schmidt: a column whose part outside the kept ones is below 1e-9 of
 * its norm adds nothing. v is overwritten. */
static int adds_rank(gsl_matrix *Q, size_t kept, gsl_vector *v)
{
	double norm = gsl_blas_dnrm2(v);

	if (!(norm > 0))
		return 0;
	for (size_t j = 0; j < kept; j++) {
		gsl_vector_view q = gsl_matrix_column(Q, j);
		double d;
		gsl_blas_ddot(&q.vector, v, &d);
		gsl_blas_daxpy(-d, &q.vector, v);
	}
	double left = gsl_blas_dnrm2(v);
	if (!(left > 1e-9 * norm))
		return 0;
	gsl_vector_scale(v, 1.0 / left);
	gsl_matrix_set_col(Q, kept, v);
	return 1;
}

/* The part of a step a fit explains (goodput.h). */
typedef enum { PART_WHOLE, PART_COMPUTE, PART_SYNC } part_t;

/* The all-reduce part of a sample: none in a one-worker step, whose sync
 * terms are 0 in the model (whatever a job says of it). */
static double sync_of(const goodput_sample_t *x)
{
	return x->w > 1 ? x->sync : 0.0;
}

static double part_of(const goodput_sample_t *x, part_t part)
{
	return part == PART_WHOLE ? x->step :
	       part == PART_COMPUTE ? x->step - sync_of(x) : sync_of(x);
}

/*
 * NNLS of `part` of every step on the terms k in [from, to) the samples
 * determine (goodput.h), rows weighted by 1/step (errors relative to the
 * step the job sees), into theta[from..to). With one_local, t1 is t0 *
 * local (one column). A sync term's column is 0 in a one-worker row: such
 * a row holds none of them. No term determined: theta stays 0, and 0.
 */
static int fit_terms(const goodput_sample_t *samples, size_t n, int from,
		     int to, part_t part, const double *target, int one_local,
		     double *theta)
{
	double phi[ALLREDUCE_NTHETA];
	int col[ALLREDUCE_NTHETA], rc = 0;
	size_t kept = 0;
	double L = samples[0].local;
	gsl_matrix *A = gsl_matrix_alloc(n, ALLREDUCE_NTHETA);
	gsl_matrix *Q = gsl_matrix_alloc(n, ALLREDUCE_NTHETA);
	gsl_vector *v = gsl_vector_alloc(n);
	gsl_vector *b = NULL, *x = NULL;

	if (!A || !Q || !v) {
		rc = -ENOMEM;
		goto out;
	}
	for (int k = from; k < to; k++) {
		if ((k == 1 && one_local) || (k >= 2 &&
					      !kind_seen(samples, n, k)))
			continue;
		for (size_t i = 0; i < n; i++) {
			sample_features(&samples[i], phi);
			double f = phi[k];
			if (k == 0 && one_local)
				f += L * phi[1];
			gsl_vector_set(v, i, f / samples[i].step);
		}
		gsl_matrix_set_col(A, kept, v);
		if (adds_rank(Q, kept, v))
			col[kept++] = k;
	}
	if (!kept)
		goto out;
	gsl_matrix_view Ak = gsl_matrix_submatrix(A, 0, 0, n, kept);
	b = gsl_vector_alloc(n);
	x = gsl_vector_alloc(kept);
	if (!b || !x) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		gsl_vector_set(b, i, (target ? target[i] :
				      part_of(&samples[i], part)) /
				     samples[i].step);
	if ((rc = nnls_solve(&Ak.matrix, b, x, NULL)))
		goto out;
	for (size_t j = 0; j < kept; j++)
		theta[col[j]] = gsl_vector_get(x, j);
	if (one_local && from == 0)
		theta[1] = theta[0] * L;
out:
	gsl_vector_free(x);
	gsl_vector_free(b);
	gsl_vector_free(v);
	gsl_matrix_free(Q);
	gsl_matrix_free(A);
	return rc;
}

/* Pollux's bounds of gamma: 1, compute and all-reduce add up; 10, a step
 * takes about the longer of the two. */
#define OVERLAP_MIN 1.0
#define OVERLAP_MAX 10.0
/* Where the search for gamma first looks: OVERLAP_MIN * 10^(k / 8). */
#define OVERLAP_GRID 9
/* Below this, a fit's sum of squared relative errors improves by
 * rounding alone (1e-6 of a step per sample): samples that every gamma
 * fits alike (one multi-worker size, one per-GPU batch at each) keep 1. */
#define OVERLAP_ROUNDING 1e-12

/* The samples, with t0/t1 fitted on their compute parts, whose sync terms
 * overlap_error fits anew for each gamma. */
typedef struct overlap_fit {
	const goodput_sample_t *samples;
	size_t n;
	int one_local;
	double theta[ALLREDUCE_NTHETA];
	double *full;		/* per sample: its whole all-reduce */
	int rc;
} overlap_fit_t;

/*
 * The squared relative error of the steps predicted with overlap y, the
 * sync terms fitted (as fit_terms fits them) on each multi-worker
 * sample's whole all-reduce at y. What a job measures of its all-reduce
 * is the part its step waited for, e (a report's sync_seconds): the
 * micro-step that reduces takes g + e, g its compute, and in the model
 * (g^y + s^y)^(1/y), so s = ((g + e)^y - g^y)^(1/y); at y = 1, s = e.
 */
static double overlap_error(double y, void *ctx)
{
	overlap_fit_t *f = ctx;
	speed_model_t m = { .mode = SPEED_ALLREDUCE,
			    .overlap = y > OVERLAP_MIN ? y : 0.0 };
	double err = 0.0;

	for (size_t i = 0; i < f->n; i++) {
		const goodput_sample_t *x = &f->samples[i];
		double e = sync_of(x), g = (x->step - e) / (x->accum + 1);

		f->full[i] = !(y > OVERLAP_MIN) ? e :
			     pow(pow(g + e, y) - pow(g, y), 1.0 / y);
	}
	for (int k = 2; k < ALLREDUCE_NTHETA; k++)
		f->theta[k] = 0.0;
	f->rc = fit_terms(f->samples, f->n, 2, ALLREDUCE_NTHETA, PART_SYNC,
			  f->full, f->one_local, f->theta);
	if (f->rc)
		return INFINITY;
	memcpy(m.theta, f->theta, sizeof(f->theta));
	for (size_t i = 0; i < f->n; i++) {
		const goodput_sample_t *x = &f->samples[i];
		double r = (step_seconds(&m, x->local, x->accum,
					 sync_time(&m, x->w, x->n)) - x->step) /
			   x->step;

		err += r * r;
	}
	return isfinite(err) ? err : INFINITY;
}

/*
 * Gamma (goodput.h) within Pollux's bounds: the grid's best, then GSL's
 * Brent between its neighbours. Kept only if it predicts the steps better
 * than compute and all-reduce adding up (gamma 1, the fit before any
 * overlap), beyond rounding (OVERLAP_ROUNDING).
 * Leaves f->theta the sync terms at the gamma returned.
 */
static double overlap_fit_gamma(overlap_fit_t *f)
{
	double y[OVERLAP_GRID], err[OVERLAP_GRID], best;
	int k = 0;

	for (int i = 0; i < OVERLAP_GRID; i++) {
		y[i] = OVERLAP_MIN * pow(OVERLAP_MAX / OVERLAP_MIN,
					 (double)i / (OVERLAP_GRID - 1));
		err[i] = overlap_error(y[i], f);
		if (err[i] < err[k])
			k = i;
	}
	best = y[k];
	/* Brent needs the grid's best strictly below both neighbours. */
	if (k > 0 && k < OVERLAP_GRID - 1 && err[k] < err[k - 1] &&
	    err[k] < err[k + 1]) {
		gsl_min_fminimizer *mz =
			gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
		gsl_function fn = { .function = overlap_error, .params = f };

		if (mz && gsl_min_fminimizer_set_with_values(
				  mz, &fn, y[k], err[k], y[k - 1], err[k - 1],
				  y[k + 1], err[k + 1]) == GSL_SUCCESS) {
			for (int it = 0; it < 50; it++) {
				if (gsl_min_fminimizer_iterate(mz) !=
				    GSL_SUCCESS)
					break;
				if (gsl_min_test_interval(
					    gsl_min_fminimizer_x_lower(mz),
					    gsl_min_fminimizer_x_upper(mz),
					    1e-2, 0.0) == GSL_SUCCESS)
					break;
			}
			if (gsl_min_fminimizer_f_minimum(mz) < err[k])
				best = gsl_min_fminimizer_x_minimum(mz);
		}
		gsl_min_fminimizer_free(mz);
	}
	/* each call leaves f->theta at its gamma: the last one's is kept */
	if (!(overlap_error(best, f) < err[0] - OVERLAP_ROUNDING)) {
		best = OVERLAP_MIN;
		(void)overlap_error(best, f);
	}
	return best;
}

int goodput_fit(const goodput_sample_t *samples, size_t n,
		speed_model_t *speed)
{
	double theta[ALLREDUCE_NTHETA] = { 0 }, gamma = OVERLAP_MIN;
	int one_local = 1, split = 1, rc;

	if (!speed || speed->mode != SPEED_ALLREDUCE || (n && !samples))
		return -EINVAL;
	if (!n)
		return -ENODATA;
	for (size_t i = 0; i < n; i++) {
		if (!sample_valid(&samples[i]))
			return -EINVAL;
		one_local &= samples[i].local == samples[0].local;
		split &= samples[i].w == 1 || (samples[i].sync > 0 &&
					       samples[i].sync < samples[i].step);
	}
	/* One per-GPU batch: t0 and t1 are not told apart (both grow with
	 * the micro-steps alone); the prior t1 = t0 * local, half of each
	 * micro-step's compute constant, one column (t0 * 2 * local).
	 * Every multi-worker step's sync part measured: t0/t1 on the
	 * compute part, the sync terms on the sync part; else all of them
	 * on the whole. */
	if (split)
		rc = fit_terms(samples, n, 0, 2, PART_COMPUTE, NULL, one_local,
			       theta);
	else
		rc = fit_terms(samples, n, 0, ALLREDUCE_NTHETA, PART_WHOLE,
			       NULL, one_local, theta);
	if (rc)
		return rc;
	if (!(theta[0] > 0 || theta[1] > 0))
		return -EDOM;
	if (split) {
		overlap_fit_t f = { .samples = samples, .n = n,
				    .one_local = one_local };

		memcpy(f.theta, theta, sizeof(theta));
		if (!(f.full = calloc(n, sizeof(*f.full))))
			return -ENOMEM;
		gamma = overlap_fit_gamma(&f);
		free(f.full);
		if (f.rc)
			return f.rc;
		memcpy(theta, f.theta, sizeof(theta));
	}
	if ((rc = speed_model_set_theta(speed, theta, ALLREDUCE_NTHETA)))
		return rc;
	speed->overlap = gamma > OVERLAP_MIN ? gamma : 0.0;
	return 0;
}

double goodput_step_time(const speed_model_t *speed, int w, int n,
			 int local, int accum)
{
	if (!speed || speed->mode != SPEED_ALLREDUCE || !speed->fitted ||
	    w < 1 || n < 1 || n > w || local < 1 || accum < 0)
		return NAN;
	return step_seconds(speed, local, accum, sync_time(speed, w, n));
}

/* goodput_eval with the step's sync time given (one per w and n): the
 * same operations as goodput_step_time, in the same order. */
static int goodput_eval_sync(const speed_model_t *speed,
			     const efficiency_model_t *eff, int w, int local,
			     int accum, double sync, goodput_choice_t *c)
{
	double t = step_seconds(speed, local, accum, sync);

	if (!(t > 0) || !isfinite(t))
		return -EDOM;
	c->local = local;
	c->accum = accum;
	c->batch = (double)local * w * (accum + 1);
	c->step_time = t;
	c->efficiency = efficiency_eval(eff, c->batch);
	c->goodput = c->efficiency * c->batch / t;
	return 0;
}

int goodput_eval(const speed_model_t *speed, const efficiency_model_t *eff,
		 int w, int n, int local, int accum, goodput_choice_t *c)
{
	if (!eff || !c)
		return -EINVAL;
	if (isnan(goodput_step_time(speed, w, n, local, accum)))
		return -EDOM;
	return goodput_eval_sync(speed, eff, w, local, accum,
				 sync_time(speed, w, n), c);
}

static int limits_valid(const goodput_limits_t *l)
{
	return l && l->min_batch > 0 && l->max_batch >= l->min_batch &&
	       isfinite(l->max_batch) && l->min_local >= 1 &&
	       l->max_local >= l->min_local && l->max_accum >= 0;
}

/* Keep c in best if its goodput is higher (ties: the smaller batch). */
static void keep_better(goodput_choice_t *best, int *found,
			const goodput_choice_t *c)
{
	if (!*found || c->goodput > best->goodput ||
	    (c->goodput == best->goodput && c->batch < best->batch)) {
		*best = *c;
		*found = 1;
	}
}

/*
 * The most goodput any batch could have with k extra micro-steps, the
 * limits aside: goodput.h's maximum at B* = sqrt(a Bn / c) (a = (k+1) t1 +
 * sync, c = t0 / w; a as that sum, not as the search's difference, which
 * loses a small t1 to rounding). Each further micro-step adds t1 >= 0 to a and so
 * lowers the goodput of every batch: this bounds every k after it too.
 * NAN where that does not hold (no noise scale, t0 = 0, t1 < 0, a <= 0)
 * or the bound is not a number; then it bounds nothing. Every step time
 * of such a model is positive and finite: no candidate left unevaluated
 * would have been an error.
 */
static double goodput_bound(const speed_model_t *speed,
			    const efficiency_model_t *eff, double bn,
			    double a, double cpe)
{
	double bstar, e;

	if (!(bn > 0) || !isfinite(bn) || !(cpe > 0) || !isfinite(cpe) ||
	    !(speed->theta[1] >= 0) || !(a > 0) || !isfinite(a) ||
	    !(eff->init_batch > 0))
		return NAN;
	bstar = sqrt(a * bn / cpe);
	e = (bn + eff->init_batch) / (bn + bstar);
	return e * bstar / (a + cpe * bstar);
}

/*
 * goodput_bound for k extra micro-steps of a model with or without an
 * overlap. Without, T = a + c B with a = (k+1) t1 + sync. With one, T is
 * at least each of two such lines: its compute alone, (k + 1) g (a =
 * (k+1) t1), and its k micro-steps without all-reduce plus the
 * all-reduce, k g + sync (a = k t1 + sync, c = k t0 / ((k + 1) w)): the
 * goodput is below both bounds. Each falls as k grows (a and c only
 * grow), so it bounds every later k too. NAN: no bound.
 */
static double overlap_bound(const speed_model_t *speed,
			    const efficiency_model_t *eff, double bn, int w,
			    int k, double sync, double cpe)
{
	double compute, reduce;

	if (!overlaps(speed, sync))
		return goodput_bound(speed, eff, bn,
				     (k + 1) * speed->theta[1] + sync, cpe);
	compute = goodput_bound(speed, eff, bn, (k + 1) * speed->theta[1],
				cpe);
	reduce = goodput_bound(speed, eff, bn, k * speed->theta[1] + sync,
			       k * speed->theta[0] / ((k + 1.0) * w));
	return isnan(reduce) || reduce > compute ? compute : reduce;
}

/* Beyond the rounding of a step time and of the bound: a choice above the
 * bound by this much beats every batch the bound covers. */
#define GOODPUT_BOUND_SLACK 1e-9

/*
 * With an overlap (gamma > 1) the step is no longer linear in the batch
 * and B* is not the maximum; goodput is still unimodal in the per-GPU
 * batch b: E(B) B / T = (Bn + B0) B / ((Bn + B) T), a positive linear
 * function over a product of positive increasing convex ones (T is
 * convex in b: (g^y + s^y)^(1/y) is a norm of (g, s) and g is linear in
 * b). A golden-section search over the whole numbers [lo, hi] narrows it
 * to four, each then weighed as keep_better weighs (ties: the smaller
 * batch). 0 or goodput_eval's.
 */
static int overlap_best_local(const speed_model_t *speed,
			      const efficiency_model_t *eff, int w, int k,
			      double sync, int lo, int hi,
			      goodput_choice_t *best, int *found)
{
	const double part = (sqrt(5.0) - 1.0) / 2.0;	/* 0.618... */
	goodput_choice_t c1, c2;
	int a = lo, b = hi, x1, x2, rc;

	if (b - a > 3) {
		x1 = b - (int)lround(part * (b - a));
		x2 = a + (int)lround(part * (b - a));
		if ((rc = goodput_eval_sync(speed, eff, w, x1, k, sync, &c1)) ||
		    (rc = goodput_eval_sync(speed, eff, w, x2, k, sync, &c2)))
			return rc;
		while (b - a > 3 && x1 < x2) {
			if (c1.goodput < c2.goodput) {
				/* the top is above x1 */
				a = x1;
				x1 = x2;
				c1 = c2;
				x2 = a + (int)lround(part * (b - a));
				if (x2 <= x1)
					x2 = x1 + 1;
				if (x2 >= b)
					break;
				rc = goodput_eval_sync(speed, eff, w, x2, k,
						       sync, &c2);
			} else {
				/* the top is below x2 (or a tie: the
				 * smaller batch) */
				b = x2;
				x2 = x1;
				c2 = c1;
				x1 = b - (int)lround(part * (b - a));
				if (x1 >= x2)
					x1 = x2 - 1;
				if (x1 <= a)
					break;
				rc = goodput_eval_sync(speed, eff, w, x1, k,
						       sync, &c1);
			}
			if (rc)
				return rc;
		}
	}
	for (int l = a; l <= b; l++) {
		if ((rc = goodput_eval_sync(speed, eff, w, l, k, sync, &c1)))
			return rc;
		keep_better(best, found, &c1);
	}
	return 0;
}

int goodput_best(const speed_model_t *speed, const efficiency_model_t *eff,
		 int w, int n, const goodput_limits_t *lim,
		 goodput_choice_t *best)
{
	int found = 0;

	if (!eff || !best || !limits_valid(lim) || w < 1 || n < 1 || n > w)
		return -EINVAL;
	double bn = efficiency_noise_scale(eff);
	/* the step's sync part depends on w and n alone: once, not per
	 * candidate (this search runs for every size every plan asks) */
	if (isnan(goodput_step_time(speed, w, n, 1, 0)))
		return -EDOM;
	double sync = sync_time(speed, w, n);
	int overlap = overlaps(speed, sync);
	for (int k = 0; k <= lim->max_accum; k++) {
		double per = (double)w * (k + 1);	/* examples per local */
		double lo = fmax(lim->min_local, ceil(lim->min_batch / per -
						      1e-9));
		double hi = fmin(lim->max_local, floor(lim->max_batch / per +
						       1e-9));
		/* hi only falls as k grows: no later k has a batch either */
		if (hi < lim->min_local)
			break;
		if (lo > hi)
			continue;
		double a = ((k + 1) * (speed->theta[0] * 1 + speed->theta[1]) +
			    sync) - (k + 1) * speed->theta[0];
		double cpe = speed->theta[0] / w;
		double bstar;
		/* No batch of this k or a later one can beat (or tie) the
		 * choice made: the search would end with it. */
		if (found &&
		    best->goodput > overlap_bound(speed, eff, bn, w, k, sync,
						  cpe) *
				    (1 + GOODPUT_BOUND_SLACK))
			break;
		if (overlap) {
			int rc = overlap_best_local(speed, eff, w, k, sync,
						    (int)lo, (int)hi, best,
						    &found);
			if (rc)
				return rc;
			continue;
		}
		if (isinf(bn) || cpe <= 0)
			bstar = hi * per;
		else
			bstar = sqrt(a * bn / cpe);
		double at = bstar / per;
		double cand[4] = { lo, hi, floor(at), ceil(at) };
		for (int i = 0; i < 4; i++)
			cand[i] = fmin(hi, fmax(lo, cand[i]));
		for (int i = 0; i < 4; i++) {
			goodput_choice_t c;
			bool seen = false;
			/* a candidate met before gives the same choice */
			for (int j = 0; j < i && !seen; j++)
				seen = cand[j] == cand[i];
			if (seen)
				continue;
			int rc = goodput_eval_sync(speed, eff, w, (int)cand[i],
						   k, sync, &c);
			if (rc)
				return rc;
			keep_better(best, &found, &c);
		}
	}
	return found ? 0 : -ERANGE;
}

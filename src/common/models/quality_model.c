/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* quality_model.c - loss prediction for quality-driven scheduling. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_fit.h>

#include "models/quality_model.h"

/* Points whose decayed weight is below this no longer affect the fit. */
#define QUALITY_MIN_WEIGHT 1e-9

int quality_model_init(quality_model_t *q, double decay, size_t cap)
{
	if (!q || !(decay > 0.0 && decay <= 1.0) || cap < 8 || cap > 4096)
		return -EINVAL;
	memset(q, 0, sizeof(*q));
	q->decay = decay;
	q->cap = cap;
	q->iter = malloc(2 * cap * sizeof(double));
	if (!q->iter)
		return -ENOMEM;
	q->loss = q->iter + cap;
	return 0;
}

void quality_model_clear(quality_model_t *q)
{
	if (!q)
		return;
	free(q->iter);
	q->iter = q->loss = NULL;
	q->n = 0;
}

int quality_model_copy(quality_model_t *dst, const quality_model_t *src)
{
	*dst = *src;
	if (!src->iter)
		return 0;
	dst->iter = malloc(2 * src->cap * sizeof(double));
	if (!dst->iter) {
		dst->loss = NULL;
		dst->n = 0;
		return -ENOMEM;
	}
	dst->loss = dst->iter + src->cap;
	memcpy(dst->iter, src->iter, src->n * sizeof(double));
	memcpy(dst->loss, src->loss, src->n * sizeof(double));
	return 0;
}

static double quality_weight(const quality_model_t *q, size_t i)
{
	return pow(q->decay, q->iter[q->n - 1] - q->iter[i]);
}

/* Drop the oldest points: beyond the cap, or weighing (almost) nothing. */
static void quality_trim(quality_model_t *q)
{
	size_t drop = 0;

	while (drop + 1 < q->n && (q->n - drop >= q->cap ||
	       quality_weight(q, drop) < QUALITY_MIN_WEIGHT))
		drop++;
	if (!drop)
		return;
	memmove(q->iter, q->iter + drop, (q->n - drop) * sizeof(double));
	memmove(q->loss, q->loss + drop, (q->n - drop) * sizeof(double));
	q->n -= drop;
}

int quality_model_add_loss(quality_model_t *q, double iter, double loss)
{
	if (!q || !q->iter || !isfinite(iter) || iter < 1.0 ||
	    !isfinite(loss) || loss < 0.0 ||
	    (q->n && iter < q->iter[q->n - 1]))
		return -EINVAL;
	if (q->n)
		quality_trim(q);
	q->iter[q->n] = iter;
	q->loss[q->n++] = loss;
	return 0;
}

int quality_model_add_cost(quality_model_t *q, double data_size,
			   double cpu_seconds)
{
	if (!q || !isfinite(data_size) || !(data_size > 0.0) ||
	    !isfinite(cpu_seconds) || !(cpu_seconds > 0.0))
		return -EINVAL;
	q->cost_s[q->cost_next] = data_size;
	q->cost_t[q->cost_next] = cpu_seconds;
	q->cost_next = (q->cost_next + 1) % QUALITY_COST_WINDOW;
	if (q->ncost < QUALITY_COST_WINDOW)
		q->ncost++;
	q->data_size = data_size;
	return 0;
}

/* c of t = c*S by least squares through the origin (gsl_fit_mul). */
static int quality_fit_cost(quality_model_t *q)
{
	double c, cov, ss;

	if (!q->ncost)
		return -ENODATA;
	gsl_fit_mul(q->cost_s, 1, q->cost_t, 1, q->ncost, &c, &cov, &ss);
	if (!(c > 0.0) || !isfinite(c))
		return -EDOM;
	q->cost_c = c;
	return 0;
}

int quality_model_fit(quality_model_t *q)
{
	int rc;

	if (!q || !q->iter)
		return -EINVAL;
	if (q->n < 3)
		return -ENODATA;
	{
		double w[q->n];
		curve_coef_t coef;
		size_t i;

		for (i = 0; i < q->n; i++)
			w[i] = quality_weight(q, i);
		rc = curve_fit(CURVE_POWER, q->iter, q->loss, w, q->n, &coef);
		if (rc)
			return rc;
		q->coef = coef;
		q->fitted = 1;
	}
	return quality_fit_cost(q);
}

double quality_model_iters(const quality_model_t *q, double T, double a)
{
	if (!q || !(q->cost_c > 0.0) || !(q->data_size > 0.0) || !(T > 0.0) ||
	    !(a > 0.0))
		return 0.0;
	return T * a / (q->cost_c * q->data_size);
}

double quality_model_loss_after(const quality_model_t *q, double T, double a)
{
	if (!q || !q->fitted || !q->n)
		return NAN;
	return curve_eval(&q->coef, q->iter[q->n - 1] +
			  quality_model_iters(q, T, a));
}

double quality_model_gain(const quality_model_t *q, double T, double a,
			  double r)
{
	return quality_model_loss_after(q, T, a) -
	       quality_model_loss_after(q, T, a + r);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* convergence.c - Optimus convergence model (see convergence.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/convergence.h"

void convergence_cfg_default(convergence_cfg_t *cfg)
{
	*cfg = (convergence_cfg_t){
		.form = CURVE_INVERSE,
		.criterion = CONV_DECREASE,
		.delta = CONV_DELTA_DEFAULT,
		.window = 1.0,
		.max_points = 256,
		.avg_steps = 0.0,
		.min_points = 8,
		.outlier_span = 5,
		.drop_frac = 0.15,
		.drop_confirm = 3,
	};
}

int convergence_cfg_check(const convergence_cfg_t *cfg)
{
	if (!cfg || (unsigned)cfg->form > CURVE_EXP ||
	    (unsigned)cfg->criterion > CONV_ASYMPTOTE ||
	    !(cfg->delta > 0.0) || !isfinite(cfg->delta) ||
	    !(cfg->window > 0.0) || !isfinite(cfg->window) ||
	    cfg->max_points < 16 || cfg->max_points > 4096 ||
	    !(cfg->avg_steps >= 0.0) || !isfinite(cfg->avg_steps) ||
	    cfg->min_points < 3 || cfg->min_points > cfg->max_points ||
	    cfg->outlier_span < 0 || cfg->outlier_span > 100 ||
	    !(cfg->drop_frac >= 0.0) || cfg->drop_frac >= 1.0 ||
	    cfg->drop_confirm < 1 || cfg->drop_confirm > 1000)
		return -EINVAL;
	return 0;
}

convergence_t *convergence_new(const convergence_cfg_t *cfg)
{
	convergence_t *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (cfg)
		c->cfg = *cfg;
	else
		convergence_cfg_default(&c->cfg);
	if (convergence_cfg_check(&c->cfg)) {
		free(c);
		return NULL;
	}
	c->step = malloc(3 * c->cfg.max_points * sizeof(double));
	if (!c->step) {
		free(c);
		return NULL;
	}
	c->loss = c->step + c->cfg.max_points;
	c->weight = c->loss + c->cfg.max_points;
	c->bucket = NAN;
	return c;
}

void convergence_free(convergence_t *c)
{
	if (!c)
		return;
	free(c->step);
	free(c);
}

convergence_t *convergence_clone(const convergence_t *c)
{
	convergence_t *d;
	size_t cap;

	if (!c || !(d = malloc(sizeof(*d))))
		return NULL;
	*d = *c;
	cap = c->cfg.max_points;
	if (!(d->step = malloc(3 * cap * sizeof(double)))) {
		free(d);
		return NULL;
	}
	memcpy(d->step, c->step, 3 * cap * sizeof(double));
	d->loss = d->step + cap;
	d->weight = d->loss + cap;
	return d;
}

double convergence_k(const convergence_t *c, double step)
{
	return step - c->origin + 1.0;
}

/* Weighted merge of point j into point i. */
static void conv_merge_into(convergence_t *c, size_t i, size_t j)
{
	double w = c->weight[i] + c->weight[j];

	c->step[i] = (c->step[i] * c->weight[i] + c->step[j] * c->weight[j]) / w;
	c->loss[i] = (c->loss[i] * c->weight[i] + c->loss[j] * c->weight[j]) / w;
	c->weight[i] = w;
}

/* Bound memory: thin the older half by keeping every second point, its
 * weight absorbing the dropped one's. Sampling rather than averaging:
 * the mean loss of a wide span of a convex curve lies above the curve at
 * the mean step, which would bias the fit. Recent points stay at full
 * resolution (they matter most for the fit and the drop detector). */
static void conv_compact(convergence_t *c)
{
	size_t half = c->n / 2 & ~(size_t)1, i, out = 0;

	for (i = 0; i < c->n; i++) {
		if (i < half && i % 2 == 0) {
			c->weight[i + 1] += c->weight[i];
			continue;
		}
		c->step[out] = c->step[i];
		c->loss[out] = c->loss[i];
		c->weight[out++] = c->weight[i];
	}
	c->n = out;
}

/* Drop the points before the learning-rate drop and restart the fit. */
static void conv_reset_at(convergence_t *c, double step)
{
	size_t i, out = 0;

	for (i = 0; i < c->n; i++) {
		if (c->step[i] < step)
			continue;
		c->step[out] = c->step[i];
		c->loss[out] = c->loss[i];
		c->weight[out++] = c->weight[i];
	}
	c->n = out;
	c->origin = step;
	c->fitted = 0;
	c->below = 0;
	c->resets++;
}

/* A step decay shows up as points well below the current fit: further
 * than drop_frac of the prediction and than 4 residual RMS. */
static void conv_watch_drop(convergence_t *c, double step, double loss)
{
	double pred, gap;

	if (!c->fitted || c->cfg.drop_frac <= 0.0)
		return;
	pred = convergence_predict(c, step);
	gap = fmax(c->cfg.drop_frac * pred, 4.0 * c->coef.rms * c->scale);
	if (!(pred - loss > gap)) {
		c->below = 0;
		return;
	}
	if (c->below++ == 0)
		c->drop_step = step;
	if (c->below >= c->cfg.drop_confirm)
		conv_reset_at(c, c->drop_step);
}

int convergence_add(convergence_t *c, double step, double loss)
{
	double bucket;

	if (!c || !isfinite(step) || step < 0.0 || !isfinite(loss) ||
	    loss < 0.0 || (c->n && step < c->step[c->n - 1]))
		return -EINVAL;
	conv_watch_drop(c, step, loss);
	bucket = c->cfg.avg_steps > 0.0 ? floor(step / c->cfg.avg_steps) : NAN;
	if (c->n && bucket == c->bucket) {
		c->step[c->n] = step;
		c->loss[c->n] = loss;
		c->weight[c->n] = 1.0;
		conv_merge_into(c, c->n - 1, c->n);
		return 0;
	}
	if (c->n == c->cfg.max_points)
		conv_compact(c);
	c->step[c->n] = step;
	c->loss[c->n] = loss;
	c->weight[c->n++] = 1.0;
	c->bucket = bucket;
	return 0;
}

void convergence_filter(const double *loss, size_t n, int span,
			unsigned char *keep)
{
	size_t i, j, s = span > 0 ? (size_t)span : 0;

	for (i = 0; i < n; i++) {
		double hi = -INFINITY, lo = INFINITY;

		for (j = i > s ? i - s : 0; j < i; j++)
			hi = fmax(hi, loss[j]);
		for (j = i + 1; j <= i + s && j < n; j++)
			lo = fmin(lo, loss[j]);
		/* No previous (next) points: nothing to compare against. */
		keep[i] = (i == 0 || s == 0 || loss[i] <= hi) &&
			  (i + 1 == n || s == 0 || loss[i] >= lo);
	}
}

/* Gather the filtered, normalised points into k/l/w; returns the count. */
static size_t conv_collect(convergence_t *c, double *k, double *l, double *w)
{
	unsigned char keep[c->n];
	size_t i, m = 0;
	double top = 0.0;

	convergence_filter(c->loss, c->n, c->cfg.outlier_span, keep);
	for (i = 0; i < c->n; i++) {
		if (!keep[i])
			continue;
		k[m] = convergence_k(c, c->step[i]);
		l[m] = c->loss[i];
		w[m++] = c->weight[i];
		top = fmax(top, c->loss[i]);
	}
	c->scale = top;
	for (i = 0; i < m && top > 0.0; i++)
		l[i] /= top;
	return m;
}

int convergence_fit(convergence_t *c)
{
	size_t m;
	curve_coef_t coef;
	int rc;

	if (!c)
		return -EINVAL;
	if (c->n < c->cfg.min_points)
		return -ENODATA;
	{
		double k[c->n], l[c->n], w[c->n];

		m = conv_collect(c, k, l, w);
		c->used = m;
		if (m < c->cfg.min_points)
			return -ENODATA;
		if (!(c->scale > 0.0))
			return -EDOM;
		rc = curve_fit(c->cfg.form, k, l, w, m, &coef);
	}
	if (rc)
		return rc;
	c->coef = coef;
	c->fitted = 1;
	return 0;
}

double convergence_predict(const convergence_t *c, double step)
{
	if (!c || !c->fitted)
		return NAN;
	return c->scale * curve_eval(&c->coef, convergence_k(c, step));
}

/* The first k >= k_from at which the fitted curve meets the criterion. */
static double conv_first_k(const convergence_t *c, double k_from)
{
	if (c->cfg.criterion == CONV_DECREASE)
		return curve_k_decrease_below(&c->coef, k_from, c->cfg.window,
					      c->cfg.delta);
	return curve_k_near_asymptote(&c->coef, k_from, c->cfg.delta);
}

/* k of the last point: 0, -EINVAL or -ENODATA (not fitted). */
static int conv_k_now(const convergence_t *c, const double *steps,
		      double *k_now)
{
	if (!c || !steps)
		return -EINVAL;
	if (!c->fitted || !c->n)
		return -ENODATA;
	*k_now = convergence_k(c, c->step[c->n - 1]);
	return 0;
}

int convergence_remaining_steps(const convergence_t *c, double *steps)
{
	double k_now;
	int rc = conv_k_now(c, steps, &k_now);

	if (!rc)
		*steps = conv_first_k(c, k_now) - k_now;
	return rc;
}

int convergence_overrun_steps(const convergence_t *c, double *steps)
{
	double k_now;
	int rc = conv_k_now(c, steps, &k_now);

	/* k = 1 is the segment's first step: the curve's own beginning */
	if (!rc)
		*steps = fmax(k_now - conv_first_k(c, 1.0), 0.0);
	return rc;
}

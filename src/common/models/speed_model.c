/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* speed_model.c - Optimus speed model fitted by NNLS (see speed_model.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_blas.h>

#include "models/allreduce_speed.h"
#include "util/grow.h"
#include "models/nnls.h"
#include "models/speed_model.h"

int speed_model_init(speed_model_t *m, speed_mode_t mode, double batch)
{
	if (!m || (unsigned)mode > SPEED_ALLREDUCE ||
	    (mode != SPEED_ASYNC && !(batch > 0.0 && isfinite(batch))))
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->mode = mode;
	m->batch = mode != SPEED_ASYNC ? batch : 0.0;
	m->r2 = NAN;
	return 0;
}

void speed_model_clear(speed_model_t *m)
{
	if (!m)
		return;
	free(m->samples);
	m->samples = NULL;
	m->nsamples = m->cap = 0;
	m->fitted = 0;
}

int speed_model_copy(speed_model_t *dst, const speed_model_t *src)
{
	*dst = *src;
	dst->samples = NULL;
	if (src->cap) {
		dst->samples = malloc(src->cap * sizeof(*src->samples));
		if (!dst->samples) {
			dst->nsamples = dst->cap = 0;
			return -ENOMEM;
		}
		memcpy(dst->samples, src->samples,
		       src->nsamples * sizeof(*src->samples));
	}
	return 0;
}

size_t speed_model_ntheta(const speed_model_t *m)
{
	return m->mode == SPEED_ASYNC ? 4 : m->mode == SPEED_SYNC ? 5 :
		ALLREDUCE_NTHETA;
}

static const char *const speed_mode_names[] = { "async", "sync",
						"allreduce" };

const char *speed_mode_name(speed_mode_t mode)
{
	return (unsigned)mode <= SPEED_ALLREDUCE ? speed_mode_names[mode] :
						   "?";
}

int speed_mode_parse(const char *name, speed_mode_t *mode)
{
	unsigned i;

	for (i = 0; name && i <= SPEED_ALLREDUCE; i++)
		if (!strcmp(name, speed_mode_names[i])) {
			*mode = i;
			return 0;
		}
	return -EINVAL;
}

double speed_sample_mean(const speed_sample_t *s)
{
	return s->count ? s->sum / s->count : 0.0;
}

static speed_sample_t *speed_find(speed_model_t *m, int p, int w)
{
	size_t i;

	for (i = 0; i < m->nsamples; i++)
		if (m->samples[i].p == p && m->samples[i].w == w)
			return &m->samples[i];
	return NULL;
}

static int speed_add_sum(speed_model_t *m, int p, int w, double sum,
			 unsigned count)
{
	speed_sample_t *s = speed_find(m, p, w), *v;

	if (s) {
		s->sum += sum;
		s->count += count;
		return 0;
	}
	if (m->nsamples == SPEED_MAX_SAMPLES)
		return -ENOSPC;
	v = grow_array(m->samples, &m->cap, m->nsamples, sizeof(*v), 16);
	if (!v)
		return -ENOMEM;
	m->samples = v;
	m->samples[m->nsamples++] = (speed_sample_t){ p, w, sum, count };
	return 0;
}

bool speed_model_sample_valid(int p, int w, double speed)
{
	return p >= 1 && w >= 1 && isfinite(speed) && speed > 0.0;
}

int speed_model_add_sample(speed_model_t *m, int p, int w, double speed)
{
	if (!m || !speed_model_sample_valid(p, w, speed))
		return -EINVAL;
	return speed_add_sum(m, p, w, speed, 1);
}

int speed_model_add_mean(speed_model_t *m, int p, int w, double mean,
			 unsigned count)
{
	if (!m || p < 1 || w < 1 || !isfinite(mean) || !(mean > 0.0) ||
	    count < 1 || count > 1000000000u)
		return -EINVAL;
	return speed_add_sum(m, p, w, mean * count, count);
}

int speed_model_merge(speed_model_t *dst, const speed_model_t *src)
{
	size_t i;
	int rc;

	if (!dst || !src || dst->mode != src->mode || dst->batch != src->batch)
		return -EINVAL;
	for (i = 0; i < src->nsamples; i++) {
		const speed_sample_t *s = &src->samples[i];

		if ((rc = speed_add_sum(dst, s->p, s->w, s->sum, s->count)))
			return rc;
	}
	return 0;
}

/* Regressors of 1/f (sync, allreduce) or w/f (async): the model is linear
 * in theta. */
static void speed_features(const speed_model_t *m, int p, int w, double *phi)
{
	double P = p, W = w;

	if (m->mode == SPEED_ALLREDUCE) {
		allreduce_speed_features(m->batch, w, p, phi);
	} else if (m->mode == SPEED_SYNC) {
		phi[0] = m->batch / W;
		phi[1] = 1.0;
		phi[2] = W / P;
		phi[3] = W;
		phi[4] = P;
	} else {
		phi[0] = 1.0;
		phi[1] = W / P;
		phi[2] = W;
		phi[3] = P;
	}
}

static double speed_target(const speed_model_t *m, int w, double f)
{
	return m->mode == SPEED_ASYNC ? w / f : 1.0 / f;
}

double speed_model_eval(const speed_model_t *m, int p, int w)
{
	double phi[SPEED_NTHETA], d = 0.0;
	size_t j;

	if (!m || !m->fitted || p < 1 || w < 1)
		return 0.0;
	speed_features(m, p, w, phi);
	for (j = 0; j < speed_model_ntheta(m); j++)
		d += m->theta[j] * phi[j];
	if (!(d > 0.0))
		return 0.0;
	return m->mode == SPEED_ASYNC ? w / d : 1.0 / d;
}

double speed_model_fn(const void *ctx, int p, int w)
{
	return speed_model_eval(ctx, p, w);
}

/* Relative RMS error and R^2 of the fitted f over the samples. */
static void speed_quality(speed_model_t *m)
{
	double se = 0.0, mean = 0.0, ssr = 0.0, sst = 0.0, n = m->nsamples;
	size_t i;

	for (i = 0; i < m->nsamples; i++)
		mean += speed_sample_mean(&m->samples[i]) / n;
	for (i = 0; i < m->nsamples; i++) {
		const speed_sample_t *s = &m->samples[i];
		double f = speed_sample_mean(s);
		double g = speed_model_eval(m, s->p, s->w);

		se += (g - f) * (g - f) / (f * f);
		ssr += (g - f) * (g - f);
		sst += (f - mean) * (f - mean);
	}
	m->rel_rms = sqrt(se / n);
	m->r2 = m->nsamples >= 2 && sst > 0.0 ? 1.0 - ssr / sst : NAN;
}

/* Rows scaled by sqrt(count)/y (relative residuals, averaged samples
 * count more); columns scaled to unit norm for conditioning. */
static void speed_build(const speed_model_t *m, gsl_matrix *A, gsl_vector *b,
			double *colnorm)
{
	size_t i, j, nt = A->size2;
	double phi[SPEED_NTHETA];

	for (i = 0; i < m->nsamples; i++) {
		const speed_sample_t *s = &m->samples[i];
		double y = speed_target(m, s->w, speed_sample_mean(s));
		double r = sqrt((double)s->count) / y;

		speed_features(m, s->p, s->w, phi);
		for (j = 0; j < nt; j++)
			gsl_matrix_set(A, i, j, phi[j] * r);
		gsl_vector_set(b, i, y * r);
	}
	for (j = 0; j < nt; j++) {
		gsl_vector_view col = gsl_matrix_column(A, j);

		colnorm[j] = gsl_blas_dnrm2(&col.vector);
		if (colnorm[j] > 0.0)
			gsl_vector_scale(&col.vector, 1.0 / colnorm[j]);
	}
}

int speed_model_fit(speed_model_t *m)
{
	size_t nt, j;
	gsl_matrix *A;
	gsl_vector *b, *x;
	double colnorm[SPEED_NTHETA];
	int rc;

	if (!m)
		return -EINVAL;
	if (!m->nsamples)
		return -ENODATA;
	nt = speed_model_ntheta(m);
	A = gsl_matrix_alloc(m->nsamples, nt);
	b = gsl_vector_alloc(m->nsamples);
	x = gsl_vector_alloc(nt);
	rc = A && b && x ? 0 : -ENOMEM;
	if (!rc) {
		speed_build(m, A, b, colnorm);
		rc = nnls_solve(A, b, x, NULL);
	}
	if (!rc) {
		double theta[SPEED_NTHETA] = { 0 };

		/* A coefficient that overflowed in the unscaling is a failed
		 * fit, not a model. */
		for (j = 0; j < nt && !rc; j++) {
			theta[j] = colnorm[j] > 0.0 ?
				gsl_vector_get(x, j) / colnorm[j] : 0.0;
			if (!isfinite(theta[j]) || theta[j] < 0.0)
				rc = -EDOM;
		}
		if (!rc) {
			memcpy(m->theta, theta, sizeof(theta));
			m->fitted = 1;
			speed_quality(m);
		}
	}
	gsl_matrix_free(A);
	gsl_vector_free(b);
	gsl_vector_free(x);
	return rc;
}

int speed_model_set_theta(speed_model_t *m, const double *theta, size_t n)
{
	size_t j;

	if (!m || !theta || n != speed_model_ntheta(m))
		return -EINVAL;
	for (j = 0; j < n; j++)
		if (!isfinite(theta[j]) || theta[j] < 0.0)
			return -EINVAL;
	memset(m->theta, 0, sizeof(m->theta));
	memcpy(m->theta, theta, n * sizeof(double));
	m->fitted = 1;
	return 0;
}

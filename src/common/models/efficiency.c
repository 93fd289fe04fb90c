/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* efficiency.c - see efficiency.h for the definitions and their sources. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>

#include "models/efficiency.h"

int efficiency_init(efficiency_model_t *m, double init_batch,
		    double smoothing)
{
	if (!m || !(init_batch > 0) || !isfinite(init_batch) ||
	    !(smoothing > 0 && smoothing <= 1))
		return -EINVAL;
	*m = (efficiency_model_t){ .init_batch = init_batch,
				   .smoothing = smoothing };
	return 0;
}

int efficiency_report_many(efficiency_model_t *m, double grad_sqr,
			   double grad_var, double var_batch,
			   uint32_t estimates)
{
	if (!m || !(grad_sqr >= 0) || !isfinite(grad_sqr) ||
	    !(grad_var >= 0) || !isfinite(grad_var) || !(var_batch > 0) ||
	    !isfinite(var_batch) || estimates < 1)
		return -EINVAL;
	/* tr(Sigma): the variance of a mean over b examples is tr(Sigma)/b. */
	double trace = grad_var * var_batch;
	/* n reports of one value: what is left of the old average is
	 * (1 - smoothing)^n of it; the first report sets both. */
	double a = m->reports ? 1.0 - pow(1.0 - m->smoothing,
					  (double)estimates) : 1.0;

	m->sqr += a * (grad_sqr - m->sqr);
	m->trace += a * (trace - m->trace);
	/* a count, kept from wrapping to 0 ("no report yet") */
	m->reports = m->reports > UINT_MAX - estimates ? UINT_MAX :
		     m->reports + estimates;
	return 0;
}

int efficiency_report(efficiency_model_t *m, double grad_sqr,
		      double grad_var, double var_batch)
{
	return efficiency_report_many(m, grad_sqr, grad_var, var_batch, 1);
}

double efficiency_noise_scale(const efficiency_model_t *m)
{
	if (!m->reports || (m->sqr == 0 && m->trace == 0))
		return 0.0;
	if (m->sqr == 0)
		return INFINITY;
	return m->trace / m->sqr;
}

double efficiency_eval(const efficiency_model_t *m, double batch)
{
	double bn = efficiency_noise_scale(m);

	if (!(batch > 0))
		return NAN;
	if (isinf(bn))
		return 1.0;
	return (bn + m->init_batch) / (bn + batch);
}

double efficiency_gain(const efficiency_model_t *m, double batch)
{
	return efficiency_eval(m, batch) * batch / m->init_batch;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/declared.c - the epochs= and epoch_steps= the measured
 * workloads' users give (see measured/declared.h).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "util/names.h"
#include "measured/declared.h"

static const char *const hints_names[] = { "exact", "noisy", "none" };

const char *px_hints_name(px_hints_t h)
{
	return names_at(hints_names, NAMES_COUNT(hints_names), (unsigned)h);
}

int px_hints_parse(const char *name, px_hints_t *out)
{
	int k = names_find(hints_names, NAMES_COUNT(hints_names), name,
			   false);

	if (k < 0)
		return -EINVAL;
	*out = (px_hints_t)k;
	return 0;
}

int px_workload_declare(px_workload_t *w, px_hints_t hints,
			unsigned long seed)
{
	gsl_rng *r = NULL;

	if (hints == PX_HINTS_NOISY) {
		if (!(r = gsl_rng_alloc(gsl_rng_mt19937)))
			return -ENOMEM;
		gsl_rng_set(r, seed);
	}
	for (size_t i = 0; i < w->n; i++) {
		px_spec_t *j = &w->jobs[i];
		/* A user's guess of the count: a relative error, as likely
		 * over as under (median the truth). */
		double f = r ? exp(gsl_ran_gaussian(r, PX_DECLARED_SIGMA)) : 1;
		j->declared_epochs = hints == PX_HINTS_NONE ? 0 :
				     (int)fmax(1.0, round(j->epochs * f));
		j->epoch_steps_hint = hints == PX_HINTS_EXACT;
	}
	gsl_rng_free(r);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * hints/bounds.c - the site's bounds on weight= and ckpt_grace=
 * (hints/bounds.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "hints/bounds.h"
#include "util/conf_file.h"
#include "util/errmsg.h"

void hints_bounds_init(hints_bounds_t *b)
{
	b->max_user_weight = HINTS_MAX_USER_WEIGHT_DEFAULT;
	b->max_ckpt_grace = HINTS_MAX_CKPT_GRACE_DEFAULT;
}

/* A number within [lo, hi] (lo excluded when open): 0 or -EINVAL. */
static int bounds_number(const char *s, double lo, double hi, bool open,
			 double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !isfinite(v) || v > hi ||
	    (open ? v <= lo : v < lo))
		return -EINVAL;
	*out = v;
	return 0;
}

int hints_bounds_read(const char *path, hints_bounds_t *b, char *err,
		      size_t errlen)
{
	hints_bounds_t n;
	char val[64];
	double v;
	int rc;

	hints_bounds_init(&n);
	if ((rc = conf_file_get(path, "MaxUserWeight", val, sizeof(val), err,
				errlen)) < 0)
		return rc;
	if (rc > 0) {
		if (bounds_number(val, 0.0, 1000.0, true, &v))
			return errmsg_set(err, errlen, -EINVAL, "%s: "
					  "MaxUserWeight=%s: expected a weight "
					  "greater than 0 and at most 1000",
					  path, val);
		n.max_user_weight = v;
	}
	if ((rc = conf_file_get(path, "MaxCkptGrace", val, sizeof(val), err,
				errlen)) < 0)
		return rc;
	if (rc > 0) {
		if (bounds_number(val, 0.0, HINTS_MAX_GRACE, false, &v) ||
		    v != floor(v))
			return errmsg_set(err, errlen, -EINVAL, "%s: "
					  "MaxCkptGrace=%s: expected whole "
					  "seconds from 0 to %d", path, val,
					  HINTS_MAX_GRACE);
		n.max_ckpt_grace = (uint32_t)v;
	}
	*b = n;
	return 0;
}

int hints_bounds_check(const optimus_hints_t *h, const hints_bounds_t *b,
		       char *err, size_t errlen)
{
	if (h->weight > b->max_user_weight)
		return errmsg_set(err, errlen, -EPERM, "--scheduler: weight=%g "
				  "is above this site's MaxUserWeight=%g: only "
				  "an administrator (root, SlurmUser or a Slurm "
				  "operator) may raise a job's weight; anyone "
				  "may lower it, as --nice does a priority",
				  h->weight, b->max_user_weight);
	if (h->ckpt_grace > b->max_ckpt_grace)
		return errmsg_set(err, errlen, -EPERM, "--scheduler: "
				  "ckpt_grace=%u is above this site's "
				  "MaxCkptGrace=%u: only an administrator "
				  "(root, SlurmUser or a Slurm operator) may "
				  "give a job's checkpoint longer, its GPUs "
				  "stay held meanwhile", h->ckpt_grace,
				  b->max_ckpt_grace);
	return 0;
}

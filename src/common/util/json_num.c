/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* json_num.c - JSON numbers (see json_num.h). */
#include <errno.h>
#include <math.h>

#include "util/errmsg.h"
#include "util/json_num.h"

bool json_num_is(const json_object *v)
{
	return json_object_is_type(v, json_type_double) ||
	       json_object_is_type(v, json_type_int);
}

int json_num_get(const json_object *o, const char *key, double lo, double hi,
		 double *out, char *err, size_t len)
{
	json_object *v;
	double d;

	if (!json_object_object_get_ex(o, key, &v) || !json_num_is(v))
		return errmsg_set(err, len, -EINVAL,
				  "'%s': missing or not a number", key);
	d = json_object_get_double(v);
	if (!isfinite(d) || d < lo || d > hi)
		return errmsg_set(err, len, -EINVAL, "'%s': %g out of [%g, %g]",
				  key, d, lo, hi);
	*out = d;
	return 0;
}

int json_num_get_optional(const json_object *o, const char *key, double lo,
			  double hi, double *out, char *err, size_t len)
{
	if (!json_object_object_get_ex(o, key, NULL))
		return 0;
	return json_num_get(o, key, lo, hi, out, err, len);
}

json_object *json_num_new(double d)
{
	return isfinite(d) ? json_object_new_double(d) : NULL;
}

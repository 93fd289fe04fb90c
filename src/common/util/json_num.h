/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * json_num.h - the core's one way to read and write JSON numbers: a
 * required finite number within bounds, and a double that is null when it
 * is not finite (NAN and infinities are not JSON).
 */
#ifndef OPTIMUS_JSON_NUM_H
#define OPTIMUS_JSON_NUM_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

/* Is v a JSON number (integer or double)? */
bool json_num_is(const json_object *v);
/*
 * o[key], which must be a finite number in [lo, hi]: 0, or -EINVAL with
 * a message naming key in err (err may be NULL).
 */
int json_num_get(const json_object *o, const char *key, double lo, double hi,
		 double *out, char *err, size_t len);
/* The same of an optional key: absent, *out is left as it is and 0. */
int json_num_get_optional(const json_object *o, const char *key, double lo,
			  double hi, double *out, char *err, size_t len);
/* d as a JSON number, or NULL (JSON null) when d is not finite. */
json_object *json_num_new(double d);

#endif

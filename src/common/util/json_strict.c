/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* json_strict.c - non-finite numbers become null, user text valid UTF-8
 * (json_strict.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "util/json_strict.h"

static int json_nonfinite(json_object *v)
{
	return json_object_is_type(v, json_type_double) &&
	       !isfinite(json_object_get_double(v));
}

/*
 * The replacement of v: NULL (kept as it is) for any value but a
 * non-finite number or a string holding an unsafe character; *is_null
 * when v must become null. A string is replaced by its escape
 * (escape.h), so the text printed is valid UTF-8 with nothing a reader's
 * terminal would act on.
 */
static json_object *json_strict_value(json_object *v, int numbers,
				      int *is_null)
{
	const char *s;
	size_t len, cap;
	char *buf;
	json_object *n;

	*is_null = numbers && json_nonfinite(v);
	if (*is_null || !json_object_is_type(v, json_type_string))
		return NULL;
	s = json_object_get_string(v);
	len = (size_t)json_object_get_string_len(v);
	if (strlen(s) == len && !str_find_unsafe(s, NULL))
		return NULL;
	/* every byte escapes to at most 4 bytes ("\xNN"); a 3-byte
	 * character to at most 6 ("\uNNNN") */
	cap = 4 * len + 1;
	if (!(buf = malloc(cap)))
		return NULL;
	n = json_object_new_string(str_escape(s, len, buf, cap));
	free(buf);
	return n;
}

static json_object *json_strict_walk(json_object *o, int numbers)
{
	int is_null;
	json_object *n;

	if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, key, val) {
			n = json_strict_value(val, numbers, &is_null);
			if (is_null || n)
				json_object_object_add(o, key, n);
			else
				json_strict_walk(val, numbers);
		}
	} else if (json_object_is_type(o, json_type_array)) {
		size_t len = json_object_array_length(o);

		for (size_t i = 0; i < len; i++) {
			json_object *v = json_object_array_get_idx(o, i);

			n = json_strict_value(v, numbers, &is_null);
			if (is_null || n)
				json_object_array_put_idx(o, i, n);
			else
				json_strict_walk(v, numbers);
		}
	}
	return o;
}

json_object *json_strict(json_object *o)
{
	return json_strict_walk(o, 1);
}

json_object *json_strict_strings(json_object *o)
{
	return json_strict_walk(o, 0);
}

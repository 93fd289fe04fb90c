/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * job_model_salvage.c - a job record back from JSON, losing only the parts
 * out of their bounds (job_model_from_json_salvaged, job/job_model.h).
 *
 * The strict loader (job_model_from_json) names the first problem by its
 * key ("'loss': -1 out of [0, inf]", "runs[0]: ...", "'speed': ..."). A
 * copy of the record is mended part by part: the part named is replaced by
 * what a new record of the same job has (job_model_new with its job id,
 * uid and hints), or left out when a new record has none of it (a
 * straggler); a run's field is set to a new run's 0, a run that is no run
 * left out; then loaded again, until it loads. Each refusal is said.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/job_model.h"
#include "util/errmsg.h"
#include "util/json_num.h"

/* More than the parts of a record (its fields, runs, models): each round
 * mends one, so a record is mended or refused within this many rounds. */
#define SALVAGE_ROUNDS 160

/* Parts that tell which record it is: without them, nothing to load. */
static bool identity_key(const char *key)
{
	return !strcmp(key, "job_id") || !strcmp(key, "uid") ||
	       !strcmp(key, "hints");
}

/* The top-level key the loader's message names first, or false. */
static bool named_key(const char *err, char *key, size_t len)
{
	const char *a = strchr(err, '\''), *b = a ? strchr(a + 1, '\'') : NULL;

	if (!b || (size_t)(b - a - 1) >= len || b == a + 1)
		return false;
	memcpy(key, a + 1, (size_t)(b - a - 1));
	key[b - a - 1] = '\0';
	return true;
}

/*
 * The run the message names (runs[i]): the field it names set to a new
 * run's 0 (its steps unknown), or, when no field of it is named (not an
 * object, ends before it starts), the run left out. True when it did.
 */
static bool mend_named_run(json_object *rec, const char *err)
{
	json_object *runs, *run;
	unsigned long i;
	char *end, key[64];

	if (strncmp(err, "runs[", 5))
		return false;
	i = strtoul(err + 5, &end, 10);
	if (*end != ']' || !json_object_object_get_ex(rec, "runs", &runs) ||
	    !json_object_is_type(runs, json_type_array) ||
	    i >= json_object_array_length(runs))
		return false;
	run = json_object_array_get_idx(runs, i);
	if (json_object_is_type(run, json_type_object) &&
	    named_key(end, key, sizeof(key)) &&
	    json_object_object_get_ex(run, key, NULL))
		return json_object_object_add(run, key,
					      json_object_new_int(0)) == 0;
	return json_object_array_del_idx(runs, i, 1) == 0;
}

/*
 * Mend the part of rec that err names from fresh (a new record's JSON):
 * true when something changed, false when it cannot be mended.
 */
static bool mend(json_object *rec, const json_object *fresh, const char *err)
{
	json_object *v, *copy = NULL;
	char key[64];

	if (mend_named_run(rec, err))
		return true;
	if (!named_key(err, key, sizeof(key)) || identity_key(key) ||
	    !json_object_object_get_ex(rec, key, NULL))
		return false;
	if (!json_object_object_get_ex(fresh, key, &v)) {
		json_object_object_del(rec, key);
		return true;
	}
	if (json_object_deep_copy(v, &copy, NULL))
		return false;
	return json_object_object_add(rec, key, copy) == 0;
}

/* A new record of the job rec describes, as JSON; NULL when its job id,
 * uid or hints cannot be read (why). */
static json_object *fresh_record(const json_object *rec, char *why,
				 size_t len)
{
	json_object *hints;
	optimus_hints_t h;
	double id, uid, submit = 0;
	job_model_t *m;
	json_object *o;
	char e[160] = "";

	if (!json_object_is_type(rec, json_type_object) ||
	    json_num_get(rec, "job_id", 1, UINT32_MAX, &id, e, sizeof(e)) ||
	    json_num_get(rec, "uid", 0, UINT32_MAX, &uid, e, sizeof(e)) ||
	    !json_object_object_get_ex(rec, "hints", &hints) ||
	    !json_object_is_type(hints, json_type_string) ||
	    hints_parse(json_object_get_string(hints), &h, e, sizeof(e))) {
		errmsg_set(why, len, 0, "cannot tell the job (%s)",
			   e[0] ? e : "'hints': missing or not a string");
		return NULL;
	}
	(void)json_num_get(rec, "first_submit", 0, 1e11, &submit, NULL, 0);
	m = job_model_new((uint32_t)id, (uint32_t)uid, &h, (time_t)submit);
	o = m ? job_model_to_json(m) : NULL;
	job_model_free(m);
	if (!o)
		errmsg_set(why, len, 0, "out of memory");
	return o;
}

/* Append "; what" (or "what" first) to the refusals said. */
static void say(char *refused, size_t len, const char *what)
{
	size_t n = strlen(refused);

	if (n + 3 < len)
		snprintf(refused + n, len - n, "%s%s", n ? "; " : "", what);
}

job_model_t *job_model_from_json_salvaged(const json_object *o,
					  char *refused, size_t len)
{
	char err[256] = "";
	json_object *fresh, *copy = NULL;
	job_model_t *m = job_model_from_json(o, err, sizeof(err));

	if (refused && len)
		refused[0] = '\0';
	if (m || !refused || !len)
		return m;
	if (!(fresh = fresh_record(o, refused, len)))
		return NULL;
	if (json_object_deep_copy((json_object *)o, &copy, NULL)) {
		json_object_put(fresh);
		errmsg_set(refused, len, 0, "out of memory");
		return NULL;
	}
	for (int round = 0; !m && round < SALVAGE_ROUNDS; round++) {
		say(refused, len, err);
		if (!mend(copy, fresh, err))
			break;
		m = job_model_from_json(copy, err, sizeof(err));
	}
	json_object_put(copy);
	json_object_put(fresh);
	return m;
}

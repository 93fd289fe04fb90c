/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * protocol.c - parse, validate and build report/query frames (protocol.h).
 *
 * Every input here comes from an unauthenticated peer until the envelope's
 * credential is checked, so parsing is strict: exact types, bounded depth,
 * finite numbers, no trailing bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/errmsg.h"
#include "util/escape.h"
#include "util/json_strict.h"
#include "util/names.h"
#include "report/protocol.h"
#include "util/json_num.h"

/* Messages are flat; a deep document is an attack on the tokenizer. */
#define PROTOCOL_MAX_DEPTH 8
static const char *const query_names[] = {
	[QUERY_STATUS] = "status",
	[QUERY_JOB] = "job",
	[QUERY_PLAN] = "plan",
	[QUERY_METRICS] = "metrics",
};

/* The message "type" of each report kind. */
static const char *const report_names[] = {
	[REPORT_PROGRESS] = "progress",
	[REPORT_SPEED] = "speed",
	[REPORT_CHECKPOINT] = "checkpoint",
	[REPORT_WORKER] = "worker",
	[REPORT_GRADIENTS] = "gradients",
};

/*
 * The keys each message may hold, and the envelope's. A key outside them
 * is refused by name, never dropped: a misspelt "lsos" taken without its
 * loss would pass for a report the scheduler used.
 */
static const char *const envelope_keys[] = { "payload", "cred" };
static const char *const common_keys[] = { "v", "nonce", "time", "type" };
static const char *const query_keys[] = { "query", "job", "points" };
static const char *const report_keys[] = { "job", "run" };
static const char *const kind_keys[][7] = {
	[REPORT_PROGRESS] = { "step", "loss", "sps", "epoch", "batch",
			      "rebatch_seconds", "sync_seconds" },
	[REPORT_SPEED] = { "ps", "workers", "steps_per_sec", "local_batch",
			   "accum", "sync_seconds" },
	[REPORT_CHECKPOINT] = { "step" },
	[REPORT_WORKER] = { "rank", "node", "step_time", "lag" },
	[REPORT_GRADIENTS] = { "grad_sqr", "grad_var", "var_batch",
			       "estimates" },
};

static bool key_in(const char *const *keys, size_t n, const char *key)
{
	return names_find(keys, n, key, false) >= 0;
}

/* Set the message and return -EBADMSG. */
#define fail(err, len, ...) errmsg_set(err, len, -EBADMSG, __VA_ARGS__)

/*
 * -EBADMSG naming the first key of o that none of the lists (sets[i] of
 * counts[i] keys) holds, else 0. The key is the sender's text: quoted
 * escaped and cut.
 */
static int keys_known(json_object *o, const char *what,
		      const char *const *const *sets, const size_t *counts,
		      size_t nsets, char *err, size_t errlen)
{
	json_object_object_foreach(o, key, val) {
		size_t i;
		char shown[40];

		(void)val;
		for (i = 0; i < nsets; i++)
			if (key_in(sets[i], counts[i], key))
				break;
		if (i == nsets)
			return fail(err, errlen, "unknown key \"%s\" in %s",
				    str_escape(key, strlen(key), shown,
					       sizeof(shown)), what);
	}
	return 0;
}

/* The keys of a message of type m->type (parsed). */
static int message_keys_known(json_object *o, const message_t *m, char *err,
			      size_t errlen)
{
	const char *const *sets[3] = { common_keys };
	size_t counts[3] = { NAMES_COUNT(common_keys) };
	const char *const *kind;
	char what[48];
	size_t n = 0;

	if (m->type == MSG_QUERY) {
		sets[1] = query_keys;
		counts[1] = NAMES_COUNT(query_keys);
		return keys_known(o, "a query", sets, counts, 2, err, errlen);
	}
	kind = kind_keys[m->report.kind];
	while (n < NAMES_COUNT(kind_keys[0]) && kind[n])
		n++;
	sets[1] = report_keys;
	counts[1] = NAMES_COUNT(report_keys);
	sets[2] = kind;
	counts[2] = n;
	snprintf(what, sizeof(what), "a %s report",
		 protocol_report_name(m->report.kind));
	return keys_known(o, what, sets, counts, 3, err, errlen);
}

void protocol_header_encode(uint32_t len, uint8_t out[PROTOCOL_HEADER_LEN])
{
	out[0] = (uint8_t)(len >> 24);
	out[1] = (uint8_t)(len >> 16);
	out[2] = (uint8_t)(len >> 8);
	out[3] = (uint8_t)len;
}

int protocol_header_decode_max(const uint8_t in[PROTOCOL_HEADER_LEN],
			       uint32_t max, uint32_t *len)
{
	uint32_t n = ((uint32_t)in[0] << 24) | ((uint32_t)in[1] << 16) |
		     ((uint32_t)in[2] << 8) | (uint32_t)in[3];

	*len = n;
	if (n == 0 || n > max)
		return -EMSGSIZE;
	return 0;
}

int protocol_header_decode(const uint8_t in[PROTOCOL_HEADER_LEN], uint32_t *len)
{
	return protocol_header_decode_max(in, PROTOCOL_MAX_FRAME, len);
}

/* Parse exactly len (<= max) bytes as one JSON object; NULL with a
 * reason otherwise. */
static json_object *parse_object(const char *text, size_t len, size_t max,
				 char *err, size_t errlen)
{
	struct json_tokener *tok;
	json_object *obj;

	if (len == 0 || len > max) {
		fail(err, errlen, "message size %zu out of range", len);
		return NULL;
	}
	if (memchr(text, '\0', len)) {
		fail(err, errlen, "message holds a NUL byte");
		return NULL;
	}
	tok = json_tokener_new_ex(PROTOCOL_MAX_DEPTH);
	if (!tok) {
		fail(err, errlen, "out of memory");
		return NULL;
	}
	obj = json_tokener_parse_ex(tok, text, (int)len);
	if (!obj || json_tokener_get_error(tok) != json_tokener_success) {
		fail(err, errlen, "invalid JSON: %s", json_tokener_error_desc(
			     json_tokener_get_error(tok)));
		json_object_put(obj);
		obj = NULL;
	} else if (json_tokener_get_parse_end(tok) != len) {
		fail(err, errlen, "trailing bytes after JSON at offset %zu",
		     json_tokener_get_parse_end(tok));
		json_object_put(obj);
		obj = NULL;
	} else if (!json_object_is_type(obj, json_type_object)) {
		fail(err, errlen, "JSON is not an object");
		json_object_put(obj);
		obj = NULL;
	}
	json_tokener_free(tok);
	return obj;
}

/*
 * A string without NUL: JSON may carry "\u0000", which C would read as
 * the end of the text, so "n1\u0000x" would be taken as "n1" (doc/design/reports.md
 * says NUL is refused).
 */
static int get_string(json_object *o, const char *key, const char **out)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return -1;
	*out = json_object_get_string(v);
	if (strlen(*out) != (size_t)json_object_get_string_len(v))
		return -1;
	return 0;
}

/* An integer in [lo, hi]; doubles are refused so that 1e300 cannot wrap. */
static int get_int(json_object *o, const char *key, int64_t lo, int64_t hi,
		   int64_t *out)
{
	json_object *v;
	int64_t n;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_int))
		return -1;
	errno = 0;
	n = json_object_get_int64(v);
	if (errno || n < lo || n > hi)
		return -1;
	*out = n;
	return 0;
}

int protocol_envelope_parse(const char *text, size_t len, char **payload,
			    char **cred, char *err, size_t errlen)
{
	json_object *obj = parse_object(text, len, PROTOCOL_MAX_FRAME, err,
					errlen);
	const char *const *sets[] = { envelope_keys };
	const size_t counts[] = { NAMES_COUNT(envelope_keys) };
	const char *p = NULL, *c = NULL;
	int rc;

	*payload = *cred = NULL;
	if (!obj)
		return -EBADMSG;
	rc = keys_known(obj, "the envelope", sets, counts, 1, err, errlen);
	if (rc == 0 && (get_string(obj, "payload", &p) ||
			get_string(obj, "cred", &c)))
		rc = fail(err, errlen, "envelope needs string fields "
			  "\"payload\" and \"cred\"");
	else if (rc == 0 && (!*p || !*c))
		rc = fail(err, errlen, "empty payload or credential");
	if (rc == 0) {
		*payload = strdup(p);
		*cred = strdup(c);
		if (!*payload || !*cred) {
			free(*payload);
			free(*cred);
			*payload = *cred = NULL;
			rc = fail(err, errlen, "out of memory");
		}
	}
	json_object_put(obj);
	return rc;
}

static char *dup_json(json_object *obj)
{
	char *s = NULL;

	if (obj)
		s = strdup(json_object_to_json_string_ext(
				   json_strict(obj), JSON_C_TO_STRING_PLAIN));
	json_object_put(obj);
	return s;
}

char *protocol_envelope_build(const char *payload, const char *cred)
{
	json_object *obj = json_object_new_object();

	if (!obj)
		return NULL;
	json_object_object_add(obj, "payload", json_object_new_string(payload));
	json_object_object_add(obj, "cred", json_object_new_string(cred));
	return dup_json(obj);
}

static int parse_nonce(json_object *o, uint64_t *nonce)
{
	const char *s;
	char *end;

	if (get_string(o, "nonce", &s) || strlen(s) != 16 ||
	    strspn(s, "0123456789abcdefABCDEF") != 16)
		return -1;
	*nonce = strtoull(s, &end, 16);
	return 0;
}

/*
 * The batch a progress report says it runs at, and how long the change
 * to it took (an hour is beyond any change of batch: a bound, not a
 * guess). Optional, the time only with the batch.
 */
static int parse_progress_batch(json_object *o, report_t *r, char *err,
				size_t errlen)
{
	int64_t batch = 0;

	r->progress.rebatch_seconds = -1.0;
	if (json_object_object_get_ex(o, "batch", NULL) &&
	    get_int(o, "batch", 1, PROTOCOL_MAX_COUNT, &batch))
		return fail(err, errlen, "\"batch\" must be an integer >= 1 "
			    "(the global batch the run trains at)");
	if (json_object_object_get_ex(o, "rebatch_seconds", NULL) &&
	    (!batch || json_num_get(o, "rebatch_seconds", 0.0, 3600.0,
				    &r->progress.rebatch_seconds, NULL, 0)))
		return fail(err, errlen, "\"rebatch_seconds\" must be seconds "
			    "from 0 to 3600, with \"batch\"");
	r->progress.batch = (uint64_t)batch;
	return 0;
}

static int parse_progress(json_object *o, report_t *r, char *err, size_t errlen)
{
	int64_t step, epoch = -1;
	json_object *v;

	r->kind = REPORT_PROGRESS;
	if (get_int(o, "step", 0, PROTOCOL_MAX_STEP, &step))
		return fail(err, errlen, "progress needs an integer \"step\" "
			    "from 0 to 2^50");
	if (json_num_get(o, "loss", 0.0, HUGE_VAL, &r->progress.loss, NULL,
			 0))
		return fail(err, errlen, "progress needs a finite \"loss\" >= 0");
	if (json_num_get(o, "sps", 0.0, HUGE_VAL,
			 &r->progress.samples_per_sec, NULL, 0))
		return fail(err, errlen, "progress needs a finite \"sps\" >= 0");
	if (json_object_object_get_ex(o, "epoch", &v) &&
	    get_int(o, "epoch", 0, INT32_MAX, &epoch))
		return fail(err, errlen, "\"epoch\" must be an integer >= 0");
	if (json_object_object_get_ex(o, "sync_seconds", NULL) &&
	    json_num_get(o, "sync_seconds", 0.0, PROTOCOL_MAX_SYNC_SECONDS,
			 &r->progress.sync_seconds, NULL, 0))
		return fail(err, errlen, "\"sync_seconds\" must be seconds "
			    "from 0 to 3600 (the all-reduce part of a step)");
	r->progress.step = (uint64_t)step;
	r->progress.epoch = (int32_t)epoch;
	return parse_progress_batch(o, r, err, errlen);
}

static int parse_speed(json_object *o, report_t *r, char *err, size_t errlen)
{
	int64_t ps, workers, local = 0, accum = 0;
	json_object *v;

	r->kind = REPORT_SPEED;
	if (get_int(o, "ps", 0, 1 << 20, &ps) ||
	    get_int(o, "workers", 1, 1 << 20, &workers))
		return fail(err, errlen, "speed needs integers \"ps\" >= 0 "
			    "and \"workers\" >= 1");
	if (json_num_get(o, "steps_per_sec", 0.0, (double)PROTOCOL_MAX_STEP,
		       &r->speed.steps_per_sec, NULL, 0))
		return fail(err, errlen, "speed needs a \"steps_per_sec\" "
			    "from 0 to 2^50");
	if (json_object_object_get_ex(o, "local_batch", &v) &&
	    get_int(o, "local_batch", 1, UINT32_MAX, &local))
		return fail(err, errlen, "\"local_batch\" must be an integer "
			    ">= 1");
	if (json_object_object_get_ex(o, "accum", &v) &&
	    (!local || get_int(o, "accum", 0, PROTOCOL_MAX_ACCUM, &accum)))
		return fail(err, errlen, "\"accum\" must be an integer from 0 "
			    "to 64, with \"local_batch\"");
	/* A part of the step it names: below the step's time. */
	if (json_object_object_get_ex(o, "sync_seconds", &v) &&
	    (!local || json_num_get(o, "sync_seconds", 0.0,
				    PROTOCOL_MAX_SYNC_SECONDS,
				    &r->speed.sync_seconds, NULL, 0) ||
	     (r->speed.sync_seconds > 0 &&
	      !(r->speed.sync_seconds * r->speed.steps_per_sec < 1.0))))
		return fail(err, errlen, "\"sync_seconds\" must be seconds "
			    "from 0 to below the step's time (1 / "
			    "steps_per_sec), with \"local_batch\"");
	r->speed.ps = (uint32_t)ps;
	r->speed.workers = (uint32_t)workers;
	r->speed.local_batch = (uint32_t)local;
	r->speed.accum = (uint32_t)accum;
	return 0;
}

static int parse_checkpoint(json_object *o, report_t *r, char *err,
			    size_t errlen)
{
	int64_t step;

	r->kind = REPORT_CHECKPOINT;
	if (get_int(o, "step", 0, PROTOCOL_MAX_STEP, &step))
		return fail(err, errlen, "checkpoint needs an integer "
			    "\"step\" from 0 to 2^50");
	r->checkpoint.step = (uint64_t)step;
	return 0;
}

/* A node name as Slurm allows it: printable, no space, bounded. */
static int get_node_name(json_object *o, char *out, size_t outlen)
{
	const char *s;
	size_t i, n;

	if (get_string(o, "node", &s))
		return -1;
	n = strlen(s);
	if (n == 0 || n >= outlen)
		return -1;
	for (i = 0; i < n; i++)
		if (s[i] < 0x21 || s[i] > 0x7e)
			return -1;
	memcpy(out, s, n + 1);
	return 0;
}

static int parse_worker(json_object *o, report_t *r, char *err, size_t errlen)
{
	int64_t rank;
	json_object *v;

	r->kind = REPORT_WORKER;
	if (get_int(o, "rank", 0, 1 << 20, &rank))
		return fail(err, errlen, "worker needs an integer \"rank\" >= 0");
	if (get_node_name(o, r->worker.node, sizeof(r->worker.node)))
		return fail(err, errlen, "worker needs a \"node\" name of 1 to "
			    "%d printable characters", REPORT_NODE_LEN - 1);
	/* An hour per step is beyond any training step: a bound, not a
	 * guess, so that a wild value cannot skew the median. */
	if (json_num_get(o, "step_time", 1e-9, 3600.0, &r->worker.step_time,
			 NULL, 0))
		return fail(err, errlen, "worker needs a \"step_time\" in "
			    "seconds, above 0 and at most 3600");
	if (json_object_object_get_ex(o, "lag", &v) &&
	    json_num_get(o, "lag", 0.0, 3600.0, &r->worker.lag, NULL, 0))
		return fail(err, errlen, "\"lag\" must be seconds from 0 to 3600");
	r->worker.rank = (uint32_t)rank;
	return 0;
}

/*
 * The bound of a gradient statistic: far above any real value (a squared
 * norm of 1e30 has overflowed float32 long before), low enough that their
 * products in the efficiency model stay finite.
 */
#define GRADIENT_STAT_MAX 1e30

static int parse_gradients(json_object *o, report_t *r, char *err,
			   size_t errlen)
{
	report_gradients_t *g = &r->gradients;

	r->kind = REPORT_GRADIENTS;
	if (json_num_get(o, "grad_sqr", 0.0, GRADIENT_STAT_MAX, &g->grad_sqr,
			 NULL, 0))
		return fail(err, errlen, "gradients needs a finite \"grad_sqr\" "
			    "(squared gradient norm) from 0 to %g",
			    GRADIENT_STAT_MAX);
	if (json_num_get(o, "grad_var", 0.0, GRADIENT_STAT_MAX, &g->grad_var,
			 NULL, 0))
		return fail(err, errlen, "gradients needs a finite \"grad_var\" "
			    "(gradient variance) from 0 to %g",
			    GRADIENT_STAT_MAX);
	/* var_batch divides: 0 is refused, as is anything not a count's
	 * worth of examples (below one example) */
	if (json_num_get(o, "var_batch", 1.0, 1e12, &g->var_batch, NULL, 0))
		return fail(err, errlen, "gradients needs a finite "
			    "\"var_batch\" (the examples grad_var is of) from 1 "
			    "to 1e12");
	g->estimates = 1;
	if (json_object_object_get_ex(o, "estimates", NULL)) {
		int64_t n;
		if (get_int(o, "estimates", 1, PROTOCOL_MAX_ESTIMATES, &n))
			return fail(err, errlen, "\"estimates\" (how many "
				    "estimates of these values the report "
				    "stands for) must be an integer from 1 to "
				    "%d", PROTOCOL_MAX_ESTIMATES);
		g->estimates = (uint32_t)n;
	}
	return 0;
}

static int parse_query(json_object *o, query_t *q, char *err, size_t errlen)
{
	const char *name;
	int64_t job = 0, points = 0;

	if (get_string(o, "query", &name) ||
	    protocol_query_parse_name(name, &q->kind))
		return fail(err, errlen, "query needs \"query\": \"status\", "
			    "\"job\" or \"plan\"");
	if (q->kind == QUERY_JOB && get_int(o, "job", 1, UINT32_MAX, &job))
		return fail(err, errlen, "job query needs an integer \"job\" >= 1");
	if (json_object_object_get_ex(o, "points", NULL) &&
	    get_int(o, "points", 1, PROTOCOL_MAX_POINTS, &points))
		return fail(err, errlen, "\"points\" must be an integer from 1 "
			    "to %d", PROTOCOL_MAX_POINTS);
	q->job_id = (uint32_t)job;
	q->points = (uint32_t)points;
	return 0;
}

/* The optional "run" of any report (protocol.h). */
static int parse_run(json_object *o, report_t *r, char *err, size_t errlen)
{
	int64_t run;

	if (!json_object_object_get_ex(o, "run", NULL))
		return 0;
	if (get_int(o, "run", 0, PROTOCOL_MAX_RUN, &run))
		return fail(err, errlen, "\"run\" must be an integer from 0 to "
			    "%d (the job's SLURM_RESTART_COUNT)",
			    PROTOCOL_MAX_RUN);
	r->has_run = 1;
	r->run = (uint32_t)run;
	return 0;
}

static int parse_body(json_object *o, message_t *m, char *err, size_t errlen)
{
	const char *type;
	int64_t v, job;
	char shown[40];

	if (get_int(o, "v", PROTOCOL_VERSION, PROTOCOL_VERSION, &v))
		return fail(err, errlen, "unsupported or missing protocol "
			    "version \"v\" (want %d)", PROTOCOL_VERSION);
	if (parse_nonce(o, &m->nonce))
		return fail(err, errlen, "\"nonce\" must be 16 hex digits");
	if (get_int(o, "time", 0, PROTOCOL_MAX_COUNT, &m->sent))
		return fail(err, errlen, "\"time\" must be an integer >= 0");
	if (get_string(o, "type", &type))
		return fail(err, errlen, "missing string \"type\"");
	if (!strcmp(type, "query")) {
		m->type = MSG_QUERY;
		return parse_query(o, &m->query, err, errlen);
	}
	if (get_int(o, "job", 1, UINT32_MAX, &job))
		return fail(err, errlen, "report needs an integer \"job\" >= 1");
	m->report.job_id = (uint32_t)job;
	if (parse_run(o, &m->report, err, errlen))
		return -EBADMSG;
	if (!strcmp(type, "progress")) {
		m->type = MSG_PROGRESS;
		return parse_progress(o, &m->report, err, errlen);
	}
	if (!strcmp(type, "speed")) {
		m->type = MSG_SPEED;
		return parse_speed(o, &m->report, err, errlen);
	}
	if (!strcmp(type, "checkpoint")) {
		m->type = MSG_CHECKPOINT;
		return parse_checkpoint(o, &m->report, err, errlen);
	}
	if (!strcmp(type, "worker")) {
		m->type = MSG_WORKER;
		return parse_worker(o, &m->report, err, errlen);
	}
	if (!strcmp(type, "gradients")) {
		m->type = MSG_GRADIENTS;
		return parse_gradients(o, &m->report, err, errlen);
	}
	/* quoted escaped and cut: the sender's text reaches the log */
	return fail(err, errlen, "unknown message type \"%s\"",
		    str_escape(type, strlen(type), shown, sizeof(shown)));
}

int protocol_message_parse(const char *text, size_t len, message_t *m,
			   char *err, size_t errlen)
{
	json_object *obj = parse_object(text, len, PROTOCOL_MAX_FRAME, err,
					errlen);
	int rc;

	memset(m, 0, sizeof(*m));
	if (!obj)
		return -EBADMSG;
	rc = parse_body(obj, m, err, errlen);
	if (!rc)
		rc = message_keys_known(obj, m, err, errlen);
	json_object_put(obj);
	return rc;
}

static void add_report_fields(json_object *o, const report_t *r)
{
	json_object_object_add(o, "job", json_object_new_int64(r->job_id));
	if (r->has_run)
		json_object_object_add(o, "run", json_object_new_int64(r->run));
	if (r->kind == REPORT_PROGRESS) {
		json_object_object_add(o, "step",
				       json_object_new_int64((int64_t)r->progress.step));
		json_object_object_add(o, "loss",
				       json_object_new_double(r->progress.loss));
		json_object_object_add(o, "sps",
				       json_object_new_double(r->progress.samples_per_sec));
		if (r->progress.epoch >= 0)
			json_object_object_add(o, "epoch",
					       json_object_new_int(r->progress.epoch));
		if (r->progress.batch)
			json_object_object_add(o, "batch", json_object_new_int64(
					       (int64_t)r->progress.batch));
		if (r->progress.batch && r->progress.rebatch_seconds >= 0)
			json_object_object_add(o, "rebatch_seconds",
					       json_object_new_double(
						       r->progress.rebatch_seconds));
		if (r->progress.sync_seconds > 0)
			json_object_object_add(o, "sync_seconds",
					       json_object_new_double(
						       r->progress.sync_seconds));
	} else if (r->kind == REPORT_CHECKPOINT) {
		json_object_object_add(o, "step", json_object_new_int64(
					       (int64_t)r->checkpoint.step));
	} else if (r->kind == REPORT_WORKER) {
		json_object_object_add(o, "rank",
				       json_object_new_int64(r->worker.rank));
		json_object_object_add(o, "node",
				       json_object_new_string(r->worker.node));
		json_object_object_add(o, "step_time",
				       json_object_new_double(r->worker.step_time));
		if (r->worker.lag > 0)
			json_object_object_add(o, "lag",
					       json_object_new_double(r->worker.lag));
	} else if (r->kind == REPORT_GRADIENTS) {
		json_object_object_add(o, "grad_sqr", json_object_new_double(
					       r->gradients.grad_sqr));
		json_object_object_add(o, "grad_var", json_object_new_double(
					       r->gradients.grad_var));
		json_object_object_add(o, "var_batch", json_object_new_double(
					       r->gradients.var_batch));
		if (r->gradients.estimates > 1)
			json_object_object_add(o, "estimates",
				json_object_new_int64(r->gradients.estimates));
	} else {
		json_object_object_add(o, "ps", json_object_new_int64(r->speed.ps));
		json_object_object_add(o, "workers",
				       json_object_new_int64(r->speed.workers));
		json_object_object_add(o, "steps_per_sec",
				       json_object_new_double(r->speed.steps_per_sec));
		if (r->speed.local_batch) {
			json_object_object_add(o, "local_batch",
					       json_object_new_int64(
						       r->speed.local_batch));
			json_object_object_add(o, "accum",
					       json_object_new_int64(
						       r->speed.accum));
			if (r->speed.sync_seconds > 0)
				json_object_object_add(o, "sync_seconds",
					json_object_new_double(
						r->speed.sync_seconds));
		}
	}
}

char *protocol_message_build(const message_t *m)
{
	json_object *o = json_object_new_object();
	char nonce[17];

	if (!o)
		return NULL;
	snprintf(nonce, sizeof(nonce), "%016" PRIx64, m->nonce);
	json_object_object_add(o, "v", json_object_new_int(PROTOCOL_VERSION));
	json_object_object_add(o, "nonce", json_object_new_string(nonce));
	json_object_object_add(o, "time", json_object_new_int64(m->sent));
	if (m->type == MSG_QUERY) {
		json_object_object_add(o, "type", json_object_new_string("query"));
		json_object_object_add(o, "query", json_object_new_string(
					       protocol_query_name(m->query.kind)));
		if (m->query.kind == QUERY_JOB)
			json_object_object_add(o, "job",
					       json_object_new_int64(m->query.job_id));
		if (m->query.points)
			json_object_object_add(o, "points",
					       json_object_new_int64(m->query.points));
	} else {
		json_object_object_add(o, "type", json_object_new_string(
					       protocol_report_name(m->report.kind)));
		add_report_fields(o, &m->report);
	}
	return dup_json(o);
}

char *protocol_reply_ok(json_object *result)
{
	json_object *o = json_object_new_object();

	if (!o) {
		json_object_put(result);
		return NULL;
	}
	json_object_object_add(o, "ok", json_object_new_boolean(1));
	if (result)
		json_object_object_add(o, "result", result);
	return dup_json(o);
}

char *protocol_reply_error(const char *code, const char *fmt, ...)
{
	json_object *o = json_object_new_object();
	char text[512];
	va_list ap;

	if (!o)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	json_object_object_add(o, "ok", json_object_new_boolean(0));
	json_object_object_add(o, "code", json_object_new_string(code));
	json_object_object_add(o, "error", json_object_new_string(text));
	return dup_json(o);
}

int protocol_reply_parse(const char *text, size_t len, json_object **result,
			 char *err, size_t errlen)
{
	json_object *obj = parse_object(text, len, PROTOCOL_MAX_REPLY, err,
					errlen);
	json_object *ok, *res;
	const char *code = "error", *msg = "(no message)";
	int rc = 0;

	*result = NULL;
	if (!obj)
		return -EBADMSG;
	if (!json_object_object_get_ex(obj, "ok", &ok) ||
	    !json_object_is_type(ok, json_type_boolean)) {
		rc = fail(err, errlen, "reply has no boolean \"ok\"");
	} else if (!json_object_get_boolean(ok)) {
		get_string(obj, "code", &code);
		get_string(obj, "error", &msg);
		rc = errmsg_set(err, errlen, -EPROTO, "%s: %s", code, msg);
	} else if (json_object_object_get_ex(obj, "result", &res)) {
		*result = json_object_get(res);
	}
	json_object_put(obj);
	return rc;
}

json_object *protocol_rebatch_to_json(const report_rebatch_t *rb)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "batch", json_object_new_int64(
				       (int64_t)rb->batch));
	json_object_object_add(o, "local_batch",
			       json_object_new_int64(rb->local_batch));
	json_object_object_add(o, "accum", json_object_new_int64(rb->accum));
	json_object_object_add(o, "lr_scale",
			       json_object_new_double(rb->lr_scale));
	return o;
}

int protocol_reply_rebatch(json_object *result, report_rebatch_t *out,
			   char *err, size_t errlen)
{
	json_object *o;
	int64_t batch, local, accum;
	double scale;

	if (!result || !json_object_is_type(result, json_type_object) ||
	    !json_object_object_get_ex(result, "rebatch", &o))
		return 0;
	if (!json_object_is_type(o, json_type_object) ||
	    get_int(o, "batch", 1, PROTOCOL_MAX_COUNT, &batch) ||
	    get_int(o, "local_batch", 1, UINT32_MAX, &local) ||
	    get_int(o, "accum", 0, PROTOCOL_MAX_ACCUM, &accum) ||
	    json_num_get(o, "lr_scale", PROTOCOL_LR_SCALE_MIN,
			 PROTOCOL_LR_SCALE_MAX, &scale, NULL, 0) ||
	    batch % (local * (accum + 1)))
		return fail(err, errlen, "the reply's \"rebatch\" needs "
			    "integers \"batch\" >= 1, \"local_batch\" >= 1 "
			    "and \"accum\" 0..64 (batch a multiple of "
			    "local_batch x (accum + 1)) and a finite "
			    "\"lr_scale\" > 0");
	*out = (report_rebatch_t){ (uint64_t)batch, (uint32_t)local,
				   (uint32_t)accum, scale };
	return 1;
}

/* Keep the last n items of the array at o.key. */
static void page_array(json_object *o, const char *key, uint32_t n)
{
	json_object *a;
	size_t len;

	if (!json_object_object_get_ex(o, key, &a) ||
	    !json_object_is_type(a, json_type_array))
		return;
	len = json_object_array_length(a);
	if (len > n)
		json_object_array_del_idx(a, 0, len - n);
}

json_object *protocol_job_page(json_object *job, uint32_t points)
{
	json_object *conv;

	if (!job || !points || !json_object_is_type(job, json_type_object))
		return job;
	page_array(job, "progress", points);
	page_array(job, "speed_samples", points);
	if (json_object_object_get_ex(job, "convergence", &conv))
		page_array(conv, "points", points);
	return job;
}

json_object *protocol_report_to_json(const report_t *r)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "type", json_object_new_string(
				       protocol_report_name(r->kind)));
	add_report_fields(o, r);
	json_object_object_add(o, "uid", json_object_new_int64(r->uid));
	json_object_object_add(o, "received", json_object_new_double(r->received));
	return o;
}

/* The inverse of protocol_report_to_json, every field validated as a
 * report's (the state file keeps the recent reports). */
int protocol_report_from_json(json_object *o, report_t *r, char *err,
			      size_t errlen)
{
	const char *type;
	int64_t job, uid;
	int rc;

	memset(r, 0, sizeof(*r));
	if (!json_object_is_type(o, json_type_object) ||
	    get_string(o, "type", &type))
		return fail(err, errlen, "a report needs a string \"type\"");
	if (get_int(o, "job", 1, UINT32_MAX, &job) ||
	    get_int(o, "uid", 0, UINT32_MAX, &uid) ||
	    json_num_get(o, "received", 0.0, HUGE_VAL, &r->received, NULL, 0))
		return fail(err, errlen, "a report needs integers \"job\" >= 1, "
			    "\"uid\" >= 0 and a time \"received\"");
	if (parse_run(o, r, err, errlen))
		return -EBADMSG;
	if (!strcmp(type, "progress"))
		rc = parse_progress(o, r, err, errlen);
	else if (!strcmp(type, "speed"))
		rc = parse_speed(o, r, err, errlen);
	else if (!strcmp(type, "checkpoint"))
		rc = parse_checkpoint(o, r, err, errlen);
	else if (!strcmp(type, "worker"))
		rc = parse_worker(o, r, err, errlen);
	else if (!strcmp(type, "gradients"))
		rc = parse_gradients(o, r, err, errlen);
	else
		return fail(err, errlen, "unknown report type");
	r->job_id = (uint32_t)job;
	r->uid = (uid_t)uid;
	return rc;
}

const char *protocol_report_name(report_kind_t kind)
{
	if (kind < REPORT_PROGRESS || kind > REPORT_GRADIENTS)
		return "unknown";
	return report_names[kind];
}

const char *protocol_query_name(query_kind_t kind)
{
	if (kind < QUERY_STATUS || kind > QUERY_METRICS)
		return "unknown";
	return query_names[kind];
}

int protocol_query_parse_name(const char *name, query_kind_t *kind)
{
	for (int k = QUERY_STATUS; k <= QUERY_METRICS; k++) {
		if (!strcmp(name, query_names[k])) {
			*kind = (query_kind_t)k;
			return 0;
		}
	}
	return -EINVAL;
}

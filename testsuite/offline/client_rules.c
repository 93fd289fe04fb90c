/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * client_rules.c - the C client's answers, for test_client_rules.py to hold
 * the Python client to: one JSON request a line on stdin, one JSON answer a
 * line on stdout, each answered by the very function the C client (or the
 * scheduler) runs:
 *
 *   {"op":"endpoint","env":{NAME:value,...}}  report_endpoint_resolve with
 *       SLURM_CONF, OPTIMUS_REPORT_ADDR and MUNGE_SOCKET set as given (unset
 *       when absent): {"hosts":[...],"port":N,"socket":S|null} or {"error":E}
 *   {"op":"run","text":T|null}     report_run_from_env: {"run":N|null}
 *   {"op":"conf","path":P,"key":K} conf_file_get: {"value":V|null} or
 *       {"error":E}
 *   {"op":"gain","batch":B,"base":B0,"grad_sqr":S,"trace":T}
 *       efficiency_gain of B with init_batch B0 after one report of S and
 *       T: {"gain":G}
 *   {"op":"rebatch","result":R}    protocol_reply_rebatch of a reply's
 *       result: {"rebatch":{...}}, {"rebatch":null} or {"error":E}
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "models/efficiency.h"
#include "report/client.h"
#include "report/run.h"
#include "util/conf_file.h"

static const char *const ENV_NAMES[] = {
	"SLURM_CONF", "OPTIMUS_REPORT_ADDR", "MUNGE_SOCKET",
};

static const char *str_of(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* A number that reads back as exactly d (json-c's default text may not). */
static json_object *exact_double(double d)
{
	char text[32];

	snprintf(text, sizeof(text), "%.17g", d);
	return json_object_new_double_s(d, text);
}

static double num_of(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ?
	       json_object_get_double(v) : 0.0;
}

static json_object *endpoint(json_object *req)
{
	json_object *env = NULL, *out = json_object_new_object(), *hosts;
	report_endpoint_t ep;
	char err[512];

	json_object_object_get_ex(req, "env", &env);
	for (size_t i = 0; i < sizeof(ENV_NAMES) / sizeof(ENV_NAMES[0]); i++) {
		const char *v = env ? str_of(env, ENV_NAMES[i]) : NULL;

		if (v)
			setenv(ENV_NAMES[i], v, 1);
		else
			unsetenv(ENV_NAMES[i]);
	}
	if (report_endpoint_resolve(&ep, err, sizeof(err))) {
		json_object_object_add(out, "error", json_object_new_string(err));
		return out;
	}
	hosts = json_object_new_array();
	for (size_t i = 0; i < ep.nhosts; i++)
		json_object_array_add(hosts,
				      json_object_new_string(ep.hosts[i]));
	json_object_object_add(out, "hosts", hosts);
	json_object_object_add(out, "port", json_object_new_int(ep.port));
	json_object_object_add(out, "socket", ep.munge_socket[0] ?
			       json_object_new_string(ep.munge_socket) : NULL);
	return out;
}

static json_object *run(json_object *req)
{
	json_object *out = json_object_new_object();
	uint32_t n;

	json_object_object_add(out, "run",
			       report_run_from_env(str_of(req, "text"), &n) ?
			       NULL : json_object_new_int64(n));
	return out;
}

static json_object *conf(json_object *req)
{
	json_object *out = json_object_new_object();
	char val[4096], err[512];
	int rc = conf_file_get(str_of(req, "path"), str_of(req, "key"), val,
			       sizeof(val), err, sizeof(err));

	if (rc < 0)
		json_object_object_add(out, "error",
				       json_object_new_string(err));
	else
		json_object_object_add(out, "value", rc ?
				       json_object_new_string(val) : NULL);
	return out;
}

static json_object *gain(json_object *req)
{
	json_object *out = json_object_new_object();
	efficiency_model_t m;

	/* grad_var = trace over var_batch = 1: the model's tr(Sigma) is then
	 * the trace given, with no rounding on the way */
	if (efficiency_init(&m, num_of(req, "base"), 1.0) ||
	    efficiency_report(&m, num_of(req, "grad_sqr"),
			      num_of(req, "trace"), 1.0))
		json_object_object_add(out, "error",
				       json_object_new_string("bad input"));
	else
		json_object_object_add(out, "gain", exact_double(
			efficiency_gain(&m, num_of(req, "batch"))));
	return out;
}

static json_object *rebatch(json_object *req)
{
	json_object *out = json_object_new_object(), *result = NULL, *rb;
	report_rebatch_t r;
	char err[512];
	int rc;

	json_object_object_get_ex(req, "result", &result);
	rc = protocol_reply_rebatch(result, &r, err, sizeof(err));
	if (rc < 0) {
		json_object_object_add(out, "error",
				       json_object_new_string(err));
		return out;
	}
	rb = rc ? json_object_new_object() : NULL;
	if (rb) {
		json_object_object_add(rb, "batch",
				       json_object_new_int64((int64_t)r.batch));
		json_object_object_add(rb, "local_batch",
				       json_object_new_int64(r.local_batch));
		json_object_object_add(rb, "accum",
				       json_object_new_int64(r.accum));
		json_object_object_add(rb, "lr_scale",
				       exact_double(r.lr_scale));
	}
	json_object_object_add(out, "rebatch", rb);
	return out;
}

int main(void)
{
	char *line = NULL;
	size_t cap = 0;

	while (getline(&line, &cap, stdin) > 0) {
		json_object *req = json_tokener_parse(line), *out;
		const char *op = req ? str_of(req, "op") : NULL;

		if (!op) {
			fprintf(stderr, "client_rules: not a request: %s", line);
			return 2;
		}
		if (!strcmp(op, "endpoint"))
			out = endpoint(req);
		else if (!strcmp(op, "run"))
			out = run(req);
		else if (!strcmp(op, "conf"))
			out = conf(req);
		else if (!strcmp(op, "gain"))
			out = gain(req);
		else if (!strcmp(op, "rebatch"))
			out = rebatch(req);
		else {
			fprintf(stderr, "client_rules: no op %s\n", op);
			return 2;
		}
		puts(json_object_to_json_string_ext(out,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		fflush(stdout);
		json_object_put(out);
		json_object_put(req);
	}
	free(line);
	return 0;
}

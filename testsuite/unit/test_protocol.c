/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * test_protocol.c - frames, envelopes, messages, replies, the replay cache,
 * the report queue and the report history.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "report/reply_bound.h"
#include "report/protocol.h"
#include "report/client.h"
#include "report/replay_cache.h"
#include "report/admission.h"
#include "report/history.h"
#include "report/queue.h"
#include "report/run.h"
#include "check_run.h"

static char err[256];

static int parse(const char *text, message_t *m)
{
	return protocol_message_parse(text, strlen(text), m, err, sizeof(err));
}

#define HEAD "\"v\":1,\"nonce\":\"00112233aabbccdd\",\"time\":1700000000,"

/* Write a file in dir; returns its path in buf. */
static const char *write_file(char *buf, size_t len, const char *dir,
			      const char *name, const char *text)
{
	FILE *f;

	snprintf(buf, len, "%s/%s", dir, name);
	f = fopen(buf, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return buf;
}

/* The listener is found from optimus.conf beside $SLURM_CONF; a wildcard
 * address means slurmctld's host (SlurmctldHost=name(addr)). */
START_TEST(test_endpoint_resolve)
{
	char dir[] = "/tmp/optimus-endpoint-XXXXXX", conf[256], oconf[256];
	char err[256];
	report_endpoint_t ep;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	write_file(conf, sizeof(conf), dir, "slurm.conf",
		   "SlurmctldHost=ctl(10.1.2.3)\n"
		   "AuthInfo=socket=/run/x/munge.sock,cred_expire=10\n");
	write_file(oconf, sizeof(oconf), dir, "optimus.conf",
		   "ReportAddress=0.0.0.0\nReportPort=7001\n");
	setenv("SLURM_CONF", conf, 1);
	unsetenv("OPTIMUS_REPORT_ADDR");
	unsetenv("MUNGE_SOCKET");
	ck_assert_int_eq(report_endpoint_resolve(&ep, err, sizeof(err)), 0);
	ck_assert_str_eq(ep.hosts[0], "10.1.2.3");
	ck_assert_int_eq(ep.port, 7001);
	ck_assert_str_eq(ep.munge_socket, "/run/x/munge.sock");

	write_file(oconf, sizeof(oconf), dir, "optimus.conf",
		   "ReportAddress=192.0.2.7\n");
	ck_assert_int_eq(report_endpoint_resolve(&ep, err, sizeof(err)), 0);
	ck_assert_str_eq(ep.hosts[0], "192.0.2.7");
	ck_assert_int_eq(ep.port, REPORT_DEFAULT_PORT);

	setenv("OPTIMUS_REPORT_ADDR", "example:6999", 1);
	ck_assert_int_eq(report_endpoint_resolve(&ep, err, sizeof(err)), 0);
	ck_assert_str_eq(ep.hosts[0], "example");
	ck_assert_int_eq(ep.port, 6999);
	setenv("OPTIMUS_REPORT_ADDR", "no-port", 1);
	ck_assert_int_eq(report_endpoint_resolve(&ep, err, sizeof(err)),
			 -EINVAL);
	unsetenv("OPTIMUS_REPORT_ADDR");
	unlink(conf);
	unlink(oconf);
	rmdir(dir);
}
END_TEST

/* optimus.conf beside slurm.conf, and the listener's address and port as
 * sched/optimus and the clients both read them (report/conf.h): defaults
 * for a missing file or key, port 0 (listener off) kept, a bad port refused
 * naming the file. */
START_TEST(test_report_conf)
{
	char dir[] = "/tmp/optimus-conf-XXXXXX", conf[256], path[300];
	char addr[64], err[256];
	uint16_t port;

	ck_assert_int_eq(report_conf_path("/etc/slurm/slurm.conf", path,
					  sizeof(path)), 0);
	ck_assert_str_eq(path, "/etc/slurm/optimus.conf");
	ck_assert_int_eq(report_conf_path("slurm.conf", path, sizeof(path)), 0);
	ck_assert_str_eq(path, "optimus.conf");
	ck_assert_int_eq(report_conf_path("/a/slurm.conf", path, 10),
			 -ENAMETOOLONG);

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(conf, sizeof(conf), "%s/slurm.conf", dir);
	ck_assert_int_eq(report_conf_path(conf, path, sizeof(path)), 0);
	ck_assert_int_eq(report_conf_listener(path, addr, sizeof(addr), &port,
					      err, sizeof(err)), 0);
	ck_assert_str_eq(addr, REPORT_DEFAULT_ADDRESS);
	ck_assert_int_eq(port, REPORT_DEFAULT_PORT);
	write_file(conf, sizeof(conf), dir, "optimus.conf",
		   "reportaddress = 0.0.0.0\nReportPort=0\n");
	ck_assert_int_eq(report_conf_listener(path, addr, sizeof(addr), &port,
					      err, sizeof(err)), 0);
	ck_assert_str_eq(addr, "0.0.0.0");
	ck_assert_int_eq(port, 0);
	write_file(conf, sizeof(conf), dir, "optimus.conf",
		   "ReportPort=65536\n");
	ck_assert_int_eq(report_conf_listener(path, addr, sizeof(addr), &port,
					      err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "optimus.conf: ReportPort=65536"));
	write_file(conf, sizeof(conf), dir, "optimus.conf",
		   "ReportAddress=a-name-longer-than-sixteen\n");
	ck_assert_int_eq(report_conf_listener(path, addr, 16, &port, err,
					      sizeof(err)), -ENAMETOOLONG);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* The refusal of an unknown type quotes it escaped: the reason is logged
 * by the listener and must not carry the sender's raw bytes. */
START_TEST(test_unknown_type_escaped)
{
	const char *text = "{\"v\":1,\"nonce\":\"0123456789abcdef\","
			   "\"time\":1,\"type\":\"x\\n[2026] error: FORGED\","
			   "\"job\":1}";
	char err[256];
	message_t m;

	ck_assert_int_eq(protocol_message_parse(text, strlen(text), &m, err,
						sizeof(err)), -EBADMSG);
	ck_assert_msg(!strchr(err, '\n'), "raw newline in '%s'", err);
	ck_assert_ptr_nonnull(strstr(err, "x\\n[2026]"));
}
END_TEST

/* A key the message's type does not have is refused by its name (the
 * sender's text, escaped), never dropped: "lsos" for "loss", a key of raw
 * bytes, a field of another type, any key beside the envelope's two. */
START_TEST(test_unknown_keys_refused)
{
	static const char *const bad[][2] = {
		{ "{" HEAD "\"type\":\"progress\",\"job\":1,\"step\":1,"
		  "\"loss\":1,\"sps\":0,\"lsos\":3}", "\"lsos\" in a progress" },
		{ "{" HEAD "\"type\":\"progress\",\"job\":1,\"step\":1,"
		  "\"loss\":1,\"sps\":0,\"\\u0001\\n\":3}", "\"\\x01\\n\"" },
		{ "{" HEAD "\"type\":\"checkpoint\",\"job\":1,\"step\":1,"
		  "\"loss\":1}", "\"loss\" in a checkpoint" },
		{ "{" HEAD "\"type\":\"worker\",\"job\":1,\"rank\":0,"
		  "\"node\":\"n1\",\"step_time\":1,\"workers\":2}",
		  "\"workers\" in a worker" },
		{ "{" HEAD "\"type\":\"query\",\"query\":\"status\","
		  "\"verbose\":1}", "\"verbose\" in a query" },
	};
	char *p, *c;
	message_t m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(parse(bad[i][0], &m), -EBADMSG);
		ck_assert_msg(strstr(err, bad[i][1]), "%zu: '%s'", i, err);
		ck_assert_msg(!strchr(err, '\n'), "raw newline in '%s'", err);
	}
	/* every key of every type, and run, are known */
	ck_assert_int_eq(parse("{" HEAD "\"type\":\"progress\",\"job\":1,"
			       "\"run\":0,\"step\":1,\"loss\":1,\"sps\":0,"
			       "\"epoch\":0}", &m), 0);
	ck_assert_int_eq(parse("{" HEAD "\"type\":\"speed\",\"job\":1,\"ps\":1,"
			       "\"workers\":2,\"steps_per_sec\":1,"
			       "\"local_batch\":4,\"accum\":1}", &m), 0);
	ck_assert_int_eq(parse("{" HEAD "\"type\":\"worker\",\"job\":1,"
			       "\"rank\":0,\"node\":\"n1\",\"step_time\":1,"
			       "\"lag\":0}", &m), 0);
	ck_assert_int_eq(parse("{" HEAD "\"type\":\"gradients\",\"job\":1,"
			       "\"grad_sqr\":1,\"grad_var\":1,\"var_batch\":2}",
			       &m), 0);
	ck_assert_int_eq(parse("{" HEAD "\"type\":\"query\",\"query\":\"job\","
			       "\"job\":3,\"points\":5}", &m), 0);
	ck_assert_int_eq(protocol_envelope_parse(
		"{\"payload\":\"x\",\"cred\":\"c\",\"extra\":1}", 36, &p, &c,
		err, sizeof(err)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "\"extra\" in the envelope"));
	ck_assert_ptr_null(p);
}
END_TEST

START_TEST(test_header_roundtrip_and_bounds)
{
	uint8_t h[4];
	uint32_t n;

	protocol_header_encode(0x01020304, h);
	ck_assert_int_eq(h[0], 1);
	ck_assert_int_eq(h[3], 4);
	protocol_header_encode(PROTOCOL_MAX_FRAME, h);
	ck_assert_int_eq(protocol_header_decode(h, &n), 0);
	ck_assert_uint_eq(n, PROTOCOL_MAX_FRAME);
	protocol_header_encode(PROTOCOL_MAX_FRAME + 1, h);
	ck_assert_int_eq(protocol_header_decode(h, &n), -EMSGSIZE);
	protocol_header_encode(0, h);
	ck_assert_int_eq(protocol_header_decode(h, &n), -EMSGSIZE);
}
END_TEST

START_TEST(test_envelope)
{
	char *p, *c, *text = protocol_envelope_build("{\"a\":1}", "MUNGE:xyz");

	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(protocol_envelope_parse(text, strlen(text), &p, &c,
						 err, sizeof(err)), 0);
	ck_assert_str_eq(p, "{\"a\":1}");
	ck_assert_str_eq(c, "MUNGE:xyz");
	free(p);
	free(c);
	free(text);
	ck_assert_int_eq(protocol_envelope_parse("{\"payload\":\"x\"}", 15, &p,
						 &c, err, sizeof(err)), -EBADMSG);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(protocol_envelope_parse("{\"payload\":1,\"cred\":\"c\"}",
						 24, &p, &c, err, sizeof(err)), -EBADMSG);
	/* trailing bytes, NUL bytes and non-objects are refused */
	ck_assert_int_eq(protocol_envelope_parse("{\"payload\":\"x\",\"cred\":\"c\"}x",
						 27, &p, &c, err, sizeof(err)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "trailing"));
	ck_assert_int_eq(protocol_envelope_parse("{}\0{}", 5, &p, &c, err,
						 sizeof(err)), -EBADMSG);
	ck_assert_int_eq(protocol_envelope_parse("[1,2]", 5, &p, &c, err,
						 sizeof(err)), -EBADMSG);
	ck_assert_int_eq(protocol_envelope_parse("{\"payload\":", 11, &p, &c,
						 err, sizeof(err)), -EBADMSG);
}
END_TEST

START_TEST(test_progress_parse)
{
	message_t m;

	ck_assert_int_eq(parse("{" HEAD "\"type\":\"progress\",\"job\":12,"
			       "\"step\":300,\"loss\":0.25,\"sps\":128.5,"
			       "\"epoch\":2}", &m), 0);
	ck_assert_int_eq(m.type, MSG_PROGRESS);
	ck_assert_uint_eq(m.nonce, 0x00112233aabbccddULL);
	ck_assert_int_eq(m.sent, 1700000000);
	ck_assert_uint_eq(m.report.job_id, 12);
	ck_assert_uint_eq(m.report.progress.step, 300);
	ck_assert_double_eq(m.report.progress.loss, 0.25);
	ck_assert_double_eq(m.report.progress.samples_per_sec, 128.5);
	ck_assert_int_eq(m.report.progress.epoch, 2);
	/* epoch is optional; integer loss is fine */
	ck_assert_int_eq(parse("{" HEAD "\"type\":\"progress\",\"job\":1,"
			       "\"step\":0,\"loss\":3,\"sps\":0}", &m), 0);
	ck_assert_int_eq(m.report.progress.epoch, -1);
	ck_assert_uint_eq(m.report.progress.batch, 0);
	ck_assert(m.report.progress.rebatch_seconds < 0);
	/* the batch it runs at, and how long the change to it took */
	ck_assert_int_eq(parse("{" HEAD "\"type\":\"progress\",\"job\":1,"
			       "\"step\":5,\"loss\":3,\"sps\":0,\"batch\":384,"
			       "\"rebatch_seconds\":0.25}", &m), 0);
	ck_assert_uint_eq(m.report.progress.batch, 384);
	ck_assert_double_eq(m.report.progress.rebatch_seconds, 0.25);
	ck_assert_int_eq(parse("{" HEAD "\"type\":\"progress\",\"job\":1,"
			       "\"step\":5,\"loss\":3,\"sps\":0,\"batch\":64}",
			       &m), 0);
	ck_assert_uint_eq(m.report.progress.batch, 64);
	ck_assert(m.report.progress.rebatch_seconds < 0);
	ck_assert_double_eq(m.report.progress.sync_seconds, 0.0);
	/* the all-reduce part of its steps, as the job timed it */
	ck_assert_int_eq(parse("{" HEAD "\"type\":\"progress\",\"job\":1,"
			       "\"step\":5,\"loss\":3,\"sps\":0,"
			       "\"sync_seconds\":0.125}", &m), 0);
	ck_assert_double_eq(m.report.progress.sync_seconds, 0.125);
	/* and of a step at another batch, below that step's time */
	ck_assert_int_eq(parse("{" HEAD "\"type\":\"speed\",\"job\":1,"
			       "\"ps\":0,\"workers\":2,\"steps_per_sec\":4,"
			       "\"local_batch\":8,\"accum\":0,"
			       "\"sync_seconds\":0.2}", &m), 0);
	ck_assert_double_eq(m.report.speed.sync_seconds, 0.2);
}
END_TEST

/* The batch a progress report says survives build and parse, and the
 * kept form (protocol_report_to_json / _from_json: the state file). */
START_TEST(test_progress_batch_roundtrip)
{
	message_t in = { .type = MSG_PROGRESS, .nonce = 7, .sent = 1 }, out;
	report_t back;
	json_object *o;
	char *text;

	in.report = (report_t){ .kind = REPORT_PROGRESS, .job_id = 9 };
	in.report.progress = (report_progress_t){ .step = 40, .loss = 0.5,
		.epoch = -1, .batch = 512, .rebatch_seconds = 0.125,
		.sync_seconds = 0.0625 };
	text = protocol_message_build(&in);
	ck_assert_int_eq(parse(text, &out), 0);
	ck_assert_uint_eq(out.report.progress.batch, 512);
	ck_assert_double_eq(out.report.progress.rebatch_seconds, 0.125);
	ck_assert_double_eq(out.report.progress.sync_seconds, 0.0625);
	free(text);
	o = protocol_report_to_json(&out.report);
	ck_assert_int_eq(protocol_report_from_json(o, &back, err,
						   sizeof(err)), 0);
	ck_assert_uint_eq(back.progress.batch, 512);
	ck_assert_double_eq(back.progress.rebatch_seconds, 0.125);
	json_object_put(o);
	/* not said: none of the fields goes out */
	in.report.progress.batch = 0;
	in.report.progress.sync_seconds = 0;
	text = protocol_message_build(&in);
	ck_assert_ptr_null(strstr(text, "batch"));
	ck_assert_ptr_null(strstr(text, "sync_seconds"));
	free(text);
}
END_TEST

/* A report's reply with a batch change: built, read back, and a
 * malformed one refused with the reason. */
START_TEST(test_reply_rebatch)
{
	report_rebatch_t rb = { 1536, 128, 2, 1.75 }, got;
	json_object *res = json_object_new_object(), *parsed;
	char *text;

	json_object_object_add(res, "rebatch", protocol_rebatch_to_json(&rb));
	text = protocol_reply_ok(res);
	ck_assert_int_eq(protocol_reply_parse(text, strlen(text), &parsed,
					      err, sizeof(err)), 0);
	ck_assert_int_eq(protocol_reply_rebatch(parsed, &got, err,
						sizeof(err)), 1);
	ck_assert_uint_eq(got.batch, 1536);
	ck_assert_uint_eq(got.local_batch, 128);
	ck_assert_uint_eq(got.accum, 2);
	ck_assert_double_eq(got.lr_scale, 1.75);
	json_object_put(parsed);
	free(text);
	/* none */
	ck_assert_int_eq(protocol_reply_rebatch(NULL, &got, err, sizeof(err)),
			 0);
	parsed = json_tokener_parse("{\"x\":1}");
	ck_assert_int_eq(protocol_reply_rebatch(parsed, &got, err,
						sizeof(err)), 0);
	json_object_put(parsed);
	/* malformed: not a whole split, a string, a zero scale */
	for (int k = 0; k < 3; k++) {
		static const char *const bad[] = {
			"{\"rebatch\":{\"batch\":1000,\"local_batch\":128,"
			"\"accum\":0,\"lr_scale\":1}}",
			"{\"rebatch\":{\"batch\":\"1024\",\"local_batch\":128,"
			"\"accum\":0,\"lr_scale\":1}}",
			"{\"rebatch\":{\"batch\":1024,\"local_batch\":128,"
			"\"accum\":0,\"lr_scale\":0}}",
		};
		parsed = json_tokener_parse(bad[k]);
		err[0] = '\0';
		ck_assert_int_eq(protocol_reply_rebatch(parsed, &got, err,
							sizeof(err)),
				 -EBADMSG);
		ck_assert_ptr_nonnull(strstr(err, "rebatch"));
		json_object_put(parsed);
	}
}
END_TEST

static const char *const bad_messages[] = {
	/* negative loss */
	"{" HEAD "\"type\":\"progress\",\"job\":1,\"step\":1,\"loss\":-1,\"sps\":0}",
	/* job as double, zero job, job too large */
	"{" HEAD "\"type\":\"progress\",\"job\":1.5,\"step\":1,\"loss\":1,\"sps\":0}",
	"{" HEAD "\"type\":\"progress\",\"job\":0,\"step\":1,\"loss\":1,\"sps\":0}",
	"{" HEAD "\"type\":\"progress\",\"job\":4294967296,\"step\":1,\"loss\":1,\"sps\":0}",
	/* missing sps, string step, negative epoch */
	"{" HEAD "\"type\":\"progress\",\"job\":1,\"step\":1,\"loss\":1}",
	"{" HEAD "\"type\":\"progress\",\"job\":1,\"step\":\"1\",\"loss\":1,\"sps\":0}",
	"{" HEAD "\"type\":\"progress\",\"job\":1,\"step\":1,\"loss\":1,\"sps\":0,\"epoch\":-2}",
	/* overflowing number */
	"{" HEAD "\"type\":\"progress\",\"job\":1,\"step\":99999999999999999999999,\"loss\":1,\"sps\":0}",
	/* speed with no workers */
	"{" HEAD "\"type\":\"speed\",\"job\":1,\"ps\":1,\"workers\":0,\"steps_per_sec\":1}",
	/* checkpoint without a step, with a negative one */
	"{" HEAD "\"type\":\"checkpoint\",\"job\":1}",
	"{" HEAD "\"type\":\"checkpoint\",\"job\":1,\"step\":-1}",
	/* worker: no rank, node with a space or a newline, zero or huge
	 * step time, negative lag */
	"{" HEAD "\"type\":\"worker\",\"job\":1,\"node\":\"n1\",\"step_time\":1}",
	"{" HEAD "\"type\":\"worker\",\"job\":1,\"rank\":0,\"node\":\"n 1\",\"step_time\":1}",
	"{" HEAD "\"type\":\"worker\",\"job\":1,\"rank\":0,\"node\":\"n\\n1\",\"step_time\":1}",
	/* NUL inside a string would cut it: "n1" would be taken */
	"{" HEAD "\"type\":\"worker\",\"job\":1,\"rank\":0,\"node\":\"n1\\u0000evil\",\"step_time\":1}",
	"{" HEAD "\"type\":\"worker\",\"job\":1,\"rank\":0,\"node\":\"n1\",\"step_time\":0}",
	"{" HEAD "\"type\":\"worker\",\"job\":1,\"rank\":0,\"node\":\"n1\",\"step_time\":1e9}",
	"{" HEAD "\"type\":\"worker\",\"job\":1,\"rank\":0,\"node\":\"n1\",\"step_time\":1,\"lag\":-1}",
	/* gradients: negative, missing, string, zero or fractional var_batch,
	 * beyond the bound (no JSON text holds NaN or Infinity: json-c's
	 * tokenizer takes them, the strict parse refuses them) */
	"{" HEAD "\"type\":\"gradients\",\"job\":1,\"grad_sqr\":-1,\"grad_var\":1,\"var_batch\":8}",
	"{" HEAD "\"type\":\"gradients\",\"job\":1,\"grad_sqr\":1,\"grad_var\":-0.5,\"var_batch\":8}",
	"{" HEAD "\"type\":\"gradients\",\"job\":1,\"grad_sqr\":1,\"grad_var\":1}",
	"{" HEAD "\"type\":\"gradients\",\"job\":1,\"grad_sqr\":\"1\",\"grad_var\":1,\"var_batch\":8}",
	"{" HEAD "\"type\":\"gradients\",\"job\":1,\"grad_sqr\":1,\"grad_var\":1,\"var_batch\":0}",
	"{" HEAD "\"type\":\"gradients\",\"job\":1,\"grad_sqr\":1,\"grad_var\":1,\"var_batch\":0.5}",
	"{" HEAD "\"type\":\"gradients\",\"job\":1,\"grad_sqr\":1e31,\"grad_var\":1,\"var_batch\":8}",
	"{" HEAD "\"type\":\"gradients\",\"job\":1,\"grad_sqr\":NaN,\"grad_var\":1,\"var_batch\":8}",
	"{" HEAD "\"type\":\"gradients\",\"job\":1,\"grad_sqr\":1,\"grad_var\":Infinity,\"var_batch\":8}",
	"{" HEAD "\"type\":\"gradients\",\"job\":1,\"grad_sqr\":1,\"grad_var\":1,\"var_batch\":-Infinity}",
	/* estimates: zero, negative, fractional, beyond the most, a string */
	"{" HEAD "\"type\":\"gradients\",\"job\":1,\"grad_sqr\":1,\"grad_var\":1,\"var_batch\":8,\"estimates\":0}",
	"{" HEAD "\"type\":\"gradients\",\"job\":1,\"grad_sqr\":1,\"grad_var\":1,\"var_batch\":8,\"estimates\":-3}",
	"{" HEAD "\"type\":\"gradients\",\"job\":1,\"grad_sqr\":1,\"grad_var\":1,\"var_batch\":8,\"estimates\":2.5}",
	"{" HEAD "\"type\":\"gradients\",\"job\":1,\"grad_sqr\":1,\"grad_var\":1,\"var_batch\":8,\"estimates\":1000001}",
	"{" HEAD "\"type\":\"gradients\",\"job\":1,\"grad_sqr\":1,\"grad_var\":1,\"var_batch\":8,\"estimates\":\"7\"}",
	/* progress's batch: 0, fractional, a string; rebatch_seconds
	 * without batch, negative, beyond an hour */
	"{" HEAD "\"type\":\"progress\",\"job\":1,\"step\":1,\"loss\":1,\"sps\":0,\"batch\":0}",
	"{" HEAD "\"type\":\"progress\",\"job\":1,\"step\":1,\"loss\":1,\"sps\":0,\"batch\":2.5}",
	"{" HEAD "\"type\":\"progress\",\"job\":1,\"step\":1,\"loss\":1,\"sps\":0,\"batch\":\"64\"}",
	"{" HEAD "\"type\":\"progress\",\"job\":1,\"step\":1,\"loss\":1,\"sps\":0,\"rebatch_seconds\":1}",
	"{" HEAD "\"type\":\"progress\",\"job\":1,\"step\":1,\"loss\":1,\"sps\":0,\"batch\":64,\"rebatch_seconds\":-1}",
	"{" HEAD "\"type\":\"progress\",\"job\":1,\"step\":1,\"loss\":1,\"sps\":0,\"batch\":64,\"rebatch_seconds\":3601}",
	/* speed at a batch: local_batch 0, accum without local_batch */
	"{" HEAD "\"type\":\"speed\",\"job\":1,\"ps\":0,\"workers\":2,\"steps_per_sec\":1,\"local_batch\":0}",
	"{" HEAD "\"type\":\"speed\",\"job\":1,\"ps\":0,\"workers\":2,\"steps_per_sec\":1,\"accum\":1}",
	"{" HEAD "\"type\":\"speed\",\"job\":1,\"ps\":0,\"workers\":2,\"steps_per_sec\":1,\"local_batch\":4,\"accum\":65}",
	/* sync_seconds: negative, beyond an hour, a string; in a speed
	 * report without local_batch, or not below the step (1/4 s) */
	"{" HEAD "\"type\":\"progress\",\"job\":1,\"step\":1,\"loss\":1,\"sps\":0,\"sync_seconds\":-0.5}",
	"{" HEAD "\"type\":\"progress\",\"job\":1,\"step\":1,\"loss\":1,\"sps\":0,\"sync_seconds\":3601}",
	"{" HEAD "\"type\":\"progress\",\"job\":1,\"step\":1,\"loss\":1,\"sps\":0,\"sync_seconds\":\"0.1\"}",
	"{" HEAD "\"type\":\"speed\",\"job\":1,\"ps\":0,\"workers\":2,\"steps_per_sec\":4,\"sync_seconds\":0.1}",
	"{" HEAD "\"type\":\"speed\",\"job\":1,\"ps\":0,\"workers\":2,\"steps_per_sec\":4,\"local_batch\":4,\"sync_seconds\":0.25}",
	/* unknown type, unknown query, job query without job */
	"{" HEAD "\"type\":\"delete\",\"job\":1}",
	"{" HEAD "\"type\":\"query\",\"query\":\"secrets\"}",
	"{" HEAD "\"type\":\"query\",\"query\":\"job\"}",
	/* bad version, short nonce, no time */
	"{\"v\":2,\"nonce\":\"00112233aabbccdd\",\"time\":1,\"type\":\"query\",\"query\":\"plan\"}",
	"{\"v\":1,\"nonce\":\"0011\",\"time\":1,\"type\":\"query\",\"query\":\"plan\"}",
	"{\"v\":1,\"nonce\":\"00112233aabbccdd\",\"type\":\"query\",\"query\":\"plan\"}",
	/* too deep */
	"{" HEAD "\"type\":\"query\",\"query\":\"plan\",\"x\":[[[[[[[[[[1]]]]]]]]]]}",
};

START_TEST(test_bad_messages)
{
	message_t m;

	err[0] = '\0';
	ck_assert_msg(parse(bad_messages[_i], &m) == -EBADMSG,
		      "accepted: %s", bad_messages[_i]);
	ck_assert_msg(err[0] != '\0', "no reason for %s", bad_messages[_i]);
}
END_TEST

START_TEST(test_build_roundtrip)
{
	message_t in = { .type = MSG_SPEED, .nonce = 0xfeedfacecafebeefULL,
			 .sent = 1234567 }, out;
	char *text;

	in.report = (report_t){ .kind = REPORT_SPEED, .job_id = 77 };
	in.report.speed = (report_speed_t){ .ps = 2, .workers = 6, .steps_per_sec = 3.75 };
	text = protocol_message_build(&in);
	ck_assert_int_eq(parse(text, &out), 0);
	ck_assert_int_eq(out.type, MSG_SPEED);
	ck_assert_uint_eq(out.nonce, in.nonce);
	ck_assert_int_eq(out.sent, in.sent);
	ck_assert_uint_eq(out.report.speed.ps, 2);
	ck_assert_uint_eq(out.report.speed.workers, 6);
	ck_assert_double_eq(out.report.speed.steps_per_sec, 3.75);
	free(text);

	in = (message_t){ .type = MSG_CHECKPOINT, .nonce = 3, .sent = 4 };
	in.report = (report_t){ .kind = REPORT_CHECKPOINT, .job_id = 78 };
	in.report.checkpoint.step = 4321;
	text = protocol_message_build(&in);
	ck_assert_ptr_nonnull(strstr(text, "\"type\":\"checkpoint\""));
	ck_assert_int_eq(parse(text, &out), 0);
	ck_assert_int_eq(out.type, MSG_CHECKPOINT);
	ck_assert_int_eq(out.report.kind, REPORT_CHECKPOINT);
	ck_assert_uint_eq(out.report.job_id, 78);
	ck_assert_uint_eq(out.report.checkpoint.step, 4321);
	free(text);

	/* a speed measured at a batch of its own */
	in = (message_t){ .type = MSG_SPEED, .nonce = 9, .sent = 10 };
	in.report = (report_t){ .kind = REPORT_SPEED, .job_id = 80 };
	in.report.speed = (report_speed_t){ .ps = 0, .workers = 4,
		.steps_per_sec = 2.5, .local_batch = 16, .accum = 3 };
	text = protocol_message_build(&in);
	ck_assert_int_eq(parse(text, &out), 0);
	ck_assert_uint_eq(out.report.speed.local_batch, 16);
	ck_assert_uint_eq(out.report.speed.accum, 3);
	free(text);

	in = (message_t){ .type = MSG_GRADIENTS, .nonce = 7, .sent = 8 };
	in.report = (report_t){ .kind = REPORT_GRADIENTS, .job_id = 79 };
	in.report.gradients = (report_gradients_t){ .grad_sqr = 0.125,
		.grad_var = 3.5, .var_batch = 64 };
	text = protocol_message_build(&in);
	ck_assert_ptr_nonnull(strstr(text, "\"type\":\"gradients\""));
	ck_assert_int_eq(parse(text, &out), 0);
	ck_assert_int_eq(out.type, MSG_GRADIENTS);
	ck_assert_int_eq(out.report.kind, REPORT_GRADIENTS);
	ck_assert_uint_eq(out.report.job_id, 79);
	ck_assert_double_eq(out.report.gradients.grad_sqr, 0.125);
	ck_assert_double_eq(out.report.gradients.grad_var, 3.5);
	ck_assert_double_eq(out.report.gradients.var_batch, 64);
	/* one estimate: the key is not sent, and read as 1 */
	ck_assert_ptr_null(strstr(text, "estimates"));
	ck_assert_uint_eq(out.report.gradients.estimates, 1);
	free(text);
	/* a run of equal estimates in one report */
	in.report.gradients.estimates = 40;
	text = protocol_message_build(&in);
	ck_assert_int_eq(parse(text, &out), 0);
	ck_assert_uint_eq(out.report.gradients.estimates, 40);
	free(text);
	ck_assert_int_eq(parse("{" HEAD "\"type\":\"gradients\",\"job\":1,"
			       "\"grad_sqr\":1,\"grad_var\":1,"
			       "\"var_batch\":8,\"estimates\":1000001}", &out),
			 -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "\"estimates\""));
	/* the reason names the field and its range */
	ck_assert_int_eq(parse("{" HEAD "\"type\":\"gradients\",\"job\":1,"
			       "\"grad_sqr\":1,\"grad_var\":1,"
			       "\"var_batch\":0}", &out), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "\"var_batch\""));
	/* zero statistics are a report like any other (no signal yet) */
	ck_assert_int_eq(parse("{" HEAD "\"type\":\"gradients\",\"job\":1,"
			       "\"grad_sqr\":0,\"grad_var\":0,"
			       "\"var_batch\":1}", &out), 0);

	in = (message_t){ .type = MSG_WORKER, .nonce = 5, .sent = 6 };
	in.report = (report_t){ .kind = REPORT_WORKER, .job_id = 79 };
	in.report.worker = (report_worker_t){ 3, "node-7", 0.25, 0.5 };
	text = protocol_message_build(&in);
	ck_assert_ptr_nonnull(strstr(text, "\"type\":\"worker\""));
	ck_assert_int_eq(parse(text, &out), 0);
	ck_assert_int_eq(out.type, MSG_WORKER);
	ck_assert_uint_eq(out.report.worker.rank, 3);
	ck_assert_str_eq(out.report.worker.node, "node-7");
	ck_assert_double_eq(out.report.worker.step_time, 0.25);
	ck_assert_double_eq(out.report.worker.lag, 0.5);
	free(text);

	in = (message_t){ .type = MSG_QUERY, .nonce = 1, .sent = 2,
			  .query = { QUERY_JOB, 9 } };
	text = protocol_message_build(&in);
	ck_assert_int_eq(parse(text, &out), 0);
	ck_assert_int_eq(out.query.kind, QUERY_JOB);
	ck_assert_uint_eq(out.query.job_id, 9);
	free(text);
}
END_TEST

START_TEST(test_replies)
{
	json_object *res, *r = json_object_new_object();
	char *ok, *bad;

	json_object_object_add(r, "n", json_object_new_int(5));
	ok = protocol_reply_ok(r);
	ck_assert_int_eq(protocol_reply_parse(ok, strlen(ok), &res, err,
					      sizeof(err)), 0);
	ck_assert_int_eq(json_object_get_int(json_object_object_get(res, "n")), 5);
	json_object_put(res);
	bad = protocol_reply_error("forbidden", "uid %d", 42);
	ck_assert_int_eq(protocol_reply_parse(bad, strlen(bad), &res, err,
					      sizeof(err)), -EPROTO);
	ck_assert_str_eq(err, "forbidden: uid 42");
	ck_assert_int_eq(protocol_reply_parse("{\"x\":1}", 7, &res, err,
					      sizeof(err)), -EBADMSG);
	free(ok);
	free(bad);
}
END_TEST

START_TEST(test_replay_cache)
{
	replay_cache_t *rc = replay_cache_create(64, 100);

	ck_assert_int_eq(replay_cache_check(rc, 1000, 42, 5000, 5000), REPLAY_FRESH);
	ck_assert_int_eq(replay_cache_check(rc, 1000, 42, 5000, 5001), REPLAY_SEEN);
	/* same nonce from another uid is another message */
	ck_assert_int_eq(replay_cache_check(rc, 1001, 42, 5000, 5001), REPLAY_FRESH);
	ck_assert_int_eq(replay_cache_check(rc, 1000, 43, 4899, 5000), REPLAY_STALE);
	ck_assert_int_eq(replay_cache_check(rc, 1000, 43, 5101, 5000), REPLAY_STALE);
	/* once the window has passed the message itself is stale */
	ck_assert_int_eq(replay_cache_check(rc, 1000, 42, 5000, 5101), REPLAY_STALE);
	ck_assert_uint_eq(replay_cache_live(rc, 5001), 2);
	ck_assert_uint_eq(replay_cache_live(rc, 5200), 0);
	replay_cache_destroy(rc);
}
END_TEST

/* A message refused for want of room (queue full) gives its slot back: a
 * busy listener must not fill the cache with what it never accepted
 * (100,000 reports plus their busy retries filled it and shed
 * every report for the rest of the window). */
START_TEST(test_replay_cache_forget)
{
	replay_cache_t *rc = replay_cache_create(16, 10);

	/* 100 messages over 10 s in a 16-slot cache with a 10 s window: only
	 * possible when the refused ones give their slots back (the sweep
	 * runs at most once a second) */
	for (uint64_t n = 0; n < 100; n++) {
		int64_t now = 100 + (int64_t)n / 10;

		ck_assert_int_eq(replay_cache_check(rc, 0, n, now, now),
				 REPLAY_FRESH);
		replay_cache_forget(rc, 0, n, now);
	}
	ck_assert_uint_eq(replay_cache_live(rc, 110), 0);
	ck_assert_int_eq(replay_cache_check(rc, 0, 7, 110, 110), REPLAY_FRESH);
	ck_assert_int_eq(replay_cache_check(rc, 0, 7, 110, 110), REPLAY_SEEN);
	replay_cache_destroy(rc);
}
END_TEST

START_TEST(test_replay_cache_full_then_sweep)
{
	replay_cache_t *rc = replay_cache_create(16, 10);
	int fresh = 0, full = 0;

	for (uint64_t n = 0; n < 32; n++) {
		replay_verdict_t v = replay_cache_check(rc, 0, n, 100, 100);

		fresh += v == REPLAY_FRESH;
		full += v == REPLAY_FULL;
	}
	ck_assert_int_eq(fresh, 12);	/* 3/4 of 16 slots */
	ck_assert_int_eq(full, 20);
	/* after the window, the sweep frees every slot */
	for (uint64_t n = 100; n < 112; n++)
		ck_assert_int_eq(replay_cache_check(rc, 0, n, 115, 115), REPLAY_FRESH);
	replay_cache_destroy(rc);
}
END_TEST

/* Fair shares: one uid filling the table costs only
 * itself. Another uid's messages take the hog's slots, never the reverse;
 * replays are still refused when the table is full; the slots stay
 * consistent through evictions (backward-shift deletion). */
START_TEST(test_replay_cache_fair_shares)
{
	replay_cache_t *rc = replay_cache_create(64, 100);
	int full = 0;

	for (uint64_t n = 0; n < 200; n++)
		full += replay_cache_check(rc, 1001, n, 100, 100) == REPLAY_FULL;
	ck_assert_int_eq(full, 200 - 48);	/* 3/4 of 64 slots */
	ck_assert_uint_eq(replay_cache_held(rc, 1001), 48);
	/* the hog's replay is still a replay */
	ck_assert_int_eq(replay_cache_check(rc, 1001, 5, 100, 100), REPLAY_SEEN);
	/* another uid gets in until both hold half */
	for (uint64_t n = 0; n < 24; n++)
		ck_assert_int_eq(replay_cache_check(rc, 0, 1000 + n, 100, 100),
				 REPLAY_FRESH);
	ck_assert_uint_eq(replay_cache_held(rc, 0), 24);
	ck_assert_uint_eq(replay_cache_held(rc, 1001), 24);
	ck_assert_uint_eq(replay_cache_live(rc, 100), 48);
	/* now each holds its share: the next one is refused, either uid */
	ck_assert_int_eq(replay_cache_check(rc, 0, 2000, 100, 100), REPLAY_FULL);
	ck_assert_int_eq(replay_cache_check(rc, 1001, 2000, 100, 100), REPLAY_FULL);
	/* every kept nonce is still found after the evictions' moves */
	for (uint64_t n = 0; n < 24; n++)
		ck_assert_int_eq(replay_cache_check(rc, 0, 1000 + n, 100, 100),
				 REPLAY_SEEN);
	/* a third uid takes from the larger holders, a slot at a time */
	for (uint64_t n = 0; n < 16; n++)
		ck_assert_int_eq(replay_cache_check(rc, 7, n, 100, 100),
				 REPLAY_FRESH);
	ck_assert_uint_eq(replay_cache_held(rc, 0) + replay_cache_held(rc, 1001)
			  + replay_cache_held(rc, 7), 48);
	ck_assert_uint_eq(replay_cache_held(rc, 0), 16);
	ck_assert_uint_eq(replay_cache_held(rc, 1001), 16);
	replay_cache_destroy(rc);
}
END_TEST

/* Which connection makes room: the oldest stranger;
 * when all are authenticated, one of the uid holding the most (idle
 * first, then oldest), never one of a uid holding fewer. */
START_TEST(test_admission_victim)
{
	admission_conn_t c[6] = {
		{ .seq = 1, .authed = true, .uid = 0 },
		{ .seq = 2, .authed = true, .uid = 1001 },
		{ .seq = 3, .authed = true, .uid = 1001, .busy = true },
		{ .seq = 4, .authed = true, .uid = 1001 },
		{ .seq = 5, .authed = false },
		{ .seq = 6, .authed = false },
	};

	ck_assert_int_eq(admission_victim(c, 0), -1);
	ck_assert_int_eq(admission_victim(c, 6), 4);	/* oldest stranger */
	ck_assert_int_eq(admission_victim(c, 4), 1);	/* 1001's oldest idle */
	c[1].busy = true;
	ck_assert_int_eq(admission_victim(c, 4), 3);	/* its idle one */
	c[3].busy = true;
	ck_assert_int_eq(admission_victim(c, 4), 1);	/* all busy: oldest */
	/* uid 0 alone holds the most once 1001 holds one */
	c[1] = (admission_conn_t){ .seq = 2, .authed = true, .uid = 0 };
	c[2] = (admission_conn_t){ .seq = 3, .authed = true, .uid = 0 };
	ck_assert_int_eq(admission_victim(c, 4), 0);
}
END_TEST

static report_t progress(uint32_t job, uint64_t step)
{
	report_t r = { .kind = REPORT_PROGRESS, .job_id = job, .uid = 5,
		       .received = (double)step };

	r.progress = (report_progress_t){ .step = step, .loss = 1.0 / (step + 1),
					 .samples_per_sec = 10, .epoch = -1 };
	return r;
}

/* A report of job 1 sent by uid. */
static report_t progress_of(uid_t uid, uint64_t step)
{
	report_t r = progress(1, step);

	r.uid = uid;
	return r;
}

START_TEST(test_queue_fifo_and_full)
{
	report_queue_t *q = report_queue_create(4);
	report_t out[8];
	report_t r;

	/* four users, one report each: the queue is full */
	for (uint64_t i = 0; i < 4; i++) {
		r = progress_of(100 + i, i);
		ck_assert_int_eq(report_queue_push(q, &r), 0);
	}
	r = progress_of(200, 99);
	ck_assert_int_eq(report_queue_push(q, &r), -EAGAIN);
	ck_assert_uint_eq(report_queue_refused(q), 1);
	ck_assert_uint_eq(report_queue_drain(q, out, 3), 3);
	ck_assert_uint_eq(out[0].progress.step, 0);
	ck_assert_uint_eq(out[2].progress.step, 2);
	r = progress_of(200, 4);
	ck_assert_int_eq(report_queue_push(q, &r), 0);
	ck_assert_uint_eq(report_queue_drain(q, out, 8), 2);
	ck_assert_uint_eq(out[0].progress.step, 3);
	ck_assert_uint_eq(out[1].progress.step, 4);
	ck_assert_uint_eq(report_queue_length(q), 0);
	report_queue_destroy(q);
}
END_TEST

/* One user sending as fast as it can holds at most capacity / (holders +
 * 1): a share is left for every user who arrives. */
START_TEST(test_queue_fair_share_per_uid)
{
	report_queue_t *q = report_queue_create(8);
	report_t out[8];
	report_t r;
	int accepted = 0;

	for (uint64_t i = 0; i < 8; i++) {
		r = progress_of(1000, i);
		accepted += report_queue_push(q, &r) == 0;
	}
	ck_assert_int_eq(accepted, 4);		/* 8 / (1 + 1) */
	ck_assert_uint_eq(report_queue_held(q, 1000), 4);
	/* a second user: share 8 / 3 = 2 */
	r = progress_of(1001, 0);
	ck_assert_int_eq(report_queue_push(q, &r), 0);
	ck_assert_int_eq(report_queue_push(q, &r), 0);
	ck_assert_int_eq(report_queue_push(q, &r), -EAGAIN);
	r = progress_of(1000, 9);
	ck_assert_int_eq(report_queue_push(q, &r), -EAGAIN);
	/* a third still finds its share */
	r = progress_of(1002, 0);
	ck_assert_int_eq(report_queue_push(q, &r), 0);
	ck_assert_uint_eq(report_queue_length(q), 7);
	ck_assert_uint_eq(report_queue_refused(q), 6);
	/* draining gives the shares back, oldest first */
	ck_assert_uint_eq(report_queue_drain(q, out, 8), 7);
	ck_assert_uint_eq(out[0].uid, 1000);
	ck_assert_uint_eq(out[6].uid, 1002);
	ck_assert_uint_eq(report_queue_held(q, 1000), 0);
	r = progress_of(1000, 10);
	ck_assert_int_eq(report_queue_push(q, &r), 0);
	report_queue_destroy(q);
}
END_TEST

#define PRODUCED 20000

static void *producer(void *arg)
{
	report_queue_t *q = arg;

	for (uint64_t i = 0; i < PRODUCED; i++) {
		report_t r = progress(1, i);

		/* a full queue (or this uid's share of it): let the consumer
		 * run; spinning on the lock starved it on a loaded machine
		 * (CI: both lanes timed out here) */
		while (report_queue_push(q, &r) != 0)
			sched_yield();
	}
	return NULL;
}

START_TEST(test_queue_threads_keep_order)
{
	report_queue_t *q = report_queue_create(64);
	report_t out[16];
	uint64_t expect = 0;
	pthread_t t;

	pthread_create(&t, NULL, producer, q);
	while (expect < PRODUCED) {
		size_t n = report_queue_drain(q, out, 16);

		if (!n)
			sched_yield();	/* empty: let the producer run */

		for (size_t i = 0; i < n; i++)
			ck_assert_uint_eq(out[i].progress.step, expect++);
	}
	pthread_join(t, NULL);
	report_queue_destroy(q);
}
END_TEST

START_TEST(test_history_ring_and_eviction)
{
	report_history_t *h = report_history_create(2, 3);
	json_object *j, *pts;
	report_t r;

	for (uint64_t i = 1; i <= 5; i++) {
		r = progress(10, i);
		report_history_add(h, &r);
	}
	j = report_history_job_json(h, 10);
	pts = json_object_object_get(j, "progress");
	ck_assert_uint_eq(json_object_array_length(pts), 3);
	/* oldest kept first: steps 3, 4, 5 */
	ck_assert_int_eq(json_object_get_int(json_object_object_get(
		json_object_array_get_idx(pts, 0), "step")), 3);
	ck_assert_int_eq(json_object_get_int(json_object_object_get(j, "reports")), 5);
	json_object_put(j);
	r = progress(11, 6);
	report_history_add(h, &r);
	r = progress(12, 7);	/* evicts job 10, the least recently updated */
	report_history_add(h, &r);
	ck_assert_ptr_null(report_history_job_json(h, 10));
	ck_assert_uint_eq(report_history_jobs(h), 2);
	j = report_history_status_json(h, &(report_viewer_t){
		.admin = true, .max_jobs = 10 });
	ck_assert_uint_eq(json_object_array_length(json_object_object_get(j, "jobs")), 2);
	json_object_put(j);
	report_history_destroy(h);
}
END_TEST

/* A reply waits within the bounds: at most REPLY_BOUND_MAX by itself and
 * REPLY_BOUND_BUDGET with what already waits, without overflow. */
START_TEST(test_reply_bound)
{
	ck_assert_int_eq(reply_bound_verdict(100, 0), REPLY_BOUND_OK);
	ck_assert_int_eq(reply_bound_verdict(REPLY_BOUND_MAX, 0),
			 REPLY_BOUND_OK);
	ck_assert_int_eq(reply_bound_verdict(REPLY_BOUND_MAX + 1, 0),
			 REPLY_BOUND_TOO_LARGE);
	ck_assert_int_eq(reply_bound_verdict(100, REPLY_BOUND_BUDGET - 100),
			 REPLY_BOUND_OK);
	ck_assert_int_eq(reply_bound_verdict(101, REPLY_BOUND_BUDGET - 100),
			 REPLY_BOUND_BUSY);
	ck_assert_int_eq(reply_bound_verdict(1, REPLY_BOUND_BUDGET + 5),
			 REPLY_BOUND_BUSY);
	ck_assert_int_eq(reply_bound_verdict(1, (size_t)-1), REPLY_BOUND_BUSY);
}
END_TEST

/* status from the history: the jobs the viewer may see (an ordinary user
 * their own), at most max_jobs, "truncated" and "jobs_total" saying so. */
START_TEST(test_history_status_per_viewer_bounded)
{
	report_history_t *h = report_history_create(8, 3);
	json_object *j;
	report_t r;

	for (uint32_t job = 1; job <= 3; job++) {
		r = progress(job, 1);
		r.uid = job == 3 ? 7 : 5;
		report_history_add(h, &r);
	}
	j = report_history_status_json(h, &(report_viewer_t){
		.uid = 7, .max_jobs = 10 });
	ck_assert_uint_eq(json_object_array_length(json_object_object_get(j, "jobs")), 1);
	ck_assert_int_eq(json_object_get_int(json_object_object_get(
		json_object_array_get_idx(json_object_object_get(j, "jobs"), 0),
		"job")), 3);
	ck_assert(!json_object_get_boolean(json_object_object_get(j, "truncated")));
	json_object_put(j);
	j = report_history_status_json(h, &(report_viewer_t){
		.uid = 7, .admin = true, .max_jobs = 2 });
	ck_assert_uint_eq(json_object_array_length(json_object_object_get(j, "jobs")), 2);
	ck_assert(json_object_get_boolean(json_object_object_get(j, "truncated")));
	ck_assert_int_eq(json_object_get_int(json_object_object_get(j, "jobs_total")), 3);
	json_object_put(j);
	j = report_history_status_json(h, &(report_viewer_t){
		.uid = 9, .max_jobs = 2 });
	ck_assert_uint_eq(json_object_array_length(json_object_object_get(j, "jobs")), 0);
	json_object_put(j);
	report_history_destroy(h);
}
END_TEST

/* The state file's round trip: what report_history_job_json
 * wrote reads back into an empty history as the same answer; a report of
 * another job is refused. */
START_TEST(test_history_restore_round_trip)
{
	report_history_t *h = report_history_create(2, 3), *back;
	json_object *j, *j2, *bad;
	char err[160] = "";
	report_t r;

	for (uint64_t i = 1; i <= 5; i++) {
		r = progress(10, i);
		report_history_add(h, &r);
	}
	r = (report_t){ .kind = REPORT_SPEED, .job_id = 10, .uid = 5,
			.received = 6 };
	r.speed = (report_speed_t){ .ps = 1, .workers = 2, .steps_per_sec = 0.5 };
	report_history_add(h, &r);
	r = (report_t){ .kind = REPORT_CHECKPOINT, .job_id = 10, .uid = 5,
			.received = 7 };
	r.checkpoint.step = 5;
	report_history_add(h, &r);
	j = report_history_job_json(h, 10);
	back = report_history_create(2, 3);
	ck_assert_int_eq(report_history_job_restore(back, j, err, sizeof(err)), 0);
	j2 = report_history_job_json(back, 10);
	ck_assert_str_eq(json_object_to_json_string(j),
			 json_object_to_json_string(j2));
	json_object_put(j2);
	/* A report of job 11 in job 10's history. */
	bad = json_tokener_parse(json_object_to_json_string(j));
	json_object_object_add(json_object_array_get_idx(
		json_object_object_get(bad, "progress"), 0), "job",
		json_object_new_int(11));
	report_history_destroy(back);
	back = report_history_create(2, 3);
	ck_assert_int_ne(report_history_job_restore(back, bad, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "another job"));
	json_object_put(bad);
	json_object_put(j);
	report_history_destroy(back);
	report_history_destroy(h);
}
END_TEST

/* A checkpoint confirmation is kept apart: it is neither a loss point nor
 * a speed sample. */
START_TEST(test_history_keeps_last_checkpoint)
{
	report_history_t *h = report_history_create(2, 3);
	report_t r = progress(10, 1);
	json_object *j, *ck;

	report_history_add(h, &r);
	r = (report_t){ .kind = REPORT_CHECKPOINT, .job_id = 10 };
	r.checkpoint.step = 40;
	report_history_add(h, &r);
	j = report_history_job_json(h, 10);
	ck_assert_uint_eq(json_object_array_length(
		json_object_object_get(j, "progress")), 1);
	ck_assert_uint_eq(json_object_array_length(
		json_object_object_get(j, "speed_samples")), 0);
	ck = json_object_object_get(j, "last_checkpoint");
	ck_assert_str_eq(json_object_get_string(
		json_object_object_get(ck, "type")), "checkpoint");
	ck_assert_int_eq(json_object_get_int(
		json_object_object_get(ck, "step")), 40);
	json_object_put(j);
	report_history_destroy(h);
}
END_TEST

/* "run": optional on every report, an integer 0 to 65535,
 * refused otherwise with the field named; built back only when given. */
START_TEST(test_report_run_field)
{
	static const char *const bad[] = { "-1", "65536", "1.5", "\"1\"",
					   "null", "true" };
	message_t m, back;
	char text[256], *built;

	ck_assert_int_eq(parse("{" HEAD "\"type\":\"progress\",\"job\":7,"
			       "\"run\":3,\"step\":1,\"loss\":1,\"sps\":0}",
			       &m), 0);
	ck_assert_int_eq(m.report.has_run, 1);
	ck_assert_uint_eq(m.report.run, 3);
	built = protocol_message_build(&m);
	ck_assert_ptr_nonnull(strstr(built, "\"run\":3"));
	ck_assert_int_eq(protocol_message_parse(built, strlen(built), &back,
						err, sizeof(err)), 0);
	ck_assert_int_eq(back.report.has_run, 1);
	ck_assert_uint_eq(back.report.run, 3);
	free(built);
	/* the bounds, on another kind */
	ck_assert_int_eq(parse("{" HEAD "\"type\":\"worker\",\"job\":7,"
			       "\"run\":65535,\"rank\":0,\"node\":\"n1\","
			       "\"step_time\":0.5}", &m), 0);
	ck_assert_uint_eq(m.report.run, 65535);
	ck_assert_int_eq(parse("{" HEAD "\"type\":\"checkpoint\",\"job\":7,"
			       "\"run\":0,\"step\":4}", &m), 0);
	ck_assert_int_eq(m.report.has_run, 1);
	ck_assert_uint_eq(m.report.run, 0);
	/* missing: accepted, names no run, and none is built */
	ck_assert_int_eq(parse("{" HEAD "\"type\":\"speed\",\"job\":7,"
			       "\"ps\":0,\"workers\":1,\"steps_per_sec\":2}",
			       &m), 0);
	ck_assert_int_eq(m.report.has_run, 0);
	built = protocol_message_build(&m);
	ck_assert_ptr_null(strstr(built, "\"run\""));
	free(built);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "{" HEAD "\"type\":\"progress\","
			 "\"job\":7,\"run\":%s,\"step\":1,\"loss\":1,"
			 "\"sps\":0}", bad[i]);
		err[0] = '\0';
		ck_assert_msg(parse(text, &m) == -EBADMSG, "%s", bad[i]);
		ck_assert_msg(strstr(err, "\"run\""), "%s: %s", bad[i], err);
	}
}
END_TEST

/* Kept reports (the state file) keep their run. */
START_TEST(test_report_run_kept)
{
	report_t r = { .kind = REPORT_PROGRESS, .job_id = 9, .uid = 5,
		       .received = 10, .has_run = 1, .run = 2 }, back;
	json_object *j;

	r.progress = (report_progress_t){ .step = 4, .loss = 1, .epoch = -1 };
	j = protocol_report_to_json(&r);
	ck_assert_int_eq(protocol_report_from_json(j, &back, err,
						   sizeof(err)), 0);
	ck_assert_int_eq(back.has_run, 1);
	ck_assert_uint_eq(back.run, 2);
	json_object_object_add(j, "run", json_object_new_int(-4));
	ck_assert_int_eq(protocol_report_from_json(j, &back, err,
						   sizeof(err)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "\"run\""));
	json_object_object_del(j, "run");
	ck_assert_int_eq(protocol_report_from_json(j, &back, err,
						   sizeof(err)), 0);
	ck_assert_int_eq(back.has_run, 0);
	json_object_put(j);
}
END_TEST

/* The verdict: the current run's and an unnamed report are taken, any
 * other run's (earlier, or one Slurm has not started as far as the
 * scheduler saw) is stale. */
START_TEST(test_report_run_verdict)
{
	report_t r = { .kind = REPORT_PROGRESS, .job_id = 9 };

	ck_assert_int_eq(report_run_verdict(&r, 0), REPORT_RUN_UNNAMED);
	ck_assert_int_eq(report_run_verdict(&r, 4), REPORT_RUN_UNNAMED);
	r.has_run = 1;
	r.run = 1;
	ck_assert_int_eq(report_run_verdict(&r, 1), REPORT_RUN_CURRENT);
	ck_assert_int_eq(report_run_verdict(&r, 2), REPORT_RUN_STALE);
	ck_assert_int_eq(report_run_verdict(&r, 0), REPORT_RUN_STALE);
	r.run = 0;
	ck_assert_int_eq(report_run_verdict(&r, 0), REPORT_RUN_CURRENT);
}
END_TEST

/* SLURM_RESTART_COUNT as the clients read it: a count or nothing. */
START_TEST(test_report_run_from_env)
{
	static const char *const bad[] = { NULL, "", "-1", "+1", " 1", "1x",
					   "65536", "99999999999999999999" };
	uint32_t run = 77;

	ck_assert_int_eq(report_run_from_env("0", &run), 0);
	ck_assert_uint_eq(run, 0);
	ck_assert_int_eq(report_run_from_env("12", &run), 0);
	ck_assert_uint_eq(run, 12);
	ck_assert_int_eq(report_run_from_env("65535", &run), 0);
	ck_assert_uint_eq(run, 65535);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(report_run_from_env(bad[i], &run) == -EINVAL,
			      "%s", bad[i] ? bad[i] : "(unset)");
}
END_TEST

static Suite *protocol_suite(void)
{
	Suite *s = suite_create("protocol");
	TCase *tc = tcase_create("core");

	/* Check's default 4 s per test is a timing assertion in disguise:
	 * test_queue_threads_keep_order's 20,000 hand-offs between two threads
	 * took longer on 2 cores at load 16 (builds and test clusters beside
	 * it). A hang still fails, after a minute. */
	tcase_set_timeout(tc, 60);

	tcase_add_test(tc, test_header_roundtrip_and_bounds);
	tcase_add_test(tc, test_unknown_type_escaped);
	tcase_add_test(tc, test_unknown_keys_refused);
	tcase_add_test(tc, test_replay_cache_forget);
	tcase_add_test(tc, test_endpoint_resolve);
	tcase_add_test(tc, test_report_conf);
	tcase_add_test(tc, test_envelope);
	tcase_add_test(tc, test_progress_parse);
	tcase_add_test(tc, test_progress_batch_roundtrip);
	tcase_add_test(tc, test_reply_rebatch);
	tcase_add_test(tc, test_report_run_field);
	tcase_add_test(tc, test_report_run_kept);
	tcase_add_test(tc, test_report_run_verdict);
	tcase_add_test(tc, test_report_run_from_env);
	tcase_add_loop_test(tc, test_bad_messages, 0,
			    sizeof(bad_messages) / sizeof(bad_messages[0]));
	tcase_add_test(tc, test_build_roundtrip);
	tcase_add_test(tc, test_replies);
	tcase_add_test(tc, test_replay_cache);
	tcase_add_test(tc, test_replay_cache_full_then_sweep);
	tcase_add_test(tc, test_replay_cache_fair_shares);
	tcase_add_test(tc, test_admission_victim);
	tcase_add_test(tc, test_queue_fifo_and_full);
	tcase_add_test(tc, test_queue_fair_share_per_uid);
	tcase_add_test(tc, test_queue_threads_keep_order);
	tcase_add_test(tc, test_history_ring_and_eviction);
	tcase_add_test(tc, test_history_status_per_viewer_bounded);
	tcase_add_test(tc, test_reply_bound);
	tcase_add_test(tc, test_history_keeps_last_checkpoint);
	tcase_add_test(tc, test_history_restore_round_trip);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(protocol_suite());
}

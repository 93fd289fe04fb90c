/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * test_protocol_service.c - the listener's decisions (report/service.c)
 * with a fake credential checker: "FAKE:<uid>:<payload>" stands for a munge
 * credential of <payload> from <uid>, and "EXPIRED"/"REPLAYED" for what
 * munged says of such credentials. Everything else is the real code.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "job/job_admit.h"
#include "report/service.h"
#include "check_run.h"

#define OWNER 1000
#define OTHER 1001
#define SLURM_USER 64030
#define JOB 42
#define NOW 1700000000.0

static munge_auth_status_t fake_verify(const char *socket, const char *cred,
				       const char *payload, size_t len,
				       uid_t *uid, char *err, size_t errlen)
{
	unsigned u;
	int off = 0;

	if (!strcmp(cred, "EXPIRED"))
		return snprintf(err, errlen, "expired"), MUNGE_AUTH_EXPIRED;
	if (!strcmp(cred, "REPLAYED"))
		return snprintf(err, errlen, "replayed"), MUNGE_AUTH_REPLAYED;
	if (sscanf(cred, "FAKE:%u:%n", &u, &off) != 1 || !off)
		return snprintf(err, errlen, "garbled"), MUNGE_AUTH_INVALID;
	if (strlen(cred + off) != len || memcmp(cred + off, payload, len))
		return snprintf(err, errlen, "mismatch"), MUNGE_AUTH_MISMATCH;
	*uid = u;
	return MUNGE_AUTH_OK;
}

#define FINISHED_JOB 77	/* a job that has ended, owned by OWNER */
#define JOB_RUN 2	/* the current run (restart count) of every job */

static int job_owner(uint32_t job_id, uid_t *uid, uint32_t *run)
{
	if (job_id != JOB && job_id != FINISHED_JOB)
		return -ENOENT;
	*uid = OWNER;
	*run = JOB_RUN;
	return job_id == FINISHED_JOB ? 1 : 0;
}

static int custom_calls;

static json_object *custom_query(const query_t *q, const report_viewer_t *v)
{
	json_object *o = json_object_new_object();

	custom_calls++;
	json_object_object_add(o, "planner", json_object_new_string("custom"));
	return o;
}

static report_service_t *svc;
static uint64_t next_nonce = 1;
static report_outcome_t out;

static void setup(void)
{
	report_service_conf_t c = REPORT_SERVICE_CONF_DEFAULT;
	report_callbacks_t cb = { .job_owner = job_owner };

	c.verify = fake_verify;
	c.admin_uid = SLURM_USER;
	c.queue_capacity = 6;	/* one user's share: 3 */
	c.replay_capacity = 1024;
	c.replay_window = 60;
	svc = report_service_create(&c, &cb);
	ck_assert_ptr_nonnull(svc);
	custom_calls = 0;
}

static void teardown(void)
{
	report_service_destroy(svc);
}

static char *frame_for(uid_t uid, const char *payload)
{
	char cred[2048];

	snprintf(cred, sizeof(cred), "FAKE:%u:%s", (unsigned)uid, payload);
	return protocol_envelope_build(payload, cred);
}

static message_t progress_msg(uint32_t job, uint64_t step)
{
	message_t m = { .type = MSG_PROGRESS, .nonce = next_nonce++,
			.sent = (int64_t)NOW };

	m.report = (report_t){ .kind = REPORT_PROGRESS, .job_id = job };
	m.report.progress = (report_progress_t){ .step = step,
		.loss = 2.0 / step, .samples_per_sec = 50, .epoch = 1 };
	return m;
}

/* Send m as uid; returns the reply's error code word or "ok". */
static const char *send_as(uid_t uid, const message_t *m, json_object **res)
{
	char *payload = protocol_message_build(m);
	char *frame = frame_for(uid, payload);
	char *reply = report_service_handle(svc, frame, strlen(frame), NOW, &out);
	static char code[64];
	json_object *r = NULL;
	char e[256];
	int rc = protocol_reply_parse(reply, strlen(reply), &r, e, sizeof(e));

	ck_assert_int_ne(rc, -EBADMSG);
	e[strcspn(e, ":")] = '\0';
	snprintf(code, sizeof(code), "%.63s", rc == 0 ? "ok" : e);
	if (res)
		*res = r;
	else
		json_object_put(r);
	ck_assert_str_eq(code, out.code);
	free(payload);
	free(frame);
	free(reply);
	return code;
}

START_TEST(test_owner_reports_and_queries)
{
	message_t m = progress_msg(JOB, 10);
	message_t q = { .type = MSG_QUERY, .sent = (int64_t)NOW,
			.query = { QUERY_JOB, JOB } };
	json_object *res, *pts;

	ck_assert_str_eq(send_as(OWNER, &m, NULL), "ok");
	ck_assert_int_eq(out.accepted, 1);
	ck_assert_uint_eq(out.uid, OWNER);
	m = progress_msg(JOB, 20);
	ck_assert_str_eq(send_as(OWNER, &m, NULL), "ok");
	q.nonce = next_nonce++;
	ck_assert_str_eq(send_as(OWNER, &q, &res), "ok");
	pts = json_object_object_get(res, "progress");
	ck_assert_uint_eq(json_object_array_length(pts), 2);
	ck_assert_double_eq(json_object_get_double(json_object_object_get(
		json_object_array_get_idx(pts, 1), "loss")), 0.1);
	json_object_put(res);
}
END_TEST

START_TEST(test_other_user_is_forbidden)
{
	message_t m = progress_msg(JOB, 10);
	message_t q = { .type = MSG_QUERY, .nonce = next_nonce++,
			.sent = (int64_t)NOW, .query = { QUERY_JOB, JOB } };

	ck_assert_str_eq(send_as(OTHER, &m, NULL), "forbidden");
	ck_assert_ptr_nonnull(strstr(out.reason, "does not own job 42"));
	ck_assert_str_eq(send_as(OTHER, &q, NULL), "forbidden");
	/* root and SlurmUser may */
	m = progress_msg(JOB, 11);
	ck_assert_str_eq(send_as(0, &m, NULL), "ok");
	m = progress_msg(JOB, 12);
	ck_assert_str_eq(send_as(SLURM_USER, &m, NULL), "ok");
	m = progress_msg(JOB + 1, 12);
	ck_assert_str_eq(send_as(OWNER, &m, NULL), "no_job");
}
END_TEST

/* A finished job's record is closed to reports (told why), open to
 * queries; a stranger still learns only "forbidden". */
START_TEST(test_finished_job_refuses_reports)
{
	message_t m = progress_msg(FINISHED_JOB, 99999);
	message_t q = { .type = MSG_QUERY, .nonce = next_nonce++,
			.sent = (int64_t)NOW, .query = { QUERY_JOB, FINISHED_JOB } };

	ck_assert_str_eq(send_as(OWNER, &m, NULL), "finished");
	ck_assert_ptr_nonnull(strstr(out.reason, "job 77 has finished"));
	ck_assert_str_eq(send_as(OWNER, &q, NULL), "ok");
	m = progress_msg(FINISHED_JOB, 99999);
	ck_assert_str_eq(send_as(OTHER, &m, NULL), "forbidden");
}
END_TEST

/* The record of JOB as a planner would hold it: 2 workers running. */
static job_model_t *record;

static int admit_by_record(const report_t *r, char *err, size_t errlen)
{
	return r->job_id == JOB ? job_model_admit(record, r, 0, err, errlen) : 0;
}

/*
 * A report the job's record refuses is refused to its sender, with the
 * record's reason ("rejected"): nothing is queued and its nonce takes no
 * replay slot; a report the record takes is queued as before.
 */
START_TEST(test_report_the_record_refuses_is_rejected)
{
	report_service_conf_t c = REPORT_SERVICE_CONF_DEFAULT;
	report_callbacks_t cb = { .job_owner = job_owner,
				  .admit = admit_by_record };
	message_t m = { .type = MSG_WORKER, .nonce = next_nonce++,
			.sent = (int64_t)NOW };
	report_queue_t *queue;
	optimus_hints_t h;
	report_t got[2];
	char err[256];

	ck_assert(!hints_parse("optimus,ps=1,workers=2", &h, err, sizeof(err)));
	record = job_model_new(JOB, OWNER, &h, 10);
	job_model_started(record, 100, 1, 2, 1);
	report_service_destroy(svc);
	c.verify = fake_verify;
	svc = report_service_create(&c, &cb);
	queue = report_service_attach_consumer(svc);
	m.report = (report_t){ .kind = REPORT_WORKER, .job_id = JOB };
	m.report.worker = (report_worker_t){ .rank = 99, .node = "n1",
					     .step_time = 0.5 };
	ck_assert_str_eq(send_as(OWNER, &m, NULL), "rejected");
	ck_assert_ptr_nonnull(strstr(out.reason, "rank 99"));
	ck_assert_uint_eq(report_queue_length(queue), 0);
	/* the same nonce, a rank the run has: taken (no slot was held) */
	m.report.worker.rank = 1;
	ck_assert_str_eq(send_as(OWNER, &m, NULL), "ok");
	ck_assert_uint_eq(report_queue_drain(queue, got, 2), 1);
	ck_assert_uint_eq(got[0].worker.rank, 1);
	job_model_free(record);
}
END_TEST

START_TEST(test_replay_and_stale)
{
	message_t m = progress_msg(JOB, 10);

	ck_assert_str_eq(send_as(OWNER, &m, NULL), "ok");
	ck_assert_str_eq(send_as(OWNER, &m, NULL), "replayed");
	m = progress_msg(JOB, 11);
	m.sent = (int64_t)NOW - 61;
	ck_assert_str_eq(send_as(OWNER, &m, NULL), "stale");
}
END_TEST

static const char *handle_raw(const char *frame)
{
	char *reply = report_service_handle(svc, frame, strlen(frame), NOW, &out);

	ck_assert_ptr_nonnull(reply);
	ck_assert_ptr_nonnull(strstr(reply, "\"ok\":false"));
	free(reply);
	return out.code;
}

START_TEST(test_forged_and_malformed)
{
	message_t m = progress_msg(JOB, 10);
	char *payload = protocol_message_build(&m), *frame;

	frame = protocol_envelope_build(payload, "MUNGE:garbage");
	ck_assert_str_eq(handle_raw(frame), "invalid");
	free(frame);
	frame = protocol_envelope_build(payload, "EXPIRED");
	ck_assert_str_eq(handle_raw(frame), "expired");
	free(frame);
	frame = protocol_envelope_build(payload, "REPLAYED");
	ck_assert_str_eq(handle_raw(frame), "replayed");
	free(frame);
	{
		/* the payload was changed after signing */
		char cred[1024];

		snprintf(cred, sizeof(cred), "FAKE:%u:%s", OWNER, payload);
		cred[strlen(cred) - 3] = 'X';
		frame = protocol_envelope_build(payload, cred);
		ck_assert_str_eq(handle_raw(frame), "invalid");
		ck_assert_ptr_nonnull(strstr(out.reason, "mismatch"));
		free(frame);
	}
	ck_assert_str_eq(handle_raw("{not json"), "bad_request");
	ck_assert_str_eq(handle_raw("{\"payload\":\"{}\",\"cred\":\"FAKE:1000:{}\"}"),
			 "bad_request");
	ck_assert_uint_eq(out.uid, OWNER);
	free(payload);
}
END_TEST

START_TEST(test_queue_sheds_when_full)
{
	report_queue_t *q = report_service_attach_consumer(svc);
	report_t got[8];
	message_t m;

	for (int i = 1; i <= 3; i++) {
		m = progress_msg(JOB, i);
		ck_assert_str_eq(send_as(OWNER, &m, NULL), "ok");
	}
	m = progress_msg(JOB, 4);
	ck_assert_str_eq(send_as(OWNER, &m, NULL), "busy");
	ck_assert_ptr_nonnull(strstr(out.reason, "queue full"));
	ck_assert_uint_eq(report_queue_drain(q, got, 8), 3);
	ck_assert_uint_eq(got[2].progress.step, 3);
	ck_assert_uint_eq(got[0].uid, OWNER);
	ck_assert_double_eq(got[0].received, NOW);
	m = progress_msg(JOB, 5);
	ck_assert_str_eq(send_as(OWNER, &m, NULL), "ok");
}
END_TEST

START_TEST(test_query_callback_replaces_history)
{
	message_t q = { .type = MSG_QUERY, .nonce = next_nonce++,
			.sent = (int64_t)NOW, .query = { QUERY_PLAN, 0 } };
	json_object *res;

	ck_assert_str_eq(send_as(OTHER, &q, &res), "ok");
	ck_assert_str_eq(json_object_get_string(json_object_object_get(res,
		"planner")), "none");
	json_object_put(res);
	report_service_set_query(svc, custom_query);
	q.nonce = next_nonce++;
	ck_assert_str_eq(send_as(OTHER, &q, &res), "ok");
	ck_assert_str_eq(json_object_get_string(json_object_object_get(res,
		"planner")), "custom");
	ck_assert_int_eq(custom_calls, 1);
	json_object_put(res);
}
END_TEST

static json_object *planner_like(const query_t *q, const report_viewer_t *v)
{
	json_object *o;

	if (q->kind == QUERY_JOB && q->job_id != JOB)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "job_id", json_object_new_int64(JOB));
	json_object_object_add(o, "jobs", json_object_new_array());
	return o;
}

/*
 * One source of truth for a job's reports. Once a consumer (the
 * planner) drains the queue, the service keeps no copy of its own: the
 * report is queued only, and the callback's answer is the answer, never
 * completed key by key from a second store.
 */
START_TEST(test_consumer_reports_have_one_home)
{
	report_queue_t *queue = report_service_attach_consumer(svc);
	message_t m = progress_msg(JOB, 10);
	message_t q = { .type = MSG_QUERY, .sent = (int64_t)NOW,
			.query = { QUERY_JOB, JOB } };
	json_object *res;
	report_t got[4];

	ck_assert_str_eq(send_as(OWNER, &m, NULL), "ok");
	ck_assert_uint_eq(report_queue_drain(queue, got, 4), 1);
	ck_assert_uint_eq(report_history_jobs(report_service_history(svc)), 0);
	report_service_set_query(svc, planner_like);
	q.nonce = next_nonce++;
	ck_assert_str_eq(send_as(OWNER, &q, &res), "ok");
	ck_assert(json_object_object_get_ex(res, "job_id", NULL));
	ck_assert(!json_object_object_get_ex(res, "progress", NULL));
	json_object_put(res);
	q.query = (query_t){ QUERY_STATUS, 0, 0 };
	q.nonce = next_nonce++;
	ck_assert_str_eq(send_as(OWNER, &q, &res), "ok");
	ck_assert(!json_object_object_get_ex(res, "reporting", NULL));
	json_object_put(res);
}
END_TEST

/* A planner with one job of OWNER (JOB) and one of OTHER (43), its
 * per-job series asked for (MetricsPerJob=yes). */
static int two_owners(metrics_t *m)
{
	metrics_job_t *j;

	m->planner = true;
	m->per_job = true;
	if (!(j = metrics_add_job(m)))
		return -1;
	j->job_id = JOB, j->uid = OWNER, j->ps = 1;
	if (!(j = metrics_add_job(m)))
		return -1;
	j->job_id = 43, j->uid = OTHER, j->ps = 2;
	return 0;
}

/* The metrics text uid is given. */
static char *metrics_as(uid_t uid)
{
	message_t q = { .type = MSG_QUERY, .nonce = next_nonce++,
			.sent = (int64_t)NOW, .query = { QUERY_METRICS, 0 } };
	json_object *res, *lines;
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	ck_assert_str_eq(send_as(uid, &q, &res), "ok");
	ck_assert(json_object_object_get_ex(res, "lines", &lines));
	for (size_t i = 0; i < json_object_array_length(lines); i++)
		fprintf(f, "%s\n", json_object_get_string(
				json_object_array_get_idx(lines, i)));
	fclose(f);
	json_object_put(res);
	return text;
}

/*
 * The metrics query counts what the service accepted and refused,
 * and shows a job's series only to its owner and the administrators (the
 * rule of the job queries); the scheduler's figures to everyone.
 */
START_TEST(test_metrics_count_and_show_own_jobs_only)
{
	message_t m = progress_msg(JOB, 10);
	char *t;

	ck_assert_str_eq(send_as(OWNER, &m, NULL), "ok");
	m = progress_msg(JOB, 11);
	ck_assert_str_eq(send_as(OTHER, &m, NULL), "forbidden");
	t = metrics_as(OWNER);
	ck_assert_ptr_nonnull(strstr(t,
		"optimus_reports_accepted_total{type=\"progress\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(t,
		"optimus_reports_refused_total{reason=\"forbidden\"} 1\n"));
	/* no planner yet: no scheduler or job figures */
	ck_assert_ptr_null(strstr(t, "optimus_plans_total"));
	free(t);
	report_service_set_metrics(svc, two_owners);
	t = metrics_as(OWNER);
	/* the query before this one is counted too */
	ck_assert_ptr_nonnull(strstr(t,
		"optimus_reports_accepted_total{type=\"query\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(t, "optimus_job_ps{job_id=\"42\"} 1\n"));
	ck_assert_ptr_null(strstr(t, "job_id=\"43\""));
	ck_assert_ptr_nonnull(strstr(t, "optimus_plans_total 0\n"));
	free(t);
	t = metrics_as(OTHER);
	ck_assert_ptr_null(strstr(t, "job_id=\"42\""));
	ck_assert_ptr_nonnull(strstr(t, "optimus_job_ps{job_id=\"43\"} 2\n"));
	free(t);
	t = metrics_as(SLURM_USER);
	ck_assert_ptr_nonnull(strstr(t, "optimus_job_ps{job_id=\"42\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(t, "optimus_job_ps{job_id=\"43\"} 2\n"));
	free(t);
	t = metrics_as(0);
	ck_assert_ptr_nonnull(strstr(t, "job_id=\"43\""));
	free(t);
}
END_TEST

/* A report naming a run that is over (the job requeued since) is refused
 * `old_run`; the current run's, or one naming no run, is taken. */
START_TEST(test_report_of_an_old_run_refused)
{
	message_t m = progress_msg(JOB, 10);

	m.report.has_run = 1;
	m.report.run = JOB_RUN - 1;
	ck_assert_str_eq(send_as(OWNER, &m, NULL), "old_run");
	m = progress_msg(JOB, 11);
	m.report.has_run = 1;
	m.report.run = JOB_RUN;
	ck_assert_str_eq(send_as(OWNER, &m, NULL), "ok");
	m = progress_msg(JOB, 12);
	ck_assert_str_eq(send_as(OWNER, &m, NULL), "ok");
}
END_TEST

static report_viewer_t seen_viewer;

static json_object *viewer_query(const query_t *q, const report_viewer_t *v)
{
	seen_viewer = *v;
	return json_object_new_object();
}

static size_t status_jobs_as(uid_t uid, bool *truncated, int64_t *total)
{
	message_t q = { .type = MSG_QUERY, .nonce = next_nonce++,
			.sent = (int64_t)NOW,
			.query = { QUERY_STATUS, 0, 0 } };
	json_object *res, *jobs;
	size_t n;

	ck_assert_str_eq(send_as(uid, &q, &res), "ok");
	ck_assert(json_object_object_get_ex(res, "jobs", &jobs));
	n = json_object_array_length(jobs);
	*truncated = json_object_get_boolean(json_object_object_get(
		res, "truncated"));
	*total = json_object_get_int64(json_object_object_get(res,
							      "jobs_total"));
	json_object_put(res);
	return n;
}

/*
 * `status` shows an ordinary user their own jobs only, root and SlurmUser
 * every job, at most status_max_jobs of them with "truncated"; the
 * planner's callback is told who asks.
 */
START_TEST(test_status_shows_own_jobs_bounded)
{
	report_service_conf_t c = REPORT_SERVICE_CONF_DEFAULT;
	report_callbacks_t cb = { .job_owner = job_owner };
	message_t m = progress_msg(JOB, 10),
		  q = { .type = MSG_QUERY, .sent = (int64_t)NOW,
			.query = { QUERY_STATUS, 0, 0 } };
	bool truncated;
	int64_t total;

	ck_assert_str_eq(send_as(OWNER, &m, NULL), "ok");
	m = progress_msg(FINISHED_JOB - 1, 10);	/* no such job: no_job */
	ck_assert_str_eq(send_as(OWNER, &m, NULL), "no_job");
	ck_assert_uint_eq(status_jobs_as(OTHER, &truncated, &total), 0);
	ck_assert(!truncated && total == 0);
	ck_assert_uint_eq(status_jobs_as(OWNER, &truncated, &total), 1);
	ck_assert_uint_eq(status_jobs_as(SLURM_USER, &truncated, &total), 1);
	/* the bound: a service that shows one job at most */
	report_service_destroy(svc);
	c.verify = fake_verify;
	c.admin_uid = SLURM_USER;
	c.status_max_jobs = 1;
	svc = report_service_create(&c, &cb);
	m = progress_msg(JOB, 10);
	ck_assert_str_eq(send_as(OWNER, &m, NULL), "ok");
	m = progress_msg(FINISHED_JOB, 10);	/* finished: refused */
	ck_assert_str_eq(send_as(OWNER, &m, NULL), "finished");
	ck_assert_uint_eq(status_jobs_as(0, &truncated, &total), 1);
	ck_assert(!truncated && total == 1);
	report_service_set_query(svc, viewer_query);
	q.nonce = next_nonce++;
	ck_assert_str_eq(send_as(OTHER, &q, NULL), "ok");
	ck_assert_uint_eq(seen_viewer.uid, OTHER);
	ck_assert(!seen_viewer.admin);
	ck_assert_uint_eq(seen_viewer.max_jobs, 1);
	ck_assert(!report_viewer_may_see(&seen_viewer, OWNER));
	ck_assert(report_viewer_may_see(&seen_viewer, OTHER));
	q.nonce = next_nonce++;
	ck_assert_str_eq(send_as(SLURM_USER, &q, NULL), "ok");
	ck_assert(seen_viewer.admin);
	ck_assert(report_viewer_may_see(&seen_viewer, OWNER));
}
END_TEST

/* The plugin's side of the reply: a batch change for JOB while its
 * reports are below step 100. */
static int rebatch_calls;

static int fake_rebatch(const report_t *r, report_rebatch_t *out)
{
	rebatch_calls++;
	if (r->job_id != JOB || r->kind != REPORT_PROGRESS ||
	    r->progress.step >= 100)
		return 0;
	*out = (report_rebatch_t){ 1024, 256, 1, 1.5 };
	return 1;
}

/* An accepted report's reply carries the job's batch change; a refused
 * one, a query's, and one for a job without a change carry none. */
START_TEST(test_report_reply_carries_a_rebatch)
{
	report_service_conf_t c = REPORT_SERVICE_CONF_DEFAULT;
	report_callbacks_t cb = { .job_owner = job_owner,
				  .rebatch = fake_rebatch };
	message_t m = progress_msg(JOB, 10);
	message_t q = { .type = MSG_QUERY, .sent = (int64_t)NOW,
			.query = { QUERY_STATUS } };
	report_rebatch_t rb;
	json_object *res;

	report_service_destroy(svc);
	c.verify = fake_verify;
	c.replay_capacity = 1024;
	c.replay_window = 60;
	svc = report_service_create(&c, &cb);
	ck_assert_ptr_nonnull(svc);
	rebatch_calls = 0;
	ck_assert_str_eq(send_as(OWNER, &m, &res), "ok");
	ck_assert_int_eq(protocol_reply_rebatch(res, &rb, NULL, 0), 1);
	ck_assert_uint_eq(rb.batch, 1024);
	ck_assert_uint_eq(rb.local_batch, 256);
	ck_assert_uint_eq(rb.accum, 1);
	ck_assert_double_eq(rb.lr_scale, 1.5);
	json_object_put(res);
	ck_assert_int_eq(rebatch_calls, 1);
	/* no change for it: an empty reply */
	m = progress_msg(JOB, 200);
	ck_assert_str_eq(send_as(OWNER, &m, &res), "ok");
	ck_assert_ptr_null(res);
	/* refused (another user's report): not asked */
	m = progress_msg(JOB, 10);
	ck_assert_str_eq(send_as(OTHER, &m, NULL), "forbidden");
	ck_assert_int_eq(rebatch_calls, 2);
	/* a query: not asked, no change in its answer */
	q.nonce = next_nonce++;
	ck_assert_str_eq(send_as(OWNER, &q, &res), "ok");
	ck_assert(!json_object_object_get_ex(res, "rebatch", NULL));
	json_object_put(res);
	ck_assert_int_eq(rebatch_calls, 2);
}
END_TEST

static Suite *service_suite(void)
{
	Suite *s = suite_create("report_service");
	TCase *tc = tcase_create("decisions");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_owner_reports_and_queries);
	tcase_add_test(tc, test_other_user_is_forbidden);
	tcase_add_test(tc, test_finished_job_refuses_reports);
	tcase_add_test(tc, test_report_the_record_refuses_is_rejected);
	tcase_add_test(tc, test_replay_and_stale);
	tcase_add_test(tc, test_forged_and_malformed);
	tcase_add_test(tc, test_queue_sheds_when_full);
	tcase_add_test(tc, test_query_callback_replaces_history);
	tcase_add_test(tc, test_consumer_reports_have_one_home);
	tcase_add_test(tc, test_metrics_count_and_show_own_jobs_only);
	tcase_add_test(tc, test_report_of_an_old_run_refused);
	tcase_add_test(tc, test_status_shows_own_jobs_bounded);
	tcase_add_test(tc, test_report_reply_carries_a_rebatch);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(service_suite());
}

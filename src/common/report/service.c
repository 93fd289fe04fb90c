/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * report/service.c - the listener's decisions, one request at a time
 * (report/service.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/replay_cache.h"
#include "report/run.h"
#include "report/service.h"
#include "util/names.h"
#include "util/prom_text.h"

typedef json_object *(*query_fn)(const query_t *, const report_viewer_t *);
typedef int (*metrics_fn)(metrics_t *);

/* Accepted requests are counted by message type ... */
static const char *const type_names[] = {
	[MSG_PROGRESS] = "progress", [MSG_SPEED] = "speed",
	[MSG_QUERY] = "query", [MSG_CHECKPOINT] = "checkpoint",
	[MSG_WORKER] = "worker", [MSG_GRADIENTS] = "gradients",
};
#define NTYPES NAMES_COUNT(type_names)

/* ... refused ones by their code (report_outcome_t.code); a code not
 * listed is counted as "other". */
static const char *const refusal_codes[] = {
	"bad_request", "too_large", "invalid", "replayed", "expired", "stale",
	"forbidden", "no_job", "finished", "rejected", "old_run", "busy",
	"unavailable", "error", "other",
};
#define NREFUSALS NAMES_COUNT(refusal_codes)

struct report_service {
	report_service_conf_t conf;
	report_callbacks_t cb;
	_Atomic(query_fn) query;
	_Atomic(metrics_fn) metrics;
	double start_time;		/* counting began */
	atomic_uint_fast64_t accepted[NTYPES], refused[NREFUSALS];
	atomic_bool consumer;
	pthread_mutex_t replay_lock;
	replay_cache_t *replay;
	report_queue_t *queue;
	report_history_t *history;
};

report_service_t *report_service_create(const report_service_conf_t *conf,
					const report_callbacks_t *cb)
{
	report_service_t *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->conf = *conf;
	if (!s->conf.status_max_jobs)
		s->conf.status_max_jobs = REPORT_STATUS_MAX_JOBS_DEFAULT;
	if (!s->conf.verify)
		s->conf.verify = munge_auth_verify;
	s->cb = *cb;
	atomic_init(&s->query, cb->query);
	atomic_init(&s->metrics, NULL);
	s->start_time = (double)time(NULL);
	atomic_init(&s->consumer, false);
	pthread_mutex_init(&s->replay_lock, NULL);
	s->replay = replay_cache_create(conf->replay_capacity, conf->replay_window);
	s->queue = report_queue_create(conf->queue_capacity);
	s->history = report_history_create(conf->history_jobs,
					   conf->history_per_job);
	if (!s->replay || !s->queue || !s->history || !cb->job_owner) {
		report_service_destroy(s);
		return NULL;
	}
	return s;
}

void report_service_destroy(report_service_t *s)
{
	if (!s)
		return;
	replay_cache_destroy(s->replay);
	report_queue_destroy(s->queue);
	report_history_destroy(s->history);
	pthread_mutex_destroy(&s->replay_lock);
	free(s);
}

void report_service_set_query(report_service_t *s, query_fn query)
{
	atomic_store(&s->query, query);
}

void report_service_set_metrics(report_service_t *s, metrics_fn fn)
{
	atomic_store(&s->metrics, fn);
}

void report_service_count(report_service_t *s, const report_outcome_t *out)
{
	int k;

	if (out->accepted) {
		if ((unsigned)out->type < NTYPES && type_names[out->type])
			atomic_fetch_add(&s->accepted[out->type], 1);
		return;
	}
	k = names_find(refusal_codes, NREFUSALS, out->code, false);
	atomic_fetch_add(&s->refused[k < 0 ? NREFUSALS - 1 : (size_t)k], 1);
}

void report_service_counts(report_service_t *s, metrics_channel_t *c)
{
	memset(c, 0, sizeof(*c));
	c->start_time = s->start_time;
	for (size_t t = 0; t < NTYPES; t++)
		if (type_names[t])
			c->accepted[c->naccepted++] = (metrics_count_t){
				type_names[t], atomic_load(&s->accepted[t]) };
	for (size_t k = 0; k < NREFUSALS; k++)
		c->refused[c->nrefused++] = (metrics_count_t){
			refusal_codes[k], atomic_load(&s->refused[k]) };
}

report_queue_t *report_service_attach_consumer(report_service_t *s)
{
	atomic_store(&s->consumer, true);
	return s->queue;
}

report_history_t *report_service_history(report_service_t *s)
{
	return s->history;
}

/* Record a refusal in *out and build its error reply. */
static char *refuse(report_outcome_t *out, const char *code,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static char *refuse(report_outcome_t *out, const char *code,
		    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
	va_end(ap);
	out->accepted = 0;
	out->code = code;
	return protocol_reply_error(code, "%s", out->reason);
}

static int is_admin(const report_service_t *s, uid_t uid)
{
	return uid == 0 || uid == s->conf.admin_uid;
}

/* Who asks: uid, and what a reply may show them (report/viewer.h). */
static report_viewer_t viewer_of(const report_service_t *s, uid_t uid)
{
	return (report_viewer_t){ .uid = uid, .admin = is_admin(s, uid),
				  .max_jobs = s->conf.status_max_jobs };
}

/* Who may see (and report for) a job: report/viewer.c's one rule. */
static bool may_see(const report_service_t *s, uid_t uid, uid_t owner)
{
	report_viewer_t v = viewer_of(s, uid);

	return report_viewer_may_see(&v, (uint32_t)owner);
}

/*
 * NULL when uid may act on job_id, else the refusal reply. A finished
 * job's record is final (its steps, loss and completion time are what
 * accounting keeps): a report for it is refused, a query answered. A
 * report naming a run that is over (its job requeued since: by a resize,
 * a preemption, a fault or its owner) is refused: it is about a run the
 * record no longer follows (report/run.h).
 */
static char *authorize(report_service_t *s, uint32_t job_id, uid_t uid,
		       const report_t *report, report_outcome_t *out)
{
	uid_t owner;
	uint32_t run = 0;
	int rc = s->cb.job_owner(job_id, &owner, &run);

	if (rc < 0)
		return refuse(out, "no_job", "job %u does not exist", job_id);
	if (!may_see(s, uid, owner))
		return refuse(out, "forbidden", "uid %u does not own job %u "
			      "(owner uid %u)", (unsigned)uid, job_id,
			      (unsigned)owner);
	if (report && rc == 1)
		return refuse(out, "finished", "job %u has finished: its "
			      "record is final and takes no more reports",
			      job_id);
	if (report && report_run_verdict(report, run) == REPORT_RUN_STALE)
		return refuse(out, "old_run", "%s report of run %u dropped: "
			      "the job's current run is %u",
			      protocol_report_name(report->kind),
			      (unsigned)report->run, (unsigned)run);
	return NULL;
}

static char *check_replay(report_service_t *s, const message_t *m, uid_t uid,
			  double now, report_outcome_t *out)
{
	replay_verdict_t v;

	pthread_mutex_lock(&s->replay_lock);
	v = replay_cache_check(s->replay, uid, m->nonce, m->sent, (int64_t)now);
	pthread_mutex_unlock(&s->replay_lock);
	switch (v) {
	case REPLAY_FRESH:
		return NULL;
	case REPLAY_SEEN:
		return refuse(out, "replayed", "message nonce %016llx from uid "
			      "%u seen before", (unsigned long long)m->nonce,
			      (unsigned)uid);
	case REPLAY_STALE:
		return refuse(out, "stale", "message sent at %lld is outside "
			      "the %us window around %lld", (long long)m->sent,
			      s->conf.replay_window, (long long)now);
	default:
		return refuse(out, "busy", "replay cache full; retry later");
	}
}

/* What an accepted report's reply carries: a batch change for its job
 * (the plugin's answer), or nothing (NULL). */
static json_object *report_result(const report_service_t *s,
				  const report_t *r)
{
	report_rebatch_t rb;
	json_object *o, *v;

	if (!s->cb.rebatch || s->cb.rebatch(r, &rb) != 1)
		return NULL;
	o = json_object_new_object();
	v = protocol_rebatch_to_json(&rb);
	if (!o || !v) {
		json_object_put(o);
		json_object_put(v);
		return NULL;
	}
	json_object_object_add(o, "rebatch", v);
	return o;
}

static char *serve_report(report_service_t *s, message_t *m, uid_t uid,
			  double now, report_outcome_t *out)
{
	report_t *r = &m->report;

	r->uid = uid;
	r->received = now;
	/* One home per report: the consumer's (the planner's registry), or,
	 * while nobody consumes, the service's own history. */
	if (atomic_load(&s->consumer)) {
		if (report_queue_push(s->queue, r) != 0) {
			/* not accepted: its nonce must not hold a replay slot */
			pthread_mutex_lock(&s->replay_lock);
			replay_cache_forget(s->replay, uid, m->nonce,
					    (int64_t)now);
			pthread_mutex_unlock(&s->replay_lock);
			return refuse(out, "busy", "report queue full for uid "
				      "%u (%zu of its reports and %zu in all "
				      "waiting; a user's share is at most half "
				      "of %zu); retry later", (unsigned)uid,
				      report_queue_held(s->queue, uid),
				      report_queue_length(s->queue),
				      report_queue_capacity(s->queue));
		}
	} else if (report_history_add(s->history, r) != 0) {
		return refuse(out, "error", "out of memory");
	}
	out->accepted = 1;
	out->code = "ok";
	return protocol_reply_ok(report_result(s, r));
}

json_object *report_service_history_query(report_service_t *s,
					  const query_t *q,
					  const report_viewer_t *v)
{
	json_object *o;

	switch (q->kind) {
	case QUERY_JOB:
		o = report_history_job_json(s->history, q->job_id);
		if (!o && (o = json_object_new_object())) {
			json_object_object_add(o, "job",
					       json_object_new_int64(q->job_id));
			json_object_object_add(o, "reports",
					       json_object_new_int(0));
		}
		return o;
	case QUERY_PLAN:
		o = report_history_status_json(s->history, v);
		if (o)
			json_object_object_add(o, "planner",
					       json_object_new_string("none"));
		return o;
	default:
		return report_history_status_json(s->history, v);
	}
}

struct viewer {
	const report_service_t *s;
	uid_t uid;
};

static bool viewer_may_see(uint32_t owner, void *arg)
{
	const struct viewer *v = arg;

	return may_see(v->s, v->uid, (uid_t)owner);
}

/*
 * The text as {"content_type": ..., "lines": [each line without its
 * newline]}: a reply's strings go through the rule for user text
 * (json_strict), which would turn a newline into "\n"; a line holds none
 * of the characters it escapes, so it travels as it is.
 */
static json_object *metrics_lines(const char *text, size_t len)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();

	if (!o || !a) {
		json_object_put(o);
		json_object_put(a);
		return NULL;
	}
	for (size_t i = 0; i < len;) {
		size_t n = strcspn(text + i, "\n");

		json_object_array_add(a, json_object_new_string_len(text + i,
								    (int)n));
		i += n + 1;
	}
	json_object_object_add(o, "content_type",
			       json_object_new_string(PROM_TEXT_CONTENT_TYPE));
	json_object_object_add(o, "lines", a);
	return o;
}

/* The metrics query's answer (metrics_lines): the jobs' series only of the
 * jobs uid may see; NULL on failure. */
static json_object *metrics_answer(report_service_t *s, uid_t uid)
{
	metrics_fn fn = atomic_load(&s->metrics);
	struct viewer v = { s, uid };
	metrics_channel_t c;
	metrics_t m = { 0 };
	json_object *o = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	report_service_counts(s, &c);
	if (fn && fn(&m) < 0) {
		metrics_free(&m);
		return NULL;
	}
	if (!(f = open_memstream(&text, &len))) {
		metrics_free(&m);
		return NULL;
	}
	rc = metrics_render(f, &c, &m, viewer_may_see, &v);
	if (fclose(f) == 0 && rc == 0)
		o = metrics_lines(text, len);
	free(text);
	metrics_free(&m);
	return o;
}

static char *serve_query(report_service_t *s, const query_t *q, uid_t uid,
			 report_outcome_t *out)
{
	query_fn fn = atomic_load(&s->query);
	report_viewer_t v = viewer_of(s, uid);
	json_object *result;

	if (q->kind == QUERY_METRICS)
		result = metrics_answer(s, uid);
	else
		result = fn ? fn(q, &v) :
			      report_service_history_query(s, q, &v);
	if (q->kind == QUERY_JOB)
		result = protocol_job_page(result, q->points);
	if (!result)
		return refuse(out, "error", "the %s query failed",
			      protocol_query_name(q->kind));
	out->accepted = 1;
	out->code = "ok";
	return protocol_reply_ok(result);
}

/* After the credential: the message itself. */
static char *serve_payload(report_service_t *s, const char *payload,
			   uid_t uid, double now, report_outcome_t *out)
{
	message_t m;
	char err[256], *deny;

	if (protocol_message_parse(payload, strlen(payload), &m, err, sizeof(err)))
		return refuse(out, "bad_request", "%s", err);
	out->type = m.type;
	out->job_id = m.type == MSG_QUERY ? m.query.job_id : m.report.job_id;
	/* Every other check first: a nonce is remembered only for a request
	 * that is served, so refused requests (no_job, forbidden) take no
	 * replay slot. */
	if ((m.type != MSG_QUERY || m.query.kind == QUERY_JOB) &&
	    (deny = authorize(s, out->job_id, uid,
			      m.type != MSG_QUERY ? &m.report : NULL, out)))
		return deny;
	/* A report the job's record would refuse is refused now, to its
	 * sender: the planner, which feeds the queue later, answers nobody. */
	if (m.type != MSG_QUERY && s->cb.admit &&
	    s->cb.admit(&m.report, err, sizeof(err)))
		return refuse(out, "rejected", "%s", err);
	if ((deny = check_replay(s, &m, uid, now, out)))
		return deny;
	if (m.type == MSG_QUERY)
		return serve_query(s, &m.query, uid, out);
	return serve_report(s, &m, uid, now, out);
}

char *report_service_handle(report_service_t *s, const char *body,
			    size_t len, double now, report_outcome_t *out)
{
	char *payload, *cred, *reply, err[256];
	munge_auth_status_t st;
	uid_t uid;

	memset(out, 0, sizeof(*out));
	out->uid = (uid_t)-1;
	if (protocol_envelope_parse(body, len, &payload, &cred, err,
				    sizeof(err))) {
		reply = refuse(out, "bad_request", "%s", err);
		report_service_count(s, out);
		return reply;
	}
	st = s->conf.verify(s->conf.munge_socket, cred, payload,
			    strlen(payload), &uid, err, sizeof(err));
	if (st != MUNGE_AUTH_OK)
		reply = refuse(out, st == MUNGE_AUTH_MISMATCH ? "invalid" :
			       munge_auth_status_name(st), "%s", err);
	else {
		out->uid = uid;
		reply = serve_payload(s, payload, uid, now, out);
	}
	free(payload);
	free(cred);
	report_service_count(s, out);
	return reply;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * protocol.h - the report/query wire protocol between training jobs,
 * optimusctl and the sched/optimus listener (see doc/design/reports.md).
 *
 * A frame is a 4-byte big-endian length followed by that many bytes of JSON
 * text: a request at most PROTOCOL_MAX_FRAME (the listener's bound on what
 * a stranger can make it allocate), a reply at most PROTOCOL_MAX_REPLY (the
 * client's bound; a job query may also ask for only the last "points"
 * points of each series). A request frame holds an envelope
 *     {"payload": "<message JSON text>", "cred": "MUNGE:..."}
 * where cred is a munge credential whose data is exactly the payload text, so
 * the payload is bound to the credential (and to the sender's uid).
 * Messages (the payload):
 *     {"v":1,"type":"progress","job":N,"step":S,"loss":L,"sps":X[,"epoch":E]
 *      [,"batch":B[,"rebatch_seconds":R]][,"sync_seconds":Y],
 *      "nonce":"<16 hex>","time":T}
 *     {"v":1,"type":"speed","job":N,"ps":P,"workers":W,"steps_per_sec":X
 *      [,"local_batch":L,"accum":K[,"sync_seconds":Y]],...}
 *     {"v":1,"type":"checkpoint","job":N,"step":S,...}
 *     {"v":1,"type":"worker","job":N,"rank":R,"node":"<name>",
 *      "step_time":T[,"lag":L],...}
 *     {"v":1,"type":"gradients","job":N,"grad_sqr":G,"grad_var":V,
 *      "var_batch":B,...}
 *     {"v":1,"type":"query","query":"status"|"job"|"plan"|"metrics"[,"job":N],...}
 * Every report may name its run, "run":R (0 to PROTOCOL_MAX_RUN: the
 * job's SLURM_RESTART_COUNT when it was sent); one without it is taken
 * as from whichever run is going (clients that do not say it;
 * report/run.h).
 * Replies are not authenticated: {"ok":true,"result":{...}} or
 *     {"ok":false,"code":"<word>","error":"<text>"}.
 * The reply to a report may carry a batch change for the job, taken in
 * place (report_rebatch_t): {"ok":true,"result":{"rebatch":{"batch":B,
 * "local_batch":L,"accum":K,"lr_scale":S}}}.
 * Everything here is pure: no I/O, no Slurm, no munge.
 */
#ifndef OPTIMUS_PROTOCOL_H
#define OPTIMUS_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <json-c/json.h>

#define PROTOCOL_VERSION 1
#define PROTOCOL_HEADER_LEN 4
/* Bounds every allocation a peer can cause; a report is ~200 bytes. */
#define PROTOCOL_MAX_FRAME (64 * 1024)
/*
 * The largest step (or count of seconds) a report may carry. json-c
 * saturates integers that overflow int64 to INT64_MAX; any bound below that
 * turns such a silently wrong value into a refusal. 2^53 steps or seconds
 * is far beyond any real value. The state file stores and restores every
 * value a report may set: it reads against the same bound.
 */
#define PROTOCOL_MAX_COUNT (INT64_C(1) << 53)
/* The most estimates one gradients report stands for: beyond a few dozen
 * the record's average is the reported value to the last bit. */
#define PROTOCOL_MAX_ESTIMATES 1000000
/*
 * The largest step a report may carry (progress, checkpoint), the fastest
 * speed in steps per second, and the bound of every count of steps the
 * record adds up from reports (a run's steps, an adaptive job's progress):
 * one bound, that the parser checks here and the state file's loader
 * checks again (job/job_model_json.c). 2^50 is far below 2^53, where a
 * double stops holding every integer, so that a sum saturated at it stays
 * exact and loads back (steps near 2^53, then smaller ones after a
 * restart, would sum past what a double counts exactly).
 */
#define PROTOCOL_MAX_STEP (INT64_C(1) << 50)

/* Replies come from the scheduler: a job's full answer is some 100 bytes
 * per kept point (a few thousand at most); 64 MiB is far above that. */
#define PROTOCOL_MAX_REPLY (64 * 1024 * 1024)
/* The largest run a report may name: Slurm counts a job's restarts in 16
 * bits (job_record_t.restart_cnt). */
#define PROTOCOL_MAX_RUN UINT16_MAX
/* The largest "points" a job query may ask for. */
#define PROTOCOL_MAX_POINTS 1000000
/* The most extra micro-steps a speed report or a batch change names: the
 * most a job may accumulate (hints.h's HINTS_MAX_ACCUM; job/job_batch.c
 * asserts they are one number). */
#define PROTOCOL_MAX_ACCUM 64
/*
 * The all-reduce part of a step a job says (sync_seconds): the step's
 * time less its compute, as the job timed it (a micro-step without the
 * all-reduce, or the wait after its last gradient). The goodput model
 * fits its compute and all-reduce terms on the two parts
 * (models/goodput.h). An hour bounds it as rebatch_seconds is bounded.
 */
#define PROTOCOL_MAX_SYNC_SECONDS 3600.0
/* The bounds of a batch change's learning-rate factor. */
#define PROTOCOL_LR_SCALE_MIN 1e-12
#define PROTOCOL_LR_SCALE_MAX 1e12
typedef enum msg_type {
	MSG_PROGRESS = 1,
	MSG_SPEED = 2,
	MSG_QUERY = 3,
	MSG_CHECKPOINT = 4,
	MSG_WORKER = 5,
	MSG_GRADIENTS = 6,
} msg_type_t;

typedef enum query_kind {
	QUERY_STATUS = 1,
	QUERY_JOB = 2,
	QUERY_PLAN = 3,
	QUERY_METRICS = 4,	/* Prometheus text (report/metrics.h) */
} query_kind_t;

typedef struct query {
	query_kind_t kind;
	uint32_t job_id;	/* QUERY_JOB only */
	uint32_t points;	/* QUERY_JOB: last N points per series, 0 all */
} query_t;

/* A validated report, as the planner drains it from the report queue. */
typedef enum report_kind {
	REPORT_PROGRESS = 1,
	REPORT_SPEED = 2,
	REPORT_CHECKPOINT = 3,
	REPORT_WORKER = 4,
	REPORT_GRADIENTS = 5,
} report_kind_t;

typedef struct report_progress {
	uint64_t step;		/* training step (iteration) count so far */
	double loss;		/* training loss at that step, finite, >= 0 */
	double samples_per_sec;	/* throughput, finite, >= 0 */
	int32_t epoch;		/* -1 when not given */
	/*
	 * Optional: the global batch the run trains at now (0: not said),
	 * said by a trainer that takes a batch change in place (the reply's
	 * "rebatch"); with it, rebatch_seconds (>= 0; < 0: not said): how
	 * long its change to this batch took, as it timed it.
	 */
	uint64_t batch;
	double rebatch_seconds;
	/* Optional (0: not said): the all-reduce part of the run's steps,
	 * in seconds, as the job timed it (PROTOCOL_MAX_SYNC_SECONDS). */
	double sync_seconds;
} report_progress_t;

typedef struct report_speed {
	uint32_t ps;		/* parameter servers p */
	uint32_t workers;	/* workers w (> 0) */
	double steps_per_sec;	/* measured training speed f(p, w) */
	/* Optional: the per-worker batch and extra accumulation micro-steps
	 * the speed was measured at (a step time of any batch, for the
	 * goodput model; 0: the run's own batch, not given). */
	uint32_t local_batch;
	uint32_t accum;
	/* Optional, with local_batch (0: not said): the all-reduce part of
	 * that step, below its time 1 / steps_per_sec. */
	double sync_seconds;
} report_speed_t;

/*
 * The job wrote the checkpoint the scheduler asked for (its checkpoint
 * signal) and may be stopped now: the requeue need not wait for the end of
 * the checkpoint grace period.
 */
typedef struct report_checkpoint {
	uint64_t step;		/* training step the checkpoint holds */
} report_checkpoint_t;

/*
 * One worker's own pace, for straggler detection (models/straggler.h):
 * sent by every worker now and then (rate-limited by the clients), or by a
 * parameter server for the worker whose gradients it waits for.
 */
#define REPORT_NODE_LEN 64
typedef struct report_worker {
	uint32_t rank;		/* the worker's rank among the job's workers */
	char node[REPORT_NODE_LEN];	/* node it runs on (SLURMD_NODENAME) */
	double step_time;	/* its own seconds per step (compute), > 0 */
	double lag;		/* gradient arrival lag seen by a PS, >= 0 */
} report_worker_t;

/*
 * Gradient statistics of a data-parallel job, for its statistical
 * efficiency (models/efficiency.h): the squared norm of the true gradient
 * and the variance of a gradient averaged over var_batch examples, as the
 * Python module's GradientStats estimates them across the replicas.
 */
typedef struct report_gradients {
	double grad_sqr;	/* |G|^2, finite, >= 0 */
	double grad_var;	/* tr(Sigma) / var_batch, finite, >= 0 */
	double var_batch;	/* examples grad_var is of, finite, > 0 */
	/* How many estimates of these same values the report stands for
	 * (a trainer estimating every few steps sends their run at once),
	 * 1..PROTOCOL_MAX_ESTIMATES; 0 is taken as 1. */
	uint32_t estimates;
} report_gradients_t;

typedef struct report {
	report_kind_t kind;
	uint32_t job_id;
	uid_t uid;		/* from the munge credential */
	double received;	/* listener's wall clock, seconds since epoch */
	/* The run the sender belongs to (its SLURM_RESTART_COUNT), when it
	 * says (has_run): a run's late reports are told from the current
	 * run's (report/run.h). */
	int has_run;
	uint32_t run;
	union {
		report_progress_t progress;	/* REPORT_PROGRESS */
		report_speed_t speed;		/* REPORT_SPEED */
		report_checkpoint_t checkpoint;	/* REPORT_CHECKPOINT */
		report_worker_t worker;		/* REPORT_WORKER */
		report_gradients_t gradients;	/* REPORT_GRADIENTS */
	};
} report_t;

/*
 * A batch change for the job, sent in the reply to its report: the job
 * trains at `batch` (global) from its next step, `local_batch` per worker
 * and pass, `accum` extra micro-steps (batch = local_batch x workers x
 * (accum + 1), at the workers it has), the learning rate it tuned at its
 * submitted batch times lr_scale. doc/design/reports.md "Re-batch in place".
 */
typedef struct report_rebatch {
	uint64_t batch;
	uint32_t local_batch, accum;
	double lr_scale;
} report_rebatch_t;

typedef struct message {
	msg_type_t type;
	uint64_t nonce;		/* random per message: replay detection */
	int64_t sent;		/* sender's clock, seconds since epoch */
	report_t report;	/* MSG_PROGRESS, _SPEED, _CHECKPOINT, _WORKER,
				 * _GRADIENTS (no uid, received) */
	query_t query;		/* MSG_QUERY */
} message_t;

/* Frame header. decode: 0, or -EMSGSIZE when len is 0 or >
 * PROTOCOL_MAX_FRAME (a request); _max: > max (a reply: PROTOCOL_MAX_REPLY). */
void protocol_header_encode(uint32_t len, uint8_t out[PROTOCOL_HEADER_LEN]);
int protocol_header_decode(const uint8_t in[PROTOCOL_HEADER_LEN], uint32_t *len);
int protocol_header_decode_max(const uint8_t in[PROTOCOL_HEADER_LEN],
			       uint32_t max, uint32_t *len);

/* Envelope. parse: 0 with malloc'd *payload and *cred, or -EBADMSG. */
int protocol_envelope_parse(const char *text, size_t len, char **payload,
			    char **cred, char *err, size_t errlen);
char *protocol_envelope_build(const char *payload, const char *cred);

/* Message: parse validates every field; 0 or -EBADMSG with a reason. */
int protocol_message_parse(const char *text, size_t len, message_t *m,
			   char *err, size_t errlen);
char *protocol_message_build(const message_t *m);

/* Replies (malloc'd text). reply_ok takes ownership of result (may be NULL). */
char *protocol_reply_ok(json_object *result);
char *protocol_reply_error(const char *code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* 0 with *result (owned by caller, may be NULL) when ok; -EPROTO when the
 * reply is an error (err holds "code: text"); -EBADMSG when unparsable. */
int protocol_reply_parse(const char *text, size_t len, json_object **result,
			 char *err, size_t errlen);
/* The "rebatch" of a report's reply: its JSON (add it to the result);
 * NULL on no memory. */
json_object *protocol_rebatch_to_json(const report_rebatch_t *rb);
/* The "rebatch" of a parsed reply's result (may be NULL): 1 with *out,
 * 0 when there is none, -EBADMSG with a reason when it is malformed. */
int protocol_reply_rebatch(json_object *result, report_rebatch_t *out,
			   char *err, size_t errlen);

/* A job answer cut to the last `points` items of each point series
 * ("progress", "speed_samples", "convergence"."points"); 0 keeps all.
 * Returns job. */
json_object *protocol_job_page(json_object *job, uint32_t points);

/* JSON forms used by queries and tools. */
json_object *protocol_report_to_json(const report_t *r);
/* Back from protocol_report_to_json: 0, or -EBADMSG with a reason. */
int protocol_report_from_json(json_object *o, report_t *r, char *err,
			      size_t errlen);
const char *protocol_report_name(report_kind_t kind);
const char *protocol_query_name(query_kind_t kind);
int protocol_query_parse_name(const char *name, query_kind_t *kind);

#endif

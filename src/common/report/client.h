/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * report/client.h - send progress/speed reports and queries to the
 * sched/optimus listener (client side of protocol.h).
 *
 * Where the listener is: $OPTIMUS_REPORT_ADDR ("host:port"), else
 * ReportAddress/ReportPort of optimus.conf beside slurm.conf
 * ($SLURM_CONF, else /etc/slurm/slurm.conf), read by report/conf.h as
 * sched/optimus reads them, with Slurm's grammar (util/conf_file.h);
 * ReportAddress 0.0.0.0 means slurmctld's
 * hosts: every SlurmctldHost line, the primary first, then the backups.
 * munged's socket: $MUNGE_SOCKET, else AuthInfo=socket=... of slurm.conf,
 * else munge's default.
 *
 * Retries: a request that could not be delivered (no connection, the
 * listener closed it, or a "busy" refusal) is signed afresh and sent again
 * after a bounded, jittered exponential backoff (REPORT_RETRY_*); a
 * refusal on the merits (forbidden, no_job, bad_request, ...) is final.
 *
 * The Python client (python/optimus_report.py) takes this file's constants
 * (and conf.h's, protocol.h's, conf_file.h's) from optimus_report_consts.py,
 * which the build writes from them (src/tools/report_consts_py.c), and
 * testsuite/offline/test_client_rules.py holds its rules (endpoint, run,
 * grammar, reply) to this client's answers.
 */
#ifndef OPTIMUS_REPORT_CLIENT_H
#define OPTIMUS_REPORT_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "report/conf.h"
#include "report/protocol.h"

typedef struct report_client report_client_t;

/* Controllers tried in order (SlurmctldHost lines; Slurm allows 10). */
#define REPORT_MAX_HOSTS 10
/* A host name's room in an endpoint, its terminating NUL included. */
#define REPORT_HOST_MAX 256
/* How long each connect and each reply waits unless the caller says
 * (the tools' --timeout, the Python Reporter's timeout=). */
#define REPORT_TIMEOUT_MS 5000
/* Attempts per request and the backoff between them: 100 ms doubling up
 * to 2 s, each wait drawn in [d/2, d]: at most ~10 s in all. */
#define REPORT_RETRY_ATTEMPTS 8
#define REPORT_RETRY_BASE_MS 100
#define REPORT_RETRY_MAX_MS 2000

typedef struct report_endpoint {
	char hosts[REPORT_MAX_HOSTS][REPORT_HOST_MAX];	/* primary first */
	size_t nhosts;
	uint16_t port;
	char munge_socket[1024];	/* "" for munge's default */
} report_endpoint_t;

/* Fill ep from the environment and configuration files (see above). */
int report_endpoint_resolve(report_endpoint_t *ep, char *err, size_t errlen);

/* Connect to the first host of ep that answers (timeout in ms for each
 * connect and each reply). NULL with a reason. */
report_client_t *report_client_connect(const report_endpoint_t *ep,
				       int timeout_ms, char *err, size_t errlen);
void report_client_close(report_client_t *c);

/* Stamp m (nonce, time), sign it and send it; wait for the reply.
 * 0 with *result (may be NULL; caller puts it), or a negative errno with
 * a reason ("code: text" when the listener refused it: -EPROTO). */
int report_client_request(report_client_t *c, message_t *m,
			  json_object **result, char *err, size_t errlen);

/* The whole request as the tools and the small API make it: connect,
 * send, read the reply, retrying as described above up to `attempts`
 * times (<= 0: REPORT_RETRY_ATTEMPTS). Same results as
 * report_client_request(). */
int report_client_call(const report_endpoint_t *ep, message_t *m,
		       int timeout_ms, int attempts, json_object **result,
		       char *err, size_t errlen);

/* Lower layers, for tests and tools: one raw frame out, one reply in. */
int report_client_send_frame(report_client_t *c, const char *body, size_t len);
int report_client_recv_frame(report_client_t *c, char **body, size_t *len);
/* The signed frame body (envelope) for m, stamped; malloc'd. */
char *report_client_sign(const report_endpoint_t *ep, message_t *m,
			 char *err, size_t errlen);

/* The small API for training code: one connection per call, endpoint
 * resolved each time. 0, or a negative errno; the reason is in
 * optimus_report_error() (per thread). epoch < 0: none. */
int optimus_report_progress(uint32_t job_id, uint64_t step, double loss,
			    double samples_per_sec, int epoch);
/*
 * The same from a trainer that takes batch changes in place
 * (doc/design/reports.md "Re-batch in place"): `batch` is the global batch the
 * run trains at now (>= 1), `rebatch_seconds` how long its change to it
 * took (< 0: not said; say it in the first report at a new batch),
 * `sync_seconds` the all-reduce part of its steps as it timed them (<= 0:
 * not said; the goodput model tells compute from all-reduce with it). 1 with
 * *next when the reply carries a batch change: from its next step the
 * job trains at next->batch (next->local_batch per worker and pass,
 * next->accum extra micro-steps), its learning rate tuned at the
 * submitted batch times next->lr_scale, and says next->batch in its next
 * report; 0 when it carries none; or a negative errno.
 */
int optimus_report_progress_batch(uint32_t job_id, uint64_t step,
				  double loss, double samples_per_sec,
				  int epoch, uint64_t batch,
				  double rebatch_seconds,
				  double sync_seconds,
				  report_rebatch_t *next);
int optimus_report_speed(uint32_t job_id, uint32_t ps, uint32_t workers,
			 double steps_per_sec);
/* After writing the checkpoint asked for by the checkpoint signal. */
int optimus_report_checkpoint(uint32_t job_id, uint64_t step);
/* One worker's own seconds per step, for straggler detection (lag: what a
 * PS saw, else 0). Call it every few seconds at most. */
int optimus_report_worker(uint32_t job_id, uint32_t rank, const char *node,
			  double step_time, double lag);
/* Gradient statistics (protocol.h, report_gradients_t): the squared
 * gradient norm, the variance of a gradient averaged over var_batch
 * examples. */
int optimus_report_gradients(uint32_t job_id, double grad_sqr,
			     double grad_var, double var_batch);
/* The same standing for `estimates` (>= 1) estimates of these values, as
 * a trainer estimating every few steps sends a run of equal ones. */
int optimus_report_gradients_many(uint32_t job_id, double grad_sqr,
				  double grad_var, double var_batch,
				  uint32_t estimates);
/* The query's result (caller puts it), NULL on failure. */
json_object *optimus_query(const query_t *q);
const char *optimus_report_error(void);

#endif

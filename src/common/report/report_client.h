/*
 * report_client.h - send progress/speed reports and queries to the
 * sched/optimus listener (client side of protocol.h).
 *
 * Where the listener is: $OPTIMUS_REPORT_ADDR ("host:port"), else
 * ReportAddress/ReportPort of optimus.conf beside slurm.conf
 * ($SLURM_CONF, else /etc/slurm/slurm.conf); ReportAddress 0.0.0.0 means
 * this host. munged's socket: $MUNGE_SOCKET, else AuthInfo=socket=... of
 * slurm.conf, else munge's default.
 */
#ifndef OPTIMUS_REPORT_CLIENT_H
#define OPTIMUS_REPORT_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "report/protocol.h"

#define REPORT_DEFAULT_PORT 6830
#define REPORT_DEFAULT_ADDRESS "127.0.0.1"

typedef struct report_client report_client_t;

typedef struct report_endpoint {
	char host[256];
	uint16_t port;
	char munge_socket[1024];	/* "" for munge's default */
} report_endpoint_t;

/* Fill ep from the environment and configuration files (see above). */
int report_endpoint_resolve(report_endpoint_t *ep, char *err, size_t errlen);

/* Connect (timeout in ms for connect and each reply). NULL with a reason. */
report_client_t *report_client_connect(const report_endpoint_t *ep,
				       int timeout_ms, char *err, size_t errlen);
void report_client_close(report_client_t *c);

/* Stamp m (nonce, time), sign it and send it; wait for the reply.
 * 0 with *result (may be NULL; caller puts it), or a negative errno with
 * a reason ("code: text" when the listener refused it: -EPROTO). */
int report_client_request(report_client_t *c, message_t *m,
			  json_object **result, char *err, size_t errlen);

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
int optimus_report_speed(uint32_t job_id, uint32_t ps, uint32_t workers,
			 double steps_per_sec);
/* After writing the checkpoint asked for by the checkpoint signal. */
int optimus_report_checkpoint(uint32_t job_id, uint64_t step);
/* One worker's own seconds per step, for straggler detection (lag: what a
 * PS saw, else 0). Call it every few seconds at most. */
int optimus_report_worker(uint32_t job_id, uint32_t rank, const char *node,
			  double step_time, double lag);
/* The query's result (caller puts it), NULL on failure. */
json_object *optimus_query(const query_t *q);
const char *optimus_report_error(void);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * report/client.c - client side of the report protocol (report/client.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "report/munge_auth.h"
#include "report/client.h"
#include "report/conf.h"
#include "report/run.h"
#include "util/errmsg.h"
#include "util/conf_file.h"

struct report_client {
	int fd;
	report_endpoint_t ep;
};

/*
 * The small API (optimus_report_*, optimus_query) returns only a code, so
 * its message waits here for optimus_report_error() (doc/design/reports.md's C
 * API; an interface cannot change under its callers). Kept per thread so that two reporting threads do
 * not overwrite each other's message; it is written only through the
 * (err, errlen) functions below, that is, through errmsg_set.
 */
static _Thread_local char last_error[512];

static const char *slurm_conf_path(void)
{
	const char *p = getenv("SLURM_CONF");

	return p && *p ? p : CONF_DEFAULT_SLURM_CONF;
}

/* "host:port" (host may be "[v6]"). */
static int parse_addr(const char *s, report_endpoint_t *ep)
{
	const char *colon = strrchr(s, ':');
	size_t hlen;

	if (!colon || colon == s)
		return -EINVAL;
	hlen = (size_t)(colon - s);
	if (s[0] == '[' && colon[-1] == ']') {
		s++;
		hlen -= 2;
	}
	if (hlen >= sizeof(ep->hosts[0]))
		return -EINVAL;
	memcpy(ep->hosts[0], s, hlen);
	ep->hosts[0][hlen] = '\0';
	/* Port 0 turns the listener off: nothing to connect to. */
	return report_conf_port(colon + 1, &ep->port) || !ep->port ?
	       -EINVAL : 0;
}

typedef struct ctl_hosts {
	report_endpoint_t *ep;
} ctl_hosts_t;

/* SlurmctldHost=name(addr) or name; each line adds one controller, the
 * first is the primary (ControlMachine is the older spelling). */
static int add_controller(const char *key, const char *value, void *arg)
{
	report_endpoint_t *ep = arg;
	const char *open = strchr(value, '('), *close;
	char *h;

	if ((strcasecmp(key, "SlurmctldHost") &&
	     strcasecmp(key, "ControlMachine")) || ep->nhosts >= REPORT_MAX_HOSTS)
		return 0;
	h = ep->hosts[ep->nhosts++];
	close = open ? strchr(open, ')') : NULL;
	if (close)
		snprintf(h, sizeof(ep->hosts[0]), "%.*s",
			 (int)(close - open - 1), open + 1);
	else
		snprintf(h, sizeof(ep->hosts[0]), "%s", value);
	return 0;
}

/*
 * A listener bound to every address is reached at slurmctld's hosts, which
 * is what a reporter on a compute node needs.
 */
static int controller_hosts(report_endpoint_t *ep, char *err, size_t errlen)
{
	int rc;

	ep->nhosts = 0;
	rc = conf_file_read(slurm_conf_path(), add_controller, ep, err, errlen);
	if (rc && rc != -ENOENT)
		return rc;
	if (!ep->nhosts) {
		snprintf(ep->hosts[0], sizeof(ep->hosts[0]), "%s",
			 REPORT_DEFAULT_ADDRESS);
		ep->nhosts = 1;
	}
	return 0;
}

static int resolve_listener(report_endpoint_t *ep, char *err, size_t errlen)
{
	const char *env = getenv("OPTIMUS_REPORT_ADDR");
	char path[1100], addr[sizeof(ep->hosts[0])];
	int rc;

	ep->nhosts = 1;
	if (env && *env) {
		if (parse_addr(env, ep))
			return errmsg_set(err, errlen, -EINVAL,
					  "OPTIMUS_REPORT_ADDR=%s is not "
					  "host:port", env);
		return 0;
	}
	if (report_conf_path(slurm_conf_path(), path, sizeof(path)))
		return errmsg_set(err, errlen, -ENAMETOOLONG,
				  "%s: too long a path for optimus.conf beside it",
				  slurm_conf_path());
	if ((rc = report_conf_listener(path, addr, sizeof(addr), &ep->port,
				       err, errlen)))
		return rc;
	if (!ep->port)
		return errmsg_set(err, errlen, -EINVAL,
				  "%s: ReportPort=0 is not a port", path);
	if (strcmp(addr, "0.0.0.0") && strcmp(addr, "::"))
		snprintf(ep->hosts[0], sizeof(ep->hosts[0]), "%s", addr);
	else if ((rc = controller_hosts(ep, err, errlen)))
		return rc;
	return 0;
}

/* AuthInfo=socket=/path,cred_expire=10 */
static int resolve_munge_socket(report_endpoint_t *ep, char *err,
				size_t errlen)
{
	const char *env = getenv("MUNGE_SOCKET");
	char val[1024], *p;
	int rc;

	ep->munge_socket[0] = '\0';
	if (env && *env) {
		snprintf(ep->munge_socket, sizeof(ep->munge_socket), "%s", env);
		return 0;
	}
	rc = conf_file_get(slurm_conf_path(), "AuthInfo", val, sizeof(val),
			   err, errlen);
	if (rc <= 0)
		return rc;
	for (p = strtok(val, ","); p; p = strtok(NULL, ","))
		if (!strncasecmp(p, "socket=", 7))
			snprintf(ep->munge_socket, sizeof(ep->munge_socket),
				 "%s", p + 7);
	return 0;
}

int report_endpoint_resolve(report_endpoint_t *ep, char *err, size_t errlen)
{
	int rc;

	memset(ep, 0, sizeof(*ep));
	if ((rc = resolve_munge_socket(ep, err, errlen)))
		return rc;
	return resolve_listener(ep, err, errlen);
}

static int connect_timeout(int fd, const struct sockaddr *sa, socklen_t len,
			   int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int flags = fcntl(fd, F_GETFL), soerr = 0;
	socklen_t slen = sizeof(soerr);

	fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	if (connect(fd, sa, len) && errno != EINPROGRESS)
		return -errno;
	if (poll(&pfd, 1, timeout_ms) != 1)
		return -ETIMEDOUT;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &slen) || soerr)
		return -(soerr ? soerr : errno);
	fcntl(fd, F_SETFL, flags);
	return 0;
}

static void set_timeouts(int fd, int timeout_ms)
{
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* A connected socket to host:port, or a negative errno. */
static int connect_host(const char *host, uint16_t port, int timeout_ms,
			char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	char sport[8];
	int fd = -1, rc = -ENOENT, gai;

	snprintf(sport, sizeof(sport), "%u", port);
	if ((gai = getaddrinfo(host, sport, &hints, &res)))
		return errmsg_set(err, errlen, -EHOSTUNREACH,
				  "%s: %s", host, gai_strerror(gai));
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		rc = connect_timeout(fd, ai->ai_addr, ai->ai_addrlen, timeout_ms);
		if (rc == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		errmsg_set(err, errlen, 0,
			   "cannot connect to the optimus listener "
			   "at %s:%u: %s", host, port, strerror(-rc));
	return fd < 0 ? rc : fd;
}

report_client_t *report_client_connect(const report_endpoint_t *ep,
				       int timeout_ms, char *err, size_t errlen)
{
	report_client_t *c;
	int fd = -ENOENT;

	/* the primary controller first, then the backups */
	for (size_t i = 0; i < ep->nhosts && fd < 0; i++)
		fd = connect_host(ep->hosts[i], ep->port, timeout_ms, err,
				  errlen);
	if (fd < 0)
		return NULL;
	set_timeouts(fd, timeout_ms);
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		errmsg_set(err, errlen, 0, "out of memory");
		return NULL;
	}
	c->fd = fd;
	c->ep = *ep;
	return c;
}

void report_client_close(report_client_t *c)
{
	if (!c)
		return;
	close(c->fd);
	free(c);
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = recv(fd, p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if (n == 0)
			return -ECONNRESET;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Header and body in one send: two small writes meet Nagle's algorithm
 * and the peer's delayed ACK, a 40 ms stall per request (measured: 44
 * reports/s from two threads). */
int report_client_send_frame(report_client_t *c, const char *body, size_t len)
{
	char *buf = malloc(PROTOCOL_HEADER_LEN + len);
	int rc;

	if (!buf)
		return -ENOMEM;
	protocol_header_encode((uint32_t)len, (uint8_t *)buf);
	memcpy(buf + PROTOCOL_HEADER_LEN, body, len);
	rc = write_all(c->fd, buf, PROTOCOL_HEADER_LEN + len);
	free(buf);
	return rc;
}

int report_client_recv_frame(report_client_t *c, char **body, size_t *len)
{
	uint8_t hdr[PROTOCOL_HEADER_LEN];
	uint32_t n;
	int rc;

	*body = NULL;
	if ((rc = read_all(c->fd, hdr, sizeof(hdr))))
		return rc;
	if (protocol_header_decode_max(hdr, PROTOCOL_MAX_REPLY, &n))
		return -EMSGSIZE;
	if (!(*body = malloc(n + 1)))
		return -ENOMEM;
	if ((rc = read_all(c->fd, *body, n))) {
		free(*body);
		*body = NULL;
		return rc;
	}
	(*body)[n] = '\0';
	*len = n;
	return 0;
}

/*
 * A report of this job names this process's run (report/run.h), taken
 * from the environment Slurm gives the job's tasks; a report of another
 * job (optimus-report --job), or sent outside any job, names none.
 */
static void name_run(message_t *m)
{
	const char *job = getenv("SLURM_JOB_ID");
	uint32_t run;
	char *end;

	if (m->type == MSG_QUERY || m->report.has_run || !job)
		return;
	if (strtoul(job, &end, 10) != m->report.job_id || *end ||
	    report_run_from_env(getenv("SLURM_RESTART_COUNT"), &run))
		return;
	m->report.has_run = 1;
	m->report.run = run;
}

static void stamp(message_t *m)
{
	uint64_t nonce = 0;

	while (getrandom(&nonce, sizeof(nonce), 0) != sizeof(nonce))
		;
	m->nonce = nonce;
	m->sent = (int64_t)time(NULL);
}

char *report_client_sign(const report_endpoint_t *ep, message_t *m,
			 char *err, size_t errlen)
{
	char *payload, *cred = NULL, *body = NULL;

	stamp(m);
	name_run(m);
	payload = protocol_message_build(m);
	if (!payload) {
		errmsg_set(err, errlen, 0, "out of memory");
		return NULL;
	}
	if (munge_auth_encode(ep->munge_socket[0] ? ep->munge_socket : NULL,
			      payload, strlen(payload), 0, &cred, err,
			      errlen) == 0) {
		body = protocol_envelope_build(payload, cred);
		if (!body)
			errmsg_set(err, errlen, 0, "out of memory");
	}
	free(payload);
	free(cred);
	return body;
}

int report_client_request(report_client_t *c, message_t *m,
			  json_object **result, char *err, size_t errlen)
{
	char *body = report_client_sign(&c->ep, m, err, errlen), *reply;
	size_t len;
	int rc;

	*result = NULL;
	if (!body)
		return -EACCES;
	rc = report_client_send_frame(c, body, strlen(body));
	free(body);
	if (rc == 0)
		rc = report_client_recv_frame(c, &reply, &len);
	if (rc)
		return errmsg_set(err, errlen, rc,
				  "talking to the optimus listener on "
				  "port %u: %s", c->ep.port, strerror(-rc));
	rc = protocol_reply_parse(reply, len, result, err, errlen);
	free(reply);
	return rc;
}

/* Whether a failed attempt may succeed later: the request was not
 * delivered, or the listener was busy. */
static int retryable(int rc, const char *err)
{
	if (rc == -EPROTO)
		return !strncmp(err, "busy:", 5) || !strncmp(err, "unavailable:", 12);
	return rc == -ECONNREFUSED || rc == -ECONNRESET || rc == -EPIPE ||
	       rc == -ETIMEDOUT || rc == -EHOSTUNREACH || rc == -ENETUNREACH ||
	       rc == -EAGAIN;
}

/* Sleep the backoff before attempt k (k >= 1), jittered in [d/2, d]. */
static void backoff(int k)
{
	long d = REPORT_RETRY_BASE_MS;
	uint32_t r = 0;
	struct timespec ts;

	for (int i = 1; i < k && d < REPORT_RETRY_MAX_MS; i++)
		d *= 2;
	if (d > REPORT_RETRY_MAX_MS)
		d = REPORT_RETRY_MAX_MS;
	(void)!getrandom(&r, sizeof(r), GRND_NONBLOCK);
	d = d / 2 + (long)(r % (uint32_t)(d / 2 + 1));
	ts.tv_sec = d / 1000;
	ts.tv_nsec = (d % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int report_client_call(const report_endpoint_t *ep, message_t *m,
		       int timeout_ms, int attempts, json_object **result,
		       char *err, size_t errlen)
{
	int rc = -ECONNREFUSED;

	*result = NULL;
	if (attempts <= 0)
		attempts = REPORT_RETRY_ATTEMPTS;
	for (int k = 0; k < attempts; k++) {
		report_client_t *c;

		if (k)
			backoff(k);
		/* a fresh nonce each time: a refused nonce is remembered */
		if (!(c = report_client_connect(ep, timeout_ms, err, errlen))) {
			rc = -ECONNREFUSED;
			continue;
		}
		rc = report_client_request(c, m, result, err, errlen);
		report_client_close(c);
		if (!rc || !retryable(rc, err))
			return rc;
	}
	return rc;
}

/* One request for the small API, endpoint resolved each time. */
static int one_shot(message_t *m, json_object **result)
{
	report_endpoint_t ep;
	int rc;

	*result = NULL;
	if ((rc = report_endpoint_resolve(&ep, last_error, sizeof(last_error))))
		return rc;
	return report_client_call(&ep, m, REPORT_TIMEOUT_MS, 0, result,
				  last_error, sizeof(last_error));
}

int optimus_report_progress(uint32_t job_id, uint64_t step, double loss,
			    double samples_per_sec, int epoch)
{
	message_t m = { .type = MSG_PROGRESS };
	json_object *res;
	int rc;

	m.report = (report_t){ .kind = REPORT_PROGRESS, .job_id = job_id };
	m.report.progress = (report_progress_t){ .step = step, .loss = loss,
		.samples_per_sec = samples_per_sec,
		.epoch = epoch < 0 ? -1 : epoch };
	rc = one_shot(&m, &res);
	json_object_put(res);
	return rc;
}

int optimus_report_progress_batch(uint32_t job_id, uint64_t step,
				  double loss, double samples_per_sec,
				  int epoch, uint64_t batch,
				  double rebatch_seconds,
				  double sync_seconds,
				  report_rebatch_t *next)
{
	message_t m = { .type = MSG_PROGRESS };
	json_object *res;
	int rc;

	if (!batch || !next)
		return errmsg_set(last_error, sizeof(last_error), -EINVAL,
				  "progress with a batch needs batch >= 1 and "
				  "somewhere to put the reply's change");
	m.report = (report_t){ .kind = REPORT_PROGRESS, .job_id = job_id };
	m.report.progress = (report_progress_t){ .step = step, .loss = loss,
		.samples_per_sec = samples_per_sec,
		.epoch = epoch < 0 ? -1 : epoch, .batch = batch,
		.rebatch_seconds = rebatch_seconds,
		.sync_seconds = sync_seconds > 0 ? sync_seconds : 0.0 };
	rc = one_shot(&m, &res);
	if (!rc)
		rc = protocol_reply_rebatch(res, next, last_error,
					    sizeof(last_error));
	json_object_put(res);
	return rc;
}

int optimus_report_speed(uint32_t job_id, uint32_t ps, uint32_t workers,
			 double steps_per_sec)
{
	message_t m = { .type = MSG_SPEED };
	json_object *res;
	int rc;

	m.report = (report_t){ .kind = REPORT_SPEED, .job_id = job_id };
	m.report.speed = (report_speed_t){ .ps = ps, .workers = workers,
					    .steps_per_sec = steps_per_sec };
	rc = one_shot(&m, &res);
	json_object_put(res);
	return rc;
}

int optimus_report_checkpoint(uint32_t job_id, uint64_t step)
{
	message_t m = { .type = MSG_CHECKPOINT };
	json_object *res;
	int rc;

	m.report = (report_t){ .kind = REPORT_CHECKPOINT, .job_id = job_id };
	m.report.checkpoint.step = step;
	rc = one_shot(&m, &res);
	json_object_put(res);
	return rc;
}

int optimus_report_gradients_many(uint32_t job_id, double grad_sqr,
				  double grad_var, double var_batch,
				  uint32_t estimates)
{
	message_t m = { .type = MSG_GRADIENTS };
	json_object *res;
	int rc;

	if (estimates < 1)
		return -EINVAL;
	m.report = (report_t){ .kind = REPORT_GRADIENTS, .job_id = job_id };
	m.report.gradients = (report_gradients_t){ grad_sqr, grad_var,
						   var_batch, estimates };
	rc = one_shot(&m, &res);
	json_object_put(res);
	return rc;
}

int optimus_report_gradients(uint32_t job_id, double grad_sqr,
			     double grad_var, double var_batch)
{
	return optimus_report_gradients_many(job_id, grad_sqr, grad_var,
					     var_batch, 1);
}

int optimus_report_worker(uint32_t job_id, uint32_t rank, const char *node,
			  double step_time, double lag)
{
	message_t m = { .type = MSG_WORKER };
	json_object *res;
	int rc;

	if (!node || strlen(node) >= sizeof(m.report.worker.node))
		return -EINVAL;
	m.report = (report_t){ .kind = REPORT_WORKER, .job_id = job_id };
	m.report.worker.rank = rank;
	snprintf(m.report.worker.node, sizeof(m.report.worker.node), "%s",
		 node);
	m.report.worker.step_time = step_time;
	m.report.worker.lag = lag;
	rc = one_shot(&m, &res);
	json_object_put(res);
	return rc;
}

json_object *optimus_query(const query_t *q)
{
	message_t m = { .type = MSG_QUERY, .query = *q };
	json_object *res;

	if (one_shot(&m, &res)) {
		json_object_put(res);
		return NULL;
	}
	return res ? res : json_object_new_object();
}

const char *optimus_report_error(void)
{
	return last_error;
}

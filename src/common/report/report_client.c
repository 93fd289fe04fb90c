/*
 * report_client.c - client side of the report protocol (report_client.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
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
#include "report/report_client.h"

#define DEFAULT_SLURM_CONF "/etc/slurm/slurm.conf"
#define DEFAULT_TIMEOUT_MS 5000

struct report_client {
	int fd;
	report_endpoint_t ep;
};

static _Thread_local char last_error[512];

/* Value of `key` (case-insensitive, like Slurm) in a KEY=VALUE file;
 * 1 when found, 0 when not, -errno when the file cannot be read. */
static int conf_lookup(const char *path, const char *key, char *val,
		       size_t vlen)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	size_t klen = strlen(key);
	int found = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t");

		if (strncasecmp(p, key, klen) || p[klen] != '=')
			continue;
		p += klen + 1;
		p[strcspn(p, " \t\r\n#")] = '\0';
		snprintf(val, vlen, "%s", p);
		found = 1;
	}
	fclose(f);
	return found;
}

static const char *slurm_conf_path(void)
{
	const char *p = getenv("SLURM_CONF");

	return p && *p ? p : DEFAULT_SLURM_CONF;
}

/* dirname(slurm.conf)/optimus.conf */
static void optimus_conf_path(char *out, size_t len)
{
	char copy[1024];

	snprintf(copy, sizeof(copy), "%s", slurm_conf_path());
	snprintf(out, len, "%s/optimus.conf", dirname(copy));
}

static int parse_port(const char *s, uint16_t *port)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
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
	if (hlen >= sizeof(ep->host))
		return -EINVAL;
	memcpy(ep->host, s, hlen);
	ep->host[hlen] = '\0';
	return parse_port(colon + 1, &ep->port);
}

static void controller_host(char *out, size_t len);

static int resolve_listener(report_endpoint_t *ep, char *err, size_t errlen)
{
	const char *env = getenv("OPTIMUS_REPORT_ADDR");
	char path[1100], val[256];

	if (env && *env) {
		if (parse_addr(env, ep)) {
			snprintf(err, errlen, "OPTIMUS_REPORT_ADDR=%s is not "
				 "host:port", env);
			return -EINVAL;
		}
		return 0;
	}
	optimus_conf_path(path, sizeof(path));
	snprintf(ep->host, sizeof(ep->host), "%s", REPORT_DEFAULT_ADDRESS);
	ep->port = REPORT_DEFAULT_PORT;
	if (conf_lookup(path, "ReportAddress", val, sizeof(val)) > 0) {
		if (strcmp(val, "0.0.0.0") && strcmp(val, "::"))
			snprintf(ep->host, sizeof(ep->host), "%s", val);
		else
			controller_host(ep->host, sizeof(ep->host));
	}
	if (conf_lookup(path, "ReportPort", val, sizeof(val)) > 0 &&
	    parse_port(val, &ep->port)) {
		snprintf(err, errlen, "%s: ReportPort=%s is not a port", path, val);
		return -EINVAL;
	}
	return 0;
}

/*
 * A listener bound to every address is reached at slurmctld's host, which
 * is what a reporter on a compute node needs: SlurmctldHost=name(addr).
 */
static void controller_host(char *out, size_t len)
{
	char val[256], *open, *close;

	if (conf_lookup(slurm_conf_path(), "SlurmctldHost", val,
			sizeof(val)) <= 0)
		return;	/* keep the default */
	open = strchr(val, '(');
	close = open ? strchr(open, ')') : NULL;
	if (close) {
		*close = '\0';
		snprintf(out, len, "%s", open + 1);
	} else {
		snprintf(out, len, "%s", val);
	}
}

/* MUNGE_SOCKET, else socket= of slurm.conf's
 * AuthInfo=socket=/path,cred_expire=10, else munge's default. */
static void resolve_munge_socket(report_endpoint_t *ep)
{
	const char *env = getenv("MUNGE_SOCKET");
	char val[1024], *p;

	ep->munge_socket[0] = '\0';
	if (env && *env) {
		snprintf(ep->munge_socket, sizeof(ep->munge_socket), "%s", env);
		return;
	}
	if (conf_lookup(slurm_conf_path(), "AuthInfo", val, sizeof(val)) <= 0)
		return;
	for (p = strtok(val, ","); p; p = strtok(NULL, ","))
		if (!strncasecmp(p, "socket=", 7))
			snprintf(ep->munge_socket, sizeof(ep->munge_socket),
				 "%s", p + 7);
}

int report_endpoint_resolve(report_endpoint_t *ep, char *err, size_t errlen)
{
	memset(ep, 0, sizeof(*ep));
	resolve_munge_socket(ep);
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

report_client_t *report_client_connect(const report_endpoint_t *ep,
				       int timeout_ms, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	char port[8];
	int fd = -1, rc = -ENOENT, gai;
	report_client_t *c;

	snprintf(port, sizeof(port), "%u", ep->port);
	if ((gai = getaddrinfo(ep->host, port, &hints, &res))) {
		snprintf(err, errlen, "%s: %s", ep->host, gai_strerror(gai));
		return NULL;
	}
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
	if (fd < 0) {
		snprintf(err, errlen, "cannot connect to the optimus listener "
			 "at %s:%u: %s", ep->host, ep->port, strerror(-rc));
		return NULL;
	}
	set_timeouts(fd, timeout_ms);
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		snprintf(err, errlen, "out of memory");
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

int report_client_send_frame(report_client_t *c, const char *body, size_t len)
{
	uint8_t hdr[PROTOCOL_HEADER_LEN];
	int rc;

	protocol_header_encode((uint32_t)len, hdr);
	if ((rc = write_all(c->fd, hdr, sizeof(hdr))))
		return rc;
	return write_all(c->fd, body, len);
}

int report_client_recv_frame(report_client_t *c, char **body, size_t *len)
{
	uint8_t hdr[PROTOCOL_HEADER_LEN];
	uint32_t n;
	int rc;

	*body = NULL;
	if ((rc = read_all(c->fd, hdr, sizeof(hdr))))
		return rc;
	if (protocol_header_decode(hdr, &n))
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
	payload = protocol_message_build(m);
	if (!payload) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (munge_auth_encode(ep->munge_socket[0] ? ep->munge_socket : NULL,
			      payload, strlen(payload), 0, &cred, err,
			      errlen) == 0) {
		body = protocol_envelope_build(payload, cred);
		if (!body)
			snprintf(err, errlen, "out of memory");
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
	if (rc) {
		snprintf(err, errlen, "talking to %s:%u: %s", c->ep.host,
			 c->ep.port, strerror(-rc));
		return rc;
	}
	rc = protocol_reply_parse(reply, len, result, err, errlen);
	free(reply);
	return rc;
}

/* One-shot request for the small API. */
static int one_shot(message_t *m, json_object **result)
{
	report_endpoint_t ep;
	report_client_t *c;
	int rc;

	*result = NULL;
	if ((rc = report_endpoint_resolve(&ep, last_error, sizeof(last_error))))
		return rc;
	c = report_client_connect(&ep, DEFAULT_TIMEOUT_MS, last_error,
				  sizeof(last_error));
	if (!c)
		return -ECONNREFUSED;
	rc = report_client_request(c, m, result, last_error, sizeof(last_error));
	report_client_close(c);
	return rc;
}

int optimus_report_progress(uint32_t job_id, uint64_t step, double loss,
			    double samples_per_sec, int epoch)
{
	message_t m = { .type = MSG_PROGRESS };
	json_object *res;
	int rc;

	m.report = (report_t){ .kind = REPORT_PROGRESS, .job_id = job_id };
	m.report.progress = (report_progress_t){ step, loss, samples_per_sec,
						 epoch < 0 ? -1 : epoch };
	rc = one_shot(&m, &res);
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
	m.report.speed = (report_speed_t){ ps, workers, steps_per_sec };
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

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * listener.c - the report listener thread (listener.h).
 *
 * One thread, one poll() over a wake-up pipe, the listening socket and up
 * to ReportMaxConnections connections. A connection is a small state
 * machine: read a 4-byte header, read the body, write the reply frame, and
 * again.
 *
 * Admission (doc/design/reports.md): anyone who can connect is a stranger until a
 * request with a valid munge credential makes the connection
 * authenticated. A stranger must do so within ReportAuthTimeout seconds of
 * accept, however slowly it trickles bytes; an authenticated connection
 * may stay idle ReportTimeout seconds between requests. When the listener
 * or one peer address (ReportMaxPeerConnections) is full, a new connection
 * takes the slot of the oldest stranger, never an authenticated one: an
 * attacker holding connections only pushes out its own, and a genuine
 * reporter, which sends its frame right after connecting, is served before
 * it could be pushed out.
 */
#define _GNU_SOURCE
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "job/job_admit.h"
#include "listener.h"
#include "optimus_conf.h"
#include "planner.h"
#include "registry.h"
#include "rebatch.h"
#include "report/admission.h"
#include "report/reply_bound.h"
#include "report/service.h"
#include "util/escape.h"

#define LISTENER_POLL_MS 250
/* Refusals logged per second before the rest are only counted. */
#define LISTENER_LOG_BURST 50
/* Connections accepted per poll round: between two batches, those already
 * accepted are read, so a burst of strangers cannot push out a genuine
 * connection before its frame is read. */
#define LISTENER_ACCEPT_BATCH 16
/* After a batch in which every accept had to close a stranger (a flood
 * reopening what it loses), the listening socket rests this long: the
 * flood's churn, not the genuine, is what is slowed (bench/flood_cost.py).
 * A genuine connection waits in the backlog meanwhile. */
#define LISTENER_FLOOD_PAUSE_MS 5

typedef struct conn {
	int fd;
	char peer[64];		/* address:port, for the log */
	char addr[48];		/* address: the unit of the per-peer limit */
	uint64_t seq;		/* accept order: the oldest stranger goes first */
	bool authed;		/* a request carried a valid credential */
	uid_t uid;		/* of the last valid credential */
	time_t deadline;
	uint8_t hdr[PROTOCOL_HEADER_LEN];
	size_t hdr_got;
	char *body;		/* non-NULL: reading a body of body_len */
	uint32_t body_len;
	size_t body_got;
	char *out;		/* non-NULL: writing out_len bytes */
	size_t out_len, out_sent;
	bool close_after;
} conn_t;

/* The listener thread's state: one listener per slurmctld. */
static struct {
	pthread_t thread;
	bool running;
	int wake[2];
	int lfd;
	conn_t *conns;
	size_t nconns, max_conns, max_peer;
	uint64_t next_seq;
	unsigned timeout, auth_timeout;
	report_service_t *service;
	time_t log_second;
	unsigned log_count, log_dropped;
	/* strangers closed (made room, or timed out) since the last line */
	time_t closed_second;
	unsigned long evicted, expired, evicted_authed;
	size_t out_total;	/* bytes of replies waiting, all connections */
	/* admission_pick's scratch, max_conns each (one thread uses them) */
	admission_conn_t *scope;
	size_t *scope_index;
} listener = { .wake = { -1, -1 }, .lfd = -1 };

/*
 * The uid owning job_id and its current run (Slurm's restart count), under
 * a short job read lock; 1 when the job has finished (report_callbacks_t).
 * A job Slurm purged is finished, and while the planner keeps its record
 * (optimusctl status lists it) its owner is the record's: status and show
 * job answer for the same jobs.
 */
static int listener_job_owner(uint32_t job_id, uid_t *uid, uint32_t *run)
{
	slurmctld_lock_t job_read_lock = { .job = READ_LOCK };
	job_record_t *job_ptr;
	reg_job_t *rj;
	int rc = -ENOENT;

	lock_slurmctld(job_read_lock);
	job_ptr = find_job_record(job_id);
	if (job_ptr) {
		*uid = job_ptr->user_id;
		*run = job_ptr->restart_cnt;
		rc = IS_JOB_FINISHED(job_ptr) ? 1 : 0;
	}
	unlock_slurmctld(job_read_lock);
	if (rc != -ENOENT)
		return rc;
	registry_lock();
	if ((rj = registry_find(job_id))) {
		*uid = (uid_t) rj->model->uid;
		*run = 0;	/* finished: no report is taken */
		rc = 1;
	}
	registry_unlock();
	return rc;
}

/*
 * Would the job's record take r (job/job_admit.h)? Under the registry's
 * mutex, which the planner holds only to change records (never across a
 * plan or a slurmctld lock). A job the planner does not track has no
 * record to refuse it.
 */
static int listener_admit(const report_t *r, char *err, size_t errlen)
{
	reg_job_t *rj;
	int rc = 0;

	registry_lock();
	if ((rj = registry_find(r->job_id)))
		rc = job_model_admit(rj->model, r, rj->restart_cnt, err,
				     errlen);
	registry_unlock();
	return rc;
}

/* Refusals are worth an error line each, but a flood must not fill the log. */
static void log_refusal(const conn_t *c, const report_outcome_t *o)
{
	time_t now = time(NULL);
	char reason[4 * sizeof(o->reason)];

	if (now != listener.log_second) {
		if (listener.log_dropped)
			error("sched/optimus: report listener: %u more refusals "
			      "not logged", listener.log_dropped);
		listener.log_second = now;
		listener.log_count = listener.log_dropped = 0;
	}
	if (++listener.log_count > LISTENER_LOG_BURST) {
		listener.log_dropped++;
		return;
	}
	/* The reason may quote what the peer sent. */
	str_escape(o->reason, sizeof(o->reason), reason, sizeof(reason));
	/* A run that is over still reporting (a node taken for dead whose
	 * processes live, a requeue's last seconds): late, not bad input. */
	if (!strcmp(o->code, "old_run"))
		info("sched/optimus: JobId=%u: %s (refused: old_run)",
		     o->job_id, reason);
	else
		error("sched/optimus: report listener: refused request from %s "
		      "(uid %d, job %u): %s: %s", c->peer,
		      o->uid == (uid_t)-1 ? -1 : (int)o->uid, o->job_id,
		      o->code, reason);
}

static double now_seconds(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/* The reply freed; what it held is taken off the budget. */
static void conn_out_free(conn_t *c)
{
	if (c->out)
		listener.out_total -= c->out_len;
	xfree(c->out);
	c->out_len = c->out_sent = 0;
}

/*
 * A reply over the core's bounds (report/reply_bound.h) replaced by a
 * refusal of a few bytes, said in the log; else reply. The one waiting is
 * written within ReportTimeout or its connection dropped (conn_reply).
 */
static char *reply_within_bounds(const conn_t *c, char *reply)
{
	size_t len = strlen(reply) + PROTOCOL_HEADER_LEN;
	report_outcome_t o = { .uid = c->authed ? c->uid : (uid_t)-1,
			       .code = "busy" };
	reply_bound_verdict_t v = reply_bound_verdict(len, listener.out_total);
	char *refusal;

	if (v == REPLY_BOUND_OK)
		return reply;
	if (v == REPLY_BOUND_TOO_LARGE) {
		o.code = "too_large";
		snprintf(o.reason, sizeof(o.reason), "reply of %zu bytes over the listener's bound of %zu per connection",
			 len, REPLY_BOUND_MAX);
	} else {
		snprintf(o.reason, sizeof(o.reason), "replies of %zu bytes wait for readers who do not read (bound %zu); retry later",
			 listener.out_total, REPLY_BOUND_BUDGET);
	}
	refusal = protocol_reply_error(o.code, "%s", o.reason);
	if (!refusal)
		return reply;
	report_service_count(listener.service, &o);
	log_refusal(c, &o);
	free(reply);
	return refusal;
}

/* Queue a reply frame on c. */
static void conn_reply(conn_t *c, char *reply, bool close_after)
{
	size_t len;

	if (!reply) {
		c->close_after = true;
		return;
	}
	reply = reply_within_bounds(c, reply);
	len = strlen(reply);
	c->out = xmalloc(PROTOCOL_HEADER_LEN + len);
	protocol_header_encode((uint32_t)len, (uint8_t *)c->out);
	memcpy(c->out + PROTOCOL_HEADER_LEN, reply, len);
	c->out_len = PROTOCOL_HEADER_LEN + len;
	c->out_sent = 0;
	c->close_after = close_after;
	listener.out_total += c->out_len;
	/* Written within ReportTimeout, or the connection is dropped: a peer
	 * that stops reading frees its reply (a stranger keeps its shorter
	 * deadline from accept). */
	if (c->authed)
		c->deadline = time(NULL) + listener.timeout;
	free(reply);
}

static void conn_serve(conn_t *c)
{
	report_outcome_t o;
	char *reply = report_service_handle(listener.service, c->body, c->body_len,
					    now_seconds(), &o);

	/* A confirmed checkpoint lets a resize go on: follow it now. */
	if (o.uid != (uid_t)-1) {
		c->authed = true;
		c->uid = o.uid;
	}
	if (o.accepted && o.type == MSG_CHECKPOINT)
		planner_kick();
	if (o.accepted)
		debug2("sched/optimus: report listener: %s from uid %u for "
		       "job %u accepted", o.type == MSG_QUERY ? "query" :
		       "report", (unsigned)o.uid, o.job_id);
	else
		log_refusal(c, &o);
	xfree(c->body);
	c->hdr_got = c->body_got = 0;
	conn_reply(c, reply, false);
}

/* Header complete: refuse a bad size at once, else start the body. */
static void conn_header(conn_t *c)
{
	report_outcome_t o = { .uid = (uid_t)-1, .code = "too_large" };

	if (protocol_header_decode(c->hdr, &c->body_len) == 0) {
		c->body = xmalloc(c->body_len);
		c->body_got = 0;
		return;
	}
	snprintf(o.reason, sizeof(o.reason), "frame of %u bytes refused "
		 "(limit %d)", c->body_len, PROTOCOL_MAX_FRAME);
	report_service_count(listener.service, &o);
	log_refusal(c, &o);
	conn_reply(c, protocol_reply_error(o.code, "%s", o.reason), true);
}

/* Read what is available; false when the connection must close. */
static bool conn_read(conn_t *c)
{
	for (;;) {
		char *dst = c->body ? c->body + c->body_got :
				      (char *)c->hdr + c->hdr_got;
		size_t want = c->body ? c->body_len - c->body_got :
					PROTOCOL_HEADER_LEN - c->hdr_got;
		ssize_t n = recv(c->fd, dst, want, 0);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		if (n == 0)
			return false;
		if (c->body) {
			c->body_got += (size_t)n;
			if (c->body_got == c->body_len) {
				conn_serve(c);
				return true;
			}
		} else if ((c->hdr_got += (size_t)n) == PROTOCOL_HEADER_LEN) {
			conn_header(c);
			if (c->out)
				return true;
		}
	}
}

/* Write what the socket takes; false when the connection must close. */
static bool conn_write(conn_t *c)
{
	while (c->out_sent < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_sent,
				 c->out_len - c->out_sent, MSG_NOSIGNAL);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		c->out_sent += (size_t)n;
	}
	conn_out_free(c);
	/* A stranger's deadline runs from accept, whatever it sends. */
	if (c->authed)
		c->deadline = time(NULL) + listener.timeout;
	return !c->close_after;
}

static void conn_close(size_t i)
{
	conn_t *c = &listener.conns[i];

	close(c->fd);
	xfree(c->body);
	conn_out_free(c);
	listener.conns[i] = listener.conns[--listener.nconns];
}

/* The peer's address (host) and address:port (out). */
static void peer_name(const struct sockaddr_storage *ss, socklen_t len,
		      char *host, size_t hostlen, char *out, size_t outlen)
{
	char port[8];

	if (getnameinfo((const struct sockaddr *)ss, len, host, hostlen,
			port, sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(host, hostlen, "?");
		snprintf(out, outlen, "?");
	} else {
		snprintf(out, outlen, "%s:%s", host, port);
	}
}

/* No slot: one best-effort error frame, then close. */
static void shed_connection(int fd, const char *peer, const char *why)
{
	size_t limit = strstr(why, "address") ? listener.max_peer : listener.max_conns;
	char *reply = protocol_reply_error("busy", "%s (%zu); retry later",
					   why, limit);
	uint8_t hdr[PROTOCOL_HEADER_LEN];
	report_outcome_t o = { .uid = (uid_t)-1, .code = "busy" };
	conn_t c = { .fd = fd };

	snprintf(c.peer, sizeof(c.peer), "%s", peer);
	snprintf(o.reason, sizeof(o.reason), "%s (%zu)", why, limit);
	report_service_count(listener.service, &o);
	log_refusal(&c, &o);
	if (reply) {
		protocol_header_encode((uint32_t)strlen(reply), hdr);
		if (send(fd, hdr, sizeof(hdr), MSG_NOSIGNAL) == sizeof(hdr))
			(void)!send(fd, reply, strlen(reply), MSG_NOSIGNAL);
		free(reply);
	}
	close(fd);
}

/* The connection (of addr, or of any peer when addr is NULL) that gives
 * up its slot, by the core's rule (report/admission.c); -1 when none. */
static ssize_t admission_pick(const char *addr)
{
	admission_conn_t *scope = listener.scope;
	size_t *index = listener.scope_index;
	size_t n = 0;
	ssize_t v;

	for (size_t i = 0; i < listener.nconns; i++) {
		const conn_t *c = &listener.conns[i];

		if (addr && strcmp(c->addr, addr))
			continue;
		scope[n] = (admission_conn_t){
			.seq = c->seq, .authed = c->authed, .uid = c->uid,
			.busy = c->body || c->out || c->hdr_got };
		index[n++] = i;
	}
	v = admission_victim(scope, n);
	return v < 0 ? -1 : (ssize_t)index[v];
}

static size_t peer_count(const char *addr)
{
	size_t n = 0;

	for (size_t i = 0; i < listener.nconns; i++)
		n += !strcmp(listener.conns[i].addr, addr);
	return n;
}

/*
 * Make room for a new connection from addr: true when there is a free slot
 * or a connection gave up its slot (a stranger, else one of the user
 * holding the most), false only when there is nobody to close.
 */
static bool make_room(const char *addr, const char **why)
{
	ssize_t victim = -1;

	if (peer_count(addr) >= listener.max_peer) {
		*why = "too many connections from this address";
		victim = admission_pick(addr);
	} else if (listener.nconns >= listener.max_conns) {
		*why = "too many connections";
		victim = admission_pick(NULL);
	} else {
		return true;
	}
	if (victim < 0)
		return false;
	if (listener.conns[victim].authed)
		listener.evicted_authed++;
	else
		listener.evicted++;
	conn_close((size_t)victim);
	return true;
}

/* True when every accept of a full batch closed a stranger to make room. */
static bool accept_all(void)
{
	unsigned long before = listener.evicted + listener.evicted_authed;

	for (int k = 0; k < LISTENER_ACCEPT_BATCH; k++) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		char peer[64], addr[48];
		const char *why = NULL;
		int fd = accept4(listener.lfd, (struct sockaddr *)&ss, &len,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		conn_t *c;

		if (fd < 0)
			return false;
		peer_name(&ss, len, addr, sizeof(addr), peer, sizeof(peer));
		if (!make_room(addr, &why)) {
			shed_connection(fd, peer, why);
			continue;
		}
		c = &listener.conns[listener.nconns++];
		*c = (conn_t){ .fd = fd, .seq = listener.next_seq++,
			       .deadline = time(NULL) + listener.auth_timeout };
		snprintf(c->peer, sizeof(c->peer), "%s", peer);
		snprintf(c->addr, sizeof(c->addr), "%s", addr);
	}
	return listener.evicted + listener.evicted_authed - before >=
	       LISTENER_ACCEPT_BATCH;
}

/*
 * Strangers closed are counted and logged at most once a second: an
 * attacker's connections come and go by the thousand, and a log line each
 * would contend with slurmctld's own threads for the log.
 */
static void log_closed(void)
{
	time_t now = time(NULL);

	if (now == listener.closed_second || (!listener.evicted &&
	    !listener.expired && !listener.evicted_authed))
		return;
	debug("sched/optimus: report listener: closed %lu unauthenticated "
	      "connections to make room, %lu authenticated ones of the user "
	      "holding the most, and %lu past their deadline "
	      "(ReportAuthTimeout/ReportTimeout) since %ld", listener.evicted,
	      listener.evicted_authed, listener.expired,
	      (long)listener.closed_second);
	listener.closed_second = now;
	listener.evicted = listener.expired = listener.evicted_authed = 0;
}

/* Serve ready connections (walking backwards so closing is safe). */
static void serve_ready(struct pollfd *pfds, size_t n)
{
	time_t now = time(NULL);

	for (size_t k = n; k-- > 0;) {
		conn_t *c = &listener.conns[k];
		short re = pfds[k + 2].revents;
		bool keep = true;

		if (re & (POLLERR | POLLNVAL))
			keep = false;
		else if (!c->out && (re & (POLLIN | POLLHUP)))
			keep = conn_read(c);
		/* A reply just made is usually written at once, without
		 * waiting a poll round for POLLOUT. */
		if (keep && c->out)
			keep = conn_write(c);
		if (keep && now > c->deadline) {
			listener.expired++;
			keep = false;
		}
		if (!keep)
			conn_close(k);
	}
}

static void *listener_thread(void *arg)
{
	struct pollfd *pfds = xcalloc(listener.max_conns + 2, sizeof(*pfds));

	double rest_until = 0;

	while (true) {
		size_t n = listener.nconns;
		double rest = rest_until - now_seconds();
		int timeout = LISTENER_POLL_MS;

		pfds[0] = (struct pollfd){ .fd = listener.wake[0], .events = POLLIN };
		/* a negative fd is ignored by poll(): the listening socket rests */
		pfds[1] = (struct pollfd){ .fd = rest > 0 ? -1 : listener.lfd,
					   .events = POLLIN };
		if (rest > 0)
			timeout = (int)(rest * 1e3) + 1;
		for (size_t i = 0; i < n; i++)
			pfds[i + 2] = (struct pollfd){ .fd = listener.conns[i].fd,
				.events = listener.conns[i].out ? POLLOUT : POLLIN };
		if (poll(pfds, n + 2, timeout) < 0 && errno != EINTR) {
			error("sched/optimus: report listener: poll: %m");
			break;
		}
		if (pfds[0].revents)
			break;
		serve_ready(pfds, n);
		if ((pfds[1].revents & POLLIN) && accept_all())
			rest_until = now_seconds() + LISTENER_FLOOD_PAUSE_MS / 1e3;
		log_closed();
	}
	while (listener.nconns)
		conn_close(listener.nconns - 1);
	xfree(pfds);
	return NULL;
}

/* A listening socket at addr:port; bound: the address taken, numeric. */
static int listen_socket(const char *addr, uint16_t port, char *bound,
			 size_t len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res;
	char service[8];
	int fd, one = 1, gai;

	snprintf(service, sizeof(service), "%u", port);
	if ((gai = getaddrinfo(addr, service, &hints, &res))) {
		error("sched/optimus: ReportAddress %s: %s", addr, gai_strerror(gai));
		return -1;
	}
	if (getnameinfo(res->ai_addr, res->ai_addrlen, bound, len, NULL, 0,
			NI_NUMERICHOST))
		snprintf(bound, len, "%s", addr);
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, SOMAXCONN)) {
			error("sched/optimus: report listener: cannot listen on "
			      "%s:%u: %m", addr, port);
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	return fd;
}

/* The munge socket slurmctld itself uses (AuthInfo=socket=...). */
static char *auth_socket(void)
{
	char *p = slurm_conf.authinfo ? xstrcasestr(slurm_conf.authinfo,
						    "socket=") : NULL;
	char *s;

	if (!p)
		return NULL;
	s = xstrdup(p + 7);
	s[strcspn(s, ",")] = '\0';
	return s;
}

static int service_create(void)
{
	static char *socket_path;
	report_service_conf_t sc = REPORT_SERVICE_CONF_DEFAULT;
	report_callbacks_t cb = { .job_owner = listener_job_owner,
				  .admit = listener_admit,
				  .rebatch = rebatch_reply };

	xfree(socket_path);
	socket_path = auth_socket();
	sc.munge_socket = socket_path;
	sc.admin_uid = slurm_conf.slurm_user_id;
	sc.replay_window = optimus_conf.report_replay_window;
	sc.replay_capacity = optimus_conf.report_replay_capacity;
	sc.queue_capacity = optimus_conf.report_queue_size;
	sc.status_max_jobs = optimus_conf.report_status_max_jobs;
	listener.service = report_service_create(&sc, &cb);
	if (!listener.service) {
		error("sched/optimus: report listener: out of memory");
		return SLURM_ERROR;
	}
	return SLURM_SUCCESS;
}

/*
 * Where to listen: ReportAddress, but a wildcard one (0.0.0.0, ::) under
 * CommunicationParameters=NoCtldInAddrAny is this controller's own address,
 * the one slurmctld binds its own port to (slurm_setup_addr: the address
 * its host name resolves to). Controllers that share a host on addresses of
 * their own (SlurmctldHost=name(addr)) then each listen on their own, and a
 * client, trying SlurmctldHost's addresses in order, finds the one in
 * charge; bound to every address, the first one would reach
 * whichever listens.
 */
static const char *listen_address(char *host, size_t len)
{
	const char *a = optimus_conf.report_address;

	if ((strcmp(a, "0.0.0.0") && strcmp(a, "::")) ||
	    !xstrcasestr(slurm_conf.comm_params, "NoCtldInAddrAny") ||
	    gethostname(host, len))
		return a;
	host[len - 1] = '\0';
	return host;
}

extern int listener_start(void)
{
	char host[256], bound[NI_MAXHOST];
	const char *addr;

	optimus_conf_load();
	if (listener.running || optimus_conf.report_port == 0)
		return SLURM_SUCCESS;
	addr = listen_address(host, sizeof(host));
	listener.lfd = listen_socket(addr, optimus_conf.report_port, bound,
				     sizeof(bound));
	if (listener.lfd < 0)
		return SLURM_ERROR;
	if (service_create() != SLURM_SUCCESS || pipe2(listener.wake, O_CLOEXEC)) {
		close(listener.lfd);
		listener.lfd = -1;
		return SLURM_ERROR;
	}
	listener.max_conns = optimus_conf.report_max_connections;
	listener.max_peer = optimus_conf.report_max_peer_connections;
	listener.timeout = optimus_conf.report_timeout;
	listener.auth_timeout = optimus_conf.report_auth_timeout;
	listener.conns = xcalloc(listener.max_conns, sizeof(*listener.conns));
	listener.scope = xcalloc(listener.max_conns, sizeof(*listener.scope));
	listener.scope_index = xcalloc(listener.max_conns,
				       sizeof(*listener.scope_index));
	slurm_thread_create(&listener.thread, listener_thread, NULL);
	listener.running = true;
	info("sched/optimus: report listener on %s:%u", bound,
	     optimus_conf.report_port);
	return SLURM_SUCCESS;
}

extern void listener_stop(void)
{
	if (!listener.running)
		return;
	(void)!write(listener.wake[1], "x", 1);
	pthread_join(listener.thread, NULL);
	close(listener.wake[0]);
	close(listener.wake[1]);
	close(listener.lfd);
	listener.wake[0] = listener.wake[1] = listener.lfd = -1;
	xfree(listener.conns);
	xfree(listener.scope);
	xfree(listener.scope_index);
	report_service_destroy(listener.service);
	listener.service = NULL;
	listener.running = false;
}

extern report_queue_t *listener_attach_consumer(void)
{
	return listener.service ?
		       report_service_attach_consumer(listener.service) :
		       NULL;
}

extern void listener_set_query(json_object *(*query)(
	const query_t *q, const report_viewer_t *v))
{
	if (listener.service)
		report_service_set_query(listener.service, query);
}

extern void listener_set_metrics(int (*fn)(metrics_t *m))
{
	if (listener.service)
		report_service_set_metrics(listener.service, fn);
}

extern report_history_t *listener_history(void)
{
	return listener.service ? report_service_history(listener.service) : NULL;
}

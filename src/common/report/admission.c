/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * admission.c - the connection that makes room (admission.h).
 */
#include "report/admission.h"

/* Connections in conns held by uid (authenticated ones). */
static size_t held_by(const admission_conn_t *conns, size_t n, uid_t uid)
{
	size_t held = 0;

	for (size_t i = 0; i < n; i++)
		held += conns[i].authed && conns[i].uid == uid;
	return held;
}

/* Is a a better victim than b? Oldest stranger; then, among the
 * authenticated, the top holder's; among its own, idle before busy (a
 * busy one would lose the reply it is waiting for), then oldest. */
static bool better(const admission_conn_t *a, size_t a_held,
		   const admission_conn_t *b, size_t b_held)
{
	if (a->authed != b->authed)
		return !a->authed;
	if (a->authed && a_held != b_held)
		return a_held > b_held;
	if (a->authed && a->uid != b->uid)
		return a->uid < b->uid;		/* ties: any stable choice */
	if (a->busy != b->busy)
		return !a->busy;
	return a->seq < b->seq;
}

/* The oldest stranger is found in one pass. Only when there is none is
 * each uid's count taken, O(n^2) in the scope's connections
 * (ReportMaxConnections, 256): every authenticated connection cost its
 * holder a munge credential, so this cannot be had at flood rates. */
ssize_t admission_victim(const admission_conn_t *conns, size_t n)
{
	ssize_t best = -1;
	size_t best_held = 0;

	for (size_t i = 0; i < n; i++)
		if (!conns[i].authed && (best < 0 || conns[i].seq < conns[best].seq))
			best = (ssize_t)i;
	if (best >= 0)
		return best;
	for (size_t i = 0; i < n; i++) {
		size_t held = held_by(conns, n, conns[i].uid);

		if (best < 0 || better(&conns[i], held, &conns[best], best_held)) {
			best = (ssize_t)i;
			best_held = held;
		}
	}
	return best;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * admission.h - which connection gives up its slot when the listener's
 * limits are reached (doc/design/reports.md "Admission", "Fair shares").
 *
 * The listener describes the connections in the limit's scope (one
 * address, or all); the rule picks the one to close so that the newcomer
 * gets a slot: the oldest stranger (no valid credential yet) first; when
 * every one is authenticated, a connection of the uid holding the most
 * of them, an idle one if it has one. So a user holding connections only
 * ever pushes out its own, and nobody is refused because another user
 * holds more than its share.
 */
#ifndef OPTIMUS_REPORT_ADMISSION_H
#define OPTIMUS_REPORT_ADMISSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct admission_conn {
	uint64_t seq;		/* accept order: lower is older */
	bool authed;		/* a request carried a valid credential */
	uid_t uid;		/* of its last valid credential (authed) */
	bool busy;		/* mid-request: a frame read or a reply written */
} admission_conn_t;

/* Index (into conns) of the connection to close, -1 when n is 0. */
ssize_t admission_victim(const admission_conn_t *conns, size_t n);

#endif

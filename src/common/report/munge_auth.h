/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * munge_auth.h - bind a report payload to its sender with munge.
 *
 * The client munge-encodes the payload text itself, so the credential
 * carries (and authenticates) the exact bytes; the server decodes the
 * credential, which gives the sender's uid, and requires the decoded bytes
 * to equal the payload that travels beside it. munged refuses expired and
 * replayed credentials (EMUNGE_CRED_EXPIRED / EMUNGE_CRED_REPLAYED).
 * socket: munged's socket path, NULL for munge's default.
 */
#ifndef OPTIMUS_MUNGE_AUTH_H
#define OPTIMUS_MUNGE_AUTH_H

#include <stddef.h>
#include <sys/types.h>

typedef enum munge_auth_status {
	MUNGE_AUTH_OK = 0,
	MUNGE_AUTH_INVALID = 1,		/* garbled, forged or wrong key */
	MUNGE_AUTH_EXPIRED = 2,		/* older than its time-to-live */
	MUNGE_AUTH_REPLAYED = 3,	/* munged saw it decoded before */
	MUNGE_AUTH_MISMATCH = 4,	/* payload differs from the credential's */
	MUNGE_AUTH_UNAVAILABLE = 5,	/* munged unreachable or local error */
} munge_auth_status_t;

/* Encode len bytes; ttl 0 = munged's default. 0 with a malloc'd *cred, or
 * -EACCES with a reason. */
int munge_auth_encode(const char *socket, const void *data, size_t len,
		      int ttl, char **cred, char *err, size_t errlen);

/* Decode cred and check it carries exactly payload[0..len). */
munge_auth_status_t munge_auth_verify(const char *socket, const char *cred,
				      const char *payload, size_t len,
				      uid_t *uid, char *err, size_t errlen);

/* A short word for replies and logs: "invalid", "expired", ... */
const char *munge_auth_status_name(munge_auth_status_t st);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * munge_auth.c - munge_encode/munge_decode with an explicit socket
 * (munge_auth.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <munge.h>

#include "report/munge_auth.h"
#include "util/errmsg.h"

static munge_ctx_t ctx_open(const char *socket, char *err, size_t errlen)
{
	munge_ctx_t ctx = munge_ctx_create();

	if (!ctx) {
		errmsg_set(err, errlen, 0, "munge_ctx_create failed");
		return NULL;
	}
	if (socket && *socket &&
	    munge_ctx_set(ctx, MUNGE_OPT_SOCKET, socket) != EMUNGE_SUCCESS) {
		errmsg_set(err, errlen, 0, "munge socket %s: %s", socket,
			   munge_ctx_strerror(ctx));
		munge_ctx_destroy(ctx);
		return NULL;
	}
	return ctx;
}

int munge_auth_encode(const char *socket, const void *data, size_t len,
		      int ttl, char **cred, char *err, size_t errlen)
{
	munge_ctx_t ctx = ctx_open(socket, err, errlen);
	munge_err_t e;

	*cred = NULL;
	if (!ctx)
		return -EACCES;
	if (ttl > 0)
		munge_ctx_set(ctx, MUNGE_OPT_TTL, ttl);
	e = munge_encode(cred, ctx, data, (int)len);
	if (e != EMUNGE_SUCCESS) {
		errmsg_set(err, errlen, 0,
			   "munge_encode: %s", munge_ctx_strerror(ctx));
		free(*cred);
		*cred = NULL;
	}
	munge_ctx_destroy(ctx);
	return e == EMUNGE_SUCCESS ? 0 : -EACCES;
}

static munge_auth_status_t status_of(munge_err_t e)
{
	switch (e) {
	case EMUNGE_SUCCESS:
		return MUNGE_AUTH_OK;
	case EMUNGE_CRED_EXPIRED:
	case EMUNGE_CRED_REWOUND:
		return MUNGE_AUTH_EXPIRED;
	case EMUNGE_CRED_REPLAYED:
		return MUNGE_AUTH_REPLAYED;
	case EMUNGE_SOCKET:
	case EMUNGE_TIMEOUT:
	case EMUNGE_NO_MEMORY:
	case EMUNGE_SNAFU:
		return MUNGE_AUTH_UNAVAILABLE;
	default:
		return MUNGE_AUTH_INVALID;
	}
}

munge_auth_status_t munge_auth_verify(const char *socket, const char *cred,
				      const char *payload, size_t len,
				      uid_t *uid, char *err, size_t errlen)
{
	munge_ctx_t ctx = ctx_open(socket, err, errlen);
	munge_auth_status_t st;
	void *data = NULL;
	int dlen = 0;
	gid_t gid;
	munge_err_t e;

	if (!ctx)
		return MUNGE_AUTH_UNAVAILABLE;
	e = munge_decode(cred, ctx, &data, &dlen, uid, &gid);
	st = status_of(e);
	if (st != MUNGE_AUTH_OK)
		errmsg_set(err, errlen, 0, "credential %s: %s",
			   munge_auth_status_name(st), munge_ctx_strerror(ctx));
	else if (dlen < 0 || (size_t)dlen != len || memcmp(data, payload, len)) {
		st = MUNGE_AUTH_MISMATCH;
		errmsg_set(err, errlen, 0,
			   "payload does not match its credential "
			   "(%d credential bytes, %zu payload bytes)", dlen,
			   len);
	}
	free(data);
	munge_ctx_destroy(ctx);
	return st;
}

const char *munge_auth_status_name(munge_auth_status_t st)
{
	static const char *const names[] = {
		[MUNGE_AUTH_OK] = "ok",
		[MUNGE_AUTH_INVALID] = "invalid",
		[MUNGE_AUTH_EXPIRED] = "expired",
		[MUNGE_AUTH_REPLAYED] = "replayed",
		[MUNGE_AUTH_MISMATCH] = "mismatch",
		[MUNGE_AUTH_UNAVAILABLE] = "unavailable",
	};

	if ((unsigned)st >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[st];
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * replay_cache.h - refuse a report message seen before, or too old.
 *
 * munged refuses a credential decoded twice (EMUNGE_CRED_REPLAYED), but only
 * while it remembers it and only for the same daemon; this cache is our own
 * check on top: every message carries a random nonce and its send time, and
 * (uid, nonce) is remembered for the acceptance window, outside of which the
 * message is refused as stale anyway. Bounded, in fair shares per uid: when
 * the table is full, the uid holding the most slots gives one up to a uid
 * holding fewer, and only a uid holding the most itself is refused
 * (REPLAY_FULL, the caller sheds the message). Not thread-safe.
 */
#ifndef OPTIMUS_REPLAY_CACHE_H
#define OPTIMUS_REPLAY_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef enum replay_verdict {
	REPLAY_FRESH = 0,	/* first sight: now remembered */
	REPLAY_SEEN = 1,	/* same (uid, nonce) within the window */
	REPLAY_STALE = 2,	/* sent time outside now +- window */
	REPLAY_FULL = 3,	/* no room, and uid holds the most: shed */
} replay_verdict_t;

typedef struct replay_cache replay_cache_t;

/* capacity: live entries kept (rounded up to a power of two); window: s. */
replay_cache_t *replay_cache_create(size_t capacity, unsigned window);
void replay_cache_destroy(replay_cache_t *rc);
replay_verdict_t replay_cache_check(replay_cache_t *rc, uid_t uid,
				    uint64_t nonce, int64_t sent, int64_t now);
/* Give back the slot of a message checked FRESH but then refused for want
 * of room (not on its merits): the sender's next attempt carries a new
 * nonce anyway, and a busy listener must not fill the cache. */
void replay_cache_forget(replay_cache_t *rc, uid_t uid, uint64_t nonce,
			 int64_t now);
/* Slots held by uid (live, or expired and not yet swept). */
size_t replay_cache_held(replay_cache_t *rc, uid_t uid);
size_t replay_cache_live(const replay_cache_t *rc, int64_t now);
const char *replay_verdict_name(replay_verdict_t v);

#endif

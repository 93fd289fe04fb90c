/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * replay_cache.c - open-addressing table of (uid, nonce) with expiry.
 *
 * An entry expires `window` seconds after its send time; expired slots are
 * reused on insert but still walked on lookup, so a probe chain is never
 * broken (no tombstones needed). The message's own send time must be within
 * the window, so an expired entry can only match a message that is stale.
 * Probe chains stay short because the table is kept at most 3/4 used: past
 * that, expired entries are swept out by a rehash, and if it is still 3/4
 * full of live entries the uid holding the most slots gives one up to a
 * uid holding fewer (fair shares); a uid holding the most is shed
 * (REPLAY_FULL).
 */
#include <stdlib.h>

#include "report/replay_cache.h"

typedef struct replay_entry {
	uint64_t nonce;
	int64_t expires;	/* 0: never used */
	uid_t uid;
} replay_entry_t;

/* Slots held by one uid (live or expired but not yet swept). */
typedef struct replay_holder {
	uid_t uid;
	size_t held;
} replay_holder_t;

struct replay_cache {
	replay_entry_t *slots;
	size_t mask;
	size_t used;		/* slots with expires != 0 */
	int64_t last_sweep;	/* at most one O(n) sweep a second */
	unsigned window;
	replay_holder_t *holders;	/* one per uid holding a slot */
	size_t nholders, holders_cap;
	size_t cursor;		/* where the next eviction scan starts */
};

replay_cache_t *replay_cache_create(size_t capacity, unsigned window)
{
	replay_cache_t *rc = calloc(1, sizeof(*rc));
	size_t n = 16;

	if (!rc)
		return NULL;
	while (n < capacity)
		n <<= 1;
	rc->slots = calloc(n, sizeof(*rc->slots));
	if (!rc->slots) {
		free(rc);
		return NULL;
	}
	rc->mask = n - 1;
	rc->window = window;
	return rc;
}

void replay_cache_destroy(replay_cache_t *rc)
{
	if (!rc)
		return;
	free(rc->slots);
	free(rc->holders);
	free(rc);
}

/* The holder record of uid; created (held 0) when add, else NULL if none.
 * A linear array: one record per user with a slot, a few hundred at most. */
static replay_holder_t *holder_of(replay_cache_t *rc, uid_t uid, int add)
{
	for (size_t i = 0; i < rc->nholders; i++)
		if (rc->holders[i].uid == uid)
			return &rc->holders[i];
	if (!add)
		return NULL;
	if (rc->nholders == rc->holders_cap) {
		size_t cap = rc->holders_cap ? 2 * rc->holders_cap : 16;
		replay_holder_t *h = realloc(rc->holders, cap * sizeof(*h));

		if (!h)
			return NULL;
		rc->holders = h;
		rc->holders_cap = cap;
	}
	rc->holders[rc->nholders] = (replay_holder_t){ .uid = uid, .held = 0 };
	return &rc->holders[rc->nholders++];
}

static size_t held_by(replay_cache_t *rc, uid_t uid)
{
	replay_holder_t *h = holder_of(rc, uid, 0);

	return h ? h->held : 0;
}

static void holder_drop(replay_cache_t *rc, uid_t uid)
{
	replay_holder_t *h = holder_of(rc, uid, 0);

	if (h && --h->held == 0)
		*h = rc->holders[--rc->nholders];
}

/* splitmix64 finaliser: nonces are random, but a uid-mixed hash keeps
 * a hostile sender from aiming at one chain with chosen nonces. */
static size_t slot_of(const replay_cache_t *rc, uid_t uid, uint64_t nonce)
{
	uint64_t x = nonce ^ ((uint64_t)uid * 0x9e3779b97f4a7c15ULL);

	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return (size_t)x & rc->mask;
}

static void insert_slot(replay_entry_t *slots, size_t mask, size_t i,
			replay_entry_t e)
{
	while (slots[i].expires != 0)
		i = (i + 1) & mask;
	slots[i] = e;
}

/* Rehash the live entries into a fresh table of the same size, and count
 * each uid's slots again. */
static void sweep(replay_cache_t *rc, int64_t now)
{
	replay_entry_t *fresh = calloc(rc->mask + 1, sizeof(*fresh));

	if (!fresh)
		return;
	rc->used = 0;
	rc->nholders = 0;
	for (size_t i = 0; i <= rc->mask; i++) {
		replay_entry_t e = rc->slots[i];
		replay_holder_t *h;

		if (e.expires <= now)
			continue;
		insert_slot(fresh, rc->mask, slot_of(rc, e.uid, e.nonce), e);
		rc->used++;
		if ((h = holder_of(rc, e.uid, 1)))
			h->held++;
	}
	free(rc->slots);
	rc->slots = fresh;
}

static int crowded(const replay_cache_t *rc)
{
	return rc->used >= (rc->mask + 1) / 4 * 3;
}

/* Empty slot i for good (linear probing's backward-shift deletion: later
 * entries of the chain move up, so no probe chain is broken and the slot
 * really is free, unlike an expired entry). */
static void delete_at(replay_cache_t *rc, size_t i)
{
	size_t j = i;

	holder_drop(rc, rc->slots[i].uid);
	rc->used--;
	for (;;) {
		size_t k;

		j = (j + 1) & rc->mask;
		if (rc->slots[j].expires == 0)
			break;
		k = slot_of(rc, rc->slots[j].uid, rc->slots[j].nonce);
		/* the entry at j stays if its home k lies cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		rc->slots[i] = rc->slots[j];
		i = j;
	}
	rc->slots[i] = (replay_entry_t){ 0 };
}

/* The table is full. Fair shares (doc/design/reports.md "Fair shares"): the uid
 * holding the most slots gives one up for a uid holding fewer; a uid that
 * holds the most itself is refused (its own load costs only itself). The
 * evicted nonce could be replayed by its owner, for its own jobs only. */
static int make_room(replay_cache_t *rc, uid_t uid)
{
	replay_holder_t *top = NULL;
	uid_t victim;

	for (size_t i = 0; i < rc->nholders; i++)
		if (!top || rc->holders[i].held > top->held)
			top = &rc->holders[i];
	if (!top || top->held <= held_by(rc, uid))
		return -1;
	victim = top->uid;
	for (size_t n = 0; n <= rc->mask; n++) {
		size_t i = (rc->cursor + n) & rc->mask;

		if (rc->slots[i].expires != 0 && rc->slots[i].uid == victim) {
			rc->cursor = (i + 1) & rc->mask;
			delete_at(rc, i);
			return 0;
		}
	}
	return -1;
}

replay_verdict_t replay_cache_check(replay_cache_t *rc, uid_t uid,
				    uint64_t nonce, int64_t sent, int64_t now)
{
	size_t i = slot_of(rc, uid, nonce), free_slot = SIZE_MAX;
	replay_holder_t *h;

	if (sent < now - (int64_t)rc->window || sent > now + (int64_t)rc->window)
		return REPLAY_STALE;
	/* a replay is refused as such, full table or not */
	for (size_t probes = 0; probes <= rc->mask; probes++, i = (i + 1) & rc->mask) {
		replay_entry_t *e = &rc->slots[i];

		if (e->expires == 0)
			break;
		if (e->expires > now && e->nonce == nonce && e->uid == uid)
			return REPLAY_SEEN;
	}
	if (crowded(rc) && rc->last_sweep != now) {
		sweep(rc, now);
		rc->last_sweep = now;
	}
	if (crowded(rc) && make_room(rc, uid) != 0)
		return REPLAY_FULL;
	i = slot_of(rc, uid, nonce);
	for (size_t probes = 0; probes <= rc->mask; probes++, i = (i + 1) & rc->mask) {
		if (rc->slots[i].expires == 0 || rc->slots[i].expires <= now) {
			free_slot = i;
			break;
		}
	}
	/* the record is made first, so that the one below cannot fail:
	 * holder_drop only removes records (and may move them) */
	if (free_slot == SIZE_MAX || !holder_of(rc, uid, 1))
		return REPLAY_FULL;
	if (rc->slots[free_slot].expires == 0)
		rc->used++;
	else
		holder_drop(rc, rc->slots[free_slot].uid);
	h = holder_of(rc, uid, 1);
	h->held++;
	rc->slots[free_slot] = (replay_entry_t){
		.nonce = nonce, .uid = uid,
		.expires = sent + (int64_t)rc->window + 1,
	};
	return REPLAY_FRESH;
}

/* The entry turns into an expired one (expires 1, not 0): the probe chain
 * through it stays whole, and the slot is reused or swept like any
 * expired one. */
void replay_cache_forget(replay_cache_t *rc, uid_t uid, uint64_t nonce,
			 int64_t now)
{
	size_t i = slot_of(rc, uid, nonce);

	for (size_t probes = 0; probes <= rc->mask; probes++, i = (i + 1) & rc->mask) {
		replay_entry_t *e = &rc->slots[i];

		if (e->expires == 0)
			return;
		if (e->expires > now && e->nonce == nonce && e->uid == uid) {
			e->expires = 1;
			return;
		}
	}
}

size_t replay_cache_held(replay_cache_t *rc, uid_t uid)
{
	return held_by(rc, uid);
}

size_t replay_cache_live(const replay_cache_t *rc, int64_t now)
{
	size_t live = 0;

	for (size_t i = 0; i <= rc->mask; i++)
		live += rc->slots[i].expires > now;
	return live;
}

const char *replay_verdict_name(replay_verdict_t v)
{
	switch (v) {
	case REPLAY_FRESH: return "fresh";
	case REPLAY_SEEN: return "replayed";
	case REPLAY_STALE: return "stale";
	case REPLAY_FULL: return "full";
	}
	return "unknown";
}

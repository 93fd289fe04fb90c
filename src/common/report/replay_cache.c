/*
 * replay_cache.c - open-addressing table of (uid, nonce) with expiry.
 *
 * An entry expires `window` seconds after its send time; expired slots are
 * reused on insert but still walked on lookup, so a probe chain is never
 * broken (no tombstones needed). The message's own send time must be within
 * the window, so an expired entry can only match a message that is stale.
 * Probe chains stay short because the table is kept at most 3/4 used: past
 * that, expired entries are swept out by a rehash, and if it is still 3/4
 * full of live entries the message is shed (REPLAY_FULL).
 */
#include <stdlib.h>

#include "report/replay_cache.h"

typedef struct replay_entry {
	uint64_t nonce;
	int64_t expires;	/* 0: never used */
	uid_t uid;
} replay_entry_t;

struct replay_cache {
	replay_entry_t *slots;
	size_t mask;
	size_t used;		/* slots with expires != 0 */
	int64_t last_sweep;	/* at most one O(n) sweep a second */
	unsigned window;
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
	free(rc);
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

/* Rehash the live entries into a fresh table of the same size. */
static void sweep(replay_cache_t *rc, int64_t now)
{
	replay_entry_t *fresh = calloc(rc->mask + 1, sizeof(*fresh));

	if (!fresh)
		return;
	rc->used = 0;
	for (size_t i = 0; i <= rc->mask; i++) {
		replay_entry_t e = rc->slots[i];

		if (e.expires <= now)
			continue;
		insert_slot(fresh, rc->mask, slot_of(rc, e.uid, e.nonce), e);
		rc->used++;
	}
	free(rc->slots);
	rc->slots = fresh;
}

static int crowded(const replay_cache_t *rc)
{
	return rc->used >= (rc->mask + 1) / 4 * 3;
}

replay_verdict_t replay_cache_check(replay_cache_t *rc, uid_t uid,
				    uint64_t nonce, int64_t sent, int64_t now)
{
	size_t i = slot_of(rc, uid, nonce), free_slot = SIZE_MAX;

	if (sent < now - (int64_t)rc->window || sent > now + (int64_t)rc->window)
		return REPLAY_STALE;
	if (crowded(rc) && rc->last_sweep != now) {
		sweep(rc, now);
		rc->last_sweep = now;
	}
	if (crowded(rc))
		return REPLAY_FULL;
	for (size_t probes = 0; probes <= rc->mask; probes++, i = (i + 1) & rc->mask) {
		replay_entry_t *e = &rc->slots[i];

		if (e->expires == 0) {
			if (free_slot == SIZE_MAX)
				free_slot = i;
			break;
		}
		if (e->expires > now && e->nonce == nonce && e->uid == uid)
			return REPLAY_SEEN;
		if (e->expires <= now && free_slot == SIZE_MAX)
			free_slot = i;
	}
	if (free_slot == SIZE_MAX)
		return REPLAY_FULL;
	if (rc->slots[free_slot].expires == 0)
		rc->used++;
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

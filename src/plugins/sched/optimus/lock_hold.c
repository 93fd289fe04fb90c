/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * lock_hold.c - longest lock holds, kept with atomics so that timing a
 * hold never takes another lock.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>

#include "lock_hold.h"

static uint64_t hold_last_ns[LOCK_SITE_NUM];
static uint64_t hold_ever_ns[LOCK_SITE_NUM];

static void hold_max(uint64_t *slot, uint64_t ns)
{
	uint64_t cur = __atomic_load_n(slot, __ATOMIC_RELAXED);

	while (ns > cur &&
	       !__atomic_compare_exchange_n(slot, &cur, ns, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

extern void lock_hold_begin(struct timespec *since)
{
	clock_gettime(CLOCK_MONOTONIC, since);
}

extern void lock_hold_end(lock_site_t site, const struct timespec *since)
{
	struct timespec now;
	int64_t ns;

	if ((unsigned) site >= LOCK_SITE_NUM)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (int64_t) (now.tv_sec - since->tv_sec) * 1000000000 +
	     (now.tv_nsec - since->tv_nsec);
	if (ns < 0)
		ns = 0;
	hold_max(&hold_last_ns[site], (uint64_t) ns);
	hold_max(&hold_ever_ns[site], (uint64_t) ns);
}

extern void lock_hold_take(double last[LOCK_SITE_NUM],
			   double ever[LOCK_SITE_NUM])
{
	for (int s = 0; s < LOCK_SITE_NUM; s++) {
		last[s] = 1e-9 * (double) __atomic_exchange_n(
			&hold_last_ns[s], 0, __ATOMIC_RELAXED);
		ever[s] = 1e-9 * (double) __atomic_load_n(&hold_ever_ns[s],
							  __ATOMIC_RELAXED);
	}
}

extern const char *lock_site_name(lock_site_t site)
{
	static const char *const names[] = { "snapshot", "apply", "registry" };

	return (unsigned) site < LOCK_SITE_NUM ? names[site] : "unknown";
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * backfill_delegate.c - run Slurm's own sched/backfill inside sched/optimus.
 *
 * Slurm loads exactly one scheduler plugin. Ordinary (non-optimus) jobs must
 * keep Slurm's backfill, so sched/optimus loads sched/backfill itself: its
 * init() starts the backfill thread, and its fini() stops it.
 */
#include "config.h"

#include "src/common/log.h"
#include "src/common/plugin.h"

#include "backfill_delegate.h"

static const char *backfill_syms[] = { "sched_p_reconfig" };
static int (*backfill_reconfig_fn)(void);
static plugin_handle_t backfill_handle = PLUGIN_INVALID_HANDLE;

extern int backfill_delegate_load(void)
{
	void *ptrs[1] = { NULL };

	backfill_handle = plugin_load_and_link("sched/backfill", 1,
					       backfill_syms, ptrs);
	if (backfill_handle == PLUGIN_INVALID_HANDLE) {
		error("sched/optimus: cannot load sched/backfill; ordinary jobs would never be backfilled");
		return SLURM_ERROR;
	}
	backfill_reconfig_fn = ptrs[0];
	info("sched/optimus: delegating ordinary jobs to sched/backfill");
	return SLURM_SUCCESS;
}

extern int backfill_delegate_reconfig(void)
{
	if (!backfill_reconfig_fn)
		return SLURM_SUCCESS;
	return backfill_reconfig_fn();
}

extern void backfill_delegate_unload(void)
{
	if (backfill_handle == PLUGIN_INVALID_HANDLE)
		return;
	plugin_unload(backfill_handle);	/* calls backfill's fini() */
	backfill_handle = PLUGIN_INVALID_HANDLE;
	backfill_reconfig_fn = NULL;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/policy.c - the measured-workload experiment's policies by name
 * (measured/policy.h): the peer's rules (measured/peer_baselines.c),
 * Slurm's (measured/slurm_backfill.c) and ours, every one of ours through
 * the plan itself (measured/plan_adapter.c).
 */
#include <string.h>

#include "measured/policy.h"

const char *const px_policy_names[] = {
	"peer-optimus-oracle", "tiresias", "optimus", "optimus-rate",
	"goodput", "goodput-nopreempt", "optimus-oracle", "quality", "drf",
	"fifo", "slurm-backfill", "first-fit",
};
const size_t px_policy_count = sizeof(px_policy_names) /
			       sizeof(px_policy_names[0]);

px_policy_t *px_policy_new(const char *name, px_prerun_mode_t prerun)
{
	px_policy_t *p;

	if (!strcmp(name, "peer-optimus-oracle"))
		return px_peer_optimus_new();
	if (!strcmp(name, "tiresias"))
		return px_tiresias_new();
	if ((p = px_backfill_new(name)))
		return p;
	return px_plan_new(name, prerun);
}

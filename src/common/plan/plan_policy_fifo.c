/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_policy_fifo.c - Policy=fifo, a baseline (doc/design/planning.md): jobs
 * granted in order, a job that does not fit holding back the ones after
 * it (alloc/fifo.c); running jobs kept or resized by Optimus' rules
 * (PLAN_OPTIMUS_JOB_OPS).
 */
#include "plan/plan_priv.h"

/* A job the allocator queued behind an older one that did not fit. */
static bool plan_fifo_wait_reason(const plan_ctx_t *c, size_t i,
				  res_vec_t cap, plan_decision_t *d)
{
	(void)cap;
	if (c->grant2[i].status != ALLOC_WAITING)
		return false;
	plan_reason(d, "optimus: FIFO: waits behind an older job");
	return true;
}

const plan_policy_ops_t plan_policy_fifo = {
	.name = "fifo",
	.fixed_size = true,
	.allocate = alloc_fifo_run,
	PLAN_OPTIMUS_JOB_OPS,
	.wait_reason = plan_fifo_wait_reason,
};

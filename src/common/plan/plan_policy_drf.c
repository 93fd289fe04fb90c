/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_policy_drf.c - Policy=drf, a baseline (doc/design/planning.md): tasks
 * shared by dominant resource fairness (alloc/drf.c); running jobs kept or
 * resized by Optimus' rules (PLAN_OPTIMUS_JOB_OPS).
 */
#include "plan/plan_priv.h"

const plan_policy_ops_t plan_policy_drf = {
	.name = "drf",
	.fixed_size = true,
	.allocate = alloc_drf_run,
	PLAN_OPTIMUS_JOB_OPS,
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_policy_tetris.c - Policy=tetris, a baseline (doc/design/planning.md):
 * tasks packed by Tetris' alignment score (alloc/tetris.c); running jobs
 * kept or resized by Optimus' rules (PLAN_OPTIMUS_JOB_OPS).
 */
#include "plan/plan_priv.h"

/*
 * Pending jobs come shortest remaining time (at their minimum size)
 * first: Tetris' SRTF preference decides which waiting job starts when
 * not all fit, as its packing score does for tasks.
 */
static double plan_tetris_order_key(const plan_ctx_t *c, size_t i)
{
	const alloc_job_t *a = &c->aj[i];

	return alloc_jct(a, alloc_min_ps(a), alloc_min_workers(a));
}

const plan_policy_ops_t plan_policy_tetris = {
	.name = "tetris",
	.fixed_size = true,
	.allocate = alloc_tetris_run,
	.order_key = plan_tetris_order_key,
	PLAN_OPTIMUS_JOB_OPS,
};

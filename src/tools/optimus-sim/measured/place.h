/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/place.h - the GPUs of the measured engine's policies that place
 * their own jobs (the peer's baselines, the Slurm baselines, a charged
 * pre-run), on the free GPUs per node: free[k] for node k of PX_NODES,
 * 0 for a node beyond the cluster's. A placement appends one node index
 * per GPU to a job's next allocation (px_policy_t's next[]: grant order)
 * and takes
 * them off free[]; a job it cannot place gets nothing.
 */
#ifndef OPTIMUS_POLLUX_PLACE_H
#define OPTIMUS_POLLUX_PLACE_H

#include <stdbool.h>
#include <stddef.h>

#include "measured/engine.h"

/* Place `want` more GPUs, each from the node with the most free GPUs,
 * lowest index on ties (the peer's rule). 0. */
int px_place_most_free(int *free, int want, int *alloc, int *nalloc);
/*
 * Place `want` GPUs as the plan places a job (alloc/placement.h, Theorem
 * 1): on the fewest nodes that hold an even split of them, taken in order
 * of the most free GPUs (lowest index on ties), a split's extra GPUs on
 * the nodes with fewer free. Nothing placed when no even split fits. 0 or
 * -ENOMEM.
 */
int px_place_even(int *free, int want, int *alloc, int *nalloc);
/*
 * Place `want` more GPUs as Slurm's select/cons_tres packs a job in this
 * engine's model of it (the Slurm baselines; not the plugin's rule): whole
 * free nodes first while a node's worth is left, then the rest on the
 * node whose free GPUs fit it most tightly (lowest index on ties); no
 * even split asked. When no node holds the rest whole, it is spread by
 * px_place_most_free. The caller asks for no more than the free GPUs. 0.
 */
int px_place_slurm(int *free, int want, int *alloc, int *nalloc);
/* free[0..PX_NODES): the GPUs of each node not in next[]/nnext[] (the
 * allocations kept, as px_policy_t.plan receives them). */
void px_place_free(const px_sim_t *s, int (*next)[PX_GPUS], const int *nnext,
		   int *free);
/* order[0..n) = 0..n-1 sorted by key, stable; descending if asked. */
void px_order_by(const int *key, size_t n, bool descending, size_t *order);
/*
 * Every GPU not kept in next[]/nnext[] is free; then, in `order`, each
 * active job k (active[order[q]]) that wants want[k] > 0 GPUs and keeps
 * none gets them by `place` (px_place_most_free, px_place_slurm). 0 or
 * -errno with a message in s->err.
 */
int px_place_in_order(px_sim_t *s, const size_t *active, const size_t *order,
		      size_t n, const int *want, int (*next)[PX_GPUS],
		      int *nnext, int (*place)(int *, int, int *, int *));

#endif

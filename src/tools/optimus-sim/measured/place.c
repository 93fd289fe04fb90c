/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/place.c - the GPUs of the policies that place their own jobs
 * (measured/place.h): the peer's most-free rule, the plugin's placement
 * (alloc/placement.c) for one job at a time, and a model of Slurm's.
 */
#include <errno.h>
#include <string.h>

#include "alloc/placement.h"
#include "util/errmsg.h"
#include "measured/place.h"

int px_place_most_free(int *free, int want, int *alloc, int *nalloc)
{
	while (want > 0) {
		int best = -1;
		for (int k = 0; k < PX_NODES; k++)
			if (free[k] > 0 && (best < 0 || free[k] > free[best]))
				best = k;
		if (best < 0)
			return 0;
		int take = free[best] < want ? free[best] : want;
		for (int i = 0; i < take; i++)
			alloc[(*nalloc)++] = best;
		free[best] -= take;
		want -= take;
	}
	return 0;
}

/*
 * A node is a server whose room is its free GPUs, and a GPU a worker task
 * of one GPU, as measured/plan_adapter.c gives them to plan_run; each
 * server holds its own share (same_on_each false, plan_params_t's
 * default the adapter keeps), so a placement here is the one the plan
 * would choose for the job alone on the same free GPUs.
 */
int px_place_even(int *free, int want, int *alloc, int *nalloc)
{
	res_vec_t room[PX_NODES];
	place_job_t job = { .worker_demand = res_make(1, 1, 1),
			    .workers = want };
	place_result_t res;
	int rc, total = 0;

	for (int k = 0; k < PX_NODES; k++) {
		room[k] = res_make(free[k], free[k], free[k]);
		total += free[k];
	}
	/* Fewer GPUs free than wanted: no placement to look for. */
	if (want > total)
		return 0;
	rc = placement_run(room, PX_NODES, &job, 1, &res);
	if (!rc && res.jobs[0].status == PLACE_OK)
		for (size_t q = 0; q < res.jobs[0].nslots; q++) {
			const place_slot_t *sl = &res.jobs[0].slots[q];
			for (int g = 0; g < sl->workers; g++)
				alloc[(*nalloc)++] = (int)sl->server;
			free[sl->server] -= sl->workers;
		}
	placement_result_free(&res);
	return rc;
}

/*
 * Slurm's select/cons_tres packing as this engine models it: whole free
 * nodes while a node's worth is left, then the rest on the fullest node
 * that holds it; no even split required (a 6-GPU job is 4 + 2). A model
 * of Slurm for the Slurm baselines, not a second copy of the plugin's
 * rule (px_place_even).
 */
int px_place_slurm(int *free, int want, int *alloc, int *nalloc)
{
	int best = -1;

	for (int k = 0; k < PX_NODES && want >= PX_NODE_GPUS; k++)
		if (free[k] == PX_NODE_GPUS) {
			for (int g = 0; g < PX_NODE_GPUS; g++)
				alloc[(*nalloc)++] = k;
			free[k] = 0;
			want -= PX_NODE_GPUS;
		}
	if (want <= 0)
		return 0;
	for (int k = 0; k < PX_NODES; k++)
		if (free[k] >= want && (best < 0 || free[k] < free[best]))
			best = k;
	if (best < 0)
		return px_place_most_free(free, want, alloc, nalloc);
	for (int g = 0; g < want; g++)
		alloc[(*nalloc)++] = best;
	free[best] -= want;
	return 0;
}

void px_order_by(const int *key, size_t n, bool descending, size_t *order)
{
	for (size_t k = 0; k < n; k++)
		order[k] = k;
	/* Insertion sort: stable, and n is a few hundred at most. */
	for (size_t a = 1; a < n; a++)
		for (size_t b = a; b > 0; b--) {
			int x = key[order[b - 1]], y = key[order[b]];
			if (descending ? x >= y : x <= y)
				break;
			size_t t = order[b];
			order[b] = order[b - 1];
			order[b - 1] = t;
		}
}

void px_place_free(const px_sim_t *s, int (*next)[PX_GPUS], const int *nnext,
		   int *free)
{
	/* Nodes beyond the cluster's have no GPU to give. */
	for (int k = 0; k < PX_NODES; k++)
		free[k] = k < s->shape.nodes ? PX_NODE_GPUS : 0;
	for (size_t i = 0; i < s->eng.njobs; i++)
		for (int g = 0; g < nnext[i]; g++)
			free[next[i][g]]--;
}

int px_place_in_order(px_sim_t *s, const size_t *active, const size_t *order,
		      size_t n, const int *want, int (*next)[PX_GPUS],
		      int *nnext, int (*place)(int *, int, int *, int *))
{
	int free_[PX_NODES];

	px_place_free(s, next, nnext, free_);
	for (size_t q = 0; q < n; q++) {
		size_t k = order[q], i = active[k];
		int rc = want[k] > 0 && nnext[i] == 0 ?
			 place(free_, want[k], next[i], &nnext[i]) : 0;
		if (rc)
			return errmsg_set(s->err, s->errlen, rc, "%s: no "
					  "placement of %d GPUs: %s",
					  s->jobs[i].spec->name, want[k],
					  strerror(-rc));
	}
	return 0;
}

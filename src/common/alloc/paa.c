/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * paa.c - Parameter Assignment Algorithm and MXNet's default (paa.h).
 *
 * Blocks are handled from the largest down: slicing and best-fit work best
 * when big items go first, and the small blocks, placed last by request
 * count, then even out what best-fit left. Every choice scans the PS
 * (O(blocks * PS)): a model has hundreds of blocks and tens of PS.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/paa.h"

static int paa_init(paa_result_t *out, size_t nps, size_t maxpieces)
{
	memset(out, 0, sizeof(*out));
	out->nps = nps;
	out->load = calloc(nps, sizeof(*out->load));
	out->requests = calloc(nps, sizeof(*out->requests));
	out->pieces = calloc(maxpieces ? maxpieces : 1, sizeof(*out->pieces));
	if (!out->load || !out->requests || !out->pieces)
		return -ENOMEM;
	return 0;
}

void paa_result_free(paa_result_t *out)
{
	free(out->load);
	free(out->requests);
	free(out->pieces);
	memset(out, 0, sizeof(*out));
}

static void paa_put(paa_result_t *out, uint32_t block, uint32_t ps,
		    uint64_t offset, uint64_t size)
{
	out->pieces[out->npieces++] = (paa_piece_t){
		.block = block, .ps = ps, .offset = offset, .size = size,
	};
	out->load[ps] += size;
	out->requests[ps]++;
}

/* Least loaded PS, skipping those marked in `skip` (may be NULL). */
static uint32_t paa_least_loaded(const paa_result_t *out, const bool *skip)
{
	uint32_t best = UINT32_MAX;

	for (uint32_t s = 0; s < out->nps; s++)
		if ((!skip || !skip[s]) &&
		    (best == UINT32_MAX || out->load[s] < out->load[best]))
			best = s;
	return best;
}

static uint32_t paa_fewest_requests(const paa_result_t *out)
{
	uint32_t best = 0;

	for (uint32_t s = 1; s < out->nps; s++)
		if (out->requests[s] < out->requests[best] ||
		    (out->requests[s] == out->requests[best] &&
		     out->load[s] < out->load[best]))
			best = s;
	return best;
}

/* Smallest room >= size; the PS with the most room when none holds it. */
static uint32_t paa_best_fit(const paa_result_t *out, double avg,
			     uint64_t size)
{
	uint32_t best = UINT32_MAX;
	double best_room = INFINITY;

	for (uint32_t s = 0; s < out->nps; s++) {
		double room = avg - (double)out->load[s];
		if (room >= (double)size && room < best_room) {
			best = s;
			best_room = room;
		}
	}
	return best != UINT32_MAX ? best : paa_least_loaded(out, NULL);
}

static void paa_slice(paa_result_t *out, uint32_t b, uint64_t size,
		      double avg, bool *used)
{
	uint64_t m = (uint64_t)ceil((double)size / avg);
	uint64_t offset = 0;

	if (m > out->nps)
		m = out->nps;
	memset(used, 0, out->nps * sizeof(*used));
	for (uint64_t i = 0; i < m; i++) {
		uint64_t piece = size / m + (i < size % m);
		uint32_t s = paa_least_loaded(out, used);
		used[s] = true;
		paa_put(out, b, s, offset, piece);
		offset += piece;
	}
}

typedef struct paa_order {
	uint64_t size;
	uint32_t block;
} paa_order_t;

/* Largest first; ties by block index for determinism. */
static int paa_cmp_desc(const void *a, const void *b)
{
	const paa_order_t *x = a, *y = b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->block < y->block ? -1 : 1;
}

static void paa_place(paa_result_t *out, uint32_t b, uint64_t size,
		      double avg, bool *used)
{
	if ((double)size > avg)
		paa_slice(out, b, size, avg, used);
	else if ((double)size >= PAA_SMALL_FRACTION * avg)
		paa_put(out, b, paa_best_fit(out, avg, size), 0, size);
	else
		paa_put(out, b, paa_fewest_requests(out), 0, size);
}

static int paa_check(const uint64_t *blocks, size_t nblocks, size_t nps)
{
	if (nps == 0 || nps > UINT32_MAX || nblocks > UINT32_MAX ||
	    (nblocks && !blocks))
		return -EINVAL;
	return 0;
}

int paa_assign(const uint64_t *blocks, size_t nblocks, size_t nps,
	       paa_result_t *out)
{
	paa_order_t *order = NULL;
	bool *used = NULL;
	uint64_t total = 0;
	int rc = paa_check(blocks, nblocks, nps);

	memset(out, 0, sizeof(*out));
	if (rc)
		return rc;
	/* Each block yields at most nps pieces. */
	rc = paa_init(out, nps, nblocks * nps);
	order = malloc((nblocks + 1) * sizeof(*order));
	used = malloc(nps * sizeof(*used));
	if (rc || !order || !used) {
		free(order);
		free(used);
		return -ENOMEM;
	}
	for (size_t b = 0; b < nblocks; b++) {
		order[b] = (paa_order_t){ .size = blocks[b], .block = b };
		total += blocks[b];
	}
	qsort(order, nblocks, sizeof(*order), paa_cmp_desc);
	for (size_t i = 0; i < nblocks; i++)
		paa_place(out, order[i].block, order[i].size,
			  (double)total / nps, used);
	free(order);
	free(used);
	return 0;
}

/* splitmix64: a tiny seeded generator, so runs are reproducible. */
static uint64_t paa_next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int paa_mxnet_assign(const uint64_t *blocks, size_t nblocks, size_t nps,
		     uint64_t threshold, uint64_t seed, paa_result_t *out)
{
	int rc = paa_check(blocks, nblocks, nps);

	memset(out, 0, sizeof(*out));
	if (rc || (rc = paa_init(out, nps, nblocks * nps)))
		return rc;
	for (size_t b = 0; b < nblocks; b++) {
		uint64_t size = blocks[b], offset = 0;
		if (size < threshold) {
			paa_put(out, b, paa_next_random(&seed) % nps, 0, size);
			continue;
		}
		for (uint32_t s = 0; s < nps; s++) {
			uint64_t piece = size / nps + (s < size % nps);
			paa_put(out, b, s, offset, piece);
			offset += piece;
		}
	}
	return 0;
}

double paa_load_spread(const paa_result_t *res)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (size_t s = 0; s < res->nps; s++) {
		lo = res->load[s] < lo ? res->load[s] : lo;
		hi = res->load[s] > hi ? res->load[s] : hi;
	}
	if (res->nps == 0 || lo == 0)
		return INFINITY;
	return (double)hi / (double)lo;
}

uint64_t paa_total_requests(const paa_result_t *res)
{
	uint64_t n = 0;

	for (size_t s = 0; s < res->nps; s++)
		n += res->requests[s];
	return n;
}

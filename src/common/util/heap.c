/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* heap.c - indexed binary max-heap (see heap.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "util/heap.h"

int heap_init(heap_t *h, size_t nitems)
{
	size_t cap = nitems ? nitems : 1;

	h->n = 0;
	h->nitems = nitems;
	h->item = malloc(cap * sizeof(*h->item));
	h->key = malloc(cap * sizeof(*h->key));
	h->pos = malloc(cap * sizeof(*h->pos));
	if (!h->item || !h->key || !h->pos) {
		heap_free(h);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nitems; i++)
		h->pos[i] = HEAP_ABSENT;
	return 0;
}

void heap_free(heap_t *h)
{
	free(h->item);
	free(h->key);
	free(h->pos);
	h->item = NULL;
	h->key = NULL;
	h->pos = NULL;
	h->n = 0;
}

/* Does (key ka, item ia) belong above (kb, ib)? Larger key first, then
 * smaller item. */
static bool heap_above(double ka, uint32_t ia, double kb, uint32_t ib)
{
	if (ka != kb)
		return ka > kb;
	return ia < ib;
}

/* Slot `to` takes slot `from`'s entry. */
static void heap_move(heap_t *h, size_t to, size_t from)
{
	h->item[to] = h->item[from];
	h->key[to] = h->key[from];
	h->pos[h->item[to]] = to;
}

static void heap_put(heap_t *h, size_t i, uint32_t item, double key)
{
	h->item[i] = item;
	h->key[i] = key;
	h->pos[item] = i;
}

/*
 * The entry at slot i moved up (sift_up) or down (sift_down) to its place:
 * the entries it passes move one level the other way and it is written
 * once, where it stops. The comparisons and so the order are those of
 * swapping it level by level, without the writes of each swap.
 */
static void heap_sift_up(heap_t *h, size_t i)
{
	uint32_t it = h->item[i];
	double k = h->key[i];

	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!heap_above(k, it, h->key[parent], h->item[parent]))
			break;
		heap_move(h, i, parent);
		i = parent;
	}
	heap_put(h, i, it, k);
}

static void heap_sift_down(heap_t *h, size_t i)
{
	uint32_t it = h->item[i];
	double k = h->key[i];

	for (;;) {
		size_t best = i, l = 2 * i + 1, r = l + 1;
		double kb = k;
		uint32_t ib = it;
		if (l < h->n && heap_above(h->key[l], h->item[l], kb, ib)) {
			best = l;
			kb = h->key[l];
			ib = h->item[l];
		}
		if (r < h->n && heap_above(h->key[r], h->item[r], kb, ib))
			best = r;
		if (best == i)
			break;
		heap_move(h, i, best);
		i = best;
	}
	heap_put(h, i, it, k);
}

void heap_set(heap_t *h, uint32_t item, double key)
{
	size_t i = h->pos[item];

	if (isnan(key))
		key = -INFINITY;
	if (i == HEAP_ABSENT) {
		i = h->n++;
		h->item[i] = item;
		h->pos[item] = i;
	}
	h->key[i] = key;
	heap_sift_up(h, i);
	heap_sift_down(h, h->pos[item]);
}

void heap_remove(heap_t *h, uint32_t item)
{
	size_t i = h->pos[item];

	if (i == HEAP_ABSENT)
		return;
	h->n--;
	if (i != h->n) {
		uint32_t moved = h->item[h->n];

		heap_move(h, i, h->n);
		heap_sift_up(h, i);
		heap_sift_down(h, h->pos[moved]);
	}
	h->pos[item] = HEAP_ABSENT;
}

bool heap_top(const heap_t *h, uint32_t *item, double *key)
{
	if (h->n == 0)
		return false;
	if (item)
		*item = h->item[0];
	if (key)
		*key = h->key[0];
	return true;
}

bool heap_pop(heap_t *h, uint32_t *item, double *key)
{
	uint32_t it;

	if (!heap_top(h, &it, key))
		return false;
	heap_remove(h, it);
	if (item)
		*item = it;
	return true;
}

bool heap_contains(const heap_t *h, uint32_t item)
{
	return item < h->nitems && h->pos[item] != HEAP_ABSENT;
}

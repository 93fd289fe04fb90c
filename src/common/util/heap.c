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

/* Does slot a belong above slot b? Larger key first, then smaller item. */
static bool heap_above(const heap_t *h, size_t a, size_t b)
{
	if (h->key[a] != h->key[b])
		return h->key[a] > h->key[b];
	return h->item[a] < h->item[b];
}

static void heap_swap(heap_t *h, size_t a, size_t b)
{
	uint32_t it = h->item[a];
	double k = h->key[a];

	h->item[a] = h->item[b];
	h->key[a] = h->key[b];
	h->item[b] = it;
	h->key[b] = k;
	h->pos[h->item[a]] = a;
	h->pos[h->item[b]] = b;
}

static void heap_sift_up(heap_t *h, size_t i)
{
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!heap_above(h, i, parent))
			break;
		heap_swap(h, i, parent);
		i = parent;
	}
}

static void heap_sift_down(heap_t *h, size_t i)
{
	for (;;) {
		size_t best = i, l = 2 * i + 1, r = l + 1;
		if (l < h->n && heap_above(h, l, best))
			best = l;
		if (r < h->n && heap_above(h, r, best))
			best = r;
		if (best == i)
			return;
		heap_swap(h, i, best);
		i = best;
	}
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

		heap_swap(h, i, h->n);
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

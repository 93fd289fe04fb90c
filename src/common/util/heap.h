/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * heap.h - indexed binary max-heap of (key, item).
 *
 * Items are small integers (a job or a server index) below the capacity
 * given to heap_init; the heap remembers where each item sits so that one
 * item's key can be changed or removed in O(log n) without a rescan.
 * Equal keys are ordered by the smaller item first, which makes the
 * allocators deterministic (and equal to a linear scan that keeps the first
 * maximum).
 */
#ifndef OPTIMUS_HEAP_H
#define OPTIMUS_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct heap {
	size_t n;         /* items in the heap */
	size_t nitems;    /* items are 0 .. nitems-1 */
	uint32_t *item;   /* heap order */
	double *key;      /* key[i] belongs to item[i] */
	size_t *pos;      /* pos[item] = index in item[], HEAP_ABSENT if out */
} heap_t;

#define HEAP_ABSENT SIZE_MAX

int heap_init(heap_t *h, size_t nitems);
void heap_free(heap_t *h);
/* Insert, or change the key when the item is already in. NaN keys are -inf. */
void heap_set(heap_t *h, uint32_t item, double key);
void heap_remove(heap_t *h, uint32_t item);
bool heap_top(const heap_t *h, uint32_t *item, double *key);
bool heap_pop(heap_t *h, uint32_t *item, double *key);
bool heap_contains(const heap_t *h, uint32_t item);

static inline size_t heap_size(const heap_t *h)
{
	return h->n;
}

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * grow.h - the one growth rule of the core's and the tools' arrays: room
 * for one more element, doubling the capacity.
 */
#ifndef OPTIMUS_GROW_H
#define OPTIMUS_GROW_H

#include <stddef.h>

/*
 * Room for element n of `size` bytes in v, whose capacity is *cap: v as it
 * is when n < *cap, else v reallocated to twice *cap (`first` when 0) and
 * *cap updated. NULL on no memory: v is unchanged and still the caller's.
 */
void *grow_array(void *v, size_t *cap, size_t n, size_t size, size_t first);

#endif

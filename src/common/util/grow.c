/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* grow.c - array growth (see grow.h). */
#include <stdint.h>
#include <stdlib.h>

#include "util/grow.h"

void *grow_array(void *v, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t c;
	void *bigger;

	if (n < *cap)
		return v;
	c = *cap ? 2 * *cap : first;
	if (!size || c > SIZE_MAX / size)
		return NULL;
	bigger = realloc(v, c * size);
	if (bigger)
		*cap = c;
	return bigger;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* speed_profiles.c - registry of shared speed samples by model name. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "models/speed_profiles.h"

speed_profiles_t *speed_profiles_new(void)
{
	return calloc(1, sizeof(speed_profiles_t));
}

void speed_profiles_free(speed_profiles_t *reg)
{
	size_t i;

	if (!reg)
		return;
	for (i = 0; i < reg->n; i++) {
		free(reg->v[i].name);
		speed_model_clear(&reg->v[i].model);
	}
	free(reg->v);
	free(reg);
}

static int speed_profiles_name_ok(const char *name)
{
	size_t i;

	if (!name || !name[0])
		return 0;
	for (i = 0; name[i]; i++)
		if (i >= SPEED_PROFILE_NAME_MAX - 1 ||
		    !isprint((unsigned char)name[i]))
			return 0;
	return 1;
}

/* Index of name, or of where it would be inserted (*found = 0). */
static size_t speed_profiles_find(const speed_profiles_t *reg,
				  const char *name, int *found)
{
	size_t lo = 0, hi = reg->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int cmp = strcmp(reg->v[mid].name, name);

		if (!cmp) {
			*found = 1;
			return mid;
		}
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = 0;
	return lo;
}

const speed_model_t *speed_profiles_get(const speed_profiles_t *reg,
					const char *name)
{
	int found;
	size_t i;

	if (!reg || !speed_profiles_name_ok(name))
		return NULL;
	i = speed_profiles_find(reg, name, &found);
	return found ? &reg->v[i].model : NULL;
}

static int speed_profiles_insert(speed_profiles_t *reg, size_t at,
				 const char *name, const speed_model_t *like)
{
	speed_profile_t *slot;
	speed_profile_t *v = grow_array(reg->v, &reg->cap, reg->n, sizeof(*v),
					8);

	if (!v)
		return -ENOMEM;
	reg->v = v;
	memmove(&reg->v[at + 1], &reg->v[at], (reg->n - at) * sizeof(*slot));
	slot = &reg->v[at];
	if (!(slot->name = strdup(name))) {
		memmove(&reg->v[at], &reg->v[at + 1],
			(reg->n - at) * sizeof(*slot));
		return -ENOMEM;
	}
	speed_model_init(&slot->model, like->mode,
			 like->mode != SPEED_ASYNC ? like->batch : 1.0);
	reg->n++;
	return 0;
}

int speed_profiles_merge(speed_profiles_t *reg, const char *name,
			 const speed_model_t *job)
{
	int found, rc;
	size_t i;
	speed_model_t *m;

	if (!reg || !job || !speed_profiles_name_ok(name))
		return -EINVAL;
	i = speed_profiles_find(reg, name, &found);
	if (!found && (rc = speed_profiles_insert(reg, i, name, job)))
		return rc;
	m = &reg->v[i].model;
	if ((rc = speed_model_merge(m, job)))
		return rc;
	return m->nsamples ? speed_model_fit(m) : 0;
}

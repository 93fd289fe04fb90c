/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* speed_profiles.h - speed samples shared by jobs declaring the same
 * model name, so that a recurring model needs no pre-run.
 *
 * A small registry: name -> speed model (samples merged, refitted on each
 * merge). Names are kept sorted for binary search.
 */
#ifndef OPTIMUS_SPEED_PROFILES_H
#define OPTIMUS_SPEED_PROFILES_H

#include "models/speed_model.h"

#define SPEED_PROFILE_NAME_MAX 128

typedef struct speed_profile {
	char *name;
	speed_model_t model;
} speed_profile_t;

typedef struct speed_profiles {
	speed_profile_t *v;
	size_t n, cap;
} speed_profiles_t;

speed_profiles_t *speed_profiles_new(void);
void speed_profiles_free(speed_profiles_t *reg);

/* The profile of a model name, or NULL. */
const speed_model_t *speed_profiles_get(const speed_profiles_t *reg,
					const char *name);

/* Merge a job's samples into the profile `name` (created if missing) and
 * refit it. The mode and batch must match an existing profile.
 * 0, -EINVAL (bad name, mode mismatch), -ENOMEM, -ENOSPC, or a fit error.
 * Names: 1..SPEED_PROFILE_NAME_MAX-1 printable characters. */
int speed_profiles_merge(speed_profiles_t *reg, const char *name,
			 const speed_model_t *job);

/* A job without samples of its own can be scheduled with the profile
 * directly: speed_model_fn(speed_profiles_get(reg, name), p, w). Merge
 * back only the samples the job measured itself. */

#endif

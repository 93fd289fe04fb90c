/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* speed_profiles.h - speed samples shared by a user's jobs declaring the
 * same model name, so that a recurring model needs no pre-run.
 *
 * A small registry: (owner, name) -> speed model (samples merged, refitted
 * on each merge), kept sorted for binary search. A profile is its owner's
 * (a user's uid): another user's samples never size a job, since a job's
 * samples are its owner's word (doc/design/reports.md "Claims and fair shares").
 * An administrator may publish one user's profile of a name for every
 * user (optimus.conf PublishProfiles=): a job without a profile of its
 * owner's then reads the published one.
 */
#ifndef OPTIMUS_SPEED_PROFILES_H
#define OPTIMUS_SPEED_PROFILES_H

#include <stdint.h>

#include "models/speed_model.h"

#define SPEED_PROFILE_NAME_MAX 128
/* Names an administrator may publish at once. */
#define SPEED_PROFILES_PUBLISHED_MAX 64

typedef struct speed_profile {
	char *name;
	uint32_t owner;		/* the uid whose jobs' samples it holds */
	speed_model_t model;
} speed_profile_t;

/* A published name and whose profile of it every user reads. */
typedef struct speed_profile_pub {
	char name[SPEED_PROFILE_NAME_MAX];
	uint32_t owner;
} speed_profile_pub_t;

typedef struct speed_profiles {
	speed_profile_t *v;
	size_t n, cap;
	speed_profile_pub_t pub[SPEED_PROFILES_PUBLISHED_MAX];
	size_t npub;
} speed_profiles_t;

speed_profiles_t *speed_profiles_new(void);
void speed_profiles_free(speed_profiles_t *reg);

/* The profile a job of user `uid` reads for a model name: the user's own,
 * else the one published for the name, else NULL. */
const speed_model_t *speed_profiles_get(const speed_profiles_t *reg,
					uint32_t uid, const char *name);
/* The profile of exactly (owner, name), or NULL. */
const speed_model_t *speed_profiles_own(const speed_profiles_t *reg,
					uint32_t owner, const char *name);

/* Merge a job's samples into its owner's profile `name` (created if
 * missing) and refit it. The mode and batch must match an existing
 * profile. 0, -EINVAL (bad name, mode mismatch), -ENOMEM, -ENOSPC, or a
 * fit error. Names: 1..SPEED_PROFILE_NAME_MAX-1 printable characters. */
int speed_profiles_merge(speed_profiles_t *reg, uint32_t owner,
			 const char *name, const speed_model_t *job);

/* The published names, replaced by pub[0..n): every user's job of such a
 * name without a profile of its owner's reads the owner's named there.
 * 0, or -EINVAL (a bad name, more than SPEED_PROFILES_PUBLISHED_MAX, a
 * name twice): nothing changed. */
int speed_profiles_publish(speed_profiles_t *reg,
			   const speed_profile_pub_t *pub, size_t n);

/* A user name or number to its uid: 0, or -ENOENT when there is none. */
typedef int (*speed_profiles_uid_fn)(void *arg, const char *user,
				     uint32_t *uid);

/*
 * The text of optimus.conf's PublishProfiles=: "NAME@USER" pairs separated
 * by commas ("" publishes none), each user resolved by uid_of, into
 * pub[0..*n) (room for SPEED_PROFILES_PUBLISHED_MAX). 0, or -EINVAL with
 * a message naming the pair (no '@', a bad name, an unknown user, a name
 * twice, too many).
 */
int speed_profiles_parse_pub(const char *text, speed_profiles_uid_fn uid_of,
			     void *arg, speed_profile_pub_t *pub, size_t *n,
			     char *err, size_t errlen);

/* A job without samples of its own can be scheduled with the profile
 * directly: speed_model_fn(speed_profiles_get(reg, uid, name), p, w).
 * Merge back only the samples the job measured itself. */

#endif

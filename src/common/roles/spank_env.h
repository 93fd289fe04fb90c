/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* spank_env.h - read values that spank/optimus put in a job's SPANK env. */
#ifndef OPTIMUS_SPANK_ENV_H
#define OPTIMUS_SPANK_ENV_H

#include <stdint.h>

/*
 * Value of NAME in a job's spank_job_env ("NAME=value" entries; slurmctld may
 * have prefixed them with "SPANK_"), or NULL.
 */
extern const char *spank_env_get(char **env, uint32_t env_size,
				 const char *name);

#endif

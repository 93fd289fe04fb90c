/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* spank_env.c - read values that spank/optimus put in a job's SPANK env. */
#include <string.h>

#include "roles/spank_env.h"

static const char *entry_value(const char *entry, const char *name)
{
	size_t len = strlen(name);

	if (!strncmp(entry, "SPANK_", 6))
		entry += 6;	/* slurmctld sanitises entries with this prefix */
	if (strncmp(entry, name, len) || entry[len] != '=')
		return NULL;
	return entry + len + 1;
}

extern const char *spank_env_get(char **env, uint32_t env_size,
				 const char *name)
{
	for (uint32_t i = 0; env && i < env_size; i++) {
		const char *value = env[i] ? entry_value(env[i], name) : NULL;
		if (value)
			return value;
	}
	return NULL;
}

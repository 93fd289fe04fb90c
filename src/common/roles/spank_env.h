/* spank_env.h - read values that spank/optimus put in a job's SPANK env. */
#ifndef OPTIMUS_SPANK_ENV_H
#define OPTIMUS_SPANK_ENV_H

#include <stdint.h>

/* spank/optimus stores the raw --scheduler value under this name. */
#define OPTIMUS_SPANK_ENV_HINTS "OPTIMUS_SCHEDULER"

/*
 * Value of NAME in a job's spank_job_env ("NAME=value" entries; slurmctld may
 * have prefixed them with "SPANK_"), or NULL.
 */
extern const char *spank_env_get(char **env, uint32_t env_size,
				 const char *name);

#endif

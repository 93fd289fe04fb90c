/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * job_env.c - a job record's SPANK environment: see job_env.h.
 */
#include "config.h"

#include <string.h>

#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "job_env.h"

extern void job_env_set(job_record_t *job, const char *name,
			const char *value)
{
	size_t len = strlen(name);
	char *entry = xstrdup_printf("%s=%s", name, value);

	for (uint32_t i = 0; i < job->spank_job_env_size; i++) {
		char *e = job->spank_job_env[i];

		if (!xstrncmp(e, "SPANK_", 6))
			e += 6;
		if (!strncmp(e, name, len) && e[len] == '=') {
			xfree(job->spank_job_env[i]);
			job->spank_job_env[i] = entry;
			return;
		}
	}
	xrecalloc(job->spank_job_env, job->spank_job_env_size + 1,
		  sizeof(char *));
	job->spank_job_env[job->spank_job_env_size++] = entry;
}


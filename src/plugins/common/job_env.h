/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * job_env.h - a job record's SPANK environment, written by slurmctld-side
 * plugins (sched/optimus, job_submit/optimus). Call under the job write
 * lock (job_submit's job_modify already holds it).
 */
#ifndef OPTIMUS_JOB_ENV_H
#define OPTIMUS_JOB_ENV_H

#include "src/slurmctld/slurmctld.h"

/* Replace (or add) NAME=value in the job's SPANK environment. */
extern void job_env_set(job_record_t *job, const char *name,
			const char *value);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * job_limits.h - a job's effective Slurm limits (partition, QOS, association,
 * less what its owner's other jobs hold) as the plan's cap on it
 * (alloc/cap.h), so that no size the plan gives it is one Slurm's own
 * checks would hold: a job whose minimum fits runs, one whose minimum does
 * not waits saying which limit (job_limits.c says how each is read).
 */
#ifndef OPTIMUS_JOB_LIMITS_H
#define OPTIMUS_JOB_LIMITS_H

#include <stdbool.h>

#include "src/slurmctld/slurmctld.h"

#include "alloc/cap.h"

/* Slurm's association manager read locks (associations, QOS, TRES):
 * taken by the snapshot after its slurmctld locks, as slurmctld does. */
extern void job_limits_lock(void);
extern void job_limits_unlock(void);
/* The position of gres/gpu in Slurm's TRES arrays, -1 when accounting
 * does not track it (AccountingStorageTRES); `locked`: job_limits_lock held. */
extern int job_limits_gpu_pos(bool locked);
/* job's cap, under the slurmctld job and partition read locks and
 * job_limits_lock; gpu_pos from job_limits_gpu_pos. */
extern void job_limits_read(job_record_t *job, int gpu_pos, job_cap_t *cap);

/*
 * After a planned start applied as the job's owner: the operator overrides
 * (ADMIN_SET_LIMIT) of the TRES the plan sizes (cpu, mem, node, gres/gpu)
 * are the owner's own: none for an ordinary user, whatever an earlier
 * update by an operator (or SlurmUser) left; an operator's job keeps
 * Slurm's. Under the slurmctld job write lock.
 */
extern void job_limits_as_owner(job_record_t *job);

#endif

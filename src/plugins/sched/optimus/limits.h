/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * limits.h - a job's effective Slurm limits (partition, QOS, association,
 * less what its owner's other jobs hold) as the plan's cap on it
 * (alloc/cap.h), so that no size the plan gives it is one Slurm's own
 * checks would hold: a job whose minimum fits runs, one whose minimum does
 * not waits saying which limit (limits.c says how each is read).
 */
#ifndef OPTIMUS_LIMITS_H
#define OPTIMUS_LIMITS_H

#include <stdbool.h>

#include "src/slurmctld/slurmctld.h"

#include "alloc/cap.h"

/* Slurm's association manager read locks (associations, QOS, TRES):
 * taken by the snapshot after its slurmctld locks, as slurmctld does. */
extern void limits_lock(void);
extern void limits_unlock(void);
/* The position of gres/gpu in Slurm's TRES arrays, -1 when accounting
 * does not track it (AccountingStorageTRES); `locked`: limits_lock held. */
extern int limits_gpu_tres_pos(bool locked);
/* job's cap, under the slurmctld job and partition read locks and
 * limits_lock; gpu_pos from limits_gpu_tres_pos. */
extern void limits_of_job(job_record_t *job, int gpu_pos, job_cap_t *cap);

/*
 * After a planned start applied as the job's owner: the operator overrides
 * (ADMIN_SET_LIMIT) of the TRES the plan sizes (cpu, mem, node, gres/gpu)
 * are the owner's own: none for an ordinary user, whatever an earlier
 * update by an operator (or SlurmUser) left; an operator's job keeps
 * Slurm's. Under the slurmctld job write lock.
 */
extern void limits_as_owner(job_record_t *job);

#endif

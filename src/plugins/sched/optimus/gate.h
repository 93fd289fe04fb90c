/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * gate.h - optimus' own gate on its pending jobs (issue 15): a begin time
 * nobody else uses (OPTIMUS_GATE_TIME, see roles/spank_env.h), never a
 * priority of 0, so that every hold, dependency, begin time, reservation
 * and limit set by anyone else keeps its meaning. Call under the job write
 * lock (gate_close, gate_open) or read lock (the rest).
 */
#ifndef OPTIMUS_GATE_H
#define OPTIMUS_GATE_H

#include <stdbool.h>
#include <time.h>

#include "src/slurmctld/slurmctld.h"

/* Is the job waiting at optimus' gate? */
extern bool gate_is_closed(const job_record_t *job);

/* The begin time the job must honour once the gate opens (0: none). */
extern time_t gate_user_begin(const job_record_t *job);

/*
 * Something other than optimus keeps the job from starting: a hold
 * (priority 0, whoever set it), a dependency, a begin time kept at the
 * gate still ahead, or none of its partitions starting jobs (DOWN or
 * INACTIVE).
 * Such a job is not planned.
 */
extern bool gate_blocked_by_others(const job_record_t *job, time_t now);

/*
 * Close the gate, keeping a begin time already set (a requeue's delay, a
 * user's) and not before `not_before` (0: none) once it opens.
 */
extern void gate_close(job_record_t *job, time_t now, time_t not_before);

/*
 * Slurm starts a requeued job cred_expire + 1 s after the requeue (the new
 * launch credential must outlive the revoked one): AuthInfo's cred_expire,
 * 120 s by default.
 */
extern time_t gate_requeue_delay(void);

/* Open the gate: the job may start at its own begin time, or now. */
extern void gate_open(job_record_t *job, time_t now);

#endif

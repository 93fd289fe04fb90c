/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * gate.h - optimus' own gate on its pending jobs: a begin time nobody else
 * uses (OPTIMUS_GATE_TIME), never a priority of 0, so that every hold,
 * dependency, begin time, reservation and limit set by anyone else keeps
 * its meaning. Shared by job_submit/optimus (which closes the gate on a
 * new job) and sched/optimus (which opens it, and closes it again on a
 * requeue). Every write of the gate's begin times is here. Call under the
 * job write lock (gate_close, gate_open) or read lock (the rest);
 * gate_close_submitted and gate_keep_begin in job_submit's hooks.
 */
#ifndef OPTIMUS_GATE_H
#define OPTIMUS_GATE_H

#include <stdbool.h>
#include <time.h>

#include "src/slurmctld/slurmctld.h"

/*
 * A pending optimus job waits for the planner with its begin time at
 * OPTIMUS_GATE_TIME, a date no real begin time reaches (0xF0000000 =
 * 2097-08-05T09:04:00 UTC, as sched_optimus(8) says; below 2^32 so that
 * slurmdbd's 32-bit eligible time holds it). A begin time is the one
 * condition that Slurm never clears on behalf of anybody: holds (priority
 * 0), `scontrol release`, `top`, `--nice`, dependencies, reservations and
 * limits all keep their own meaning, and Slurm evaluates dependencies
 * before begin times so the job shows Reason=Dependency while it has one.
 * The begin time the user asked for (or Slurm's own delay after a requeue)
 * is kept under OPTIMUS_SPANK_ENV_BEGIN (or _NOT_BEFORE) and honoured when
 * the planner opens the gate.
 */
#define OPTIMUS_GATE_TIME ((time_t) 0xF0000000)
/* The begin time a job asked for (--begin, `scontrol update StartTime=`),
 * kept in its SPANK environment while it waits at the gate. */
#define OPTIMUS_SPANK_ENV_BEGIN "OPTIMUS_BEGIN"
/* Slurm's delay of a requeued job, kept at the gate: honoured when it
 * opens, but the job is planned meanwhile (it only waits to start). */
#define OPTIMUS_SPANK_ENV_NOT_BEFORE "OPTIMUS_NOT_BEFORE"

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
 * Close the gate on a job being submitted (job_submit's hook: no job record
 * yet), keeping the begin time it asks for (--begin) as the user's.
 */
extern void gate_close_submitted(job_desc_msg_t *desc);

/*
 * An update's begin time (`scontrol update StartTime=`, job_submit's
 * job_modify hook) of a job at the gate: kept as the user's, for when the
 * gate opens; the update's own begin time becomes the gate's, so that
 * Slurm's update finds nothing to change and the gate stays closed.
 */
extern void gate_keep_begin(job_record_t *job, job_desc_msg_t *update);

/*
 * Slurm starts a requeued job cred_expire + 1 s after the requeue (the new
 * launch credential must outlive the revoked one): AuthInfo's cred_expire,
 * 120 s by default.
 */
extern time_t gate_requeue_delay(void);

/* Open the gate: the job may start at its own begin time, or now. */
extern void gate_open(job_record_t *job, time_t now);

#endif

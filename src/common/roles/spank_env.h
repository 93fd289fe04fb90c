/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* spank_env.h - read values that spank/optimus put in a job's SPANK env. */
#ifndef OPTIMUS_SPANK_ENV_H
#define OPTIMUS_SPANK_ENV_H

#include <stdint.h>
#include <time.h>

/* spank/optimus stores the raw --scheduler value under this name. */
#define OPTIMUS_SPANK_ENV_HINTS "OPTIMUS_SCHEDULER"

/*
 * optimus' gate (issue 15): a pending optimus job waits for the planner with
 * its begin time at OPTIMUS_GATE_TIME, a date no real begin time reaches
 * (0xF0000000 = 2097-08-05T09:04:00 UTC, as sched_optimus(8) says; below
 * 2^32 so that slurmdbd's 32-bit eligible time holds it).
 * A begin time is the one condition that Slurm never clears on behalf of
 * anybody: holds (priority 0), `scontrol release`, `top`, `--nice`,
 * dependencies, reservations and limits all keep their own meaning, and
 * Slurm evaluates dependencies before begin times so the job shows
 * Reason=Dependency while it has one. The begin time the user asked for
 * (or Slurm's own delay after a requeue) is kept under
 * OPTIMUS_SPANK_ENV_BEGIN and honoured when the planner opens the gate.
 */
#define OPTIMUS_GATE_TIME ((time_t) 0xF0000000)
#define OPTIMUS_SPANK_ENV_BEGIN "OPTIMUS_BEGIN"
/* Slurm's delay of a requeued job, kept at the gate: honoured when it
 * opens, but the job is planned meanwhile (it only waits to start). */
#define OPTIMUS_SPANK_ENV_NOT_BEFORE "OPTIMUS_NOT_BEFORE"

/*
 * Value of NAME in a job's spank_job_env ("NAME=value" entries; slurmctld may
 * have prefixed them with "SPANK_"), or NULL.
 */
extern const char *spank_env_get(char **env, uint32_t env_size,
				 const char *name);

#endif

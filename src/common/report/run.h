/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * report/run.h - which run of a job a report comes from.
 *
 * A node Slurm takes for dead while its machine lives (slurmd killed or
 * cut off) leaves the job's first run alive: Slurm requeues the job and
 * starts it elsewhere, and the first run's tasks report on. A report
 * names its run ("run": the sender's SLURM_RESTART_COUNT, protocol.h);
 * one from any run but the current one is late and must change nothing.
 * A report that names no run (a client that does not say it) is applied
 * whichever run sent it.
 */
#ifndef OPTIMUS_REPORT_RUN_H
#define OPTIMUS_REPORT_RUN_H

#include <stdint.h>

#include "report/protocol.h"

typedef enum report_run_verdict {
	REPORT_RUN_CURRENT = 0,	/* names the current run: apply it */
	REPORT_RUN_UNNAMED = 1,	/* names none (older client): apply it */
	REPORT_RUN_STALE = 2,	/* another run's: drop it, store nothing */
} report_run_verdict_t;

/* The verdict on r for a job whose current run is `current` (Slurm's
 * restart count of the job, as the scheduler last saw it). */
report_run_verdict_t report_run_verdict(const report_t *r, uint32_t current);

/* The run a sender belongs to, from its SLURM_RESTART_COUNT text (NULL
 * when unset): 0 with *run, or -EINVAL (unset, or not a count from 0 to
 * PROTOCOL_MAX_RUN): the report then names no run. */
int report_run_from_env(const char *text, uint32_t *run);

#endif

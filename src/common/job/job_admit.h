/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * job/job_admit.h - would a job's record take a report? Asked at the
 * listener, before the report is queued, so that a report the record
 * refuses is refused to its sender with the reason (the planner feeds the
 * queue later, in its own thread, where no sender hears of a refusal).
 *
 * The record is judged as the planner last left it. A report of a run
 * the record has not seen start yet (it names a newer run than the
 * record's, or the record holds no running run) is taken: the planner
 * judges it once it has caught up, with the same checks.
 */
#ifndef OPTIMUS_JOB_ADMIT_H
#define OPTIMUS_JOB_ADMIT_H

#include <stddef.h>
#include <stdint.h>

#include "job/job_model.h"
#include "report/protocol.h"

/*
 * 0 when the record of a job whose current run is `current_run` (Slurm's
 * restart count as the scheduler last saw it) takes r, else -EINVAL with
 * the reason: a report of an earlier run, a worker rank the run does not
 * have, a speed the record could take as no sample (job_model_speed_check,
 * the claim's first check).
 */
int job_model_admit(const job_model_t *m, const report_t *r,
		    uint32_t current_run, char *err, size_t errlen);

#endif

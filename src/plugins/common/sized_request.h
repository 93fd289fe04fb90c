/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sized_request.h - the one writer of a sized request (hints_request_t)
 * into Slurm's job description, for job_submit/optimus (the size at submit)
 * and sched/optimus (the planned size of a pending job, through update_job).
 */
#ifndef OPTIMUS_SIZED_REQUEST_H
#define OPTIMUS_SIZED_REQUEST_H

#include <stdbool.h>

#include "src/slurmctld/slurmctld.h"

#include "hints/hints.h"

/*
 * Write r into d: nodes (min = max), task slots, CPUs per task, the
 * fullest node's CPUs on every node, memory per node, GPUs per node, and
 * tasks per node: the share of an even split; for an uneven one the
 * fullest node's share only when `planned` (sched/optimus' start, whose
 * topology tells the batch script how many tasks to run), never at submit
 * (sized_request.c says why). d's old tres_per_node is xfree'd; the new one
 * is xmalloc'd (NULL for no GPUs), freed with d. Other fields are left as
 * they are.
 */
extern void sized_request_write(job_desc_msg_t *d, const hints_request_t *r,
				bool planned);

#endif

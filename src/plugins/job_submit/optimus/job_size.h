/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* job_size.h - give an optimus job its initial size at submit time. */
#ifndef OPTIMUS_JOB_SIZE_H
#define OPTIMUS_JOB_SIZE_H

#include "src/slurmctld/slurmctld.h"

#include "hints/hints.h"

/*
 * Size job_desc for min PS + min workers (hints_size()) on the fewest nodes
 * of the cluster's largest node shape that fit, or on exactly the nodes the
 * user asked for with -N. SLURM_SUCCESS, or an error with *err_msg set.
 */
extern int job_size_apply(const optimus_hints_t *h, job_desc_msg_t *job_desc,
			  char **err_msg);

#endif

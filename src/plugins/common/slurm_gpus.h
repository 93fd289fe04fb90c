/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * slurm_gpus.h - GPU counts of nodes and jobs as slurmctld counts them
 * (its GRES state, not our reading of the Gres= strings), and the one GPU
 * request string the plugins give to Slurm.
 */
#ifndef OPTIMUS_SLURM_GPUS_H
#define OPTIMUS_SLURM_GPUS_H

#include <stdint.h>

#include "slurm_compat.h"
#include "src/slurmctld/slurmctld.h"

/* The node's configured GPUs (gres/gpu), 0 if none. Needs the node read lock. */
extern uint32_t gpus_of_node(node_record_t *node);

/* The GPUs per node the job requested (gres/gpu), 0 if none. Job read lock. */
extern uint32_t gpus_of_job_per_node(job_record_t *job);

/* A tres_per_node value asking for n GPUs per node, xmalloc'd (NULL if n is 0). */
extern char *gpus_tres_per_node(uint32_t n);

#endif

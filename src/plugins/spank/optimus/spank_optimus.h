/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * spank_optimus.h - shared by the files of the spank/optimus plugin.
 *
 * Allocator/local side (sbatch, salloc, srun): the --scheduler option,
 * checked early with hints_parse() and passed to slurmctld in the job's
 * SPANK environment (spank_options.c).
 * Job prolog/epilog: the topology the scheduler wrote in the job's SPANK
 * environment is kept in a per-node file (spank_topology.c).
 * Remote side (slurmstepd): each task's role and environment
 * (spank_roles.c, computed by src/common/roles/roles.c).
 */
#ifndef OPTIMUS_SPANK_OPTIMUS_H
#define OPTIMUS_SPANK_OPTIMUS_H

#include <stdbool.h>
#include <slurm/spank.h>

#include "hints/hints.h"
#include "roles/roles.h"

/* The job's submission stamp in its SPANK environment (spank_options.c);
 * the tasks see it as SLURM_SPANK_OPTIMUS_SUBMIT_TIME. */
#define SPANK_OPTIMUS_STAMP_ENV "OPTIMUS_SUBMIT_TIME"

/* Plugin arguments from plugstack.conf. */
typedef struct spank_optimus_conf {
	/* where the job prolog keeps each job's topology (root-owned) */
	char state_dir[256];
	/* false: leave all checking to job_submit/optimus (submit_check=0) */
	bool submit_check;
} spank_optimus_conf_t;

extern spank_optimus_conf_t spank_optimus_conf;

int spank_options_register(spank_t sp);
int spank_options_post_opt(spank_t sp);
void spank_options_free(void);

int spank_topology_prolog(spank_t sp);
int spank_topology_epilog(spank_t sp);
/* The topology the prolog kept for this job on this node: 0 or -ENOENT. */
int spank_topology_load(spank_t sp, uint32_t job_id, roles_topology_t *t);

int spank_roles_task_init(spank_t sp);
/* Once per step on each node, from slurm_spank_init: node addresses. */
int spank_roles_step_init(spank_t sp);

/* spank_addrs.c: NodeAddr of the step's nodes (hosts: node names; NULL:
 * every node of the cluster). */
int spank_addrs_load(spank_t sp, char **hosts, size_t nh);
/* The address of a node loaded above, else the node name itself. */
const char *spank_addrs_of(const char *node);

/* spank_ports.c: the ports Slurm reserved for the step on each of its
 * nodes (a heterogeneous step: each component's own), from slurmctld. */
int spank_ports_load(uint32_t job_id, uint32_t step_id);
/* The ports reserved on node (ascending; *n of them), NULL when unknown. */
const uint32_t *spank_ports_of(const char *node, size_t *n);

#endif

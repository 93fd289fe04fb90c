/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sized_request.c - a sized request as Slurm's job description
 * (sized_request.h).
 */
#include "config.h"

#include "src/common/xmalloc.h"

#include "sized_request.h"
#include "slurm_gpus.h"

/* The task slots split evenly: every node holds the fullest node's share. */
static bool even_split(const hints_request_t *r)
{
	return r->nodes && r->task_slots % r->nodes == 0 &&
	       r->task_slots / r->nodes == r->max_tasks_per_node;
}

extern void sized_request_write(job_desc_msg_t *d, const hints_request_t *r,
				bool planned)
{
	bool even = even_split(r);

	d->min_nodes = d->max_nodes = r->nodes;
	d->num_tasks = r->task_slots;
	d->cpus_per_task = r->cpus_per_task;
	d->min_cpus = r->task_slots * r->cpus_per_task;
	/*
	 * Tasks per node. With num_tasks set, Slurm takes ntasks_per_node as
	 * a per-node maximum when it allocates, but a job started with one
	 * counts nodes x ntasks_per_node tasks for its batch script
	 * (SLURM_NTASKS: 6 for 5 tasks pinned at 3 on 2 nodes, test_roles.py
	 * allreduce quality-2nodes-5). An even split is pinned at its share
	 * (otherwise Slurm packs the first nodes and PS and workers end up
	 * unevenly colocated). An uneven one is pinned at the fullest node's
	 * share only for a planned start: spank/optimus then sets the batch
	 * script's SLURM_NTASKS from the planner's topology, and the new value
	 * must replace the one an earlier size set. At submit it is left
	 * alone: on a cluster without sched/optimus the job starts as
	 * submitted, with Slurm's own task count.
	 */
	if (even)
		d->ntasks_per_node = r->task_slots / r->nodes;
	else if (planned)
		d->ntasks_per_node = r->max_tasks_per_node;
	/*
	 * The fullest node's CPUs on every node, so that any node can take
	 * the largest share. For an even split at submit Slurm derives the
	 * same from ntasks_per_node (and keeps a larger --mincpus). On an
	 * update it must be given: Slurm derives min_cpus from the job's
	 * per-node CPU minimum and the new node count before it applies the
	 * new ntasks_per_node, and a stale minimum (the submitted size's)
	 * would ask for more CPUs per node than planned: the job would wait
	 * for room it does not need.
	 */
	if (planned || !even)
		d->pn_min_cpus = r->max_tasks_per_node * r->cpus_per_task;
	d->pn_min_memory = r->mem_per_node_mb;	/* per node: no MEM_PER_CPU */
	xfree(d->tres_per_node);
	d->tres_per_node = gpus_tres_per_node(r->gpus_per_node);
}

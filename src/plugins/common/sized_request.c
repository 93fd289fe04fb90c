/*
 * sized_request.c - a sized request as Slurm's job description
 * (sized_request.h).
 */
#include "config.h"

#include "src/common/xmalloc.h"

#include "sized_request.h"
#include "slurm_gpus.h"

extern void sized_request_write(job_desc_msg_t *d, const hints_request_t *r)
{
	d->min_nodes = d->max_nodes = r->nodes;
	d->num_tasks = r->task_slots;
	/*
	 * With num_tasks set, ntasks_per_node is a per-node maximum (Slurm
	 * 22.05 and 24.11 derive a task count from it only when none is
	 * given; cons_tres caps each node's tasks with it): the largest share
	 * of an even split, or of the fullest node (an uneven split;
	 * layout=separate, whose task slots are that many on every node:
	 * hints_request_t). It replaces a value the user or an earlier size
	 * set, which could otherwise forbid the planned split.
	 */
	if (r->nodes)
		d->ntasks_per_node = (r->task_slots + r->nodes - 1) / r->nodes;
	if (r->max_tasks_per_node > d->ntasks_per_node)
		d->ntasks_per_node = r->max_tasks_per_node;
	d->cpus_per_task = r->cpus_per_task;
	/*
	 * The fullest node's CPUs on every node, so that any node can take
	 * the largest share. Set here, not left to Slurm: on an update Slurm
	 * derives min_cpus from the job's per-node CPU minimum and the new
	 * node count before it applies the new ntasks_per_node, and a stale
	 * minimum (the submitted size's) would ask for more CPUs per node
	 * than planned: the job would wait for room it does not need.
	 */
	if (r->nodes)
		d->pn_min_cpus = d->ntasks_per_node * r->cpus_per_task;
	d->min_cpus = r->task_slots * r->cpus_per_task;
	d->pn_min_memory = r->mem_per_node_mb;	/* per node: no MEM_PER_CPU */
	xfree(d->tres_per_node);
	d->tres_per_node = gpus_tres_per_node(r->gpus_per_node);
}

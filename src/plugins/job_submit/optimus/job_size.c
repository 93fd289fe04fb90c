/* job_size.c - give an optimus job its initial size at submit time. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "job_size.h"
#include "slurm_gpus.h"

/*
 * The largest node shape, field by field. Called with slurmctld's read
 * locks held (see job_submit.c), so the node table is stable.
 */
static hints_res_t node_capacity(void)
{
	hints_res_t cap = { 0, 0, 0 };
	node_record_t *node;

	for (int i = 0; (node = next_node(&i)); i++) {
		uint32_t gpus = gpus_of_node(node);

		if (node->cpus > cap.cpus)
			cap.cpus = node->cpus;
		if (node->real_memory > cap.mem_mb)
			cap.mem_mb = node->real_memory;
		if (gpus > cap.gpus)
			cap.gpus = gpus;
	}
	return cap;
}

static void desc_set(job_desc_msg_t *d, const hints_request_t *r)
{
	d->num_tasks = r->task_slots;
	d->min_nodes = d->max_nodes = r->nodes;
	d->cpus_per_task = r->cpus_per_task;
	d->min_cpus = r->task_slots * r->cpus_per_task;
	/*
	 * Pin an even split (otherwise Slurm packs the first nodes and PS and
	 * workers end up unevenly colocated); a separate-layout job's task
	 * slots always are one. An uneven one cannot be pinned (Slurm would
	 * round the task count up to nodes * N): ask instead for the fullest
	 * node's CPUs on every node, so that any node can take the largest
	 * share.
	 */
	if (r->task_slots % r->nodes == 0 &&
	    r->task_slots / r->nodes == r->max_tasks_per_node)
		d->ntasks_per_node = r->task_slots / r->nodes;
	else
		d->pn_min_cpus = r->max_tasks_per_node * r->cpus_per_task;
	d->pn_min_memory = r->mem_per_node_mb;	/* per node: no MEM_PER_CPU */
	xfree(d->tres_per_node);
	d->tres_per_node = gpus_tres_per_node(r->gpus_per_node);
}

extern int job_size_apply(const optimus_hints_t *h, job_desc_msg_t *job_desc,
			  char **err_msg)
{
	hints_res_t cap = node_capacity();
	hints_request_t req;
	uint32_t want = 0;
	char err[512];

	if (job_desc->min_nodes != NO_VAL && job_desc->min_nodes > 0)
		want = job_desc->min_nodes;
	if (hints_size(h, h->min_ps, h->min_workers, &cap, want, &req, err,
		       sizeof(err))) {
		*err_msg = xstrdup(err);
		return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	}
	desc_set(job_desc, &req);
	info("job_submit/optimus: sized job (%u PS + %u workers) to %u node(s), %u tasks, %u CPUs/task, %"PRIu64" MB/node, %u GPUs/node",
	     h->min_ps, h->min_workers, req.nodes, req.tasks,
	     req.cpus_per_task, req.mem_per_node_mb, req.gpus_per_node);
	return SLURM_SUCCESS;
}

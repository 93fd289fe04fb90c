/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
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
#include "sized_request.h"
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
	sized_request_write(job_desc, &req, false);
	info("job_submit/optimus: sized job (%u PS + %u workers) to %u node(s), %u tasks, %u CPUs/task, %"PRIu64" MB/node, %u GPUs/node",
	     h->min_ps, h->min_workers, req.nodes, req.tasks,
	     req.cpus_per_task, req.mem_per_node_mb, req.gpus_per_node);
	return SLURM_SUCCESS;
}

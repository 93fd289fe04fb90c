/*
 * sized_request.h - the one writer of a sized request (hints_request_t)
 * into Slurm's job description, for job_submit/optimus (the size at submit)
 * and sched/optimus (the planned size of a pending job, through update_job).
 */
#ifndef OPTIMUS_SIZED_REQUEST_H
#define OPTIMUS_SIZED_REQUEST_H

#include "src/slurmctld/slurmctld.h"

#include "hints/hints.h"

/*
 * Write r into d: nodes (min = max), task slots, CPUs per task, the
 * per-node task maximum and CPU minimum, memory per node, GPUs per node.
 * d's old tres_per_node is xfree'd; the new one is xmalloc'd (NULL for no
 * GPUs), the caller frees it with d. Other fields are left as they are.
 */
extern void sized_request_write(job_desc_msg_t *d, const hints_request_t *r);

#endif

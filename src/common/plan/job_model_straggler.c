/*
 * job_model_straggler.c - a job's worker reports into its straggler
 * detector (models/straggler.h): the detector follows the current run,
 * with one rank per worker and the job's training mode.
 */
#include <errno.h>

#include "plan/job_model.h"

/* Synchronous PS training and all-reduce wait for the slowest worker. */
static straggler_mode_t job_straggler_mode(const job_model_t *m)
{
	return m->hints.mode == HINTS_MODE_ASYNC ? STRAGGLER_ASYNC :
						    STRAGGLER_SYNC;
}

int job_model_worker_report(job_model_t *m, const straggler_params_t *p,
			    int rank, const char *node, double step_time)
{
	int rc;

	if (!m || m->phase != JM_RUNNING || m->cur_workers < 1 || rank < 0 ||
	    rank >= m->cur_workers)
		return -EINVAL;
	if (!m->straggler.ranks) {
		rc = straggler_init(&m->straggler, job_straggler_mode(m),
				    (size_t)m->cur_workers);
		if (rc)
			return rc;
	}
	return straggler_observe(&m->straggler, p, rank, node, step_time);
}

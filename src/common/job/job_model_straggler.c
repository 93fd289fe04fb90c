/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * job_model_straggler.c - a job's worker reports into its straggler
 * detector (models/straggler.h): the detector follows the current run,
 * with one rank per worker and the job's training mode.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/errmsg.h"

#include "job/job_model.h"

/* Synchronous PS training and all-reduce wait for the slowest worker. */
static straggler_mode_t job_straggler_mode(const job_model_t *m)
{
	return m->hints.mode == HINTS_MODE_ASYNC ? STRAGGLER_ASYNC :
						    STRAGGLER_SYNC;
}

int job_model_worker_check(const job_model_t *m, int64_t rank, char *err,
			   size_t errlen)
{
	if (m->cur_workers < 1)
		return errmsg_set(err, errlen, -EINVAL, "worker rank %lld: the "
				  "run has no workers", (long long)rank);
	if (rank < 0 || rank >= m->cur_workers)
		return errmsg_set(err, errlen, -EINVAL, "worker rank %lld is "
				  "none of the run's %d workers (ranks 0 to %d)",
				  (long long)rank, m->cur_workers,
				  m->cur_workers - 1);
	return 0;
}

int job_model_worker_report(job_model_t *m, const straggler_params_t *p,
			    int rank, const char *node, double step_time)
{
	int rc;

	if (!m)
		return -EINVAL;
	/* A run that is over has no pace to compare: its workers' reports
	 * are not bad input, only late (a node Slurm took for dead, its
	 * processes alive, reports after the requeue). */
	if (m->phase != JM_RUNNING)
		return -ESRCH;
	if (job_model_worker_check(m, rank, NULL, 0))
		return -EINVAL;
	if (!m->straggler.ranks) {
		rc = straggler_init(&m->straggler, job_straggler_mode(m),
				    (size_t)m->cur_workers);
		if (rc)
			return rc;
	}
	rc = straggler_observe(&m->straggler, p, rank, node, step_time);
	if (rc == 1) {
		snprintf(m->avoid_node, sizeof(m->avoid_node), "%s",
			 m->straggler.node);
		m->avoid_slowdown = m->straggler.slowdown;
	}
	return rc;
}

const char *job_model_straggler_text(const job_model_t *m, char *buf,
				     size_t len)
{
	if (!m->avoid_node[0])
		return "";
	snprintf(buf, len, " straggler=%s(%.1fx)", m->avoid_node,
		 m->avoid_slowdown);
	return buf;
}

int job_model_straggler_to_json(json_object *o, const job_model_t *m)
{
	json_object *s;

	if (!m->avoid_node[0])
		return 0;
	s = json_object_new_object();
	if (!s || json_object_object_add(s, "node",
					 json_object_new_string(m->avoid_node)) ||
	    json_object_object_add(s, "slowdown",
				   json_object_new_double(m->avoid_slowdown)) ||
	    json_object_object_add(o, "straggler", s)) {
		json_object_put(s);
		return -ENOMEM;
	}
	return 0;
}

int job_model_straggler_from_json(const json_object *o, job_model_t *m,
				  char *err, size_t len)
{
	json_object *s, *node, *slow;
	const char *name;
	double x;

	if (!json_object_object_get_ex(o, "straggler", &s))
		return 0;
	if (!json_object_is_type(s, json_type_object) ||
	    !json_object_object_get_ex(s, "node", &node) ||
	    !json_object_is_type(node, json_type_string) ||
	    !json_object_object_get_ex(s, "slowdown", &slow) ||
	    !(json_object_is_type(slow, json_type_double) ||
	      json_object_is_type(slow, json_type_int)))
		return errmsg_set(err, len, -EINVAL, "'straggler': needs a "
				  "string 'node' and a number 'slowdown'");
	name = json_object_get_string(node);
	x = json_object_get_double(slow);
	if (!*name || strlen(name) >= sizeof(m->avoid_node) ||
	    strcspn(name, " \t\r\n") != strlen(name) || !isfinite(x) || x < 1)
		return errmsg_set(err, len, -EINVAL, "'straggler': bad node "
				  "name or slowdown below 1");
	snprintf(m->avoid_node, sizeof(m->avoid_node), "%s", name);
	m->avoid_slowdown = x;
	return 0;
}

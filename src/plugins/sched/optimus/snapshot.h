/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * snapshot.h - a copy of what the planner needs from slurmctld, taken under
 * read locks so that fitting and planning run without any lock.
 */
#ifndef OPTIMUS_SNAPSHOT_H
#define OPTIMUS_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "alloc/cap.h"
#include "alloc/resources.h"

typedef struct snap_node {
	char *name;
	res_vec_t capacity;	/* cpus, MB, gpus; zero when unusable */
	res_vec_t other_used;	/* used by non-optimus running jobs */
} snap_node_t;

typedef enum snap_state {
	SNAP_PENDING = 0,
	SNAP_RUNNING,		/* running or suspended */
	SNAP_COMPLETING,	/* ended, nodes still cleaning up */
	SNAP_FINISHED,
} snap_state_t;

typedef struct snap_job {
	uint32_t job_id;
	uint32_t uid;
	/* The share weight of the job's user in the plan: its association's
	 * normalized shares (sacctmgr Fairshare=, as slurmctld normalizes
	 * them); 0 without an association or without normalized shares
	 * (priority/basic): an equal share; -1 for an association without
	 * shares. */
	double share;
	snap_state_t state;
	bool held;		/* waiting at optimus' gate (gate.h) */
	bool blocked;		/* pending for a reason not optimus': a hold,
				 * a dependency, a begin time; not planned */
	bool batch;
	char *hints;		/* the raw --scheduler value */
	char *topology;		/* OPTIMUS_TOPOLOGY the planner gave it, or NULL */
	time_t submit, start, end;
	uint16_t restart_cnt;
	char failed[48];	/* finished, not COMPLETED: "STATE exit=E:S" */
	int nnodes;		/* running: nodes held */
	/* finished: the nodes its last run had (Slurm keeps a finished
	 * job's resources, and a requeue frees them); 0: it did not run
	 * since its submission or its last requeue (cancelled pending) */
	int ran_nodes;
	int *node_index;	/* running: node table indexes */
	res_vec_t *usage;	/* running: what it uses on each */
	/* pending or running: the most Slurm's limits let it hold
	 * (job_limits.h); NULL when nothing limits it */
	job_cap_t *cap;
} snap_job_t;

typedef struct snapshot {
	time_t taken;
	int nnodes;
	snap_node_t *nodes;
	int njobs;
	snap_job_t *jobs;	/* optimus jobs only, by increasing job id */
} snapshot_t;

/* Take a snapshot under slurmctld read locks (job, node, part, conf) and
 * the association manager's (job_limits_lock). */
extern snapshot_t *snapshot_take(void);
extern void snapshot_free(snapshot_t *s);
/* The job with this id, or NULL (binary search). */
extern const snap_job_t *snapshot_find_job(const snapshot_t *s,
					   uint32_t job_id);


#endif

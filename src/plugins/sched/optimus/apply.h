/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * apply.h - carry a plan's decisions out in slurmctld, under write locks
 * held only for as long as the changes take.
 *
 * Actions are plain copies prepared without any slurmctld lock: applying
 * them needs nothing from the planner's registry.
 */
#ifndef OPTIMUS_APPLY_H
#define OPTIMUS_APPLY_H

#include <stdbool.h>
#include <stdint.h>

#include "hints/hints.h"

typedef enum action_kind {
	ACT_NONE = 0,	/* only the SystemComment */
	ACT_START,	/* size a pending job, pin its nodes, release it */
	ACT_WAIT,	/* keep a pending job held, with a reason */
	ACT_SIGNAL,	/* ask a running job to checkpoint */
	ACT_REQUEUE,	/* requeue (held) a job for its resize or preemption */
} action_kind_t;

typedef struct action {
	uint32_t job_id;
	action_kind_t kind;
	hints_request_t req;	/* START: the job's new size */
	char *nodes;		/* START: its nodes, "n1,n3" */
	char *topology;		/* START: OPTIMUS_TOPOLOGY value */
	int signal;		/* SIGNAL */
	bool preempt;		/* SIGNAL, REQUEUE: for a preemption, not a
				 * resize */
	char *reason;		/* WAIT: for users */
	char *comment;		/* SystemComment; NULL leaves it */
	bool account;		/* also store the comment in slurmdbd */
	char *drain_node;	/* StragglerDrain: drain this node, */
	char *drain_reason;	/* with this reason (naming the job) */
	int rc;			/* out: SLURM_SUCCESS or an error code */
} action_t;

/* Actions collected while walking the registry. */
struct action_list {
	action_t *acts;
	int n, cap;
};

/* Apply actions in order under one job/node write lock. */
extern void apply_actions(action_t *acts, int n);
extern void action_free_members(action_t *a);

#endif

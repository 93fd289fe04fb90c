/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * spank_ports.c - the ports Slurm reserved for a step on each of its
 * nodes (MpiParams=ports=, roles.h "Ports").
 *
 * Looked up once per step on each node, in slurm_spank_init (in
 * slurmstepd, as root, before privileges are dropped: spank_roles_step_init
 * says why not later), with one slurm_get_job_steps() call. A
 * heterogeneous step's components each have a reservation of their own,
 * on their own nodes, and srun hands every task the union of them
 * (SLURM_STEP_RESV_PORTS), from which no task can tell its node's own:
 * slurmctld's step records can. When the call fails, the step's
 * SLURM_STEP_RESV_PORTS serves every node (right for all but a
 * heterogeneous step) and the step's log says why.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slurm/slurm.h>

#include "spank_optimus.h"

typedef struct node_ports {
	char *node;
	uint32_t *ports;	/* shared by the nodes of one component */
	size_t n;
	int owner;		/* this entry frees ports */
} node_ports_t;

static node_ports_t *tab;
static size_t ntab;

static void ports_clear(void)
{
	for (size_t i = 0; i < ntab; i++) {
		free(tab[i].node);
		if (tab[i].owner)
			free(tab[i].ports);
	}
	free(tab);
	tab = NULL;
	ntab = 0;
}

/* The nodes of one component, with its reservation (taken over). */
static int ports_keep(const char *nodes, uint32_t *ports, size_t n)
{
	char **hosts;
	size_t nh;
	node_ports_t *bigger;

	if (roles_hostlist_expand(nodes, &hosts, &nh))
		return -EINVAL;
	bigger = realloc(tab, (ntab + nh) * sizeof(*tab));
	if (!bigger) {
		roles_hostlist_free(hosts, nh);
		return -ENOMEM;
	}
	tab = bigger;
	for (size_t i = 0; i < nh; i++)
		tab[ntab++] = (node_ports_t){ hosts[i], ports, n, i == 0 };
	free(hosts);	/* the names now belong to tab */
	return 0;
}

int spank_ports_load(uint32_t job_id, uint32_t step_id)
{
	job_step_info_response_msg_t *resp = NULL;
	int rc = 0;

	ports_clear();
	/* All the job's steps: asked for one step id, slurmctld answers
	 * with its first record only, a heterogeneous step's component 0. */
	if (slurm_get_job_steps((time_t) 0, job_id, NO_VAL, &resp,
				SHOW_ALL) != SLURM_SUCCESS) {
		slurm_error("optimus: job %u step %u: cannot read the step's "
			    "reserved ports from slurmctld (%s): "
			    "SLURM_STEP_RESV_PORTS serves every node",
			    job_id, step_id, slurm_strerror(errno));
		return -1;
	}
	for (uint32_t i = 0; !rc && i < resp->job_step_count; i++) {
		const job_step_info_t *st = &resp->job_steps[i];
		uint32_t *ports;
		size_t n;

		if (st->step_id.step_id != step_id || !st->nodes ||
		    !st->resv_ports ||
		    roles_ports_parse(st->resv_ports, &ports, &n))
			continue;	/* none reserved: the tasks say so */
		if ((rc = ports_keep(st->nodes, ports, n)))
			free(ports);
	}
	slurm_free_job_step_info_response_msg(resp);
	if (rc) {
		slurm_error("optimus: job %u step %u: cannot keep the step's "
			    "reserved ports: %s", job_id, step_id,
			    strerror(-rc));
		ports_clear();
	}
	return rc;
}

const uint32_t *spank_ports_of(const char *node, size_t *n)
{
	for (size_t i = 0; i < ntab; i++) {
		if (!strcmp(tab[i].node, node)) {
			*n = tab[i].n;
			return tab[i].ports;
		}
	}
	*n = 0;
	return NULL;
}

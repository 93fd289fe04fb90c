/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * spank_addrs.c - the address of each node of a step as Slurm itself
 * connects to it (NodeAddr, which defaults to NodeHostname, which defaults
 * to NodeName), as srun does: a node name need not resolve.
 *
 * Looked up once per step on each node, in slurm_spank_init (in
 * slurmstepd, as root, before privileges are dropped and the tasks fork:
 * see spank_roles_step_init for why not later), with one slurm_load_node()
 * call; the tasks inherit the table. On any failure the names are used and the
 * step's log says why.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slurm/slurm.h>

#include "spank_optimus.h"

static char **addr_name, **addr_value;
static size_t addr_n;

static void addrs_clear(void)
{
	for (size_t i = 0; i < addr_n; i++) {
		free(addr_name[i]);
		free(addr_value[i]);
	}
	free(addr_name);
	free(addr_value);
	addr_name = addr_value = NULL;
	addr_n = 0;
}

/* Keep name -> address for the nodes of `hosts` (NULL: every node). */
static int addrs_keep(const node_info_msg_t *msg, char **hosts, size_t nh)
{
	if (!hosts)
		nh = msg->record_count;
	addr_name = calloc(nh, sizeof(char *));
	addr_value = calloc(nh, sizeof(char *));
	if (!addr_name || !addr_value)
		return -1;
	for (size_t h = 0; h < nh; h++) {
		for (uint32_t i = 0; i < msg->record_count; i++) {
			const node_info_t *n = &msg->node_array[i];

			if (!n->name || (hosts ? strcmp(n->name, hosts[h]) :
					 i != h))
				continue;
			addr_name[addr_n] = strdup(n->name);
			addr_value[addr_n] = strdup(
				n->node_addr && *n->node_addr ? n->node_addr :
				n->node_hostname && *n->node_hostname ?
				n->node_hostname : n->name);
			if (!addr_name[addr_n] || !addr_value[addr_n])
				return -1;
			addr_n++;
			break;
		}
	}
	return 0;
}

int spank_addrs_load(spank_t sp, char **hosts, size_t nh)
{
	node_info_msg_t *msg = NULL;
	int rc;

	addrs_clear();
	if (slurm_load_node((time_t) 0, &msg, SHOW_ALL) != SLURM_SUCCESS) {
		slurm_error("optimus: cannot read the nodes' addresses (%s): "
			    "host lists use node names",
			    slurm_strerror(errno));
		return -1;
	}
	rc = addrs_keep(msg, hosts, nh);
	slurm_free_node_info_msg(msg);
	if (rc) {
		slurm_error("optimus: out of memory reading node addresses");
		addrs_clear();
	}
	return rc;
}

const char *spank_addrs_of(const char *node)
{
	for (size_t i = 0; i < addr_n; i++)
		if (!strcmp(addr_name[i], node))
			return addr_value[i];
	return node;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* roles.c - topology string, PS/worker assignment and a task's place. */
#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/placement.h"
#include "roles/roles.h"
#include "util/errmsg.h"

#define TOPO_FIELDS 5

static int topo_field(const char *item, size_t len, uint64_t *values,
		      unsigned *seen)
{
	static const char *const names[TOPO_FIELDS] = {
		"ps", "workers", "batch", "local_batch", "accum" };
	static const uint64_t max[TOPO_FIELDS] = {
		HINTS_MAX_WORKERS, HINTS_MAX_WORKERS, 1000000000000ULL,
		UINT32_MAX, HINTS_MAX_ACCUM };
	const char *eq = memchr(item, '=', len);
	char *end;
	unsigned long long v;

	if (!eq)
		return -EINVAL;
	for (int i = 0; i < TOPO_FIELDS; i++) {
		if (strlen(names[i]) != (size_t)(eq - item) ||
		    strncmp(item, names[i], eq - item))
			continue;
		if (*seen & (1u << i) || !isdigit((unsigned char)eq[1]))
			return -EINVAL;
		errno = 0;
		v = strtoull(eq + 1, &end, 10);
		if (errno || end != item + len || v > max[i])
			return -EINVAL;
		values[i] = v;
		*seen |= 1u << i;
		return 0;
	}
	return -EINVAL;
}

/* The batch fields: all three or none; global = local * workers *
 * (accum + 1), as every task computes its share from them. */
static bool topo_batch_valid(const uint64_t *v, unsigned seen)
{
	unsigned batch = 0x1cu;

	if (!(seen & batch))
		return true;
	return (seen & batch) == batch && v[3] >= 1 &&
	       v[2] == v[3] * v[1] * (v[4] + 1);
}

int roles_topology_parse(const char *text, roles_topology_t *t, char *err,
			 size_t errlen)
{
	uint64_t v[TOPO_FIELDS] = { 0 };
	unsigned seen = 0;
	const char *p = text, *comma;

	while (p && *p) {
		comma = strchr(p, ',');
		if (topo_field(p, comma ? (size_t)(comma - p) : strlen(p), v,
			       &seen))
			break;
		p = comma ? comma + 1 : NULL;
	}
	if (p && !*p && p == text)
		p = NULL;	/* "" is caught by the seen bits */
	/* a trailing comma leaves p at an empty item: refused as well */
	if (!text || p || (seen & 3u) != 3u || v[1] < 1 ||
	    !topo_batch_valid(v, seen))
		return errmsg_set(err, errlen, -EINVAL,
				  "invalid %s '%s': expected "
				  "ps=P,workers=W with P >= 0 and W >= 1, then "
				  "optionally batch=B,local_batch=L,accum=K "
				  "with B = L x W x (K + 1)",
				  ROLES_TOPOLOGY_ENV, text ? text : "(null)");
	*t = (roles_topology_t){ .ps = (uint32_t)v[0],
				 .workers = (uint32_t)v[1], .batch = v[2],
				 .local_batch = (uint32_t)v[3],
				 .accum = (uint32_t)v[4] };
	return 0;
}

int roles_topology_format(const roles_topology_t *t, char *buf, size_t len)
{
	int n = t->batch ?
		snprintf(buf, len, "ps=%u,workers=%u,batch=%llu,"
			 "local_batch=%u,accum=%u", t->ps, t->workers,
			 (unsigned long long)t->batch, t->local_batch,
			 t->accum) :
		snprintf(buf, len, "ps=%u,workers=%u", t->ps, t->workers);

	return n < 0 || (size_t)n >= len ? -ENOSPC : n;
}

int roles_topology_for_step(const optimus_hints_t *h,
			    const roles_topology_t *given, uint32_t tasks,
			    roles_topology_t *out)
{
	uint32_t ps;

	if (!tasks)
		return -EINVAL;
	if (given && given->workers && given->ps + given->workers == tasks) {
		*out = *given;
		return 0;
	}
	/* keep at least one worker: a job without workers does no training */
	ps = h ? h->min_ps : 1;
	if (ps > tasks - 1)
		ps = tasks - 1;
	/* a batch the scheduler chose is for its topology only */
	*out = (roles_topology_t){ .ps = ps, .workers = tasks - ps };
	return 1;
}

static uint32_t nodes_tasks(const roles_node_t *nodes, size_t n)
{
	uint32_t sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += nodes[i].tasks;
	return sum;
}

/*
 * Colocated: node i's even share of the PS (placement.c's split), capped
 * by its task count; PS that did not fit go to the first nodes with room.
 */
static void assign_colocated(uint32_t p, roles_node_t *nodes, size_t n)
{
	uint32_t left = p;

	for (size_t i = 0; i < n; i++) {
		uint32_t share = placement_share_front(p, n, i);

		nodes[i].ps = share < nodes[i].tasks ? share : nodes[i].tasks;
		left -= nodes[i].ps;
	}
	for (size_t i = 0; i < n && left; i++) {
		uint32_t room = nodes[i].tasks - nodes[i].ps;
		uint32_t take = room < left ? room : left;

		nodes[i].ps += take;
		left -= take;
	}
}

/* Separate: the first tasks, node by node, are the PS. */
static void assign_separate(uint32_t p, roles_node_t *nodes, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		nodes[i].ps = p < nodes[i].tasks ? p : nodes[i].tasks;
		p -= nodes[i].ps;
	}
}

int roles_assign(const roles_topology_t *t, hints_layout_t layout,
		 roles_node_t *nodes, size_t nnodes, char *err, size_t errlen)
{
	uint32_t total = nodes_tasks(nodes, nnodes);

	if (!nnodes || total != t->ps + t->workers)
		return errmsg_set(err, errlen, -ERANGE,
				  "the step runs %u tasks on %zu "
				  "nodes but the topology has %u PS and %u "
				  "workers", total, nnodes, t->ps, t->workers);
	if (layout == HINTS_LAYOUT_SEPARATE)
		assign_separate(t->ps, nodes, nnodes);
	else
		assign_colocated(t->ps, nodes, nnodes);
	return 0;
}

/* Do nodes a and b take ports from one pool: the same host and the same
 * reservation (a heterogeneous step's components have their own)? */
static bool same_pool(const roles_node_t *a, const roles_node_t *b)
{
	if (a->host != b->host && (!a->host || !b->host ||
				   strcmp(a->host, b->host)))
		return false;
	return a->nports == b->nports &&
	       (a->ports == b->ports || !a->nports ||
		!memcmp(a->ports, b->ports, a->nports * sizeof(*a->ports)));
}

/* The step's tasks on the nodes before `node` that share its pool, and on
 * all of them (*all). */
static uint32_t pool_tasks_before(const roles_node_t *nodes, size_t nnodes,
				  size_t node, uint32_t *all)
{
	uint32_t before = 0, total = 0;

	for (size_t i = 0; i < nnodes; i++) {
		if (!same_pool(&nodes[i], &nodes[node]))
			continue;
		total += nodes[i].tasks;
		if (i < node)
			before += nodes[i].tasks;
	}
	if (all)
		*all = total;
	return before;
}

uint32_t roles_rendezvous_port(const roles_node_t *node)
{
	return node && node->nports ? node->ports[0] : 0;
}

int roles_ports_check(const roles_node_t *nodes, size_t nnodes, char *err,
		      size_t errlen)
{
	for (size_t i = 0; i < nnodes; i++) {
		uint32_t all;

		pool_tasks_before(nodes, nnodes, i, &all);
		if (!nodes[i].nports)
			return errmsg_set(err, errlen, -ENOSPC, "Slurm reserved "
					  "no ports for the step "
					  "(SLURM_STEP_RESV_PORTS): set "
					  "MpiParams=ports=LOW-HIGH in "
					  "slurm.conf");
		if (nodes[i].nports < 1 + (size_t)all)
			return errmsg_set(err, errlen, -ENOSPC, "Slurm reserved "
					  "%zu ports for the step on node %zu "
					  "(%s), whose host runs %u of its "
					  "tasks: they need %u (srun "
					  "--resv-ports=%u)", nodes[i].nports,
					  i, nodes[i].host ? nodes[i].host : "?",
					  all, all + 1,
					  roles_ports_request(nodes, nnodes));
	}
	return 0;
}

uint32_t roles_ports_request(const roles_node_t *nodes, size_t nnodes)
{
	uint32_t slurm = 0, need = 0;

	for (size_t i = 0; i < nnodes; i++) {
		uint32_t all;

		pool_tasks_before(nodes, nnodes, i, &all);
		if (nodes[i].tasks + 1 > slurm)
			slurm = nodes[i].tasks + 1;
		if (all + 1 > need)
			need = all + 1;
	}
	return need > slurm ? need : 0;
}

int roles_task_at(const roles_node_t *nodes, size_t nnodes, uint32_t node,
		  uint32_t local_id, roles_task_t *out)
{
	uint32_t ps_before = 0, workers_before = 0, same_host_before, slot;
	const roles_node_t *nd;

	if (node >= nnodes || local_id >= nodes[node].tasks)
		return -ERANGE;
	nd = &nodes[node];
	for (uint32_t i = 0; i < node; i++) {
		ps_before += nodes[i].ps;
		workers_before += nodes[i].tasks - nodes[i].ps;
	}
	/* Several nodes may share one address (multiple slurmd on a host):
	 * ports are unique per address, not per node name. */
	same_host_before = pool_tasks_before(nodes, nnodes, node, NULL);
	slot = 1 + same_host_before + local_id;
	if (slot >= nd->nports)
		return -ENOSPC;
	out->host = nd->host;
	out->port = nd->ports[slot];
	if (local_id < nd->ps) {
		out->role = ROLE_PS;
		out->local_rank = local_id;
		out->rank = ps_before + local_id;
	} else {
		out->role = ROLE_WORKER;
		out->local_rank = local_id - nd->ps;
		out->rank = workers_before + out->local_rank;
	}
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* hints/size.c - the Slurm request (nodes, tasks, per-node needs) of a job. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hints/hints.h"
#include "alloc/placement.h"
#include "util/errmsg.h"

/* What one node holding ps PS and w workers needs. */
typedef struct node_need {
	uint64_t cpus, mem_mb, gpus, tasks;
} node_need_t;

static node_need_t need_of(const optimus_hints_t *h, uint32_t cpt, int ps,
			   int w)
{
	node_need_t n;

	n.tasks = ps + w;
	n.cpus = (uint64_t)cpt * n.tasks;
	n.mem_mb = ps * h->ps_res.mem_mb + w * h->worker_res.mem_mb;
	n.gpus = hints_gpus(h, ps, w);
	return n;
}

uint64_t hints_gpus(const optimus_hints_t *h, uint32_t ps, uint32_t w)
{
	return (uint64_t)ps * h->ps_res.gpus + (uint64_t)w * h->worker_res.gpus;
}

/* A zero capacity field means unknown: assume it fits. */
static int need_fits(node_need_t n, const hints_res_t *cap)
{
	return (!cap->cpus || n.cpus <= cap->cpus) &&
	       (!cap->mem_mb || n.mem_mb <= cap->mem_mb) &&
	       (!cap->gpus || n.gpus <= cap->gpus);
}

static void need_max(node_need_t *acc, node_need_t n)
{
	if (n.cpus > acc->cpus)
		acc->cpus = n.cpus;
	if (n.mem_mb > acc->mem_mb)
		acc->mem_mb = n.mem_mb;
	if (n.gpus > acc->gpus)
		acc->gpus = n.gpus;
	if (n.tasks > acc->tasks)
		acc->tasks = n.tasks;
}

/*
 * The largest per-node need when p PS and w workers are split evenly over
 * k nodes (PS front-loaded, workers back-loaded, as placement.c does);
 * *fits tells whether every node fits the capacity.
 */
static node_need_t split_need(const optimus_hints_t *h, uint32_t cpt,
			      int p, int w, int k, const hints_res_t *cap,
			      int *fits)
{
	node_need_t acc = { 0, 0, 0, 0 };

	*fits = 1;
	for (int i = 0; i < k; i++) {
		node_need_t n = need_of(h, cpt, placement_share_front(p, k, i),
					placement_share_back(w, k, i));
		*fits &= need_fits(n, cap);
		need_max(&acc, n);
	}
	return acc;
}

/* Fewest nodes in [1, max_k] holding p PS + w workers evenly; 0 if none. */
static int fewest_nodes(const optimus_hints_t *h, uint32_t cpt, int p, int w,
			int max_k, const hints_res_t *cap)
{
	int fits;

	for (int k = 1; k <= max_k; k++) {
		split_need(h, cpt, p, w, k, cap, &fits);
		if (fits)
			return k;
	}
	return 0;
}

static int size_colocated(const optimus_hints_t *h, uint32_t cpt, int p,
			  int w, const hints_res_t *cap, uint32_t want,
			  uint32_t *k, node_need_t *need)
{
	int fits;

	*k = want ? want : (uint32_t)fewest_nodes(h, cpt, p, w, p + w, cap);
	if (!*k || *k > (uint32_t)(p + w))
		return -ERANGE;
	*need = split_need(h, cpt, p, w, *k, cap, &fits);
	return fits ? 0 : -ERANGE;
}

/* PS on kp nodes of their own, workers on kw others. */
static int size_separate(const optimus_hints_t *h, uint32_t cpt, int p, int w,
			 const hints_res_t *cap, uint32_t want, uint32_t *k,
			 node_need_t *need)
{
	int kp = fewest_nodes(h, cpt, p, 0, p, cap);
	int kw = fewest_nodes(h, cpt, 0, w, w, cap);
	int fits;

	if (!kp || !kw || (want && want < (uint32_t)(kp + kw)) ||
	    (want && want > (uint32_t)(p + w)))
		return -ERANGE;
	/* extra nodes asked for spread the workers first, then the PS */
	while (want && (uint32_t)(kp + kw) < want)
		if (kw < w)
			kw++;
		else
			kp++;
	*k = kp + kw;
	*need = split_need(h, cpt, p, 0, kp, cap, &fits);
	need_max(need, split_need(h, cpt, 0, w, kw, cap, &fits));
	return 0;
}

int hints_size(const optimus_hints_t *h, uint32_t p, uint32_t w,
	       const hints_res_t *node, uint32_t want_nodes,
	       hints_request_t *out, char *err, size_t errlen)
{
	hints_res_t none = { 0, 0, 0 };
	const hints_res_t *cap = node ? node : &none;
	bool ar = hints_is_allreduce(h);
	/* an all-reduce step has worker tasks only */
	uint32_t cpt = !ar && h->ps_res.cpus > h->worker_res.cpus ?
		       h->ps_res.cpus : h->worker_res.cpus;
	node_need_t need;
	uint32_t k = 0;
	int rc;

	if (w < 1 || (ar ? p != 0 : p < 1))
		rc = -ERANGE;
	else if (h->layout == HINTS_LAYOUT_SEPARATE)
		rc = size_separate(h, cpt, p, w, cap, want_nodes, &k, &need);
	else
		rc = size_colocated(h, cpt, p, w, cap, want_nodes, &k, &need);
	if (rc && ar)
		return errmsg_set(err, errlen, -ERANGE,
				  "--scheduler: %u all-reduce workers (%u "
				  "CPUs, %llu MB, %u GPUs each) do not fit on "
				  "%s%u node(s) of %u CPUs, %llu MB and %u "
				  "GPUs", w, cpt,
				  (unsigned long long)h->worker_res.mem_mb,
				  h->worker_res.gpus,
				  want_nodes ? "" : "up to ",
				  want_nodes ? want_nodes : w, cap->cpus,
				  (unsigned long long)cap->mem_mb, cap->gpus);
	if (rc)
		return errmsg_set(err, errlen, -ERANGE,
				  "--scheduler: %u PS (%u CPUs, %llu MB, %u "
				  "GPUs each) and %u workers (%u CPUs, %llu "
				  "MB, %u GPUs each) do not fit on %s%u "
				  "node(s) of %u CPUs, %llu MB and %u GPUs%s",
				  p, cpt, (unsigned long long)h->ps_res.mem_mb,
				  h->ps_res.gpus, w, cpt,
				  (unsigned long long)h->worker_res.mem_mb,
				  h->worker_res.gpus,
				  want_nodes ? "" : "up to ",
				  want_nodes ? want_nodes : p + w, cap->cpus,
				  (unsigned long long)cap->mem_mb, cap->gpus,
				  cpt > h->ps_res.cpus ||
				  cpt > h->worker_res.cpus ?
				  " (every task gets the larger CPU count: "
				  "Slurm steps are uniform)" : "");
	out->nodes = k;
	out->tasks = p + w;
	out->max_tasks_per_node = (uint32_t)need.tasks;
	out->task_slots = h->layout == HINTS_LAYOUT_SEPARATE ?
			  k * (uint32_t)need.tasks : p + w;
	out->cpus_per_task = cpt;
	out->mem_per_node_mb = need.mem_mb;
	out->gpus_per_node = (uint32_t)need.gpus;
	return 0;
}

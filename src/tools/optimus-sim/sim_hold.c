/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* sim_hold.c - what a simulated job holds (see sim_hold.h). */
#include <errno.h>
#include <stdlib.h>

#include "util/grow.h"
#include "sim_hold.h"

/* Room for one slot more in each of the per-slot arrays, which grow
 * alike (one capacity). */
static int hold_grow(sim_hold_t *h)
{
	size_t c[4] = { h->cap, h->cap, h->cap, h->cap };
	void *a;

	if (!(a = grow_array(h->slots, &c[0], h->n, sizeof(*h->slots), 4)))
		return -ENOMEM;
	h->slots = a;
	if (!(a = grow_array(h->usage, &c[1], h->n, sizeof(*h->usage), 4)))
		return -ENOMEM;
	h->usage = a;
	if (!(a = grow_array(h->ps, &c[2], h->n, sizeof(*h->ps), 4)))
		return -ENOMEM;
	h->ps = a;
	if (!(a = grow_array(h->workers, &c[3], h->n, sizeof(*h->workers),
			     4)))
		return -ENOMEM;
	h->workers = a;
	h->cap = c[0];
	return 0;
}

/* Take `slot`, using `need` of its server: 0, -ENOSPC (nothing taken)
 * or -ENOMEM. */
static int take_slot(sim_hold_t *h, res_vec_t *free, size_t nservers,
		     const place_slot_t *slot, res_vec_t need)
{
	int rc;

	if (slot->server >= nservers || !res_fits(need, free[slot->server]))
		return -ENOSPC;
	if ((rc = hold_grow(h)))
		return rc;
	free[slot->server] = res_sub(free[slot->server], need);
	h->slots[h->n] = *slot;
	h->usage[h->n] = need;
	h->ps[h->n] = slot->ps;
	h->workers[h->n++] = slot->workers;
	return 0;
}

int sim_hold_take(sim_hold_t *h, res_vec_t *free, size_t nservers,
		  const place_slot_t *slots, size_t n, res_vec_t ps,
		  res_vec_t worker, size_t *at)
{
	for (size_t i = 0; i < n; i++) {
		res_vec_t need = res_combo(ps, slots[i].ps, worker,
					   slots[i].workers);
		int rc = take_slot(h, free, nservers, &slots[i], need);
		if (rc) {
			*at = i;
			return rc;
		}
	}
	return 0;
}

void sim_hold_release(sim_hold_t *h, res_vec_t *free)
{
	for (size_t k = 0; k < h->n; k++)
		free[h->slots[k].server] = res_add(free[h->slots[k].server],
						   h->usage[k]);
	h->n = 0;
}

void sim_hold_free(sim_hold_t *h)
{
	free(h->slots);
	free(h->usage);
	free(h->ps);
	free(h->workers);
	*h = (sim_hold_t){ 0 };
}

int sim_hold_workers(const sim_hold_t *h)
{
	int w = 0;

	for (size_t k = 0; k < h->n; k++)
		w += h->workers[k];
	return w;
}

sim_truth_run_t sim_hold_run(const sim_hold_t *h)
{
	sim_truth_run_t run = { .workers = sim_hold_workers(h),
				.nnodes = h->n, .node_workers = h->workers };

	for (size_t k = 0; k < h->n; k++)
		run.ps += h->ps[k];
	if (run.ps)
		run.node_ps = h->ps;
	return run;
}

int sim_hold_worker_servers(const sim_hold_t *h, int *server)
{
	int n = 0;

	for (size_t k = 0; k < h->n; k++)
		for (int w = 0; w < h->workers[k]; w++)
			server[n++] = (int)h->slots[k].server;
	return n;
}

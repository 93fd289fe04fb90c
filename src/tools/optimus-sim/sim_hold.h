/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_hold.h - what a simulated job holds, one form for both engines:
 * its slots (a server and the PS and workers it runs there, as the plan's
 * decisions give them) with what each slot uses of its server, taken from
 * and given back to the cluster's free room per server by one rule, and
 * the configuration its truth runs it in. A job holds the slots of its
 * decision (sim_apply_decision.h): a synthetic job's, each PS and worker
 * using its model's share of the server (sim_apply.c); a measured job's,
 * one slot per run of its GPUs on a node, in the order they were
 * granted, each GPU a worker using a GPU, a CPU and a unit of memory
 * (measured/engine.c).
 */
#ifndef OPTIMUS_SIM_HOLD_H
#define OPTIMUS_SIM_HOLD_H

#include <stddef.h>

#include "alloc/placement.h"
#include "alloc/resources.h"
#include "sim_truth_ops.h"

typedef struct sim_hold {
	place_slot_t *slots;
	res_vec_t *usage;	/* per slot */
	/* Per slot, its PS and workers as the truth takes a placement
	 * (sim_truth_run_t.node_ps, node_workers). */
	int *ps, *workers;
	size_t n, cap;
} sim_hold_t;

/*
 * Take a placement, slots[0..n) in order, each slot using per PS `ps`
 * and per worker `worker` of its server, from free[0..nservers): 0;
 * -ENOSPC with *at the slot whose server is none of them or has less
 * free than it needs (the slots before it held, it not; its caller names
 * the job and the server); or -ENOMEM.
 */
int sim_hold_take(sim_hold_t *h, res_vec_t *free, size_t nservers,
		  const place_slot_t *slots, size_t n, res_vec_t ps,
		  res_vec_t worker, size_t *at);
/* Give every slot back to free[] and hold nothing. */
void sim_hold_release(sim_hold_t *h, res_vec_t *free);
/* The memory of h (what it holds is not given back). */
void sim_hold_free(sim_hold_t *h);

/* Workers held, over every slot. */
int sim_hold_workers(const sim_hold_t *h);
/*
 * The configuration a job holding h runs in, as its truth takes it: its
 * workers and PS on each server it holds (no PS: an all-reduce job, no
 * node_ps). How it splits its batch and assigns its parameters (atomic,
 * accum, paa) are the engine's to add.
 */
sim_truth_run_t sim_hold_run(const sim_hold_t *h);
/* The server of each worker, slot by slot, into server[]: how many. */
int sim_hold_worker_servers(const sim_hold_t *h, int *server);

#endif

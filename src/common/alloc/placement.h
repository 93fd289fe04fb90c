/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * placement.h - task placement by Theorem 1 of the Optimus paper: each job
 * on the fewest servers, with the same number of PS and of workers on each
 * (as even as integers allow).
 *
 * Servers are kept in a max-heap keyed by their free room; jobs are placed
 * in ascending order of requirement. For each job the k servers with the
 * most room are taken from the heap one by one until an even split of the
 * job fits on them (smallest such k); they go back with their new room.
 * A job that fits on no k is reported and nothing of it is placed.
 *
 * A separate-layout job (PS and workers on nodes of their own, run as a
 * heterogeneous step) takes k >= 2 servers too, the first kp (most room)
 * holding an even split of the PS only and the other k - kp an even split
 * of the workers only, with the smallest kp that fits (so extra servers
 * go to the workers, as hints_size() sizes such a job on k nodes).
 */
#ifndef OPTIMUS_PLACEMENT_H
#define OPTIMUS_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "alloc/alloc.h"
#include "alloc/cap.h"
#include "alloc/resources.h"

typedef struct place_job {
	uint32_t id;
	res_vec_t ps_demand, worker_demand;
	int ps, workers;
	/* Every server gets what the fullest one needs: Slurm allocates
	 * --ntasks-per-node tasks on each node of a job, so 5 tasks on 2
	 * nodes take 3 task slots on both; false: each server its share. */
	bool same_on_each;
	/* PS on servers of their own, workers on the others (needs ps and
	 * workers >= 1; layout=separate). */
	bool separate;
	/* A server the job must not use (the node of its straggler). */
	bool has_closed;
	uint32_t closed_server;
	/* The most the job may hold (cap.h), charged what it takes on each
	 * server; NULL: no cap. A split over the cap does not fit. */
	const job_cap_t *cap;
} place_job_t;

typedef struct place_slot {
	uint32_t server;   /* index in the server array */
	int ps, workers;
} place_slot_t;

enum place_status { PLACE_OK = 0, PLACE_UNFIT, PLACE_EMPTY };

typedef struct place_assign {
	uint32_t id;
	enum place_status status;  /* PLACE_EMPTY: the job had no task */
	size_t nslots;
	place_slot_t *slots;       /* points into place_result_t.pool */
} place_assign_t;

typedef struct place_result {
	size_t njobs;
	place_assign_t *jobs;      /* jobs[i] answers the i-th input job */
	place_slot_t *pool;
	size_t nunfit;
	res_vec_t *free_after;     /* each server's room after placement */
	size_t nservers;
	/* Why the run failed, written with errmsg_set: a result carries its
	 * own message because its callers (plan_run's passes, the plugin's
	 * log, the simulator) read it after the result, not at the call. */
	char err[160];
} place_result_t;

/*
 * server_free[s] is server s's free capacity (heterogeneous: other jobs
 * run). Returns 0, -EINVAL or -ENOMEM; free the result in every case.
 */
int placement_run(const res_vec_t *server_free, size_t nservers,
		  const place_job_t *jobs, size_t njobs, place_result_t *out);
void placement_result_free(place_result_t *out);

/* The even split of n tasks over k servers: server i's share (0-based). */
int placement_share_front(int n, int k, int i);
int placement_share_back(int n, int k, int i);

/* Place jobs from an allocation: one place_job_t per granted job. */
size_t placement_jobs_from_alloc(const alloc_job_t *jobs,
				 const alloc_result_t *res, place_job_t *out);

#endif

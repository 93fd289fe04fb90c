/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * placement.c - Theorem 1 placement with a heap of servers (placement.h).
 *
 * A server's "room" is the scalar sum_r free_r / scale_r, scale_r being the
 * largest free amount of resource r over all servers at the start, so that
 * CPU, memory and GPU weigh alike. Remainders of the even split: with
 * p = qk + a PS on k servers, the a extra PS go to the first servers (most
 * room), and the b extra workers of w = q'k + b go to the last ones, so
 * that the number of tasks per server also differs by at most one and every
 * server of the k holds at least one task as long as k <= p + w.
 * Servers that cannot hold one task of the job are skipped for that job
 * (placer_eligible). Cost per job: O((k + skipped) log S) heap operations
 * plus O(k^2) fit checks
 * (k starts at a lower bound from the job's total demand), never a scan of
 * all servers.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/heap.h"
#include "alloc/placement.h"
#include "util/errmsg.h"

typedef struct placer {
	const place_job_t *jobs;
	place_result_t *out;
	res_vec_t scale;
	heap_t heap;
	int kp;            /* separate layout: the first kp taken hold the PS */
	uint32_t *taken;   /* servers popped for the current job, by room */
	size_t ntaken;
	uint32_t *skipped; /* servers popped that cannot hold one task of it */
	size_t nskipped;
	res_vec_t *charge; /* what the split takes on each taken server */
	size_t pool_used;
} placer_t;

int placement_share_front(int n, int k, int i)
{
	return n / k + (i < n % k);
}

int placement_share_back(int n, int k, int i)
{
	return n / k + (i >= k - n % k);
}

/* A separate-layout job with both kinds of task (else: colocated). */
static bool placer_separate(const place_job_t *job)
{
	return job->separate && job->ps >= 1 && job->workers >= 1;
}

/* Server i of k's PS and workers: the colocated even split, or, with the
 * separate layout, PS on servers 0..kp-1 and workers on kp..k-1. */
static void placer_share(const place_job_t *job, int k, int kp, int i,
			 int *ps, int *workers)
{
	if (!placer_separate(job)) {
		*ps = placement_share_front(job->ps, k, i);
		*workers = placement_share_back(job->workers, k, i);
	} else if (i < kp) {
		*ps = placement_share_front(job->ps, kp, i);
		*workers = 0;
	} else {
		*ps = 0;
		*workers = placement_share_back(job->workers, k - kp, i - kp);
	}
}

static res_vec_t placer_share_need(const place_job_t *job, int k, int kp,
				   int i)
{
	int ps, workers;

	placer_share(job, k, kp, i, &ps, &workers);
	return res_combo(job->ps_demand, ps, job->worker_demand, workers);
}

/* What server i of k takes: its share, or the fullest share (same_on_each). */
static res_vec_t placer_need(const place_job_t *job, int k, int kp, int i)
{
	res_vec_t need = placer_share_need(job, k, kp, i);

	for (int j = 0; job->same_on_each && j < k; j++)
		need = res_max(need, placer_share_need(job, k, kp, j));
	return need;
}

/* Does the split fit the taken servers' room, and the job's cap? */
static bool placer_split_fits_kp(const placer_t *pl, const place_job_t *job,
				 int kp)
{
	int k = pl->ntaken;

	for (int i = 0; i < k; i++) {
		pl->charge[i] = placer_need(job, k, kp, i);
		if (!res_fits(pl->charge[i], pl->out->free_after[pl->taken[i]]))
			return false;
	}
	return cap_allows(job->cap, pl->charge, (size_t)k);
}

/* Does the job fit the taken servers? Separate layout: with the fewest
 * PS servers kp that fit (set in pl->kp). */
static bool placer_split_fits(placer_t *pl, const place_job_t *job)
{
	int k = pl->ntaken;

	if (!placer_separate(job))
		return placer_split_fits_kp(pl, job, 0);
	for (int kp = 1; kp < k && kp <= job->ps; kp++)
		if (k - kp <= job->workers && placer_split_fits_kp(pl, job, kp)) {
			pl->kp = kp;
			return true;
		}
	return false;
}

/* No fewer servers can hold the job's total demand than this. */
static size_t placer_lower_bound(const placer_t *pl, const place_job_t *job)
{
	res_vec_t total = res_combo(job->ps_demand, job->ps,
				    job->worker_demand, job->workers);
	double k = placer_separate(job) ? 2.0 : 1.0;

	for (int r = 0; r < RES_NUM; r++)
		if (pl->scale.v[r] > 0.0)
			k = fmax(k, ceil(total.v[r] / pl->scale.v[r] - RES_EPS));
	return (size_t)k;
}

static void placer_commit(placer_t *pl, size_t j)
{
	const place_job_t *job = &pl->jobs[j];
	place_assign_t *a = &pl->out->jobs[j];
	int k = pl->ntaken;

	a->slots = pl->out->pool + pl->pool_used;
	for (int i = 0; i < k; i++) {
		uint32_t s = pl->taken[i];
		place_slot_t *slot = &a->slots[a->nslots];
		slot->server = s;
		placer_share(job, k, pl->kp, i, &slot->ps, &slot->workers);
		pl->out->free_after[s] = res_sub(pl->out->free_after[s],
						 placer_need(job, k, pl->kp, i));
		if (slot->ps || slot->workers)
			a->nslots++;
	}
	pl->pool_used += a->nslots;
}

/*
 * A server's room: its free CPU and memory, each relative to the largest
 * free amount at the start. GPUs are left out on purpose: a server whose
 * GPUs are free but whose CPUs are taken would otherwise stay on top for
 * every CPU-only job; GPU jobs find GPU servers through placer_eligible.
 */
static double placer_room(const placer_t *pl, res_vec_t free)
{
	res_vec_t v = free;

	v.v[RES_GPU] = 0.0;
	return res_norm_sum(v, pl->scale);
}

static void placer_push(placer_t *pl, const uint32_t *servers, size_t n)
{
	for (size_t i = 0; i < n; i++)
		heap_set(&pl->heap, servers[i],
			 placer_room(pl, pl->out->free_after[servers[i]]));
}

static void placer_give_back(placer_t *pl)
{
	placer_push(pl, pl->taken, pl->ntaken);
	placer_push(pl, pl->skipped, pl->nskipped);
	pl->ntaken = 0;
	pl->nskipped = 0;
}

/*
 * Bound on the servers set aside per job, so that a job nothing can hold
 * (say all GPUs are taken) costs O(k + bound) heap operations, not a pass
 * over every server: if hundreds of the roomiest servers cannot hold one of
 * its tasks, the job is reported unfit for this round.
 */
#define PLACE_MAX_SKIPPED 512

/*
 * Each of the k servers holds at least one task of the job, and which kind
 * depends on its rank; a server that cannot hold the larger of the two
 * (component-wise) would sink every split it is part of, e.g. a server
 * without GPUs for a GPU job, so it is set aside for this job. So is a
 * server closed to the job.
 */
static bool placer_eligible(const placer_t *pl, const place_job_t *job,
			    uint32_t s)
{
	if (job->has_closed && s == job->closed_server)
		return false;
	return res_fits(res_max(job->ps_demand, job->worker_demand),
			pl->out->free_after[s]);
}

static void placer_place(placer_t *pl, size_t j)
{
	const place_job_t *job = &pl->jobs[j];
	size_t kmax = (size_t)job->ps + job->workers;
	size_t k0 = placer_lower_bound(pl, job);
	bool placed = false;
	uint32_t s;

	if (kmax == 0) {
		pl->out->jobs[j].status = PLACE_EMPTY;
		return;
	}
	/* No split on more servers than the cap allows. */
	if (job->cap && job->cap->servers < (double)kmax)
		kmax = (size_t)job->cap->servers;
	pl->kp = 0;
	while (pl->ntaken < kmax && heap_pop(&pl->heap, &s, NULL)) {
		if (!placer_eligible(pl, job, s)) {
			pl->skipped[pl->nskipped++] = s;
			if (pl->nskipped > PLACE_MAX_SKIPPED)
				break;
			continue;
		}
		pl->taken[pl->ntaken++] = s;
		if (pl->ntaken >= k0 && placer_split_fits(pl, job)) {
			placed = true;
			break;
		}
	}
	if (placed) {
		placer_commit(pl, j);
	} else {
		pl->out->jobs[j].status = PLACE_UNFIT;
		pl->out->nunfit++;
	}
	placer_give_back(pl);
}

typedef struct placer_order {
	double need;   /* total requirement, normalized by the scale */
	size_t job;
} placer_order_t;

/* Ascending total requirement; ties by input index for determinism. */
static int placer_cmp(const void *a, const void *b)
{
	const placer_order_t *x = a, *y = b;

	if (x->need != y->need)
		return x->need < y->need ? -1 : 1;
	return x->job < y->job ? -1 : 1;
}

static void placer_sort(const placer_t *pl, size_t njobs,
			placer_order_t *order)
{
	for (size_t j = 0; j < njobs; j++) {
		const place_job_t *x = &pl->jobs[j];
		order[j].job = j;
		order[j].need = res_norm_sum(res_combo(x->ps_demand, x->ps,
						       x->worker_demand,
						       x->workers), pl->scale);
	}
	qsort(order, njobs, sizeof(*order), placer_cmp);
}

static int placer_check(const res_vec_t *server_free, size_t nservers,
			const place_job_t *jobs, size_t njobs,
			place_result_t *out)
{
	if ((nservers && !server_free) || (njobs && !jobs) ||
	    nservers > UINT32_MAX)
		return errmsg_set(out->err, sizeof(out->err), -EINVAL,
				  "invalid servers or jobs");
	for (size_t s = 0; s < nservers; s++)
		if (!res_is_valid(server_free[s]))
			return errmsg_set(out->err, sizeof(out->err), -EINVAL,
					  "server %zu: invalid free capacity",
					  s);
	for (size_t j = 0; j < njobs; j++)
		if (jobs[j].ps < 0 || jobs[j].workers < 0 ||
		    !res_is_valid(jobs[j].ps_demand) ||
		    !res_is_valid(jobs[j].worker_demand))
			return errmsg_set(out->err, sizeof(out->err), -EINVAL,
					  "job %u: invalid task counts or "
					  "demands", jobs[j].id);
	return 0;
}

static int placer_setup(placer_t *pl, const res_vec_t *server_free,
			size_t nservers, size_t njobs)
{
	place_result_t *out = pl->out;
	size_t ntasks = 0, kmax = 1;

	for (size_t j = 0; j < njobs; j++) {
		size_t t = (size_t)pl->jobs[j].ps + pl->jobs[j].workers;
		ntasks += t;
		kmax = t > kmax ? t : kmax;
	}
	out->jobs = calloc(njobs + 1, sizeof(*out->jobs));
	out->pool = calloc(ntasks + 1, sizeof(*out->pool));
	out->free_after = malloc((nservers + 1) * sizeof(*out->free_after));
	pl->taken = malloc(kmax * sizeof(*pl->taken));
	pl->charge = malloc(kmax * sizeof(*pl->charge));
	pl->skipped = malloc((PLACE_MAX_SKIPPED + 1) * sizeof(*pl->skipped));
	if (!out->jobs || !out->pool || !out->free_after || !pl->taken ||
	    !pl->charge || !pl->skipped ||
	    heap_init(&pl->heap, nservers))
		return -ENOMEM;
	out->njobs = njobs;
	out->nservers = nservers;
	memset(&pl->scale, 0, sizeof(pl->scale));
	for (size_t s = 0; s < nservers; s++) {
		out->free_after[s] = server_free[s];
		pl->scale = res_max(pl->scale, server_free[s]);
	}
	for (size_t s = 0; s < nservers; s++)
		heap_set(&pl->heap, s, placer_room(pl, server_free[s]));
	for (size_t j = 0; j < njobs; j++)
		out->jobs[j].id = pl->jobs[j].id;
	return 0;
}

int placement_run(const res_vec_t *server_free, size_t nservers,
		  const place_job_t *jobs, size_t njobs, place_result_t *out)
{
	placer_t pl = { .jobs = jobs, .out = out };
	placer_order_t *order = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = placer_check(server_free, nservers, jobs, njobs, out);
	if (!rc)
		rc = placer_setup(&pl, server_free, nservers, njobs);
	if (!rc && !(order = malloc((njobs + 1) * sizeof(*order))))
		rc = -ENOMEM;
	if (!rc) {
		placer_sort(&pl, njobs, order);
		for (size_t j = 0; j < njobs; j++)
			placer_place(&pl, order[j].job);
	}
	if (rc == -ENOMEM)
		errmsg_set(out->err, sizeof(out->err), 0, "out of memory");
	free(order);
	free(pl.taken);
	free(pl.charge);
	free(pl.skipped);
	heap_free(&pl.heap);
	return rc;
}

void placement_result_free(place_result_t *out)
{
	free(out->jobs);
	free(out->pool);
	free(out->free_after);
	memset(out, 0, sizeof(*out));
}

size_t placement_jobs_from_alloc(const alloc_job_t *jobs,
				 const alloc_result_t *res, place_job_t *out)
{
	size_t n = 0;

	for (size_t i = 0; i < res->njobs; i++) {
		const alloc_grant_t *g = &res->grants[i];
		if (g->status != ALLOC_OK || g->ps + g->workers == 0)
			continue;
		out[n++] = (place_job_t){
			.id = g->id, .ps_demand = jobs[i].ps_demand,
			.worker_demand = jobs[i].worker_demand,
			.ps = g->ps, .workers = g->workers,
		};
	}
	return n;
}

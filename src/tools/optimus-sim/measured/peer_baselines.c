/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/peer_baselines.c - the peer's two baselines, written from their
 * description (doc/design/simulator.md, "Measured workloads"): these are the
 * Pollux artifact's rules, not this project's, and are labelled so.
 */
#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measured/place.h"
#include "measured/policy.h"

static void free_self(px_policy_t *p)
{
	free(p->state);
	free(p);
}

/* ---- peer-optimus-oracle ---- */

/* Remaining-time drop of one more GPU; 0 when none may or can be had. */
static double peer_gain(const px_job_t *j, int r, double remaining, int left)
{
	if (r + 1 > px_job_max_replicas(j) || left < 1)
		return 0.0;
	return (px_job_true_step(j, r) - px_job_true_step(j, r + 1)) *
	       remaining;
}

static int peer_optimus_plan(px_policy_t *p, px_sim_t *s,
			     const size_t *active, size_t n,
			     int (*next)[PX_GPUS], int *nnext)
{
	double *rem = calloc(n, sizeof(double)), *gain = calloc(n, sizeof(double));
	int *reps = calloc(n, sizeof(int)), left = px_sim_gpus(s);
	size_t *order = calloc(n, sizeof(size_t));
	int rc;

	(void)p;
	if (!rem || !gain || !reps || !order) {
		free(rem);
		free(gain);
		free(reps);
		free(order);
		return -ENOMEM;
	}
	/* One GPU each, in submission order, while any is left. */
	for (size_t k = 0; k < n; k++) {
		const px_job_t *j = &s->jobs[active[k]];
		rem[k] = px_job_remaining_steps(j);
		if (left < 1)
			continue;
		reps[k] = 1;
		left--;
		gain[k] = peer_gain(j, 1, rem[k], left);
	}
	/* Then one at a time to the largest gain (the first on ties). */
	while (left > 0) {
		size_t best = 0;
		for (size_t k = 1; k < n; k++)
			if (gain[k] > gain[best])
				best = k;
		if (!(gain[best] > 0))
			break;
		reps[best]++;
		gain[best] = peer_gain(&s->jobs[active[best]], reps[best],
				       rem[best], left);
		left--;
	}
	/* Jobs whose count changed lose their GPUs, then the others are
	 * placed smallest first, each GPU on the node with most free. */
	for (size_t k = 0; k < n; k++)
		if (nnext[active[k]] != reps[k])
			nnext[active[k]] = 0;
	px_order_by(reps, n, false, order);
	rc = px_place_in_order(s, active, order, n, reps, next, nnext,
			       px_place_most_free);
	free(rem);
	free(gain);
	free(reps);
	free(order);
	return rc;
}

px_policy_t *px_peer_optimus_new(void)
{
	px_policy_t *p = calloc(1, sizeof(*p));

	if (p)
		*p = (px_policy_t){ "peer-optimus-oracle", peer_optimus_plan,
				    free_self, NULL, "true step times and "
				    "remaining steps" };
	return p;
}

/* ---- tiresias ---- */

/* GPU-seconds of service after which a job moves to the second queue. */
#define TIRESIAS_THRESHOLD (3600.0 * 16)

typedef enum { TS_NEW = 0, TS_PENDING, TS_RUNNING } ts_status_t;

typedef struct tiresias {
	size_t njobs;
	ts_status_t *status;
	double *last_check, *executed;
	int *queue;		/* 0 or 1 */
	uint64_t *seq;		/* position in its queue (append order) */
	uint64_t next_seq;
} tiresias_t;

static void tiresias_free(px_policy_t *p)
{
	tiresias_t *t = p->state;

	if (t) {
		free(t->status);
		free(t->last_check);
		free(t->executed);
		free(t->queue);
		free(t->seq);
	}
	free_self(p);
}

static int tiresias_init(tiresias_t *t, size_t n)
{
	t->njobs = n;
	t->status = calloc(n, sizeof(*t->status));
	t->last_check = calloc(n, sizeof(double));
	t->executed = calloc(n, sizeof(double));
	t->queue = calloc(n, sizeof(int));
	t->seq = calloc(n, sizeof(uint64_t));
	return t->status && t->last_check && t->executed && t->queue &&
	       t->seq ? 0 : -ENOMEM;
}

/* Queue 0 before queue 1, each in the order jobs entered it. */
static int ts_cmp(const tiresias_t *t, size_t a, size_t b)
{
	if (t->queue[a] != t->queue[b])
		return t->queue[a] - t->queue[b];
	return (t->seq[a] > t->seq[b]) - (t->seq[a] < t->seq[b]);
}

static int tiresias_plan(px_policy_t *p, px_sim_t *s, const size_t *active,
			 size_t n, int (*next)[PX_GPUS], int *nnext)
{
	tiresias_t *t = p->state;
	double now = floor(s->eng.now);
	int left = px_sim_gpus(s);
	size_t *order = calloc(n, sizeof(size_t));
	int *want = calloc(n, sizeof(int));
	int rc;

	if (!order || !want || (!t->status && tiresias_init(t, s->eng.njobs))) {
		free(order);
		free(want);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = active[k];
		if (t->status[i] == TS_NEW) {
			t->status[i] = TS_PENDING;
			t->queue[i] = 0;
			t->seq[i] = t->next_seq++;
		}
		/* Attained service counts while running, restarts too. */
		if (t->status[i] == TS_RUNNING) {
			t->executed[i] += now - t->last_check[i];
			double gpu_time = t->executed[i] *
					  s->jobs[i].spec->replicas;
			if (t->queue[i] == 0 && gpu_time >= TIRESIAS_THRESHOLD) {
				t->queue[i] = 1;
				t->seq[i] = t->next_seq++;
			}
		}
		t->last_check[i] = now;
		order[k] = k;
	}
	for (size_t a = 1; a < n; a++)
		for (size_t b = a; b > 0 && ts_cmp(t, active[order[b - 1]],
						   active[order[b]]) > 0; b--) {
			size_t x = order[b];
			order[b] = order[b - 1];
			order[b - 1] = x;
		}
	/* Every job that fits in what is left runs, in queue order; a job
	 * that does not fit gives its GPUs back (preempted). */
	for (size_t q = 0; q < n; q++) {
		size_t k = order[q], i = active[k];
		int reps = s->jobs[i].spec->replicas;
		if (reps <= left) {
			t->status[i] = TS_RUNNING;
			want[k] = reps;
			left -= reps;
		} else {
			t->status[i] = TS_PENDING;
			nnext[i] = 0;
		}
	}
	rc = px_place_in_order(s, active, order, n, want, next, nnext,
			       px_place_most_free);
	free(order);
	free(want);
	return rc;
}

px_policy_t *px_tiresias_new(void)
{
	px_policy_t *p = calloc(1, sizeof(*p));
	tiresias_t *t = calloc(1, sizeof(*t));

	if (!p || !t) {
		free(p);
		free(t);
		return NULL;
	}
	*p = (px_policy_t){ "tiresias", tiresias_plan, tiresias_free, t,
			    NULL };
	return p;
}

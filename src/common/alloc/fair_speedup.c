/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * alloc/fair_speedup.c - Pollux's objective in the marginal-gain greedy of
 * alloc/rate.c: the power mean with p = -1 (the harmonic mean) of each
 * job's speedup over its fair share.
 *
 * Pollux (OSDI'21, its artifact's simulator/pollux.py, and AdaptDL's
 * SpeedupFunction) measures a job j at allocation a by its speedup
 * s_j(a) = f_j(a) / base_j, f its goodput, base_j its goodput at its fair
 * share of the cluster: ceil(1 / (n x one replica's dominant share))
 * replicas, n the jobs being allocated. It maximises the power mean
 * (sum_j (s_j + eps)^p / n)^(1/p) with p = -1 and eps = 1e-3, i.e. it
 * minimises sum_j 1 / (s_j + eps). A job with no GPU counts 1 / eps: its
 * first grant outweighs any growth of a served job, so every job is
 * served before any grows, and a job whose speedup is poor is served
 * before one that is already fast: the objective does not read the work a
 * job has left, where the completion-rate objective (f/Q) serves the job
 * predicted to end first.
 *
 * Here f is the job's speed callback (goodput jobs: B0-steps per second
 * at the best batch on the nodes it would span), the value of job j is
 * -1 / (s_j + eps), and the greedy gives each step to the job whose value
 * grows most per dominant share, as alloc/rate.c does with f/Q. The base
 * is the speed at the fair share (at least the job's minimum); when that
 * is not positive (beyond what the job can run), at its most workers,
 * else at its minimum. A job with no positive speed there gains nothing
 * and is not granted, as under alloc/rate.c. Pollux rates the base as if
 * on one node; here the callback rates the fair share on the nodes the
 * job would span. A job with change_weight set has
 * Pollux's restart weighting: its speedup at any size but its current
 * one times that weight (the plan's, plan_policy_goodput.c). Pollux's
 * NSGA-II search is not part of this; early-stage jobs are damped as in
 * alloc/rate.c.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "alloc/alloc.h"
#include "util/errmsg.h"

/* Pollux's term added to every speedup: a job without a GPU counts
 * 1 / eps, not an infinite one. */
#define FAIR_SPEEDUP_EPS 1e-3

/* Fair shares above this many workers are taken as this many. */
#define FAIR_SPEEDUP_MAX_SHARE (1 << 20)

/* What the values read: each job's base, worked out at its first value
 * (NAN until then: after the greedy has checked the jobs), and what it
 * is worked out from. */
typedef struct fs_ctx {
	double *base;
	size_t n;
	const alloc_params_t *prm;
} fs_ctx_t;

/* Job j's rate at its fair share of the capacity among n jobs. */
static double fs_base(const alloc_job_t *j, size_t n,
		      const alloc_params_t *prm)
{
	double share = res_dominant_share(j->worker_demand, prm->capacity);
	int p = j->no_ps ? 0 : alloc_min_ps(j), w, lo = alloc_min_workers(j);
	double fair = share > 0.0 && n > 0 ?
		      ceil(1.0 / ((double)n * share) - 1e-9) : (double)lo;
	double f;

	w = !(fair < FAIR_SPEEDUP_MAX_SHARE) ? FAIR_SPEEDUP_MAX_SHARE :
	    fair < lo ? lo : (int)fair;
	f = alloc_speed(j, p, w);
	if (!(f > 0.0) && j->max_workers > 0 && j->max_workers < w)
		f = alloc_speed(j, p, j->max_workers);
	if (!(f > 0.0))
		f = alloc_speed(j, p, lo);
	return f;
}

static double fs_value(const alloc_job_t *j, size_t i, int p, int w,
		       void *ctx)
{
	fs_ctx_t *x = ctx;
	double s;

	if (isnan(x->base[i]))
		x->base[i] = fs_base(j, x->n, x->prm);
	if (!(x->base[i] > 0.0))
		return -1.0 / FAIR_SPEEDUP_EPS;
	s = alloc_speed(j, p, w) / x->base[i];
	/* Pollux's restart weighting of any size but the current one */
	if (j->change_weight > 0.0 && w != j->cur_workers)
		s *= j->change_weight;
	return -1.0 / (s + FAIR_SPEEDUP_EPS);
}

int alloc_fair_speedup_run(const alloc_job_t *jobs, size_t n,
			   const alloc_params_t *prm, alloc_result_t *out)
{
	fs_ctx_t x = { malloc((n ? n : 1) * sizeof(double)), n, prm };
	int rc;

	if (!x.base) {
		if (!(rc = alloc_result_init(out, jobs, n)))
			rc = errmsg_set(out->err, sizeof(out->err), -ENOMEM,
					"fair-speedup greedy: out of memory");
		return rc;
	}
	for (size_t i = 0; i < n; i++)
		x.base[i] = NAN;
	rc = alloc_greedy_run(jobs, n, prm, fs_value, &x,
			      "fair-speedup greedy", out);
	free(x.base);
	return rc;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_policy_quality.c - Policy=quality, and the rules of every job that
 * asks for quality (--scheduler=quality) under Policy=optimus as well
 * (doc/design/planning.md): the quality-driven Algorithm 1 shares "unit
 * resources" among these jobs by predicted loss reduction; a job without
 * that choice is planned by Optimus' rules (plan_policy_optimus.c).
 *
 * Here a unit is one worker of the job (with the job's min_ps PS fixed),
 * and the number of units the room holds is counted server by server with
 * the mean worker demand of the quality jobs, after their PS
 * (plan_quality_units). With both kinds of jobs present, the capacity is
 * split in proportion to the number of jobs of each kind, and each
 * allocator runs on its share (plan_alloc.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_statistics_double.h>

#include "plan/plan_priv.h"

/* Jobs idx[0..n): their mean worker demand, mean PS demand, PS count. */
static int plan_unit_demands(const alloc_job_t *aj, const size_t *idx,
			     size_t n, res_vec_t *mean, res_vec_t *ps_mean)
{
	res_vec_t ps = res_make(0, 0, 0);
	int nps = 0;

	*mean = res_make(0, 0, 0);
	for (size_t k = 0; k < n; k++) {
		const alloc_job_t *j = &aj[idx[k]];

		nps += alloc_min_ps(j);
		ps = res_add(ps, res_combo(j->ps_demand, alloc_min_ps(j),
					   j->worker_demand, 0));
		for (int r = 0; r < RES_NUM; r++)
			mean->v[r] += j->worker_demand.v[r] / n;
	}
	for (int r = 0; r < RES_NUM; r++)
		ps_mean->v[r] = nps ? ps.v[r] / nps : 0.0;
	return nps;
}

/* Whole units in `avail` (the scarcest resource decides); 0 if none. */
static double plan_units_in(res_vec_t avail, res_vec_t mean)
{
	double units = INFINITY;

	for (int r = 0; r < RES_NUM; r++)
		if (mean.v[r] > 0.0)
			units = fmin(units, floor(avail.v[r] / mean.v[r] + 1e-9));
	return isfinite(units) && units > 0.0 ? units : 0.0;
}

/* Server s's part of the room: the mean over resources of its fraction. */
static double plan_room_part(res_vec_t room, res_vec_t total)
{
	double part = 0.0;
	int k = 0;

	for (int r = 0; r < RES_NUM; r++)
		if (total.v[r] > 0.0) {
			part += room.v[r] / total.v[r];
			k++;
		}
	return k ? part / k : 0.0;
}

/*
 * PS tasks per server: nps shared in proportion to the servers' parts of
 * the room, rounded down, the rest one each to the largest remainders
 * (Hamilton's apportionment), in time linear in the servers. tasks[]
 * gets the counts; 0 or -ENOMEM.
 */
static int plan_apportion(const res_vec_t *room, size_t nroom, int nps,
			  double *tasks)
{
	res_vec_t total = res_make(0, 0, 0);
	double *rest = malloc((nroom + 1) * sizeof(*rest)), cut;
	int left = nps;

	if (!rest)
		return -ENOMEM;
	for (size_t s = 0; s < nroom; s++)
		total = res_add(total, room[s]);
	for (size_t s = 0; s < nroom; s++) {
		double part = nps * plan_room_part(room[s], total);

		tasks[s] = floor(part);
		rest[s] = part - tasks[s];
		left -= (int)tasks[s];
	}
	/* The left-th largest remainder, in linear time (quickselect). */
	cut = left > 0 && (size_t)left <= nroom ?
	      gsl_stats_select(rest, 1, nroom, nroom - (size_t)left) : INFINITY;
	for (size_t s = 0; s < nroom && left > 0; s++) {
		double r = nps * plan_room_part(room[s], total) - tasks[s];

		if (r >= cut && r > 0.0) {
			tasks[s] += 1.0;
			left--;
		}
	}
	free(rest);
	return 0;
}

/*
 * Units the room holds for the quality jobs, `share` of it theirs. A unit
 * is one worker, which cannot span servers, so the units are counted on
 * each server and added up: counted in the aggregate, fragments (a few GB
 * left on each of several servers) added up to units that no server
 * could hold, the grants that used them could not be placed, and the
 * jobs Algorithm 1 had grown were cut back to their size while the
 * shrunk ones took the units back (doc/design/planning.md). The PS, whole tasks
 * of the mean PS demand, take their room first (plan_apportion).
 */
static long plan_quality_units(const plan_ctx_t *c, const size_t *idx, size_t n,
		       const res_vec_t *room, size_t nroom, double share)
{
	res_vec_t mean, ps_mean;
	double units = 0.0, *tasks;
	int nps;

	if (!n)
		return 0;
	nps = plan_unit_demands(c->aj, idx, n, &mean, &ps_mean);
	tasks = malloc((nroom + 1) * sizeof(*tasks));
	if (!tasks || plan_apportion(room, nroom, nps, tasks)) {
		free(tasks);
		return 0;	/* out of memory: running jobs keep their size */
	}
	for (size_t s = 0; s < nroom; s++) {
		res_vec_t avail;

		for (int r = 0; r < RES_NUM; r++)
			avail.v[r] = share * room[s].v[r] -
				     tasks[s] * ps_mean.v[r];
		units += plan_units_in(avail, mean);
	}
	free(tasks);
	return (long)units;
}

/*
 * Units become workers (within the job's min and max) with min_ps PS.
 * Heterogeneous demands can make that exceed the capacity: then the job
 * with the most workers above its minimum gives one back, and when none
 * can, the last job in order is left out.
 */
static void plan_units_to_tasks(const alloc_job_t *jobs, size_t n,
				res_vec_t cap, alloc_result_t *res)
{
	res_vec_t used = res_make(0, 0, 0);

	for (size_t k = 0; k < n; k++) {
		alloc_grant_t *g = &res->grants[k];

		if (g->status != ALLOC_OK || g->units < 1) {
			g->status = ALLOC_MIN_UNFIT;
			g->ps = g->workers = 0;
			continue;
		}
		g->ps = alloc_min_ps(&jobs[k]);
		g->workers = g->units < alloc_min_workers(&jobs[k]) ?
			alloc_min_workers(&jobs[k]) : g->units;
		if (jobs[k].max_workers > 0 && g->workers > jobs[k].max_workers)
			g->workers = jobs[k].max_workers;
		used = res_add(used, plan_need(&jobs[k], g->ps, g->workers));
	}
	while (!res_fits(used, cap)) {
		size_t best = n;
		int most = 0;

		for (size_t k = 0; k < n; k++) {
			alloc_grant_t *g = &res->grants[k];
			int extra = g->workers - alloc_min_workers(&jobs[k]);

			if (g->status == ALLOC_OK && extra > most) {
				most = extra;
				best = k;
			}
		}
		if (best < n) {
			res->grants[best].workers--;
			used = res_sub(used, jobs[best].worker_demand);
			continue;
		}
		for (best = n; best-- > 0;)
			if (res->grants[best].status == ALLOC_OK)
				break;
		if (best >= n)
			break;
		used = res_sub(used, plan_need(&jobs[best],
					       res->grants[best].ps,
					       res->grants[best].workers));
		res->grants[best] = (alloc_grant_t){ .id = jobs[best].id,
						     .status = ALLOC_MIN_UNFIT };
	}
}

static int plan_quality_run(const alloc_job_t *jobs, size_t n,
			    const alloc_params_t *prm, alloc_result_t *out)
{
	int rc = alloc_quality_run(jobs, n, prm, out);

	if (!rc)
		plan_units_to_tasks(jobs, n, prm->capacity, out);
	return rc;
}

/*
 * How much a quality job's size changes from its current workers to g:
 * |change| / current. Algorithm 1 has no gain per job (a shrink serves
 * the other jobs), so the plan's threshold bounds the size change instead.
 */
static double plan_quality_change(const plan_ctx_t *c, size_t i,
				  const alloc_grant_t *g, plan_decision_t *d)
{
	int cur = c->cur_w[i] > 0 ? c->cur_w[i] : 1;

	d->remaining_now = plan_time(c, i, c->cur_ps[i], c->cur_w[i]);
	d->remaining_planned = plan_time(c, i, g->ps, g->workers);
	return d->gain = fabs((double)(g->workers - c->cur_w[i])) / cur;
}

/*
 * A quality job follows Algorithm 1's allocation of this interval, both
 * ways, in both passes: the units go to the jobs with the largest
 * predicted loss reduction every interval (quality-driven paper), not only
 * when a pending job would wait.
 */
static const char *plan_quality_verdict(plan_ctx_t *c, size_t i,
					const alloc_grant_t *g, bool again,
					char *why, size_t len)
{
	plan_decision_t *d = &c->out->decisions[i];
	double thr = plan_threshold(c, i, g->ps, g->workers);

	(void)again;
	c->shrink[i] = g->workers < c->cur_w[i];
	if (plan_quality_change(c, i, g, d) <= thr) {
		snprintf(why, len, "size change %.1f%% to %d/%d not above "
			 "%.1f%%", 100.0 * d->gain, g->ps, g->workers,
			 100.0 * thr);
		return why;
	}
	return NULL;
}

/* Algorithm 1 gives the units to whoever reduces the loss most. */
static bool plan_quality_may_shrink(const plan_ctx_t *c, size_t i)
{
	(void)c;
	(void)i;
	return true;
}

static bool plan_quality_wait_reason(const plan_ctx_t *c, size_t i,
				     res_vec_t cap, plan_decision_t *d)
{
	if (!res_fits(plan_min_need(&c->aj[i]), cap))
		return false;
	plan_reason(d, "optimus: lower predicted loss reduction than "
		    "other jobs");
	return true;
}

static void plan_quality_resize_reason(const plan_ctx_t *c, size_t i,
				       plan_decision_t *d, const char *whom)
{
	plan_reason(d, "optimus: Algorithm 1 %s it to %d PS + %d "
		    "workers%s%s (size change %.1f%%)", c->shrink[i] ?
		    "shrinks" : "grows", d->ps, d->workers,
		    d->for_job ? " for " : "", d->for_job ? whom : "",
		    100.0 * d->gain);
}

const plan_policy_ops_t plan_policy_quality = {
	.name = "quality",
	.allocate = alloc_optimus_run,
	.by_hints = true,
	.allocate_units = plan_quality_run,
	.units = plan_quality_units,
	.time = plan_optimus_time,
	.rate = plan_optimus_rate,
	.nodes = plan_speed_p,
	.verdict = plan_quality_verdict,
	.may_shrink = plan_quality_may_shrink,
	.wait_reason = plan_quality_wait_reason,
	.resize_reason = plan_quality_resize_reason,
};

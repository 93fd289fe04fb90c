/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/slurm_backfill.c - what a Slurm user gets today, on the measured
 * workloads: every job at the GPUs it was submitted with, never resized,
 * placed as Slurm's select/cons_tres packs it (px_place_slurm: whole free
 * nodes first, then the fullest node that holds the rest; no even split
 * asked), largest first.
 *
 * slurm-backfill: Slurm's scheduling as it behaves (sched/backfill with
 * its main loop): jobs in priority order, which here is submission order
 * (no fair share, no QOS, one partition). A job starts when its GPUs are
 * free and starting it delays no job before it; every job that cannot
 * start gets a reservation at the earliest time the expected ends of the
 * jobs before it leave its GPUs free, and a later job starts now only if
 * it fits beside every reservation made so far, for its whole time limit
 * (Slurm's node_space map; bf_max_job_test is far above 160 jobs). So the
 * first blocked job's reservation is never delayed by a later one, and
 * neither is any other's. The expected end of a job is its start plus its
 * time limit, which the rule below gives it; one that runs past its limit
 * (Slurm would kill it; doc/design/simulator.md says which jobs do) is
 * expected to end within the round.
 *
 * first-fit: the earlier baseline under a name that says what it is: in
 * submission order, every job that fits in the free GPUs starts, with no
 * reservation (a large job waits until enough GPUs happen to be free at
 * once); no Slurm configuration behaves so.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/errmsg.h"
#include "measured/place.h"
#include "measured/policy.h"

/*
 * A job's time limit: this factor times its true run time alone at its
 * submitted size (px_spec_true_runtime), rounded up to whole minutes as
 * `--time` takes it (px_shape_t.limit_unit: a minute of the cluster's
 * clock, compressed or not). Fixed before the first run: a user who asks for
 * twice what the job needs (users overestimate their run times, often by
 * more; the workloads carry no limit of their own). The run alone counts
 * the shape's limit_start as its start when one is given (the start a
 * user allows for, not the one the run costs).
 */
#define BF_LIMIT_FACTOR 2.0

typedef struct bf {
	bool reserve;		/* slurm-backfill; false: first-fit */
	size_t njobs;
	double *limit;		/* seconds per job, 0: not yet known */
} bf_t;

/* GPUs in use over time: used[b] from t[b] until t[b + 1] (the last for
 * ever), t[0] = now. */
typedef struct bf_profile {
	double *t;
	int *used;
	size_t n;
} bf_profile_t;

/* The breakpoint at x (>= t[0]), inserted if missing. */
static size_t profile_split(bf_profile_t *p, double x)
{
	size_t b = 0;

	while (b + 1 < p->n && p->t[b + 1] <= x)
		b++;
	if (p->t[b] == x)
		return b;
	memmove(&p->t[b + 2], &p->t[b + 1], (p->n - b - 1) * sizeof(*p->t));
	memmove(&p->used[b + 2], &p->used[b + 1],
		(p->n - b - 1) * sizeof(*p->used));
	p->t[b + 1] = x;
	p->used[b + 1] = p->used[b];
	p->n++;
	return b + 1;
}

static void profile_add(bf_profile_t *p, double from, double to, int gpus)
{
	size_t a = profile_split(p, from), z = profile_split(p, to);

	for (size_t b = a; b < z; b++)
		p->used[b] += gpus;
}

/* Earliest breakpoint from which `gpus` more fit for `seconds` on a
 * cluster of `total`: the profile ends at 0 used, so there is one for
 * gpus <= total. */
static double profile_earliest(const bf_profile_t *p, int gpus,
			       double seconds, int total)
{
	for (size_t b = 0; b < p->n; b++) {
		size_t e = b;
		while (e < p->n && p->t[e] < p->t[b] + seconds &&
		       p->used[e] + gpus <= total)
			e++;
		if (e == p->n || p->t[e] >= p->t[b] + seconds)
			return p->t[b];
		b = e;		/* no start before the segment that is full */
	}
	return INFINITY;
}

static int bf_limits(bf_t *b, px_sim_t *s)
{
	if (!b->limit) {
		b->limit = calloc(s->eng.njobs + 1, sizeof(double));
		b->njobs = s->eng.njobs;
		if (!b->limit)
			return -ENOMEM;
	}
	px_shape_t shape = s->shape;

	if (shape.limit_start >= 0)
		shape.start = shape.limit_start;
	for (size_t i = 0; i < s->eng.njobs; i++) {
		const px_spec_t *sp = s->jobs[i].spec;
		double run;
		int rc;
		if (b->limit[i] > 0 || sp->submit > s->eng.now)
			continue;
		if ((rc = px_spec_true_runtime(sp, sp->replicas, &shape,
					       &run, s->err, s->errlen)))
			return rc;
		b->limit[i] = s->shape.limit_unit *
			      ceil(BF_LIMIT_FACTOR * run / s->shape.limit_unit);
	}
	return 0;
}

/* Reservations, as described at the top; want[k] for active[k]. */
static int bf_reserve(bf_t *b, const px_sim_t *s, const size_t *active,
		      size_t n, const int *nnext, int *want)
{
	/* Each job adds at most two breakpoints. */
	bf_profile_t p = { calloc(2 * n + 1, sizeof(double)),
			   calloc(2 * n + 1, sizeof(int)), 1 };
	double now = s->eng.now;

	if (!p.t || !p.used) {
		free(p.t);
		free(p.used);
		return -ENOMEM;
	}
	p.t[0] = now;
	for (size_t k = 0; k < n; k++) {
		size_t i = active[k];
		if (!nnext[i])
			continue;
		double end = s->jobs[i].core.outcome.start + b->limit[i];
		profile_add(&p, now, end > now ? end : now + s->shape.round,
			    nnext[i]);
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = active[k];
		want[k] = nnext[i];
		if (nnext[i])
			continue;
		int g = s->jobs[i].spec->replicas;
		double t = profile_earliest(&p, g, b->limit[i],
					    px_sim_gpus(s));
		if (t <= now)
			want[k] = g;
		profile_add(&p, t, t + b->limit[i], g);
	}
	free(p.t);
	free(p.used);
	return 0;
}

/* In submission order, every job that fits starts. */
static void first_fit(const px_sim_t *s, const size_t *active, size_t n,
		      const int *nnext, int *want)
{
	int left = px_sim_gpus(s);

	for (size_t k = 0; k < n; k++)
		left -= nnext[active[k]];
	for (size_t k = 0; k < n; k++) {
		size_t i = active[k];
		want[k] = nnext[i];
		if (nnext[i] == 0 && s->jobs[i].spec->replicas <= left) {
			want[k] = s->jobs[i].spec->replicas;
			left -= want[k];
		}
	}
}

static int bf_plan(px_policy_t *p, px_sim_t *s, const size_t *active,
		   size_t n, int (*next)[PX_GPUS], int *nnext)
{
	bf_t *b = p->state;
	int *want = calloc(n, sizeof(int));
	size_t *order = calloc(n, sizeof(size_t));
	int rc = want && order ? 0 : -ENOMEM;

	if (!rc && b->reserve) {
		if (!(rc = bf_limits(b, s)))
			rc = bf_reserve(b, s, active, n, nnext, want);
	} else if (!rc) {
		first_fit(s, active, n, nnext, want);
	}
	if (!rc) {
		px_order_by(want, n, true, order);
		rc = px_place_in_order(s, active, order, n, want, next, nnext,
				       px_place_slurm);
	}
	free(want);
	free(order);
	return rc;
}

static void bf_free(px_policy_t *p)
{
	bf_t *b = p->state;

	if (b)
		free(b->limit);
	free(b);
	free(p);
}

px_policy_t *px_backfill_new(const char *name)
{
	bool reserve = !strcmp(name, "slurm-backfill");
	px_policy_t *p;
	bf_t *b;

	if (!reserve && strcmp(name, "first-fit"))
		return NULL;
	p = calloc(1, sizeof(*p));
	b = calloc(1, sizeof(*b));
	if (!p || !b) {
		free(p);
		free(b);
		return NULL;
	}
	b->reserve = reserve;
	*p = (px_policy_t){ reserve ? "slurm-backfill" : "first-fit",
			    bf_plan, bf_free, b, NULL };
	return p;
}

double px_backfill_limit(const px_policy_t *p, size_t job)
{
	const bf_t *b = p && p->plan == bf_plan ? p->state : NULL;

	return b && b->limit && job < b->njobs ? b->limit[job] : 0.0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* bench_allreduce.c - error of the all-reduce speed model on the measured
 * step times of six real models (Pollux OSDI'21 artifact, see
 * testsuite/data/pollux-osdi21/README.md).
 *
 * What is measured, fixed before the run:
 * - a job of model X with global batch M in { B, 2B, 4B }, B the largest
 *   measured per-GPU batch of X (so one GPU runs the whole batch);
 * - its step time on a placement (w GPUs on n nodes, placements.csv and
 *   scalability.csv) at the per-worker batch M/w, interpolated linearly
 *   between the two measured per-GPU batches around M/w of that same
 *   placement (the Pollux simulator's own rule); placements whose
 *   measured batches do not bracket M/w are left out;
 * - fit on 10 placements of placements.csv (w <= 16, n <= 4) evenly
 *   spaced in the order (w, n, placement), as pre-runs and the first
 *   allocations of a job would give; error |f_pred / f - 1| on every
 *   other placement of placements.csv and, separately, on
 *   scalability.csv (up to 16 nodes, 64 GPUs: extrapolation);
 * - baseline in the same run: the PS model of Eqn. 4 (sync) with p = 1,
 *   which knows no nodes, fitted on the same 10 samples.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics.h>

#include "bench_allreduce.h"
#include "models/allreduce_speed.h"

#define AR_MAXPTS 4096
#define AR_MAXGRP 512
#define AR_TRAIN 10

typedef struct ar_point { double bsz, t; } ar_point_t;

typedef struct ar_group {
	char key[32];
	int scal;		/* from scalability.csv */
	int w, n;
	ar_point_t pts[64];
	int npts;
	double t;		/* step time at M/w, NAN if not bracketed */
} ar_group_t;

typedef struct ar_errs { double *v; size_t n; } ar_errs_t;

static ar_group_t *ar_group(ar_group_t *g, int *ng, const char *key,
			    int scal, int w, int n)
{
	int i;

	for (i = 0; i < *ng; i++)
		if (g[i].scal == scal && !strcmp(g[i].key, key))
			return &g[i];
	if (*ng == AR_MAXGRP)
		return NULL;
	g += (*ng)++;
	memset(g, 0, sizeof(*g));
	snprintf(g->key, sizeof(g->key), "%s", key);
	g->scal = scal;
	g->w = w;
	g->n = n;
	return g;
}

static void ar_add(ar_group_t *g, double bsz, double t)
{
	if (g && g->npts < 64 && bsz > 0 && t > 0)
		g->pts[g->npts++] = (ar_point_t){ bsz, t };
}

/* placements.csv: placement,local_bsz,step_time,sync_time */
static int ar_load(const char *dir, ar_group_t *g, int *ng, double *bmax)
{
	char path[1100], line[256], pl[32];
	double bsz, t;
	int nodes, w;
	FILE *f;

	snprintf(path, sizeof(path), "%s/placements.csv", dir);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%31[0-9],%lf,%lf", pl, &bsz, &t) == 3) {
			const char *c;

			for (w = 0, c = pl; *c; c++)
				w += *c - '0';
			ar_add(ar_group(g, ng, pl, 0, w, strlen(pl)), bsz, t);
			*bmax = fmax(*bmax, bsz);
		}
	fclose(f);
	snprintf(path, sizeof(path), "%s/scalability.csv", dir);
	if (!(f = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%d,%d,%lf,%lf", &nodes, &w, &bsz, &t) == 4 &&
		    nodes >= 1 && nodes <= w) {
			snprintf(pl, sizeof(pl), "%dx%d", nodes, w);
			ar_add(ar_group(g, ng, pl, 1, w, nodes), bsz, t);
		}
	fclose(f);
	return 0;
}

/* Linear interpolation over the measured batches bracketing b. */
static double ar_interp(const ar_group_t *g, double b)
{
	double lo_b = -1, lo_t = 0, hi_b = INFINITY, hi_t = 0;
	int i;

	for (i = 0; i < g->npts; i++) {
		const ar_point_t *p = &g->pts[i];

		if (p->bsz <= b && p->bsz > lo_b)
			lo_b = p->bsz, lo_t = p->t;
		if (p->bsz >= b && p->bsz < hi_b)
			hi_b = p->bsz, hi_t = p->t;
	}
	if (lo_b < 0 || !isfinite(hi_b))
		return NAN;
	return hi_b > lo_b ? lo_t + (hi_t - lo_t) * (b - lo_b) / (hi_b - lo_b)
			   : lo_t;
}

static int ar_cmp(const void *a, const void *b)
{
	const ar_group_t *x = *(ar_group_t *const *)a,
			 *y = *(ar_group_t *const *)b;

	if (x->w != y->w)
		return x->w - y->w;
	if (x->n != y->n)
		return x->n - y->n;
	return strcmp(x->key, y->key);
}

static void ar_push(ar_errs_t *e, double v)
{
	e->v[e->n++] = v;
}

static void ar_stats(ar_errs_t *e, double *med, double *p90)
{
	if (!e->n) {
		*med = *p90 = NAN;
		return;
	}
	gsl_sort(e->v, 1, e->n);
	*med = gsl_stats_median_from_sorted_data(e->v, 1, e->n);
	*p90 = gsl_stats_quantile_from_sorted_data(e->v, 1, e->n, 0.9);
}

/* One job (model, M): fit both models on 10 placements, errors on the
 * rest; errs[0..1] placements (ours, baseline), errs[2..3] scalability. */
static void ar_job(const char *name, ar_group_t *g, int ng, double M,
		   ar_errs_t *errs)
{
	ar_group_t *pl[AR_MAXGRP];
	speed_model_t ar, base;
	int i, k, np = 0, train[AR_MAXGRP] = { 0 };
	size_t before[4];
	double med[4], p90[4];

	for (i = 0; i < ng; i++) {
		g[i].t = ar_interp(&g[i], M / g[i].w);
		if (!g[i].scal && isfinite(g[i].t))
			pl[np++] = &g[i];
	}
	if (np < AR_TRAIN + 2)
		return;
	qsort(pl, np, sizeof(pl[0]), ar_cmp);
	allreduce_speed_init(&ar, M);
	speed_model_init(&base, SPEED_SYNC, M);
	for (k = 0; k < AR_TRAIN; k++) {
		i = (int)lround((double)k * (np - 1) / (AR_TRAIN - 1));
		train[i] = 1;
		allreduce_speed_add_sample(&ar, pl[i]->w, pl[i]->n,
					   1 / pl[i]->t);
		speed_model_add_sample(&base, 1, pl[i]->w, 1 / pl[i]->t);
	}
	if (allreduce_speed_fit(&ar) || speed_model_fit(&base)) {
		printf("%-12s M=%6.0f  fit failed\n", name, M);
		goto out;
	}
	for (k = 0; k < 4; k++)
		before[k] = errs[k].n;
	for (i = 0; i < np; i++)
		if (!train[i]) {
			pl[i]->scal = -1;	/* mark test placement */
		}
	for (i = 0; i < ng; i++) {
		int s = g[i].scal == 1 ? 2 : g[i].scal == -1 ? 0 : -1;
		double f = 1 / g[i].t;

		if (s < 0 || !isfinite(g[i].t))
			continue;
		ar_push(&errs[s], fabs(allreduce_speed_predict(&ar, g[i].w,
				       g[i].n) / f - 1));
		ar_push(&errs[s + 1], fabs(speed_model_eval(&base, 1, g[i].w) /
					   f - 1));
	}
	for (i = 0; i < ng; i++)
		if (g[i].scal == -1)
			g[i].scal = 0;
	for (k = 0; k < 4; k++) {
		ar_errs_t sub = { errs[k].v + before[k], errs[k].n - before[k] };

		ar_stats(&sub, &med[k], &p90[k]);
	}
	printf("%-12s %7.0f %5zu %6.1f%% %6.1f%% %6.1f%% %6.1f%%  %5zu %6.1f%% "
	       "%6.1f%% %6.1f%%\n", name, M, errs[0].n - before[0],
	       100 * med[0], 100 * p90[0], 100 * med[1], 100 * p90[1],
	       errs[2].n - before[2], 100 * med[2], 100 * p90[2],
	       100 * med[3]);
out:
	speed_model_clear(&ar);
	speed_model_clear(&base);
}

void bench_allreduce_measured(const char *tracedir)
{
	static const char *const models[] = { "bert", "cifar10",
		"deepspeech2", "imagenet", "ncf", "yolov3" };
	static ar_group_t g[AR_MAXGRP];
	ar_errs_t errs[4];
	double med[4], p90[4];
	size_t i, k;

	for (k = 0; k < 4; k++)
		errs[k] = (ar_errs_t){ calloc(64 * AR_MAXGRP, sizeof(double)),
				       0 };
	printf("\n== all-reduce speed model on measured step times (%s):\n"
	       "   fit on %d placements (w<=16, n<=4) per job, error "
	       "|f_pred/f - 1| on the others;\n   baseline: PS model Eqn. 4 "
	       "with p=1 (no nodes), same samples\n", tracedir, AR_TRAIN);
	printf("%-12s %7s %5s %7s %7s %7s %7s  %5s %7s %7s %7s\n", "model",
	       "M", "test", "median", "p90", "base-md", "base-90", "scal",
	       "median", "p90", "base-md");
	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		char dir[1024];
		double bmax = 0, m;
		int ng = 0;

		snprintf(dir, sizeof(dir), "%s/%s", tracedir, models[i]);
		if (ar_load(dir, g, &ng, &bmax) || bmax <= 0) {
			printf("%-12s (cannot read %s)\n", models[i], dir);
			continue;
		}
		for (m = 1; m <= 4; m *= 2)
			ar_job(models[i], g, ng, m * bmax, errs);
	}
	for (k = 0; k < 4; k++)
		ar_stats(&errs[k], &med[k], &p90[k]);
	printf("all jobs: placements n=%zu median %.1f%% p90 %.1f%% "
	       "(baseline %.1f%% / %.1f%%);\n          scalability n=%zu "
	       "median %.1f%% p90 %.1f%% (baseline %.1f%% / %.1f%%)\n",
	       errs[0].n, 100 * med[0], 100 * p90[0], 100 * med[1],
	       100 * p90[1], errs[2].n, 100 * med[2], 100 * p90[2],
	       100 * med[3], 100 * p90[3]);
	for (k = 0; k < 4; k++)
		free(errs[k].v);
}

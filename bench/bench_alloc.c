/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * bench_alloc.c - allocation + placement time at the Optimus paper's scale
 * (4,000 jobs, ~100,000 tasks, 16,000 nodes; the paper needs < 5 s on one
 * core) and at 10x, with peak memory, and ratios against baselines measured
 * in the same run: the paper's 5 s, and a naive rescan greedy (every gain
 * recomputed each step) on a 1/10 instance.
 *
 * Usage: bench_alloc [scale...]   (default: 1 10)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <gsl/gsl_errno.h>

#include "alloc/alloc.h"
#include "alloc_synth.h"
#include "alloc/placement.h"

#define PAPER_SECONDS 5.0

typedef struct instance {
	size_t njobs, nservers;
	alloc_job_t *jobs;
	fixture_speed_t *speeds;
	fixture_loss_t *losses;
	res_vec_t *servers;
	res_vec_t capacity;
} instance_t;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/*
 * Servers of 32 CPUs, 128 GB and 0-4 GPUs, each already 10-65% used by
 * other work, so that the free capacity is heterogeneous and binds at about
 * 25 tasks per job. FIFO's requested sizes: 2-8 PS and 4-20 workers.
 */
static void instance_make(instance_t *in, double scale, uint64_t seed)
{
	uint64_t st = seed;

	in->njobs = (size_t)(4000 * scale);
	in->nservers = (size_t)(16000 * scale);
	in->jobs = calloc(in->njobs, sizeof(*in->jobs));
	in->speeds = calloc(in->njobs, sizeof(*in->speeds));
	in->losses = calloc(in->njobs, sizeof(*in->losses));
	in->servers = calloc(in->nservers, sizeof(*in->servers));
	if (!in->jobs || !in->speeds || !in->losses || !in->servers) {
		fprintf(stderr, "bench_alloc: out of memory\n");
		exit(1);
	}
	fixture_jobs(in->jobs, in->speeds, in->losses, in->njobs, seed);
	for (size_t j = 0; j < in->njobs; j++) {
		in->jobs[j].req_ps = 2 + fixture_rand(&st) % 7;
		in->jobs[j].req_workers = 4 + fixture_rand(&st) % 17;
	}
	in->capacity = res_make(0, 0, 0);
	for (size_t s = 0; s < in->nservers; s++) {
		double used = fixture_uniform(&st, 0.1, 0.65);
		in->servers[s] = res_make(32 * (1 - used), 128 * (1 - used),
					  (double)(fixture_rand(&st) % 5));
		in->capacity = res_add(in->capacity, in->servers[s]);
	}
}

static void instance_free(instance_t *in)
{
	free(in->jobs);
	free(in->speeds);
	free(in->losses);
	free(in->servers);
}

static long tasks_of(const alloc_result_t *r)
{
	long n = 0;

	for (size_t i = 0; i < r->njobs; i++)
		n += r->grants[i].ps + r->grants[i].workers;
	return n;
}

/* Allocate with `run`, then place; print and return the total time. */
static double bench_one(const char *name, alloc_run_fn run,
			const instance_t *in, bool place, double share)
{
	alloc_params_t prm;
	alloc_result_t r;
	place_result_t pr = { 0 };
	place_job_t *pj = calloc(in->njobs + 1, sizeof(*pj));
	double t0, t1, t2;
	size_t n;

	/* share < 1 leaves headroom against fragmentation at placement */
	alloc_params_init(&prm, in->capacity);
	for (int k = 0; k < RES_NUM; k++)
		prm.capacity.v[k] *= share;
	prm.total_units = (long)in->nservers * 8;
	t0 = now_ms();
	if (!pj || run(in->jobs, in->njobs, &prm, &r)) {
		fprintf(stderr, "bench_alloc: %s failed: %s\n", name, r.err);
		exit(1);
	}
	t1 = now_ms();
	n = placement_jobs_from_alloc(in->jobs, &r, pj);
	if (place && placement_run(in->servers, in->nservers, pj, n, &pr)) {
		fprintf(stderr, "bench_alloc: placement failed: %s\n", pr.err);
		exit(1);
	}
	t2 = now_ms();
	printf("  %-16s jobs %6zu  servers %6zu  tasks %7ld  left out %5zu  "
	       "alloc %8.1f ms", name, in->njobs, in->nservers,
	       run == alloc_quality_run ? r.units_used : tasks_of(&r),
	       r.nleft_out, t1 - t0);
	if (place)
		printf("  place %7.1f ms (unfit %zu)  total %8.1f ms",
		       t2 - t1, pr.nunfit, t2 - t0);
	printf("\n");
	placement_result_free(&pr);
	alloc_result_free(&r);
	free(pj);
	return t2 - t0;
}

static bool same_grants(const instance_t *in)
{
	alloc_params_t prm;
	alloc_result_t a, b;
	bool same = true;

	alloc_params_init(&prm, in->capacity);
	alloc_optimus_run(in->jobs, in->njobs, &prm, &a);
	fixture_naive_optimus(in->jobs, in->njobs, &prm, &b);
	for (size_t i = 0; i < in->njobs; i++)
		same = same && a.grants[i].ps == b.grants[i].ps &&
		       a.grants[i].workers == b.grants[i].workers;
	alloc_result_free(&a);
	alloc_result_free(&b);
	return same;
}

/* Heap greedy vs the naive rescan on a 1/10 instance. */
static void bench_baseline(void)
{
	instance_t in;
	double heap_ms, naive_ms;

	instance_make(&in, 0.1, 42);
	printf("baseline, 1/10 of the paper's scale:\n");
	heap_ms = bench_one("optimus (heap)", alloc_optimus_run, &in, false, 1);
	naive_ms = bench_one("optimus (rescan)", fixture_naive_optimus, &in,
			     false, 1);
	printf("  rescan / heap allocation time: %.1fx (same grants: %s)\n",
	       naive_ms / heap_ms, same_grants(&in) ? "yes" : "NO");
	bench_one("tetris", alloc_tetris_run, &in, true, 1);
	instance_free(&in);
}

static void bench_scale(double scale)
{
	instance_t in;
	double ms;

	instance_make(&in, scale, 42);
	printf("scale %gx of the paper's (4000 jobs, ~100000 tasks, "
	       "16000 nodes):\n", scale);
	ms = bench_one("optimus", alloc_optimus_run, &in, true, 1);
	printf("  paper's %.0f s / optimus alloc+place: %.0fx faster\n",
	       PAPER_SECONDS * scale, PAPER_SECONDS * scale * 1e3 / ms);
	bench_one("optimus @90% cap", alloc_optimus_run, &in, true, 0.9);
	bench_one("optimus @80% cap", alloc_optimus_run, &in, true, 0.8);
	bench_one("quality", alloc_quality_run, &in, false, 1);
	bench_one("drf", alloc_drf_run, &in, true, 1);
	bench_one("fifo", alloc_fifo_run, &in, true, 1);
	printf("  peak RSS so far: %.1f MB\n", peak_rss_kb() / 1024.0);
	instance_free(&in);
}

int main(int argc, char **argv)
{
	/* GSL's default error handler aborts: the models return errors. */
	gsl_set_error_handler_off();
	bench_baseline();
	if (argc < 2) {
		bench_scale(1);
		bench_scale(10);
	}
	for (int i = 1; i < argc; i++)
		bench_scale(atof(argv[i]));
	return 0;
}

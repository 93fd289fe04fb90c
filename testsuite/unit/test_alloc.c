/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * test_alloc.c - properties of the allocators: capacity never exceeded,
 * min/max respected, the heap greedy equal to a rescan, the gap to an
 * exhaustive optimum on small instances, and each baseline's policy.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "alloc_synth.h"
#include "models/allreduce_speed.h"
#include "util/heap.h"
#include "check_run.h"

#define NJOBS 40

static alloc_job_t jobs[NJOBS];
static fixture_speed_t speeds[NJOBS];
static fixture_loss_t losses[NJOBS];

static res_vec_t cluster(double cpu, double mem, double gpu)
{
	return res_make(cpu, mem, gpu);
}

static void assert_within(const alloc_job_t *js, const alloc_result_t *r,
			  res_vec_t cap)
{
	res_vec_t sum = { { 0 } };

	for (size_t i = 0; i < r->njobs; i++) {
		const alloc_grant_t *g = &r->grants[i];
		ck_assert_uint_eq(g->id, js[i].id);
		if (g->status != ALLOC_OK) {
			ck_assert_int_eq(g->ps + g->workers, 0);
			continue;
		}
		ck_assert_int_ge(g->ps, alloc_min_ps(&js[i]));
		ck_assert_int_ge(g->workers, alloc_min_workers(&js[i]));
		if (js[i].max_ps > 0)
			ck_assert_int_le(g->ps, js[i].max_ps);
		if (js[i].max_workers > 0)
			ck_assert_int_le(g->workers, js[i].max_workers);
		sum = res_add(sum, res_combo(js[i].ps_demand, g->ps,
					     js[i].worker_demand, g->workers));
	}
	ck_assert(res_fits(sum, cap));
	for (int k = 0; k < RES_NUM; k++)
		ck_assert_double_eq_tol(sum.v[k], r->used.v[k], 1e-6);
}

static void random_limits(uint64_t *st)
{
	for (size_t i = 0; i < NJOBS; i++) {
		jobs[i].min_ps = fixture_rand(st) % 3;
		jobs[i].min_workers = fixture_rand(st) % 4;
		jobs[i].max_ps = fixture_rand(st) % 2 ? 0 :
				 alloc_min_ps(&jobs[i]) + fixture_rand(st) % 6;
		jobs[i].max_workers = fixture_rand(st) % 2 ? 0 :
				 alloc_min_workers(&jobs[i]) + fixture_rand(st) % 9;
	}
}

/* A cluster of random size: CPU 50-600, memory 200-2000, GPU 0-20. */
static void random_cluster(alloc_params_t *prm, uint64_t *st)
{
	alloc_params_init(prm, cluster(fixture_uniform(st, 50, 600),
				       fixture_uniform(st, 200, 2000),
				       fixture_uniform(st, 0, 20)));
}

START_TEST(test_heap_matches_scan)
{
	heap_t h;
	double key[64];
	bool in[64] = { false };
	uint64_t st = 7;

	ck_assert_int_eq(heap_init(&h, 64), 0);
	for (int step = 0; step < 5000; step++) {
		uint32_t it = fixture_rand(&st) % 64, top, best = 64;
		if (fixture_rand(&st) % 3 == 0) {
			heap_remove(&h, it);
			in[it] = false;
		} else {
			key[it] = (double)(fixture_rand(&st) % 20);
			heap_set(&h, it, key[it]);
			in[it] = true;
		}
		for (uint32_t j = 0; j < 64; j++)
			if (in[j] && (best == 64 || key[j] > key[best]))
				best = j;
		ck_assert_int_eq(heap_top(&h, &top, NULL), best != 64);
		if (best != 64)
			ck_assert_uint_eq(top, best);
	}
	heap_free(&h);
}
END_TEST

static const alloc_run_fn task_allocators[] = {
	alloc_optimus_run, alloc_drf_run, alloc_tetris_run, alloc_fifo_run,
	alloc_rate_run, alloc_fair_speedup_run,
};
#define NTASK_ALLOC (sizeof(task_allocators) / sizeof(task_allocators[0]))

START_TEST(test_capacity_and_limits)
{
	uint64_t st = 1000 + _i;
	alloc_params_t prm;
	alloc_result_t r;

	fixture_jobs(jobs, speeds, losses, NJOBS, st);
	random_limits(&st);
	random_cluster(&prm, &st);
	for (size_t a = 0; a < NTASK_ALLOC; a++) {
		ck_assert_int_eq(task_allocators[a](jobs, NJOBS, &prm, &r), 0);
		assert_within(jobs, &r, prm.capacity);
		alloc_result_free(&r);
	}
}
END_TEST

START_TEST(test_heap_equals_rescan)
{
	uint64_t st = 2000 + _i;
	alloc_params_t prm;
	alloc_result_t a, b;

	fixture_jobs(jobs, speeds, losses, NJOBS, st);
	random_limits(&st);
	alloc_params_init(&prm, cluster(400, 1500, 10));
	ck_assert_int_eq(alloc_optimus_run(jobs, NJOBS, &prm, &a), 0);
	ck_assert_int_eq(fixture_naive_optimus(jobs, NJOBS, &prm, &b), 0);
	ck_assert_uint_gt(a.steps, 0);
	ck_assert_uint_eq(a.steps, b.steps);
	for (size_t i = 0; i < NJOBS; i++) {
		ck_assert_int_eq(a.grants[i].ps, b.grants[i].ps);
		ck_assert_int_eq(a.grants[i].workers, b.grants[i].workers);
	}
	alloc_result_free(&a);
	alloc_result_free(&b);
}
END_TEST

/*
 * The completion-rate greedy's heap (alloc/rate.c) gives the grants of a
 * rescan of every job at every step: PS jobs and all-reduce jobs growing
 * by bundles, limits, running jobs keeping their minimum, early-stage
 * damping, on clusters tight and loose.
 */
/* An all-reduce job's speed: no PS, and slower once past a node of 4
 * workers (so a bundle of workers may pay where one does not). */
static double ring_speed(void *ctx, int p, int w)
{
	const fixture_speed_t *f = ctx;

	(void)p;
	return 1.0 / (f->th[0] * f->batch / w + f->th[1] + f->th[3] * w +
		      (w > 4 ? f->th[2] : 0.0));
}

START_TEST(test_rate_heap_equals_rescan)
{
	uint64_t st = 3000 + _i;
	alloc_params_t prm;
	alloc_result_t a, b;

	fixture_jobs(jobs, speeds, losses, NJOBS, st);
	random_limits(&st);
	for (size_t i = 0; i < NJOBS; i++) {
		jobs[i].no_ps = fixture_rand(&st) % 2;
		if (jobs[i].no_ps) {
			jobs[i].min_ps = jobs[i].max_ps = 0;
			jobs[i].speed = ring_speed;
		}
		jobs[i].keeps_min = fixture_rand(&st) % 4 == 0;
		/* Every other instance, the jobs share a few task shapes
		 * (the greedy works out their bundles once per shape). */
		if (_i % 2 && i >= 3) {
			jobs[i].ps_demand = jobs[i % 3].ps_demand;
			jobs[i].worker_demand = jobs[i % 3].worker_demand;
		}
	}
	random_cluster(&prm, &st);
	ck_assert_int_eq(alloc_rate_run(jobs, NJOBS, &prm, &a), 0);
	ck_assert_int_eq(fixture_naive_rate(jobs, NJOBS, &prm, &b), 0);
	/* Something was granted: minimums or tasks. */
	ck_assert_uint_gt(a.steps + NJOBS - a.nleft_out, 0);
	ck_assert_uint_eq(a.steps, b.steps);
	ck_assert_uint_eq(a.nleft_out, b.nleft_out);
	for (size_t i = 0; i < NJOBS; i++) {
		ck_assert_int_eq(a.grants[i].status, b.grants[i].status);
		ck_assert_int_eq(a.grants[i].ps, b.grants[i].ps);
		ck_assert_int_eq(a.grants[i].workers, b.grants[i].workers);
	}
	alloc_result_free(&a);
	alloc_result_free(&b);
}
END_TEST

/* With room to spare, Optimus stops only where no task helps any more. */
START_TEST(test_optimus_stops_at_no_gain)
{
	alloc_params_t prm;
	alloc_result_t r;

	fixture_jobs(jobs, speeds, losses, NJOBS, 3);
	alloc_params_init(&prm, cluster(1e6, 1e7, 1e4));
	ck_assert_int_eq(alloc_optimus_run(jobs, NJOBS, &prm, &r), 0);
	for (size_t i = 0; i < NJOBS; i++) {
		int p = r.grants[i].ps, w = r.grants[i].workers;
		double now = alloc_jct(&jobs[i], p, w);
		ck_assert(alloc_jct(&jobs[i], p + 1, w) >= now);
		ck_assert(alloc_jct(&jobs[i], p, w + 1) >= now);
		ck_assert(p + w > 2);
	}
	alloc_result_free(&r);
}
END_TEST

static int best_jct_rec(const alloc_job_t *js, size_t n, size_t i,
			res_vec_t room, double acc, double *best)
{
	int count = 0;

	if (i == n) {
		*best = fmin(*best, acc);
		return 1;
	}
	for (int p = 1; p <= 12; p++)
		for (int w = 1; w <= 12; w++) {
			res_vec_t need = res_combo(js[i].ps_demand, p,
						   js[i].worker_demand, w);
			if (!res_fits(need, room))
				break;
			count += best_jct_rec(js, n, i + 1, res_sub(room, need),
					      acc + alloc_jct(&js[i], p, w), best);
		}
	return count;
}

/* Greedy vs exhaustive search of sum Q/f on 3 jobs; print the gap. */
START_TEST(test_optimus_gap_to_exhaustive)
{
	double worst = 0.0, sum = 0.0;
	int trials = 30;

	for (int t = 0; t < trials; t++) {
		uint64_t st = 3000 + t;
		alloc_params_t prm;
		alloc_result_t r;
		double best = INFINITY, greedy;

		fixture_jobs(jobs, speeds, losses, 3, st);
		for (int i = 0; i < 3; i++) {
			jobs[i].early_stage = false;
			jobs[i].ps_demand = res_make(1, 2, 0);
			jobs[i].worker_demand = res_make(
				1 + fixture_rand(&st) % 2, 2, 0);
		}
		alloc_params_init(&prm, cluster(8 + fixture_rand(&st) % 12,
						1000, 0));
		ck_assert_int_eq(alloc_optimus_run(jobs, 3, &prm, &r), 0);
		greedy = alloc_total_jct(jobs, &r);
		ck_assert_int_gt(best_jct_rec(jobs, 3, 0, prm.capacity, 0,
					      &best), 0);
		ck_assert(greedy >= best * (1 - 1e-12));
		worst = fmax(worst, greedy / best - 1);
		sum += greedy / best - 1;
		alloc_result_free(&r);
	}
	printf("optimus greedy vs exhaustive (%d instances, 3 jobs): "
	       "mean gap %.2f%%, worst gap %.2f%%\n",
	       trials, 100 * sum / trials, 100 * worst);
	ck_assert(worst < 0.25);
}
END_TEST

START_TEST(test_min_unfit_reported)
{
	alloc_params_t prm;
	alloc_result_t r;

	fixture_jobs(jobs, speeds, losses, 3, 5);
	for (int i = 0; i < 3; i++) {
		jobs[i].ps_demand = res_make(1, 1, 0);
		jobs[i].worker_demand = res_make(1, 1, 0);
	}
	jobs[1].min_workers = 50;   /* needs 51 CPUs of 20 */
	alloc_params_init(&prm, cluster(20, 100, 0));
	ck_assert_int_eq(alloc_optimus_run(jobs, 3, &prm, &r), 0);
	ck_assert_int_eq(r.grants[1].status, ALLOC_MIN_UNFIT);
	ck_assert_uint_eq(r.nleft_out, 1);
	ck_assert_int_eq(r.grants[0].status, ALLOC_OK);
	ck_assert_int_eq(r.grants[2].status, ALLOC_OK);
	assert_within(jobs, &r, prm.capacity);
	alloc_result_free(&r);
}
END_TEST

/* Two identical jobs, room for one more task: damping decides. */
START_TEST(test_damping_prefers_mature_job)
{
	alloc_params_t prm;
	alloc_result_t r;

	fixture_jobs(jobs, speeds, losses, 2, 9);
	jobs[0].ps_demand = jobs[0].worker_demand = res_make(1, 1, 0);
	jobs[1] = jobs[0];
	jobs[1].id = 2;
	jobs[_i].early_stage = true;
	jobs[!_i].early_stage = false;
	alloc_params_init(&prm, cluster(5, 5, 0));
	ck_assert_int_eq(alloc_optimus_run(jobs, 2, &prm, &r), 0);
	ck_assert_int_eq(r.steps, 1);
	ck_assert_int_eq(r.grants[!_i].ps + r.grants[!_i].workers, 3);
	ck_assert_int_eq(r.grants[_i].ps + r.grants[_i].workers, 2);
	alloc_result_free(&r);
	prm.damping = 1.0;  /* undamped: the tie goes to the first job */
	ck_assert_int_eq(alloc_optimus_run(jobs, 2, &prm, &r), 0);
	ck_assert_int_eq(r.grants[0].ps + r.grants[0].workers, 3);
	alloc_result_free(&r);
}
END_TEST

START_TEST(test_invalid_input)
{
	alloc_params_t prm;
	alloc_result_t r;

	fixture_jobs(jobs, speeds, losses, 2, 11);
	jobs[1].max_workers = 1;
	jobs[1].min_workers = 3;
	alloc_params_init(&prm, cluster(100, 100, 0));
	for (size_t a = 0; a < NTASK_ALLOC; a++) {
		ck_assert_int_eq(task_allocators[a](jobs, 2, &prm, &r), -EINVAL);
		ck_assert_ptr_nonnull(strstr(r.err, "job 2"));
		alloc_result_free(&r);
	}
	jobs[1].loss_after = NULL;
	prm.total_units = 5;
	ck_assert_int_eq(alloc_quality_run(jobs, 2, &prm, &r), -EINVAL);
	alloc_result_free(&r);
}
END_TEST

static int best_units_rec(const alloc_job_t *js, size_t n, size_t i,
			  long left, double acc, double *best)
{
	if (i + 1 == n) {
		double l = acc + js[i].weight * js[i].loss_after(js[i].loss_ctx,
								 1 + left);
		*best = fmin(*best, l);
		return 1;
	}
	int count = 0;
	for (long a = 0; a <= left; a++)
		count += best_units_rec(js, n, i + 1, left - a, acc +
					js[i].weight *
					js[i].loss_after(js[i].loss_ctx, 1 + a),
					best);
	return count;
}

/*
 * The loss curves are convex and decreasing in the units, so the greedy of
 * Algorithm 1 must reach the exhaustive minimum of the weighted total loss.
 */
START_TEST(test_quality_matches_exhaustive)
{
	alloc_params_t prm;
	alloc_result_t r;
	double best = INFINITY, got = 0.0;
	uint64_t st = 4000 + _i;
	long total = 4 + 16;
	long sum = 0;

	fixture_jobs(jobs, speeds, losses, 4, st);
	for (int i = 0; i < 4; i++)
		jobs[i].weight = fixture_uniform(&st, 0.5, 3);
	alloc_params_init(&prm, cluster(1, 1, 0));
	prm.total_units = total;
	ck_assert_int_eq(alloc_quality_run(jobs, 4, &prm, &r), 0);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_ge(r.grants[i].units, 1);
		sum += r.grants[i].units;
		got += jobs[i].weight * fixture_loss(&losses[i],
						     r.grants[i].units);
	}
	ck_assert_int_eq(sum, total);
	ck_assert_int_eq(r.units_used, total);
	ck_assert_int_gt(best_units_rec(jobs, 4, 0, total - 4, 0, &best), 0);
	ck_assert_double_eq_tol(got, best, 1e-9 * (1 + best));
	alloc_result_free(&r);
}
END_TEST

/* A heavier weight and a larger loss gap attract more units. */
START_TEST(test_quality_weights_and_limits)
{
	alloc_params_t prm;
	alloc_result_t r;

	fixture_jobs(jobs, speeds, losses, 3, 21);
	losses[1] = losses[0];
	losses[2] = losses[0];
	jobs[0].weight = 1;
	jobs[1].weight = 4;
	jobs[2].weight = 1;
	jobs[2].max_units = 2;
	alloc_params_init(&prm, cluster(1, 1, 0));
	prm.total_units = 30;
	ck_assert_int_eq(alloc_quality_run(jobs, 3, &prm, &r), 0);
	ck_assert_int_gt(r.grants[1].units, r.grants[0].units);
	ck_assert_int_eq(r.grants[2].units, 2);
	ck_assert_int_eq(r.units_used, 30);
	alloc_result_free(&r);
	prm.total_units = 2;   /* fewer units than jobs: the last is left out */
	ck_assert_int_eq(alloc_quality_run(jobs, 3, &prm, &r), 0);
	ck_assert_int_eq(r.grants[2].status, ALLOC_MIN_UNFIT);
	ck_assert_uint_eq(r.nleft_out, 1);
	alloc_result_free(&r);
}
END_TEST

/* Identical single-resource jobs: DRF gives equal pairs. */
START_TEST(test_drf_equal_shares)
{
	alloc_params_t prm;
	alloc_result_t r;

	fixture_jobs(jobs, speeds, losses, 4, 31);
	for (int i = 0; i < 4; i++) {
		jobs[i].ps_demand = res_make(1, 1, 0);
		jobs[i].worker_demand = res_make(1, 1, 0);
	}
	jobs[3].max_ps = 2;
	alloc_params_init(&prm, cluster(40, 1000, 0));
	ck_assert_int_eq(alloc_drf_run(jobs, 4, &prm, &r), 0);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(r.grants[i].ps, r.grants[i].workers);
		ck_assert_int_ge(r.grants[i].ps, 4);
	}
	ck_assert_int_eq(r.grants[3].ps, 2);
	ck_assert_double_eq_tol(r.used.v[RES_CPU], 40, 1e-9);
	assert_within(jobs, &r, prm.capacity);
	alloc_result_free(&r);
}
END_TEST

/* Tetris: two jobs alike but for Q; the shorter one takes the free task. */
START_TEST(test_tetris_prefers_short_job)
{
	alloc_params_t prm;
	alloc_result_t r;

	fixture_jobs(jobs, speeds, losses, 2, 41);
	jobs[0].ps_demand = res_make(1, 2, 0);
	jobs[0].worker_demand = res_make(2, 1, 0);
	jobs[1] = jobs[0];
	jobs[1].id = 2;
	jobs[_i].remaining_steps = jobs[!_i].remaining_steps / 10;
	alloc_params_init(&prm, res_add(res_combo(jobs[0].ps_demand, 2,
						  jobs[0].worker_demand, 2),
					jobs[0].worker_demand));
	jobs[0].max_ps = jobs[1].max_ps = 1;
	ck_assert_int_eq(alloc_tetris_run(jobs, 2, &prm, &r), 0);
	ck_assert_int_eq(r.grants[_i].workers, 2);
	ck_assert_int_eq(r.grants[!_i].workers, 1);
	alloc_result_free(&r);
}
END_TEST

START_TEST(test_fifo_blocks_queue)
{
	alloc_params_t prm;
	alloc_result_t r;

	fixture_jobs(jobs, speeds, losses, 4, 51);
	for (int i = 0; i < 4; i++) {
		jobs[i].ps_demand = res_make(1, 1, 0);
		jobs[i].worker_demand = res_make(1, 1, 0);
		jobs[i].req_ps = 2;
		jobs[i].req_workers = 4;
	}
	jobs[1].req_workers = 30;   /* 32 CPUs: does not fit after job 0 */
	jobs[2].req_workers = 1;    /* would fit, but waits behind job 1 */
	alloc_params_init(&prm, cluster(32, 1000, 0));
	ck_assert_int_eq(alloc_fifo_run(jobs, 4, &prm, &r), 0);
	ck_assert_int_eq(r.grants[0].ps, 2);
	ck_assert_int_eq(r.grants[0].workers, 4);
	for (int i = 1; i < 4; i++)
		ck_assert_int_eq(r.grants[i].status, ALLOC_WAITING);
	ck_assert_uint_eq(r.nleft_out, 3);
	alloc_result_free(&r);
}
END_TEST

/*
 * Room for one job's minimum: the rate objective starts the job with less
 * left (shortest remaining time first, whatever the input order), where
 * Optimus grants minimums in input order.
 */
/* Two jobs of one PS and one worker each, a cluster with room for one;
 * job `shorter` has a tenth of the other's steps left. */
static void rate_two_for_one(int shorter, alloc_params_t *prm)
{
	fixture_jobs(jobs, speeds, losses, 2, 61);
	jobs[0].ps_demand = res_make(1, 1, 0);
	jobs[0].worker_demand = res_make(1, 1, 1);
	jobs[0].min_ps = jobs[0].max_ps = 1;
	jobs[0].min_workers = 1;
	jobs[0].max_workers = 1;
	jobs[1] = jobs[0];
	jobs[1].id = 2;
	jobs[shorter].remaining_steps = jobs[!shorter].remaining_steps / 10;
	alloc_params_init(prm, cluster(2, 2, 1));
}

START_TEST(test_rate_short_job_first)
{
	alloc_params_t prm;
	alloc_result_t r;

	rate_two_for_one(_i, &prm);
	ck_assert_int_eq(alloc_rate_run(jobs, 2, &prm, &r), 0);
	ck_assert_int_eq(r.grants[_i].status, ALLOC_OK);
	ck_assert_int_eq(r.grants[_i].workers, 1);
	ck_assert_int_eq(r.grants[!_i].status, ALLOC_MIN_UNFIT);
	ck_assert_uint_eq(r.nleft_out, 1);
	alloc_result_free(&r);
	ck_assert_int_eq(alloc_optimus_run(jobs, 2, &prm, &r), 0);
	ck_assert_int_eq(r.grants[0].status, ALLOC_OK);
	alloc_result_free(&r);
}
END_TEST

/*
 * A job that keeps its minimum anyway (a running job: the plan has no
 * preemption) gets it first, even when a shorter job would rather have
 * it: a grant of nothing would promise it to a job that then waits.
 */
START_TEST(test_rate_keeps_min_first)
{
	alloc_params_t prm;
	alloc_result_t r;

	rate_two_for_one(1, &prm);
	jobs[0].keeps_min = true;
	ck_assert_int_eq(alloc_rate_run(jobs, 2, &prm, &r), 0);
	ck_assert_int_eq(r.grants[0].status, ALLOC_OK);
	ck_assert_int_eq(r.grants[0].workers, 1);
	ck_assert_int_eq(r.grants[1].status, ALLOC_MIN_UNFIT);
	alloc_result_free(&r);
	jobs[0].keeps_min = false;
}
END_TEST

/* Extra workers go to the job they speed up most per remaining step. */
START_TEST(test_rate_extra_to_shorter)
{
	alloc_params_t prm;
	alloc_result_t r;

	fixture_jobs(jobs, speeds, losses, 2, 71);
	for (int i = 0; i < 2; i++) {
		jobs[i].ps_demand = res_make(1, 1, 0);
		jobs[i].worker_demand = res_make(1, 1, 1);
		jobs[i].min_ps = jobs[i].max_ps = 1;
		jobs[i].min_workers = 1;
		jobs[i].max_workers = 8;
	}
	speeds[1] = speeds[0];
	jobs[1].remaining_steps = jobs[0].remaining_steps * 20;
	alloc_params_init(&prm, cluster(2, 100, 6));
	ck_assert_int_eq(alloc_rate_run(jobs, 2, &prm, &r), 0);
	ck_assert_int_gt(r.grants[0].workers, r.grants[1].workers);
	alloc_result_free(&r);
}
END_TEST

/* All-reduce truth: 4 workers per node, a large cross-node jump. */
static speed_model_t ar_truth;

static double ar_speed(void *ctx, int p, int w)
{
	(void)ctx;
	if (p != 0)	/* an all-reduce job is never asked with a PS */
		return 0.0;
	return allreduce_speed_predict(&ar_truth, w, allreduce_min_nodes(w, 4));
}

static void ar_setup(void)
{
	static const double th[5] = { 0.004, 0.02, 0.05, 0.15, 0.002 };

	allreduce_speed_init(&ar_truth, 256);
	speed_model_set_theta(&ar_truth, th, 5);
}

/* Every third job all-reduce (no PS demand): every task allocator keeps
 * within capacity and limits and never gives such a job a PS. */
START_TEST(test_allreduce_mixed)
{
	uint64_t st = 3000 + _i;
	alloc_params_t prm;
	alloc_result_t r;
	int grown = 0;

	ar_setup();
	fixture_jobs(jobs, speeds, losses, NJOBS, st);
	random_limits(&st);
	for (size_t i = 0; i < NJOBS; i += 3) {
		jobs[i].no_ps = true;
		jobs[i].ps_demand = res_make(0, 0, 0);
		jobs[i].speed = ar_speed;
	}
	random_cluster(&prm, &st);
	for (size_t a = 0; a < NTASK_ALLOC; a++) {
		ck_assert_int_eq(task_allocators[a](jobs, NJOBS, &prm, &r), 0);
		assert_within(jobs, &r, prm.capacity);
		for (size_t i = 0; i < NJOBS; i += 3) {
			ck_assert_int_eq(r.grants[i].ps, 0);
			if (a == 0 && r.grants[i].workers > 1)
				grown++;
		}
		alloc_result_free(&r);
	}
	ck_assert_int_gt(grown, 0);
	speed_model_clear(&ar_truth);
}
END_TEST

/*
 * Eqn. 9 with workers only, alone on a roomy cluster: the grant is the
 * fastest worker count, past the node boundary where one worker more
 * slows the job (5 workers span 2 nodes) but 16 are faster than 4.
 */
START_TEST(test_allreduce_optimum)
{
	alloc_params_t prm;
	alloc_result_t r;
	int w, best = 1;

	ar_setup();
	fixture_jobs(jobs, speeds, losses, 1, 61);
	jobs[0].no_ps = true;
	jobs[0].ps_demand = res_make(0, 0, 0);
	jobs[0].worker_demand = res_make(1, 1, 0);
	jobs[0].speed = ar_speed;
	jobs[0].min_ps = jobs[0].max_ps = 0;
	jobs[0].min_workers = 1;
	jobs[0].max_workers = 16;
	jobs[0].early_stage = false;
	ck_assert(ar_speed(NULL, 0, 5) < ar_speed(NULL, 0, 4));
	ck_assert(ar_speed(NULL, 0, 16) > ar_speed(NULL, 0, 4));
	for (w = 1; w <= 16; w++)
		if (ar_speed(NULL, 0, w) > ar_speed(NULL, 0, best))
			best = w;
	alloc_params_init(&prm, cluster(64, 64, 0));
	ck_assert_int_eq(alloc_optimus_run(jobs, 1, &prm, &r), 0);
	ck_assert_int_eq(r.grants[0].ps, 0);
	ck_assert_int_eq(r.grants[0].workers, best);
	alloc_result_free(&r);
	/* a zero PS demand is refused for a PS job */
	jobs[0].no_ps = false;
	ck_assert_int_eq(alloc_optimus_run(jobs, 1, &prm, &r), -EINVAL);
	alloc_result_free(&r);
	speed_model_clear(&ar_truth);
}
END_TEST

/*
 * Pollux's objective (alloc/fair_speedup.c): all-reduce jobs of one GPU a
 * worker whose speed a.w / (1 + b.w) is concave, so the marginal-gain
 * greedy reaches the optimum of sum_j -1 / (f_j / base_j + 1e-3), base_j
 * the speed at the fair share ceil(G / n) GPUs; the exhaustive optimum of
 * that sum is the reference.
 */
typedef struct fs_speed {
	double a, b;
} fs_speed_t;

static fs_speed_t fs_speeds[NJOBS];

static double fs_speed_cb(void *ctx, int p, int w)
{
	const fs_speed_t *s = ctx;

	(void)p;
	return w > 0 ? s->a * w / (1.0 + s->b * w) : 0.0;
}

static void fs_jobs(size_t n, int most, uint64_t *st)
{
	memset(jobs, 0, n * sizeof(jobs[0]));
	for (size_t i = 0; i < n; i++) {
		fs_speeds[i].a = 0.5 + (double)(fixture_rand(st) % 100) / 20.0;
		fs_speeds[i].b = (double)(fixture_rand(st) % 100) / 100.0;
		jobs[i].id = (uint32_t)i + 1;
		jobs[i].speed = fs_speed_cb;
		jobs[i].speed_ctx = &fs_speeds[i];
		jobs[i].remaining_steps = 1.0 + (double)(fixture_rand(st) %
							1000000);
		jobs[i].no_ps = true;
		jobs[i].worker_demand = res_make(1, 1, 1);
		jobs[i].min_workers = 1;
		jobs[i].max_workers = most;
	}
}

/* The workers the fair-speedup greedy grants the single job of jobs[]. */
static int fs_one_job_workers(const alloc_params_t *prm)
{
	alloc_result_t r;
	int w;

	ck_assert_int_eq(alloc_fair_speedup_run(jobs, 1, prm, &r), 0);
	w = r.grants[0].workers;
	alloc_result_free(&r);
	return w;
}

static double fs_objective(const int *w, size_t n, int gpus)
{
	double sum = 0.0;

	for (size_t i = 0; i < n; i++) {
		int fair = (gpus + (int)n - 1) / (int)n;
		double base = fs_speed_cb(&fs_speeds[i], 0, fair);

		sum -= 1.0 / (fs_speed_cb(&fs_speeds[i], 0, w[i]) / base +
			      1e-3);
	}
	return sum;
}

/* The best sum over every split of `left` GPUs among jobs k..n. */
static double fs_exhaustive(int *w, size_t k, size_t n, int left, int gpus,
			    int most)
{
	double best = -INFINITY;

	if (k == n)
		return fs_objective(w, n, gpus);
	for (int x = 0; x <= left && x <= most; x++) {
		w[k] = x;
		best = fmax(best, fs_exhaustive(w, k + 1, n, left - x, gpus,
						most));
	}
	w[k] = 0;
	return best;
}

START_TEST(test_fair_speedup_matches_exhaustive)
{
	uint64_t st = 5000 + _i;
	const size_t n = 3 + _i % 2;
	const int gpus = 5 + _i, most = 6;
	int w[4] = { 0 };
	alloc_params_t prm;
	alloc_result_t r;
	double best;

	fs_jobs(n, most, &st);
	alloc_params_init(&prm, cluster(100, 100, gpus));
	ck_assert_int_eq(alloc_fair_speedup_run(jobs, n, &prm, &r), 0);
	assert_within(jobs, &r, prm.capacity);
	for (size_t i = 0; i < n; i++) {
		/* n <= gpus: every job is served */
		ck_assert_int_eq(r.grants[i].status, ALLOC_OK);
		w[i] = r.grants[i].workers;
	}
	best = fs_exhaustive((int[4]){ 0 }, 0, n, gpus, gpus, most);
	ck_assert_double_eq_tol(fs_objective(w, n, gpus), best,
				1e-9 * fabs(best));
	alloc_result_free(&r);
}
END_TEST

/*
 * The objective does not read the work a job has left: the grants stay
 * when the remaining steps change.
 */
START_TEST(test_fair_speedup_ignores_remaining)
{
	uint64_t st = 6000;
	alloc_params_t prm;
	alloc_result_t r, again;

	fs_jobs(4, 8, &st);
	alloc_params_init(&prm, cluster(100, 100, 9));
	ck_assert_int_eq(alloc_fair_speedup_run(jobs, 4, &prm, &r), 0);
	for (size_t i = 0; i < 4; i++)
		jobs[i].remaining_steps = i == 2 ? 1.0 : 1e9;
	ck_assert_int_eq(alloc_fair_speedup_run(jobs, 4, &prm, &again), 0);
	for (size_t i = 0; i < 4; i++)
		ck_assert_int_eq(again.grants[i].workers, r.grants[i].workers);
	alloc_result_free(&r);
	alloc_result_free(&again);
}
END_TEST

/*
 * A job without a GPU counts 1 / eps: with room for one GPU a job, every
 * job gets one, however much faster one job would run on more.
 */
START_TEST(test_fair_speedup_serves_every_job)
{
	uint64_t st = 7000;
	alloc_params_t prm;
	alloc_result_t r;

	fs_jobs(4, 8, &st);
	fs_speeds[0] = (fs_speed_t){ 100.0, 0.0 };	/* linear, fast */
	jobs[0].remaining_steps = 1.0;
	alloc_params_init(&prm, cluster(100, 100, 4));
	ck_assert_int_eq(alloc_fair_speedup_run(jobs, 4, &prm, &r), 0);
	for (size_t i = 0; i < 4; i++) {
		ck_assert_int_eq(r.grants[i].status, ALLOC_OK);
		ck_assert_int_eq(r.grants[i].workers, 1);
	}
	alloc_result_free(&r);
	/* the completion rate gives the short linear job all it can use */
	ck_assert_int_eq(alloc_rate_run(jobs, 4, &prm, &r), 0);
	ck_assert_int_eq(r.grants[0].workers, 4);
	alloc_result_free(&r);
}
END_TEST

/*
 * Pollux's restart weighting: a job's speedup at any size but its current
 * one is weighed by change_weight, so a running job on 2 GPUs whose third
 * would add less than the weight keeps 2, where unweighted it grows.
 */
START_TEST(test_fair_speedup_restart_weight)
{
	uint64_t st = 8000;
	alloc_params_t prm;

	fs_jobs(1, 4, &st);
	fs_speeds[0] = (fs_speed_t){ 1.0, 0.1 };
	jobs[0].keeps_min = true;
	alloc_params_init(&prm, cluster(100, 100, 3));
	ck_assert_int_eq(fs_one_job_workers(&prm), 3);
	jobs[0].cur_workers = 2;
	jobs[0].change_weight = 0.5;
	ck_assert_int_eq(fs_one_job_workers(&prm), 2);
	/* weighed or not, a job without a GPU is served */
	jobs[0].cur_workers = 0;
	ck_assert_int_eq(fs_one_job_workers(&prm), 3);
}
END_TEST

static Suite *alloc_suite(void)
{
	Suite *s = suite_create("alloc");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_heap_matches_scan);
	tcase_add_loop_test(tc, test_capacity_and_limits, 0, 20);
	tcase_add_loop_test(tc, test_heap_equals_rescan, 0, 10);
	tcase_add_loop_test(tc, test_rate_heap_equals_rescan, 0, 20);
	tcase_add_test(tc, test_optimus_stops_at_no_gain);
	tcase_add_test(tc, test_optimus_gap_to_exhaustive);
	tcase_add_test(tc, test_min_unfit_reported);
	tcase_add_loop_test(tc, test_damping_prefers_mature_job, 0, 2);
	tcase_add_test(tc, test_invalid_input);
	tcase_add_loop_test(tc, test_quality_matches_exhaustive, 0, 5);
	tcase_add_test(tc, test_quality_weights_and_limits);
	tcase_add_test(tc, test_drf_equal_shares);
	tcase_add_loop_test(tc, test_tetris_prefers_short_job, 0, 2);
	tcase_add_test(tc, test_fifo_blocks_queue);
	tcase_add_loop_test(tc, test_rate_short_job_first, 0, 2);
	tcase_add_test(tc, test_rate_keeps_min_first);
	tcase_add_test(tc, test_rate_extra_to_shorter);
	tcase_add_loop_test(tc, test_fair_speedup_matches_exhaustive, 0, 4);
	tcase_add_test(tc, test_fair_speedup_ignores_remaining);
	tcase_add_test(tc, test_fair_speedup_serves_every_job);
	tcase_add_test(tc, test_fair_speedup_restart_weight);
	tcase_add_loop_test(tc, test_allreduce_mixed, 0, 10);
	tcase_add_test(tc, test_allreduce_optimum);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(alloc_suite());
}

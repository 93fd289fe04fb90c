/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * test_placement.c - Theorem 1 placement: capacity never exceeded, even
 * splits, fewest servers, all-or-nothing for jobs that do not fit.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "alloc_synth.h"
#include "alloc/placement.h"
#include "check_run.h"

static void assert_even(const place_assign_t *a, const place_job_t *job)
{
	int ps = 0, wk = 0, pmin = 1 << 30, pmax = 0, wmin = 1 << 30, wmax = 0;

	for (size_t i = 0; i < a->nslots; i++) {
		const place_slot_t *s = &a->slots[i];
		ck_assert_int_gt(s->ps + s->workers, 0);
		ps += s->ps;
		wk += s->workers;
		pmin = s->ps < pmin ? s->ps : pmin;
		pmax = s->ps > pmax ? s->ps : pmax;
		wmin = s->workers < wmin ? s->workers : wmin;
		wmax = s->workers > wmax ? s->workers : wmax;
		for (size_t j = 0; j < i; j++)
			ck_assert_uint_ne(a->slots[j].server, s->server);
	}
	ck_assert_int_eq(ps, job->ps);
	ck_assert_int_eq(wk, job->workers);
	ck_assert_int_le(pmax - pmin, 1);
	ck_assert_int_le(wmax - wmin, 1);
}

/* Recompute every server's load from the slots; compare with its room. */
static void assert_capacity(const res_vec_t *free0, size_t ns,
			    const place_job_t *jobs, const place_result_t *r)
{
	res_vec_t *load = calloc(ns, sizeof(*load));

	for (size_t j = 0; j < r->njobs; j++) {
		const place_assign_t *a = &r->jobs[j];
		if (a->status != PLACE_OK) {
			ck_assert_uint_eq(a->nslots, 0);
			continue;
		}
		assert_even(a, &jobs[j]);
		for (size_t i = 0; i < a->nslots; i++) {
			const place_slot_t *s = &a->slots[i];
			load[s->server] = res_add(load[s->server],
				res_combo(jobs[j].ps_demand, s->ps,
					  jobs[j].worker_demand, s->workers));
		}
	}
	for (size_t s = 0; s < ns; s++) {
		ck_assert(res_fits(load[s], free0[s]));
		for (int k = 0; k < RES_NUM; k++)
			ck_assert_double_eq_tol(free0[s].v[k] - load[s].v[k],
						r->free_after[s].v[k], 1e-6);
	}
	free(load);
}

START_TEST(test_random_instances)
{
	enum { NS = 60, NJ = 80 };
	res_vec_t servers[NS];
	place_job_t jobs[NJ];
	place_result_t r;
	uint64_t st = 100 + _i;

	for (int s = 0; s < NS; s++)
		servers[s] = res_make(fixture_uniform(&st, 0, 32),
				      fixture_uniform(&st, 0, 128),
				      fixture_rand(&st) % 5);
	for (int j = 0; j < NJ; j++)
		jobs[j] = (place_job_t){
			.id = j, .ps = fixture_rand(&st) % 6,
			.workers = fixture_rand(&st) % 12,
			.ps_demand = res_make(fixture_uniform(&st, 0.5, 4),
					      fixture_uniform(&st, 1, 8), 0),
			.worker_demand = res_make(fixture_uniform(&st, 1, 6),
						  fixture_uniform(&st, 1, 16),
						  fixture_rand(&st) % 3 == 0),
		};
	ck_assert_int_eq(placement_run(servers, NS, jobs, NJ, &r), 0);
	assert_capacity(servers, NS, jobs, &r);
	ck_assert_uint_lt(r.nunfit, NJ);
	placement_result_free(&r);
}
END_TEST

/*
 * Homogeneous empty servers holding c tasks each: the job must use exactly
 * ceil((p + w) / c) servers when an even split fits there.
 */
START_TEST(test_fewest_servers)
{
	enum { NS = 50 };
	res_vec_t servers[NS];
	int c = 1 + _i % 7, p = 1 + _i % 5, w = 1 + (_i * 3) % 17;
	place_job_t job = {
		.id = 1, .ps = p, .workers = w,
		.ps_demand = res_make(1, 1, 0), .worker_demand = res_make(1, 1, 0),
	};
	place_result_t r;
	int k = (p + w + c - 1) / c;

	for (int s = 0; s < NS; s++)
		servers[s] = res_make(c, c, 0);
	ck_assert_int_eq(placement_run(servers, NS, &job, 1, &r), 0);
	ck_assert_int_eq(r.jobs[0].status, PLACE_OK);
	ck_assert_uint_eq(r.jobs[0].nslots, k);
	assert_capacity(servers, NS, &job, &r);
	placement_result_free(&r);
}
END_TEST

START_TEST(test_unfit_is_not_half_placed)
{
	res_vec_t servers[3] = { res_make(4, 8, 0), res_make(4, 8, 0),
				 res_make(2, 8, 0) };
	place_job_t jobs[2] = {
		{ .id = 7, .ps = 2, .workers = 10, .ps_demand = res_make(1, 1, 0),
		  .worker_demand = res_make(1, 1, 0) },
		{ .id = 8, .ps = 1, .workers = 1, .ps_demand = res_make(1, 1, 0),
		  .worker_demand = res_make(1, 1, 1) },
	};
	place_result_t r;

	ck_assert_int_eq(placement_run(servers, 3, jobs, 2, &r), 0);
	ck_assert_int_eq(r.jobs[0].status, PLACE_UNFIT);
	ck_assert_int_eq(r.jobs[1].status, PLACE_UNFIT);  /* needs a GPU */
	ck_assert_uint_eq(r.nunfit, 2);
	for (int s = 0; s < 3; s++)
		for (int k = 0; k < RES_NUM; k++)
			ck_assert_double_eq(r.free_after[s].v[k], servers[s].v[k]);
	placement_result_free(&r);
}
END_TEST

/* Heterogeneous room: the job lands on the emptiest servers. */
START_TEST(test_most_room_first)
{
	res_vec_t servers[4] = { res_make(2, 2, 0), res_make(8, 8, 0),
				 res_make(3, 3, 0), res_make(8, 8, 0) };
	place_job_t job = { .id = 1, .ps = 2, .workers = 12,
			    .ps_demand = res_make(1, 1, 0),
			    .worker_demand = res_make(1, 1, 0) };
	place_result_t r;

	ck_assert_int_eq(placement_run(servers, 4, &job, 1, &r), 0);
	ck_assert_int_eq(r.jobs[0].status, PLACE_OK);
	ck_assert_uint_eq(r.jobs[0].nslots, 2);
	ck_assert_uint_eq(r.jobs[0].slots[0].server, 1);
	ck_assert_uint_eq(r.jobs[0].slots[1].server, 3);
	ck_assert_int_eq(r.jobs[0].slots[0].ps, 1);
	ck_assert_int_eq(r.jobs[0].slots[0].workers, 6);
	placement_result_free(&r);
}
END_TEST

/*
 * 1 PS + 2 workers split 2 + 1 over servers with 2 and 1.5 free CPUs; with
 * same_on_each both must hold 2 (Slurm's --ntasks-per-node), which the
 * second cannot; on two servers of 2 CPUs both are then full.
 */
START_TEST(test_same_on_each_server)
{
	res_vec_t uneven[2] = { res_make(2, 30, 0), res_make(1.5, 30, 0) };
	res_vec_t even[2] = { res_make(2, 30, 0), res_make(2, 30, 0) };
	place_job_t job = { .id = 1, .ps = 1, .workers = 2,
			    .ps_demand = res_make(1, 1, 0),
			    .worker_demand = res_make(1, 1, 0) };
	place_result_t r;

	ck_assert_int_eq(placement_run(uneven, 2, &job, 1, &r), 0);
	ck_assert_int_eq(r.jobs[0].status, PLACE_OK);
	placement_result_free(&r);

	job.same_on_each = true;
	ck_assert_int_eq(placement_run(uneven, 2, &job, 1, &r), 0);
	ck_assert_int_ne(r.jobs[0].status, PLACE_OK);
	placement_result_free(&r);

	ck_assert_int_eq(placement_run(even, 2, &job, 1, &r), 0);
	ck_assert_int_eq(r.jobs[0].status, PLACE_OK);
	ck_assert_uint_eq(r.jobs[0].nslots, 2);
	for (int k = 0; k < 2; k++)
		ck_assert_double_eq_tol(r.free_after[k].v[RES_CPU], 0, 1e-9);
	placement_result_free(&r);
}
END_TEST

START_TEST(test_share_spreads_remainders)
{
	int n = _i % 13, k = 1 + _i % 5, front = 0, back = 0;

	for (int i = 0; i < k; i++) {
		int f = placement_share_front(n, k, i);
		int b = placement_share_back(n, k, i);
		ck_assert(f == n / k || f == n / k + 1);
		ck_assert(b == n / k || b == n / k + 1);
		if (i > 0) {
			ck_assert_int_le(f, placement_share_front(n, k, i - 1));
			ck_assert_int_ge(b, placement_share_back(n, k, i - 1));
		}
		front += f;
		back += b;
	}
	ck_assert_int_eq(front, n);
	ck_assert_int_eq(back, n);
}
END_TEST

/*
 * layout=separate: PS and workers on disjoint servers, each an even split,
 * the fewest PS servers that fit; with too few servers for both, unfit.
 */
START_TEST(test_separate_layout)
{
	res_vec_t free0[4];
	place_job_t job = { .id = 7, .ps_demand = res_make(1, 1, 0),
			    .worker_demand = res_make(1, 1, 0), .ps = 2,
			    .workers = 12, .separate = true };
	place_result_t r;
	int psk = 0, wk = 0;

	for (int s = 0; s < 4; s++)
		free0[s] = res_make(8, 64, 0);
	ck_assert_int_eq(placement_run(free0, 4, &job, 1, &r), 0);
	ck_assert_int_eq(r.jobs[0].status, PLACE_OK);
	ck_assert_uint_eq(r.jobs[0].nslots, 3);	/* 1 PS server + 2 of 6 */
	for (size_t i = 0; i < r.jobs[0].nslots; i++) {
		const place_slot_t *sl = &r.jobs[0].slots[i];

		ck_assert(!sl->ps != !sl->workers);	/* never both */
		psk += sl->ps > 0;
		wk += sl->workers;
		if (sl->workers)
			ck_assert_int_eq(sl->workers, 6);
		ck_assert(res_fits(res_combo(job.ps_demand, sl->ps,
					     job.worker_demand, sl->workers),
				   free0[sl->server]));
		for (size_t j = 0; j < i; j++)
			ck_assert_uint_ne(r.jobs[0].slots[j].server, sl->server);
	}
	ck_assert_int_eq(psk, 1);
	ck_assert_int_eq(wk, 12);
	placement_result_free(&r);
	/* colocated, the same job takes 2 servers (7 + 7 tasks) */
	job.separate = false;
	ck_assert_int_eq(placement_run(free0, 4, &job, 1, &r), 0);
	ck_assert_uint_eq(r.jobs[0].nslots, 2);
	placement_result_free(&r);
	/* one server: nothing to separate onto */
	job.separate = true;
	job.workers = 2;
	ck_assert_int_eq(placement_run(free0, 1, &job, 1, &r), 0);
	ck_assert_int_eq(r.jobs[0].status, PLACE_UNFIT);
	placement_result_free(&r);
	/* no PS (all-reduce): placed as colocated */
	job.ps = 0;
	ck_assert_int_eq(placement_run(free0, 1, &job, 1, &r), 0);
	ck_assert_int_eq(r.jobs[0].status, PLACE_OK);
	placement_result_free(&r);
}
END_TEST

/* job alone on servers[0..ns): its status, and *nslots its servers. */
static enum place_status place_alone(const res_vec_t *servers, size_t ns,
				     const place_job_t *job, size_t *nslots)
{
	place_result_t r;
	enum place_status st;

	ck_assert_int_eq(placement_run(servers, ns, job, 1, &r), 0);
	st = r.jobs[0].status;
	*nslots = r.jobs[0].nslots;
	placement_result_free(&r);
	return st;
}

/*
 * A cap (alloc/cap.h) bounds the split, as Slurm counts it: servers, what
 * one server is charged, and the charges added up (the fullest server's
 * share on each with same_on_each).
 */
START_TEST(test_cap_bounds_the_split)
{
	res_vec_t servers[4] = { res_make(4, 64, 0), res_make(4, 64, 0),
				 res_make(4, 64, 0), res_make(4, 64, 0) };
	place_job_t job = { .id = 1, .ps = 0, .workers = 5,
			    .ps_demand = res_make(0, 0, 0),
			    .worker_demand = res_make(1, 1, 0),
			    .same_on_each = true };
	place_result_t r;
	job_cap_t cap;
	size_t k;

	/* 5 tasks on two 4-CPU servers take 3 + 3 slots: 6 CPUs charged. */
	cap_init(&cap);
	cap_lower_total(&cap, RES_CPU, 5, "QOS normal MaxTRESPerJob cpu=%d",
			5);
	job.cap = &cap;
	ck_assert_int_eq(place_alone(servers, 4, &job, &k), PLACE_UNFIT);
	cap_init(&cap);
	cap_lower_total(&cap, RES_CPU, 6, "x");
	ck_assert_int_eq(place_alone(servers, 4, &job, &k), PLACE_OK);
	ck_assert_uint_eq(k, 2);

	/* One server at most: 5 tasks fit on none, 4 on one. */
	cap_init(&cap);
	cap_lower_servers(&cap, 1, "partition debug MaxNodes=1");
	ck_assert_int_eq(place_alone(servers, 4, &job, &k), PLACE_UNFIT);
	job.workers = 4;
	ck_assert_int_eq(place_alone(servers, 4, &job, &k), PLACE_OK);
	ck_assert_uint_eq(k, 1);

	/* At most 2 CPUs on any server: 4 tasks spread over two or more. */
	cap_init(&cap);
	cap_lower_per_server(&cap, RES_CPU, 2, "partition debug "
			     "MaxCPUsPerNode=2");
	ck_assert_int_eq(placement_run(servers, 4, &job, 1, &r), 0);
	ck_assert_int_eq(r.jobs[0].status, PLACE_OK);
	ck_assert_uint_eq(r.jobs[0].nslots, 2);
	for (size_t i = 0; i < r.jobs[0].nslots; i++)
		ck_assert_int_le(r.jobs[0].slots[i].workers, 2);
	placement_result_free(&r);

	/* No server: nothing is placed. */
	cap_init(&cap);
	cap_lower_servers(&cap, 0, "QOS normal MaxTRESPerUser node=1 leaves 0");
	ck_assert_int_eq(place_alone(servers, 4, &job, &k), PLACE_UNFIT);
}
END_TEST

/* A cap's words are the tightest limit's; its first bound a size is over
 * is the one a waiting job names. */
START_TEST(test_cap_words)
{
	job_cap_t cap;
	res_vec_t one = res_make(1, 100, 1), least = res_make(2, 200, 1);

	cap_init(&cap);
	ck_assert(!cap_is_set(&cap));
	ck_assert_ptr_null(cap_why_over(&cap, least, one));
	ck_assert_ptr_null(cap_why_over(NULL, least, one));
	cap_lower_total(&cap, RES_CPU, 8, "QOS a MaxTRESPerJob cpu=8");
	cap_lower_total(&cap, RES_CPU, 4, "QOS a MaxTRESPerUser cpu=4 leaves %d",
			4);
	cap_lower_total(&cap, RES_CPU, 6, "looser, not kept");
	ck_assert(cap_is_set(&cap));
	ck_assert_double_eq(cap.total.v[RES_CPU], 4);
	ck_assert_str_eq(cap.why_total[RES_CPU],
			 "QOS a MaxTRESPerUser cpu=4 leaves 4");
	ck_assert_int_eq(cap_tasks_in_total(&cap, res_make(1, 0, 0)), 4);
	ck_assert_ptr_null(cap_why_over(&cap, least, one));
	cap_lower_total(&cap, RES_CPU, -3, "QOS a MaxTRESPerUser cpu=4 "
			"leaves 0");
	ck_assert_double_eq(cap.total.v[RES_CPU], 0);
	ck_assert_str_eq(cap_why_over(&cap, least, one),
			 "QOS a MaxTRESPerUser cpu=4 leaves 0");
	cap_lower_per_server(&cap, RES_GPU, 0, "QOS a MaxTRESPerNode "
			     "gres/gpu=0");
	ck_assert_str_eq(cap_why_over(&cap, least, one),
			 "QOS a MaxTRESPerNode gres/gpu=0");
	cap_lower_servers(&cap, 0.5, "partition p MaxNodes=0");
	ck_assert_str_eq(cap_why_over(&cap, least, one),
			 "partition p MaxNodes=0");
}
END_TEST

static Suite *placement_suite(void)
{
	Suite *s = suite_create("placement");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_random_instances, 0, 20);
	tcase_add_loop_test(tc, test_fewest_servers, 0, 35);
	tcase_add_test(tc, test_unfit_is_not_half_placed);
	tcase_add_test(tc, test_most_room_first);
	tcase_add_loop_test(tc, test_share_spreads_remainders, 0, 65);
	tcase_add_test(tc, test_same_on_each_server);
	tcase_add_test(tc, test_separate_layout);
	tcase_add_test(tc, test_cap_bounds_the_split);
	tcase_add_test(tc, test_cap_words);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(placement_suite());
}

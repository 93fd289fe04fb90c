/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * test_explore.c - ExploreScaling (job/job_explore.c, plan/plan_explore.c;
 * doc/design/planning.md "Exploring scaling"):
 *  - a job's explored extent is the most GPUs and nodes it ran on; its
 *    grant cap twice the most GPUs (1 before any run);
 *  - beyond the extent the prediction is at least perfect scaling from
 *    its best per-GPU rate, within it the model's;
 *  - in a plan, an all-reduce job that ran on 4 GPUs of one node, whose
 *    prior predicts no gain across nodes, is grown across nodes to twice
 *    its GPUs with the parameter and never beyond; kept without it; a job
 *    that never ran starts on 1 GPU;
 *  - under Policy=goodput, an adaptive job before its batch fit is capped
 *    the same; on its fit, which predicts what it has not run without the
 *    costs it has not seen, it is planned as without the parameter.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "job/job_model.h"
#include "plan/plan.h"
#include "check_run.h"
#include "job_fixture.h"

#define HINTS "optimus,mode=allreduce,max_workers=16,worker_gpus=1," \
	      "steps=1000000"

START_TEST(test_extent_and_cap)
{
	job_model_t *m = job_fixture_new(1, HINTS);
	int w, n;

	job_model_explored(m, &w, &n);
	ck_assert_int_eq(w, 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(job_model_explore_cap(m), 1);
	job_model_started(m, 100, 0, 4, 1);
	job_model_started(m, 200, 0, 2, 2);
	job_model_explored(m, &w, &n);
	ck_assert_int_eq(w, 4);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(job_model_explore_cap(m), 8);
	/* A measured speed (a pre-run) is a configuration measured too. */
	ck_assert_int_eq(job_model_speed_sample(m, 3, 12, 5.0), 0);
	job_model_explored(m, &w, &n);
	ck_assert_int_eq(w, 12);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(job_model_explore_cap(m), 24);
	job_model_free(m);
}
END_TEST

START_TEST(test_optimistic_speed)
{
	job_explore_t x = { .workers = 4, .nodes = 1, .per_gpu = 2.5 };
	job_explore_t none = { .workers = 4, .nodes = 1, .per_gpu = 0 };

	/* Within the extent: the model's, even below perfect scaling. */
	ck_assert_double_eq(job_model_explore_speed(3.0, 4, 1, &x), 3.0);
	ck_assert_double_eq(job_model_explore_speed(1.0, 2, 1, &x), 1.0);
	/* More nodes, or more GPUs: perfect scaling from 2.5 per GPU. */
	ck_assert_double_eq(job_model_explore_speed(3.0, 4, 2, &x), 10.0);
	ck_assert_double_eq(job_model_explore_speed(3.0, 8, 1, &x), 20.0);
	/* A model more optimistic still is kept. */
	ck_assert_double_eq(job_model_explore_speed(30.0, 8, 2, &x), 30.0);
	/* No rate measured: no optimism. */
	ck_assert_double_eq(job_model_explore_speed(3.0, 8, 2, &none), 3.0);
	ck_assert_double_eq(job_model_explore_speed(3.0, 8, 2, NULL), 3.0);
}
END_TEST

/* One running job on server 0 (4 GPUs, 1 node), three free servers. */
static job_model_t *ran_on_one_node(void)
{
	job_model_t *m = job_fixture_new(7, HINTS);

	job_model_started(m, 1000, 0, 4, 1);
	ck_assert_int_eq(job_model_checkpoint(m, 1000, 0), 0);
	ck_assert_int_eq(job_model_report(m, 1100, 100, 1.0, 1.0, 0), 0);
	ck_assert_int_eq(job_model_report(m, 1200, 200, 1.0, 1.0, 0), 0);
	return m;
}

static void plan_one(job_model_t *m, bool explore, plan_policy_t pol,
		     plan_t *p)
{
	place_slot_t sl[1] = { { 0, 0, 4 } };
	plan_job_t j = { .model = m, .running = m->nruns > 0, .slots = sl,
			 .nslots = m->nruns > 0 };
	res_vec_t fr[4] = { res_make(64, 1e6, 0), res_make(64, 1e6, 4),
			    res_make(64, 1e6, 4), res_make(64, 1e6, 4) };
	plan_params_t prm;

	if (!m->nruns)
		fr[0] = res_make(64, 1e6, 4);
	plan_params_init(&prm);
	prm.policy = pol;
	prm.now = 1000 + 7200;
	prm.restart_cost = 30;
	prm.explore_scaling = explore;
	ck_assert_int_eq(plan_run(&j, 1, fr, 4, &prm, p), 0);
}

/* The plan's decision for m alone: its action and workers. */
static void expect(job_model_t *m, bool explore, plan_action_t action,
		   int workers)
{
	plan_t p;

	plan_one(m, explore, PLAN_OPTIMUS, &p);
	ck_assert_int_eq(p.decisions[0].action, action);
	ck_assert_int_eq(p.decisions[0].workers, workers);
	plan_free(&p);
}

START_TEST(test_plan_grows_across_nodes)
{
	job_model_t *m = ran_on_one_node();
	plan_t p;
	int nodes = 0;

	/* The prior scaled through 4 GPUs on one node: no size on more
	 * nodes is predicted faster, so it is kept. */
	ck_assert(job_model_speed(m, NULL, 2, 8) <
		  job_model_speed(m, NULL, 1, 4));
	expect(m, false, PLAN_KEEP, 4);
	/* Exploring: grown to twice its GPUs, across nodes, not beyond. */
	plan_one(m, true, PLAN_OPTIMUS, &p);
	ck_assert_int_eq(p.decisions[0].action, PLAN_RESIZE);
	ck_assert_int_eq(p.decisions[0].workers, 8);
	for (size_t k = 0; k < p.decisions[0].nslots; k++)
		nodes += p.decisions[0].slots[k].workers > 0;
	ck_assert_int_eq(nodes, 2);
	/* Its predicted time is that of perfect scaling from 4 GPUs. */
	ck_assert_double_eq_tol(p.decisions[0].remaining_planned,
				p.decisions[0].remaining_now / 2,
				1e-9 * p.decisions[0].remaining_now);
	plan_free(&p);
	job_model_free(m);
}
END_TEST

START_TEST(test_plan_first_start_capped)
{
	job_model_t *m = job_fixture_new(8, HINTS);
	plan_t p;

	plan_one(m, false, PLAN_OPTIMUS, &p);
	ck_assert_int_eq(p.decisions[0].action, PLAN_START);
	ck_assert_int_gt(p.decisions[0].workers, 1);
	plan_free(&p);
	expect(m, true, PLAN_START, 1);
	/* Never below the job's minimum. */
	m->hints.min_workers = 2;
	expect(m, true, PLAN_START, 2);
	job_model_free(m);
}
END_TEST

/* Policy=goodput, an adaptive job before its fit: the same cap. */
START_TEST(test_plan_goodput_capped)
{
	static const goodput_limits_t lim = { 128, 4096, 1, 256, 3 };
	job_model_t *m = ran_on_one_node();
	plan_t p;

	ck_assert_int_eq(job_model_batch_limits(m, 4096, &lim, NULL, 0), 0);
	plan_one(m, true, PLAN_GOODPUT, &p);
	ck_assert_int_le(p.decisions[0].workers, 8);
	ck_assert_int_eq(p.decisions[0].action, PLAN_RESIZE);
	plan_free(&p);
	job_model_free(m);
}
END_TEST

/* Policy=goodput, an adaptive job on its batch fit: left alone by the
 * parameter. Its steps on 4 GPUs of one node (the all-reduce part said),
 * gradients whose noise lets the batch grow: its fit predicts more GPUs,
 * across nodes, without a ring across nodes it never ran; the plan is
 * the same with the parameter as without, and beyond twice its GPUs. */
START_TEST(test_plan_goodput_fit_not_capped)
{
	static const goodput_limits_t lim = { 128, 4096, 1, 256, 3 };
	job_model_t *m = ran_on_one_node();
	plan_t with, without;

	ck_assert_int_eq(job_model_batch_limits(m, 4096, &lim, NULL, 0), 0);
	ck_assert_int_eq(job_model_gradients(m, 1.0, 1000.0, 128, 1, NULL,
					     0), 0);
	ck_assert_int_eq(job_model_batch_sample_sync(m, 4, 1, 256, 0, 1.0,
						     0.1), 0);
	ck_assert_int_eq(job_model_batch_sample_sync(m, 4, 1, 128, 0, 0.6,
						     0.1), 0);
	job_model_batch_refit(m);
	ck_assert(m->batch.fitted);
	plan_one(m, true, PLAN_GOODPUT, &with);
	plan_one(m, false, PLAN_GOODPUT, &without);
	ck_assert_int_eq(with.decisions[0].action, PLAN_RESIZE);
	ck_assert_int_gt(with.decisions[0].workers, 8);
	ck_assert_int_eq(with.decisions[0].action,
			 without.decisions[0].action);
	ck_assert_int_eq(with.decisions[0].workers,
			 without.decisions[0].workers);
	ck_assert_double_eq(with.decisions[0].batch,
			    without.decisions[0].batch);
	plan_free(&with);
	plan_free(&without);
	job_model_free(m);
}
END_TEST

static Suite *explore_suite(void)
{
	Suite *s = suite_create("explore");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_extent_and_cap);
	tcase_add_test(tc, test_optimistic_speed);
	tcase_add_test(tc, test_plan_grows_across_nodes);
	tcase_add_test(tc, test_plan_first_start_capped);
	tcase_add_test(tc, test_plan_goodput_capped);
	tcase_add_test(tc, test_plan_goodput_fit_not_capped);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(explore_suite());
}

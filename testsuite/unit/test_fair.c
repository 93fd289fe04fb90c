/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * test_fair.c - fair shares between users (plan/plan_fair.c;
 * doc/design/planning.md "Fair shares between users"), on 4 servers of 4 GPUs:
 *  - a job whose model says "slow and perfectly scalable" (fabricated
 *    speeds) takes more than half the GPUs when both jobs are one user's,
 *    and no more than the surplus when they are two users': 8 and 8;
 *  - under every policy two users' identical jobs get 8 GPUs each, a
 *    quality job's weight=1000 included;
 *  - share weights split the GPUs in their proportion (3:1, 12 and 4);
 *  - a user asking less than its share keeps its demand, the rest goes
 *    to the other;
 *  - one user alone, or demands the cluster holds: the plan is the
 *    policy's alone, decision for decision;
 *  - a running job of a user above its share shrinks for a user below
 *    its share, though its gain is negative and shrinking for pending
 *    jobs is off, not before its minimum resize interval.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/job_model.h"
#include "plan/plan.h"
#include "check_run.h"

#define NOW 100000
#define JOB "optimus,mode=allreduce,min_workers=1,max_workers=16," \
	    "worker_gpus=1,worker_cpus=1,worker_mem=1,steps=1000000"

typedef struct fx {
	job_model_t *m[4];
	plan_job_t j[4];
	place_slot_t slot[4][4];
	res_vec_t free[4];
	size_t n, ns;
	plan_params_t prm;
	plan_t plan;
} fx_t;

static void fx_init(fx_t *f, plan_policy_t policy)
{
	memset(f, 0, sizeof(*f));
	f->ns = 4;
	for (size_t s = 0; s < f->ns; s++)
		f->free[s] = res_make(4, 4, 4);
	plan_params_init(&f->prm);
	f->prm.policy = policy;
	f->prm.now = NOW;
	f->prm.min_resize_interval = 300;
	f->prm.restart_cost = 30;
}

static size_t fx_job(fx_t *f, const char *hints, uint32_t user, double share)
{
	optimus_hints_t h;
	char err[256];
	size_t i = f->n++;

	ck_assert_msg(!hints_parse(hints, &h, err, sizeof(err)), "%s", err);
	f->m[i] = job_model_new(100 + (uint32_t)i, user, &h, 10 + (time_t)i);
	ck_assert_ptr_nonnull(f->m[i]);
	f->j[i].model = f->m[i];
	f->j[i].user = user;
	f->j[i].share = share;
	return i;
}

/* "Slow and perfectly scalable": 0.05 x workers steps/s on one node,
 * the samples a gaming job sent for sizes it never ran. */
static void fx_fabricate(fx_t *f, size_t i)
{
	for (int w = 1; w <= 16; w++)
		ck_assert_int_eq(job_model_speed_sample(f->m[i], 1, w,
							0.05 * w), 0);
	job_model_refit(f->m[i]);
}

/* Job i runs `per` GPUs on each of servers [0, k), since `start`. */
static void fx_run(fx_t *f, size_t i, uint32_t first, size_t k, int per,
		   time_t start)
{
	for (size_t s = 0; s < k; s++) {
		f->slot[i][s] = (place_slot_t){ .server = first + (uint32_t)s,
						.workers = per };
		f->free[first + s] = res_sub(f->free[first + s],
					     res_make(per, per, per));
	}
	job_model_started(f->m[i], start, 0, per * (int)k, (int)k);
	ck_assert_int_eq(job_model_checkpoint(f->m[i], start, 0), 0);
	f->j[i].running = true;
	f->j[i].slots = f->slot[i];
	f->j[i].nslots = k;
}

static void fx_plan(fx_t *f)
{
	plan_free(&f->plan);
	ck_assert_int_eq(plan_run(f->j, f->n, f->free, f->ns, &f->prm,
				  &f->plan), 0);
}

static int gpus(const fx_t *f, size_t i)
{
	const plan_decision_t *d = &f->plan.decisions[i];

	return d->action == PLAN_WAIT || d->action == PLAN_PREEMPT ? 0 :
	       d->workers;
}

static void fx_free(fx_t *f)
{
	plan_free(&f->plan);
	for (size_t i = 0; i < f->n; i++)
		job_model_free(f->m[i]);
}

START_TEST(test_fabricated_speeds_take_only_the_surplus)
{
	fx_t f;

	/* one user: the fabricated model takes most of the cluster */
	fx_init(&f, PLAN_OPTIMUS);
	fx_job(&f, JOB, 7, 0);
	fx_fabricate(&f, fx_job(&f, JOB, 7, 0));
	fx_plan(&f);
	ck_assert_int_gt(gpus(&f, 1), 8);
	ck_assert_int_lt(gpus(&f, 0), 8);
	fx_free(&f);
	/* two users: the honest one keeps its share */
	fx_init(&f, PLAN_OPTIMUS);
	fx_job(&f, JOB, 1000, 0);
	fx_fabricate(&f, fx_job(&f, JOB, 1001, 0));
	fx_plan(&f);
	ck_assert_int_eq(gpus(&f, 0), 8);
	ck_assert_int_eq(gpus(&f, 1), 8);
	fx_free(&f);
}
END_TEST

/* Each policy: two users' identical jobs, the second declaring
 * weight=1000 under the quality policy. */
START_TEST(test_every_policy_keeps_shares)
{
	static const plan_policy_t policies[] = {
		PLAN_OPTIMUS, PLAN_QUALITY, PLAN_DRF, PLAN_TETRIS, PLAN_FIFO,
		PLAN_GOODPUT,
	};
	plan_policy_t p = policies[_i];
	const char *hints = p == PLAN_QUALITY ? "quality,mode=allreduce,"
		"min_workers=1,max_workers=16,worker_gpus=1,worker_cpus=1,"
		"worker_mem=1,steps=1000000" : JOB;
	char heavy[512];
	fx_t f;

	snprintf(heavy, sizeof(heavy), "%s%s", hints,
		 p == PLAN_QUALITY ? ",weight=1000" : "");
	fx_init(&f, p);
	fx_job(&f, hints, 1000, 0);
	fx_fabricate(&f, fx_job(&f, heavy, 1001, 0));
	fx_plan(&f);
	ck_assert_msg(gpus(&f, 0) >= 8 && gpus(&f, 1) >= 8,
		      "%s: %d and %d GPUs", plan_policy_name(p), gpus(&f, 0),
		      gpus(&f, 1));
	fx_free(&f);
}
END_TEST

START_TEST(test_share_weights)
{
	fx_t f;

	fx_init(&f, PLAN_OPTIMUS);
	fx_job(&f, JOB, 1000, 0.75);
	fx_fabricate(&f, fx_job(&f, JOB, 1001, 0.25));
	fx_plan(&f);
	ck_assert_int_eq(gpus(&f, 0), 12);
	ck_assert_int_eq(gpus(&f, 1), 4);
	fx_free(&f);
}
END_TEST

/* A user asking 2 GPUs keeps 2; the other gets the 14 left. */
START_TEST(test_small_demand_leaves_the_rest)
{
	fx_t f;

	fx_init(&f, PLAN_OPTIMUS);
	fx_job(&f, "optimus,mode=allreduce,min_workers=2,max_workers=2,"
	       "worker_gpus=1,worker_cpus=1,worker_mem=1,steps=1000000",
	       1000, 0);
	fx_job(&f, JOB, 1001, 0);
	fx_job(&f, JOB, 1001, 0);
	fx_plan(&f);
	ck_assert_int_eq(gpus(&f, 0), 2);
	ck_assert_int_ge(gpus(&f, 1) + gpus(&f, 2), 8);
	fx_free(&f);
}
END_TEST

/* Without contention the plan is the policy's: two users whose demands
 * the cluster holds plan as one user would. */
START_TEST(test_no_contention_no_change)
{
	const char *small = "optimus,mode=allreduce,min_workers=1,"
		"max_workers=8,worker_gpus=1,worker_cpus=1,worker_mem=1,"
		"steps=1000000";
	fx_t one, two;

	fx_init(&one, PLAN_OPTIMUS);
	fx_init(&two, PLAN_OPTIMUS);
	for (size_t k = 0; k < 2; k++) {
		fx_fabricate(&one, fx_job(&one, small, 7, 0));
		fx_fabricate(&two, fx_job(&two, small, 1000 + (uint32_t)k, 0));
	}
	fx_plan(&one);
	fx_plan(&two);
	for (size_t i = 0; i < 2; i++) {
		ck_assert_int_eq(one.plan.decisions[i].action,
				 two.plan.decisions[i].action);
		ck_assert_int_eq(gpus(&one, i), gpus(&two, i));
	}
	fx_free(&one);
	fx_free(&two);
}
END_TEST

/*
 * The gaming job runs 12 GPUs (3 servers) and the other user's job 4: the
 * gaming job shrinks to its share for the other user's growth, though
 * shrinking for pending jobs is off; not within the minimum resize
 * interval of its last resize.
 */
START_TEST(test_above_share_yields)
{
	fx_t f;

	fx_init(&f, PLAN_OPTIMUS);
	f.prm.shrink_for_pending = false;
	fx_job(&f, JOB, 1000, 0);
	fx_fabricate(&f, fx_job(&f, JOB, 1001, 0));
	/* the honest job's own model: 8 GPUs pay for its restart */
	for (int w = 1; w <= 16; w++)
		ck_assert_int_eq(job_model_speed_sample(f.m[0],
							(w + 3) / 4, w,
							1.0 * w), 0);
	job_model_refit(f.m[0]);
	fx_run(&f, 0, 3, 1, 4, NOW - 1000);
	fx_run(&f, 1, 0, 3, 4, NOW - 1000);
	f.m[1]->last_resize = NOW - 100;	/* resized 100 s ago */
	fx_plan(&f);
	ck_assert_int_eq(f.plan.decisions[1].action, PLAN_KEEP);
	ck_assert_int_eq(gpus(&f, 1), 12);
	f.prm.now = NOW + 300;
	fx_plan(&f);
	ck_assert_int_eq(f.plan.decisions[1].action, PLAN_RESIZE);
	ck_assert_int_eq(gpus(&f, 1), 8);
	ck_assert_msg(strstr(f.plan.decisions[1].reason, "fair share"), "%s",
		      f.plan.decisions[1].reason);
	ck_assert_int_eq(f.plan.decisions[0].action, PLAN_RESIZE);
	ck_assert_int_eq(gpus(&f, 0), 8);
	fx_free(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fair");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_fabricated_speeds_take_only_the_surplus);
	tcase_add_loop_test(tc, test_every_policy_keeps_shares, 0, 6);
	tcase_add_test(tc, test_share_weights);
	tcase_add_test(tc, test_small_demand_leaves_the_rest);
	tcase_add_test(tc, test_no_contention_no_change);
	tcase_add_test(tc, test_above_share_yields);
	suite_add_tcase(s, tc);
	return check_run(s);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* test_plan_apply.c - a decision's change to its job's record
 * (plan/plan_apply.c). */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "job_fixture.h"
#include "plan/plan_apply.h"
#include "check_run.h"

static plan_decision_t decision(plan_action_t action, int ps, int workers)
{
	plan_decision_t d = { .job_id = 7, .action = action, .ps = ps,
			      .workers = workers, .for_job = 9 };

	snprintf(d.reason, sizeof(d.reason), "optimus: shrunk for JobId=9");
	return d;
}

/* START: the size planned; RESIZE: the stop under way, its reason and the
 * size; WAIT and KEEP: nothing. */
START_TEST(test_start_resize_wait_keep)
{
	job_model_t *m = job_fixture_new(7, "optimus,mode=sync,batch=64,"
					 "max_ps=4,max_workers=8");
	plan_decision_t d = decision(PLAN_START, 1, 2);

	ck_assert_int_eq(plan_apply(m, &d, 100, NULL, 0), 0);
	ck_assert_int_eq(m->plan_ps, 1);
	ck_assert_int_eq(m->plan_workers, 2);
	ck_assert_int_eq(m->phase, JM_PENDING);
	job_model_started(m, 110, 1, 2, 1);
	d = decision(PLAN_WAIT, 2, 4);
	ck_assert_int_eq(plan_apply(m, &d, 120, NULL, 0), 0);
	d = decision(PLAN_KEEP, 2, 4);
	ck_assert_int_eq(plan_apply(m, &d, 120, NULL, 0), 0);
	ck_assert_int_eq(m->plan_workers, 2);
	ck_assert_int_eq(m->phase, JM_RUNNING);
	d = decision(PLAN_RESIZE, 2, 4);
	ck_assert_int_eq(plan_apply(m, &d, 130, NULL, 0), 0);
	ck_assert_int_eq(m->phase, JM_CHECKPOINTING);
	ck_assert_int_eq(job_model_signalled(m), 130);
	ck_assert_uint_eq(m->resizes, 1);
	ck_assert_int_eq(m->plan_workers, 4);
	ck_assert_uint_eq(m->stop_for, 9);
	ck_assert_str_eq(m->stop_reason, "shrunk for JobId=9");
	job_model_free(m);
}
END_TEST

/* PREEMPT: only a running job whose run declared its checkpoint; a
 * refusal leaves the record as it was. */
START_TEST(test_preempt_needs_a_checkpoint)
{
	job_model_t *m = job_fixture_new(7, "optimus,mode=sync,batch=64,"
					 "max_ps=4,max_workers=8");
	plan_decision_t d = decision(PLAN_PREEMPT, 1, 2);
	char why[256];

	ck_assert_int_eq(plan_apply(m, &d, 100, why, sizeof(why)), -EPERM);
	job_model_started(m, 110, 1, 2, 1);
	ck_assert_int_eq(plan_apply(m, &d, 120, why, sizeof(why)), -EPERM);
	ck_assert_msg(strstr(why, "checkpoint"), "%s", why);
	ck_assert_int_eq(m->phase, JM_RUNNING);
	ck_assert_uint_eq(m->preemptions, 0);
	ck_assert_int_eq(job_model_checkpoint(m, 115, 0), 0);
	ck_assert_int_eq(plan_apply(m, &d, 120, why, sizeof(why)), 0);
	ck_assert_int_eq(m->phase, JM_CHECKPOINTING);
	ck_assert_uint_eq(m->preemptions, 1);
	ck_assert_int_eq(job_model_signalled(m), 120);
	ck_assert_uint_eq(m->stop_for, 9);
	/* checkpointing already: not again */
	ck_assert_int_eq(plan_apply(m, &d, 125, why, sizeof(why)), -EPERM);
	ck_assert_uint_eq(m->preemptions, 1);
	job_model_free(m);
}
END_TEST

/* A KEEP re-batched in place sends its change; one the record refuses is
 * not sent. */
START_TEST(test_keep_in_place_sends)
{
	static const goodput_limits_t lim = { 128, 4096, 1, 256, 3 };
	job_model_t *m = job_fixture_new(7, "optimus,mode=allreduce,"
					 "max_workers=4,batch=256,steps=1000");
	plan_decision_t d = decision(PLAN_KEEP, 0, 4);
	char why[256];

	ck_assert_int_eq(job_model_batch_limits(m, 256, &lim, NULL, 0), 0);
	ck_assert_int_eq(job_model_gradients(m, 1.0, 1000.0 / 128, 128, 1, NULL,
					     0), 0);
	job_model_started(m, 1000, 0, 4, 1);
	d.rebatch = d.in_place = true;
	d.batch = 1024;
	d.local_batch = 128;
	ck_assert_int_eq(plan_apply(m, &d, 1100, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_null(job_model_rebatch_open(m));
	d.local_batch = 256;
	ck_assert_int_eq(plan_apply(m, &d, 1100, why, sizeof(why)), 0);
	ck_assert_ptr_nonnull(job_model_rebatch_open(m));
	ck_assert_double_eq(m->batch.offer.global, 1024);
	ck_assert_int_eq(m->batch.offer.sent, 1100);
	job_model_free(m);
}
END_TEST

static Suite *plan_apply_suite(void)
{
	Suite *s = suite_create("plan_apply");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_start_resize_wait_keep);
	tcase_add_test(tc, test_preempt_needs_a_checkpoint);
	tcase_add_test(tc, test_keep_in_place_sends);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(plan_apply_suite());
}

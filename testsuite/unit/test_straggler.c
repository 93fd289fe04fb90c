/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* test_straggler.c - slow-worker detection (models/straggler.h). */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "models/straggler.h"
#include "job/job_model.h"
#include "check_run.h"

/* Noise of real step times: lognormal, 15% spread, as seen on shared nodes. */
#define NOISE_SIGMA 0.15

/* One round: every rank reports; rank `slow` (or -1) runs `factor` slower.
 * Returns what the last observation returned. */
static int round_of(straggler_t *s, const straggler_params_t *p,
		    gsl_rng *rng, int slow, double factor)
{
	size_t i;
	int rc = 0;
	char node[32];

	for (i = 0; i < s->nranks; i++) {
		double t = gsl_ran_lognormal(rng, 0, NOISE_SIGMA);

		if ((int)i == slow)
			t *= factor;
		snprintf(node, sizeof(node), "n%zu", 1 + i / 4);
		rc = straggler_observe(s, p, (int)i, node, t);
		ck_assert_int_ge(rc, 0);
	}
	return rc;
}

/* Thousands of noisy rounds of healthy workers never name a straggler. */
START_TEST(test_noise_does_not_trigger)
{
	straggler_mode_t mode = _i;
	straggler_params_t p;
	straggler_t s;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int r;

	gsl_rng_set(rng, 7);
	straggler_params_init(&p);
	ck_assert_int_eq(straggler_init(&s, mode, 8), 0);
	for (r = 0; r < 5000; r++)
		ck_assert_int_eq(round_of(&s, &p, rng, -1, 1), 0);
	ck_assert(!s.detected);
	ck_assert_uint_eq(s.rounds, 5000);
	straggler_clear(&s);
	gsl_rng_free(rng);
}
END_TEST

/* A worker 3x slower is named, with its node, after exactly K rounds. */
START_TEST(test_true_straggler_found_within_k)
{
	straggler_mode_t mode = _i;
	straggler_params_t p;
	straggler_t s;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	unsigned r;

	gsl_rng_set(rng, 11);
	straggler_params_init(&p);
	ck_assert_int_eq(straggler_init(&s, mode, 8), 0);
	for (r = 1; r < p.consecutive; r++) {
		ck_assert_int_eq(round_of(&s, &p, rng, 5, 3.0), 0);
		ck_assert(!s.detected);
	}
	ck_assert_int_eq(round_of(&s, &p, rng, 5, 3.0), 1);
	ck_assert(s.detected);
	ck_assert_int_eq(s.rank, 5);
	ck_assert_str_eq(s.node, "n2");
	ck_assert(s.slowdown > 2.0 && s.slowdown < 4.5);
	/* A new run forgets the finding. */
	ck_assert_int_eq(straggler_reset(&s, 6), 0);
	ck_assert(!s.detected);
	ck_assert_int_eq(s.rank, -1);
	straggler_clear(&s);
	gsl_rng_free(rng);
}
END_TEST

/* Slowness interrupted by a normal round starts the count again. */
START_TEST(test_interrupted_slowness_resets)
{
	static const double pattern[3] = { 3.0, 3.0, 1.0 };
	straggler_params_t p;
	straggler_t s;
	int r, k;

	straggler_params_init(&p);
	ck_assert_int_eq(straggler_init(&s, STRAGGLER_SYNC, 4), 0);
	for (r = 0; r < 150; r++)
		for (k = 0; k < 4; k++)
			ck_assert_int_eq(straggler_observe(&s, &p, k, "n1",
					 k == 2 ? pattern[r % 3] : 1.0), 0);
	ck_assert(!s.detected);
	ck_assert_uint_eq(s.rounds, 150);
	straggler_clear(&s);
}
END_TEST

/* Two workers: each is compared with the other, so the slow one is found. */
START_TEST(test_two_ranks)
{
	straggler_params_t p;
	straggler_t s;
	unsigned r;

	straggler_params_init(&p);
	ck_assert_int_eq(straggler_init(&s, STRAGGLER_SYNC, 2), 0);
	for (r = 0; r < p.consecutive; r++) {
		ck_assert_int_ge(straggler_observe(&s, &p, 0, "a", 1.0), 0);
		ck_assert_int_ge(straggler_observe(&s, &p, 1, "b", 2.0), 0);
	}
	ck_assert(s.detected);
	ck_assert_int_eq(s.rank, 1);
	ck_assert_str_eq(s.node, "b");
	ck_assert_double_eq_tol(s.slowdown, 2.0, 1e-12);
	straggler_clear(&s);
}
END_TEST

/* Async: the paper's bar is half the median speed. */
START_TEST(test_async_half_speed_bar)
{
	straggler_params_t p;
	straggler_t s;
	unsigned r;
	int k;

	straggler_params_init(&p);
	ck_assert_int_eq(straggler_init(&s, STRAGGLER_ASYNC, 3), 0);
	for (r = 0; r < 10; r++)	/* 0.6 of the speed: not a straggler */
		for (k = 0; k < 3; k++)
			straggler_observe(&s, &p, k, "n1", k == 0 ? 1 / 0.6 : 1);
	ck_assert(!s.detected);
	for (r = 0; r < p.consecutive; r++)	/* 0.4 of the speed: one */
		for (k = 0; k < 3; k++)
			straggler_observe(&s, &p, k, "n1", k == 0 ? 1 / 0.4 : 1);
	ck_assert(s.detected);
	ck_assert_int_eq(s.rank, 0);
	straggler_clear(&s);
}
END_TEST

/* Bad input is refused and changes nothing; a round needs every rank. */
START_TEST(test_bad_input_and_partial_rounds)
{
	straggler_params_t p;
	straggler_t s;
	char err[128];
	char long_node[STRAGGLER_NODE_LEN + 4];

	memset(long_node, 'x', sizeof(long_node) - 1);
	long_node[sizeof(long_node) - 1] = '\0';
	straggler_params_init(&p);
	ck_assert_int_eq(straggler_params_check(&p, err, sizeof(err)), 0);
	ck_assert_int_eq(straggler_init(&s, STRAGGLER_SYNC, 3), 0);
	ck_assert_int_eq(straggler_observe(&s, &p, 3, "n1", 1), -EINVAL);
	ck_assert_int_eq(straggler_observe(&s, &p, -1, "n1", 1), -EINVAL);
	ck_assert_int_eq(straggler_observe(&s, &p, 0, "n1", NAN), -EINVAL);
	ck_assert_int_eq(straggler_observe(&s, &p, 0, "n1", 0), -EINVAL);
	ck_assert_int_eq(straggler_observe(&s, &p, 0, "n\n1", 1), -EINVAL);
	ck_assert_int_eq(straggler_observe(&s, &p, 0, long_node, 1), -EINVAL);
	ck_assert_int_eq(straggler_observe(&s, &p, 0, "", 1), -EINVAL);
	ck_assert(!s.ranks[0].fresh);
	/* Rank 0 reporting again and again never completes a round. */
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(straggler_observe(&s, &p, 0, "n1", 9), 0);
	ck_assert_uint_eq(s.rounds, 0);
	ck_assert_int_eq(straggler_init(&s, STRAGGLER_SYNC, 0), -EINVAL);
	p.sync_factor = 1.0;
	ck_assert_int_eq(straggler_params_check(&p, err, sizeof(err)), -EINVAL);
	ck_assert(strstr(err, "sync factor") != NULL);
	straggler_params_init(&p);
	p.async_ratio = 1.5;
	ck_assert_int_eq(straggler_params_check(&p, err, sizeof(err)), -EINVAL);
	straggler_params_init(&p);
	p.consecutive = 0;
	ck_assert_int_eq(straggler_params_check(&p, err, sizeof(err)), -EINVAL);
	straggler_clear(&s);
}
END_TEST

/* The job record: worker reports name the node, which stays closed to the
 * job across a new run, shows in the summary and survives the state file. */
START_TEST(test_job_model_straggler)
{
	optimus_hints_t h;
	straggler_params_t p;
	job_model_t *m, *back;
	json_object *o;
	char err[256], text[1024];
	unsigned r;

	ck_assert_int_eq(hints_parse("optimus,mode=sync,batch=256,ps=1,workers=3",
				     &h, err, sizeof(err)), 0);
	m = job_model_new(7, 1000, &h, 100);
	straggler_params_init(&p);
	/* Not running yet: no run to report on (not bad input). */
	ck_assert_int_eq(job_model_worker_report(m, &p, 0, "n1", 1), -ESRCH);
	job_model_started(m, 200, 1, 3, 2);
	ck_assert_int_eq(job_model_worker_report(m, &p, 3, "n1", 1), -EINVAL);
	for (r = 0; r < p.consecutive; r++) {
		ck_assert_int_eq(job_model_worker_report(m, &p, 0, "n1", 1.0), 0);
		ck_assert_int_eq(job_model_worker_report(m, &p, 1, "n1", 1.1), 0);
		ck_assert_int_eq(job_model_worker_report(m, &p, 2, "n2", 2.4),
				 r + 1 == p.consecutive);
	}
	ck_assert_str_eq(m->avoid_node, "n2");
	/* A clone (refits run on clones) owns its detector. */
	back = job_model_clone(m);
	ck_assert_ptr_nonnull(back);
	ck_assert_ptr_ne(back->straggler.ranks, m->straggler.ranks);
	ck_assert_str_eq(back->straggler.ranks[2].node, "n2");
	job_model_free(back);
	ck_assert_int_eq(job_model_summary(m, NULL, text, sizeof(text)), 0);
	ck_assert_ptr_nonnull(strstr(text, " straggler=n2("));
	/* A new run detects afresh but keeps the node closed. */
	job_model_started(m, 300, 1, 3, 2);
	ck_assert(!m->straggler.detected);
	ck_assert_str_eq(m->avoid_node, "n2");
	o = job_model_to_json(m);
	ck_assert_ptr_nonnull(o);
	back = job_model_from_json(o, err, sizeof(err));
	ck_assert_msg(back != NULL, "%s", err);
	ck_assert_str_eq(back->avoid_node, "n2");
	ck_assert_double_eq_tol(back->avoid_slowdown, m->avoid_slowdown, 1e-9);
	json_object_object_add(o, "straggler", json_object_new_string("n2"));
	ck_assert_ptr_null(job_model_from_json(o, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "straggler"));
	json_object_put(o);
	job_model_free(back);
	/* Slurm requeued the run (a node failed): its workers' late reports
	 * are of a run that is over, not bad input. */
	job_model_lost_run(m, 400);
	ck_assert_int_eq(job_model_worker_report(m, &p, 0, "n1", 1), -ESRCH);
	job_model_free(m);
}
END_TEST

static Suite *straggler_suite(void)
{
	Suite *s = suite_create("straggler");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_noise_does_not_trigger, STRAGGLER_ASYNC,
			    STRAGGLER_SYNC + 1);
	tcase_add_loop_test(tc, test_true_straggler_found_within_k,
			    STRAGGLER_ASYNC, STRAGGLER_SYNC + 1);
	tcase_add_test(tc, test_interrupted_slowness_resets);
	tcase_add_test(tc, test_two_ranks);
	tcase_add_test(tc, test_async_half_speed_bar);
	tcase_add_test(tc, test_bad_input_and_partial_rounds);
	tcase_add_test(tc, test_job_model_straggler);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(straggler_suite());
}

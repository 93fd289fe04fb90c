/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* test_allreduce_speed.c - all-reduce speed model: form, fit, JSON. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "models/allreduce_speed.h"
#include "models/model_json.h"
#include "check_run.h"

/* compute per example, fixed, intra-node ring, cross-node jump, per worker */
static const double th[ALLREDUCE_NTHETA] = { 0.002, 0.01, 0.05, 0.2, 0.001 };

static void truth(speed_model_t *t)
{
	ck_assert_int_eq(allreduce_speed_init(t, 256), 0);
	ck_assert_int_eq(speed_model_set_theta(t, th, ALLREDUCE_NTHETA), 0);
}

/* The documented form, term by term. */
START_TEST(test_form)
{
	speed_model_t t;
	double one = 0.002 * 256 + 0.01 + 0.001;
	double four_one = 0.002 * 64 + 0.01 + 0.05 * 0.75 + 0.001 * 4;
	double four_two = four_one + 0.2 * 0.75;

	truth(&t);
	ck_assert_double_eq_tol(allreduce_speed_predict(&t, 1, 1), 1 / one,
				1e-12);
	ck_assert_double_eq_tol(allreduce_speed_predict(&t, 4, 1),
				1 / four_one, 1e-12);
	ck_assert_double_eq_tol(allreduce_speed_predict(&t, 4, 2),
				1 / four_two, 1e-12);
	/* spanning nodes costs speed; more nodes than workers is invalid */
	ck_assert(allreduce_speed_predict(&t, 8, 2) <
		  allreduce_speed_predict(&t, 8, 1));
	ck_assert_double_eq(allreduce_speed_predict(&t, 2, 3), 0.0);
	ck_assert_double_eq(allreduce_speed_predict(&t, 0, 1), 0.0);
	ck_assert_double_eq(allreduce_speed_predict(&t, 2, 0), 0.0);
	ck_assert_str_eq(speed_mode_name(t.mode), "allreduce");
	speed_model_clear(&t);
}
END_TEST

/* Noiseless samples on few placements: the fit reproduces f on a grid of
 * up to 32 workers on up to 8 nodes. */
START_TEST(test_fit_recovers_truth)
{
	static const int wn[][2] = { { 1, 1 }, { 2, 1 }, { 4, 1 }, { 2, 2 },
				     { 4, 2 }, { 8, 2 }, { 8, 4 }, { 16, 4 } };
	speed_model_t t, m;
	size_t i;
	int w, n;

	truth(&t);
	allreduce_speed_init(&m, 256);
	for (i = 0; i < sizeof(wn) / sizeof(wn[0]); i++)
		ck_assert_int_eq(allreduce_speed_add_sample(&m, wn[i][0],
				 wn[i][1], allreduce_speed_predict(&t,
				 wn[i][0], wn[i][1])), 0);
	ck_assert_int_eq(allreduce_speed_fit(&m), 0);
	for (w = 1; w <= 32; w++)
		for (n = 1; n <= w && n <= 8; n++)
			ck_assert_double_eq_tol(allreduce_speed_predict(&m, w, n),
				allreduce_speed_predict(&t, w, n),
				1e-6 * allreduce_speed_predict(&t, w, n));
	ck_assert(m.rel_rms < 1e-8);
	speed_model_clear(&m);
}
END_TEST

/* 10 samples with 3% noise: mean relative error below 10%. */
START_TEST(test_fit_noisy)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	speed_model_t t, m;
	double err = 0, cnt = 0;
	int i, w, n;

	truth(&t);
	allreduce_speed_init(&m, 256);
	for (i = 0; i < 10; i++) {
		w = 1 + gsl_rng_uniform_int(rng, 16);
		n = 1 + gsl_rng_uniform_int(rng, w < 4 ? w : 4);
		ck_assert_int_eq(allreduce_speed_add_sample(&m, w, n,
				 allreduce_speed_predict(&t, w, n) *
				 (1 + gsl_ran_gaussian(rng, 0.03))), 0);
	}
	ck_assert_int_eq(allreduce_speed_fit(&m), 0);
	for (w = 1; w <= 16; w++)
		for (n = 1; n <= w && n <= 4; n++, cnt++)
			err += fabs(allreduce_speed_predict(&m, w, n) /
				    allreduce_speed_predict(&t, w, n) - 1);
	ck_assert_msg(err / cnt < 0.10, "mean error %g", err / cnt);
	speed_model_clear(&m);
	gsl_rng_free(rng);
}
END_TEST

START_TEST(test_bad_input)
{
	speed_model_t m, ps;

	ck_assert_int_eq(allreduce_speed_init(&m, 0), -EINVAL);
	ck_assert_int_eq(allreduce_speed_init(&m, NAN), -EINVAL);
	ck_assert_int_eq(allreduce_speed_init(&m, 64), 0);
	ck_assert_int_eq(allreduce_speed_fit(&m), -ENODATA);
	ck_assert_int_eq(allreduce_speed_add_sample(&m, 2, 3, 1.0), -EINVAL);
	ck_assert_int_eq(allreduce_speed_add_sample(&m, 2, 0, 1.0), -EINVAL);
	ck_assert_int_eq(allreduce_speed_add_sample(&m, 2, 1, 0.0), -EINVAL);
	ck_assert_int_eq(allreduce_speed_add_sample(&m, 2, 1, INFINITY),
			 -EINVAL);
	ck_assert_double_eq(allreduce_speed_predict(&m, 2, 1), 0.0);
	/* the PS model is not an all-reduce one */
	speed_model_init(&ps, SPEED_SYNC, 64);
	ck_assert_int_eq(allreduce_speed_add_sample(&ps, 2, 1, 1.0), -EINVAL);
	ck_assert_int_eq(allreduce_speed_fit(&ps), -EINVAL);
	ck_assert_double_eq(allreduce_speed_predict(&ps, 1, 1), 0.0);
	ck_assert_int_eq(allreduce_min_nodes(9, 4), 3);
	ck_assert_int_eq(allreduce_min_nodes(8, 4), 2);
	ck_assert_int_eq(allreduce_min_nodes(3, 0), 3);
	speed_model_clear(&m);
}
END_TEST

/* JSON state round-trips with mode "allreduce", samples and fit. */
START_TEST(test_json_roundtrip)
{
	speed_model_t t, m, back;
	json_object *o;
	char err[256];
	int w;

	truth(&t);
	allreduce_speed_init(&m, 256);
	for (w = 1; w <= 8; w++)
		allreduce_speed_add_sample(&m, w, w > 4 ? 2 : 1,
					   allreduce_speed_predict(&t, w,
					   w > 4 ? 2 : 1));
	ck_assert_int_eq(allreduce_speed_fit(&m), 0);
	o = json_tokener_parse(json_object_to_json_string(
			       speed_model_to_json(&m)));
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(speed_model_from_json(o, &back, err, sizeof(err)), 0);
	ck_assert_int_eq(back.mode, SPEED_ALLREDUCE);
	ck_assert_uint_eq(back.nsamples, 8);
	ck_assert_double_eq_tol(allreduce_speed_predict(&back, 6, 2),
				allreduce_speed_predict(&m, 6, 2), 1e-9);
	json_object_put(o);
	o = json_tokener_parse("{\"mode\":\"allreduce\",\"batch\":0,"
			       "\"samples\":[],\"fit\":null}");
	ck_assert_int_eq(speed_model_from_json(o, &back, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "allreduce"), "%s", err);
	json_object_put(o);
	speed_model_clear(&m);
	speed_model_clear(&back);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("allreduce_speed");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_form);
	tcase_add_test(tc, test_fit_recovers_truth);
	tcase_add_test(tc, test_fit_noisy);
	tcase_add_test(tc, test_bad_input);
	tcase_add_test(tc, test_json_roundtrip);
	suite_add_tcase(s, tc);
	return check_run(s);
}

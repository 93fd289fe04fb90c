/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* test_model_json.c - JSON round trips and strict rejection of bad input. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/model_json.h"
#include "check_run.h"

/* Serialise, parse the text back, serialise again: same text. */
static const char *roundtrip_text(json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
}

START_TEST(test_convergence_roundtrip)
{
	convergence_t *c = convergence_new(NULL), *d = NULL;
	json_object *o, *p;
	char err[200];
	int s;

	for (s = 0; s < 300; s++)
		convergence_add(c, s, 1.0 / (0.01 * s + 1) + 0.1);
	ck_assert_int_eq(convergence_fit(c), 0);
	o = convergence_to_json(c);
	p = json_tokener_parse(roundtrip_text(o));
	ck_assert_int_eq(convergence_from_json(p, &d, err, sizeof(err)), 0);
	ck_assert_uint_eq(d->n, c->n);
	ck_assert(d->fitted);
	ck_assert_double_eq_tol(convergence_predict(d, 500),
				convergence_predict(c, 500), 1e-9);
	ck_assert_str_eq(roundtrip_text(convergence_to_json(d)),
			 roundtrip_text(o));
	convergence_free(c);
	convergence_free(d);
}
END_TEST

START_TEST(test_speed_roundtrip)
{
	speed_profiles_t *reg = speed_profiles_new(), *back = NULL;
	speed_model_t m, n;
	json_object *o;
	char err[200];
	int p, w;

	speed_model_init(&m, SPEED_SYNC, 256);
	for (p = 1; p < 4; p++)
		for (w = 1; w < 6; w++)
			speed_model_add_sample(&m, p, w, 10.0 * w / (p + w));
	speed_model_add_sample(&m, 1, 1, 6.0);
	speed_model_fit(&m);
	o = json_tokener_parse(roundtrip_text(speed_model_to_json(&m)));
	ck_assert_int_eq(speed_model_from_json(o, &n, err, sizeof(err)), 0);
	ck_assert_uint_eq(n.nsamples, m.nsamples);
	ck_assert_uint_eq(n.samples[0].count, 2);
	ck_assert_double_eq_tol(speed_model_eval(&n, 3, 7),
				speed_model_eval(&m, 3, 7), 1e-9);
	speed_profiles_merge(reg, 1000, "bert", &m);
	speed_profiles_merge(reg, 1001, "bert", &m);
	speed_profiles_merge(reg, 0, "alexnet", &m);
	o = json_tokener_parse(roundtrip_text(speed_profiles_to_json(reg)));
	ck_assert_int_eq(speed_profiles_from_json(o, &back, err, sizeof(err)), 0);
	ck_assert_uint_eq(back->n, 3);
	ck_assert_ptr_nonnull(speed_profiles_own(back, 1001, "bert"));
	ck_assert_ptr_null(speed_profiles_own(back, 0, "bert"));
	ck_assert_double_eq_tol(speed_model_eval(speed_profiles_get(back, 1000,
								    "bert"),
						 2, 2), speed_model_eval(&m, 2, 2),
				1e-9);
	speed_model_clear(&m);
	speed_model_clear(&n);
	speed_profiles_free(reg);
	speed_profiles_free(back);
}
END_TEST

START_TEST(test_quality_roundtrip)
{
	quality_model_t q, r;
	json_object *o;
	char err[200];
	int k;

	quality_model_init(&q, 0.99, 64);
	for (k = 1; k < 100; k++)
		quality_model_add_loss(&q, k, 2.0 / sqrt(k) + 0.1);
	for (k = 1; k < 80; k++)	/* wraps the cost ring */
		quality_model_add_cost(&q, k, 0.01 * k);
	ck_assert_int_eq(quality_model_fit(&q), 0);
	o = json_tokener_parse(roundtrip_text(quality_model_to_json(&q)));
	ck_assert_int_eq(quality_model_from_json(o, &r, err, sizeof(err)), 0);
	ck_assert_uint_eq(r.n, q.n);
	ck_assert_double_eq(r.data_size, q.data_size);
	ck_assert_double_eq_tol(quality_model_loss_after(&r, 10, 2),
				quality_model_loss_after(&q, 10, 2), 1e-12);
	quality_model_clear(&q);
	quality_model_clear(&r);
}
END_TEST

/* Each bad document is rejected with a message, never a crash. */
static const char *const bad_conv[] = {
	"[]", "{}", "{\"cfg\":5}",
	"{\"cfg\":{\"form\":\"cubic\",\"criterion\":\"decrease\",\"delta\":0.1,"
	"\"window\":1,\"max_points\":64,\"avg_steps\":0,\"min_points\":8,"
	"\"outlier_span\":5,\"drop_frac\":0.1,\"drop_confirm\":3}}",
	"{\"cfg\":{\"form\":\"inverse\",\"criterion\":\"decrease\",\"delta\":-1,"
	"\"window\":1,\"max_points\":64,\"avg_steps\":0,\"min_points\":8,"
	"\"outlier_span\":5,\"drop_frac\":0.1,\"drop_confirm\":3}}",
	"{\"cfg\":{\"form\":\"inverse\",\"criterion\":\"decrease\",\"delta\":0.1,"
	"\"window\":1,\"max_points\":64,\"avg_steps\":0,\"min_points\":8,"
	"\"outlier_span\":5,\"drop_frac\":0.1,\"drop_confirm\":3},"
	"\"origin\":0,\"resets\":0,\"points\":[[1,1,1],[0,1,1]]}",
	"{\"cfg\":{\"form\":\"inverse\",\"criterion\":\"decrease\",\"delta\":0.1,"
	"\"window\":1,\"max_points\":64,\"avg_steps\":0,\"min_points\":8,"
	"\"outlier_span\":5,\"drop_frac\":0.1,\"drop_confirm\":3},"
	"\"origin\":0,\"resets\":0,\"points\":[[1,\"x\",1]]}",
	"{\"cfg\":{\"form\":\"inverse\",\"criterion\":\"decrease\",\"delta\":0.1,"
	"\"window\":1,\"max_points\":64,\"avg_steps\":0,\"min_points\":8,"
	"\"outlier_span\":5,\"drop_frac\":0.1,\"drop_confirm\":3},"
	"\"origin\":0,\"resets\":0,\"points\":[],\"fit\":{\"form\":\"power\","
	"\"c\":[1,1,1],\"rms\":0}}",
};

static const char *const bad_speed[] = {
	"null", "{\"mode\":\"sync\",\"batch\":0,\"samples\":[]}",
	"{\"mode\":\"both\",\"batch\":1,\"samples\":[]}",
	"{\"mode\":\"async\",\"batch\":0,\"samples\":[[0,1,1,1]]}",
	"{\"mode\":\"async\",\"batch\":0,\"samples\":[[1.5,1,1,1]]}",
	"{\"mode\":\"async\",\"batch\":0,\"samples\":[[1,1,-3,1]]}",
	"{\"mode\":\"async\",\"batch\":0,\"samples\":[[1,1,3]]}",
	"{\"mode\":\"async\",\"batch\":0,\"samples\":{}}",
	"{\"mode\":\"async\",\"batch\":0,\"samples\":[],\"fit\":"
	"{\"theta\":[1,2,3],\"rel_rms\":0,\"r2\":null}}",
	"{\"mode\":\"async\",\"batch\":0,\"samples\":[],\"fit\":"
	"{\"theta\":[1,2,3,-4],\"rel_rms\":0,\"r2\":null}}",
};

static const char *const bad_profiles[] = {
	"{\"profiles\":[{\"name\":\"a\",\"model\":{\"mode\":\"async\","
	"\"batch\":0,\"samples\":[]}},{\"name\":\"a\",\"model\":{\"mode\":"
	"\"async\",\"batch\":0,\"samples\":[]}}]}",
	"{\"profiles\":[{\"name\":\"\",\"model\":{\"mode\":\"async\","
	"\"batch\":0,\"samples\":[]}}]}",
	"{\"profiles\":[{\"name\":7}]}", "{\"profiles\":3}",
	"{\"profiles\":[{\"name\":\"a\",\"owner\":-1,\"model\":{\"mode\":"
	"\"async\",\"batch\":0,\"samples\":[]}}]}",
	"{\"profiles\":[{\"name\":\"a\",\"owner\":\"root\",\"model\":{"
	"\"mode\":\"async\",\"batch\":0,\"samples\":[]}}]}",
};

static const char *const bad_quality[] = {
	"{\"decay\":0,\"cap\":64,\"points\":[],\"cost\":[],\"cost_c\":0}",
	"{\"decay\":0.9,\"cap\":64,\"points\":[[0,1]],\"cost\":[],\"cost_c\":0}",
	"{\"decay\":0.9,\"cap\":64,\"points\":[[2,1],[1,1]],\"cost\":[],"
	"\"cost_c\":0}",
	"{\"decay\":0.9,\"cap\":64,\"points\":[],\"cost\":[[1,0]],\"cost_c\":0}",
	"{\"decay\":0.9,\"cap\":64,\"points\":[],\"cost\":[],\"cost_c\":-1}",
	"{\"decay\":0.9,\"cap\":64,\"points\":[],\"cost\":[],\"cost_c\":1,"
	"\"fit\":{\"form\":\"power\",\"c\":[1,1],\"rms\":0}}",
};

START_TEST(test_bad_documents)
{
	char err[200];
	size_t i;

	for (i = 0; i < sizeof(bad_conv) / sizeof(*bad_conv); i++) {
		convergence_t *c = NULL;

		err[0] = 0;
		ck_assert_int_eq(convergence_from_json(json_tokener_parse(
				 bad_conv[i]), &c, err, sizeof(err)), -EINVAL);
		ck_assert_msg(err[0], "no message for conv %zu", i);
		ck_assert_ptr_null(c);
	}
	for (i = 0; i < sizeof(bad_speed) / sizeof(*bad_speed); i++) {
		speed_model_t m;

		err[0] = 0;
		ck_assert_int_eq(speed_model_from_json(json_tokener_parse(
				 bad_speed[i]), &m, err, sizeof(err)), -EINVAL);
		ck_assert_msg(err[0], "no message for speed %zu", i);
	}
	for (i = 0; i < sizeof(bad_profiles) / sizeof(*bad_profiles); i++) {
		speed_profiles_t *r = NULL;

		ck_assert_int_eq(speed_profiles_from_json(json_tokener_parse(
				 bad_profiles[i]), &r, err, sizeof(err)), -EINVAL);
		ck_assert_ptr_null(r);
	}
	for (i = 0; i < sizeof(bad_quality) / sizeof(*bad_quality); i++) {
		quality_model_t q;

		err[0] = 0;
		ck_assert_int_eq(quality_model_from_json(json_tokener_parse(
				 bad_quality[i]), &q, err, sizeof(err)), -EINVAL);
		ck_assert_msg(err[0], "no message for quality %zu", i);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("model_json");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_convergence_roundtrip);
	tcase_add_test(tc, test_speed_roundtrip);
	tcase_add_test(tc, test_quality_roundtrip);
	tcase_add_test(tc, test_bad_documents);
	suite_add_tcase(s, tc);
	return check_run(s);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* test_speed.c - Optimus speed model (async/sync) and shared profiles. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "models/speed_model.h"
#include "models/speed_profiles.h"
#include "check_run.h"

static const double th_async[4] = { 0.5, 0.3, 0.02, 0.05 };
static const double th_sync[5] = { 0.004, 0.2, 0.1, 0.01, 0.03 };

static void truth(speed_model_t *t, speed_mode_t mode)
{
	speed_model_init(t, mode, 512);
	speed_model_set_theta(t, mode == SPEED_SYNC ? th_sync : th_async,
			      mode == SPEED_SYNC ? 5 : 4);
}

/* Noiseless samples: the fit reproduces f everywhere on a 1..16 grid. */
START_TEST(test_fit_recovers_truth)
{
	speed_mode_t mode = _i;
	speed_model_t t, m;
	int p, w;

	truth(&t, mode);
	speed_model_init(&m, mode, 512);
	for (p = 1; p <= 8; p += 3)
		for (w = 1; w <= 16; w += 4)
			ck_assert_int_eq(speed_model_add_sample(&m, p, w,
					 speed_model_eval(&t, p, w)), 0);
	ck_assert_int_eq(speed_model_fit(&m), 0);
	for (p = 1; p <= 16; p++)
		for (w = 1; w <= 16; w++)
			ck_assert_double_eq_tol(speed_model_eval(&m, p, w),
						speed_model_eval(&t, p, w),
						1e-6 * speed_model_eval(&t, p, w));
	ck_assert(m.rel_rms < 1e-8);
	ck_assert_double_eq_tol(m.r2, 1.0, 1e-8);
	ck_assert_double_eq(speed_model_fn(&m, 2, 3), speed_model_eval(&m, 2, 3));
	speed_model_clear(&m);
}
END_TEST

/* Noisy samples: relative error below 10% with 10 samples; fit quality
 * figures reflect the noise. */
START_TEST(test_fit_noisy)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	speed_model_t t, m;
	double err = 0;
	int i, p, w;

	truth(&t, SPEED_ASYNC);
	speed_model_init(&m, SPEED_ASYNC, 0);
	for (i = 0; i < 10; i++) {
		p = 1 + gsl_rng_uniform_int(rng, 10);
		w = 1 + gsl_rng_uniform_int(rng, 20);
		speed_model_add_sample(&m, p, w, speed_model_eval(&t, p, w) *
				       (1 + gsl_ran_gaussian(rng, 0.03)));
	}
	ck_assert_int_eq(speed_model_fit(&m), 0);
	for (p = 1; p <= 10; p++)
		for (w = 1; w <= 20; w++)
			err += fabs(speed_model_eval(&m, p, w) /
				    speed_model_eval(&t, p, w) - 1) / 200;
	ck_assert_msg(err < 0.10, "mean error %g", err);
	ck_assert(m.rel_rms > 0 && m.rel_rms < 0.1);
	speed_model_clear(&m);
	gsl_rng_free(rng);
}
END_TEST

START_TEST(test_repeated_samples_averaged)
{
	speed_model_t m;

	speed_model_init(&m, SPEED_ASYNC, 0);
	speed_model_add_sample(&m, 2, 4, 10.0);
	speed_model_add_sample(&m, 2, 4, 14.0);
	speed_model_add_sample(&m, 1, 4, 9.0);
	ck_assert_uint_eq(m.nsamples, 2);
	ck_assert_double_eq(speed_sample_mean(&m.samples[0]), 12.0);
	ck_assert_uint_eq(m.samples[0].count, 2);
	/* one sample: fitted, R^2 undefined */
	speed_model_clear(&m);
	speed_model_add_sample(&m, 1, 1, 3.0);
	ck_assert_int_eq(speed_model_fit(&m), 0);
	ck_assert(isnan(m.r2));
	ck_assert_double_eq_tol(speed_model_eval(&m, 1, 1), 3.0, 1e-9);
	speed_model_clear(&m);
}
END_TEST

START_TEST(test_bad_input)
{
	speed_model_t m, s;
	double th[4] = { 1, -1, 0, 0 };

	ck_assert_int_eq(speed_model_init(&m, SPEED_SYNC, 0), -EINVAL);
	ck_assert_int_eq(speed_model_init(&m, 5, 1), -EINVAL);
	speed_model_init(&m, SPEED_ASYNC, 0);
	ck_assert_int_eq(speed_model_fit(&m), -ENODATA);
	ck_assert_double_eq(speed_model_eval(&m, 1, 1), 0.0);
	ck_assert_int_eq(speed_model_add_sample(&m, 0, 1, 1), -EINVAL);
	ck_assert_int_eq(speed_model_add_sample(&m, 1, 1, 0), -EINVAL);
	ck_assert_int_eq(speed_model_add_sample(&m, 1, 1, NAN), -EINVAL);
	ck_assert_int_eq(speed_model_set_theta(&m, th, 4), -EINVAL);
	ck_assert_int_eq(speed_model_set_theta(&m, th, 5), -EINVAL);
	speed_model_init(&s, SPEED_SYNC, 64);
	ck_assert_int_eq(speed_model_merge(&m, &s), -EINVAL);
	th[1] = 1;
	speed_model_set_theta(&m, th, 4);
	ck_assert_double_eq(speed_model_eval(&m, 0, 1), 0.0);
	ck_assert_double_eq(speed_model_eval(&m, 1, -1), 0.0);
	ck_assert(speed_model_eval(&m, 1, 1) > 0);
}
END_TEST

/* Two jobs of the same model share samples; another name stays apart. */
START_TEST(test_profiles)
{
	speed_profiles_t *reg = speed_profiles_new();
	speed_model_t t, a, b, c;
	const speed_model_t *pr;
	int p, w;

	truth(&t, SPEED_SYNC);
	speed_model_init(&a, SPEED_SYNC, 512);
	speed_model_init(&b, SPEED_SYNC, 512);
	speed_model_init(&c, SPEED_SYNC, 256);
	for (p = 1; p <= 4; p++) {
		for (w = 1; w <= 8; w += 3) {
			speed_model_add_sample(p % 2 ? &a : &b, p, w,
					       speed_model_eval(&t, p, w));
			speed_model_add_sample(&c, p, w, 1.0);
		}
	}
	ck_assert_int_eq(speed_profiles_merge(reg, 1000, "resnet50", &a), 0);
	ck_assert_int_eq(speed_profiles_merge(reg, 1000, "resnet50", &b), 0);
	ck_assert_int_eq(speed_profiles_merge(reg, 1000, "alexnet", &c), 0);
	ck_assert_int_eq(speed_profiles_merge(reg, 1000, "zeta", &c), 0);
	ck_assert_int_eq(speed_profiles_merge(reg, 1000, "resnet50", &c), -EINVAL);
	ck_assert_int_eq(speed_profiles_merge(reg, 1000, "", &c), -EINVAL);
	ck_assert_int_eq(speed_profiles_merge(reg, 1000, "bad\nname", &c), -EINVAL);
	ck_assert_uint_eq(reg->n, 3);
	ck_assert_str_eq(reg->v[0].name, "alexnet");
	ck_assert_str_eq(reg->v[2].name, "zeta");
	pr = speed_profiles_get(reg, 1000, "resnet50");
	ck_assert_ptr_nonnull(pr);
	ck_assert_uint_eq(pr->nsamples, a.nsamples + b.nsamples);
	ck_assert_double_eq_tol(speed_model_fn(pr, 6, 12),
				speed_model_eval(&t, 6, 12),
				1e-6 * speed_model_eval(&t, 6, 12));
	ck_assert_ptr_null(speed_profiles_get(reg, 1000, "vgg"));
	speed_model_clear(&a);
	speed_model_clear(&b);
	speed_model_clear(&c);
	speed_profiles_free(reg);
}
END_TEST

/*
 * A profile is its owner's: another user's samples of the same name never
 * reach a job (they merged into the name alone, a held job's 800 flat
 * samples sized another user's job to one worker). A published profile is
 * read by every user without one of its own; the published owner's
 * samples only.
 */
START_TEST(test_profiles_per_user)
{
	speed_profiles_t *reg = speed_profiles_new();
	speed_model_t t, own, flat;
	speed_profile_pub_t pub = { .name = "sharednet", .owner = 1001 };
	speed_profile_pub_t twice[2] = { pub, pub };
	const speed_model_t *pr;

	truth(&t, SPEED_SYNC);
	speed_model_init(&own, SPEED_SYNC, 512);
	speed_model_init(&flat, SPEED_SYNC, 512);
	for (int p = 1; p <= 4; p++)
		for (int w = 1; w <= 16; w += 3) {
			speed_model_add_sample(&own, p, w,
					       speed_model_eval(&t, p, w));
			speed_model_add_sample(&flat, p, w, 1.0);
		}
	ck_assert_int_eq(speed_profiles_merge(reg, 1001, "sharednet", &flat),
			 0);
	ck_assert_int_eq(speed_profiles_merge(reg, 1000, "sharednet", &own),
			 0);
	ck_assert_uint_eq(reg->n, 2);
	/* each user reads its own */
	pr = speed_profiles_get(reg, 1000, "sharednet");
	ck_assert_ptr_nonnull(pr);
	ck_assert_uint_eq(pr->nsamples, own.nsamples);
	ck_assert_double_eq_tol(speed_model_fn(pr, 2, 12),
				speed_model_eval(&t, 2, 12),
				1e-6 * speed_model_eval(&t, 2, 12));
	ck_assert_ptr_eq(speed_profiles_get(reg, 1001, "sharednet"),
			 speed_profiles_own(reg, 1001, "sharednet"));
	/* a third user has none, until one is published */
	ck_assert_ptr_null(speed_profiles_get(reg, 1002, "sharednet"));
	ck_assert_int_eq(speed_profiles_publish(reg, &pub, 1), 0);
	ck_assert_ptr_eq(speed_profiles_get(reg, 1002, "sharednet"),
			 speed_profiles_own(reg, 1001, "sharednet"));
	/* a user's own still comes first */
	ck_assert_ptr_eq(speed_profiles_get(reg, 1000, "sharednet"),
			 speed_profiles_own(reg, 1000, "sharednet"));
	/* a name twice, a bad name: refused, the publication kept */
	ck_assert_int_eq(speed_profiles_publish(reg, twice, 2), -EINVAL);
	snprintf(pub.name, sizeof(pub.name), "bad\nname");
	ck_assert_int_eq(speed_profiles_publish(reg, &pub, 1), -EINVAL);
	ck_assert_uint_eq(reg->npub, 1);
	ck_assert_int_eq(speed_profiles_publish(reg, NULL, 0), 0);
	ck_assert_ptr_null(speed_profiles_get(reg, 1002, "sharednet"));
	speed_model_clear(&t);
	speed_model_clear(&own);
	speed_model_clear(&flat);
	speed_profiles_free(reg);
}
END_TEST

/* optimus.conf's PublishProfiles=: NAME@USER pairs, users resolved;
 * each bad pair refused, naming it. */
static int fake_uid(void *arg, const char *user, uint32_t *uid)
{
	(void)arg;
	if (!strcmp(user, "root") || !strcmp(user, "0")) {
		*uid = 0;
		return 0;
	}
	if (!strcmp(user, "alice")) {
		*uid = 1000;
		return 0;
	}
	return -ENOENT;
}

START_TEST(test_profiles_parse_pub)
{
	speed_profile_pub_t pub[SPEED_PROFILES_PUBLISHED_MAX];
	char err[256], many[8192] = "";
	size_t n = 7;

	ck_assert_int_eq(speed_profiles_parse_pub("", fake_uid, NULL, pub, &n,
						  err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(speed_profiles_parse_pub("resnet@root,bert@alice",
						  fake_uid, NULL, pub, &n, err,
						  sizeof(err)), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(pub[1].name, "bert");
	ck_assert_uint_eq(pub[1].owner, 1000);
	ck_assert_int_eq(speed_profiles_parse_pub("resnet", fake_uid, NULL,
						  pub, &n, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "'resnet' is not NAME@USER"), "%s", err);
	ck_assert_int_eq(speed_profiles_parse_pub("a@bob", fake_uid, NULL,
						  pub, &n, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "no such user"), "%s", err);
	ck_assert_int_eq(speed_profiles_parse_pub("a@root,a@alice", fake_uid,
						  NULL, pub, &n, err,
						  sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "a published twice"), "%s", err);
	ck_assert_int_eq(speed_profiles_parse_pub("@root", fake_uid, NULL, pub,
						  &n, err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(speed_profiles_parse_pub("a b@root", fake_uid, NULL,
						  pub, &n, err, sizeof(err)),
			 -EINVAL);
	for (int k = 0; k <= SPEED_PROFILES_PUBLISHED_MAX; k++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many),
			 "%sm%d@root", k ? "," : "", k);
	ck_assert_int_eq(speed_profiles_parse_pub(many, fake_uid, NULL, pub,
						  &n, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "more than"), "%s", err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("speed");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_fit_recovers_truth, 0, 2);
	tcase_add_test(tc, test_profiles_per_user);
	tcase_add_test(tc, test_profiles_parse_pub);
	tcase_add_test(tc, test_fit_noisy);
	tcase_add_test(tc, test_repeated_samples_averaged);
	tcase_add_test(tc, test_bad_input);
	tcase_add_test(tc, test_profiles);
	suite_add_tcase(s, tc);
	return check_run(s);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* test_convergence.c - curve fits and the Optimus convergence model:
 * outlier filter, normalisation, forms, criteria, bounded memory,
 * per-bucket averaging, learning-rate drop reset, real recorded curves. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "models/convergence.h"
#include "models/curve_fit.h"
#include "check_run.h"

static double truth_eval(curve_form_t form, const double *c, double k)
{
	curve_coef_t f = { form, { c[0], c[1], c[2] }, 0 };

	return curve_eval(&f, k);
}

/* Noiseless points of each form are recovered exactly. */
START_TEST(test_curve_fit_forms)
{
	static const double truth[3][3] = {
		{ 0.01, 1.0, 0.1 }, { 2.0, 0.7, 0.05 }, { 0.9, 0.003, 0.2 },
	};
	curve_form_t form = _i;
	double k[100], l[100];
	curve_coef_t f;
	int i;

	for (i = 0; i < 100; i++) {
		k[i] = 10.0 * (i + 1);
		l[i] = truth_eval(form, truth[form], k[i]);
	}
	ck_assert_int_eq(curve_fit(form, k, l, NULL, 100, &f), 0);
	ck_assert_int_eq(f.form, form);
	for (i = 0; i < 100; i += 7)
		ck_assert_double_eq_tol(curve_eval(&f, k[i]), l[i], 1e-4 * l[i]);
	ck_assert_double_eq_tol(f.c[2], truth[form][2], 1e-3);
	ck_assert(f.c[0] >= 0 && f.c[1] >= 0 && f.c[2] >= 0);
	ck_assert(f.rms < 1e-4);
}
END_TEST

START_TEST(test_curve_fit_bad_input)
{
	double k[4] = { 1, 2, 3, 4 }, l[4] = { 1, 0.5, 0.4, 0.3 };
	double w[4] = { 1, 1, -1, 1 }, z[4] = { 0 };
	curve_coef_t f;
	curve_form_t form;

	ck_assert_int_eq(curve_fit(CURVE_INVERSE, k, l, NULL, 2, &f), -ENODATA);
	ck_assert_int_eq(curve_fit(CURVE_INVERSE, k, l, w, 4, &f), -EINVAL);
	ck_assert_int_eq(curve_fit(CURVE_INVERSE, k, l, z, 4, &f), -ENODATA);
	ck_assert_int_eq(curve_fit(7, k, l, NULL, 4, &f), -EINVAL);
	k[1] = -1;
	ck_assert_int_eq(curve_fit(CURVE_POWER, k, l, NULL, 4, &f), -EINVAL);
	k[1] = 2;
	l[3] = 0.0;	/* l - c2 > 0 impossible with c2 >= 0 */
	ck_assert_int_eq(curve_fit(CURVE_INVERSE, k, l, NULL, 4, &f), -EDOM);
	l[3] = NAN;
	ck_assert_int_eq(curve_fit(CURVE_INVERSE, k, l, NULL, 4, &f), -EINVAL);
	ck_assert_int_eq(curve_form_parse("Power", &form), 0);
	ck_assert_int_eq(form, CURVE_POWER);
	ck_assert_int_eq(curve_form_parse("cubic", &form), -EINVAL);
	ck_assert_str_eq(curve_form_name(CURVE_EXP), "exp");
}
END_TEST

START_TEST(test_thresholds)
{
	curve_coef_t f = { CURVE_INVERSE, { 0.01, 1.0, 0.1 }, 0 };
	double k = curve_k_near_asymptote(&f, 1.0, 0.01);
	double kd = curve_k_decrease_below(&f, 1.0, 10.0, 1e-3);

	/* 1/(0.01k+1) = 0.01  <=>  k = 9900 */
	ck_assert_double_eq_tol(k, 9900.0, 1e-2);
	ck_assert(curve_eval(&f, kd) - curve_eval(&f, kd + 10) <= 1e-3 + 1e-12);
	ck_assert(curve_eval(&f, kd - 1) - curve_eval(&f, kd + 9) > 1e-3);
	/* Already converged: k_from itself. */
	ck_assert_double_eq(curve_k_near_asymptote(&f, 20000.0, 0.01), 20000.0);
	/* A flat-but-above-threshold curve never converges. */
	f = (curve_coef_t){ CURVE_EXP, { 1.0, 0.0, 0.0 }, 0 };
	ck_assert(isinf(curve_k_near_asymptote(&f, 1.0, 0.5)));
}
END_TEST

START_TEST(test_filter)
{
	double l[12] = { 1.0, 0.9, 0.8, 2.5, 0.7, 0.65, 0.1, 0.6, 0.58, 0.57,
			 0.56, 0.55 };
	unsigned char keep[12];
	int i;

	convergence_filter(l, 12, 5, keep);
	ck_assert(!keep[3]);	/* spike up: above max of previous 5 */
	ck_assert(!keep[6]);	/* spike down: below min of next 5 */
	for (i = 0; i < 12; i++)
		if (i != 3 && i != 6)
			ck_assert_msg(keep[i], "point %d dropped", i);
	convergence_filter(l, 12, 0, keep);
	for (i = 0; i < 12; i++)
		ck_assert(keep[i]);
}
END_TEST

/* Noisy inverse curve with spikes: remaining steps within 10% of truth
 * once 40% of the way; normalisation by the max loss. */
START_TEST(test_remaining_steps_synthetic)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	curve_coef_t t = { CURVE_INVERSE, { 0.002, 0.5, 0.3 }, 0 };
	convergence_cfg_t cfg;
	convergence_t *c;
	double k_end, rem, step;

	convergence_cfg_default(&cfg);
	cfg.delta = 1e-4;
	cfg.window = 10;
	c = convergence_new(&cfg);
	/* truth in normalised units: loss / loss(k=1) */
	k_end = curve_k_decrease_below(&t, 1.0, 10.0, 1e-4 * curve_eval(&t, 1));
	for (step = 0; step < 0.4 * k_end; step += 10) {
		double l = curve_eval(&t, step + 1) *
			   (1 + gsl_ran_gaussian(rng, 0.01));
		if ((int)step % 370 == 0 && step > 0)
			l *= 3;	/* outlier */
		ck_assert_int_eq(convergence_add(c, step, l), 0);
	}
	ck_assert_int_eq(convergence_fit(c), 0);
	ck_assert(c->used < c->n);
	ck_assert_double_eq_tol(c->scale, curve_eval(&t, 1), 0.05);
	ck_assert_int_eq(convergence_remaining_steps(c, &rem), 0);
	step -= 10;
	ck_assert_msg(fabs(rem - (k_end - step - 1)) < 0.1 * (k_end - step),
		      "rem %g truth %g", rem, k_end - step - 1);
	ck_assert_double_eq_tol(convergence_predict(c, step), curve_eval(&t, step + 1),
				0.02 * curve_eval(&t, step + 1));
	ck_assert_int_eq(c->resets, 0);
	convergence_free(c);
	gsl_rng_free(rng);
}
END_TEST

START_TEST(test_asymptote_criterion_and_forms)
{
	convergence_cfg_t cfg;
	convergence_t *c;
	double rem, s;
	curve_coef_t t = { CURVE_EXP, { 1.0, 0.01, 0.25 }, 0 };

	convergence_cfg_default(&cfg);
	cfg.form = CURVE_EXP;
	cfg.criterion = CONV_ASYMPTOTE;
	cfg.delta = 0.01;
	c = convergence_new(&cfg);
	for (s = 0; s < 100; s++)
		convergence_add(c, s, curve_eval(&t, s + 1));
	ck_assert_int_eq(convergence_fit(c), 0);
	ck_assert_int_eq(convergence_remaining_steps(c, &rem), 0);
	/* normalised: a e^{-b k}/l(1) <= 0.01 */
	{
		double k = log(1.0 / (0.01 * curve_eval(&t, 1))) / 0.01;

		ck_assert_double_eq_tol(rem, k - 100.0, 1.0);
	}
	convergence_free(c);
}
END_TEST

START_TEST(test_not_enough_points_and_bad_input)
{
	convergence_t *c = convergence_new(NULL);
	convergence_cfg_t cfg;
	double rem;
	int i;

	ck_assert_int_eq(convergence_remaining_steps(c, &rem), -ENODATA);
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(convergence_add(c, i, 1.0 / (i + 1)), 0);
	ck_assert_int_eq(convergence_fit(c), -ENODATA);
	ck_assert(isnan(convergence_predict(c, 3)));
	ck_assert_int_eq(convergence_add(c, 2, 0.5), -EINVAL);
	ck_assert_int_eq(convergence_add(c, 9, -1), -EINVAL);
	ck_assert_int_eq(convergence_add(c, 9, INFINITY), -EINVAL);
	convergence_free(c);
	convergence_cfg_default(&cfg);
	cfg.max_points = 4;
	ck_assert_ptr_null(convergence_new(&cfg));
	convergence_cfg_default(&cfg);
	cfg.delta = 0;
	ck_assert_int_eq(convergence_cfg_check(&cfg), -EINVAL);
}
END_TEST

/* 20,000 points into 64 slots: memory bounded, weights kept, fit good. */
START_TEST(test_bounded_memory)
{
	convergence_cfg_t cfg;
	convergence_t *c;
	curve_coef_t t = { CURVE_INVERSE, { 0.001, 1.0, 0.1 }, 0 };
	double s, wsum = 0;
	size_t i;

	convergence_cfg_default(&cfg);
	cfg.max_points = 64;
	c = convergence_new(&cfg);
	for (s = 0; s < 20000; s++)
		ck_assert_int_eq(convergence_add(c, s, curve_eval(&t, s + 1)), 0);
	ck_assert(c->n <= 64);
	for (i = 0; i < c->n; i++)
		wsum += c->weight[i];
	ck_assert_double_eq_tol(wsum, 20000.0, 1e-6);
	for (i = 1; i < c->n; i++)
		ck_assert(c->step[i] > c->step[i - 1]);
	ck_assert_int_eq(convergence_fit(c), 0);
	ck_assert_double_eq_tol(convergence_predict(c, 30000),
				curve_eval(&t, 30001), 0.01);
	convergence_free(c);
}
END_TEST

START_TEST(test_bucket_averaging)
{
	convergence_cfg_t cfg;
	convergence_t *c;
	int s;

	convergence_cfg_default(&cfg);
	cfg.avg_steps = 10;
	c = convergence_new(&cfg);
	for (s = 0; s < 100; s++)
		convergence_add(c, s, 1.0 + (s % 10));
	ck_assert_uint_eq(c->n, 10);
	ck_assert_double_eq_tol(c->loss[3], 5.5, 1e-12);
	ck_assert_double_eq_tol(c->step[3], 34.5, 1e-12);
	ck_assert_double_eq_tol(c->weight[3], 10.0, 1e-12);
	convergence_free(c);
}
END_TEST

/* Step decay: the loss falls by half at step 3000; the model resets to a
 * segment starting there and fits the new curve. */
START_TEST(test_lr_drop_resets_fit)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	curve_coef_t a = { CURVE_INVERSE, { 0.003, 1.0, 0.3 }, 0 };
	curve_coef_t b = { CURVE_INVERSE, { 0.01, 5.0, 0.1 }, 0 };
	convergence_t *c = convergence_new(NULL);
	double s, rem;

	for (s = 0; s < 6000; s += 20) {
		double l = s < 3000 ? curve_eval(&a, s + 1) :
				      curve_eval(&b, s - 3000 + 1);

		convergence_add(c, s, l * (1 + gsl_ran_gaussian(rng, 0.005)));
		if ((int)s % 200 == 0 && c->n >= 8)
			ck_assert_int_eq(convergence_fit(c), 0);
	}
	ck_assert_int_eq(c->resets, 1);
	ck_assert_double_eq(c->origin, 3000.0);
	ck_assert_int_eq(convergence_fit(c), 0);
	ck_assert_double_eq_tol(convergence_predict(c, 8000),
				curve_eval(&b, 5001), 0.02 * curve_eval(&b, 5001));
	ck_assert_int_eq(convergence_remaining_steps(c, &rem), 0);
	ck_assert(rem >= 0);
	convergence_free(c);
	gsl_rng_free(rng);
}
END_TEST

/* Noise alone never triggers a reset. */
START_TEST(test_no_false_reset)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	curve_coef_t a = { CURVE_INVERSE, { 0.003, 1.0, 0.3 }, 0 };
	convergence_t *c = convergence_new(NULL);
	double s;

	for (s = 0; s < 10000; s += 10) {
		convergence_add(c, s, curve_eval(&a, s + 1) *
				       (1 + gsl_ran_gaussian(rng, 0.02)));
		if ((int)s % 500 == 0 && c->n >= 8)
			convergence_fit(c);
	}
	ck_assert_int_eq(c->resets, 0);
	convergence_free(c);
	gsl_rng_free(rng);
}
END_TEST

static size_t load_curve(const char *name, double *step, double *loss,
			 size_t max)
{
	const char *dir = getenv("srcdir");
	char path[512];
	FILE *f;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/testsuite/data/%s", dir ? dir : ".",
		 name);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	fscanf(f, "%*s");
	while (n < max && fscanf(f, "%lf,%lf", &step[n], &loss[n]) == 2)
		n++;
	fclose(f);
	return n;
}

/* Real curve (softmax regression on digits, SGD): a fit on the first half
 * predicts the final loss within 15%. */
START_TEST(test_real_curve)
{
	double step[1000], loss[1000];
	size_t n = load_curve("loss_softmax_sgd.csv", step, loss, 1000), i;
	convergence_t *c = convergence_new(NULL);

	ck_assert(n > 100);
	for (i = 0; i < n / 2; i++)
		ck_assert_int_eq(convergence_add(c, step[i], loss[i]), 0);
	ck_assert_int_eq(convergence_fit(c), 0);
	ck_assert_msg(fabs(convergence_predict(c, step[n - 1]) - loss[n - 1]) <
		      0.15 * loss[n - 1], "pred %g real %g",
		      convergence_predict(c, step[n - 1]), loss[n - 1]);
	convergence_free(c);
}
END_TEST

/* Huge losses. Six decreasing points near 1e27 in the inverse form
 * overflow an unscaled NNLS (its profile infinite, GSL's Brent minimiser
 * aborting the process), and near 1e152 the power form's sums overflow
 * into a "successful" c = 1,0,0. The fit is invariant to the unit of l:
 * at every scale it is the fit at scale 1, scaled. */
START_TEST(test_curve_fit_huge_losses)
{
	static const double scales[] = { 1e-200, 1e25, 1e27, 1e100, 1e152,
					 1e200, 1e300 };
	curve_form_t form = _i;
	double k[6], l[6], l1[6];
	curve_coef_t f, ref;
	size_t s, shape;
	int i;

	/* two shapes: a line, and 1 + 1/k (the inverse form near 1e27) */
	for (shape = 0; shape < 2; shape++) {
		for (i = 0; i < 6; i++) {
			k[i] = i + 1;
			l1[i] = shape ? 1.0 + 1.0 / k[i] :
					(7 - i) * (1 + 1e-3 * i);
		}
		ck_assert_int_eq(curve_fit(form, k, l1, NULL, 6, &ref), 0);
		for (s = 0; s < sizeof(scales) / sizeof(scales[0]); s++) {
			for (i = 0; i < 6; i++)
				l[i] = scales[s] * l1[i];
			ck_assert_int_eq(curve_fit(form, k, l, NULL, 6, &f), 0);
			ck_assert(isfinite(f.c[0]) && isfinite(f.c[1]) &&
				  isfinite(f.c[2]) && isfinite(f.rms));
			for (i = 0; i < 6; i++)
				ck_assert_msg(fabs(curve_eval(&f, k[i]) / scales[s] -
						   curve_eval(&ref, k[i])) <
					      1e-6 * l1[i],
					      "form %d scale %g: %g vs %g", form,
					      scales[s], curve_eval(&f, k[i]),
					      scales[s] * curve_eval(&ref, k[i]));
		}
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("convergence");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_curve_fit_forms, 0, 3);
	tcase_add_test(tc, test_curve_fit_bad_input);
	tcase_add_loop_test(tc, test_curve_fit_huge_losses, 0, 3);
	tcase_add_test(tc, test_thresholds);
	tcase_add_test(tc, test_filter);
	tcase_add_test(tc, test_remaining_steps_synthetic);
	tcase_add_test(tc, test_asymptote_criterion_and_forms);
	tcase_add_test(tc, test_not_enough_points_and_bad_input);
	tcase_add_test(tc, test_bounded_memory);
	tcase_add_test(tc, test_bucket_averaging);
	tcase_add_test(tc, test_lr_drop_resets_fit);
	tcase_add_test(tc, test_no_false_reset);
	tcase_add_test(tc, test_real_curve);
	suite_add_tcase(s, tc);
	return check_run(s);
}

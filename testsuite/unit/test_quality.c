/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* test_quality.c - quality-driven loss model: decaying weights, cost
 * regression, predicted iterations and loss. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "models/quality_model.h"
#include "check_run.h"

static double power(double mu, double b, double c, double k)
{
	return mu * pow(k, -b) + c;
}

START_TEST(test_fit_and_predict)
{
	quality_model_t q;
	double k, iters, pred;
	int i;

	ck_assert_int_eq(quality_model_init(&q, 0.999, 256), 0);
	for (k = 1; k <= 200; k++)
		ck_assert_int_eq(quality_model_add_loss(&q, k,
				 power(3.0, 0.5, 0.1, k)), 0);
	for (i = 1; i <= 10; i++)	/* t = 0.002 * S */
		ck_assert_int_eq(quality_model_add_cost(&q, 100.0 * i,
							0.2 * i), 0);
	ck_assert_int_eq(quality_model_fit(&q), 0);
	ck_assert_double_eq_tol(q.cost_c, 0.002, 1e-12);
	ck_assert_double_eq_tol(q.coef.c[1], 0.5, 1e-3);
	/* iter = T*a/(c*S): 60 s, 4 CPUs, c*S = 0.002*1000 = 2 s */
	iters = quality_model_iters(&q, 60, 4);
	ck_assert_double_eq_tol(iters, 120.0, 1e-9);
	pred = quality_model_loss_after(&q, 60, 4);
	ck_assert_double_eq_tol(pred, power(3.0, 0.5, 0.1, 320), 1e-3);
	/* more resources, lower loss, diminishing gain */
	ck_assert(quality_model_gain(&q, 60, 1, 1) >
		  quality_model_gain(&q, 60, 8, 1));
	ck_assert(quality_model_gain(&q, 60, 8, 1) > 0);
	quality_model_clear(&q);
}
END_TEST

/* The curve changes regime at k=100: with decaying weights the fit follows
 * the recent points, without decay it averages both regimes. */
START_TEST(test_decay_favours_recent_points)
{
	quality_model_t qd, qf;
	double k, ed, ef;

	quality_model_init(&qd, 0.8, 512);
	quality_model_init(&qf, 1.0, 512);
	for (k = 1; k <= 200; k++) {
		double l = k <= 100 ? power(3.0, 0.3, 0.5, k) :
				      power(6.0, 0.8, 0.2, k);

		quality_model_add_loss(&qd, k, l);
		quality_model_add_loss(&qf, k, l);
	}
	quality_model_add_cost(&qd, 1, 1);
	quality_model_add_cost(&qf, 1, 1);
	ck_assert_int_eq(quality_model_fit(&qd), 0);
	ck_assert_int_eq(quality_model_fit(&qf), 0);
	ed = fabs(curve_eval(&qd.coef, 195) - power(6.0, 0.8, 0.2, 195));
	ef = fabs(curve_eval(&qf.coef, 195) - power(6.0, 0.8, 0.2, 195));
	ck_assert_msg(ed < 0.2 * ef, "decayed %g flat %g", ed, ef);
	/* old points whose weight vanished were dropped: bounded memory */
	ck_assert(qd.n < 200);
	ck_assert_uint_eq(qf.n, 200);
	quality_model_clear(&qd);
	quality_model_clear(&qf);
}
END_TEST

START_TEST(test_bad_input)
{
	quality_model_t q;

	ck_assert_int_eq(quality_model_init(&q, 0, 64), -EINVAL);
	ck_assert_int_eq(quality_model_init(&q, 1.5, 64), -EINVAL);
	ck_assert_int_eq(quality_model_init(&q, 0.9, 2), -EINVAL);
	ck_assert_int_eq(quality_model_init(&q, 0.9, 8), 0);
	ck_assert_int_eq(quality_model_add_loss(&q, 0, 1), -EINVAL);
	ck_assert_int_eq(quality_model_add_loss(&q, 5, -1), -EINVAL);
	ck_assert_int_eq(quality_model_add_cost(&q, 0, 1), -EINVAL);
	ck_assert_int_eq(quality_model_add_cost(&q, 1, NAN), -EINVAL);
	ck_assert_int_eq(quality_model_fit(&q), -ENODATA);
	ck_assert(isnan(quality_model_loss_after(&q, 1, 1)));
	quality_model_add_loss(&q, 5, 1);
	ck_assert_int_eq(quality_model_add_loss(&q, 4, 1), -EINVAL);
	quality_model_add_loss(&q, 6, 0.9);
	quality_model_add_loss(&q, 7, 0.85);
	/* no cost sample: curve fitted, iterations unknown */
	ck_assert_int_eq(quality_model_fit(&q), -ENODATA);
	ck_assert_double_eq(quality_model_iters(&q, 10, 1), 0.0);
	/* cap: never more than cap points */
	for (int k = 8; k < 100; k++)
		quality_model_add_loss(&q, k, 1.0 / k);
	ck_assert(q.n <= 8);
	quality_model_clear(&q);
}
END_TEST

/*
 * Property of Algorithm 1 (alloc/quality.c) on the core's own predicted
 * curves: with quality models fitted to power curves mu k^-b + c (convex
 * in the units, since the iterations T*a/(c*S) grow linearly with them),
 * the greedy allocation reaches the exhaustive optimum of the predicted
 * weighted loss reduction, sum_j w_j (Loss_j(0) - Loss_j(a_j)), over every
 * allocation with 1 <= a_j <= max_units_j and sum a_j <= total.
 */
#define PROP_JOBS 5
#define PROP_T 120.0

static uint64_t prop_state;

static double prop_uniform(double lo, double hi)
{
	prop_state = prop_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return lo + (hi - lo) * (double)(prop_state >> 11) / 9007199254740992.0;
}

static double prop_loss(void *ctx, int units)
{
	return quality_model_loss_after(ctx, PROP_T, units);
}

/* Best predicted total sum w_j Loss_j(a_j) over the allocations left. */
static double prop_best(const alloc_job_t *js, size_t n, size_t i, long left)
{
	if (i == n)
		return 0.0;
	int max = js[i].max_units > 0 ? js[i].max_units : (int)(left + 1);
	double best = INFINITY;

	/* Every job keeps its first unit: at most left - (n - i - 1). */
	for (int a = 1; a <= max && a <= left - (long)(n - i - 1); a++)
		best = fmin(best, js[i].weight * prop_loss(js[i].loss_ctx, a) +
				  prop_best(js, n, i + 1, left - a));
	return best;
}

START_TEST(test_alg1_equals_exhaustive_on_predicted_curves)
{
	quality_model_t q[PROP_JOBS];
	alloc_job_t jobs[PROP_JOBS];
	alloc_params_t prm;
	alloc_result_t r;
	double got = 0.0;

	prop_state = 7919 + (uint64_t)_i;
	size_t n = 1 + (size_t)prop_uniform(0, PROP_JOBS - 0.001);
	long total = (long)n + (long)prop_uniform(0, 9.999);

	memset(jobs, 0, sizeof(jobs));
	for (size_t j = 0; j < n; j++) {
		double mu = prop_uniform(0.05, 0.3), b = prop_uniform(0.3, 1.5);
		double c = prop_uniform(0.0, 0.05);
		double k0 = prop_uniform(3, 40), cs = prop_uniform(0.5, 20);

		ck_assert_int_eq(quality_model_init(&q[j], 0.95, 64), 0);
		for (double k = 1; k <= k0 + 0.5; k++)
			ck_assert_int_eq(quality_model_add_loss(&q[j], k,
					 power(mu, b, c, k)), 0);
		/* c*S = cs CPU seconds per iteration, S = 1000. */
		ck_assert_int_eq(quality_model_add_cost(&q[j], 1000, cs), 0);
		ck_assert_int_eq(quality_model_fit(&q[j]), 0);
		jobs[j].id = (uint32_t)j + 1;
		jobs[j].loss_after = prop_loss;
		jobs[j].loss_ctx = &q[j];
		jobs[j].weight = prop_uniform(0, 1) < 0.5 ? 1.0 :
				 prop_uniform(0.5, 3.0);
		jobs[j].max_units = prop_uniform(0, 1) < 0.5 ? 0 :
				    1 + (int)prop_uniform(0, 5.999);
	}
	alloc_params_init(&prm, res_make(1, 1, 0));
	prm.total_units = total;
	ck_assert_int_eq(alloc_quality_run(jobs, n, &prm, &r), 0);
	long used = 0, room = 0;
	for (size_t j = 0; j < n; j++) {
		const alloc_grant_t *g = &r.grants[j];
		ck_assert_int_eq(g->status, ALLOC_OK);
		ck_assert_int_ge(g->units, 1);
		if (jobs[j].max_units > 0)
			ck_assert_int_le(g->units, jobs[j].max_units);
		used += g->units;
		room += jobs[j].max_units > 0 ? jobs[j].max_units : total;
		got += jobs[j].weight * prop_loss(&q[j], g->units);
	}
	/* Every unit is given while some job can take it. */
	ck_assert_int_eq(used, room < total ? room : total);
	double best = prop_best(jobs, n, 0, total);
	ck_assert_msg(got <= best + 1e-12 * (1 + fabs(best)),
		      "instance %d: Algorithm 1 %.12g, exhaustive %.12g", _i,
		      got, best);
	alloc_result_free(&r);
	for (size_t j = 0; j < n; j++)
		quality_model_clear(&q[j]);
}
END_TEST

/* Losses near 1e150 overflowed the fit's sums and gave
 * a "successful" c = 1,0,0; a fit either fails or predicts the points. */
START_TEST(test_huge_losses)
{
	static const double scales[] = { 1e100, 1e152, 5e152, 1e200, 1e300 };
	quality_model_t q;
	size_t s;
	int i, rc;

	for (s = 0; s < sizeof(scales) / sizeof(scales[0]); s++) {
		ck_assert_int_eq(quality_model_init(&q, 0.9, 64), 0);
		for (i = 0; i < 6; i++)
			ck_assert_int_eq(quality_model_add_loss(&q, i + 1,
				scales[s] * (7 - i) * (1 + 1e-3 * i)), 0);
		ck_assert_int_eq(quality_model_add_cost(&q, 1, 1), 0);
		rc = quality_model_fit(&q);
		if (rc == 0) {
			double last = q.loss[q.n - 1];

			ck_assert_msg(fabs(curve_eval(&q.coef, q.iter[q.n - 1]) -
					   last) < 0.5 * last,
				      "scale %g: c=%g,%g,%g", scales[s],
				      q.coef.c[0], q.coef.c[1], q.coef.c[2]);
		} else {
			ck_assert_int_lt(rc, 0);
			ck_assert(!q.fitted);
		}
		quality_model_clear(&q);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("quality");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_fit_and_predict);
	tcase_add_test(tc, test_decay_favours_recent_points);
	tcase_add_test(tc, test_bad_input);
	tcase_add_loop_test(tc, test_alg1_equals_exhaustive_on_predicted_curves,
			    0, 200);
	tcase_add_test(tc, test_huge_losses);
	suite_add_tcase(s, tc);
	return check_run(s);
}

/* test_quality.c - quality-driven loss model: decaying weights, cost
 * regression, predicted iterations and loss. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

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

/* Issue 16 item 4: losses near 1e150 overflowed the fit's sums and gave
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
	tcase_add_test(tc, test_huge_losses);
	suite_add_tcase(s, tc);
	return check_run(s);
}

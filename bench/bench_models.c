/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* bench_models.c - accuracy and speed figures of the models.
 *
 *   bench/bench_models [datadir]    (default: testsuite/data)
 *
 * 1. speed-model error with 5, 10 and 20 samples (paper: < 10% with ~10);
 * 2. remaining-steps error versus the fraction of training seen (paper:
 *    ~20%), on synthetic curves and on the recorded real curves;
 * 3. fit time of 4,000 jobs x 200 points (target < 100 ms on one core),
 *    with the ratio to a naive exhaustive refit measured in the same run;
 * 4. all-reduce speed model error on the measured step times of six real
 *    models (datadir/pollux-osdi21/traces, bench_allreduce.c; goal: median
 *    < 10% with ~10 samples, as the paper's PS model).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics.h>
#include <gsl/gsl_errno.h>

#include "models/convergence.h"
#include "models/curve_fit.h"
#include "models/speed_model.h"
#include "bench_allreduce.h"

#define TRIALS 200

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double median(double *v, size_t n)
{
	gsl_sort(v, 1, n);
	return gsl_stats_median_from_sorted_data(v, 1, n);
}

/* Random ground truth in the ranges of the paper's Fig. 6/7 fits. */
static void speed_truth(gsl_rng *r, speed_model_t *t, speed_mode_t mode)
{
	double th[5];
	int j;

	speed_model_init(t, mode, 256);
	for (j = 0; j < 5; j++)
		th[j] = gsl_ran_flat(r, 0.01, 1.0) * (j ? 0.1 : 1.0);
	if (mode == SPEED_SYNC)
		th[0] *= 0.01;
	speed_model_set_theta(t, th, speed_model_ntheta(t));
}

/* Mean relative error over p in 1..16, w in 1..32 of a model fitted to
 * nsamp distinct random (p, w) with 5% measurement noise. */
static double speed_trial(gsl_rng *r, speed_mode_t mode, int nsamp)
{
	speed_model_t t, m;
	double err = 0.0;
	int p, w;

	speed_truth(r, &t, mode);
	speed_model_init(&m, mode, 256);
	while ((int)m.nsamples < nsamp) {
		p = 1 + gsl_rng_uniform_int(r, 16);
		w = 1 + gsl_rng_uniform_int(r, 32);
		speed_model_add_sample(&m, p, w, speed_model_eval(&t, p, w) *
				       (1.0 + gsl_ran_gaussian(r, 0.05)));
	}
	speed_model_fit(&m);
	for (p = 1; p <= 16; p++)
		for (w = 1; w <= 32; w++)
			err += fabs(speed_model_eval(&m, p, w) /
				    speed_model_eval(&t, p, w) - 1.0);
	speed_model_clear(&m);
	return err / (16 * 32);
}

static void bench_speed(gsl_rng *r)
{
	static const int ns[3] = { 5, 10, 20 };
	double e[TRIALS];
	int mode, i, k;

	printf("== speed model: mean relative error over p<=16, w<=32 "
	       "(5%% noise, %d trials)\n", TRIALS);
	printf("%-6s %8s %10s %10s\n", "mode", "samples", "mean", "median");
	for (mode = SPEED_ASYNC; mode <= SPEED_SYNC; mode++) {
		for (k = 0; k < 3; k++) {
			double mean;

			for (i = 0; i < TRIALS; i++)
				e[i] = speed_trial(r, mode, ns[k]);
			mean = gsl_stats_mean(e, 1, TRIALS);
			printf("%-6s %8d %9.1f%% %9.1f%%\n",
			       mode ? "sync" : "async", ns[k], 100 * mean,
			       100 * median(e, TRIALS));
		}
	}
}

/* ---------------- remaining steps: synthetic curves ---------------- */

static const double fracs[] = { 0.1, 0.2, 0.3, 0.5, 0.7, 0.9 };
#define NFRAC (sizeof(fracs) / sizeof(*fracs))

static double rem_error(convergence_t *c, double truth_rem)
{
	double rem;

	if (convergence_fit(c) || convergence_remaining_steps(c, &rem))
		return 1.0;	/* no prediction counts as 100% error */
	return fabs(rem - truth_rem) / truth_rem;
}

static void bench_remaining_synthetic(gsl_rng *r)
{
	double e[NFRAC][TRIALS];
	size_t f;
	int i;

	for (i = 0; i < TRIALS; i++) {
		curve_coef_t t = { CURVE_INVERSE, { gsl_ran_flat(r, 5e-4, 5e-3),
				   gsl_ran_flat(r, 0.3, 2.0),
				   gsl_ran_flat(r, 0.0, 0.5) }, 0 };
		convergence_cfg_t cfg;
		double kend;

		convergence_cfg_default(&cfg);
		cfg.window = 100;
		cfg.delta = 0.002;
		kend = curve_k_decrease_below(&t, 1, cfg.window,
					      cfg.delta * curve_eval(&t, 1));
		for (f = 0; f < NFRAC; f++) {
			convergence_t *c = convergence_new(&cfg);
			double s, step = 10.0;

			for (s = 0; s < fracs[f] * kend; s += kend / 200)
				convergence_add(c, step = s, curve_eval(&t, s + 1) *
						(1 + gsl_ran_gaussian(r, 0.02)));
			e[f][i] = rem_error(c, kend - step - 1);
			convergence_free(c);
		}
	}
	printf("\n== remaining steps: synthetic Eqn. 1 curves, 2%% noise, "
	       "200 points to convergence, %d trials\n", TRIALS);
	printf("%-10s", "seen");
	for (f = 0; f < NFRAC; f++)
		printf(" %6.0f%%", 100 * fracs[f]);
	printf("\n%-10s", "median");
	for (f = 0; f < NFRAC; f++)
		printf(" %6.1f%%", 100 * median(e[f], TRIALS));
	printf("\n%-10s", "mean");
	for (f = 0; f < NFRAC; f++)
		printf(" %6.1f%%", 100 * gsl_stats_mean(e[f], 1, TRIALS));
	printf("\n");
}

/* ---------------- remaining steps: recorded real curves ---------------- */

static size_t load_curve(const char *path, double *step, double *loss,
			 size_t max)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%*s") == 0)
		while (n < max && fscanf(f, "%lf,%lf", &step[n], &loss[n]) == 2)
			n++;
	fclose(f);
	return n;
}

/* Empirical convergence: the first record from which the epoch-to-epoch
 * decrease of the epoch-mean loss stays below delta*max for 3 epochs. */
static double empirical_end(const double *step, const double *loss,
			    size_t n, size_t per_epoch, double delta)
{
	size_t e, ne = n / per_epoch, j, ok = 0;
	double mean[ne], top = 0;

	for (j = 0; j < n; j++)
		top = fmax(top, loss[j]);
	for (e = 0; e < ne; e++) {
		mean[e] = 0;
		for (j = 0; j < per_epoch; j++)
			mean[e] += loss[e * per_epoch + j] / per_epoch;
	}
	for (e = 0; e + 1 < ne; e++) {
		ok = mean[e] - mean[e + 1] < delta * top ? ok + 1 : 0;
		if (ok == 3)
			return step[(e - 2) * per_epoch];
	}
	return NAN;
}

static void bench_remaining_real(const char *dir)
{
	static const char *const names[] = { "loss_softmax_sgd.csv",
					      "loss_mlp_sgd.csv",
					      "loss_mlp_stepdecay.csv" };
	double step[2000], loss[2000];
	size_t i, f, n, j;

	printf("\n== remaining steps: recorded curves (testsuite/data), "
	       "criterion: epoch-mean decrease < 0.002 x max loss\n");
	printf("%-24s %8s", "curve", "k_end");
	for (f = 0; f < NFRAC; f++)
		printf(" %6.0f%%", 100 * fracs[f]);
	printf("\n");
	for (i = 0; i < 3; i++) {
		char path[1024];
		convergence_cfg_t cfg;
		double kend, per_epoch_steps;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if ((n = load_curve(path, step, loss, 2000)) < 50) {
			printf("%-24s (cannot read %s)\n", names[i], path);
			continue;
		}
		per_epoch_steps = 5 * (step[1] - step[0]);
		kend = empirical_end(step, loss, n, 5, 0.002);
		printf("%-24s %8.0f", names[i], kend);
		convergence_cfg_default(&cfg);
		cfg.window = per_epoch_steps;
		cfg.delta = 0.002;
		for (f = 0; f < NFRAC && isfinite(kend); f++) {
			convergence_t *c = convergence_new(&cfg);
			double last = 0;

			for (j = 0; j < n && step[j] <= fracs[f] * kend; j++) {
				convergence_add(c, step[j], loss[j]);
				last = step[j];
				if (j % 25 == 24)	/* periodic refits */
					convergence_fit(c);
			}
			printf(" %6.1f%%", 100 * rem_error(c, kend - last));
			convergence_free(c);
		}
		printf("\n");
	}
}

/* ---------------- fit time: 4,000 jobs x 200 points ---------------- */

#define JOBS 4000
#define POINTS 200

static void bench_fit_time(gsl_rng *r)
{
	convergence_t **jobs = calloc(JOBS, sizeof(*jobs));
	double t0, t_fast, t_naive, rms_fast = 0, rms_naive = 0;
	int i, s, fails = 0;

	for (i = 0; i < JOBS; i++) {
		curve_coef_t t = { CURVE_INVERSE, { gsl_ran_flat(r, 1e-3, 1e-2),
				   gsl_ran_flat(r, 0.3, 2.0),
				   gsl_ran_flat(r, 0.0, 0.5) }, 0 };

		jobs[i] = convergence_new(NULL);
		for (s = 0; s < POINTS; s++)
			convergence_add(jobs[i], 10.0 * s, curve_eval(&t, 10.0 * s + 1)
					* (1 + gsl_ran_gaussian(r, 0.02)));
	}
	t0 = now_ms();
	for (i = 0; i < JOBS; i++)
		fails += convergence_fit(jobs[i]) != 0;
	t_fast = now_ms() - t0;
	for (i = 0; i < JOBS; i++)
		rms_fast += jobs[i]->coef.rms / JOBS;
	/* Baseline: the same points, a naive exhaustive profile over 200
	 * asymptote values (no Brent, no polish), as a straightforward
	 * implementation would refit every interval. */
	t0 = now_ms();
	for (i = 0; i < JOBS; i++) {
		convergence_t *c = jobs[i];
		double k[POINTS], l[POINTS];
		curve_coef_t f;

		for (s = 0; s < (int)c->n; s++) {
			k[s] = convergence_k(c, c->step[s]);
			l[s] = c->loss[s] / c->scale;
		}
		if (!curve_fit_with(CURVE_INVERSE, k, l, c->weight, c->n,
				    (curve_fit_opts_t){ 200, 0, 0 }, &f))
			rms_naive += f.rms / JOBS;
	}
	t_naive = now_ms() - t0;
	printf("\n== fit time: %d jobs x %d points, one core\n", JOBS, POINTS);
	printf("fast fit (filter+normalise+fit): %8.1f ms total, %6.2f us/job,"
	       " mean rms %.5f, failures %d (target < 100 ms)\n",
	       t_fast, 1e3 * t_fast / JOBS, rms_fast, fails);
	printf("naive 200-point profile:         %8.1f ms total, %6.2f us/job,"
	       " mean rms %.5f\n", t_naive, 1e3 * t_naive / JOBS, rms_naive);
	printf("speed-up over the naive refit: %.1fx\n", t_naive / t_fast);
	for (i = 0; i < JOBS; i++)
		convergence_free(jobs[i]);
	free(jobs);
}

int main(int argc, char **argv)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	const char *data = argc > 1 ? argv[1] : "testsuite/data";
	char traces[1024];

	gsl_rng_set(r, 42);
	/* GSL's default error handler aborts: the models return errors. */
	gsl_set_error_handler_off();
	bench_speed(r);
	bench_remaining_synthetic(r);
	bench_remaining_real(data);
	bench_fit_time(r);
	snprintf(traces, sizeof(traces), "%s/pollux-osdi21/traces", data);
	bench_allreduce_measured(traces);
	gsl_rng_free(r);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* test_job_model.c - the per-job record: reports, fits, priors, summary,
 * JSON round trip and malformed JSON. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/job_admit.h"
#include "job/job_model.h"
#include "report/protocol.h"
#include "check_run.h"

static job_model_t *new_job(const char *hints_text)
{
	optimus_hints_t h;
	char err[256];

	ck_assert_msg(!hints_parse(hints_text, &h, err, sizeof(err)), "%s", err);
	return job_model_new(42, 1000, &h, 1000);
}

/* Ground truth used to generate reports: Eqn. 1 and Eqn. 3. */
static double true_loss(double k)
{
	return 1.0 / (0.002 * k + 0.5) + 0.1;
}

static double true_speed(int p, int w)
{
	return w / (0.5 + 0.2 * w / (double)p + 0.01 * w + 0.02 * p);
}

/* Run the job through several (p, w) with reports every 50 steps. */
static void feed_runs(job_model_t *m, const int (*pw)[2], size_t n,
		      double steps_each)
{
	time_t t = 2000;
	double step = 0.0;

	for (size_t i = 0; i < n; i++) {
		job_model_started(m, t, pw[i][0], pw[i][1], 1);
		for (double s = 0; s < steps_each; s += 50) {
			step += 50;
			t += 10;
			ck_assert_int_eq(job_model_report(m, t, step,
				true_loss(step), true_speed(pw[i][0], pw[i][1]),
				0), 0);
		}
	}
}

static const int five_pw[][2] = { {1, 1}, {1, 4}, {2, 4}, {4, 8}, {2, 8} };

START_TEST(test_report_validation)
{
	job_model_t *m = new_job("optimus");

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(job_model_report(m, 1, NAN, 1, 0, 0), -EINVAL);
	ck_assert_int_eq(job_model_report(m, 1, -1, 1, 0, 0), -EINVAL);
	ck_assert_int_eq(job_model_report(m, 1, 1, -1, 0, 0), -EINVAL);
	ck_assert_int_eq(job_model_report(m, 1, 1, 1, INFINITY, 0), -EINVAL);
	ck_assert_int_eq(job_model_report(m, 1, 1, 1, 1, -2), -EINVAL);
	ck_assert_int_eq(job_model_speed_sample(m, 0, 1, 1.0), -EINVAL);
	ck_assert_int_eq(job_model_speed_sample(m, 1, 1, 0.0), -EINVAL);
	ck_assert_uint_eq(m->reports, 0);
	/* Not running: no topology, so no speed sample from a report. */
	ck_assert_int_eq(job_model_report(m, 5, 10, 0.9, 3.0, 0), 0);
	ck_assert_uint_eq(m->speed.nsamples, 0);
	ck_assert_uint_eq(m->reports, 1);
	job_model_free(m);
}
END_TEST

START_TEST(test_fit_predictions)
{
	job_model_t *m = new_job("optimus,max_ps=8,max_workers=16,"
				 "epoch_steps=100");
	bool fitted;
	double rem, truth_k;

	feed_runs(m, five_pw, 5, 400);
	ck_assert_uint_eq(m->speed.nsamples, 5);
	ck_assert(m->dirty != 0);
	job_model_refit(m);
	ck_assert_uint_eq(m->dirty, 0);
	/* Speed: own fit close to the truth at an unseen point. */
	{
		job_speed_source_t src;
		double f = job_model_speed_from(m, NULL, 3, 6, &src);

		ck_assert_int_eq(src, JOB_SPEED_FIT);
		ck_assert_double_eq_tol(f, true_speed(3, 6),
					0.05 * true_speed(3, 6));
	}
	/* Remaining: the fit's, near the true convergence point. */
	rem = job_model_remaining_steps(m, &fitted);
	ck_assert(fitted);
	ck_assert(rem > 0 && isfinite(rem));
	/* Truth: normalised decrease per epoch below delta = 0.001. */
	truth_k = 0;
	for (double k = m->step; k < 1e7; k += 1) {
		double scale = true_loss(50);
		if ((true_loss(k) - true_loss(k + 100)) / scale <= 0.001) {
			truth_k = k;
			break;
		}
	}
	ck_assert_msg(fabs(m->step + rem - truth_k) < 0.35 * truth_k,
		      "predicted end %g, truth %g", m->step + rem, truth_k);
	ck_assert_double_eq_tol(job_model_remaining_time(m, NULL, 2, 4),
				rem / job_model_speed(m, NULL, 2, 4), 1e-9);
	job_model_free(m);
}
END_TEST

/*
 * A job still running past its fitted convergence shows the fit
 * is wrong; the prediction falls back to the target (or the prior), never
 * to 0 remaining, else the planner never grows it.
 */
START_TEST(test_running_never_zero_remaining)
{
	job_model_t *m = new_job("optimus,steps=5000");
	bool fitted = true;
	double rem;

	char text[512];

	job_model_started(m, 10, 1, 1, 1);
	/* Never reported: the loss is unknown, not a perfect 0. */
	ck_assert_int_eq(job_model_summary(m, NULL, text, sizeof(text)), 0);
	ck_assert_msg(strstr(text, " loss=unknown "), "%s", text);
	/* A flat loss: the fitted curve says "converged". */
	for (int k = 1; k <= 30; k++)
		ck_assert_int_eq(job_model_report(m, 10 + k, 100 * k - 86,
						  0.5, 1.0, 0), 0);
	job_model_refit(m);
	rem = job_model_remaining_steps(m, &fitted);
	ck_assert_msg(rem >= 1.0, "remaining %g while running", rem);
	ck_assert_double_eq(rem, 5000 - m->step);
	ck_assert(!fitted);
	job_model_free(m);

	m = new_job("optimus");
	job_model_started(m, 10, 1, 1, 1);
	for (int k = 1; k <= 30; k++)
		ck_assert_int_eq(job_model_report(m, 10 + k, 100 * k, 0.5,
						  1.0, 0), 0);
	job_model_refit(m);
	ck_assert(job_model_remaining_steps(m, NULL) >= 1.0);
	job_model_free(m);
}
END_TEST

/*
 * A job running past its fitted end is predicted as many steps again as
 * it has overrun, so the prediction moves smoothly through the fit's end
 * rather than falling to about 1 step and then jumping to the prior.
 */
START_TEST(test_remaining_steps_continuous_past_the_fit)
{
	job_model_t *m = new_job("optimus");
	double prev = -1.0, rem, biggest = 0.0;
	bool past = false, fitted;
	char text[512];
	int k = 1;

	job_model_started(m, 10, 1, 1, 1);
	/* a loss that flattens, 1 / (0.004 k + 1) + 0.1: it decreases by
	 * less than the default delta a step from about k = 250 */
	for (; k <= 150; k += 10)
		ck_assert_int_eq(job_model_report(m, 10 + k, k,
				 1.0 / (0.004 * k + 1.0) + 0.1, 1.0, 0), 0);
	job_model_refit(m);
	/* the same fit, the job reporting on past its end */
	for (; k <= 20000 && !(past && prev > 100.0); k += 10) {
		ck_assert_int_eq(job_model_report(m, 10 + k, k,
				 1.0 / (0.004 * k + 1.0) + 0.1, 1.0, 0), 0);
		rem = job_model_remaining_steps(m, &fitted);
		ck_assert_msg(past || fitted || prev < 20.0,
			      "left the fit at step %d with %g steps to go",
			      k, prev);
		past |= !fitted;
		ck_assert_msg(rem >= 1.0, "remaining %g at step %d", rem, k);
		if (prev >= 0.0)
			biggest = fmax(biggest, fabs(rem - prev));
		prev = rem;
	}
	ck_assert_msg(past, "the job never outlived its fit (step %d)", k);
	/* 10 steps between reports: the prediction moves by about as much */
	ck_assert_msg(biggest <= 10.0 + 1.0, "remaining steps jumped by %g",
		      biggest);
	ck_assert_int_eq(job_model_summary(m, NULL, text, sizeof(text)), 0);
	ck_assert_msg(strstr(text, "steps(past fit)"), "%s", text);
	job_model_free(m);
}
END_TEST

/* Resizable only after a confirmed checkpoint, never again after
 * a run resumed below its step; restarts= counts restarts that happened. */
START_TEST(test_resizable_rules)
{
	job_model_t *m = new_job("optimus,steps=5000");
	char why[128];

	job_model_started(m, 100, 1, 1, 1);
	ck_assert_str_eq(job_model_not_resizable(m),
			 "never confirmed a checkpoint");
	ck_assert_ptr_nonnull(job_model_why_not_resizable(m, 1000, 60, why,
							  sizeof(why)));
	ck_assert_int_eq(job_model_checkpoint(m, 110, 0), 0);
	ck_assert_int_eq(job_model_checkpoint(m, 110, -1), -EINVAL);
	ck_assert_ptr_null(job_model_not_resizable(m));
	ck_assert_int_eq(job_model_report(m, 120, 500, 0.5, 1.0, 0), 0);
	job_model_resizing(m, 130);
	ck_assert_uint_eq(m->restarts, 0);	/* begun, not done */
	ck_assert_uint_eq(m->resizes, 1);	/* resizes count when begun */
	ck_assert_int_eq(job_model_checkpoint(m, 132, 510), 0);
	job_model_started(m, 140, 2, 2, 1);
	ck_assert_uint_eq(m->restarts, 1);
	ck_assert_int_eq(job_model_report(m, 150, 515, 0.5, 1.0, 0), 0);
	ck_assert(!m->not_resumable);		/* resumed from its checkpoint */
	/* The checkpoint of the previous run says nothing of this one's
	 * handler: not resizable until it declares, at any age. */
	ck_assert(!job_model_run_declared(m));
	ck_assert_str_eq(job_model_not_resizable(m),
			 "this run has not declared its checkpoint yet");
	ck_assert_ptr_nonnull(job_model_why_not_resizable(m, 100000, 60, why,
							  sizeof(why)));
	ck_assert_int_eq(job_model_checkpoint(m, 151, 515), 0);
	ck_assert(job_model_run_declared(m));
	ck_assert_ptr_null(job_model_why_not_resizable(m, 1000, 60, why,
						       sizeof(why)));
	ck_assert_int_eq(job_model_report(m, 160, 900, 0.5, 1.0, 0), 0);
	/* Reports made after the confirmed checkpoint are lost by design. */
	job_model_resizing(m, 165);
	ck_assert_int_eq(job_model_checkpoint(m, 166, 880), 0);
	ck_assert_int_eq(job_model_report(m, 167, 905, 0.5, 1.0, 0), 0);
	job_model_started(m, 170, 2, 2, 1);
	/* declared in the run's first second: the run's own */
	ck_assert_int_eq(job_model_checkpoint(m, 170, 880), 0);
	ck_assert(job_model_run_declared(m));
	ck_assert_int_eq(job_model_report(m, 172, 885, 0.5, 1.0, 0), 0);
	ck_assert(!m->not_resumable);
	ck_assert_int_eq(job_model_report(m, 174, 950, 0.5, 1.0, 0), 0);
	/* Signal ignored: requeued after the grace, restarts from 10. */
	job_model_resizing(m, 176);
	job_model_started(m, 180, 1, 1, 1);
	ck_assert_int_eq(job_model_report(m, 190, 10, 0.9, 1.0, 0), 0);
	ck_assert(m->not_resumable);		/* started again from 10 */
	ck_assert_str_eq(job_model_not_resizable(m),
			 "resumed below the step it had reached");
	{
		char text[512];

		ck_assert_int_eq(job_model_summary(m, NULL, text,
						   sizeof(text)), 0);
		ck_assert_uint_eq(m->resizes, 3);
		ck_assert_msg(strstr(text, " restarts=3 ") &&
			      strstr(text, " resizable=no: resumed below"),
			      "%s", text);
	}
	job_model_free(m);
}
END_TEST

START_TEST(test_remaining_fallbacks)
{
	job_model_t *m = new_job("optimus,steps=5000");
	bool fitted = true;

	ck_assert_double_eq(job_model_remaining_steps(m, &fitted), 5000);
	ck_assert(!fitted);
	job_model_started(m, 10, 1, 1, 1);
	ck_assert_int_eq(job_model_report(m, 20, 1200, 2.0, 1.0, 0), 0);
	ck_assert_double_eq(job_model_remaining_steps(m, &fitted), 3800);
	job_model_free(m);

	m = new_job("optimus,epochs=10,epoch_steps=300");
	ck_assert_double_eq(job_model_remaining_steps(m, NULL), 3000);
	job_model_free(m);

	/* Epoch length learned from reports: 10 epochs of 200 steps. */
	m = new_job("optimus,epochs=10");
	ck_assert_double_eq(job_model_remaining_steps(m, NULL),
			    JOB_MODEL_PRIOR_STEPS);
	ck_assert_int_eq(job_model_report(m, 20, 400, 2.0, 0, 2), 0);
	ck_assert_double_eq(job_model_remaining_steps(m, NULL), 1600);
	job_model_free(m);

	/* A whole epoch is the one in progress: epoch 1 began between step
	 * 200 (epoch 0) and step 250 (epoch 1), so 3 epochs of 225 steps at
	 * step 340, not 3 x 340 (step / epoch); the mark stays within the
	 * epoch and moves at the next one. */
	m = new_job("optimus,epochs=3");
	ck_assert_int_eq(job_model_report(m, 20, 200, 2.0, 0, 0), 0);
	ck_assert_int_eq(job_model_report(m, 21, 250, 2.0, 0, 1), 0);
	ck_assert_int_eq(job_model_report(m, 22, 340, 2.0, 0, 1), 0);
	ck_assert_double_eq(job_model_target_steps(m), 675);
	ck_assert_int_eq(job_model_report(m, 23, 390, 2.0, 0, 1), 0);
	ck_assert_int_eq(job_model_report(m, 24, 410, 2.0, 0, 2), 0);
	ck_assert_double_eq(job_model_target_steps(m), 600);
	/* A fractional epoch is the share done: exact at every report. */
	ck_assert_int_eq(job_model_report(m, 25, 500, 2.0, 0, 2.5), 0);
	ck_assert_double_eq(job_model_target_steps(m), 600);
	job_model_free(m);

	/* Nothing known: the prior, never below the steps done. */
	m = new_job("optimus");
	ck_assert_double_eq(job_model_remaining_steps(m, &fitted),
			    JOB_MODEL_PRIOR_STEPS);
	ck_assert_int_eq(job_model_report(m, 20, 25000, 2.0, 0, 0), 0);
	ck_assert_double_eq(job_model_remaining_steps(m, NULL), 25000);
	job_model_free(m);
}
END_TEST

START_TEST(test_speed_priors)
{
	job_model_t *m = new_job("optimus,max_ps=8,max_workers=16");
	job_speed_source_t src;
	double f11, f14, f18, f48, f1_64;

	/* No sample: the prior, f(1,1) = JOB_MODEL_PRIOR_SPEED. */
	f11 = job_model_speed_from(m, NULL, 1, 1, &src);
	ck_assert_int_eq(src, JOB_SPEED_PRIOR);
	ck_assert_double_eq_tol(f11, JOB_MODEL_PRIOR_SPEED, 1e-9);
	f14 = job_model_speed(m, NULL, 1, 4);
	f18 = job_model_speed(m, NULL, 1, 8);
	f48 = job_model_speed(m, NULL, 4, 8);
	f1_64 = job_model_speed(m, NULL, 1, 64);
	/* Increases with w, more PS help, saturates with w/p. */
	ck_assert(f14 > f11 && f18 > f14 && f48 > f18);
	ck_assert(f1_64 - f18 < f18 - f11);
	ck_assert(job_model_speed(m, NULL, 1, 128) - f1_64 < 0.1 * (f18 - f11));
	/* One measured sample: the prior passes through it. */
	job_model_started(m, 10, 2, 4, 1);
	ck_assert_int_eq(job_model_report(m, 20, 100, 2.0, 7.5, 0), 0);
	job_model_refit(m);
	ck_assert_double_eq_tol(job_model_speed_from(m, NULL, 2, 4, &src),
				7.5, 1e-9);
	ck_assert_int_eq(src, JOB_SPEED_SCALED);
	ck_assert(job_model_speed(m, NULL, 2, 8) > 7.5);
	job_model_free(m);
}
END_TEST

/* Sync mode: the prior has the shape of Eqn. 4 and saturates too. */
START_TEST(test_speed_prior_sync)
{
	job_model_t *m = new_job("optimus,mode=sync,batch=256,max_ps=8,"
				 "max_workers=64");
	job_speed_source_t src;
	double f1 = job_model_speed_from(m, NULL, 1, 1, &src);
	double f8 = job_model_speed(m, NULL, 2, 8);
	double f64 = job_model_speed(m, NULL, 2, 64);

	ck_assert_int_eq(src, JOB_SPEED_PRIOR);
	ck_assert_double_eq_tol(f1, JOB_MODEL_PRIOR_SPEED, 1e-9);
	ck_assert(f8 > f1);
	/* 8x the workers past saturation gains less than the first 8. */
	ck_assert(f64 - f8 < f8 - f1);
	job_model_free(m);
}
END_TEST

/*
 * All-reduce: the prior grows with workers on one node and drops when the
 * ring crosses nodes; reports are samples at the run's node count; the
 * state round-trips with its mode.
 */
START_TEST(test_allreduce_model)
{
	job_model_t *m = new_job("optimus,mode=allreduce,batch=256,"
				 "max_workers=16"), *b;
	json_object *o;
	char err[256] = "";

	ck_assert_int_eq(m->speed.mode, SPEED_ALLREDUCE);
	ck_assert(job_model_speed(m, NULL, 1, 4) >
		  job_model_speed(m, NULL, 1, 1));
	ck_assert(job_model_speed(m, NULL, 2, 5) <
		  job_model_speed(m, NULL, 1, 4));
	job_model_started(m, 1000, 0, 8, 2);
	ck_assert_int_eq(job_model_report(m, 1010, 100, 1.0, 5.0, 0), 0);
	ck_assert_uint_eq(m->speed.nsamples, 1);
	ck_assert_int_eq(m->speed.samples[0].p, 2);
	/* one sample: the prior passes through it */
	ck_assert_double_eq_tol(job_model_speed(m, NULL, 2, 8), 5.0, 1e-9);
	o = job_model_to_json(m);
	b = job_model_from_json(o, err, sizeof(err));
	ck_assert_msg(b != NULL, "%s", err);
	ck_assert_int_eq(b->speed.mode, SPEED_ALLREDUCE);
	ck_assert_int_eq(b->speed.samples[0].p, 2);
	json_object_put(o);
	job_model_free(b);
	job_model_free(m);
}
END_TEST

/* Explicit CPU-time samples replace the ones derived from the speed. */
START_TEST(test_cost_sample)
{
	job_model_t *m = new_job("quality");

	job_model_started(m, 0, 1, 2, 1);
	for (int k = 1; k <= 10; k++)
		ck_assert_int_eq(job_model_report(m, k, 10.0 * k,
			1.0 / k + 0.1, 4.0, 0), 0);
	ck_assert_uint_eq(m->quality.ncost, 10);
	ck_assert_int_eq(job_model_cost_sample(m, 0, 1), -EINVAL);
	ck_assert_int_eq(job_model_cost_sample(m, 100, 2.0), 0);
	ck_assert(m->explicit_cost);
	ck_assert_uint_eq(m->quality.ncost, 1);
	ck_assert_int_eq(job_model_report(m, 20, 200, 0.2, 4.0, 0), 0);
	ck_assert_uint_eq(m->quality.ncost, 1);
	job_model_refit(m);
	ck_assert_double_eq_tol(m->quality.cost_c, 0.02, 1e-12);
	job_model_free(m);
}
END_TEST

/*
 * A speed report is a claim about the run (job_claims.c): refused while
 * the job waits, for a configuration it does not run, before its progress
 * spans JOB_CLAIM_WINDOW seconds, far from the steps it reported over
 * that time, and beyond the rate; taken otherwise. A step time at a batch
 * of its own lies between the run's step time and that time scaled by the
 * batch ratio.
 */
START_TEST(test_speed_claims)
{
	job_model_t *m = new_job("optimus,mode=allreduce,min_workers=1,"
				 "max_workers=8,batch=64");
	char why[256];
	int taken = 0;

	/* pending */
	ck_assert_int_eq(job_model_speed_claim(m, 1000, 0, 2, 0, 0, 1.0, why,
					       sizeof(why)), -EPERM);
	ck_assert_msg(strstr(why, "not running (pending)"), "%s", why);
	job_model_started(m, 1000, 0, 2, 1);
	/* nothing observed yet */
	ck_assert_int_eq(job_model_speed_claim(m, 1001, 0, 2, 0, 0, 1.0, why,
					       sizeof(why)), -EPERM);
	ck_assert_msg(strstr(why, "do not span 3s"), "%s", why);
	/* the run's progress: 2 steps/s from its first report on */
	for (int t = 0; t <= 10; t++)
		ck_assert_int_eq(job_model_report(m, 1005 + t, 100 + 2.0 * t,
						  1.0, 2.0, 0), 0);
	ck_assert_double_eq_tol(job_model_observed_speed(m), 2.0, 1e-9);
	/* another configuration */
	ck_assert_int_eq(job_model_speed_claim(m, 1015, 0, 8, 0, 0, 2.0, why,
					       sizeof(why)), -EPERM);
	ck_assert_msg(strstr(why, "0 PS + 8 workers is not the configuration"),
		      "%s", why);
	ck_assert_int_eq(job_model_speed_claim(m, 1015, 1, 2, 0, 0, 2.0, why,
					       sizeof(why)), -EPERM);
	/* far from 2 steps/s, either way */
	ck_assert_int_eq(job_model_speed_claim(m, 1015, 0, 2, 0, 0, 0.1, why,
					       sizeof(why)), -EPERM);
	ck_assert_msg(strstr(why, "more than 2x away"), "%s", why);
	ck_assert_int_eq(job_model_speed_claim(m, 1015, 0, 2, 0, 0, 4.5, why,
					       sizeof(why)), -EPERM);
	/* near: taken, JOB_CLAIM_BURST at once, then one a second */
	while (!job_model_speed_claim(m, 1015, 0, 2, 0, 0, 1.5, why,
				      sizeof(why)))
		taken++;
	ck_assert_int_eq(taken, JOB_CLAIM_BURST);
	ck_assert_msg(strstr(why, "at once"), "%s", why);
	ck_assert_int_eq(job_model_speed_claim(m, 1016, 0, 2, 0, 0, 2.5, why,
					       sizeof(why)), 0);
	ck_assert_int_eq(job_model_speed_claim(m, 1016, 0, 2, 0, 0, 2.5, why,
					       sizeof(why)), -EPERM);
	/* a step time at 4x the per-worker batch (32 a worker): between the
	 * run's 0.5 s and 4 x 0.5 s, within 2x */
	ck_assert_int_eq(job_model_speed_claim(m, 1020, 0, 2, 128, 0,
					       1.0 / 1.5, why, sizeof(why)), 0);
	ck_assert_int_eq(job_model_speed_claim(m, 1020, 0, 2, 128, 0,
					       1.0 / 5.0, why, sizeof(why)),
			 -EPERM);
	ck_assert_int_eq(job_model_speed_claim(m, 1021, 0, 2, 16, 0,
					       1.0 / 0.05, why, sizeof(why)),
			 -EPERM);
	ck_assert_uint_eq(m->claims.taken, JOB_CLAIM_BURST + 2);
	ck_assert_uint_eq(m->claims.refused, 10);
	ck_assert_str_eq(m->claims.last_refusal, why);
	/* a new run checks against its own steps */
	job_model_started(m, 1030, 0, 4, 1);
	ck_assert_int_eq(job_model_speed_claim(m, 1031, 0, 4, 0, 0, 2.0, why,
					       sizeof(why)), -EPERM);
	ck_assert_msg(strstr(why, "do not span"), "%s", why);
	job_model_free(m);
}
END_TEST

START_TEST(test_speed_profile)
{
	job_model_t *m = new_job("optimus,model=resnet,max_ps=8,max_workers=16");
	job_model_t *donor = new_job("optimus,max_ps=8,max_workers=16");
	speed_profiles_t *reg = speed_profiles_new();
	job_speed_source_t src;

	feed_runs(donor, five_pw, 5, 100);
	ck_assert_int_eq(speed_profiles_merge(reg, donor->uid, "resnet",
					      &donor->speed), 0);
	ck_assert_double_eq_tol(job_model_speed_from(m, reg, 3, 6, &src),
				true_speed(3, 6), 0.05 * true_speed(3, 6));
	ck_assert_int_eq(src, JOB_SPEED_PROFILE);
	/* Another user's job of that name: not this user's profile. */
	m->uid = donor->uid + 1;
	(void)job_model_speed_from(m, reg, 3, 6, &src);
	ck_assert_int_ne(src, JOB_SPEED_PROFILE);
	/* Another model name: not that profile. */
	ck_assert_int_eq((job_model_speed_from(donor, reg, 3, 6, &src), src),
			 JOB_SPEED_SCALED);
	speed_profiles_free(reg);
	job_model_free(m);
	job_model_free(donor);
}
END_TEST

/*
 * A restart costs the job until its first step, not until Slurm starts it
 * (a job loses more to its first step than from signal to start, and a
 * plan that priced the latter re-batched jobs whose restart did not pay).
 * The first report ends the
 * timing, its steps at the reported speed taken off; a run ending before
 * any report lost all of it; the restart being timed survives the state
 * file.
 */
START_TEST(test_restart_timed_to_first_step)
{
	job_model_t *m = new_job("optimus,steps=4000"), *b;
	json_object *o;
	char err[256];

	job_model_started(m, 100, 1, 2, 1);
	ck_assert_int_eq(job_model_report(m, 150, 1000, 0.5, 10.0, 0), 0);
	job_model_resizing(m, 200);
	job_model_stopped(m, 205);
	job_model_started(m, 210, 2, 4, 2);
	ck_assert_uint_eq(m->restarts, 1);
	o = job_model_to_json(m);
	b = job_model_from_json(o, err, sizeof(err));
	ck_assert_msg(b, "%s", err);
	json_object_put(o);
	/* 10 steps at 2 steps/s by the report at 222: the first at 217. */
	ck_assert_int_eq(job_model_report(b, 222, 1010, 0.5, 2.0, 0), 0);
	ck_assert_double_eq(b->resize_seconds, 17);
	/* Later reports do not add to it. */
	ck_assert_int_eq(job_model_report(b, 240, 1050, 0.5, 2.0, 0), 0);
	ck_assert_double_eq(b->resize_seconds, 17);
	/* A run that ends before its first report lost the whole restart. */
	job_model_resizing(b, 300);
	job_model_stopped(b, 304);
	job_model_started(b, 306, 1, 2, 1);
	job_model_stopped(b, 320);
	ck_assert_double_eq(b->resize_seconds, 17 + 20);
	/* A progress report (no loss) with its speed is timed alike: 60
	 * steps at 2 steps/s by 400, the first at 370, 30 s after the
	 * signal; without a speed it would have cost the 60 s to 400. */
	job_model_resizing(b, 340);
	job_model_stopped(b, 345);
	job_model_started(b, 370, 1, 2, 1);
	ck_assert_int_eq(job_model_progress(b, 400, b->step + 60, 2.0, 0), 0);
	ck_assert_double_eq(b->resize_seconds, 17 + 20 + 30);
	ck_assert_uint_eq(b->restarts_timed, 3);
	ck_assert_double_eq(b->steps_per_sec, 2.0);
	ck_assert_int_eq(job_model_progress(b, 401, b->step, -1.0, 0),
			 -EINVAL);
	job_model_free(b);
	job_model_free(m);
}
END_TEST

START_TEST(test_timing_and_summary)
{
	job_model_t *m = new_job("optimus,steps=4000");
	char buf[512];

	job_model_started(m, 1100, 1, 2, 1);
	ck_assert_int_eq(job_model_report(m, 1150, 1000, 0.5, 10.0, 0), 0);
	job_model_resizing(m, 1200);
	ck_assert_int_eq(m->phase, JM_CHECKPOINTING);
	job_model_stopped(m, 1230);
	job_model_started(m, 1260, 2, 4, 2);
	ck_assert_uint_eq(m->restarts, 1);
	/* Timed to its first step: the first report ends it. */
	ck_assert_int_eq(m->restart_from, 1200);
	ck_assert_double_eq(m->resize_seconds, 0);
	ck_assert_uint_eq(m->nruns, 2);
	ck_assert_int_eq(m->runs[0].end, 1230);
	ck_assert_double_eq(m->runs[0].steps_done, 1000);
	ck_assert_int_eq(job_model_summary(m, NULL, buf, sizeof(buf)), 0);
	ck_assert_msg(strstr(buf, "optimus: ps=2 workers=4 ") == buf, "%s", buf);
	ck_assert_msg(strstr(buf, "remaining=3000 steps(target)"), "%s", buf);
	ck_assert_msg(strstr(buf, "restarts=1"), "%s", buf);
	ck_assert_msg(!strstr(buf, "jct="), "%s", buf);
	/* Done: it completed, with no work left to predict. */
	{
		job_model_t *d = new_job("optimus,steps=4000");
		char done[512];

		job_model_started(d, 1100, 1, 2, 1);
		job_model_done(d, 1130);
		ck_assert_int_eq(job_model_summary(d, NULL, done, sizeof(done)),
				 0);
		ck_assert_msg(strstr(done, " completed fit=") &&
			      strstr(done, " jct=") &&
			      !strstr(done, "remaining=") &&
			      !strstr(done, "eta="), "%s", done);
		job_model_free(d);
	}
	/* Its first report: 10 steps at 10 steps/s, the first step at 1260,
	 * 60 s after the signal. */
	ck_assert_int_eq(job_model_report(m, 1261, 1010, 0.5, 10.0, 0), 0);
	ck_assert_double_eq(m->resize_seconds, 60);
	job_model_done(m, 1900);
	ck_assert_int_eq(job_model_summary(m, NULL, buf, sizeof(buf)), 0);
	ck_assert_msg(strstr(buf, " jct=900s"), "%s", buf);
	/* Done: the topology of its last run, not 0/0. */
	ck_assert_msg(strstr(buf, "optimus: ps=2 workers=4 ") == buf, "%s", buf);
	/* 60 s lost between the first start (1100) and the end (1900). */
	ck_assert_double_eq_tol(job_model_resize_share(m), 60.0 / 800.0, 1e-9);
	ck_assert_msg(strstr(buf, "resize=60s(7.5%)"), "%s", buf);
	ck_assert_int_eq(job_model_summary(m, NULL, buf, 20), -ENOSPC);
	ck_assert_uint_eq(strlen(buf), 19);
	job_model_free(m);
}
END_TEST

/* Run history bounded: the oldest run is dropped. */
START_TEST(test_run_history)
{
	job_model_t *m = new_job("optimus");

	for (int i = 0; i < JOB_MODEL_MAX_RUNS + 5; i++)
		job_model_started(m, 100 + 10 * i, 1, 1 + i % 3, 1);
	ck_assert_uint_eq(m->nruns, JOB_MODEL_MAX_RUNS);
	ck_assert_int_eq(m->runs[0].start, 100 + 10 * 5);
	ck_assert_int_eq(m->runs[JOB_MODEL_MAX_RUNS - 2].end,
			 m->runs[JOB_MODEL_MAX_RUNS - 1].start);
	job_model_free(m);
}
END_TEST

/* A requeue ends the run of a running or checkpointing job and only
 * theirs: pending, requeued and done records keep their phase. */
START_TEST(test_requeued)
{
	job_model_t *m = new_job("optimus");

	job_model_requeued(m, 90);
	ck_assert_int_eq(m->phase, JM_PENDING);
	job_model_started(m, 100, 1, 2, 1);
	job_model_requeued(m, 150);
	ck_assert_int_eq(m->phase, JM_REQUEUED);
	ck_assert_int_eq(m->runs[0].end, 150);
	job_model_started(m, 200, 1, 1, 1);
	job_model_resizing(m, 210);
	job_model_requeued(m, 220);
	ck_assert_int_eq(m->phase, JM_REQUEUED);
	ck_assert_int_eq(m->runs[1].end, 220);
	job_model_done(m, 300);
	job_model_requeued(m, 310);
	ck_assert_int_eq(m->phase, JM_DONE);
	job_model_free(m);
}
END_TEST

/* A stop's requeue is due once its checkpoint is confirmed, or at the
 * end of its grace from the signal; never outside a stop. */
START_TEST(test_requeue_due)
{
	job_model_t *m = new_job("optimus,ckpt_grace=30");

	job_model_started(m, 100, 1, 2, 1);
	ck_assert(!job_model_requeue_due(m, true, 200));
	job_model_resizing(m, 200);
	ck_assert(!job_model_requeue_due(m, false, 229));
	ck_assert(job_model_requeue_due(m, true, 201));
	ck_assert(job_model_requeue_due(m, false, 230));
	job_model_requeued(m, 230);
	ck_assert(!job_model_requeue_due(m, true, 300));
	job_model_free(m);
}
END_TEST

/* A running job adopted without a record: running at its real size,
 * which is also the size planned, and not resized before the minimum
 * interval from its adoption. */
START_TEST(test_adopted)
{
	job_model_t *m = new_job("optimus");

	job_model_adopted(m, 100, 500, 2, 6, 2);
	ck_assert_int_eq(m->phase, JM_RUNNING);
	ck_assert_int_eq(m->cur_ps, 2);
	ck_assert_int_eq(m->cur_workers, 6);
	ck_assert_int_eq(m->plan_ps, 2);
	ck_assert_int_eq(m->plan_workers, 6);
	ck_assert_int_eq(m->adopted, 500);
	ck_assert_int_eq(m->last_resize, 500);
	job_model_free(m);
}
END_TEST

/* A run Slurm requeued itself (a node failed) is a fault's restart: not
 * counted in restarts, not charged as a resize, resumed from the last
 * confirmed checkpoint without the job being called not resumable; a
 * resize under way is abandoned. The count survives the state
 * file. */
START_TEST(test_lost_run_is_a_fault_not_a_resize)
{
	job_model_t *m = new_job("optimus"), *b;
	json_object *o;
	char err[256];

	job_model_started(m, 100, 1, 2, 1);
	ck_assert_int_eq(job_model_checkpoint(m, 101, 0), 0);
	ck_assert_int_eq(job_model_report(m, 110, 50, 1, 5, 0), 0);
	job_model_lost_run(m, 120);
	ck_assert_int_eq(m->phase, JM_REQUEUED);
	job_model_started(m, 130, 1, 2, 1);
	ck_assert_uint_eq(m->restarts, 0);
	ck_assert_uint_eq(m->fault_restarts, 1);
	ck_assert(m->resize_seconds == 0);
	ck_assert_int_eq(job_model_report(m, 135, 5, 1, 5, 0), 0);
	/* the new run resizable once it declared, as every run */
	ck_assert_ptr_nonnull(job_model_not_resizable(m));
	ck_assert_int_eq(job_model_checkpoint(m, 136, 0), 0);
	ck_assert_ptr_null(job_model_not_resizable(m));
	/* dies while checkpointing for a resize */
	job_model_resizing(m, 140);
	job_model_lost_run(m, 145);
	job_model_started(m, 150, 1, 1, 1);
	ck_assert_uint_eq(m->restarts, 0);
	ck_assert_uint_eq(m->fault_restarts, 2);
	ck_assert(m->resize_seconds == 0);
	ck_assert_uint_eq(m->resizes, 1);
	/* a plan's resize still counts */
	job_model_resizing(m, 160);
	job_model_requeued(m, 165);
	job_model_started(m, 170, 1, 2, 1);
	ck_assert_uint_eq(m->restarts, 1);
	ck_assert_int_eq(m->restart_from, 160);
	/* Lost before its first report: the whole restart, 160 to 180. */
	job_model_lost_run(m, 180);
	ck_assert(m->resize_seconds == 20);
	o = job_model_to_json(m);
	b = job_model_from_json(o, err, sizeof(err));
	ck_assert_msg(b, "%s", err);
	ck_assert_uint_eq(b->fault_restarts, 2);
	ck_assert(b->fault_requeue);
	json_object_put(o);
	job_model_free(b);
	job_model_free(m);
}
END_TEST

/*
 * Preemption: the attained service counts every run's GPUs x
 * seconds, the open one up to now, exactly across the history's trimming;
 * a preemption checkpoints like a resize but is not one (neither resizes
 * nor resize_seconds), its checkpoint is where the next run resumes, and
 * its requeue leaves an ordinary pending job waiting since then, no size
 * planned. The record survives the state file; one written before these
 * fields loads (waiting since submission, the runs' service).
 */
/* What a preemption shows (SystemComment) and when its requeue is due. */
START_TEST(test_preemption_shown)
{
	job_model_t *m = new_job("optimus,worker_gpus=1");
	char text[1024];

	job_model_started(m, 1100, 1, 2, 1);
	ck_assert_int_eq(job_model_summary(m, NULL, text, sizeof(text)), 0);
	ck_assert_ptr_null(strstr(text, "preempted"));
	ck_assert_int_eq(job_model_signalled(m), 0);
	job_model_preempting(m, 1200);
	ck_assert_int_eq(job_model_signalled(m), 1200);
	job_model_requeued(m, 1210);
	ck_assert_int_eq(job_model_signalled(m), 0);
	ck_assert_int_eq(job_model_summary(m, NULL, text, sizeof(text)), 0);
	ck_assert_msg(strstr(text, " faults=0 preempted=1 resize="), "%s", text);
	/* a resize's signal, as before */
	job_model_started(m, 1300, 1, 2, 1);
	job_model_resizing(m, 1400);
	ck_assert_int_eq(job_model_signalled(m), 1400);
	job_model_free(m);
}
END_TEST

/*
 * The plan stopped the job for another: its owner reads for whom and by
 * which rule in the summary (SystemComment) while it waits and once it
 * runs again; the step shown while it is stopped is the checkpoint's, the
 * one it resumes from (here beyond its last report). The record keeps the
 * stop across a restart (JSON); a bad saved value is refused.
 */
START_TEST(test_stop_shown)
{
	job_model_t *m = new_job("optimus,worker_gpus=1"), *b;
	json_object *o, *bad;
	char text[1024], err[256];
	const char *why = "optimus: preempted for JobId=7 (preemption with "
			  "aging: attained 200 GPU-s, JobId=7 waited 300 s)";
	const char *refused[][2] = {
		{ "\"line\\nforged\"", "7" }, { "\"\"", "7" },
		{ "\"ok\"", "-1" }, { "\"ok\"", "4294967296" },
		{ "7", "7" }, { "\"ok\"", "\"7\"" }, { "\"ok\"", NULL },
	};

	job_model_started(m, 1100, 1, 2, 1);
	ck_assert_int_eq(job_model_checkpoint(m, 1101, 0), 0);
	ck_assert_int_eq(job_model_report(m, 1190, 327, 1, 5, 0), 0);
	ck_assert_int_eq(job_model_summary(m, NULL, text, sizeof(text)), 0);
	ck_assert_ptr_null(strstr(text, "last stop"));
	job_model_preempting(m, 1200);
	job_model_stop_reason(m, 7, why);
	/* signalled, nothing confirmed yet: the last report's step */
	ck_assert_double_eq(job_model_step_shown(m), 327);
	ck_assert_int_eq(job_model_checkpoint(m, 1203, 333), 0);
	ck_assert_double_eq(job_model_step_shown(m), 333);
	job_model_requeued(m, 1210);
	ck_assert_int_eq(job_model_summary(m, NULL, text, sizeof(text)), 0);
	ck_assert_msg(strstr(text, " step=333 "), "%s", text);
	ck_assert_msg(strstr(text, " last stop: preempted for JobId=7 "
			     "(preemption with aging: "), "%s", text);
	ck_assert_ptr_null(strstr(text, "stop: optimus:"));

	o = job_model_to_json(m);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(json_object_get_int64(
		json_object_object_get(o, "stopped_for")), 7);
	b = job_model_from_json(o, err, sizeof(err));
	ck_assert_msg(b != NULL, "%s", err);
	ck_assert_uint_eq(b->stop_for, 7);
	ck_assert_str_eq(b->stop_reason, m->stop_reason);
	job_model_free(b);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		bad = json_tokener_parse(json_object_to_json_string(o));
		json_object_object_add(bad, "stop_reason",
				       json_tokener_parse(refused[i][0]));
		if (refused[i][1])
			json_object_object_add(bad, "stopped_for",
					json_tokener_parse(refused[i][1]));
		else
			json_object_object_del(bad, "stopped_for");
		err[0] = '\0';
		b = job_model_from_json(bad, err, sizeof(err));
		ck_assert_msg(!b, "accepted %s / %s", refused[i][0],
			      refused[i][1] ? refused[i][1] : "(none)");
		ck_assert_msg(strstr(err, "stop"), "%s", err);
		json_object_put(bad);
	}
	json_object_put(o);

	/* running again: its own step, and still why it was stopped */
	job_model_started(m, 1300, 1, 2, 1);
	ck_assert_double_eq(job_model_step_shown(m), m->step);
	ck_assert_int_eq(job_model_summary(m, NULL, text, sizeof(text)), 0);
	ck_assert_msg(strstr(text, " last stop: preempted for JobId=7 "),
		      "%s", text);
	/* a resize for its own sake: no job named */
	job_model_resizing(m, 1400);
	job_model_stop_reason(m, 0, "optimus: grows to 1 PS + 4 workers "
			      "(gain 30.0%)");
	ck_assert_uint_eq(m->stop_for, 0);
	ck_assert_str_eq(m->stop_reason, "grows to 1 PS + 4 workers "
			 "(gain 30.0%)");
	job_model_free(m);
}
END_TEST

START_TEST(test_preemption_record)
{
	job_model_t *m = new_job("optimus,worker_gpus=2"), *b;
	json_object *o;
	char err[256];

	ck_assert_int_eq(m->waiting_since, 1000);
	ck_assert(job_model_attained(m, 5000) == 0);
	job_model_started(m, 1100, 1, 3, 1);	/* 6 GPUs */
	ck_assert(job_model_attained(m, 1200) == 600);
	ck_assert_int_eq(job_model_checkpoint(m, 1101, 0), 0);
	ck_assert_int_eq(job_model_report(m, 1190, 80, 1, 5, 0), 0);
	m->plan_ps = 1;
	m->plan_workers = 3;
	job_model_preempting(m, 1200);
	ck_assert_int_eq(m->phase, JM_CHECKPOINTING);
	ck_assert_uint_eq(m->preemptions, 1);
	ck_assert_uint_eq(m->resizes, 0);
	ck_assert(job_model_attained(m, 1210) == 660);
	ck_assert_int_eq(job_model_checkpoint(m, 1205, 70), 0);
	job_model_requeued(m, 1220);
	ck_assert_int_eq(m->phase, JM_REQUEUED);
	ck_assert_int_eq(m->waiting_since, 1220);
	ck_assert_int_eq(m->plan_ps, 0);
	ck_assert_int_eq(m->plan_workers, 0);
	ck_assert(job_model_attained(m, 9999) == 720);
	/* a plain resize's requeue does not reset the wait */
	job_model_started(m, 1300, 1, 1, 1);	/* 2 GPUs */
	ck_assert(m->resize_seconds == 0);
	ck_assert_uint_eq(m->restarts, 1);
	ck_assert(m->resume_floor == 70);	/* the preemption's checkpoint */
	job_model_resizing(m, 1400);
	job_model_requeued(m, 1410);
	ck_assert_int_eq(m->waiting_since, 1220);
	ck_assert(job_model_attained(m, 1500) == 720 + 220);
	/* a run lost to a fault: its GPUs lost too, aged from then */
	job_model_started(m, 1420, 1, 1, 1);
	job_model_lost_run(m, 1450);
	ck_assert_int_eq(m->waiting_since, 1450);
	ck_assert(job_model_attained(m, 1500) == 720 + 220 + 60);
	job_model_started(m, 1460, 1, 1, 1);
	/* through the state file */
	job_model_preempting(m, 1500);	/* a record mid-preemption */
	o = job_model_to_json(m);
	b = job_model_from_json(o, err, sizeof(err));
	ck_assert_msg(b, "%s", err);
	ck_assert(b->attained == m->attained);
	ck_assert_int_eq(b->waiting_since, 1450);
	ck_assert_int_eq(b->preempt_began, 1500);
	ck_assert_uint_eq(b->preemptions, 2);
	job_model_free(b);
	/* written before preemption existed */
	json_object_object_del(o, "attained");
	json_object_object_del(o, "waiting_since");
	json_object_object_del(o, "preempt_began");
	json_object_object_del(o, "preemptions");
	b = job_model_from_json(o, err, sizeof(err));
	ck_assert_msg(b, "%s", err);
	ck_assert(b->attained == 720 + 220 + 60);
	ck_assert_int_eq(b->waiting_since, 1000);
	ck_assert_int_eq(b->preempt_began, 0);
	ck_assert_uint_eq(b->preemptions, 0);
	job_model_free(b);
	json_object_put(o);
	job_model_free(m);

	/* trimming the history keeps the service exact */
	m = new_job("optimus");
	for (int i = 0; i < JOB_MODEL_MAX_RUNS + 5; i++)
		job_model_started(m, 100 + 10 * i, 1, 1, 1);
	job_model_done(m, 100 + 10 * (JOB_MODEL_MAX_RUNS + 5));
	ck_assert(job_model_attained(m, 1e6) ==
		  10.0 * (JOB_MODEL_MAX_RUNS + 5));
	job_model_free(m);
}
END_TEST

static job_model_t *fed_job(void)
{
	job_model_t *m = new_job("optimus,model=vgg,max_ps=8,max_workers=16,"
				 "epochs=30,epoch_steps=100");

	feed_runs(m, five_pw, 5, 200);
	ck_assert_int_eq(job_model_checkpoint(m, 8000, 900), 0);
	job_model_resizing(m, 9000);
	job_model_refit(m);
	return m;
}

START_TEST(test_json_roundtrip)
{
	job_model_t *m = fed_job(), *b;
	json_object *o = job_model_to_json(m), *o2, *o2b;
	char err[256] = "";
	bool f1, f2;

	ck_assert_ptr_nonnull(o);
	/* Through text, as in a state file. */
	o2 = json_tokener_parse(json_object_to_json_string(o));
	b = job_model_from_json(o2, err, sizeof(err));
	ck_assert_msg(b != NULL, "%s", err);
	ck_assert_uint_eq(b->job_id, m->job_id);
	ck_assert_int_eq(b->phase, JM_CHECKPOINTING);
	ck_assert_str_eq(b->hints.model, "vgg");
	ck_assert_uint_eq(b->hints.set, m->hints.set);
	ck_assert_uint_eq(b->nruns, m->nruns);
	ck_assert_uint_eq(b->restarts, m->restarts);
	ck_assert_uint_eq(b->resizes, m->resizes);
	ck_assert_uint_ne(b->resizes, 0);
	ck_assert_uint_eq(b->not_resumable, m->not_resumable);
	ck_assert_double_eq(b->ckpt_step, m->ckpt_step);
	ck_assert_int_eq(b->ckpt_confirmed, m->ckpt_confirmed);
	ck_assert_double_eq(b->step, m->step);
	ck_assert_double_eq_tol(job_model_remaining_steps(b, &f2),
				job_model_remaining_steps(m, &f1), 1e-6);
	ck_assert(f1 == f2);
	ck_assert_double_eq_tol(job_model_speed(b, NULL, 3, 5),
				job_model_speed(m, NULL, 3, 5), 1e-9);
	o2b = job_model_to_json(b);
	ck_assert_str_eq(json_object_to_json_string(o2b),
			 json_object_to_json_string(o));
	json_object_put(o2b);
	/* A record written before "resizes" existed still loads (0). */
	json_object_object_del(o2, "resizes");
	job_model_free(b);
	b = job_model_from_json(o2, err, sizeof(err));
	ck_assert_msg(b != NULL, "%s", err);
	ck_assert_uint_eq(b->resizes, 0);
	json_object_put(o);
	json_object_put(o2);
	job_model_free(m);
	job_model_free(b);
}
END_TEST

/* The epoch mark is kept across a restart of slurmctld; a record written
 * before it was marked at its last report (step / epoch) and loads. */
START_TEST(test_json_epoch_mark)
{
	job_model_t *m = new_job("optimus,epochs=3"), *b;
	json_object *j, *o;
	char err[256] = "";

	ck_assert_int_eq(job_model_report(m, 20, 200, 2.0, 0, 0), 0);
	ck_assert_int_eq(job_model_report(m, 21, 250, 2.0, 0, 1), 0);
	ck_assert_int_eq(job_model_report(m, 22, 340, 2.0, 0, 1), 0);
	j = job_model_to_json(m);
	o = json_tokener_parse(json_object_to_json_string(j));
	json_object_put(j);
	b = job_model_from_json(o, err, sizeof(err));
	ck_assert_msg(b != NULL, "%s", err);
	ck_assert_double_eq(job_model_target_steps(b), 675);
	job_model_free(b);
	json_object_object_del(o, "epoch_mark");
	json_object_object_del(o, "epoch_mark_step");
	b = job_model_from_json(o, err, sizeof(err));
	ck_assert_msg(b != NULL, "%s", err);
	ck_assert_double_eq(job_model_target_steps(b), 1020);
	job_model_free(b);
	json_object_object_add(o, "epoch_mark", json_object_new_double(-1));
	b = job_model_from_json(o, err, sizeof(err));
	ck_assert_ptr_null(b);
	ck_assert_msg(strstr(err, "epoch_mark"), "%s", err);
	json_object_put(o);
	job_model_free(m);
}
END_TEST

/* Replace (or delete, v NULL) key in a fresh copy of a good record. */
static void expect_bad(const char *key, json_object *v, const char *needle)
{
	job_model_t *m = fed_job(), *b;
	json_object *good = job_model_to_json(m);
	json_object *o = json_tokener_parse(json_object_to_json_string(good));
	char err[256] = "";

	json_object_put(good);
	if (v)
		json_object_object_add(o, key, v);
	else
		json_object_object_del(o, key);
	b = job_model_from_json(o, err, sizeof(err));
	ck_assert_msg(b == NULL, "accepted bad '%s'", key);
	ck_assert_msg(strstr(err, needle), "'%s': message '%s' lacks '%s'",
		      key, err, needle);
	json_object_put(o);
	job_model_free(m);
}

START_TEST(test_json_malformed)
{
	char err[256];
	json_object *i3 = json_object_new_int(3), *empty = json_object_new_object();

	ck_assert_ptr_null(job_model_from_json(NULL, err, sizeof(err)));
	ck_assert_ptr_null(job_model_from_json(i3, err, sizeof(err)));
	ck_assert_ptr_null(job_model_from_json(empty, err, sizeof(err)));
	json_object_put(i3);
	json_object_put(empty);
	expect_bad("job_id", NULL, "job_id");
	expect_bad("job_id", json_object_new_string("7"), "job_id");
	expect_bad("job_id", json_object_new_int64(1LL << 40), "job_id");
	expect_bad("step", json_object_new_double(-1), "step");
	expect_bad("step", json_object_new_double(NAN), "step");
	expect_bad("loss", json_object_new_double(INFINITY), "loss");
	expect_bad("cur_ps", json_object_new_double(1.5), "integer");
	expect_bad("cur_workers", json_object_new_int(100000), "cur_workers");
	expect_bad("phase", json_object_new_string("flying"), "phase");
	expect_bad("phase", json_object_new_int(1), "phase");
	expect_bad("hints", json_object_new_string("optimus,ps=-3"), "hints");
	expect_bad("hints", json_object_new_string("lottery"), "hints");
	expect_bad("hints_set", json_object_new_int(-1), "hints_set");
	expect_bad("end_time", json_object_new_int(5), "end_time");
	expect_bad("runs", json_object_new_object(), "runs");
	expect_bad("runs", json_tokener_parse("[{\"start\":5}]"), "runs[0]");
	expect_bad("runs", json_tokener_parse("[3]"), "runs[0]");
	expect_bad("runs", json_tokener_parse(
		"[{\"start\":50,\"end\":10,\"ps\":1,\"workers\":1,\"nodes\":1,"
		"\"steps_done\":0}]"), "ends before");
	expect_bad("convergence", json_object_new_array(), "convergence");
	expect_bad("convergence", json_tokener_parse("{\"cfg\":1}"),
		   "convergence");
	expect_bad("speed", json_tokener_parse("{}"), "speed");
	expect_bad("quality", NULL, "quality");
}
END_TEST

/*
 * Every key, top-level and one level down, replaced by every kind of bad
 * value: each load either fails with a message or gives a usable record
 * (some values are legal for some keys), and never crashes.
 */
START_TEST(test_json_every_key)
{
	job_model_t *m = fed_job();
	json_object *orig = job_model_to_json(m);
	const char *text = json_object_to_json_string(orig);
	const char *bad[] = { "null", "\"x\"", "[]", "{}", "-1", "1e300",
			      "0.5", "[1,2,3]", "true", "4294967296" };
	json_object *ref = json_tokener_parse(text);
	size_t rejected = 0, total = 0;

	json_object_object_foreach(ref, key, val) {
		const char *sub[64];
		size_t nsub = 0;

		sub[nsub++] = NULL;
		if (json_object_is_type(val, json_type_object)) {
			json_object_object_foreach(val, k2, v2) {
				(void)v2;
				if (nsub < 64)
					sub[nsub++] = k2;
			}
		}
		for (size_t s = 0; s < nsub; s++) {
			for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
				json_object *o = json_tokener_parse(text), *at = o;
				job_model_t *r;
				char err[256] = "";

				if (sub[s])
					at = json_object_object_get(o, key);
				json_object_object_add(at, sub[s] ? sub[s] : key,
						       json_tokener_parse(bad[b]));
				r = job_model_from_json(o, err, sizeof(err));
				total++;
				if (!r) {
					rejected++;
					ck_assert_msg(err[0], "no message for %s.%s",
						      key, sub[s] ? sub[s] : "");
				} else {
					char line[512];

					job_model_refit(r);
					ck_assert_int_eq(job_model_summary(r, NULL,
						line, sizeof(line)), 0);
					job_model_free(r);
				}
				json_object_put(o);
			}
		}
	}
	ck_assert_uint_gt(total, 200);
	ck_assert_uint_gt(rejected, total * 3 / 4);
	json_object_put(ref);
	json_object_put(orig);
	job_model_free(m);
}
END_TEST

/*
 * One bound on steps (PROTOCOL_MAX_STEP, report/protocol.h): a report
 * above it is refused, and a run's steps summed from reports saturate at
 * it, so that the largest step accepted then smaller ones (a restart from
 * an older checkpoint) leave a record the state file loads back.
 */
START_TEST(test_steps_bounded_and_saturated)
{
	job_model_t *m = new_job("optimus"), *b;
	double top = (double)PROTOCOL_MAX_STEP;
	json_object *o;
	char err[256];

	job_model_started(m, 100, 1, 2, 1);
	ck_assert_int_eq(job_model_report(m, 101, top + 1, 1, 0, 0), -EINVAL);
	ck_assert_int_eq(job_model_report(m, 101, 10, 1, top * 2, 0), -EINVAL);
	ck_assert_int_eq(job_model_checkpoint(m, 101, top + 1), -EINVAL);
	ck_assert_int_eq(job_model_report(m, 102, top, 1, 0, 0), 0);
	ck_assert_int_eq(job_model_report(m, 103, 400, 1, 0, 0), 0);
	ck_assert_int_eq(job_model_report(m, 104, 410, 1, 0, 0), 0);
	ck_assert_int_eq(job_model_report(m, 105, 420, 1, 0, 0), 0);
	ck_assert(m->runs[0].steps_done == top);
	ck_assert(job_model_steps_add(top - 5, 3) == top - 2);
	ck_assert(job_model_steps_add(top - 5, 30) == top);
	o = job_model_to_json(m);
	b = job_model_from_json(o, err, sizeof(err));
	ck_assert_msg(b, "%s", err);
	ck_assert(b->runs[0].steps_done == top);
	ck_assert_uint_eq(b->reports, 4);
	json_object_put(o);
	job_model_free(b);
	job_model_free(m);
}
END_TEST

/*
 * A finished job requeued by its owner: a new pending run, planned afresh
 * (no planned size), neither a restart (a resize's) nor a fault restart;
 * the count and a rerun awaiting its start survive the state file.
 */
START_TEST(test_rerun_is_a_new_pending_run)
{
	job_model_t *m = new_job("optimus"), *b;
	json_object *o;
	char err[256];

	job_model_started(m, 100, 1, 2, 1);
	ck_assert_int_eq(job_model_report(m, 110, 50, 1, 5, 0), 0);
	m->plan_ps = 1, m->plan_workers = 2;
	job_model_rerun(m, 115);	/* not done: nothing changes */
	ck_assert_int_eq(m->phase, JM_RUNNING);
	job_model_done(m, 120);
	job_model_failed(m, "FAILED exit=1:0");
	job_model_rerun(m, 130);
	ck_assert_int_eq(m->phase, JM_PENDING);
	ck_assert_int_eq(m->end_time, 0);
	ck_assert_str_eq(m->failed, "");
	ck_assert_int_eq(m->waiting_since, 130);
	ck_assert_int_eq(m->plan_workers, 0);
	o = job_model_to_json(m);
	b = job_model_from_json(o, err, sizeof(err));
	ck_assert_msg(b, "%s", err);
	ck_assert(b->rerun);
	json_object_put(o);
	job_model_started(b, 140, 1, 2, 1);
	ck_assert_uint_eq(b->restarts, 0);
	ck_assert_uint_eq(b->fault_restarts, 0);
	ck_assert_uint_eq(b->resizes, 0);
	ck_assert_uint_eq(b->reruns, 1);
	ck_assert(!b->rerun);
	/* resumes from wherever its owner chose: not "not resumable" */
	ck_assert_int_eq(job_model_report(b, 150, 5, 1, 5, 0), 0);
	ck_assert(!b->not_resumable);
	ck_assert_uint_eq(b->nruns, 2);
	job_model_free(b);
	job_model_free(m);
}
END_TEST

/*
 * Every key of a record made bad in turn: the salvaged load keeps the
 * record (its job, uid and reports) and says what it refused, unless the
 * key tells which job it is (job_id, uid, hints).
 */
START_TEST(test_json_salvage_every_key)
{
	job_model_t *m = fed_job();
	json_object *orig = job_model_to_json(m);
	const char *text = json_object_to_json_string(orig);
	const char *bad[] = { "null", "\"x\"", "-1", "1e300", "[1,2,3]" };
	json_object *ref = json_tokener_parse(text);
	size_t salvaged = 0;

	json_object_object_foreach(ref, key, val) {
		bool identity = !strcmp(key, "job_id") || !strcmp(key, "uid") ||
				!strcmp(key, "hints");

		(void)val;
		for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
			json_object *o = json_tokener_parse(text);
			char err[256] = "", refused[1024] = "x";
			job_model_t *strict, *r;

			json_object_object_add(o, key, json_tokener_parse(bad[b]));
			strict = job_model_from_json(o, err, sizeof(err));
			r = job_model_from_json_salvaged(o, refused,
							 sizeof(refused));
			if (strict) {
				ck_assert_msg(r && !refused[0], "%s", key);
			} else if (identity) {
				ck_assert_msg(!r && refused[0], "%s", key);
			} else {
				ck_assert_msg(r, "%s=%s: %s", key, bad[b],
					      refused);
				ck_assert_msg(strstr(refused, key), "%s: %s",
					      key, refused);
				ck_assert_uint_eq(r->job_id, m->job_id);
				ck_assert_uint_eq(r->uid, m->uid);
				if (strcmp(key, "reports"))
					ck_assert_uint_eq(r->reports,
							  m->reports);
				salvaged++;
			}
			job_model_free(strict);
			job_model_free(r);
			json_object_put(o);
		}
	}
	ck_assert_uint_gt(salvaged, 100);
	json_object_put(ref);
	json_object_put(orig);
	job_model_free(m);
}
END_TEST

/* A run's bad field is 0, the run and the others kept; a run that is no
 * run is left out. */
START_TEST(test_json_salvage_mends_only_the_bad_run)
{
	job_model_t *m = fed_job(), *r;
	json_object *o = job_model_to_json(m), *runs;
	char refused[512];
	size_t n;

	ck_assert(json_object_object_get_ex(o, "runs", &runs));
	n = json_object_array_length(runs);
	ck_assert_uint_gt(n, 2);
	json_object_object_add(json_object_array_get_idx(runs, 0),
			       "steps_done", json_object_new_double(1e300));
	json_object_array_put_idx(runs, 1, json_object_new_string("x"));
	r = job_model_from_json_salvaged(o, refused, sizeof(refused));
	ck_assert_msg(r, "%s", refused);
	ck_assert_msg(strstr(refused, "runs[0]") &&
		      strstr(refused, "steps_done") &&
		      strstr(refused, "runs[1]"), "%s", refused);
	ck_assert_uint_eq(r->nruns, n - 1);
	ck_assert(r->runs[0].steps_done == 0);
	ck_assert_int_eq(r->runs[0].workers, m->runs[0].workers);
	ck_assert_int_eq(r->runs[1].start, m->runs[2].start);
	ck_assert(r->step == m->step);
	json_object_put(o);
	job_model_free(r);
	job_model_free(m);
}
END_TEST

/* A model of the other mode than the hints is refused. */
START_TEST(test_json_mode_mismatch)
{
	job_model_t *m = fed_job(), *b;
	json_object *o = job_model_to_json(m);
	char err[256] = "";

	json_object_object_add(o, "hints",
			       json_object_new_string("optimus,mode=sync,batch=64"));
	b = job_model_from_json(o, err, sizeof(err));
	ck_assert_ptr_null(b);
	ck_assert_msg(strstr(err, "mode"), "%s", err);
	json_object_put(o);
	job_model_free(m);
}
END_TEST

/* Quality: loss after T with more units is lower, and finite when
 * nothing is fitted yet. */
START_TEST(test_loss_after)
{
	job_model_t *m = new_job("quality");
	double l1, l4;

	l1 = job_model_loss_after(m, NULL, 60, 1);
	l4 = job_model_loss_after(m, NULL, 60, 4);
	ck_assert(isfinite(l1) && isfinite(l4) && l4 < l1 && l1 < 1.0);
	job_model_started(m, 0, 1, 2, 1);
	for (int k = 1; k <= 40; k++)
		ck_assert_int_eq(job_model_report(m, k, 10.0 * k,
			2.0 * pow(10.0 * k, -0.5) + 0.1, 4.0, 0), 0);
	job_model_refit(m);
	ck_assert(m->quality.fitted);
	/* 4 steps/s with 2 workers: 60 s with 2 units = 240 iterations. */
	ck_assert_double_eq_tol(job_model_loss_after(m, NULL, 60, 2),
				2.0 * pow(400.0 + 240.0, -0.5) + 0.1, 2e-3);
	ck_assert(job_model_loss_after(m, NULL, 60, 8) <
		  job_model_loss_after(m, NULL, 60, 2));
	job_model_free(m);
}
END_TEST

/* The planner fits a clone without the registry lock and swaps it in:
 * the clone owns its models (refitting it leaves the original as it was)
 * and predicts what refitting the original in place predicts. */
START_TEST(test_clone_refit)
{
	job_model_t *m = new_job("optimus"), *c;
	bool f1, f2;

	feed_runs(m, five_pw, 5, 2000);
	ck_assert_uint_ne(m->dirty, 0);
	c = job_model_clone(m);
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_ne(c->conv, m->conv);
	ck_assert_ptr_ne(c->speed.samples, m->speed.samples);
	ck_assert_ptr_ne(c->quality.iter, m->quality.iter);
	job_model_refit(c);
	ck_assert_uint_eq(c->dirty, 0);
	ck_assert_uint_ne(m->dirty, 0);
	ck_assert(!m->conv->fitted && !m->speed.fitted);
	ck_assert(c->conv->fitted && c->speed.fitted);
	job_model_refit(m);
	ck_assert_double_eq(job_model_remaining_steps(c, &f1),
			    job_model_remaining_steps(m, &f2));
	ck_assert(f1 == f2);
	ck_assert_double_eq(job_model_speed(c, NULL, 2, 4),
			    job_model_speed(m, NULL, 2, 4));
	/* the copy keeps taking reports on its own */
	ck_assert_int_eq(job_model_report(c, 99999, 1e6, 0.2, 1, 0), 0);
	ck_assert(c->step != m->step);
	job_model_free(m);
	job_model_free(c);
}
END_TEST

/*
 * What the listener refuses to a report's sender (job/job_admit.c): what
 * the record itself would refuse of a running run (a worker rank it does
 * not have, a speed that is none or of another configuration than the
 * run's: the speed claim's own check, job_model_speed_check, a report of
 * an earlier run); a report of a run the record has not seen is taken.
 */
START_TEST(test_admit_refuses_what_the_record_refuses)
{
	job_model_t *m = new_job("optimus,mode=sync,batch=64,ps=1,workers=2");
	job_model_t *ar = new_job("optimus,mode=allreduce,batch=64,workers=2");
	report_t r = { .kind = REPORT_WORKER, .job_id = 42 };
	char err[256];

	r.worker.rank = 5;
	/* not running yet: the record cannot tell, the planner will */
	ck_assert_int_eq(job_model_admit(m, &r, 0, err, sizeof(err)), 0);
	job_model_started(m, 100, 1, 2, 1);
	ck_assert_int_eq(job_model_admit(m, &r, 0, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "rank 5") && strstr(err, "2 workers"), "%s",
		      err);
	r.worker.rank = 1;
	ck_assert_int_eq(job_model_admit(m, &r, 0, err, sizeof(err)), 0);
	/* the model's own rule is the same one */
	ck_assert_int_eq(job_model_worker_check(m, 2, NULL, 0), -EINVAL);
	ck_assert_int_eq(job_model_worker_check(m, 1, NULL, 0), 0);
	/* runs: an earlier one refused, a newer one (not seen yet) taken */
	r.worker.rank = 7;
	r.has_run = 1;
	r.run = 0;
	ck_assert_int_eq(job_model_admit(m, &r, 1, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "run 0") && strstr(err, "current run is 1"),
		      "%s", err);
	r.run = 2;
	ck_assert_int_eq(job_model_admit(m, &r, 1, err, sizeof(err)), 0);
	/* speed: above 0, and a PS job's samples need PS (the claim's first
	 * check, job_model_speed_check) */
	r = (report_t){ .kind = REPORT_SPEED, .job_id = 42 };
	r.speed = (report_speed_t){ .ps = 1, .workers = 2, .steps_per_sec = 0 };
	ck_assert_int_eq(job_model_admit(m, &r, 0, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "above 0"));
	r.speed.steps_per_sec = 3;
	ck_assert_int_eq(job_model_admit(m, &r, 0, err, sizeof(err)), 0);
	r.speed.ps = 0;
	ck_assert_int_eq(job_model_admit(m, &r, 0, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "0 PS"));
	/* the claim refuses it the same way, and counts it */
	ck_assert_int_eq(job_model_speed_claim(m, 200, 0, 2, 0, 0, 3, err,
					       sizeof(err)), -EPERM);
	ck_assert_ptr_nonnull(strstr(err, "0 PS"));
	ck_assert_uint_eq(m->claims.refused, 1);
	/* ... at a batch of its own, a step time: no PS count needed */
	r.speed.local_batch = 8;
	ck_assert_int_eq(job_model_admit(m, &r, 0, err, sizeof(err)), 0);
	/* an all-reduce job's samples are of nodes, never of PS */
	job_model_started(ar, 100, 0, 2, 1);
	r.speed.local_batch = 0;
	ck_assert_int_eq(job_model_admit(ar, &r, 0, err, sizeof(err)), 0);
	/* progress and checkpoints: the protocol's checks are all */
	r = (report_t){ .kind = REPORT_PROGRESS, .job_id = 42 };
	ck_assert_int_eq(job_model_admit(m, &r, 0, err, sizeof(err)), 0);
	job_model_free(m);
	job_model_free(ar);
}
END_TEST

static Suite *job_model_suite(void)
{
	Suite *s = suite_create("job_model");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_report_validation);
	tcase_add_test(tc, test_fit_predictions);
	tcase_add_test(tc, test_remaining_fallbacks);
	tcase_add_test(tc, test_running_never_zero_remaining);
	tcase_add_test(tc, test_remaining_steps_continuous_past_the_fit);
	tcase_add_test(tc, test_resizable_rules);
	tcase_add_test(tc, test_speed_priors);
	tcase_add_test(tc, test_speed_profile);
	tcase_add_test(tc, test_speed_prior_sync);
	tcase_add_test(tc, test_allreduce_model);
	tcase_add_test(tc, test_cost_sample);
	tcase_add_test(tc, test_timing_and_summary);
	tcase_add_test(tc, test_restart_timed_to_first_step);
	tcase_add_test(tc, test_run_history);
	tcase_add_test(tc, test_requeued);
	tcase_add_test(tc, test_adopted);
	tcase_add_test(tc, test_requeue_due);
	tcase_add_test(tc, test_lost_run_is_a_fault_not_a_resize);
	tcase_add_test(tc, test_preemption_record);
	tcase_add_test(tc, test_preemption_shown);
	tcase_add_test(tc, test_stop_shown);
	tcase_add_test(tc, test_json_roundtrip);
	tcase_add_test(tc, test_json_epoch_mark);
	tcase_add_test(tc, test_json_malformed);
	tcase_add_test(tc, test_json_mode_mismatch);
	tcase_add_test(tc, test_json_every_key);
	tcase_add_test(tc, test_json_salvage_every_key);
	tcase_add_test(tc, test_json_salvage_mends_only_the_bad_run);
	tcase_add_test(tc, test_steps_bounded_and_saturated);
	tcase_add_test(tc, test_rerun_is_a_new_pending_run);
	tcase_add_test(tc, test_loss_after);
	tcase_add_test(tc, test_clone_refit);
	tcase_add_test(tc, test_admit_refuses_what_the_record_refuses);
	tcase_add_test(tc, test_speed_claims);
	suite_add_tcase(s, tc);
	return s;
}


int main(void)
{
	return check_run(job_model_suite());
}

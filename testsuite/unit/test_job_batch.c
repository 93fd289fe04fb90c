/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * test_job_batch.c - a job record's adaptive batch (job/job_batch.c) and
 * the goodput policy of the plan (plan/plan_policy_goodput.c,
 * Policy=goodput):
 *  - limits and gradient statistics are validated, a refused value
 *    stores nothing;
 *  - the record's best batch for an allocation is goodput_best on its
 *    own fit of the steps it reported, grows with the noise scale, and a
 *    job not adaptive answers its submitted batch;
 *  - the adaptive state survives the record's JSON (and a record
 *    without it still loads, not adaptive);
 *  - a plan with adaptive and fixed jobs under Policy=goodput gives the
 *    adaptive ones a batch for the nodes they are placed on and leaves
 *    the fixed ones at theirs; a kept job is re-batched only when it pays.
 *  - re-batch in place (job/job_rebatch.c): a change is sent only as a
 *    whole split of the job's GPUs within its limits, taken when a report
 *    says its batch, timed by the job within the time since it was sent,
 *    withdrawn after the bound (the job's changes then go the restart
 *    path), void with its run, kept in the JSON; the plan re-batches a
 *    job that takes changes in place as a KEEP priced at its re-batch
 *    time, with no checkpoint or minimum interval needed, and one that
 *    does not by a restart priced at the restart cost.
 *  - a fabricated all-reduce part of the timed steps buys GPUs from its
 *    own user's jobs only: beside another user's job, its fair share.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/job_model.h"
#include "models/allreduce_speed.h"
#include "plan/plan.h"
#include "check_run.h"
#include "job_fixture.h"

/* A step-time form (goodput.h) the reports follow exactly. */
static const double T0 = 0.002, T1 = 0.05, T2 = 0.04, T3 = 0.1, T4 = 0.001;

static double true_step(int w, int n, int local, int accum)
{
	return (accum + 1) * (T0 * local + T1) + T2 * (w - 1.0) / w +
	       (n > 1 ? T3 * (w - 1.0) / w : 0.0) + T4 * w;
}

static const goodput_limits_t LIM = { 128, 4096, 1, 256, 3 };

/* An adaptive job with 6 configurations measured and statistics of noise
 * scale trace/sqr = 1000 over B0 = 128. */
static job_model_t *fitted_job(uint32_t id)
{
	job_model_t *m = job_fixture_new(id, "optimus,mode=allreduce,max_workers=16,"
				 "batch=256,steps=100000,worker_gpus=1");
	static const int cfg[6][4] = { { 1, 1, 128, 0 }, { 2, 1, 64, 0 },
				       { 4, 1, 64, 1 }, { 8, 2, 32, 0 },
				       { 16, 4, 16, 0 }, { 4, 2, 128, 0 } };

	ck_assert_int_eq(job_model_batch_limits(m, 256, &LIM, NULL, 0), 0);
	for (int k = 0; k < 6; k++)
		ck_assert_int_eq(job_model_batch_sample(m, cfg[k][0], cfg[k][1],
			cfg[k][2], cfg[k][3], true_step(cfg[k][0], cfg[k][1],
							cfg[k][2], cfg[k][3])), 0);
	/* grad_var over 128 examples: tr = 1000, |G|^2 = 1. */
	ck_assert_int_eq(job_model_gradients(m, 1.0, 1000.0 / 128, 128, 1, NULL,
					     0), 0);
	job_model_refit(m);
	ck_assert(m->batch.fitted);
	return m;
}

START_TEST(test_limits_refused)
{
	job_model_t *m = job_fixture_new(1, "optimus,mode=allreduce,batch=256");
	goodput_limits_t l = LIM;
	char err[160] = "";

	l.min_batch = 512;	/* submitted below the range */
	ck_assert_int_eq(job_model_batch_limits(m, 256, &l, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "outside the range"));
	l = LIM;
	l.min_local = 0;
	ck_assert_int_eq(job_model_batch_limits(m, 256, &l, err, sizeof(err)),
			 -EINVAL);
	l = LIM;
	l.max_accum = JOB_BATCH_MAX_ACCUM + 1;
	ck_assert_int_eq(job_model_batch_limits(m, 256, &l, err, sizeof(err)),
			 -EINVAL);
	l = LIM;
	l.max_batch = INFINITY;
	ck_assert_int_eq(job_model_batch_limits(m, 256, &l, err, sizeof(err)),
			 -EINVAL);
	ck_assert(!m->batch.adaptive);
	ck_assert_int_eq(job_model_batch_limits(m, 256, &LIM, err,
						sizeof(err)), 0);
	ck_assert(m->batch.adaptive);
	ck_assert_double_eq(m->batch.eff.init_batch, 128);
	job_model_free(m);
}
END_TEST

START_TEST(test_gradients_refused)
{
	job_model_t *m = job_fixture_new(1, "optimus,mode=allreduce,batch=256");
	char err[160] = "";

	ck_assert_int_eq(job_model_batch_limits(m, 256, &LIM, NULL, 0), 0);
	ck_assert_int_eq(job_model_gradients(m, -1, 1, 1, 1, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "grad_sqr"));
	ck_assert_int_eq(job_model_gradients(m, 1, NAN, 1, 1, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "grad_var"));
	ck_assert_int_eq(job_model_gradients(m, 1, 1, 0, 1, err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(job_model_gradients(m, INFINITY, 1, 1, 1, err,
					     sizeof(err)), -EINVAL);
	ck_assert_uint_eq(m->batch.eff.reports, 0);
	ck_assert_int_eq(job_model_gradients(m, 2, 3, 50, 1, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(m->batch.eff.reports, 1);
	ck_assert_double_eq_tol(efficiency_noise_scale(&m->batch.eff), 75,
				1e-12);
	job_model_free(m);
}
END_TEST

/* The record's answer is goodput_best on its fit; the fit recovers the
 * form; a larger noise scale asks for a larger batch; before the fit and
 * for a fixed job, the submitted batch. */
START_TEST(test_best_batch)
{
	job_model_t *m = fitted_job(1);
	job_model_t *f = job_fixture_new(2, "optimus,mode=allreduce,max_workers=16,"
				 "batch=256");
	goodput_choice_t c, d, e;
	double small;

	for (int w = 1; w <= 16; w *= 2) {
		int n = w > 8 ? 2 : 1;
		ck_assert_int_eq(job_model_batch_for(m, w, n, &c), 0);
		ck_assert_int_eq(goodput_best(&m->batch.speed, &m->batch.eff, w,
					      n, &LIM, &d), 0);
		ck_assert_double_eq(c.batch, d.batch);
		ck_assert_double_eq(c.batch, (double)c.local * w *
				    (c.accum + 1));
		ck_assert(c.batch >= LIM.min_batch && c.batch <= LIM.max_batch);
		ck_assert_double_eq_tol(c.step_time,
					true_step(w, n, c.local, c.accum),
					1e-6 * c.step_time);
	}
	ck_assert_int_eq(job_model_batch_for(m, 8, 1, &c), 0);
	small = c.batch;
	/* Noise scale 10x: the gradient is noisier, larger batches pay. */
	for (int k = 0; k < 20; k++)
		ck_assert_int_eq(job_model_gradients(m, 0.1, 1000.0 / 128, 128, 1,
						     NULL, 0), 0);
	ck_assert_int_eq(job_model_batch_for(m, 8, 1, &e), 0);
	ck_assert(e.batch > small);
	/* Not adaptive: its submitted batch on any allocation. */
	ck_assert_int_eq(job_model_batch_for(f, 8, 1, &c), 0);
	ck_assert_double_eq(c.batch, 256);
	ck_assert_int_eq(c.local, 32);
	ck_assert_int_eq(c.accum, 0);
	ck_assert_int_eq(job_model_batch_for(f, 0, 1, &c), -EINVAL);
	job_model_free(m);
	job_model_free(f);
}
END_TEST

/* Before the fit, the batch on w GPUs is the submitted one split evenly
 * (at most the largest per-GPU batch), and stays within the job's range:
 * 4096 over 12 GPUs is 12 x 341, not 12 x 342 = 4104 (test_pollux caught
 * it once jobs started at their requested 12 GPUs). */
START_TEST(test_unfitted_within_range)
{
	job_model_t *m = job_fixture_new(3, "optimus,mode=allreduce,"
				 "max_workers=16,batch=4096");
	static const goodput_limits_t lim = { 128, 4096, 1, 512, 3 };
	goodput_choice_t c;

	ck_assert_int_eq(job_model_batch_limits(m, 4096, &lim, NULL, 0), 0);
	for (int w = 1; w <= 16; w++) {
		ck_assert_int_eq(job_model_batch_for(m, w, 1, &c), 0);
		ck_assert_msg(c.batch >= lim.min_batch &&
			      c.batch <= lim.max_batch, "%d GPUs: batch %g",
			      w, c.batch);
		ck_assert_double_eq(c.batch, (double)c.local * w);
		ck_assert_int_eq(c.accum, 0);
	}
	ck_assert_int_eq(job_model_batch_for(m, 12, 1, &c), 0);
	ck_assert_double_eq(c.batch, 12 * 341);
	ck_assert_int_eq(job_model_batch_for(m, 8, 1, &c), 0);
	ck_assert_double_eq(c.batch, 4096);
	job_model_free(m);
}
END_TEST

/* An adaptive job of these hints (batch=256 among them, LIM) with one
 * gradient report: its statistics known, no step measured. */
static job_model_t *adaptive_job_with(uint32_t id, const char *hints)
{
	job_model_t *m = job_fixture_new(id, hints);

	ck_assert_int_eq(job_model_batch_limits(m, 256, &LIM, NULL, 0), 0);
	ck_assert_int_eq(job_model_gradients(m, 1.0, 1000.0 / 128, 128, 1, NULL,
					     0), 0);
	return m;
}

/* An adaptive all-reduce job (batch 256, LIM) of 1000 steps. */
static job_model_t *adaptive_job(uint32_t id)
{
	return adaptive_job_with(id, "optimus,mode=allreduce,max_workers=16,"
				 "batch=256,steps=1000");
}

/* An adaptive job of `epochs` epochs (epochs=, no epoch_steps=) of 20
 * steps at 512, the batch its run took at its start, reported every 20
 * steps mid-epoch to step 70 as a `for epoch in range(E)` loop says it
 * (epoch = step / 20). */
static job_model_t *epochs_job(uint32_t id, int epochs)
{
	char hints[96];
	job_model_t *m;

	snprintf(hints, sizeof(hints), "optimus,mode=allreduce,"
		 "max_workers=16,batch=256,epochs=%d", epochs);
	m = adaptive_job_with(id, hints);
	job_model_started(m, 100, 0, 4, 1);
	ck_assert_int_eq(job_model_batch_run(m, 512, 64, 1), 0);
	for (int step = 10, t = 110; step <= 70; step += 20, t += 10)
		ck_assert_int_eq(job_model_report(m, t, step, 1.0, 2.0,
						  step / 20), 0);
	return m;
}

/* Pollux's priors: a job's first measured step is a fit (no
 * wait for 3 configurations), its compute half per example and half per
 * micro-step, no sync term measured. */
START_TEST(test_fit_from_first_step)
{
	job_model_t *m = adaptive_job(4);

	ck_assert_int_eq(job_model_batch_sample(m, 1, 1, 256, 0, 1.0), 0);
	job_model_refit(m);
	ck_assert(m->batch.fitted);
	ck_assert_double_eq_tol(goodput_step_time(&m->batch.speed, 4, 1, 64,
						  0), 0.625, 1e-12);
	ck_assert_double_eq_tol(goodput_step_time(&m->batch.speed, 8, 2, 256,
						  1), 2.0, 1e-12);
	job_model_free(m);
}
END_TEST

/* A running job's reports are samples at the batch it runs at, and
 * progress counts each step's gain. */
START_TEST(test_reports_feed)
{
	job_model_t *m = adaptive_job(1);

	job_model_started(m, 100, 0, 4, 1);
	ck_assert_int_eq(job_model_batch_run(m, 512, 64, 1), 0);
	ck_assert_int_eq(job_model_report(m, 110, 10, 1.0, 2.0, 0), 0);
	ck_assert_uint_eq(m->batch.nsamples, 1);
	ck_assert_int_eq(m->batch.samples[0].local, 64);
	ck_assert_int_eq(m->batch.samples[0].accum, 1);
	ck_assert_double_eq_tol(m->batch.samples[0].step, 0.5, 1e-12);
	/* Not at the submitted batch: not a sample of the record's speed. */
	ck_assert_uint_eq(m->speed.nsamples, 0);
	ck_assert_double_eq_tol(m->batch.progress,
				10 * efficiency_gain(&m->batch.eff, 512),
				1e-9);
	/* Target 1000 steps of 256 = 2000 B0-steps, less the progress. */
	ck_assert_double_eq_tol(job_model_batch_remaining(m),
				2000 - m->batch.progress, 1e-9);
	/* A new run is at the submitted batch until told otherwise. */
	job_model_started(m, 200, 0, 8, 1);
	ck_assert_double_eq(m->batch.global, 0);
	ck_assert_int_eq(job_model_report(m, 210, 20, 1.0, 4.0, 0), 0);
	ck_assert_uint_eq(m->speed.nsamples, 1);
	ck_assert_int_eq(m->batch.samples[1].local, 32);
	job_model_free(m);
}
END_TEST

/*
 * epochs= without epoch_steps=: a job re-batched before its first epoch
 * ends learns the epoch's length on its progress, at whatever batch it
 * runs, and plans with epochs x that length. Here (epochs_job) an epoch
 * is 20 steps at 512, 20 x gain B0-steps; a report that spans 3 epochs
 * marks the last one half an epoch before it (the middle of the two
 * reports took it as half its length).
 */
START_TEST(test_epoch_learned_at_any_batch)
{
	job_model_t *m = epochs_job(9, 10);
	double g = efficiency_gain(&m->batch.eff, 512);
	json_object *o;
	job_model_t *b;
	char err[160] = "";

	ck_assert_double_eq_tol(job_model_batch_remaining(m),
				10 * 20 * g - 70 * g, 1e-9);
	ck_assert_double_eq_tol(m->batch.epoch_mark_progress /
				m->batch.epoch_mark, 20 * g, 1e-9);
	ck_assert_int_eq(job_model_report(m, 150, 130, 1.0, 2.0, 130 / 20),
			 0);
	ck_assert_double_eq(m->batch.epoch_mark, 6);
	ck_assert_double_eq_tol(m->batch.epoch_mark_progress, 120 * g, 1e-9);
	ck_assert_double_eq_tol(job_model_batch_remaining(m),
				10 * 20 * g - 130 * g, 1e-9);
	/* The marks are kept across a slurmctld restart. */
	o = job_model_to_json(m);
	ck_assert_ptr_nonnull(o);
	b = job_model_from_json(o, err, sizeof(err));
	ck_assert_msg(b != NULL, "%s", err);
	ck_assert_double_eq(b->batch.epoch_mark, 6);
	ck_assert_double_eq(b->batch.epoch_mark_progress,
			    m->batch.epoch_mark_progress);
	job_model_free(b);
	json_object_put(o);
	job_model_free(m);
}
END_TEST

/*
 * A job that runs past the epochs it declared (a user's count is a
 * guess) is planned as one without a target, not as a job about to end:
 * at one B0-step left, the plan never grew it (a DeepSpeech2 job that
 * declared 41 of its 80 epochs ran its last 39 on 1 GPU in the
 * simulator). epochs_job's, 2 declared.
 */
START_TEST(test_past_its_epochs_not_about_to_end)
{
	job_model_t *m = epochs_job(10, 2);
	double per;

	ck_assert_double_eq_tol(job_model_batch_target(m),
				2 * 20 * efficiency_gain(&m->batch.eff, 512),
				1e-9);
	ck_assert(m->batch.progress > job_model_batch_target(m));
	per = m->batch.submitted / m->batch.eff.init_batch;
	ck_assert_double_eq_tol(job_model_batch_remaining(m),
				job_model_remaining_steps(m, NULL) * per, 1e-9);
	ck_assert(job_model_batch_remaining(m) > 100.0);
	job_model_free(m);
}
END_TEST

/*
 * In its first epoch a job of epochs= is planned on its progress: the
 * epoch taken as half run (JOB_MODEL_FIRST_EPOCH_SHARE), or as the share
 * a fractional epoch says, not as a job of unknown length (the prior's
 * 10000 steps); from its first epoch's end, on the epoch's length.
 */
START_TEST(test_first_epoch_planned_on_its_progress)
{
	job_model_t *m = adaptive_job_with(11, "optimus,mode=allreduce,"
					   "max_workers=16,batch=256,epochs=2");
	double g = efficiency_gain(&m->batch.eff, 512);

	job_model_started(m, 100, 0, 4, 1);
	ck_assert_int_eq(job_model_batch_run(m, 512, 64, 1), 0);
	/* Started, nothing run: no target. */
	ck_assert_double_eq(job_model_batch_target(m), 0.0);
	ck_assert_int_eq(job_model_report(m, 110, 10, 1.0, 2.0, 0), 0);
	ck_assert_double_eq_tol(job_model_batch_target(m),
				2 * 10 * g / JOB_MODEL_FIRST_EPOCH_SHARE,
				1e-9);
	ck_assert_double_eq_tol(job_model_batch_remaining(m),
				2 * 10 * g / JOB_MODEL_FIRST_EPOCH_SHARE -
				10 * g, 1e-9);
	/* A fractional epoch says the share: 15 steps are 3/4 of it. */
	ck_assert_int_eq(job_model_report(m, 115, 15, 1.0, 2.0, 0.75), 0);
	ck_assert_double_eq_tol(job_model_batch_target(m), 2 * 20 * g, 1e-9);
	/* Its end marks the epoch: 30 steps. */
	ck_assert_int_eq(job_model_report(m, 125, 31, 1.0, 2.0, 1), 0);
	ck_assert_double_eq(m->batch.epoch_mark, 1);
	ck_assert_double_eq_tol(job_model_batch_target(m),
				2 * m->batch.epoch_mark_progress, 1e-9);
	job_model_free(m);
}
END_TEST

START_TEST(test_json_round_trip)
{
	job_model_t *m = fitted_job(7), *b;
	json_object *o, *batch;
	goodput_choice_t c1, c2;
	char err[160] = "";

	job_model_started(m, 100, 0, 8, 2);
	ck_assert_int_eq(job_model_batch_run(m, 768, 48, 1), 0);
	m->batch.progress = 1234.5;
	/* a sample with its all-reduce part measured keeps it */
	m->batch.samples[3].sync = m->batch.samples[3].step / 4;
	o = job_model_to_json(m);
	ck_assert_ptr_nonnull(o);
	b = job_model_from_json(o, err, sizeof(err));
	ck_assert_msg(b != NULL, "%s", err);
	ck_assert(b->batch.adaptive);
	ck_assert_double_eq(b->batch.submitted, 256);
	ck_assert_double_eq(b->batch.limits.min_batch, LIM.min_batch);
	ck_assert_double_eq(b->batch.limits.max_batch, LIM.max_batch);
	ck_assert_int_eq(b->batch.limits.min_local, LIM.min_local);
	ck_assert_int_eq(b->batch.limits.max_local, LIM.max_local);
	ck_assert_int_eq(b->batch.limits.max_accum, LIM.max_accum);
	ck_assert_double_eq(b->batch.global, 768);
	ck_assert_int_eq(b->batch.local, 48);
	ck_assert_int_eq(b->batch.accum, 1);
	ck_assert_double_eq(b->batch.progress, 1234.5);
	ck_assert_uint_eq(b->batch.eff.reports, m->batch.eff.reports);
	ck_assert_double_eq_tol(efficiency_noise_scale(&b->batch.eff),
				efficiency_noise_scale(&m->batch.eff), 1e-12);
	ck_assert_uint_eq(b->batch.nsamples, m->batch.nsamples);
	for (size_t k = 0; k < m->batch.nsamples; k++)
		ck_assert_double_eq(b->batch.samples[k].sync,
				    m->batch.samples[k].sync);
	ck_assert(b->batch.samples[3].sync > 0);
	job_model_refit(b);
	ck_assert_int_eq(job_model_batch_for(m, 16, 2, &c1), 0);
	ck_assert_int_eq(job_model_batch_for(b, 16, 2, &c2), 0);
	ck_assert_double_eq(c1.batch, c2.batch);
	job_model_free(b);
	/* A bad sample is refused by name: a sync part not below its
	 * step, a bound out of range. */
	json_object_object_get_ex(o, "batch", &batch);
	{
		json_object *samples, *s3;
		json_object_object_get_ex(batch, "samples", &samples);
		s3 = json_object_array_get_idx(samples, 3);
		json_object_array_put_idx(s3, 5, json_object_new_double(
			m->batch.samples[3].step));
		ck_assert_ptr_null(job_model_from_json(o, err, sizeof(err)));
		ck_assert_ptr_nonnull(strstr(err, "batch.samples'[3]"));
		json_object_array_put_idx(s3, 5, json_object_new_double(
			m->batch.samples[3].sync));
	}
	json_object_object_add(batch, "max_accum", json_object_new_int(999));
	ck_assert_ptr_null(job_model_from_json(o, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "max_accum"));
	/* A state file from before: no "batch", not adaptive. */
	json_object_object_del(o, "batch");
	b = job_model_from_json(o, err, sizeof(err));
	ck_assert_msg(b != NULL, "%s", err);
	ck_assert(!b->batch.adaptive);
	job_model_free(b);
	json_object_put(o);
	job_model_free(m);
}
END_TEST

/*
 * A record saved between a step sample and the plan's refit has the batch
 * model's dirty bit set: it loads back, dirty as it was (the state file
 * refused 'dirty' 8 as out of range, and slurmctld lost the record at its
 * next start).
 */
START_TEST(test_json_dirty_batch)
{
	job_model_t *m = fitted_job(8), *b;
	json_object *o;
	char err[160] = "";

	job_model_started(m, 100, 0, 4, 1);
	ck_assert_int_eq(job_model_batch_sample(m, 4, 1, 64, 0, 0.3), 0);
	ck_assert(m->dirty & JOB_MODEL_DIRTY_BATCH);
	o = job_model_to_json(m);
	ck_assert_ptr_nonnull(o);
	b = job_model_from_json(o, err, sizeof(err));
	ck_assert_msg(b != NULL, "%s", err);
	ck_assert_uint_eq(b->dirty, m->dirty);
	json_object_put(o);
	job_model_free(b);
	job_model_free(m);
}
END_TEST

/* Four 4-GPU servers; two adaptive jobs and a fixed one, all pending. */
/* The all-reduce part of true_step's step: its terms without the batch. */
static double true_sync(int w, int n)
{
	return w > 1 ? true_step(w, n, 1, 0) - (T0 + T1) : 0.0;
}

/*
 * fitted_job's configurations with the all-reduce part of each step
 * said: the true one, or (gaming) one millisecond, as if nearly all of
 * every step were compute that more GPUs would split.
 */
static job_model_t *synced_job(uint32_t id, bool gaming)
{
	job_model_t *m = job_fixture_new(id, "optimus,mode=allreduce,"
					 "max_workers=16,batch=256,"
					 "steps=100000,worker_gpus=1");
	static const int cfg[6][4] = { { 1, 1, 128, 0 }, { 2, 1, 64, 0 },
				       { 4, 1, 64, 1 }, { 8, 2, 32, 0 },
				       { 16, 4, 16, 0 }, { 4, 2, 128, 0 } };

	ck_assert_int_eq(job_model_batch_limits(m, 256, &LIM, NULL, 0), 0);
	for (int k = 0; k < 6; k++) {
		int w = cfg[k][0], n = cfg[k][1];
		double sync = w == 1 ? 0.0 : gaming ? 1e-3 : true_sync(w, n);

		ck_assert_int_eq(job_model_batch_sample_sync(m, w, n,
			cfg[k][2], cfg[k][3],
			true_step(w, n, cfg[k][2], cfg[k][3]), sync), 0);
	}
	ck_assert_int_eq(job_model_gradients(m, 1.0, 1000.0 / 128, 128, 1, NULL,
					     0), 0);
	job_model_refit(m);
	ck_assert(m->batch.fitted);
	return m;
}

/* GPUs of job i's START on plan_run over 4 servers of 4 GPUs. */
static void plan_two(job_model_t **m, uint32_t user0, uint32_t user1,
		     int *gpus)
{
	plan_job_t j[2] = { { .model = m[0], .user = user0 },
			    { .model = m[1], .user = user1 } };
	res_vec_t fr[4];
	plan_params_t prm;
	plan_t p;

	for (int s = 0; s < 4; s++)
		fr[s] = res_make(64, 1e6, 4);
	plan_params_init(&prm);
	prm.now = 100000;
	prm.policy = PLAN_GOODPUT;
	ck_assert_int_eq(plan_run(j, 2, fr, 4, &prm, &p), 0);
	for (int i = 0; i < 2; i++)
		gpus[i] = p.decisions[i].action == PLAN_START ?
			  p.decisions[i].workers : 0;
	plan_free(&p);
}

/*
 * A job that says a fabricated all-reduce part (nearly none) of the
 * steps the record timed: its fit predicts the scaling its steps do not
 * show, so beside an honest job of the same user it takes more GPUs;
 * beside another user's honest job it takes no more than its fair share
 * (plan_fair.c), as with fabricated speeds (test_fair.c).
 */
START_TEST(test_fabricated_sync_takes_only_the_surplus)
{
	job_model_t *m[2] = { synced_job(100, false), synced_job(101, true) };
	job_model_t *h[2] = { synced_job(102, false), synced_job(103, false) };
	int honest[2], one_user[2], two_users[2];

	plan_two(h, 7, 7, honest);
	ck_assert_int_eq(honest[0] + honest[1], 16);
	plan_two(m, 7, 7, one_user);
	ck_assert_int_gt(one_user[1], honest[1]);
	ck_assert_int_gt(one_user[1], 8);
	plan_two(m, 1000, 1001, two_users);
	ck_assert_int_eq(two_users[0], 8);
	ck_assert_int_eq(two_users[1], 8);
	for (int i = 0; i < 2; i++) {
		job_model_free(m[i]);
		job_model_free(h[i]);
	}
}
END_TEST

START_TEST(test_plan_mixed)
{
	job_model_t *m[3] = { fitted_job(100), fitted_job(101),
			      job_fixture_new(102, "optimus,mode=allreduce,"
				      "max_workers=16,batch=256,steps=100000,"
				      "worker_gpus=1") };
	plan_job_t j[3] = { { .model = m[0] }, { .model = m[1] },
			    { .model = m[2] } };
	res_vec_t fr[4];
	plan_params_t prm;
	plan_t p;
	plan_policy_t pol;

	ck_assert_int_eq(plan_policy_parse("goodput", &pol), 0);
	ck_assert_int_eq(pol, PLAN_GOODPUT);
	ck_assert_str_eq(plan_policy_name(PLAN_GOODPUT), "goodput");
	for (int s = 0; s < 4; s++)
		fr[s] = res_make(64, 1e6, 4);
	plan_params_init(&prm);
	prm.now = 100000;
	prm.policy = pol;
	ck_assert_int_eq(plan_run(j, 3, fr, 4, &prm, &p), 0);
	for (int i = 0; i < 2; i++) {
		const plan_decision_t *d = &p.decisions[i];
		goodput_choice_t c;
		int nodes = 0;

		ck_assert_int_eq(d->action, PLAN_START);
		for (size_t k = 0; k < d->nslots; k++)
			nodes += d->slots[k].workers > 0;
		ck_assert_int_eq(job_model_batch_for(m[i], d->workers, nodes,
						     &c), 0);
		ck_assert_double_eq(d->batch, c.batch);
		ck_assert_int_eq(d->local_batch, c.local);
		ck_assert_int_eq(d->accum, c.accum);
		ck_assert_double_eq(d->batch, (double)d->local_batch *
				    d->workers * (d->accum + 1));
	}
	/* The fixed job keeps its batch: 0 in its decision. */
	ck_assert_double_eq(p.decisions[2].batch, 0);
	plan_free(&p);
	/* Under optimus the adaptive jobs keep their batch too. */
	prm.policy = PLAN_OPTIMUS;
	ck_assert_int_eq(plan_run(j, 3, fr, 4, &prm, &p), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_double_eq(p.decisions[i].batch, 0);
	plan_free(&p);
	for (int i = 0; i < 3; i++)
		job_model_free(m[i]);
}
END_TEST

/*
 * Placement-aware grants: on servers of 4 GPUs with 2 held by a running
 * job of the plan, a start of 4 GPUs (the job's limit) is planned at the
 * speed of the 2 nodes it really spans, not of the 1 node of 4 GPUs the
 * fewest-node grant assumes.
 */
START_TEST(test_plan_placement_aware)
{
	job_model_t *m = fitted_job(100);
	job_model_t *f = job_fixture_new(101, "optimus,mode=allreduce,min_workers=8,"
				 "max_workers=8,worker_gpus=1,steps=100000");
	place_slot_t sl[4] = { { 0, 0, 2 }, { 1, 0, 2 }, { 2, 0, 2 },
			       { 3, 0, 2 } };
	plan_job_t j[2] = { { .model = f, .running = true, .slots = sl,
			      .nslots = 4 }, { .model = m } };
	res_vec_t fr[4];
	plan_params_t prm;
	plan_t p;
	const plan_decision_t *d;
	double rate;
	int nodes = 0;

	m->hints.max_workers = 4;
	job_model_started(f, 1000, 0, 8, 4);
	for (int s = 0; s < 4; s++)
		fr[s] = res_make(64, 1e6, 2);
	plan_params_init(&prm);
	prm.policy = PLAN_GOODPUT;
	prm.now = 100000;
	ck_assert_int_eq(plan_run(j, 2, fr, 4, &prm, &p), 0);
	ck_assert_int_eq(p.decisions[0].action, PLAN_KEEP);
	d = &p.decisions[1];
	ck_assert_int_eq(d->action, PLAN_START);
	ck_assert_int_gt(d->workers, 2);
	for (size_t k = 0; k < d->nslots; k++)
		nodes += d->slots[k].workers > 0;
	ck_assert_int_eq(nodes, (d->workers + 1) / 2);
	rate = job_model_batch_rate(m, NULL, d->workers, nodes);
	ck_assert_double_eq_tol(d->remaining_planned,
				job_model_batch_remaining(m) / rate,
				1e-9 * d->remaining_planned);
	/* The form tells one node from several: at 4 GPUs, 2 nodes are
	 * slower than the 1 the fewest-node grant assumed. */
	ck_assert_int_eq(d->workers, 4);
	ck_assert(job_model_batch_rate(m, NULL, 4, 1) > 1.01 * rate);
	plan_free(&p);
	job_model_free(m);
	job_model_free(f);
}
END_TEST

/*
 * A kept adaptive job running far from its best batch is re-batched on
 * its own slots; once at the best batch, or before the minimum interval,
 * it is kept.
 */
START_TEST(test_plan_rebatch)
{
	job_model_t *m = fitted_job(100);
	place_slot_t sl[1] = { { 0, 0, 4 } };
	plan_job_t j = { .model = m, .running = true, .slots = sl,
			 .nslots = 1 };
	res_vec_t fr[1] = { res_make(64, 1e6, 0) };
	plan_params_t prm;
	goodput_choice_t best;
	plan_t p;

	m->hints.max_workers = 4;	/* only the batch can change */
	job_model_resizing(m, 1000);	/* its last resize began at 1000 */
	job_model_started(m, 1000, 0, 4, 1);
	ck_assert_int_eq(job_model_checkpoint(m, 1000, 0), 0);
	ck_assert_int_eq(job_model_batch_run(m, 4096, 256, 3), 0);
	ck_assert_int_eq(job_model_report(m, 1100, 10, 1.0, 1.0, 0), 0);
	job_model_refit(m);
	plan_params_init(&prm);
	prm.policy = PLAN_GOODPUT;
	prm.now = 1000 + 3600;
	prm.restart_cost = 10;
	ck_assert_int_eq(plan_run(&j, 1, fr, 1, &prm, &p), 0);
	ck_assert_int_eq(p.decisions[0].action, PLAN_RESIZE);
	ck_assert(p.decisions[0].rebatch);
	ck_assert_int_eq(p.decisions[0].workers, 4);
	ck_assert_int_eq(job_model_batch_for(m, 4, 1, &best), 0);
	ck_assert_double_eq(p.decisions[0].batch, best.batch);
	ck_assert_uint_eq(p.nresize, 1);
	ck_assert_uint_eq(p.nkeep, 0);
	plan_free(&p);
	/* At its best batch: kept. */
	ck_assert_int_eq(job_model_batch_run(m, best.batch, best.local,
					     best.accum), 0);
	ck_assert_int_eq(plan_run(&j, 1, fr, 1, &prm, &p), 0);
	ck_assert_int_eq(p.decisions[0].action, PLAN_KEEP);
	plan_free(&p);
	/* Within the minimum interval: kept. */
	ck_assert_int_eq(job_model_batch_run(m, 4096, 256, 3), 0);
	prm.now = 1000 + 60;
	ck_assert_int_eq(plan_run(&j, 1, fr, 1, &prm, &p), 0);
	ck_assert_int_eq(p.decisions[0].action, PLAN_KEEP);
	plan_free(&p);
	job_model_free(m);
}
END_TEST

/* fitted_job's record running on 4 workers at `global` (local x 4 x
 * (accum + 1)) since its resize at 1000, with a report at 1100. */
static job_model_t *running_job(uint32_t id, double global, int local,
				int accum)
{
	job_model_t *m = fitted_job(id);

	m->hints.max_workers = 4;	/* only the batch can change */
	job_model_started(m, 900, 0, 4, 1);
	job_model_resizing(m, 1000);
	job_model_started(m, 1000, 0, 4, 1);
	ck_assert_int_eq(job_model_batch_run(m, global, local, accum), 0);
	ck_assert_int_eq(job_model_report(m, 1100, 10, 1.0, 1.0, 0), 0);
	job_model_refit(m);
	return m;
}

START_TEST(test_rebatch_record)
{
	job_model_t *m = running_job(100, 256, 64, 0);
	const job_rebatch_t *o;
	char err[256] = "";

	ck_assert(!job_model_rebatch_in_place(m));
	ck_assert_ptr_null(job_model_rebatch_open(m));
	/* Only a whole split of its 4 workers within its limits. */
	ck_assert_int_eq(job_model_rebatch_send(m, 1100, 1024, 128, 0, err,
						sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "not a split of the job's 4"));
	ck_assert_int_eq(job_model_rebatch_send(m, 1100, 2048, 512, 0, NULL,
						0), -EINVAL);	/* > max_local */
	ck_assert_int_eq(job_model_rebatch_send(m, 1100, 8192, 256, 7, NULL,
						0), -EINVAL);	/* > max_accum */
	ck_assert_ptr_null(job_model_rebatch_open(m));
	ck_assert_int_eq(job_model_rebatch_send(m, 1100, 1024, 256, 0, NULL,
						0), 0);
	o = job_model_rebatch_open(m);
	ck_assert_ptr_nonnull(o);
	/* The LR factor: AdaScale's gain of 1024 over the submitted 256. */
	ck_assert_double_eq_tol(o->lr_scale,
				efficiency_gain(&m->batch.eff, 1024) /
				efficiency_gain(&m->batch.eff, 256), 1e-12);
	ck_assert(o->lr_scale > 1.0 && o->lr_scale < 4.0);
	/* A report at its run's batch says it takes changes in place. */
	ck_assert_int_eq(job_model_rebatch_said(m, 1101, 256, -1), 0);
	ck_assert(job_model_rebatch_in_place(m));
	/* A batch neither its run's nor the one sent: not followed. */
	ck_assert_int_eq(job_model_rebatch_said(m, 1102, 512, -1), -EINVAL);
	ck_assert_double_eq(m->batch.global, 256);
	ck_assert_uint_eq(m->batch.rebatches, 0);
	/* Taken: its run's batch from now, timed by the job (0.5 s within
	 * the 3 s since it was sent). */
	ck_assert_int_eq(job_model_rebatch_said(m, 1103, 1024, 0.5), 1);
	ck_assert_double_eq(m->batch.global, 1024);
	ck_assert_int_eq(m->batch.local, 256);
	ck_assert_int_eq(m->batch.accum, 0);
	ck_assert_uint_eq(m->batch.rebatches, 1);
	ck_assert_ptr_null(job_model_rebatch_open(m));
	ck_assert_double_eq(job_model_rebatch_cost(m, 99), 0.5);
	ck_assert_uint_eq(m->restarts, 1);	/* its resize's, no more */
	ck_assert_uint_eq(m->nruns, 2);
	/* Not timed by the job: the time since it was sent (10 s). */
	ck_assert_int_eq(job_model_rebatch_send(m, 1200, 512, 128, 0, NULL,
						0), 0);
	ck_assert_int_eq(job_model_rebatch_said(m, 1210, 512, -1), 1);
	ck_assert_double_eq(job_model_rebatch_cost(m, 99), (0.5 + 10) / 2);
	/* A claim above that time is bounded by it (2 s). */
	ck_assert_int_eq(job_model_rebatch_send(m, 1300, 1024, 256, 0, NULL,
						0), 0);
	ck_assert_int_eq(job_model_rebatch_said(m, 1302, 1024, 100), 1);
	ck_assert_double_eq(m->batch.rebatch_seconds, 0.5 + 10 + 2);
	/* Not taken within the bound: withdrawn, missed, no more in place. */
	ck_assert_int_eq(job_model_rebatch_send(m, 1400, 512, 128, 0, NULL,
						0), 0);
	ck_assert_int_eq(job_model_rebatch_expire(m, 1459, 60), 0);
	ck_assert_ptr_nonnull(job_model_rebatch_open(m));
	ck_assert_int_eq(job_model_rebatch_expire(m, 1460, 60), 1);
	ck_assert_int_eq(job_model_rebatch_expire(m, 1461, 60), 0);
	ck_assert_ptr_null(job_model_rebatch_open(m));
	ck_assert_uint_eq(m->batch.missed, 1);
	ck_assert(!job_model_rebatch_in_place(m));
	/* Taken late: the record follows what the job runs at. */
	ck_assert_int_eq(job_model_rebatch_said(m, 1470, 512, -1), 1);
	ck_assert_double_eq(m->batch.global, 512);
	ck_assert_uint_eq(m->batch.rebatches, 4);
	ck_assert(!job_model_rebatch_in_place(m));
	/* A change sent is void with its run, never missed: a resize (or a
	 * preemption) ends the run. */
	ck_assert_int_eq(job_model_rebatch_send(m, 1500, 1024, 256, 0, NULL,
						0), 0);
	job_model_resizing(m, 1501);
	ck_assert_ptr_null(job_model_rebatch_open(m));
	ck_assert_double_eq(m->batch.offer.global, 0);
	ck_assert_int_eq(job_model_rebatch_expire(m, 1501 + 600, 60), 0);
	ck_assert_uint_eq(m->batch.missed, 1);
	ck_assert_int_eq(job_model_rebatch_said(m, 1502, 1024, -1), -EINVAL);
	job_model_requeued(m, 1502);
	ck_assert_int_eq(job_model_rebatch_send(m, 1503, 1024, 256, 0, NULL,
						0), -EINVAL);	/* not running */
	/* A new run: none sent. */
	job_model_started(m, 1600, 0, 4, 1);
	ck_assert_double_eq(m->batch.offer.global, 0);
	ck_assert_int_eq(job_model_rebatch_send(m, 1601, 1024, 256, 0, NULL,
						0), 0);
	job_model_started(m, 1700, 0, 4, 1);
	ck_assert_ptr_null(job_model_rebatch_open(m));
	ck_assert_double_eq(m->batch.offer.global, 0);
	job_model_free(m);
}
END_TEST

START_TEST(test_rebatch_json)
{
	job_model_t *m = running_job(100, 256, 64, 0), *back;
	json_object *o, *b;
	char err[256] = "";

	ck_assert_int_eq(job_model_rebatch_said(m, 1101, 256, -1), 0);
	ck_assert_int_eq(job_model_rebatch_send(m, 1102, 1024, 256, 0, NULL,
						0), 0);
	ck_assert_int_eq(job_model_rebatch_said(m, 1104, 1024, 1.5), 1);
	ck_assert_int_eq(job_model_rebatch_send(m, 1110, 512, 128, 0, NULL,
						0), 0);
	o = job_model_to_json(m);
	ck_assert_ptr_nonnull(o);
	back = job_model_from_json(o, err, sizeof(err));
	ck_assert_msg(back != NULL, "%s", err);
	ck_assert_uint_eq(back->batch.rebatches, 1);
	ck_assert_double_eq(back->batch.rebatch_seconds, 1.5);
	ck_assert(back->batch.in_place);
	ck_assert_uint_eq(back->batch.missed, 0);
	ck_assert_ptr_nonnull(job_model_rebatch_open(back));
	ck_assert_double_eq(back->batch.offer.global, 512);
	ck_assert_int_eq(back->batch.offer.local, 128);
	ck_assert_int_eq(back->batch.offer.sent, 1110);
	ck_assert_double_eq_tol(back->batch.offer.lr_scale,
				m->batch.offer.lr_scale, 1e-12);
	job_model_free(back);
	/* A state file from before: none taken, none sent. */
	ck_assert(json_object_object_get_ex(o, "batch", &b));
	json_object_object_del(b, "rebatches");
	json_object_object_del(b, "rebatch_seconds");
	json_object_object_del(b, "rebatch_missed");
	json_object_object_del(b, "in_place");
	json_object_object_del(b, "rebatch_sent");
	back = job_model_from_json(o, err, sizeof(err));
	ck_assert_msg(back != NULL, "%s", err);
	ck_assert_uint_eq(back->batch.rebatches, 0);
	ck_assert(!back->batch.in_place);
	ck_assert_ptr_null(job_model_rebatch_open(back));
	job_model_free(back);
	/* Bad values are refused, naming what. */
	json_object_object_add(b, "rebatches", json_object_new_int(-1));
	ck_assert_ptr_null(job_model_from_json(o, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "rebatches"));
	json_object_object_del(b, "rebatches");
	json_object_object_add(b, "rebatch_sent", json_tokener_parse(
		"{\"batch\":1024,\"local_batch\":100000,\"accum\":0,"
		"\"lr_scale\":1,\"sent\":5,\"open\":true}"));
	ck_assert_ptr_null(job_model_from_json(o, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "local_batch"));
	json_object_put(o);
	job_model_free(m);
}
END_TEST

/*
 * A kept job that takes batch changes in place is re-batched as a KEEP
 * with its new batch, priced at its re-batch time (RebatchCost until it
 * took one, then its own mean): no checkpoint, no minimum interval
 * needed, whatever a restart would cost. While a change is out, it keeps
 * its batch; once it missed one, its changes go the restart path.
 */
START_TEST(test_plan_rebatch_in_place)
{
	job_model_t *m = running_job(100, 4096, 256, 3);
	place_slot_t sl[1] = { { 0, 0, 4 } };
	plan_job_t j = { .model = m, .running = true, .slots = sl,
			 .nslots = 1 };
	res_vec_t fr[1] = { res_make(64, 1e6, 0) };
	const plan_decision_t *d;
	plan_params_t prm;
	goodput_choice_t best;
	plan_t p;

	plan_params_init(&prm);
	prm.policy = PLAN_GOODPUT;
	prm.now = 1000 + 160;	/* within the minimum interval */
	prm.restart_cost = 1e6;	/* a restart would never pay */
	prm.rebatch_cost = 10;
	/* Its reports do not say their batch: no re-batch (never confirmed
	 * a checkpoint, and a restart does not pay). */
	ck_assert_int_eq(plan_run(&j, 1, fr, 1, &prm, &p), 0);
	ck_assert_int_eq(p.decisions[0].action, PLAN_KEEP);
	ck_assert(!p.decisions[0].rebatch);
	plan_free(&p);
	/* They do: re-batched in place, priced at RebatchCost. */
	ck_assert_int_eq(job_model_rebatch_said(m, 1101, 4096, -1), 0);
	ck_assert_int_eq(plan_run(&j, 1, fr, 1, &prm, &p), 0);
	d = &p.decisions[0];
	ck_assert_int_eq(d->action, PLAN_KEEP);
	ck_assert(d->rebatch && d->in_place);
	ck_assert_int_eq(job_model_batch_for(m, 4, 1, &best), 0);
	ck_assert_double_eq(d->batch, best.batch);
	ck_assert_int_eq(d->local_batch, best.local);
	ck_assert_int_eq(d->accum, best.accum);
	ck_assert_double_eq_tol(d->gain, (d->remaining_now -
					  d->remaining_planned - 10) /
				d->remaining_now, 1e-12);
	ck_assert_uint_eq(p.nkeep, 1);
	ck_assert_uint_eq(p.nresize, 0);
	ck_assert_uint_eq(p.nrebatch, 1);
	ck_assert_ptr_nonnull(strstr(d->reason, "re-batches in place"));
	/* Sent: kept at its batch until it takes it. */
	ck_assert_int_eq(job_model_rebatch_send(m, 1060, d->batch,
						d->local_batch, d->accum,
						NULL, 0), 0);
	plan_free(&p);
	ck_assert_int_eq(plan_run(&j, 1, fr, 1, &prm, &p), 0);
	ck_assert_int_eq(p.decisions[0].action, PLAN_KEEP);
	ck_assert(!p.decisions[0].rebatch);
	ck_assert_ptr_nonnull(strstr(p.decisions[0].reason,
				     "re-batching in place"));
	plan_free(&p);
	/* Its own re-batch time prices the next one: taken 1e7 s after
	 * it was sent, a change back to 4096 no longer pays. */
	ck_assert_int_eq(job_model_rebatch_said(m, 1060 + 10000000,
						best.batch, -1), 1);
	ck_assert_int_eq(job_model_batch_run(m, 4096, 256, 3), 0);
	ck_assert_int_eq(plan_run(&j, 1, fr, 1, &prm, &p), 0);
	ck_assert(!p.decisions[0].rebatch);
	plan_free(&p);
	/* Missed one: its changes go the restart path (resizable, and a
	 * restart that pays). */
	m->batch.rebatches = 0;
	m->batch.rebatch_seconds = 0;
	ck_assert_int_eq(job_model_rebatch_send(m, 1070, best.batch,
						best.local, best.accum, NULL,
						0), 0);
	ck_assert_int_eq(job_model_rebatch_expire(m, 1070 + 60, 60), 1);
	ck_assert_int_eq(job_model_checkpoint(m, 1100, 10), 0);
	prm.now = 1000 + 3600;
	prm.restart_cost = 10;
	ck_assert_int_eq(plan_run(&j, 1, fr, 1, &prm, &p), 0);
	d = &p.decisions[0];
	ck_assert_int_eq(d->action, PLAN_RESIZE);
	ck_assert(d->rebatch && !d->in_place);
	ck_assert_uint_eq(p.nrebatch, 0);
	plan_free(&p);
	job_model_free(m);
}
END_TEST

static Suite *job_batch_suite(void)
{
	Suite *s = suite_create("job_batch");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_limits_refused);
	tcase_add_test(tc, test_gradients_refused);
	tcase_add_test(tc, test_best_batch);
	tcase_add_test(tc, test_unfitted_within_range);
	tcase_add_test(tc, test_fit_from_first_step);
	tcase_add_test(tc, test_reports_feed);
	tcase_add_test(tc, test_epoch_learned_at_any_batch);
	tcase_add_test(tc, test_past_its_epochs_not_about_to_end);
	tcase_add_test(tc, test_first_epoch_planned_on_its_progress);
	tcase_add_test(tc, test_json_round_trip);
	tcase_add_test(tc, test_json_dirty_batch);
	tcase_add_test(tc, test_plan_mixed);
	tcase_add_test(tc, test_fabricated_sync_takes_only_the_surplus);
	tcase_add_test(tc, test_plan_rebatch);
	tcase_add_test(tc, test_plan_placement_aware);
	tcase_add_test(tc, test_rebatch_record);
	tcase_add_test(tc, test_rebatch_json);
	tcase_add_test(tc, test_plan_rebatch_in_place);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(job_batch_suite());
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* test_job_feed.c - a job's reports into its record (job/job_feed.c). */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hints/hints.h"
#include "job/job_feed.h"
#include "job/job_model.h"
#include "report/protocol.h"
#include "check_run.h"
#include "job_fixture.h"

#define PS_JOB "optimus,mode=sync,batch=64,ps=1,workers=2"

/* The feed's memory of the job under test, and what became of the last
 * report fed. */
static job_feed_t f;
static job_feed_out_t out;
static straggler_params_t detector;

static job_model_t *new_job(const char *hints_text)
{
	memset(&f, 0, sizeof(f));
	straggler_params_init(&detector);
	return job_fixture_new(42, hints_text);
}

/* r fed to m, whose current run is `run`. */
static job_feed_verdict_t feed(job_model_t *m, const report_t *r,
			       uint32_t run)
{
	job_feed_verdict_t v = job_feed_report(m, &f, r, run, &detector,
					       &out);

	ck_assert_int_eq(v, out.verdict);
	return v;
}

static report_t progress(double received, uint64_t step)
{
	report_t r = { .kind = REPORT_PROGRESS, .job_id = 42,
		       .received = received };

	r.progress = (report_progress_t){ .step = step, .loss = 1.0,
					  .epoch = -1,
					  .rebatch_seconds = -1.0 };
	return r;
}

/*
 * The run's speed is the steps between two of its reports over their
 * arrival times to the sub-second; none while the job does not run,
 * within a second, or across runs.
 */
START_TEST(test_run_speed)
{
	job_model_t *m = new_job(PS_JOB);
	report_t r = progress(1100.0, 10);

	/* pending: the report is taken, no speed */
	ck_assert_int_eq(feed(m, &r, 0),
			 JOB_FEED_TAKEN);
	ck_assert_uint_eq(m->speed.nsamples, 0);
	job_model_started(m, 1100, 1, 2, 1);
	r = progress(1101.5, 20);
	ck_assert_int_eq(feed(m, &r, 0),
			 JOB_FEED_TAKEN);
	ck_assert_double_eq(f.progress_received, 1101.5);
	/* 30 steps over 1.5 s, not over the 2 s of whole seconds */
	ck_assert_double_eq_tol(job_feed_run_speed(m, &f, 1103.0, 50), 20.0,
				1e-9);
	ck_assert_double_eq(job_feed_run_speed(m, &f, 1102.0, 50), 0.0);
	ck_assert_double_eq(job_feed_run_speed(m, &f, 1103.0, 20), 0.0);
	r = progress(1103.0, 50);
	ck_assert_int_eq(feed(m, &r, 0),
			 JOB_FEED_TAKEN);
	ck_assert_double_eq_tol(m->steps_per_sec, 20.0, 1e-9);
	/* a new run: its first report has no interval of its own */
	job_model_resizing(m, 1104);
	job_model_started(m, 1110, 1, 4, 1);
	ck_assert_double_eq(job_feed_run_speed(m, &f, 1112.0, 90), 0.0);
	/* a record restored from its state file: its whole second */
	f.progress_received = 0.0;
	job_model_started(m, 1100, 1, 4, 1);
	ck_assert_double_eq_tol(job_feed_run_speed(m, &f, 1105.0, 60), 5.0,
				1e-9);
	job_model_free(m);
}
END_TEST

/* A speed the job timed itself is the one taken; without a loss the
 * record keeps its last one. */
START_TEST(test_progress_timed_and_lossless)
{
	job_model_t *m = new_job(PS_JOB);
	job_progress_t p = { .received = 1200.0, .step = 10, .loss = 0.8,
			     .rebatch_seconds = -1.0, .timed = NAN };

	job_model_started(m, 1100, 1, 2, 1);
	ck_assert_int_eq(job_feed_progress(m, &f, &p, NULL), 0);
	p = (job_progress_t){ .received = 1210.0, .step = 60, .loss = NAN,
			      .rebatch_seconds = -1.0, .timed = 3.0 };
	ck_assert_int_eq(job_feed_progress(m, &f, &p, NULL), 0);
	ck_assert_double_eq(m->steps_per_sec, 3.0);
	ck_assert_double_eq(m->loss, 0.8);
	ck_assert_double_eq(m->step, 60);
	/* bad values: refused, the feed's time not moved */
	p = (job_progress_t){ .received = 1220.0, .step = -1, .loss = NAN,
			      .rebatch_seconds = -1.0, .timed = NAN };
	ck_assert_int_eq(job_feed_progress(m, &f, &p, NULL), -EINVAL);
	ck_assert_double_eq(f.progress_received, 1210.0);
	job_model_free(m);
}
END_TEST

/* Another run's report changes nothing; after the job's end only its
 * last progress and gradient statistics are taken. */
START_TEST(test_stale_and_after_end)
{
	job_model_t *m = new_job(PS_JOB);
	report_t r = progress(1100.0, 10);
	unsigned reports;

	job_model_started(m, 1050, 1, 2, 1);
	r.has_run = 1;
	r.run = 0;
	reports = m->reports;
	ck_assert_int_eq(feed(m, &r, 1),
			 JOB_FEED_STALE);
	ck_assert_uint_eq(m->reports, reports);
	ck_assert_int_eq(feed(m, &r, 0),
			 JOB_FEED_TAKEN);
	ck_assert_uint_eq(m->reports, reports + 1);
	ck_assert(!out.after_end);
	job_model_done(m, 1150);
	r = progress(1150.5, 40);
	ck_assert_int_eq(feed(m, &r, 0),
			 JOB_FEED_TAKEN);
	ck_assert(out.after_end);
	ck_assert_double_eq(m->step, 40);
	r = (report_t){ .kind = REPORT_CHECKPOINT, .job_id = 42,
			.received = 1151.0 };
	r.checkpoint.step = 40;
	ck_assert_int_eq(feed(m, &r, 0),
			 JOB_FEED_AFTER_END);
	job_model_free(m);
}
END_TEST

/* A checkpoint confirms the stop under way only at or after its signal;
 * any checkpoint declares that the run can checkpoint. */
START_TEST(test_checkpoint_confirmed)
{
	job_model_t *m = new_job(PS_JOB);
	report_t r = { .kind = REPORT_CHECKPOINT, .job_id = 42,
		       .received = 1101.0 };
	bool acked = true;

	job_model_started(m, 1100, 1, 2, 1);
	ck_assert(!job_model_run_declared(m));
	r.checkpoint.step = 5;
	ck_assert_int_eq(feed(m, &r, 0),
			 JOB_FEED_TAKEN);
	ck_assert(!out.checkpoint_acked);
	ck_assert(job_model_run_declared(m));
	job_model_resizing(m, 1200);
	ck_assert_int_eq(job_feed_checkpoint(m, 1199.0, 50, &acked), 0);
	ck_assert(!acked);
	r.received = 1203.5;
	r.checkpoint.step = 60;
	ck_assert_int_eq(feed(m, &r, 0),
			 JOB_FEED_TAKEN);
	ck_assert(out.checkpoint_acked);
	ck_assert_double_eq_tol(out.ack_seconds, 3.5, 1e-9);
	ck_assert(m->resize_ckpt);
	job_model_free(m);
}
END_TEST

/* A speed is a claim: refused with its reason while the job waits or
 * before its progress shows a speed, taken into the model once it
 * agrees with it. */
START_TEST(test_speed_claim_fed)
{
	job_model_t *m = new_job("optimus,mode=allreduce,min_workers=1,"
				 "max_workers=8,batch=64");
	report_t r = { .kind = REPORT_SPEED, .job_id = 42, .received = 1000 };

	r.speed = (report_speed_t){ .ps = 0, .workers = 2,
				    .steps_per_sec = 2.0 };
	ck_assert_int_eq(feed(m, &r, 0),
			 JOB_FEED_CLAIM_REFUSED);
	ck_assert_msg(strstr(out.why, "not running"), "%s", out.why);
	job_model_started(m, 1000, 0, 2, 1);
	for (int t = 0; t <= 10; t++) {
		report_t p = progress(1005 + t, 100 + 2 * (uint64_t)t);
		ck_assert_int_eq(feed(m, &p, 0),
				 JOB_FEED_TAKEN);
	}
	r.received = 1016;
	ck_assert_int_eq(feed(m, &r, 0),
			 JOB_FEED_TAKEN);
	ck_assert_uint_eq(m->claims.taken, 1);
	r.speed.steps_per_sec = 40.0;
	ck_assert_int_eq(feed(m, &r, 0),
			 JOB_FEED_CLAIM_REFUSED);
	ck_assert_msg(strstr(out.why, "more than 2x away"), "%s", out.why);
	job_model_free(m);
}
END_TEST

/*
 * The all-reduce part a progress report says goes onto the running
 * configuration's step sample, which the record timed; a part not below
 * that step is no measurement of it (not kept, the progress is). A speed
 * report at another batch carries its own.
 */
START_TEST(test_sync_seconds_fed)
{
	job_model_t *m = new_job("optimus,mode=allreduce,adaptive_batch=yes,min_workers=1,"
				 "max_workers=8,batch=64,max_batch=512");
	report_t p, r = { .kind = REPORT_SPEED, .job_id = 42 };
	goodput_limits_t lim;
	char err[128];

	ck_assert_int_eq(hints_batch_limits(&m->hints, &lim), 0);
	ck_assert_int_eq(job_model_batch_limits(m, 64, &lim, err,
						sizeof(err)), 0);
	job_model_started(m, 1000, 0, 4, 1);
	p = progress(1005, 100);
	ck_assert_int_eq(feed(m, &p, 0), JOB_FEED_TAKEN);
	p = progress(1015, 120);	/* 2 steps a second: 0.5 s a step */
	p.progress.sync_seconds = 0.125;
	ck_assert_int_eq(feed(m, &p, 0), JOB_FEED_TAKEN);
	ck_assert_uint_eq(m->batch.nsamples, 1);
	ck_assert_int_eq(m->batch.samples[0].w, 4);
	ck_assert_double_eq_tol(m->batch.samples[0].step, 0.5, 1e-9);
	ck_assert_double_eq(m->batch.samples[0].sync, 0.125);
	/* a report that says none keeps the part measured there */
	p = progress(1025, 140);
	ck_assert_int_eq(feed(m, &p, 0), JOB_FEED_TAKEN);
	ck_assert_double_eq(m->batch.samples[0].sync, 0.125);
	/* a part beyond the step: the progress taken, the part not */
	p = progress(1035, 160);
	p.progress.sync_seconds = 0.75;
	ck_assert_int_eq(feed(m, &p, 0), JOB_FEED_TAKEN);
	ck_assert_double_eq(m->step, 160);
	ck_assert_double_eq(m->batch.samples[0].sync, 0.125);
	/* a step at another per-GPU batch with its own part */
	r.received = 1036;
	r.speed = (report_speed_t){ .ps = 0, .workers = 4,
				    .steps_per_sec = 2.5, .local_batch = 8,
				    .sync_seconds = 0.1 };
	ck_assert_int_eq(feed(m, &r, 0), JOB_FEED_TAKEN);
	ck_assert_uint_eq(m->batch.nsamples, 2);
	ck_assert_int_eq(m->batch.samples[1].local, 8);
	ck_assert_double_eq(m->batch.samples[1].sync, 0.1);
	job_model_free(m);
}
END_TEST

/* A worker's pace into the detector: the straggler said once, when it is
 * found; a run that is over is late, not wrong. */
START_TEST(test_worker_straggler_and_late)
{
	job_model_t *m = new_job("optimus,mode=allreduce,workers=4,batch=64");
	report_t r = { .kind = REPORT_WORKER, .job_id = 42, .received = 1100 };
	int found = 0;

	job_model_started(m, 1000, 0, 4, 4);
	for (int k = 0; k < 50; k++)
		for (uint32_t w = 0; w < 4; w++) {
			r.worker.rank = w;
			snprintf(r.worker.node, sizeof(r.worker.node), "n%u",
				 w);
			r.worker.step_time = w == 3 ? 3.0 : 1.0;
			ck_assert_int_eq(feed(m, &r, 0),
					 JOB_FEED_TAKEN);
			found += out.straggler_found;
		}
	ck_assert_int_eq(found, 1);
	ck_assert_str_eq(m->avoid_node, "n3");
	job_model_resizing(m, 1200);
	ck_assert_int_eq(feed(m, &r, 0),
			 JOB_FEED_LATE);
	ck_assert_int_eq(out.rc, -ESRCH);
	r.worker.rank = 9;
	job_model_started(m, 1300, 0, 4, 4);
	ck_assert_int_eq(feed(m, &r, 0),
			 JOB_FEED_REFUSED);
	job_model_free(m);
}
END_TEST

static Suite *job_feed_suite(void)
{
	Suite *s = suite_create("job_feed");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_run_speed);
	tcase_add_test(tc, test_progress_timed_and_lossless);
	tcase_add_test(tc, test_stale_and_after_end);
	tcase_add_test(tc, test_checkpoint_confirmed);
	tcase_add_test(tc, test_speed_claim_fed);
	tcase_add_test(tc, test_sync_seconds_fed);
	tcase_add_test(tc, test_worker_straggler_and_late);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(job_feed_suite());
}

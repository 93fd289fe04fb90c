/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * test_sim.c - optimus-sim: event order, the one loop of both engines,
 * trace parsing and its errors,
 * the ground-truth models, and determinism (same seed, same output).
 */
#include <check.h>
#include <errno.h>
#include <unistd.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/job_feed.h"
#include "sim_apply_decision.h"
#include "sim_curves.h"
#include "sim_decision.h"
#include "sim_engine.h"
#include "sim_events.h"
#include "sim_exp.h"
#include "sim_start_cost.h"
#include "sim_truth.h"
#include "sim_workload.h"
#include "check_run.h"

START_TEST(test_events_order)
{
	sim_events_t q;
	sim_event_t ev;
	/* time, kind: popped by time, then kind, then insertion order. */
	static const struct { double t; sim_ev_kind_t k; } in[] = {
		{ 5, SIM_EV_TICK }, { 1, SIM_EV_ARRIVAL }, { 5, SIM_EV_FINISH },
		{ 0, SIM_EV_TICK }, { 5, SIM_EV_ARRIVAL }, { 1, SIM_EV_ARRIVAL },
		{ 3, SIM_EV_RESUME },
	};
	static const int order[] = { 3, 1, 5, 6, 2, 4, 0 };

	sim_events_init(&q);
	for (size_t i = 0; i < 7; i++)
		ck_assert_int_eq(sim_events_push(&q, in[i].t, in[i].k, i, 0),
				 0);
	for (size_t i = 0; i < 7; i++) {
		ck_assert(sim_events_pop(&q, &ev));
		ck_assert_uint_eq(ev.job, order[i]);
	}
	ck_assert(!sim_events_pop(&q, &ev));
	ck_assert_int_ne(sim_events_push(&q, NAN, SIM_EV_TICK, 0, 0), 0);
	sim_events_free(&q);
}
END_TEST

START_TEST(test_events_many)
{
	sim_events_t q;
	sim_event_t ev;
	double last = -1;

	sim_events_init(&q);
	for (unsigned i = 0; i < 1000; i++)
		sim_events_push(&q, (i * 7919) % 1000, SIM_EV_TICK, i, 0);
	for (unsigned i = 0; i < 1000; i++) {
		ck_assert(sim_events_pop(&q, &ev));
		ck_assert(ev.time >= last);
		last = ev.time;
	}
	sim_events_free(&q);
}
END_TEST

/* A kind of workload for the loop: what it was asked, and when. */
typedef struct fake_kind {
	sim_engine_t *e;
	double plans[8], moved;
	size_t nplans, arrivals, rounds;
} fake_kind_t;

static int fake_advance(void *ctx, double t)
{
	fake_kind_t *k = ctx;

	ck_assert(t >= k->e->now);
	k->moved = t;
	return 0;
}

/* Job j arrives at 10 j and ends 25 s later. */
static int fake_arrive(void *ctx, uint32_t job)
{
	fake_kind_t *k = ctx;

	k->arrivals++;
	return sim_events_push(&k->e->q, k->e->now + 25.0, SIM_EV_FINISH, job,
			       0);
}

static int fake_finish(void *ctx, uint32_t job, uint32_t gen, bool *done)
{
	(void)ctx;
	(void)job;
	*done = gen == 0;
	return 0;
}

static int fake_plan(void *ctx)
{
	fake_kind_t *k = ctx;

	ck_assert_uint_lt(k->nplans, 8);
	k->plans[k->nplans++] = k->e->now;
	return 0;
}

static int fake_round(void *ctx)
{
	((fake_kind_t *)ctx)->rounds++;
	return 0;
}

START_TEST(test_engine_loop)
{
	static const sim_engine_ops_t ops = {
		.advance = fake_advance, .arrive = fake_arrive,
		.finish = fake_finish, .plan = fake_plan,
		.tick_end = fake_round };
	/* Ticks every 20 s; arrivals at 0 and 10, ends at 25 and 35. One
	 * plan an instant (the tick at 0 plans its arrival's instant), and
	 * none once every job is done (35, the tick at 40). */
	static const double with_events[] = { 0, 10, 20, 25 };
	static const double ticks_only[] = { 0, 20 };
	sim_engine_t e;

	for (int events = 1; events >= 0; events--) {
		fake_kind_t k = { .e = &e };
		sim_engine_init(&e, &ops, &k, 2, 20.0, 1000.0);
		e.event_plans = events;
		ck_assert_int_eq(sim_events_push(&e.q, 0, SIM_EV_ARRIVAL, 0,
						 0), 0);
		ck_assert_int_eq(sim_events_push(&e.q, 10, SIM_EV_ARRIVAL, 1,
						 0), 0);
		ck_assert_int_eq(sim_events_push(&e.q, 0, SIM_EV_TICK, 0, 0),
				 0);
		/* A stale completion is not counted. */
		ck_assert_int_eq(sim_events_push(&e.q, 5, SIM_EV_FINISH, 0,
						 1), 0);
		ck_assert_int_eq(sim_engine_run(&e), 0);
		const double *want = events ? with_events : ticks_only;
		size_t n = events ? 4 : 2;
		ck_assert_uint_eq(k.nplans, n);
		for (size_t i = 0; i < n; i++)
			ck_assert_double_eq(k.plans[i], want[i]);
		ck_assert_uint_eq(e.ndone, 2);
		ck_assert_uint_eq(k.arrivals, 2);
		/* Rounds run after the ticks' plans while a job is not
		 * done: at 0 and 20; the tick at 40 finds both done. */
		ck_assert_uint_eq(k.rounds, 2);
		ck_assert_double_eq(e.now, 40);
		ck_assert_double_eq(k.moved, 40);
		sim_engine_free(&e);
	}
}
END_TEST

static int parse(const char *text, sim_workload_t *w, char *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc = sim_workload_parse(f, "t.csv", w, err, 256);

	fclose(f);
	return rc;
}

START_TEST(test_trace_ok)
{
	sim_workload_t w;
	char err[256];

	ck_assert_int_eq(parse("arrival_s,model,mode,size\n# a comment\n"
			       "60,vgg-16,sync,2\n\n"
			       "0, ResNet-50 , async, 0.5, 3\n"
			       "60,svm,sync,1\n"
			       "90,cnn-rand,async,1,1,2,8\n", &w, err), 0);
	ck_assert_uint_eq(w.n, 4);
	/* Requested size: as given, else the default (4 + 4, within the
	 * model's limits). */
	int p, wk;
	ck_assert_int_eq(w.jobs[3].req_ps, 2);
	ck_assert_int_eq(w.jobs[3].req_workers, 8);
	sim_workload_request(&w.jobs[0], &p, &wk);
	ck_assert(p == 4 && wk == 4);
	ck_assert_str_eq(w.jobs[0].model->name, "resnet-50");
	ck_assert_int_eq(w.jobs[0].mode, SPEED_ASYNC);
	ck_assert(w.jobs[0].weight == 3.0 && w.jobs[0].size == 0.5);
	/* Stable among equal arrivals: file order. */
	ck_assert_str_eq(w.jobs[1].model->name, "vgg-16");
	ck_assert_str_eq(w.jobs[2].model->name, "svm");
	sim_workload_free(&w);
}
END_TEST

START_TEST(test_trace_errors)
{
	static const struct { const char *text, *want; } bad[] = {
		{ "0,resnet-50,async,1\n5,alexnet,sync,1\n",
		  "t.csv:2: unknown model" },
		{ "0,resnet-50,both,1\n", "t.csv:1: mode must be" },
		{ "-1,resnet-50,sync,1\n", "t.csv:1: arrival must be" },
		{ "x,resnet-50,sync,1\n", "t.csv:1: arrival must be" },
		{ "0,resnet-50,sync\n", "t.csv:1: expected" },
		{ "0,resnet-50,sync,0\n", "t.csv:1: size must be" },
		{ "0,resnext-110,sync,10\n", "t.csv:1: size beyond" },
		{ "0,resnet-50,sync,1,-2\n", "t.csv:1: weight must be" },
		{ "0,resnet-50,sync,1,2,3\n", "t.csv:1: expected" },
		{ "0,resnet-50,sync,1,1,0,4\n", "t.csv:1: ps must be" },
		{ "0,cnn-rand,sync,1,1,5,4\n", "t.csv:1: ps must be" },
		{ "0,cnn-rand,sync,1,1,2,9\n", "t.csv:1: workers must be" },
		{ "0,cnn-rand,sync,1,1,2,1.5\n", "t.csv:1: workers must be" },
		{ "# nothing\n", "t.csv: no job" },
	};
	sim_workload_t w;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_ne(parse(bad[i].text, &w, err), 0);
		ck_assert_msg(strstr(err, bad[i].want), "%s: got '%s'",
			      bad[i].want, err);
		ck_assert_ptr_null(w.jobs);
	}
	ck_assert_int_ne(sim_workload_read("/nonexistent/t.csv", &w, err,
					   sizeof(err)), 0);
	ck_assert(strstr(err, "/nonexistent/t.csv"));
}
END_TEST

START_TEST(test_sample_trace)
{
	const char *dir = getenv("srcdir");
	char path[1024], err[256];
	sim_workload_t w;

	snprintf(path, sizeof(path), "%s/examples/traces/sample.csv",
		 dir ? dir : ".");
	ck_assert_msg(sim_workload_read(path, &w, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert(w.n >= 10);
	for (size_t i = 1; i < w.n; i++)
		ck_assert(w.jobs[i].arrival >= w.jobs[i - 1].arrival);
	sim_workload_free(&w);
}
END_TEST

/*
 * A large trace `size` must not make a job finish at once (the per-epoch
 * decrease of its truth curve below delta from the first step would give
 * resnext-110 size 4 -> 2497 s, 8 -> 1409 s, >= 10 -> 0 s). A job's
 * JCT alone on the cluster must grow with its size, or the size must be
 * refused with an error that names it.
 */
/*
 * The catalogue's truth as the engines ask it (sim_truth_ops.h): the
 * answers are the truth's own, an iteration is one step of every worker,
 * worth w steps async and one sync, and the job measures no gradients.
 */
START_TEST(test_catalog_truth)
{
	const sim_truth_ops_t *ops = &sim_catalog_truth;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int ps[2] = { 2, 2 }, workers[2] = { 3, 3 };
	sim_truth_run_t run = { .workers = 6, .ps = 4, .nnodes = 2,
				.node_ps = ps, .node_workers = workers,
				.paa = true };
	static const speed_mode_t modes[] = { SPEED_SYNC, SPEED_ASYNC };

	for (size_t i = 0; i < 2; i++) {
		sim_truth_t t;
		sim_truth_sample_t m;
		double loss, sqr, var;
		ck_assert_int_eq(sim_truth_init(&t,
						sim_catalog_find("resnet-50"),
						modes[i], 1.0, 0.001, rng), 0);
		ck_assert(ops->epoch_start(&t, 0) == 0.0);
		ck_assert(ops->epoch_start(&t, 3) == 3 * t.epoch_steps);
		ck_assert(ops->work(&t) == t.total_steps);
		ck_assert_int_eq(ops->loss(&t, 10.0, &loss), 0);
		ck_assert(loss == sim_truth_loss(&t, 10.0));
		ck_assert(ops->checkpoint(&t) == sim_truth_checkpoint(&t));
		ck_assert_int_eq(ops->gradients(&t, 256.0, 0, &sqr, &var),
				 -EDOM);
		ck_assert_int_eq(sim_truth_measure(ops, &t, &run, 0, &m,
						   NULL, 0), 0);
		ck_assert(m.moves && m.sync > 0.0 && m.sync < m.step);
		ck_assert(m.iteration == m.step);
		ck_assert(m.gain == (modes[i] == SPEED_ASYNC ? 6.0 : 1.0));
		ck_assert(m.rate == m.gain / m.step);
	}
	gsl_rng_free(rng);
}
END_TEST

START_TEST(test_truth_size_monotone)
{
	static const double sizes[] = { 1, 2, 4, 8, 10, 16, 30, 64 };
	static const char *models[] = { "resnext-110", "resnet-50" };
	char err[256];

	for (size_t m = 0; m < 2; m++) {
		double last = 0.0;
		bool refused = false;
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			sim_job_spec_t spec = { 0.0, sim_catalog_find(models[m]),
						SPEED_SYNC, sizes[k], 1.0, 0, 0, NULL };
			sim_workload_t w = { &spec, 1 };
			sim_config_t c;
			sim_result_t r;

			sim_config_init(&c);
			int rc = sim_run(&c, &w, NULL, NULL, &r, err,
					 sizeof(err));
			if (rc) {
				ck_assert_msg(strstr(err, "size"), "%s", err);
				refused = true;
				continue;
			}
			/* Once refused, a larger size is never accepted. */
			ck_assert_msg(!refused, "%s size %g accepted after a "
				      "smaller one was refused", models[m],
				      sizes[k]);
			ck_assert_uint_eq(r.run.ndone, 1);
			double jct = r.run.jobs[0].end - r.run.jobs[0].submit;
			ck_assert_msg(jct > last, "%s: size %g: JCT %.0f s, "
				      "not above %.0f s of the smaller size",
				      models[m], sizes[k], jct, last);
			last = jct;
			sim_result_free(&r);
		}
	}
}
END_TEST

/* The truth's steps per second of t with ps[i] PS and workers[i]
 * workers on server i of n, through the engines' interface. */
static int truth_speed(const sim_truth_t *t, const int *ps,
		       const int *workers, size_t n, bool paa, double *rate)
{
	sim_truth_run_t run = { .nnodes = n, .node_ps = ps,
				.node_workers = workers, .paa = paa };
	sim_truth_sample_t m;
	int rc;

	for (size_t i = 0; i < n; i++) {
		run.ps += ps[i];
		run.workers += workers[i];
	}
	rc = sim_truth_measure(&sim_catalog_truth, t, &run, 0, &m, NULL, 0);
	ck_assert(rc || m.moves);
	*rate = m.rate;
	return rc;
}

START_TEST(test_truth)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	sim_truth_t t;
	int one_ps[1] = { 4 }, one_workers[1] = { 4 };
	int apart_ps[2] = { 4, 0 }, apart_workers[2] = { 0, 4 };
	int even_ps[SIM_MAX_PS], even_workers[SIM_MAX_PS];
	size_t neven = sim_truth_split_even(4, 4, 2, even_ps, even_workers);

	ck_assert_int_eq(sim_truth_init(&t, sim_catalog_find("resnet-50"),
					SPEED_SYNC, 1.0, 0.001, rng), 0);
	ck_assert(isfinite(t.total_steps) && t.total_steps > 100);
	ck_assert(sim_truth_loss(&t, 0) > sim_truth_loss(&t, 1000));
	/* Placement: colocated is faster than apart (Theorem 1). */
	ck_assert(sim_truth_cross(one_ps, one_workers, 1) == 0.0);
	ck_assert(sim_truth_cross(apart_ps, apart_workers, 2) == 1.0);
	ck_assert(neven == 2);
	ck_assert(fabs(sim_truth_cross(even_ps, even_workers, neven) - 0.5) <
		  1e-12);
	double near, far, paa, mxnet;
	ck_assert_int_eq(truth_speed(&t, one_ps, one_workers, 1, true,
				     &near), 0);
	ck_assert_int_eq(truth_speed(&t, apart_ps, apart_workers, 2, true,
				     &far), 0);
	ck_assert(near > far);
	/* PAA balances ResNet-50 better than MXNet's default. */
	ck_assert(t.imb_paa[8] < t.imb_mxnet[8]);
	int eight_ps[2] = { 8, 0 }, eight_workers[2] = { 0, 8 };
	ck_assert_int_eq(truth_speed(&t, eight_ps, eight_workers, 2, true,
				     &paa), 0);
	ck_assert_int_eq(truth_speed(&t, eight_ps, eight_workers, 2, false,
				     &mxnet), 0);
	ck_assert(paa > mxnet);
	/* No PS, no step time. */
	int none[1] = { 0 };
	ck_assert_int_eq(truth_speed(&t, none, one_workers, 1, true, &near),
			 -EDOM);
	/* Blocks of every model add up to its parameters. */
	for (size_t i = 0; i < sim_catalog_count(); i++) {
		const sim_model_t *m = sim_catalog_at(i);
		uint64_t b[512], sum = 0;
		size_t n = sim_catalog_blocks(m, b, 512);
		ck_assert(n > 0);
		for (size_t k = 0; k < n; k++)
			sum += b[k];
		ck_assert_msg(fabs(sum / (m->params_m * 1e6) - 1) < 0.02,
			      "%s: %llu", m->name, (unsigned long long)sum);
	}
	gsl_rng_free(rng);
}
END_TEST

/* A small `run` of two policies, as JSON text. */
static char *run_json(uint64_t seed)
{
	sim_exp_opts_t eo = { .seed = seed, .quick = true };
	sim_report_t r;
	char err[256];
	sim_exp_t e = { .opts = &eo, .seeds = 1, .runs_total = 2,
			.report = &r, .err = err, .errlen = sizeof(err) };
	sim_config_t c;
	sim_gen_params_t gp;

	memset(&r, 0, sizeof(r));
	r.experiment = "test";
	sim_exp_optimus_setup(&e, &c, &gp);
	gp.njobs = 6;
	c.nservers = 3;
	ck_assert_msg(sim_exp_variant(&e, "optimus", &c, &gp, NULL) == 0,
		      "%s", err);
	c.policy = PLAN_DRF;
	ck_assert_msg(sim_exp_variant(&e, "drf", &c, &gp, NULL) == 0, "%s",
		      err);
	ck_assert_uint_eq(r.runs[0].run.ndone, 6);
	ck_assert_uint_eq(r.runs[1].run.ndone, 6);
	json_object *o = sim_report_json(&r, true);
	char *s = strdup(json_object_to_json_string(o));
	json_object_put(o);
	sim_report_free(&r);
	return s;
}

/*
 * A job arriving between two ticks starts at once when arrivals call for a
 * plan (as in sched/optimus), at the next tick otherwise.
 */
START_TEST(test_event_plans)
{
	sim_job_spec_t spec = { 100.0, sim_catalog_find("cnn-rand"),
				SPEED_ASYNC, 0.2, 1.0, 0, 0, NULL };
	sim_workload_t w = { &spec, 1 };
	sim_config_t c;
	sim_result_t r;
	char err[256];

	sim_config_init(&c);
	ck_assert(c.event_plans);
	ck_assert_msg(sim_run(&c, &w, NULL, NULL, &r, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_uint_eq(r.run.ndone, 1);
	ck_assert(r.run.jobs[0].start == 100.0);
	sim_result_free(&r);
	c.event_plans = false;
	ck_assert_msg(sim_run(&c, &w, NULL, NULL, &r, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert(r.run.jobs[0].start == c.interval);
	sim_result_free(&r);
}
END_TEST

/*
 * With fixed sizes a job runs at the size it was submitted with and is
 * never resized; elastic, the same job on an empty cluster grows.
 */
START_TEST(test_fixed_size)
{
	sim_job_spec_t spec = { 0.0, sim_catalog_find("resnet-50"),
				SPEED_SYNC, 0.3, 1.0, 2, 2, NULL };
	sim_workload_t w = { &spec, 1 };
	sim_config_t c;
	sim_result_t fixed, elastic;
	char err[256];

	sim_config_init(&c);
	c.policy = PLAN_DRF;
	c.fixed_size = true;
	ck_assert_msg(sim_run(&c, &w, NULL, NULL, &fixed, err, sizeof(err))
		      == 0, "%s", err);
	c.fixed_size = false;
	ck_assert_msg(sim_run(&c, &w, NULL, NULL, &elastic, err,
			      sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(fixed.run.ndone, 1);
	ck_assert_uint_eq(fixed.run.jobs[0].restarts, 0);
	/* 2 PS of 2 CPUs + 2 workers of 4 CPUs and 1 GPU, for its run. */
	double run = fixed.run.jobs[0].end - fixed.run.jobs[0].start;
	ck_assert_double_eq_tol(fixed.run.jobs[0].gpu_seconds, 2 * run,
				1e-6 * run);
	ck_assert_double_eq_tol(fixed.jobs[0].cpu_seconds, 12 * run,
				1e-6 * run);
	ck_assert(elastic.run.jobs[0].end < fixed.run.jobs[0].end);
	sim_result_free(&fixed);
	sim_result_free(&elastic);
}
END_TEST

/*
 * Preemption (Preempt=, on by default under Policy=goodput): two jobs of
 * the same fixed size, each filling the one server. Without it the second
 * waits for the first to end; with it the first is preempted once it ran
 * the minimum interval and the second's wait outweighs the margin, the
 * second starts, and the first comes back and completes (every start
 * after a preemption paying a restart, counted as one, its seconds lost).
 */
START_TEST(test_preemption)
{
	sim_job_spec_t spec[2] = {
		{ 0.0, sim_catalog_find("resnet-50"), SPEED_SYNC, 3.0, 1.0, 2,
		  2, NULL },
		{ 100.0, sim_catalog_find("resnet-50"), SPEED_SYNC, 3.0, 1.0, 2,
		  2, NULL } };
	sim_workload_t w = { spec, 2 };
	sim_config_t c;
	sim_result_t off, on;
	char err[256];

	sim_config_init(&c);
	c.policy = PLAN_GOODPUT;
	c.fixed_size = true;
	c.nservers = 1;
	c.server = res_make(12, 98304, 2);
	c.preempt = 0;
	ck_assert_msg(sim_run(&c, &w, NULL, NULL, &off, err, sizeof(err))
		      == 0, "%s", err);
	c.preempt = -1;	/* the policy's default: on */
	ck_assert_msg(sim_run(&c, &w, NULL, NULL, &on, err, sizeof(err))
		      == 0, "%s", err);
	ck_assert_uint_eq(off.run.ndone, 2);
	ck_assert_uint_eq(on.run.ndone, 2);
	ck_assert(off.run.jobs[1].start >= off.run.jobs[0].end);
	ck_assert_msg(on.run.jobs[1].start < on.run.jobs[0].end,
		      "second started %.0f, first ended %.0f",
		      on.run.jobs[1].start, on.run.jobs[0].end);
	ck_assert(on.run.jobs[1].start >= c.min_resize_interval);
	ck_assert(on.run.jobs[0].end > off.run.jobs[0].end);
	ck_assert_uint_eq(off.run.restarts, 0);
	ck_assert_double_eq(off.run.lost, 0);
	ck_assert_uint_ge(on.run.jobs[0].restarts, 1);
	for (int k = 0; k < 2; k++)
		ck_assert(on.run.jobs[k].lost >=
			  on.run.jobs[k].restarts * c.restart_base);
	sim_result_free(&off);
	sim_result_free(&on);
}
END_TEST

/*
 * The one start-cost model of both engines: a first start queues behind
 * the first starts launching, a restart or a resize costs the restart
 * and the job's checkpoint, a re-batch its own seconds, nothing else a
 * cost.
 */
START_TEST(test_start_costs)
{
	sim_start_costs_t c = { .first = 5, .first_queued = 2, .restart = 20,
				.rebatch = 3 };

	ck_assert_double_eq(sim_start_cost(&c, SIM_TAKE_START, 7, 100), 5);
	ck_assert_double_eq(sim_start_cost(&c, SIM_TAKE_START, 7, 100), 7);
	ck_assert_double_eq(sim_start_cost(&c, SIM_TAKE_RESTART, 7, 100), 27);
	ck_assert_double_eq(sim_start_cost(&c, SIM_TAKE_RESIZE, 0, 100), 20);
	ck_assert_double_eq(sim_start_cost(&c, SIM_TAKE_REBATCH, 7, 100), 3);
	ck_assert_double_eq(sim_start_cost(&c, SIM_TAKE_KEEP, 7, 100), 0);
	ck_assert_double_eq(c.busy_until, 104);
}
END_TEST

/* A truth that checkpoints in 7 s (what a restart charges). */
static double seven_seconds(const void *job)
{
	(void)job;
	return 7;
}

static const sim_truth_ops_t checkpoint7 = { .checkpoint = seven_seconds };

/* A take charged as both engines charge it: the model's cost, and the
 * take counted in the job's outcome; its seconds are the engine's to
 * lose. */
START_TEST(test_start_charge)
{
	sim_start_costs_t c = { .first = 5, .first_queued = 2, .restart = 20,
				.rebatch = 3 };
	sim_job_core_t j = { .ops = &checkpoint7, .outcome = { .submit = 10,
				.start = -1, .end = -1 } };

	ck_assert_double_eq(sim_start_charge(&c, &j, SIM_TAKE_START, 30), 5);
	ck_assert_double_eq(j.outcome.start, 30);
	ck_assert_double_eq(sim_start_charge(&c, &j, SIM_TAKE_RESTART, 90),
			    27);
	ck_assert_double_eq(sim_start_charge(&c, &j, SIM_TAKE_REBATCH, 95),
			    3);
	ck_assert_uint_eq(j.outcome.restarts, 1);
	ck_assert_uint_eq(j.outcome.rebatches, 1);
	ck_assert_double_eq(j.outcome.lost, 0);
	ck_assert_double_eq(c.busy_until, 32);
}
END_TEST

/*
 * What a plan's decisions do to simulated jobs, one rule for both
 * engines: a resized and a preempted job give their servers back before
 * any job takes, so a start may use them; each start holds its slots and
 * is charged in the decisions' order (its first start queued), a keep
 * and a wait left as they are; the engine is told of each.
 */
typedef struct apply_seen {
	int preempted, taken;
	const sim_apply_job_t *last;
} apply_seen_t;

static int seen_refused(void *ctx, sim_apply_job_t *j, int rc,
			const char *why)
{
	(void)ctx;
	(void)j;
	(void)why;
	return rc;
}

static int seen_no_room(void *ctx, sim_apply_job_t *j,
			const place_slot_t *slot)
{
	(void)ctx;
	(void)j;
	(void)slot;
	return -ENOSPC;
}

static int seen_preempted(void *ctx, sim_apply_job_t *j)
{
	((apply_seen_t *)ctx)->preempted++;
	((apply_seen_t *)ctx)->last = j;
	return 0;
}

static int seen_taken(void *ctx, sim_apply_job_t *j)
{
	((apply_seen_t *)ctx)->taken++;
	((apply_seen_t *)ctx)->last = j;
	return 0;
}

START_TEST(test_apply_decisions)
{
	const sim_apply_ops_t ops = { seen_refused, seen_no_room,
				      seen_preempted, seen_taken };
	res_vec_t free_[2] = { res_make(0, 0, 0), res_make(0, 0, 0) };
	sim_start_costs_t c = { .first = 5, .first_queued = 2, .restart = 20 };
	sim_apply_env_t env = { free_, 2, &c, 60, 0 };
	place_slot_t on0 = { .server = 0, .workers = 2 };
	place_slot_t on1 = { .server = 1, .workers = 2 };
	/* a: holds server 0, resized to server 1; b: holds server 1,
	 * preempted; d: starts on server 0, which a gives back; e: waits. */
	plan_decision_t d[4] = {
		{ .action = PLAN_RESIZE, .workers = 2, .nslots = 1,
		  .slots = &on1 },
		{ .action = PLAN_PREEMPT },
		{ .action = PLAN_START, .workers = 2, .nslots = 1,
		  .slots = &on0 },
		{ .action = PLAN_WAIT },
	};
	sim_job_core_t job[4] = { { 0 } };
	sim_apply_job_t jobs[4];
	apply_seen_t seen = { 0 };
	size_t at;
	res_vec_t gpu = res_make(1, 1, 1);

	free_[0] = free_[1] = res_make(2, 2, 2);
	ck_assert_int_eq(sim_hold_take(&job[0].hold, free_, 2, &on0, 1,
				       res_make(0, 0, 0), gpu, &at), 0);
	ck_assert_int_eq(sim_hold_take(&job[1].hold, free_, 2, &on1, 1,
				       res_make(0, 0, 0), gpu, &at), 0);
	for (int k = 0; k < 4; k++) {
		job[k].ops = &checkpoint7;
		job[k].outcome = (sim_job_outcome_t){ .submit = 0,
			.start = k < 2 ? 0 : -1, .end = -1 };
		jobs[k] = (sim_apply_job_t){ .d = &d[k], .job = &job[k],
			.worker = gpu };
	}
	ck_assert_int_eq(sim_apply_decisions(jobs, 4, &env, &ops, &seen), 0);
	ck_assert_int_eq(jobs[0].take, SIM_TAKE_RESIZE);
	ck_assert_int_eq(jobs[1].take, SIM_TAKE_PREEMPT);
	ck_assert_int_eq(jobs[2].take, SIM_TAKE_START);
	ck_assert_int_eq(jobs[3].take, SIM_TAKE_WAIT);
	ck_assert_uint_eq(job[0].hold.n, 1);
	ck_assert_uint_eq(job[0].hold.slots[0].server, 1);
	ck_assert_uint_eq(job[1].hold.n, 0);
	ck_assert_uint_eq(job[2].hold.n, 1);
	ck_assert_uint_eq(job[2].hold.slots[0].server, 0);
	ck_assert_uint_eq(job[3].hold.n, 0);
	ck_assert_double_eq(jobs[0].cost, 27);
	ck_assert_double_eq(jobs[2].cost, 5);
	ck_assert_double_eq(job[2].outcome.start, 60);
	ck_assert_uint_eq(job[0].outcome.restarts, 1);
	ck_assert_int_eq(seen.preempted, 1);
	ck_assert_int_eq(seen.taken, 2);
	ck_assert_ptr_eq(seen.last, &jobs[2]);
	ck_assert(res_fits(res_make(0, 0, 0), free_[0]) &&
		  !res_fits(res_make(1, 0, 0), free_[0]));
	/* A start no record takes on a job that started: from its
	 * checkpoint; a start beyond a server's room, the engine's error. */
	job[1].hold.n = 0;
	ck_assert_int_eq(sim_decision_kind(&d[2], true), SIM_TAKE_RESTART);
	d[1] = (plan_decision_t){ .action = PLAN_START, .workers = 2,
				  .nslots = 1, .slots = &on0 };
	ck_assert_int_eq(sim_apply_decisions(&jobs[1], 1, &env, &ops, &seen),
			 -ENOSPC);
	ck_assert_int_eq(jobs[1].take, SIM_TAKE_RESTART);
	ck_assert_uint_eq(job[1].hold.n, 0);
	for (int k = 0; k < 4; k++)
		sim_hold_free(&job[k].hold);
}
END_TEST

/*
 * What a decision counts in a job's outcome, one rule for both engines:
 * a first start is no restart, every start from a checkpoint is one, a
 * batch change in place a re-batch; every second of a cost is lost.
 */
START_TEST(test_outcome_take)
{
	sim_job_outcome_t j = { .submit = 10, .start = -1, .end = -1 };
	const sim_take_t none[] = { SIM_TAKE_WAIT, SIM_TAKE_KEEP,
				    SIM_TAKE_PREEMPT };

	sim_job_outcome_take(&j, SIM_TAKE_START, 30);
	sim_job_outcome_lose(&j, 5);
	ck_assert_double_eq(j.start, 30);
	ck_assert_uint_eq(j.restarts, 0);
	sim_job_outcome_take(&j, SIM_TAKE_RESIZE, 100);
	sim_job_outcome_take(&j, SIM_TAKE_RESTART, 200);
	sim_job_outcome_lose(&j, 20);
	sim_job_outcome_lose(&j, 27);
	sim_job_outcome_take(&j, SIM_TAKE_REBATCH, 300);
	sim_job_outcome_lose(&j, 3);
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		sim_job_outcome_take(&j, none[i], 400);
	ck_assert_double_eq(j.start, 30);
	ck_assert_uint_eq(j.restarts, 2);
	ck_assert_uint_eq(j.rebatches, 1);
	ck_assert_double_eq(j.lost, 55);
}
END_TEST

/*
 * The one result builder of both engines: the outcomes taken from an
 * engine's jobs (each beginning with its sim_job_core_t), the figures
 * over them, the GPUs' share from the engine's integral or, without one,
 * the jobs' own GPU-seconds.
 */
START_TEST(test_outcome_build)
{
	struct rec {
		sim_job_core_t core;
		double more;
	} jobs[3] = {
		{ { .outcome = { .submit = 0, .start = 10, .end = 110,
				 .restarts = 2, .lost = 40,
				 .gpu_seconds = 400 } }, 9 },
		{ { .outcome = { .submit = 50, .start = 60, .end = -1,
				 .restarts = 1, .lost = 7,
				 .gpu_seconds = 100 } }, 9 },
		{ { .outcome = { .submit = 20, .start = 20, .end = 320,
				 .rebatches = 1, .lost = 5,
				 .gpu_seconds = 500 } }, 9 } };
	sim_outcome_t o;

	ck_assert_int_eq(sim_outcome_build(&o, jobs, 3, sizeof(jobs[0]), 4,
					   -1, 500), 0);
	ck_assert_uint_eq(o.njobs, 3);
	ck_assert_uint_eq(o.ndone, 2);
	ck_assert_double_eq(o.jobs[2].start, 20);
	ck_assert_double_eq(o.avg_jct, 205);
	ck_assert_double_eq(o.makespan, 320);
	ck_assert_uint_eq(o.restarts, 3);
	ck_assert_uint_eq(o.rebatches, 1);
	ck_assert_double_eq(o.lost, 45);
	ck_assert_double_eq(o.run_seconds, 400);
	ck_assert_double_eq(o.gpu_seconds, 1000);
	ck_assert_double_eq(o.gpu_util, 1000.0 / (4 * 320));
	sim_outcome_free(&o);
	ck_assert_int_eq(sim_outcome_build(&o, jobs, 3, sizeof(jobs[0]), 4,
					   640, 500), 0);
	ck_assert_double_eq(o.gpu_util, 0.5);
	sim_outcome_free(&o);
}
END_TEST

/*
 * A decision taken by a record (both engines' rule): a first START is a
 * start, a START after a run a restart; a PREEMPT of a run that declared
 * no checkpoint is refused (the record kept), else the job is requeued;
 * a run a start began (sim_decision_started) declared one.
 */
START_TEST(test_decision_take)
{
	optimus_hints_t h;
	plan_decision_t d = { .action = PLAN_START, .ps = 1, .workers = 2 };
	sim_take_t take;
	job_model_t *m;

	hints_init(&h, HINTS_POLICY_OPTIMUS);
	h.min_ps = h.min_workers = 1;
	h.max_ps = h.max_workers = 4;
	m = job_model_new(1, 1000, &h, 100);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(sim_decision_take(m, &d, 100, &take, NULL, 0), 0);
	ck_assert_int_eq(take, SIM_TAKE_START);
	job_model_started(m, 100, 1, 2, 1);
	d = (plan_decision_t){ .action = PLAN_PREEMPT };
	ck_assert_int_eq(sim_decision_take(m, &d, 200, &take, NULL, 0),
			 -EPERM);
	ck_assert_int_eq(take, SIM_TAKE_KEEP);
	ck_assert_int_eq(m->phase, JM_RUNNING);
	(void)job_feed_checkpoint(m, 200, m->step, NULL);
	ck_assert_int_eq(sim_decision_take(m, &d, 300, &take, NULL, 0), 0);
	ck_assert_int_eq(take, SIM_TAKE_PREEMPT);
	ck_assert_int_ne(m->phase, JM_RUNNING);
	d = (plan_decision_t){ .action = PLAN_START, .ps = 1, .workers = 2 };
	ck_assert_int_eq(sim_decision_take(m, &d, 400, &take, NULL, 0), 0);
	ck_assert_int_eq(take, SIM_TAKE_RESTART);
	/* The run a start began says at once that it can checkpoint: it
	 * may be preempted again. */
	sim_decision_started(m, 420, 1, 2, 1);
	ck_assert_int_eq(m->phase, JM_RUNNING);
	d = (plan_decision_t){ .action = PLAN_PREEMPT };
	ck_assert_int_eq(sim_decision_take(m, &d, 500, &take, NULL, 0), 0);
	ck_assert_int_eq(take, SIM_TAKE_PREEMPT);
	d = (plan_decision_t){ .action = PLAN_WAIT };
	ck_assert_int_eq(sim_decision_take(m, &d, 400, &take, NULL, 0), 0);
	ck_assert_int_eq(take, SIM_TAKE_WAIT);
	job_model_free(m);
}
END_TEST

/*
 * Per-interval CPU shares over a one-interval window: the top 20% (one of
 * five jobs) is the job whose loss fell most by the window, the bottom 50%
 * the two that fell least, each share its CPU over all five jobs' CPU.
 * Sizes differ, so the shares depend on the ranking.
 */
START_TEST(test_epoch_shares)
{
	sim_job_spec_t spec[5] = {
		{ 0.0, sim_catalog_find("resnet-50"), SPEED_SYNC, 0.3, 1.0, 1, 1, NULL },
		{ 0.0, sim_catalog_find("cnn-rand"), SPEED_ASYNC, 0.3, 1.0, 1, 2, NULL },
		{ 0.0, sim_catalog_find("vgg-16"), SPEED_SYNC, 0.3, 1.0, 2, 2, NULL },
		{ 0.0, sim_catalog_find("dssm"), SPEED_ASYNC, 0.3, 1.0, 2, 4, NULL },
		{ 0.0, sim_catalog_find("seq2seq"), SPEED_SYNC, 0.3, 1.0, 4, 4, NULL },
	};
	sim_workload_t w = { spec, 5 };
	sim_config_t c;
	sim_result_t r;
	char err[256];
	size_t order[5] = { 0, 1, 2, 3, 4 };
	double all = 0.0, top, bottom;

	sim_config_init(&c);
	c.policy = PLAN_DRF;
	c.fixed_size = true;
	c.window = c.interval;
	ck_assert_msg(sim_run(&c, &w, NULL, NULL, &r, err, sizeof(err)) == 0,
		      "%s", err);
	/* Insertion sort by loss drop (larger first, ties by index). */
	for (size_t a = 1; a < 5; a++)
		for (size_t b = a; b > 0; b--) {
			const sim_job_result_t *x = &r.jobs[order[b - 1]];
			const sim_job_result_t *y = &r.jobs[order[b]];
			if (x->loss0 - x->window_loss >=
			    y->loss0 - y->window_loss)
				break;
			size_t t = order[b];
			order[b] = order[b - 1];
			order[b - 1] = t;
		}
	for (size_t k = 0; k < 5; k++)
		all += r.jobs[k].window_cpu;
	top = r.jobs[order[0]].window_cpu / all;
	bottom = (r.jobs[order[3]].window_cpu + r.jobs[order[4]].window_cpu) /
		 all;
	ck_assert(all > 0.0);
	ck_assert_double_eq_tol(r.epoch_top, top, 1e-9);
	ck_assert_double_eq_tol(r.epoch_bottom, bottom, 1e-9);
	ck_assert(top != bottom);
	sim_result_free(&r);
	/* Without a window there is nothing to share. */
	c.window = 0.0;
	ck_assert_msg(sim_run(&c, &w, NULL, NULL, &r, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert(isnan(r.epoch_top) && isnan(r.epoch_bottom));
	sim_result_free(&r);
}
END_TEST

START_TEST(test_determinism)
{
	char *a = run_json(7), *b = run_json(7), *c = run_json(8);

	ck_assert_str_eq(a, b);
	ck_assert_str_ne(a, c);
	free(a);
	free(b);
	free(c);
}
END_TEST

static char *write_tmp(const char *text)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/test_sim_curves_%d.csv",
		 (int)getpid());
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* Per-job normalisation (0.2 at iteration 0, 0 at the run's lowest loss),
 * interpolation, c*S, level shares; a job on a recorded curve ends with
 * its run at loss 0. */
START_TEST(test_curves)
{
	const char *path = write_tmp(
		"curve,family,data_size,step_size,iteration,loss,cpu_s\n"
		"a,svm,100,0.1,0,2.0,0\n"
		"a,svm,100,0.1,1,1.5,0.2\n"
		"a,svm,100,0.1,2,1.0,0.4\n"
		"b,kmeans,50,5,0,4.0,0\n"
		"b,kmeans,50,5,1,3.0,1.0\n");
	sim_curveset_t set;
	char err[256];

	ck_assert_int_eq(sim_curves_read(path, &set, err, sizeof(err)), 0);
	ck_assert_uint_eq(set.n, 2);
	ck_assert_double_eq_tol(set.c[0].norm[0], 0.2, 1e-12);
	ck_assert_double_eq_tol(set.c[0].norm[1], 0.1, 1e-12);
	ck_assert_double_eq_tol(set.c[0].norm[2], 0.0, 1e-12);
	ck_assert_double_eq_tol(sim_curve_loss(&set.c[0], 0.5), 0.15, 1e-12);
	ck_assert_double_eq_tol(sim_curve_loss(&set.c[0], 9), 0.0, 1e-12);
	ck_assert_double_eq_tol(set.c[0].cpu_mean, 0.3, 1e-12);
	/* a reaches 50% at iteration 1 of 2, b at 1 of 1. */
	ck_assert_double_eq_tol(sim_curves_level_share(&set, 0.5), 0.75,
				1e-12);
	ck_assert_double_eq_tol(sim_curves_mean_cpu(&set), 0.8, 1e-12);

	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	sim_workload_t w;
	ck_assert_int_eq(sim_curves_workload(&set, 3, 15.0, 10.0, rng, &w,
					     err, sizeof(err)), 0);
	ck_assert_uint_eq(w.n, 3);
	sim_config_t c;
	sim_result_t r;
	sim_config_init(&c);
	c.policy = PLAN_QUALITY;
	c.nservers = 2;
	c.server = res_make(24, 8 * 8192 + 8 * 1024, 0);
	c.interval = 120.0;
	ck_assert_msg(sim_run(&c, &w, NULL, NULL, &r, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_uint_eq(r.run.ndone, 3);
	for (size_t i = 0; i < r.run.njobs; i++) {
		ck_assert_double_eq_tol(r.jobs[i].loss0, 0.2, 1e-12);
		ck_assert_double_eq_tol(r.jobs[i].loss_end, 0.0, 1e-12);
	}
	sim_result_free(&r);
	sim_workload_free(&w);
	gsl_rng_free(rng);
	sim_curves_free(&set);
	unlink(path);
}
END_TEST

/* A run is normalised against the loss its family reaches on
 * the same data (the lowest of the runs from the same untrained model),
 * not its own best: a run that stalls stays above 0. A run from another
 * start (k-means' k, other data) is its own group. */
START_TEST(test_curves_reachable_loss)
{
	const char *path = write_tmp(
		"curve,family,data_size,step_size,iteration,loss,cpu_s\n"
		"fast,svm,100,1,0,2.0,0\n"
		"fast,svm,100,1,1,1.0,0.2\n"
		"slow,svm,100,0.1,0,2.0,0\n"
		"slow,svm,100,0.1,1,1.5,0.2\n"
		"other,svm,100,0.3,0,3.0,0\n"
		"other,svm,100,0.3,1,2.5,0.2\n");
	sim_curveset_t set;
	char err[256];

	ck_assert_int_eq(sim_curves_read(path, &set, err, sizeof(err)), 0);
	ck_assert_uint_eq(set.n, 3);
	ck_assert_double_eq_tol(set.c[0].norm[1], 0.0, 1e-12);
	/* slow: 1.5 of 2.0 -> 1.0 reachable is half way: 0.1, not 0 */
	ck_assert_double_eq_tol(set.c[1].norm[0], 0.2, 1e-12);
	ck_assert_double_eq_tol(set.c[1].norm[1], 0.1, 1e-12);
	ck_assert_double_eq_tol(set.c[1].reach, 1.0, 1e-12);
	/* another start: its own best */
	ck_assert_double_eq_tol(set.c[2].norm[1], 0.0, 1e-12);
	sim_curves_free(&set);
	unlink(path);
}
END_TEST

/* Bad files: an error naming the file and line, nothing kept. */
START_TEST(test_curves_errors)
{
	static const char *const bad[] = {
		"a,svm,100,0.1,0,2.0\n",		/* 6 fields */
		"a,svm,100,0.1,0,x,0\n",		/* not a number */
		"a,svm,100,0.1,0,-1,0\n",		/* negative */
		"a,svm,100,0.1,0,2,0,9\n",		/* 8 fields */
		"# nothing\n",				/* no curves */
	};
	sim_curveset_t set;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *path = write_tmp(bad[i]);
		ck_assert_int_eq(sim_curves_read(path, &set, err, sizeof(err)),
				 -EINVAL);
		ck_assert_msg(strstr(err, path) && strstr(err, ":1: "),
			      "case %zu: %s", i, err);
		ck_assert_ptr_null(set.c);
		unlink(path);
	}
	ck_assert_int_eq(sim_curves_read("/nonexistent/c.csv", &set, err,
					 sizeof(err)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/c.csv"));
	/* A family without an MLlib catalogue entry cannot make a job. */
	const char *path = write_tmp("a,dl-bert,1,1,0,1,0\na,dl-bert,1,1,1,0.5,1\n");
	ck_assert_int_eq(sim_curves_read(path, &set, err, sizeof(err)), 0);
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	sim_workload_t w;
	ck_assert_int_eq(sim_curves_workload(&set, 2, 15.0, 1.0, rng, &w, err,
					     sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "dl-bert"));
	gsl_rng_free(rng);
	sim_curves_free(&set);
	unlink(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sim");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_events_order);
	tcase_add_test(tc, test_events_many);
	tcase_add_test(tc, test_engine_loop);
	tcase_add_test(tc, test_trace_ok);
	tcase_add_test(tc, test_trace_errors);
	tcase_add_test(tc, test_sample_trace);
	tcase_add_test(tc, test_truth);
	tcase_add_test(tc, test_catalog_truth);
	tcase_add_test(tc, test_truth_size_monotone);
	tcase_add_test(tc, test_epoch_shares);
	tcase_add_test(tc, test_event_plans);
	tcase_add_test(tc, test_fixed_size);
	tcase_add_test(tc, test_preemption);
	tcase_add_test(tc, test_start_costs);
	tcase_add_test(tc, test_start_charge);
	tcase_add_test(tc, test_apply_decisions);
	tcase_add_test(tc, test_outcome_take);
	tcase_add_test(tc, test_outcome_build);
	tcase_add_test(tc, test_decision_take);
	tcase_add_test(tc, test_determinism);
	tcase_add_test(tc, test_curves);
	tcase_add_test(tc, test_curves_errors);
	tcase_add_test(tc, test_curves_reachable_loss);
	suite_add_tcase(s, tc);
	return check_run(s);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* test_plan.c - one scheduling interval: starts, keeps, resizes, waits,
 * placement and capacity, for every policy. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "plan/plan_input.h"
#include "check_run.h"

#define NOW 100000

/* A small cluster: up to 16 jobs, 16 servers. */
typedef struct fixture {
	job_model_t *m[16];
	plan_job_t j[16];
	place_slot_t slots[16][16];
	size_t n;
	res_vec_t free[16];
	size_t ns;
	plan_params_t prm;
	plan_t plan;
} fixture_t;

static void fx_init(fixture_t *f, size_t ns, double cpu, double mem)
{
	memset(f, 0, sizeof(*f));
	f->ns = ns;
	for (size_t s = 0; s < ns; s++)
		f->free[s] = res_make(cpu, mem, 0);
	plan_params_init(&f->prm);
	f->prm.now = NOW;
}

static size_t fx_job(fixture_t *f, const char *hints_text, time_t submit)
{
	optimus_hints_t h;
	char err[256];
	size_t i = f->n++;

	ck_assert_msg(!hints_parse(hints_text, &h, err, sizeof(err)), "%s", err);
	f->m[i] = job_model_new(100 + i, 0, &h, submit);
	ck_assert_ptr_nonnull(f->m[i]);
	f->j[i].model = f->m[i];
	return i;
}

/*
 * Make job i run with slots {server, ps, workers}...; the servers' free
 * room no longer counts what it uses (the contract of plan_run).
 */
static void fx_run(fixture_t *f, size_t i, const place_slot_t *sl, size_t k,
		   time_t started)
{
	int ps = 0, w = 0;
	res_vec_t psd = res_make(f->m[i]->hints.ps_res.cpus,
				 f->m[i]->hints.ps_res.mem_mb, 0);
	res_vec_t wd = res_make(f->m[i]->hints.worker_res.cpus,
				f->m[i]->hints.worker_res.mem_mb, 0);

	for (size_t s = 0; s < k; s++) {
		f->slots[i][s] = sl[s];
		ps += sl[s].ps;
		w += sl[s].workers;
		f->free[sl[s].server] = res_sub(f->free[sl[s].server],
			res_combo(psd, sl[s].ps, wd, sl[s].workers));
	}
	job_model_started(f->m[i], started, ps, w, (int)k);
	/* These jobs can checkpoint (else never resized). */
	ck_assert_int_eq(job_model_checkpoint(f->m[i], started, 0), 0);
	f->j[i].running = true;
	f->j[i].slots = f->slots[i];
	f->j[i].nslots = k;
}

static void fx_free(fixture_t *f)
{
	plan_free(&f->plan);
	for (size_t i = 0; i < f->n; i++)
		job_model_free(f->m[i]);
}

static int fx_plan(fixture_t *f)
{
	plan_free(&f->plan);
	return plan_run(f->j, f->n, f->free, f->ns, &f->prm, &f->plan);
}

static const plan_decision_t *dec(const fixture_t *f, size_t i)
{
	return &f->plan.decisions[i];
}

/* Every server's load after the plan fits its capacity, the decisions'
 * slots add up to their sizes, and KEEP keeps its servers. */
static void check_plan(const fixture_t *f)
{
	res_vec_t load[16], cap[16];

	ck_assert_uint_eq(f->plan.ndecisions, f->n);
	for (size_t s = 0; s < f->ns; s++) {
		load[s] = res_make(0, 0, 0);
		cap[s] = f->free[s];
	}
	for (size_t i = 0; i < f->n; i++) {
		const optimus_hints_t *h = &f->m[i]->hints;
		res_vec_t psd = res_make(h->ps_res.cpus, h->ps_res.mem_mb, 0);
		res_vec_t wd = res_make(h->worker_res.cpus, h->worker_res.mem_mb, 0);
		const plan_decision_t *d = dec(f, i);
		int ps = 0, w = 0;

		for (size_t k = 0; k < f->j[i].nslots; k++)
			cap[f->slots[i][k].server] = res_add(
				cap[f->slots[i][k].server],
				res_combo(psd, f->slots[i][k].ps, wd,
					  f->slots[i][k].workers));
		ck_assert_uint_eq(d->job_id, f->m[i]->job_id);
		if (d->action == PLAN_WAIT) {
			ck_assert_uint_eq(d->nslots, 0);
			ck_assert_msg(!f->j[i].running, "running job %zu waits", i);
			ck_assert_msg(strncmp(d->reason, "optimus: ", 9) == 0,
				      "job %zu: reason '%s'", i, d->reason);
			continue;
		}
		if (d->action == PLAN_KEEP) {
			ck_assert_uint_eq(d->nslots, f->j[i].nslots);
			ck_assert(!memcmp(d->slots, f->slots[i],
					  d->nslots * sizeof(place_slot_t)));
		}
		for (size_t k = 0; k < d->nslots; k++) {
			ck_assert_uint_lt(d->slots[k].server, f->ns);
			ps += d->slots[k].ps;
			w += d->slots[k].workers;
			load[d->slots[k].server] = res_add(
				load[d->slots[k].server],
				res_combo(psd, d->slots[k].ps, wd,
					  d->slots[k].workers));
		}
		ck_assert_int_eq(ps, d->ps);
		ck_assert_int_eq(w, d->workers);
		ck_assert(ps >= (int)h->min_ps && ps <= (int)h->max_ps);
		ck_assert(w >= (int)h->min_workers && w <= (int)h->max_workers);
	}
	for (size_t s = 0; s < f->ns; s++)
		ck_assert_msg(res_fits(load[s], cap[s]),
			      "server %zu over capacity: cpu %g of %g", s,
			      load[s].v[RES_CPU], cap[s].v[RES_CPU]);
}

START_TEST(test_policy_names)
{
	plan_policy_t p;
	const char *names[] = { "optimus", "quality", "drf", "tetris", "fifo",
				"goodput" };

	for (int i = 0; i < 6; i++) {
		ck_assert_int_eq(plan_policy_parse(names[i], &p), 0);
		ck_assert_int_eq(p, i);
		ck_assert_str_eq(plan_policy_name(p), names[i]);
	}
	ck_assert_int_eq(plan_policy_parse("srtf", &p), -EINVAL);
	ck_assert_int_eq(plan_policy_parse(NULL, &p), -EINVAL);
	ck_assert_str_eq(plan_action_name(PLAN_RESIZE), "resize");
	ck_assert_str_eq(plan_action_name(PLAN_PREEMPT), "preempt");
	ck_assert_str_eq(plan_action_name(PLAN_PREEMPT + 1), "unknown");
	{
		plan_params_t prm;

		plan_params_init(&prm);
		ck_assert(!prm.preempt);	/* off unless configured */
	}
}
END_TEST

/* The table of policies (plan_policy.c): a name for every value and none
 * beyond, names matched exactly, preemption on by default under goodput
 * alone, and a value without a row refused by plan_run. */
START_TEST(test_policy_table)
{
	plan_policy_t p;
	plan_params_t prm;
	plan_t out;

	ck_assert_str_eq(plan_policy_name(PLAN_GOODPUT + 1), "unknown");
	ck_assert_str_eq(plan_policy_name((plan_policy_t)-1), "unknown");
	ck_assert_int_eq(plan_policy_parse("Optimus", &p), -EINVAL);
	ck_assert_int_eq(plan_policy_parse("", &p), -EINVAL);
	for (p = PLAN_OPTIMUS; p <= PLAN_GOODPUT; p++)
		ck_assert_msg(plan_preempt_default(p) == (p == PLAN_GOODPUT),
			      "Preempt= default of %s", plan_policy_name(p));
	ck_assert(!plan_preempt_default(PLAN_GOODPUT + 1));
	for (p = PLAN_OPTIMUS; p <= PLAN_GOODPUT; p++)
		ck_assert_msg(plan_policy_fixed_size(p) ==
			      (p == PLAN_DRF || p == PLAN_TETRIS ||
			       p == PLAN_FIFO),
			      "fixed size under %s", plan_policy_name(p));
	ck_assert(!plan_policy_fixed_size(PLAN_GOODPUT + 1));
	plan_params_init(&prm);
	prm.policy = PLAN_GOODPUT + 1;
	ck_assert_int_eq(plan_run(NULL, 0, NULL, 0, &prm, &out), -EINVAL);
	ck_assert_msg(strstr(out.err, "unknown policy"), "%s", out.err);
	plan_free(&out);
}
END_TEST

/* Two pending jobs on an empty cluster both start, placed per Theorem 1:
 * the fewest servers, PS and workers spread evenly over them. */
START_TEST(test_start_even)
{
	fixture_t f;

	fx_init(&f, 4, 8, 32768);
	fx_job(&f, "optimus,max_ps=8,max_workers=16", 10);
	fx_job(&f, "optimus,max_ps=8,max_workers=16,steps=50000", 20);
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_uint_eq(f.plan.nstart, 2);
	for (size_t i = 0; i < 2; i++) {
		const plan_decision_t *d = dec(&f, i);
		int minp = 1 << 30, maxp = 0, minw = 1 << 30, maxw = 0;

		ck_assert_int_eq(d->action, PLAN_START);
		ck_assert(d->ps + d->workers > 2);
		ck_assert(isfinite(d->remaining_planned));
		for (size_t k = 0; k < d->nslots; k++) {
			minp = d->slots[k].ps < minp ? d->slots[k].ps : minp;
			maxp = d->slots[k].ps > maxp ? d->slots[k].ps : maxp;
			minw = d->slots[k].workers < minw ? d->slots[k].workers : minw;
			maxw = d->slots[k].workers > maxw ? d->slots[k].workers : maxw;
		}
		ck_assert_int_le(maxp - minp, 1);
		ck_assert_int_le(maxw - minw, 1);
		/* Fewest servers: one fewer would not hold the tasks. */
		ck_assert_int_gt((d->ps + d->workers), 8 * (d->nslots - 1));
	}
	/* The cluster is used (Optimus grows jobs while gains are > 0). */
	ck_assert_int_ge(dec(&f, 0)->ps + dec(&f, 0)->workers +
			 dec(&f, 1)->ps + dec(&f, 1)->workers, 24);
	ck_assert(f.plan.alloc_seconds >= 0 && f.plan.place_seconds >= 0);
	fx_free(&f);
}
END_TEST

/* A job whose minimum never fits waits, saying what it needs. */
START_TEST(test_wait_reason)
{
	fixture_t f;

	fx_init(&f, 2, 8, 32768);
	fx_job(&f, "optimus,ps_cpus=2,worker_cpus=100", 10);
	fx_job(&f, "optimus", 20);
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_WAIT);
	ck_assert_msg(strstr(dec(&f, 0)->reason, "no room") &&
		      strstr(dec(&f, 0)->reason, "cpu=102"), "%s",
		      dec(&f, 0)->reason);
	ck_assert_int_eq(dec(&f, 1)->action, PLAN_START);
	ck_assert_uint_eq(f.plan.nwait, 1);
	/* A finished job still listed takes no room. */
	job_model_done(f.m[1], NOW - 1);
	ck_assert_int_eq(fx_plan(&f), 0);
	ck_assert_int_eq(dec(&f, 1)->action, PLAN_WAIT);
	ck_assert_str_eq(dec(&f, 1)->reason, "optimus: job done");
	fx_free(&f);
}
END_TEST

/* A full cluster: the newcomer waits for room left by running jobs. */
START_TEST(test_wait_full)
{
	fixture_t f;
	place_slot_t s[] = { { 0, 4, 4 }, { 1, 4, 4 } };

	fx_init(&f, 2, 8, 32768);
	fx_job(&f, "optimus,ps=4,workers=4", 10);
	fx_run(&f, 0, s, 1, 50);
	fx_job(&f, "optimus,ps=4,workers=4", 20);
	fx_run(&f, 1, s + 1, 1, 60);
	fx_job(&f, "optimus", 30);
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_int_eq(dec(&f, 2)->action, PLAN_WAIT);
	ck_assert_msg(strstr(dec(&f, 2)->reason, "left by running jobs"),
		      "%s", dec(&f, 2)->reason);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_KEEP);
	ck_assert_int_eq(dec(&f, 1)->action, PLAN_KEEP);
	fx_free(&f);
}
END_TEST

/* Minimums go in order: the third job finds no room after the first two;
 * a job no single server can hold waits although the aggregate fits. */
START_TEST(test_wait_order_and_fragments)
{
	fixture_t f;

	fx_init(&f, 1, 4, 32768);
	fx_job(&f, "optimus", 10);
	fx_job(&f, "optimus", 20);
	fx_job(&f, "optimus", 5);
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_int_eq(dec(&f, 2)->action, PLAN_START);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_START);
	ck_assert_int_eq(dec(&f, 1)->action, PLAN_WAIT);
	ck_assert_msg(strstr(dec(&f, 1)->reason, "after older jobs"), "%s",
		      dec(&f, 1)->reason);
	fx_free(&f);

	fx_init(&f, 4, 4, 32768);
	fx_job(&f, "optimus,worker_cpus=6", 10);
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_WAIT);
	ck_assert_msg(strstr(dec(&f, 0)->reason, "no set of servers"), "%s",
		      dec(&f, 0)->reason);
	fx_free(&f);
}
END_TEST

/* A growth that no server set can hold: the job keeps its servers. */
START_TEST(test_resize_unplaceable)
{
	fixture_t f;
	place_slot_t s = { 0, 1, 1 };

	fx_init(&f, 3, 4, 32768);
	f.free[0] = res_make(8, 32768, 0);
	fx_job(&f, "optimus,ps=1,max_workers=2,worker_cpus=5", 10);
	fx_run(&f, 0, &s, 1, 50);
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_KEEP);
	ck_assert_msg(strstr(dec(&f, 0)->reason, "cannot be placed"), "%s",
		      dec(&f, 0)->reason);
	/* With room on a second big server, it grows. */
	f.free[1] = res_make(8, 32768, 0);
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_RESIZE);
	ck_assert_int_eq(dec(&f, 0)->workers, 2);
	fx_free(&f);
}
END_TEST

/* One running job at 1 PS + 1 worker on a free cluster. */
static void setup_grow(fixture_t *f)
{
	place_slot_t s = { 2, 1, 1 };

	fx_init(f, 4, 8, 32768);
	fx_job(f, "optimus,max_ps=8,max_workers=16", 10);
	fx_run(f, 0, &s, 1, 50);
}

/* A running job grows only when the gain passes the threshold and its
 * last resize is older than the minimum interval. */
START_TEST(test_resize_rules)
{
	fixture_t f;

	setup_grow(&f);
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_RESIZE);
	ck_assert(dec(&f, 0)->gain > f.prm.resize_threshold);
	ck_assert(dec(&f, 0)->ps + dec(&f, 0)->workers > 2);
	ck_assert(dec(&f, 0)->remaining_planned < dec(&f, 0)->remaining_now);

	/* Resized a minute ago: keeps, whatever the gain. */
	f.m[0]->last_resize = NOW - 60;
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_KEEP);
	ck_assert_msg(strstr(dec(&f, 0)->reason, "resized 60s ago"), "%s",
		      dec(&f, 0)->reason);
	f.m[0]->last_resize = NOW - (time_t)f.prm.min_resize_interval;
	ck_assert_int_eq(fx_plan(&f), 0);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_RESIZE);

	/* Above the threshold only: the same gain with a higher bar. */
	f.prm.resize_threshold = dec(&f, 0)->gain + 0.01;
	f.prm.resize_threshold_large = f.prm.resize_threshold;
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_KEEP);
	ck_assert_msg(strstr(dec(&f, 0)->reason, "below"), "%s",
		      dec(&f, 0)->reason);
	ck_assert_uint_eq(f.plan.nkeep, 1);
	fx_free(&f);
}
END_TEST

/* The restart cost counts against the gain. */
START_TEST(test_restart_cost)
{
	fixture_t f;

	setup_grow(&f);
	f.prm.restart_cost = 1e9;
	ck_assert_int_eq(fx_plan(&f), 0);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_KEEP);
	ck_assert(dec(&f, 0)->gain < 0);
	fx_free(&f);
}
END_TEST

/* Large jobs (>= large_tasks tasks) use the smaller threshold. */
START_TEST(test_large_threshold)
{
	fixture_t f;
	double gain;

	setup_grow(&f);
	ck_assert_int_eq(fx_plan(&f), 0);
	gain = dec(&f, 0)->gain;
	f.prm.resize_threshold = gain + 0.01;
	f.prm.resize_threshold_large = gain - 0.01;
	f.prm.large_tasks = 1000;
	ck_assert_int_eq(fx_plan(&f), 0);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_KEEP);
	f.prm.large_tasks = 3;	/* the target is large, the current not */
	ck_assert_int_eq(fx_plan(&f), 0);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_RESIZE);
	fx_free(&f);
}
END_TEST

/* Job 0 holds both 8-CPU servers (2 PS + 6 workers on each); job 1, a
 * newcomer, needs room. */
static void fx_full_and_newcomer(fixture_t *f, const char *first_hints)
{
	place_slot_t s[] = { { 0, 2, 6 }, { 1, 2, 6 } };

	fx_init(f, 2, 8, 32768);
	fx_job(f, first_hints, 10);
	fx_run(f, 0, s, 2, 50);
	fx_job(f, "optimus,max_ps=4,max_workers=12", 20);
}

/* Plan; job 0 and job 1 get these actions. */
static void expect_actions(fixture_t *f, plan_action_t a0, plan_action_t a1)
{
	ck_assert_int_eq(fx_plan(f), 0);
	check_plan(f);
	ck_assert_int_eq(dec(f, 0)->action, a0);
	ck_assert_int_eq(dec(f, 1)->action, a1);
}

/* A job holding the whole cluster shrinks (after the minimum interval) so
 * that a newcomer starts; without shrinking, the newcomer waits. */
START_TEST(test_shrink_for_pending)
{
	fixture_t f;

	fx_full_and_newcomer(&f, "optimus,max_ps=4,max_workers=12");
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_RESIZE);
	ck_assert(dec(&f, 0)->ps + dec(&f, 0)->workers < 16);
	/* its owner is told for which job, and by which rule */
	ck_assert_msg(strstr(dec(&f, 0)->reason, "shrinks to ") &&
		      strstr(dec(&f, 0)->reason, " for JobId=101 (shrink for "
			     "pending jobs"), "%s", dec(&f, 0)->reason);
	ck_assert_uint_eq(dec(&f, 0)->for_job, 101);
	ck_assert_int_eq(dec(&f, 1)->action, PLAN_START);
	ck_assert_uint_eq(dec(&f, 1)->for_job, 0);

	f.m[0]->last_resize = NOW - 10;
	expect_actions(&f, PLAN_KEEP, PLAN_WAIT);

	f.m[0]->last_resize = 0;
	f.prm.shrink_for_pending = false;
	expect_actions(&f, PLAN_KEEP, PLAN_WAIT);
	fx_free(&f);
}
END_TEST

/* A job about to end is not shrunk for a newcomer: ending frees its room
 * sooner than a checkpoint-requeue would. */
START_TEST(test_no_shrink_near_the_end)
{
	fixture_t f;

	fx_full_and_newcomer(&f, "optimus,max_ps=4,max_workers=12,steps=2000");
	f.prm.restart_cost = 60;
	/* 1990 of 2000 steps at 5 steps/s: 2 s left, less than a restart */
	ck_assert_int_eq(job_model_report(f.m[0], 90, 1990, 0.5, 5.0, 0), 0);
	expect_actions(&f, PLAN_KEEP, PLAN_WAIT);
	ck_assert_msg(strstr(dec(&f, 0)->reason, "before a restart"), "%s",
		      dec(&f, 0)->reason);

	/* far from the end, the same job shrinks */
	f.m[0]->hints.steps = 200000;
	expect_actions(&f, PLAN_RESIZE, PLAN_START);
	fx_free(&f);
}
END_TEST

/* A start applied but not begun keeps its slots: a newcomer that would
 * shrink it if it were running waits instead. */
START_TEST(test_starting_job_keeps_its_slots)
{
	fixture_t f;

	fx_full_and_newcomer(&f, "optimus,max_ps=4,max_workers=12");
	f.j[0].starting = true;
	expect_actions(&f, PLAN_KEEP, PLAN_WAIT);
	ck_assert_int_eq(dec(&f, 0)->ps + dec(&f, 0)->workers, 16);
	ck_assert_msg(strstr(dec(&f, 0)->reason, "start in progress"), "%s",
		      dec(&f, 0)->reason);
	fx_free(&f);
}
END_TEST

/* A newcomer that fits in the free room starts without any shrink. */
START_TEST(test_no_shrink_when_newcomer_fits)
{
	fixture_t f;
	place_slot_t s[] = { { 0, 2, 6 } };

	fx_init(&f, 2, 8, 32768);
	/* Nearly done: pass 1 gives it the minimum, the newcomer the rest. */
	fx_job(&f, "optimus,max_ps=4,max_workers=12,steps=200", 10);
	fx_run(&f, 0, s, 1, 50);	/* 8 of the 16 CPUs */
	ck_assert_int_eq(job_model_report(f.m[0], 90, 190, 0.5, 5.0, 0), 0);
	fx_job(&f, "optimus,max_ps=2,max_workers=6", 20);
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_int_ne(dec(&f, 0)->action, PLAN_RESIZE);
	ck_assert_int_eq(dec(&f, 1)->action, PLAN_START);
	ck_assert_uint_eq(dec(&f, 1)->nslots, 1);
	ck_assert_uint_eq(dec(&f, 1)->slots[0].server, 1);
	fx_free(&f);
}
END_TEST

/* Kept jobs keep their servers; the others are placed around them. */
START_TEST(test_keep_servers)
{
	fixture_t f;
	place_slot_t s0[] = { { 1, 1, 3 }, { 3, 1, 2 } };
	place_slot_t s1[] = { { 0, 1, 1 } };

	fx_init(&f, 4, 8, 32768);
	fx_job(&f, "optimus,ps=2,workers=5", 10);
	fx_run(&f, 0, s0, 2, 50);
	fx_job(&f, "optimus,max_ps=2,max_workers=8", 20);
	fx_run(&f, 1, s1, 1, 60);
	f.m[1]->last_resize = NOW - 5;
	fx_job(&f, "optimus,max_ps=4,max_workers=8", 30);
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_KEEP);
	ck_assert_int_eq(dec(&f, 1)->action, PLAN_KEEP);
	ck_assert_int_eq(dec(&f, 2)->action, PLAN_START);
	fx_free(&f);
}
END_TEST

/* Random clusters and queues: every plan respects capacity and bounds. */
/*
 * Random plans of every policy, with and without placement, PS jobs
 * alone or mixed with all-reduce ones (_i & 1), every round of pass 2
 * exact or settling from the first (_i & 2: round_budget 0): no server
 * over its capacity, every decision within its job's limits. Settled or
 * not, the plan is one a cluster can run.
 */
START_TEST(test_capacity_random)
{
	unsigned seed = 12345;

	for (int round = 0; round < 40; round++) {
		fixture_t f;
		size_t nj;

		srand(seed + round);
		fx_init(&f, 2 + rand() % 6, 4 + rand() % 12, 16384);
		if (_i & 2)
			f.prm.round_budget = 0;
		f.prm.policy = (plan_policy_t)(round % 5);
		f.prm.placement = round % 3 != 0;
		nj = 1 + rand() % 8;
		for (size_t i = 0; i < nj; i++) {
			/* _i & 1: every third job all-reduce, with PS */
			bool ar = (_i & 1) && i % 3 == 0;
			char h[160];

			snprintf(h, sizeof(h), "%s,%s=%d,max_workers=%d,"
				 "worker_cpus=%d,steps=%d",
				 round % 2 ? "quality" : "optimus",
				 ar ? "mode=allreduce,min_workers" : "max_ps",
				 1 + rand() % 4, 1 + rand() % 10 + (ar ? 4 : 0),
				 1 + rand() % 3, 1000 + rand() % 50000);
			fx_job(&f, h, 10 + i);
			if (rand() % 2) {
				size_t s = rand() % f.ns;
				place_slot_t sl = { (uint32_t)s, ar ? 0 : 1,
						    ar ? (int)f.m[i]->hints.
						    min_workers : 1 };
				res_vec_t need = res_make(sl.ps + sl.workers *
					f.m[i]->hints.worker_res.cpus,
					1024.0 * (sl.ps + sl.workers), 0);

				if (res_fits(need, f.free[s]))
					fx_run(&f, i, &sl, 1, 50);
			}
		}
		ck_assert_int_eq(fx_plan(&f), 0);
		check_plan(&f);
		ck_assert_uint_eq(f.plan.nstart + f.plan.nresize +
				  f.plan.nkeep + f.plan.nwait, f.n);
		fx_free(&f);
	}
}
END_TEST

/* FIFO serves in arrival order at the requested size, and blocks. */
START_TEST(test_fifo)
{
	fixture_t f;

	fx_init(&f, 2, 8, 32768);
	f.prm.policy = PLAN_FIFO;
	fx_job(&f, "optimus,max_ps=2,max_workers=10", 20);
	fx_job(&f, "optimus,ps=2,workers=8", 10);
	fx_job(&f, "optimus", 30);
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	/* Job 1 came first: it starts at its full size. */
	ck_assert_int_eq(dec(&f, 1)->action, PLAN_START);
	ck_assert_int_eq(dec(&f, 1)->ps, 2);
	ck_assert_int_eq(dec(&f, 1)->workers, 8);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_WAIT);
	ck_assert_msg(strstr(dec(&f, 0)->reason, "FIFO"), "%s",
		      dec(&f, 0)->reason);
	/* Strict FIFO: the small job behind it waits too. */
	ck_assert_int_eq(dec(&f, 2)->action, PLAN_WAIT);

	/* Optimus on the same queue starts all three. */
	f.prm.policy = PLAN_OPTIMUS;
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_uint_eq(f.plan.nstart, 3);
	fx_free(&f);
}
END_TEST

/*
 * Tetris picks the waiting job with the shortest remaining time when not
 * all fit (its SRTF term); DRF, which knows no job sizes, the oldest.
 */
START_TEST(test_tetris_shortest_first)
{
	static const plan_policy_t pol[] = { PLAN_TETRIS, PLAN_DRF };
	static const char *hints[] = {
		"optimus,ps=2,workers=2,ps_cpus=2,worker_cpus=2,steps=900000",
		"optimus,ps=2,workers=2,ps_cpus=2,worker_cpus=2,steps=9000",
	};

	for (size_t k = 0; k < 2; k++) {
		fixture_t f;

		fx_init(&f, 1, 8, 32768);
		f.prm.policy = pol[k];
		for (size_t i = 0; i < 2; i++) {
			fx_job(&f, hints[i], 10 + (time_t)i);
			ck_assert_int_eq(job_model_speed_sample(f.m[i], 2, 2,
								10.0), 0);
		}
		ck_assert_int_eq(fx_plan(&f), 0);
		check_plan(&f);
		/* Only one 8-CPU job fits the 8-CPU server. */
		size_t started = pol[k] == PLAN_TETRIS ? 1 : 0;
		ck_assert_int_eq(dec(&f, started)->action, PLAN_START);
		ck_assert_int_eq(dec(&f, 1 - started)->action, PLAN_WAIT);
		fx_free(&f);
	}
}
END_TEST

static void feed_quality(job_model_t *m, double mu, double b, double c)
{
	job_model_started(m, 0, 1, 1, 1);
	ck_assert_int_eq(job_model_checkpoint(m, 0, 0), 0);
	for (int k = 1; k <= 30; k++)
		ck_assert_int_eq(job_model_report(m, k, 20.0 * k,
			mu * pow(20.0 * k, -b) + c, 2.0, 0), 0);
	job_model_refit(m);
	m->phase = JM_PENDING;
	m->cur_ps = m->cur_workers = 0;
}

/* Quality policy: the job whose loss still drops fast gets more units. */
START_TEST(test_quality)
{
	fixture_t f;

	fx_init(&f, 2, 8, 32768);
	f.prm.policy = PLAN_QUALITY;
	f.prm.interval = 60;
	/* Spread placement packs 16 tasks exactly: this tests allocation. */
	f.prm.placement = false;
	fx_job(&f, "quality,max_workers=12", 10);
	fx_job(&f, "quality,max_workers=12", 20);
	feed_quality(f.m[0], 5.0, 0.8, 0.1);	/* steep */
	feed_quality(f.m[1], 0.2, 0.3, 0.1);	/* nearly flat */
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_START);
	ck_assert_int_eq(dec(&f, 1)->action, PLAN_START);
	ck_assert_msg(dec(&f, 0)->workers > dec(&f, 1)->workers,
		      "steep %d, flat %d", dec(&f, 0)->workers,
		      dec(&f, 1)->workers);
	/* Units are workers: the cluster (16 CPUs, 2 PS) holds 14. */
	ck_assert_int_eq(dec(&f, 0)->workers + dec(&f, 1)->workers, 14);
	fx_free(&f);
}
END_TEST

/*
 * Algorithm 1 re-distributes the units every interval: a running quality
 * job whose loss is nearly flat gives units to a newcomer whose loss drops
 * fast, although the newcomer's minimum fits the free room (an Optimus
 * job would keep its size then: test_no_shrink_when_newcomer_fits). The
 * threshold and the minimum interval still bound it.
 */
/* Plan, check it, and expect job i's action with `why` in its reason. */
static void expect_plan(fixture_t *f, size_t i, plan_action_t action,
			const char *why)
{
	ck_assert_int_eq(fx_plan(f), 0);
	check_plan(f);
	ck_assert_int_eq(dec(f, i)->action, action);
	ck_assert_msg(strstr(dec(f, i)->reason, why), "job %zu: %s", i,
		      dec(f, i)->reason);
}

/*
 * Spare room grows a running quality job (it stayed at one
 * worker, "no better allocation fits", with 13 CPUs free).
 */
START_TEST(test_quality_grows_into_idle_room)
{
	fixture_t f;
	place_slot_t s[] = { { 0, 1, 1 } };

	fx_init(&f, 2, 8, 32768);
	f.prm.policy = PLAN_QUALITY;
	f.prm.interval = 60;
	fx_job(&f, "quality,max_workers=12", 10);
	feed_quality(f.m[0], 5.0, 0.8, 0.1);
	fx_run(&f, 0, s, 1, 50);
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_msg(dec(&f, 0)->action == PLAN_RESIZE &&
		      dec(&f, 0)->workers > 1, "%d %d/%d: %s",
		      dec(&f, 0)->action, dec(&f, 0)->ps, dec(&f, 0)->workers,
		      dec(&f, 0)->reason);
	fx_free(&f);
}
END_TEST

/*
 * Pass 2 shares the room the kept jobs leave among the jobs pass 1
 * resizes. Job 1, which pass 1 grew, granted its own size there, gave
 * way to job 2; job 2 is kept after all (its smaller grant no longer
 * pays), and the room it took is shared again: job 1 grows into it rather
 * than the CPU lying idle for the interval, job 1 kept "at its planned
 * size".
 */
START_TEST(test_resize_given_way_regrows)
{
	fixture_t f;
	place_slot_t k[] = { { 0, 1, 9 } }, a[] = { { 0, 1, 1 } },
		     b[] = { { 0, 1, 2 } };

	fx_init(&f, 1, 16, 65536);	/* 15 of the 16 CPUs used below */
	f.prm.policy = PLAN_QUALITY;
	f.prm.interval = 60;
	f.prm.resize_threshold = f.prm.resize_threshold_large = 0.75;
	fx_job(&f, "quality,max_workers=12", 10);
	fx_job(&f, "quality,max_workers=12", 20);
	fx_job(&f, "quality,max_workers=12", 30);
	feed_quality(f.m[0], 0.2, 0.3, 0.1);	/* nearly flat */
	feed_quality(f.m[1], 3.0, 0.8, 0.1);
	feed_quality(f.m[2], 5.0, 0.8, 0.1);	/* steepest */
	fx_run(&f, 0, k, 1, 50);
	fx_run(&f, 1, a, 1, 50);
	fx_run(&f, 2, b, 1, 50);
	f.m[0]->last_resize = NOW - 10;
	expect_plan(&f, 0, PLAN_KEEP, "resized 10s ago");
	ck_assert_int_eq(dec(&f, 2)->action, PLAN_KEEP);
	ck_assert_msg(strstr(dec(&f, 2)->reason, "size change 50.0% to 1/3"),
		      "%s", dec(&f, 2)->reason);
	ck_assert_msg(dec(&f, 1)->action == PLAN_RESIZE &&
		      dec(&f, 1)->workers == 2, "job 1: %d %d/%d: %s",
		      dec(&f, 1)->action, dec(&f, 1)->ps, dec(&f, 1)->workers,
		      dec(&f, 1)->reason);
	fx_free(&f);
}
END_TEST

/*
 * No job waits; job 0, near its end on 1 PS + 1 worker, would finish far
 * sooner with more, and job 1, far from its end, holds the rest of the
 * server. Under Policy=goodput (the completion rate) job 1 shrinks to its
 * pass-1 grant so that job 0 grows, its reason naming job 0 and the rule;
 * under Policy=optimus (the paper's rule: a shrink only for a pending
 * job) job 0 keeps its size and job 1 is not shrunk for it. A job that
 * waits (job 2, whose minimum pass 1 cannot grant) turns the rule off:
 * the shrunk job would not get its room back.
 */
START_TEST(test_shrink_for_growth)
{
	fixture_t f;
	place_slot_t a[] = { { 0, 1, 1 } }, b[] = { { 0, 2, 12 } };

	fx_init(&f, 1, 16, 65536);
	f.prm.policy = PLAN_GOODPUT;
	fx_job(&f, "optimus,max_ps=4,max_workers=12,steps=2000", 10);
	fx_job(&f, "optimus,max_ps=4,max_workers=12,steps=10000000", 20);
	fx_run(&f, 0, a, 1, 50);
	fx_run(&f, 1, b, 1, 50);
	for (size_t i = 0; i < 2; i++) {
		ck_assert_int_eq(job_model_report(f.m[i], NOW - 200, 1000, 1.0,
						  1.0, 0), 0);
		ck_assert_int_eq(job_model_report(f.m[i], NOW - 100, 1100, 1.0,
						  1.0, 0), 0);
	}
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_msg(dec(&f, 0)->action == PLAN_RESIZE &&
		      dec(&f, 0)->ps + dec(&f, 0)->workers > 2,
		      "job 0: %d %d/%d: %s", dec(&f, 0)->action,
		      dec(&f, 0)->ps, dec(&f, 0)->workers,
		      dec(&f, 0)->reason);
	ck_assert_msg(dec(&f, 1)->action == PLAN_RESIZE &&
		      dec(&f, 1)->ps + dec(&f, 1)->workers < 14,
		      "job 1: %d %d/%d: %s", dec(&f, 1)->action,
		      dec(&f, 1)->ps, dec(&f, 1)->workers,
		      dec(&f, 1)->reason);
	ck_assert_msg(strstr(dec(&f, 1)->reason, " for JobId=100 (shrink "
			     "for a running job's growth"), "%s",
		      dec(&f, 1)->reason);
	ck_assert_uint_eq(dec(&f, 1)->for_job, 100);

	f.prm.policy = PLAN_OPTIMUS;
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_KEEP);
	ck_assert_int_eq(dec(&f, 0)->ps + dec(&f, 0)->workers, 2);
	ck_assert_msg(!strstr(dec(&f, 1)->reason, "growth"), "%s",
		      dec(&f, 1)->reason);

	f.prm.policy = PLAN_GOODPUT;
	fx_job(&f, "optimus,min_ps=4,min_workers=16,max_ps=4,max_workers=16",
	       30);
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_int_eq(dec(&f, 2)->action, PLAN_WAIT);
	ck_assert_msg(dec(&f, 1)->action == PLAN_KEEP, "job 1: %d %d/%d: %s",
		      dec(&f, 1)->action, dec(&f, 1)->ps, dec(&f, 1)->workers,
		      dec(&f, 1)->reason);
	fx_free(&f);
}
END_TEST

START_TEST(test_quality_redistributes)
{
	fixture_t f;
	place_slot_t s[] = { { 0, 1, 6 } };

	fx_init(&f, 1, 16, 65536);
	f.prm.policy = PLAN_QUALITY;
	f.prm.interval = 60;
	f.prm.resize_threshold = f.prm.resize_threshold_large = 0.0;
	f.prm.min_resize_interval = 0;
	fx_job(&f, "quality,max_workers=12", 10);
	fx_job(&f, "quality,max_workers=12", 20);
	feed_quality(f.m[0], 0.2, 0.3, 0.1);	/* nearly flat */
	feed_quality(f.m[1], 5.0, 0.8, 0.1);	/* steep */
	fx_run(&f, 0, s, 1, 50);	/* 13 of the 16 CPUs: 3 left */
	expect_plan(&f, 0, PLAN_RESIZE, "Algorithm 1 shrinks");
	ck_assert_int_lt(dec(&f, 0)->workers, 6);
	ck_assert_int_eq(dec(&f, 1)->action, PLAN_START);
	ck_assert_int_gt(dec(&f, 1)->workers, dec(&f, 0)->workers);

	/* Resized just now: it keeps its units for the minimum interval. */
	f.prm.min_resize_interval = 1800;
	f.m[0]->last_resize = NOW - 10;
	expect_plan(&f, 0, PLAN_KEEP, "resized 10s ago");
	ck_assert_int_eq(dec(&f, 1)->action, PLAN_START);
	/* A size change below the threshold is not worth a restart. */
	f.m[0]->last_resize = 0;
	f.prm.resize_threshold = f.prm.resize_threshold_large = 0.9;
	expect_plan(&f, 0, PLAN_KEEP, "size change");
	fx_free(&f);
}
END_TEST

/*
 * One quality job beside one Optimus job: capacity split by job counts,
 * under both the quality and the optimus policies (a job's own hint picks
 * its allocator).
 */
/*
 * The room is free in the aggregate but in fragments: server 0 has CPUs
 * and no memory, server 1 memory and no CPUs, so no set of servers holds
 * the newcomer's minimum although Algorithm 1 granted it, and both running
 * jobs are at their planned sizes. A running job shrinks so that the
 * newcomer starts, rather than the newcomer waiting for a job to end.
 */
START_TEST(test_fragmented_room_shrinks_a_kept_job)
{
	fixture_t f;
	place_slot_t a[] = { { 0, 1, 2 } }, b[] = { { 1, 1, 3 } };

	fx_init(&f, 2, 8, 8192);
	f.prm.policy = PLAN_QUALITY;
	f.prm.interval = 60;
	fx_job(&f, "quality,max_workers=2,ps_cpus=1,ps_mem=6144,"
	       "worker_cpus=2,worker_mem=1024", 10);
	fx_job(&f, "quality,max_workers=3,ps_cpus=2,ps_mem=512,"
	       "worker_cpus=2,worker_mem=1024", 20);
	fx_job(&f, "quality,workers=1,ps_cpus=1,ps_mem=512,"
	       "worker_cpus=2,worker_mem=1024", 30);
	for (size_t i = 0; i < 3; i++)
		feed_quality(f.m[i], 5.0, 0.8, 0.1);
	fx_run(&f, 0, a, 1, 50);	/* server 0: 3 CPUs, 0 MB left */
	fx_run(&f, 1, b, 1, 50);	/* server 1: 0 CPUs, 4608 MB left */
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_msg(dec(&f, 2)->action == PLAN_START, "newcomer: %s",
		      dec(&f, 2)->reason);
	ck_assert_int_eq(dec(&f, 1)->action, PLAN_RESIZE);
	ck_assert_int_lt(dec(&f, 1)->workers, 3);
	ck_assert_uint_eq(dec(&f, 1)->for_job, 102);
	ck_assert_msg(strstr(dec(&f, 1)->reason, "Algorithm 1 shrinks it to ") &&
		      strstr(dec(&f, 1)->reason, " for JobId=102 "), "%s",
		      dec(&f, 1)->reason);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_KEEP);
	fx_free(&f);
}
END_TEST

/*
 * Quality units are whole workers on one server: three servers with room
 * for 3.5 workers each hold 9, not the 10 the aggregate adds up to. Counted
 * in the aggregate, the grant of 10 could not be placed and was cut to 3/4
 * of it (8 workers), one unit short of what the servers hold.
 */
START_TEST(test_quality_units_per_server)
{
	fixture_t f;

	fx_init(&f, 3, 8, 14336);
	f.prm.policy = PLAN_QUALITY;
	f.prm.interval = 60;
	fx_job(&f, "quality,max_workers=16,ps_cpus=1,ps_mem=512,"
	       "worker_cpus=1,worker_mem=4096", 10);
	feed_quality(f.m[0], 5.0, 0.8, 0.1);
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_msg(dec(&f, 0)->action == PLAN_START, "%s",
		      dec(&f, 0)->reason);
	ck_assert_int_eq(dec(&f, 0)->workers, 9);
	fx_free(&f);
}
END_TEST

START_TEST(test_quality_mixed)
{
	fixture_t f;

	fx_init(&f, 4, 8, 32768);
	f.prm.policy = _i ? PLAN_OPTIMUS : PLAN_QUALITY;
	fx_job(&f, "quality,max_workers=32", 10);
	fx_job(&f, "optimus,max_ps=16,max_workers=32", 20);
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	/* Each kind got at most half of the 32 CPUs. */
	ck_assert_int_le(dec(&f, 0)->ps + dec(&f, 0)->workers, 16);
	ck_assert_int_le(dec(&f, 1)->ps + dec(&f, 1)->workers, 16);
	ck_assert_int_eq(dec(&f, 0)->ps + dec(&f, 0)->workers, 16);
	fx_free(&f);
}
END_TEST

/* Ablation: without Theorem 1 the tasks are spread over the servers. */
START_TEST(test_spread_ablation)
{
	fixture_t f;

	fx_init(&f, 4, 8, 32768);
	fx_job(&f, "optimus,ps=1,workers=3", 10);
	ck_assert_int_eq(fx_plan(&f), 0);
	ck_assert_uint_eq(dec(&f, 0)->nslots, 1);
	f.prm.placement = false;
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_uint_eq(dec(&f, 0)->nslots, 4);
	fx_free(&f);
}
END_TEST

START_TEST(test_bad_input_and_json)
{
	fixture_t f;
	place_slot_t s = { 9, 1, 1 };
	json_object *o;

	fx_init(&f, 2, 8, 32768);
	fx_job(&f, "optimus", 10);
	fx_job(&f, "optimus", 20);
	ck_assert_int_eq(fx_plan(&f), 0);
	o = plan_to_json(&f.plan);
	ck_assert_ptr_nonnull(o);
	ck_assert_msg(strstr(json_object_to_json_string_ext(o,
			     JSON_C_TO_STRING_PLAIN), "\"action\":\"start\""),
		      "%s", json_object_to_json_string(o));
	ck_assert_int_eq(json_object_array_length(
		json_object_object_get(o, "decisions")), 2);
	ck_assert_int_eq(json_object_get_int(
		json_object_object_get(o, "npreempt")), 0);
	ck_assert_ptr_nonnull(json_object_object_get(o, "npreempt"));
	json_object_put(o);
	f.j[1].running = true;
	f.j[1].slots = &s;
	f.j[1].nslots = 1;
	ck_assert_int_eq(fx_plan(&f), -EINVAL);
	ck_assert_msg(strstr(f.plan.err, "slot"), "%s", f.plan.err);
	f.j[1].nslots = 0;
	f.j[1].running = false;
	f.prm.damping = 0;
	ck_assert_int_eq(fx_plan(&f), -EINVAL);
	f.prm.damping = 0.95;
	/* Negative room is a full server: both jobs go to server 1. */
	f.free[0].v[RES_CPU] = -3;
	ck_assert_int_eq(fx_plan(&f), 0);
	ck_assert_int_eq(dec(&f, 0)->slots[0].server, 1);
	ck_assert_int_eq(dec(&f, 1)->slots[0].server, 1);
	f.free[0].v[RES_CPU] = NAN;
	ck_assert_int_eq(fx_plan(&f), -EINVAL);
	fx_free(&f);
}
END_TEST

/* A free room beyond PLAN_ROOM_MAX would make a task count overflow its
 * integer (undefined behaviour; fuzz_models finds it): it is refused. */
START_TEST(test_absurd_free_room_refused)
{
	fixture_t f;

	fx_init(&f, 2, 8, 16000);
	fx_job(&f, "optimus", NOW - 10);
	f.free[1].v[RES_CPU] = 1e142;
	ck_assert_int_eq(fx_plan(&f), -EINVAL);
	ck_assert_ptr_nonnull(strstr(f.plan.err, "beyond"));
	f.free[1].v[RES_CPU] = 8;
	ck_assert_int_eq(fx_plan(&f), 0);
	fx_free(&f);
}
END_TEST

/*
 * An all-reduce job and a PS job in one plan: both start; the all-reduce
 * one has no PS and its workers on the fewest servers, evenly split; its
 * planned time uses the nodes its workers span.
 */
START_TEST(test_allreduce_with_ps)
{
	fixture_t f;
	const plan_decision_t *d;
	int minw = 1 << 30, maxw = 0;

	fx_init(&f, 4, 8, 32768);
	fx_job(&f, "optimus,mode=allreduce,max_workers=16,batch=256,"
	       "steps=50000", 10);
	fx_job(&f, "optimus,max_ps=8,max_workers=16,steps=50000", 20);
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	ck_assert_uint_eq(f.plan.nstart, 2);
	d = dec(&f, 0);
	ck_assert_int_eq(d->action, PLAN_START);
	ck_assert_int_eq(d->ps, 0);
	ck_assert_int_gt(d->workers, 1);
	for (size_t k = 0; k < d->nslots; k++) {
		ck_assert_int_eq(d->slots[k].ps, 0);
		minw = d->slots[k].workers < minw ? d->slots[k].workers : minw;
		maxw = d->slots[k].workers > maxw ? d->slots[k].workers : maxw;
	}
	ck_assert_int_le(maxw - minw, 1);
	ck_assert_int_eq((int)d->nslots, (d->workers + 7) / 8);
	ck_assert_double_eq_tol(d->remaining_planned,
		job_model_remaining_time(f.m[0], NULL,
					 (d->workers + 7) / 8, d->workers),
		1e-6 * d->remaining_planned);
	ck_assert_int_ge(dec(&f, 1)->ps, 1);
	fx_free(&f);
}
END_TEST

/* A running all-reduce job's reports are samples at its node count. */
START_TEST(test_allreduce_samples_nodes)
{
	fixture_t f;
	place_slot_t sl[2] = { { 0, 0, 3 }, { 1, 0, 3 } };

	fx_init(&f, 4, 8, 32768);
	fx_job(&f, "optimus,mode=allreduce,max_workers=8", 10);
	fx_run(&f, 0, sl, 2, 50);
	ck_assert_int_eq(job_model_report(f.m[0], 60, 10, 1.0, 2.5, 0), 0);
	ck_assert_uint_eq(f.m[0]->speed.nsamples, 1);
	ck_assert_int_eq(f.m[0]->speed.samples[0].p, 2);	/* nodes */
	ck_assert_int_eq(f.m[0]->speed.samples[0].w, 6);
	ck_assert_int_eq(f.m[0]->speed.mode, SPEED_ALLREDUCE);
	/* 6 workers over 2 nodes last time: 3 per node */
	ck_assert_int_eq(job_model_speed_p(f.m[0], 0, 7, 0), 3);
	ck_assert_int_eq(job_model_speed_p(f.m[0], 0, 7, 8), 1);
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	fx_free(&f);
}
END_TEST

/* layout=separate: the plan places PS and workers on disjoint servers
 * (a colocated job beside it shares servers as Theorem 1 says). */
START_TEST(test_separate_layout_disjoint)
{
	fixture_t f;
	const plan_decision_t *d;
	int ps_servers = 0;

	fx_init(&f, 4, 8, 32768);
	fx_job(&f, "optimus,layout=separate,ps=2,workers=6", 10);
	fx_job(&f, "optimus,ps=1,workers=3", 20);
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	d = dec(&f, 0);
	ck_assert_int_eq(d->action, PLAN_START);
	ck_assert_uint_ge(d->nslots, 2);
	for (size_t k = 0; k < d->nslots; k++) {
		ck_assert_msg(!d->slots[k].ps != !d->slots[k].workers,
			      "server %u holds %d PS and %d workers",
			      d->slots[k].server, d->slots[k].ps,
			      d->slots[k].workers);
		ps_servers += d->slots[k].ps > 0;
	}
	ck_assert_int_eq(ps_servers, 1);
	ck_assert_int_eq(dec(&f, 1)->action, PLAN_START);
	fx_free(&f);
}
END_TEST

/* A job with a straggler on server 1: moved, at its size, off server 1. */
static void fx_straggler(fixture_t *f, size_t nservers, double cpu)
{
	place_slot_t sl[] = { { 0, 1, 1 }, { 1, 0, 1 } };

	fx_init(f, nservers, cpu, 32768);
	fx_job(f, "optimus,ps=1,workers=2", 10);
	fx_run(f, 0, sl, 2, 50);
	f->j[0].has_closed = true;
	f->j[0].closed_server = 1;
	f->m[0]->avoid_slowdown = 2.5;
}

START_TEST(test_straggler_moves_job)
{
	fixture_t f;
	const plan_decision_t *d;

	fx_straggler(&f, 4, 8);
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	d = dec(&f, 0);
	ck_assert_int_eq(d->action, PLAN_RESIZE);
	ck_assert(d->moves_off_straggler);
	ck_assert_int_eq(d->ps, 1);
	ck_assert_int_eq(d->workers, 2);
	for (size_t k = 0; k < d->nslots; k++)
		ck_assert_uint_ne(d->slots[k].server, 1);
	ck_assert_ptr_nonnull(strstr(d->reason, "moves off a straggler 2.5x"));
	ck_assert_uint_eq(f.plan.nresize, 1);
	ck_assert_uint_eq(f.plan.nkeep, 0);
	fx_free(&f);
}
END_TEST

/* No other room, or a resize too recent: the job keeps its servers. */
START_TEST(test_straggler_stays_without_room)
{
	fixture_t f;

	fx_straggler(&f, 2, 2);	/* server 0 is full, server 1 is closed */
	ck_assert_int_eq(fx_plan(&f), 0);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_KEEP);
	ck_assert(!dec(&f, 0)->moves_off_straggler);
	ck_assert_ptr_nonnull(strstr(dec(&f, 0)->reason, "no other room"));
	fx_free(&f);

	fx_straggler(&f, 4, 8);
	f.m[0]->last_resize = NOW - 5;
	ck_assert_int_eq(fx_plan(&f), 0);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_KEEP);
	ck_assert_ptr_nonnull(strstr(dec(&f, 0)->reason, "resized 5s ago"));
	fx_free(&f);

	/* Only a job that can checkpoint is moved. */
	fx_straggler(&f, 4, 8);
	f.m[0]->ckpt_confirmed = false;
	ck_assert_int_eq(fx_plan(&f), 0);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_KEEP);
	ck_assert_ptr_nonnull(strstr(dec(&f, 0)->reason,
				     "never confirmed a checkpoint"));
	fx_free(&f);

	fx_straggler(&f, 4, 8);
	f.j[0].starting = true;
	ck_assert_int_eq(fx_plan(&f), 0);
	ck_assert_int_eq(dec(&f, 0)->action, PLAN_KEEP);
	fx_free(&f);
}
END_TEST

/* A pending job (requeued off its straggler) starts without that server. */
START_TEST(test_closed_server_not_used_at_start)
{
	fixture_t f;
	const plan_decision_t *d;

	fx_init(&f, 3, 8, 32768);
	fx_job(&f, "optimus,ps=1,workers=3", 10);
	f.j[0].has_closed = true;
	f.j[0].closed_server = 0;
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	d = dec(&f, 0);
	ck_assert_int_eq(d->action, PLAN_START);
	for (size_t k = 0; k < d->nslots; k++)
		ck_assert_uint_ne(d->slots[k].server, 0);
	fx_free(&f);
}
END_TEST

/* The charge of a decision as Slurm counts it: its fullest slot's tasks
 * on each of its slots (--ntasks-per-node), c CPUs per task. */
static double slurm_cpus(const plan_decision_t *d, double c)
{
	int most = 0;

	for (size_t k = 0; k < d->nslots; k++)
		if (d->slots[k].ps + d->slots[k].workers > most)
			most = d->slots[k].ps + d->slots[k].workers;
	return (double)most * (double)d->nslots * c;
}

/* A capped job starts within its cap: in all, per server, servers. */
START_TEST(test_cap_bounds_start)
{
	fixture_t f;
	job_cap_t cap;
	const plan_decision_t *d;

	fx_init(&f, 4, 8, 32768);
	f.prm.uniform_node_share = true;
	fx_job(&f, "optimus,max_ps=8,max_workers=16,steps=50000", 10);
	cap_init(&cap);
	cap_lower_total(&cap, RES_CPU, 4, "QOS normal MaxTRESPerUser cpu=4 "
			"leaves 4");
	f.j[0].cap = &cap;
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	d = dec(&f, 0);
	ck_assert_int_eq(d->action, PLAN_START);
	ck_assert_double_le(slurm_cpus(d, 1), 4);
	ck_assert_int_ge(d->ps + d->workers, 2);

	/* One node at most: all its tasks on one server. */
	cap_init(&cap);
	cap_lower_servers(&cap, 1, "partition debug MaxNodes=1");
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	d = dec(&f, 0);
	ck_assert_int_eq(d->action, PLAN_START);
	ck_assert_uint_eq(d->nslots, 1);
	ck_assert_int_ge(d->ps + d->workers, 2);

	/* Two CPUs a node at most: no slot holds more than 2 tasks. */
	cap_init(&cap);
	cap_lower_per_server(&cap, RES_CPU, 2, "partition debug "
			     "MaxCPUsPerNode=2");
	ck_assert_int_eq(fx_plan(&f), 0);
	check_plan(&f);
	d = dec(&f, 0);
	ck_assert_int_eq(d->action, PLAN_START);
	for (size_t k = 0; k < d->nslots; k++)
		ck_assert_int_le(d->slots[k].ps + d->slots[k].workers, 2);

	/* Without a cap the same job takes far more. */
	f.j[0].cap = NULL;
	ck_assert_int_eq(fx_plan(&f), 0);
	ck_assert_int_gt(dec(&f, 0)->ps + dec(&f, 0)->workers, 8);
	fx_free(&f);
}
END_TEST

/* An all-reduce job of 1 GPU a worker under a GPU cap of 3: at most 3
 * workers, on servers charged as Slurm charges them. */
START_TEST(test_cap_allreduce_gpus)
{
	fixture_t f;
	job_cap_t cap;
	const plan_decision_t *d;

	fx_init(&f, 4, 8, 32768);
	for (size_t s = 0; s < f.ns; s++)
		f.free[s].v[RES_GPU] = 4;
	f.prm.uniform_node_share = true;
	fx_job(&f, "optimus,mode=allreduce,max_workers=16,worker_gpus=1,"
	       "batch=256,steps=50000", 10);
	cap_init(&cap);
	cap_lower_total(&cap, RES_GPU, 3, "QOS normal MaxTRESPerUser "
			"gres/gpu=3 leaves 3");
	f.j[0].cap = &cap;
	ck_assert_int_eq(fx_plan(&f), 0);
	d = dec(&f, 0);
	ck_assert_int_eq(d->action, PLAN_START);
	ck_assert_int_ge(d->workers, 1);
	ck_assert_int_le(d->workers, 3);
	fx_free(&f);
}
END_TEST

/*
 * A job whose minimum is over its cap waits naming the limit (no
 * preemption for it either: test_preempt.c), and a running one keeps its
 * size.
 */
START_TEST(test_cap_minimum_over_waits)
{
	fixture_t f;
	job_cap_t cap, none;
	place_slot_t s = { 0, 2, 2 };

	fx_init(&f, 1, 8, 32768);
	f.prm.min_resize_interval = 0;
	fx_job(&f, "optimus,max_ps=4,max_workers=4,steps=50000", 10);
	fx_run(&f, 0, &s, 1, NOW - 100000);
	fx_job(&f, "optimus,max_ps=4,max_workers=4", 20);
	cap_init(&cap);
	cap_lower_total(&cap, RES_CPU, 0, "QOS normal MaxTRESPerUser cpu=4 "
			"leaves 0");
	f.j[1].cap = &cap;
	expect_plan(&f, 1, PLAN_WAIT, "optimus: QOS normal MaxTRESPerUser "
		    "cpu=4 leaves 0");
	/* Without the cap it starts on the room left. */
	f.j[1].cap = NULL;
	ck_assert_int_eq(fx_plan(&f), 0);
	ck_assert_int_eq(dec(&f, 1)->action, PLAN_START);

	/* The running job over its cap keeps its size, saying why. */
	cap_init(&none);
	cap_lower_servers(&none, 0, "QOS normal MaxTRESPerUser node=1 "
			  "leaves 0");
	f.j[0].cap = &none;
	f.j[1].cap = NULL;
	expect_plan(&f, 0, PLAN_KEEP, "node=1 leaves 0");
	fx_free(&f);
}
END_TEST

/* The cap reaches the plan through plan_input_collect. */
START_TEST(test_input_carries_cap)
{
	job_cap_t cap;
	optimus_hints_t h;
	char err[128];
	job_model_t *m;
	plan_input_t in = { .state = PLAN_INPUT_QUEUED, .held = true };
	plan_job_t job;
	size_t which;
	res_vec_t room = res_make(8, 32768, 0);

	ck_assert(!hints_parse("optimus", &h, err, sizeof(err)));
	m = job_model_new(7, 0, &h, 10);
	in.model = m;
	cap_init(&cap);
	in.cap = &cap;
	ck_assert_uint_eq(plan_input_collect(&in, 1, NOW, &room, 1, &job,
					     &which), 1);
	ck_assert_ptr_eq(job.cap, &cap);
	job_model_free(m);
}
END_TEST

/* One decision as JSON (optimusctl job): a waiting job's infinite times
 * are null, never Infinity (not JSON). */
START_TEST(test_decision_json_non_finite)
{
	plan_decision_t d = { .job_id = 7, .action = PLAN_WAIT,
			      .remaining_now = INFINITY,
			      .remaining_planned = NAN, .gain = 0.0 };
	json_object *o, *v;
	const char *text;

	snprintf(d.reason, sizeof(d.reason), "no room");
	o = plan_decision_to_json(&d);
	ck_assert_ptr_nonnull(o);
	text = json_object_to_json_string(o);
	ck_assert_msg(!strstr(text, "Infinity") && !strstr(text, "NaN"), "%s",
		      text);
	ck_assert(json_object_object_get_ex(o, "remaining_now", &v) && !v);
	ck_assert(json_object_object_get_ex(o, "action", &v));
	ck_assert_str_eq(json_object_get_string(v), "wait");
	json_object_put(o);
}
END_TEST

/*
 * plan_input: a start applied to a pending job reserves its slots for
 * PLAN_START_RESERVED_SECONDS (taken off the room, planned as a starting
 * job on them), then the job is planned anew; a held job reserves nothing.
 */
START_TEST(test_input_start_reservation)
{
	fixture_t f;
	place_slot_t sl = { .server = 1, .ps = 1, .workers = 2 };
	res_vec_t use = res_make(5, 3000, 0);
	plan_input_t in;
	plan_job_t job;
	size_t which = 99;
	res_vec_t room[2];

	fx_init(&f, 2, 16, 65536);
	fx_job(&f, "optimus", 10);
	in = (plan_input_t){ .model = f.m[0], .state = PLAN_INPUT_QUEUED,
			     .start_slots = &sl, .start_usage = &use,
			     .nstart = 1, .started_at = NOW - 30 };
	memcpy(room, f.free, sizeof(room));
	ck_assert(plan_input_start_reserved(&in, NOW));
	ck_assert_uint_eq(plan_input_collect(&in, 1, NOW, room, 2, &job,
					     &which), 1);
	ck_assert_uint_eq(which, 0);
	ck_assert(job.running && job.starting);
	ck_assert_uint_eq(job.nslots, 1);
	ck_assert_double_eq(room[1].v[RES_CPU], 11);
	ck_assert_double_eq(room[0].v[RES_CPU], 16);
	/* Too old: planned anew, nothing taken. */
	ck_assert(!plan_input_start_reserved(
		&in, NOW - 30 + PLAN_START_RESERVED_SECONDS));
	memcpy(room, f.free, sizeof(room));
	ck_assert_uint_eq(plan_input_collect(
		&in, 1, NOW - 30 + PLAN_START_RESERVED_SECONDS, room, 2, &job,
		&which), 1);
	ck_assert(!job.running && !job.starting);
	ck_assert_double_eq(room[1].v[RES_CPU], 16);
	/* Held again (the plan waits it): no reservation. */
	in.held = true;
	ck_assert(!plan_input_start_reserved(&in, NOW));
	/* No measured resize: the configured cost. */
	ck_assert_double_eq(plan_input_restart_cost(&in, 1, 123.0), 123.0);
	/* A preempted job's restart is a restart, not timed: the mean is
	 * not taken down by it (it was 0 s over 1 restart). */
	job_model_started(f.m[0], NOW, 1, 1, 1);
	job_model_preempting(f.m[0], NOW + 10);
	job_model_requeued(f.m[0], NOW + 12);
	job_model_started(f.m[0], NOW + 40, 1, 1, 1);
	ck_assert_uint_eq(f.m[0]->restarts, 1);
	ck_assert_uint_eq(f.m[0]->restarts_timed, 0);
	ck_assert_double_eq(plan_input_restart_cost(&in, 1, 123.0), 123.0);
	/* Then a resize timed to its first step (at the run's start, no
	 * report before: 30 s): the mean of the timed one only. */
	job_model_resizing(f.m[0], NOW + 60);
	job_model_requeued(f.m[0], NOW + 62);
	job_model_started(f.m[0], NOW + 80, 1, 1, 1);
	ck_assert_int_eq(job_model_progress(f.m[0], NOW + 90, 10, 0, 0), 0);
	ck_assert_uint_eq(f.m[0]->restarts, 2);
	ck_assert_uint_eq(f.m[0]->restarts_timed, 1);
	ck_assert_double_eq(plan_input_restart_cost(&in, 1, 123.0), 30.0);
	fx_free(&f);
}
END_TEST

/*
 * A run is resized only once it declared its checkpoint, however long ago
 * it started: its processes may take minutes to install their handler, and
 * the signal kills them until then. The job confirmed a checkpoint in its
 * first run; its second run, an hour old and reporting, has not declared:
 * kept, saying why, and the newcomer waits; declared: shrunk for it.
 */
START_TEST(test_undeclared_run_kept_whatever_its_age)
{
	fixture_t f;

	fx_full_and_newcomer(&f, "optimus,max_ps=4,max_workers=12");
	job_model_started(f.m[0], NOW - 3600, 4, 12, 2);
	ck_assert_int_eq(job_model_report(f.m[0], NOW - 10, 500, 0.5, 5.0, 0),
			 0);
	expect_actions(&f, PLAN_KEEP, PLAN_WAIT);
	ck_assert_msg(strstr(dec(&f, 0)->reason,
			     "this run has not declared its checkpoint"), "%s",
		      dec(&f, 0)->reason);
	ck_assert_int_eq(job_model_checkpoint(f.m[0], NOW - 1, 500), 0);
	expect_actions(&f, PLAN_RESIZE, PLAN_START);
	fx_free(&f);
}
END_TEST


static Suite *plan_suite(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_policy_names);
	tcase_add_test(tc, test_policy_table);
	tcase_add_test(tc, test_start_even);
	tcase_add_test(tc, test_wait_reason);
	tcase_add_test(tc, test_wait_full);
	tcase_add_test(tc, test_wait_order_and_fragments);
	tcase_add_test(tc, test_resize_unplaceable);
	tcase_add_test(tc, test_resize_rules);
	tcase_add_test(tc, test_restart_cost);
	tcase_add_test(tc, test_large_threshold);
	tcase_add_test(tc, test_shrink_for_pending);
	tcase_add_test(tc, test_no_shrink_when_newcomer_fits);
	tcase_add_test(tc, test_no_shrink_near_the_end);
	tcase_add_test(tc, test_starting_job_keeps_its_slots);
	tcase_add_test(tc, test_keep_servers);
	tcase_add_loop_test(tc, test_capacity_random, 0, 4);
	tcase_add_test(tc, test_allreduce_with_ps);
	tcase_add_test(tc, test_allreduce_samples_nodes);
	tcase_add_test(tc, test_separate_layout_disjoint);
	tcase_add_test(tc, test_fifo);
	tcase_add_test(tc, test_tetris_shortest_first);
	tcase_add_test(tc, test_quality);
	tcase_add_test(tc, test_quality_redistributes);
	tcase_add_test(tc, test_resize_given_way_regrows);
	tcase_add_test(tc, test_shrink_for_growth);
	tcase_add_test(tc, test_quality_grows_into_idle_room);
	tcase_add_test(tc, test_quality_units_per_server);
	tcase_add_test(tc, test_fragmented_room_shrinks_a_kept_job);
	tcase_add_loop_test(tc, test_quality_mixed, 0, 2);
	tcase_add_test(tc, test_spread_ablation);
	tcase_add_test(tc, test_bad_input_and_json);
	tcase_add_test(tc, test_absurd_free_room_refused);
	tcase_add_test(tc, test_straggler_moves_job);
	tcase_add_test(tc, test_straggler_stays_without_room);
	tcase_add_test(tc, test_closed_server_not_used_at_start);
	tcase_add_test(tc, test_cap_bounds_start);
	tcase_add_test(tc, test_cap_allreduce_gpus);
	tcase_add_test(tc, test_cap_minimum_over_waits);
	tcase_add_test(tc, test_input_carries_cap);
	tcase_add_test(tc, test_decision_json_non_finite);
	tcase_add_test(tc, test_input_start_reservation);
	tcase_add_test(tc, test_undeclared_run_kept_whatever_its_age);
	suite_add_tcase(s, tc);
	return s;
}


int main(void)
{
	return check_run(plan_suite());
}

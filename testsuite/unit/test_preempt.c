/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * test_preempt.c - preemption with aging (plan/plan_preempt.c;
 * doc/design/planning.md "Preemption with aging"):
 *  - a waiting job gets one GPU from the running job with the most
 *    attained service, placed on one server; nothing without the rule;
 *  - no preemption before the minimum run since the job's last start, of
 *    a job that cannot checkpoint, of a job whose start is in progress,
 *    or when the margin (min_resize_interval x its GPUs) is not met;
 *  - waiting jobs are served in order of least key, the next one on a
 *    GPU left free, no one preempted for it; one the rule cannot serve is
 *    passed over;
 *  - aging: a preempted job's key falls as it waits, so it comes back
 *    long before the job served since overtakes its service; over many
 *    plans two jobs on one GPU take turns, neither starves.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/job_model.h"
#include "plan/plan.h"
#include "check_run.h"

#define NOW 100000
#define FIXED "optimus,mode=allreduce,min_workers=4,max_workers=4," \
	      "worker_gpus=1,worker_cpus=1,worker_mem=1,steps=1000000"
#define ELASTIC "optimus,mode=allreduce,min_workers=1,max_workers=4," \
		"worker_gpus=1,worker_cpus=1,worker_mem=1,steps=1000000"

/* Servers of 4 GPUs (and 4 CPUs, 4 MB), up to 4 jobs. */
typedef struct fx {
	job_model_t *m[4];
	plan_job_t j[4];
	place_slot_t slot[4];
	res_vec_t free[4];
	size_t n, ns;
	plan_params_t prm;
	plan_t plan;
} fx_t;

static void fx_init(fx_t *f, size_t ns, bool preempt)
{
	memset(f, 0, sizeof(*f));
	f->ns = ns;
	for (size_t s = 0; s < ns; s++)
		f->free[s] = res_make(4, 4, 4);
	plan_params_init(&f->prm);
	f->prm.now = NOW;
	f->prm.min_resize_interval = 300;
	f->prm.restart_cost = 30;
	/* The rule alone: no shrinking of kept jobs for pending ones. */
	f->prm.shrink_for_pending = false;
	f->prm.preempt = preempt;
}

static size_t fx_job(fx_t *f, const char *hints_text, time_t submit)
{
	optimus_hints_t h;
	char err[256];
	size_t i = f->n++;

	ck_assert_msg(!hints_parse(hints_text, &h, err, sizeof(err)), "%s",
		      err);
	f->m[i] = job_model_new(100 + (uint32_t)i, 0, &h, submit);
	ck_assert_ptr_nonnull(f->m[i]);
	f->j[i].model = f->m[i];
	return i;
}

/* Job i runs `workers` GPUs on `server` since `start` (a run before it,
 * from `before` if nonzero, adds to its service); ckpt: it can
 * checkpoint. */
static void fx_run(fx_t *f, size_t i, uint32_t server, int workers,
		   time_t before, time_t start, bool ckpt)
{
	if (before)
		job_model_started(f->m[i], before, 0, workers, 1);
	job_model_started(f->m[i], start, 0, workers, 1);
	if (ckpt)
		ck_assert_int_eq(job_model_checkpoint(f->m[i], start, 0), 0);
	f->slot[i] = (place_slot_t){ server, 0, workers };
	f->j[i].running = true;
	f->j[i].slots = &f->slot[i];
	f->j[i].nslots = 1;
	f->free[server] = res_sub(f->free[server],
				  res_make(workers, workers, workers));
}

static void fx_plan(fx_t *f)
{
	plan_free(&f->plan);
	ck_assert_int_eq(plan_run(f->j, f->n, f->free, f->ns, &f->prm,
				  &f->plan), 0);
}

static void fx_free(fx_t *f)
{
	plan_free(&f->plan);
	for (size_t i = 0; i < f->n; i++)
		job_model_free(f->m[i]);
}

static plan_action_t act(const fx_t *f, size_t i)
{
	return f->plan.decisions[i].action;
}

/* Plan, then job i's action is want[i] for every job. */
static void fx_expect(fx_t *f, const plan_action_t *want)
{
	fx_plan(f);
	for (size_t i = 0; i < f->n; i++)
		ck_assert_msg(act(f, i) == want[i], "job %zu: %s, not %s", i,
			      plan_action_name(act(f, i)),
			      plan_action_name(want[i]));
}

#define EXPECT(f, ...) fx_expect(f, (const plan_action_t[]){ __VA_ARGS__ })

/* Two full servers: a runs 4 GPUs on server 0 since a_start (a run from
 * a_before too if nonzero), c 4 on server 1 since c_start; b waits since
 * NOW-60; ckpt: a and c can checkpoint. */
static void two_full_at(fx_t *f, time_t a_before, time_t a_start,
			time_t c_start, bool ckpt, size_t *a, size_t *b,
			size_t *c)
{
	fx_init(f, 2, true);
	*a = fx_job(f, FIXED, NOW - 30000);
	*c = fx_job(f, FIXED, NOW - 30000);
	*b = fx_job(f, ELASTIC, NOW - 60);
	fx_run(f, *a, 0, 4, a_before, a_start, ckpt);
	fx_run(f, *c, 1, 4, 0, c_start, ckpt);
}

/* a most served (since NOW-20000), c since NOW-5000. */
static void two_full(fx_t *f, bool preempt, size_t *a, size_t *b,
		     size_t *c)
{
	two_full_at(f, 0, NOW - 20000, NOW - 5000, true, a, b, c);
	f->prm.preempt = preempt;
}

START_TEST(test_takes_from_most_served)
{
	fx_t f;
	size_t a, b, c;
	const plan_decision_t *d;

	two_full(&f, false, &a, &b, &c);
	fx_plan(&f);
	ck_assert_int_eq(act(&f, b), PLAN_WAIT);	/* without the rule */
	ck_assert_int_eq(act(&f, a), PLAN_KEEP);
	ck_assert_uint_eq(f.plan.npreempt, 0);
	fx_free(&f);

	two_full(&f, true, &a, &b, &c);
	fx_plan(&f);
	d = &f.plan.decisions[a];
	ck_assert_int_eq(d->action, PLAN_PREEMPT);
	ck_assert_int_eq(d->workers, 0);
	ck_assert_uint_eq(d->nslots, 0);
	ck_assert_msg(strstr(d->reason, "preempted for JobId=102"), "%s",
		      d->reason);
	ck_assert_int_eq(act(&f, c), PLAN_KEEP);
	d = &f.plan.decisions[b];
	ck_assert_int_eq(d->action, PLAN_START);
	ck_assert_int_eq(d->workers, 1);
	ck_assert_uint_eq(d->nslots, 1);
	ck_assert_uint_eq(d->slots[0].server, 0);	/* a's server */
	ck_assert_uint_eq(f.plan.npreempt, 1);
	ck_assert_uint_eq(f.plan.nstart, 1);
	ck_assert_uint_eq(f.plan.nwait, 0);
	ck_assert_uint_eq(f.plan.nkeep, 1);
	fx_free(&f);
}
END_TEST

/* The same waiting job with a cap its minimum is over (its owner's GPU
 * limit used up): no job is preempted for it, and it says why it waits. */
START_TEST(test_no_preemption_past_the_limits)
{
	fx_t f;
	size_t a, b, c;
	job_cap_t cap;

	two_full(&f, true, &a, &b, &c);
	cap_init(&cap);
	cap_lower_total(&cap, RES_GPU, 0, "QOS normal MaxTRESPerUser "
			"gres/gpu=4 leaves 0");
	f.j[b].cap = &cap;
	fx_plan(&f);
	ck_assert_uint_eq(f.plan.npreempt, 0);
	ck_assert_int_eq(act(&f, a), PLAN_KEEP);
	ck_assert_int_eq(act(&f, c), PLAN_KEEP);
	ck_assert_int_eq(act(&f, b), PLAN_WAIT);
	ck_assert_msg(strstr(f.plan.decisions[b].reason,
			     "gres/gpu=4 leaves 0"), "%s",
		      f.plan.decisions[b].reason);
	fx_free(&f);
}
END_TEST

/* Each condition alone keeps the most served job, the next one (c) then
 * being the candidate only when it qualifies. */
START_TEST(test_minimum_run)
{
	fx_t f;
	size_t a, b, c;

	/* a served long, but its last run began 200 s ago (< 300); c too */
	two_full_at(&f, NOW - 20000, NOW - 200, NOW - 299, true, &a, &b, &c);
	EXPECT(&f, PLAN_KEEP, PLAN_KEEP, PLAN_WAIT);	/* a, c, b */
	/* 100 s later a has run 300 s: preempted */
	f.prm.now = NOW + 100;
	EXPECT(&f, PLAN_PREEMPT, PLAN_KEEP, PLAN_START);
	fx_free(&f);
}
END_TEST

START_TEST(test_not_resizable_or_starting)
{
	fx_t f;
	size_t a, b, c;

	/* neither can checkpoint */
	two_full_at(&f, 0, NOW - 20000, NOW - 5000, false, &a, &b, &c);
	EXPECT(&f, PLAN_KEEP, PLAN_KEEP, PLAN_WAIT);	/* a, c, b */
	fx_free(&f);

	/* a's start in progress: c, the next most served, goes instead */
	two_full(&f, true, &a, &b, &c);
	f.j[a].starting = true;
	EXPECT(&f, PLAN_KEEP, PLAN_PREEMPT, PLAN_START);
	ck_assert_uint_eq(f.plan.decisions[b].slots[0].server, 1);
	/* both starting: nobody */
	f.j[c].starting = true;
	EXPECT(&f, PLAN_KEEP, PLAN_KEEP, PLAN_WAIT);
	fx_free(&f);
}
END_TEST

/*
 * A run is preempted only once it declared its checkpoint, whatever its
 * age: a, the most served, declared in its first run, not in its current
 * one (5 hours old): c goes instead. Once a declared, a goes; the
 * decision names the job it is preempted for and the rule.
 */
START_TEST(test_undeclared_run_not_preempted)
{
	fx_t f;
	size_t a, b, c;
	const plan_decision_t *d;

	two_full(&f, true, &a, &b, &c);
	job_model_started(f.m[a], NOW - 18000, 0, 4, 1);
	EXPECT(&f, PLAN_KEEP, PLAN_PREEMPT, PLAN_START);	/* a, c, b */
	ck_assert_int_eq(job_model_checkpoint(f.m[a], NOW - 17000, 0), 0);
	EXPECT(&f, PLAN_PREEMPT, PLAN_KEEP, PLAN_START);
	d = &f.plan.decisions[a];
	ck_assert_uint_eq(d->for_job, f.m[b]->job_id);
	ck_assert_msg(strstr(d->reason, "preempted for JobId=102 (preemption "
			     "with aging: "), "%s", d->reason);
	ck_assert_uint_eq(f.plan.decisions[b].for_job, 0);
	fx_free(&f);
}
END_TEST

/*
 * The margin: the most served job's attained service must exceed the
 * waiting job's key by more than 300 s x its 4 GPUs = 1200 GPU-s. a ran
 * 4 GPUs for 400 s (1600); b, served 1000 GPU-s before its preemption
 * 60 s ago, has key 940: 660 short of the margin. The same b with no
 * service (key -60) gets a's GPUs.
 */
START_TEST(test_margin)
{
	fx_t f;
	size_t a, b;

	fx_init(&f, 1, true);
	a = fx_job(&f, FIXED, NOW - 1000);
	b = fx_job(&f, ELASTIC, NOW - 5000);
	job_model_started(f.m[b], NOW - 2000, 0, 1, 1);
	job_model_preempting(f.m[b], NOW - 1000);
	job_model_requeued(f.m[b], NOW - 60);
	ck_assert(job_model_attained(f.m[b], NOW) == 1940);
	fx_run(&f, a, 0, 4, 0, NOW - 400, true);
	EXPECT(&f, PLAN_KEEP, PLAN_WAIT);
	/* b as if fresh */
	f.m[b]->attained = 0;
	EXPECT(&f, PLAN_PREEMPT, PLAN_START);
	fx_free(&f);
}
END_TEST

/*
 * Two waiting jobs: the one with the least key (waited longer) gets a's
 * GPU; the next takes one of the three a left free, no second
 * preemption (c, less served, would qualify).
 */
START_TEST(test_least_key_first)
{
	fx_t f;
	size_t a, b, c, old;
	const plan_decision_t *d;

	two_full(&f, true, &a, &b, &c);
	old = fx_job(&f, ELASTIC, NOW - 600);
	fx_plan(&f);
	ck_assert_int_eq(act(&f, a), PLAN_PREEMPT);
	ck_assert_int_eq(act(&f, c), PLAN_KEEP);
	d = &f.plan.decisions[a];
	ck_assert_msg(strstr(d->reason, "preempted for JobId=103"), "%s",
		      d->reason);
	ck_assert_int_eq(act(&f, old), PLAN_START);
	ck_assert_int_eq(act(&f, b), PLAN_START);
	ck_assert_int_eq(f.plan.decisions[b].workers, 1);
	ck_assert_uint_eq(f.plan.decisions[b].slots[0].server, 0);
	ck_assert_uint_eq(f.plan.npreempt, 1);
	ck_assert_uint_eq(f.plan.nstart, 2);
	fx_free(&f);
}
END_TEST

/*
 * A waiting job the rule cannot serve (8 GPUs: more than any one job's
 * servers) does not keep it from the next: b still gets a's GPU though
 * the big job waited longest.
 */
START_TEST(test_unservable_passed_over)
{
	fx_t f;
	size_t a, b, c;

	two_full(&f, true, &a, &b, &c);
	fx_job(&f, "optimus,mode=allreduce,min_workers=8,max_workers=8,"
	       "worker_gpus=1,worker_cpus=1,worker_mem=1,steps=1000000",
	       NOW - 5000);
	EXPECT(&f, PLAN_PREEMPT, PLAN_KEEP, PLAN_START, PLAN_WAIT);
	fx_free(&f);
}
END_TEST

/*
 * Aging: a, served 10000 GPU-s and preempted at NOW, waits while b runs
 * on the one GPU from NOW. Without aging a would wait until b's service
 * passes its own by the margin (10300 s); with it, a's key falls by a
 * second per second waited, and b gives the GPU back once
 * 2 x (t - NOW) - 10000 > 300, after 5150 s.
 */
START_TEST(test_aging_brings_back)
{
	fx_t f;
	size_t a, b;

	fx_init(&f, 1, true);
	f.free[0] = res_make(1, 1, 1);
	a = fx_job(&f, ELASTIC, NOW - 20000);
	b = fx_job(&f, ELASTIC, NOW - 100);
	job_model_started(f.m[a], NOW - 10000, 0, 1, 1);
	job_model_preempting(f.m[a], NOW);
	job_model_requeued(f.m[a], NOW);
	fx_run(&f, b, 0, 1, 0, NOW, true);
	f.prm.now = NOW + 5100;
	EXPECT(&f, PLAN_WAIT, PLAN_KEEP);
	f.prm.now = NOW + 5160;
	EXPECT(&f, PLAN_START, PLAN_PREEMPT);
	fx_free(&f);
}
END_TEST

/*
 * Two jobs on one GPU, planned every 60 s for 4 hours, the decisions
 * applied as an adapter applies them (START: a run; PREEMPT:
 * checkpoint and requeue). With the rule both run, in turns of a few
 * hundred seconds (each is preempted after its minimum run once the
 * other's wait outweighs the margin), and neither waits long; without it
 * the first started holds the GPU throughout.
 */
static void take_turns(bool preempt, double *served, unsigned *preempted,
		       double *longest_wait)
{
	fx_t f;
	time_t waited_from[2] = { NOW, NOW };

	fx_init(&f, 1, preempt);
	f.free[0] = res_make(1, 1, 1);
	for (int k = 0; k < 2; k++)
		fx_job(&f, "optimus,mode=allreduce,min_workers=1,"
		       "max_workers=1,worker_gpus=1,worker_cpus=1,"
		       "worker_mem=1,steps=1000000", NOW);
	*longest_wait = 0;
	for (time_t t = NOW; t < NOW + 4 * 3600; t += 60) {
		res_vec_t room = res_make(1, 1, 1);

		f.prm.now = t;
		for (size_t i = 0; i < 2; i++)
			if (f.j[i].running)
				room = res_sub(room, res_make(1, 1, 1));
		f.free[0] = room;
		fx_plan(&f);
		for (size_t i = 0; i < 2; i++) {
			const plan_decision_t *d = &f.plan.decisions[i];

			if (d->action == PLAN_PREEMPT) {
				job_model_preempting(f.m[i], t);
				job_model_requeued(f.m[i], t);
				f.j[i].running = false;
				f.j[i].nslots = 0;
				waited_from[i] = t;
			}
		}
		for (size_t i = 0; i < 2; i++) {
			const plan_decision_t *d = &f.plan.decisions[i];

			if (d->action == PLAN_START) {
				job_model_started(f.m[i], t, 0, 1, 1);
				ck_assert_int_eq(job_model_checkpoint(
					f.m[i], t, 0), 0);
				f.slot[i] = d->slots[0];
				f.j[i].slots = &f.slot[i];
				f.j[i].nslots = 1;
				f.j[i].running = true;
				if (difftime(t, waited_from[i]) > *longest_wait)
					*longest_wait = difftime(
						t, waited_from[i]);
			}
			if (!f.j[i].running &&
			    difftime(t, waited_from[i]) > *longest_wait)
				*longest_wait = difftime(t, waited_from[i]);
		}
	}
	for (size_t i = 0; i < 2; i++) {
		served[i] = job_model_attained(f.m[i], NOW + 4 * 3600);
		preempted[i] = f.m[i]->preemptions;
	}
	fx_free(&f);
}

START_TEST(test_aging_takes_turns)
{
	double served[2], longest;
	unsigned preempted[2];

	take_turns(false, served, preempted, &longest);
	ck_assert(served[0] == 0 || served[1] == 0);	/* one starves */
	ck_assert_uint_eq(preempted[0] + preempted[1], 0);

	take_turns(true, served, preempted, &longest);
	for (int i = 0; i < 2; i++) {
		ck_assert_msg(served[i] > 3600, "job %d served %.0f", i,
			      served[i]);
		ck_assert_uint_ge(preempted[i], 3);	/* and came back */
	}
	/* turns of the minimum run plus the margin's wait, about 7 min */
	ck_assert_msg(longest <= 900, "waited %.0f s", longest);
}
END_TEST

static Suite *preempt_suite(void)
{
	Suite *s = suite_create("preempt");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_takes_from_most_served);
	tcase_add_test(tc, test_no_preemption_past_the_limits);
	tcase_add_test(tc, test_minimum_run);
	tcase_add_test(tc, test_not_resizable_or_starting);
	tcase_add_test(tc, test_undeclared_run_not_preempted);
	tcase_add_test(tc, test_margin);
	tcase_add_test(tc, test_least_key_first);
	tcase_add_test(tc, test_unservable_passed_over);
	tcase_add_test(tc, test_aging_brings_back);
	tcase_add_test(tc, test_aging_takes_turns);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(preempt_suite());
}

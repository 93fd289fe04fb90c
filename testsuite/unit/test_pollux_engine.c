/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * test_pollux_engine.c - the measured engine's two boundaries: the truth
 * it asks (sim_truth_ops.h), here a small fake whose rounds can be
 * worked out by hand, with no measured application behind it (a read of
 * the application would crash), and the placement of the policies that
 * place their own jobs, the plan's (measured/place.h).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measured/place.h"
#include "measured/policy.h"
#include "check_run.h"

/*
 * The fake truth: an iteration of 8 s over the job's GPUs plus 1 s of
 * all-reduce per node beyond the first, each worth one unit of progress;
 * epochs of 100 units; at most 8 GPUs; more than 8 GPUs have no step
 * time. Calls are counted to see the engine ask.
 */
static struct {
	int max_replicas, split, step_time, gain, epoch_start, gradients;
} asked;

static int fake_max_replicas(const void *job, double bsz)
{
	(void)job;
	(void)bsz;
	asked.max_replicas++;
	return 8;
}

static void fake_split(const void *job, double bsz, int replicas,
		       int *atomic, int *accum)
{
	(void)job;
	asked.split++;
	*atomic = (int)(bsz / replicas);
	*accum = 0;
}

static int fake_step_time(const void *job, const sim_truth_run_t *run,
			  double *step, double *sync, char *err, size_t errlen)
{
	const px_spec_t *sp = job;
	int gpus = 0;

	asked.step_time++;
	for (size_t k = 0; k < run->nnodes; k++)
		gpus += run->node_workers[k];
	if (gpus > 8) {
		snprintf(err, errlen, "%s: no step time on %d GPUs",
			 sp->name, gpus);
		return -EDOM;
	}
	*sync = (double)run->nnodes - 1.0;
	*step = 8.0 / gpus + *sync;
	return 0;
}

static double fake_iteration_time(const void *job, double step,
				  double sync, int accum)
{
	(void)job;
	return step + (step - sync) * accum;
}

static int fake_gain(const void *job, const sim_truth_run_t *run,
		     int epoch, double *gain)
{
	(void)job;
	(void)run;
	(void)epoch;
	asked.gain++;
	*gain = 1.0;
	return 0;
}

static double fake_epoch_start(const void *job, int epoch)
{
	(void)job;
	asked.epoch_start++;
	return 100.0 * epoch;
}

static int fake_gradients(const void *job, double bsz, int epoch,
			  double *sqr, double *var)
{
	(void)job;
	asked.gradients++;
	*sqr = 1.0 + epoch;
	*var = bsz;
	return 0;
}

static double fake_iterations_to(const void *job, double bsz, int epoch)
{
	(void)job;
	(void)bsz;
	return 100.0 * (epoch + 1);
}

static double fake_work(const void *job)
{
	const px_spec_t *sp = job;

	return 100.0 * sp->epochs;
}

static int fake_loss(const void *job, double progress, double *loss)
{
	(void)job;
	(void)progress;
	(void)loss;
	return -EDOM;
}

static double fake_checkpoint(const void *job)
{
	(void)job;
	return 0.0;
}

static const sim_truth_ops_t fake_truth = {
	.max_replicas = fake_max_replicas,
	.split = fake_split,
	.step_time = fake_step_time,
	.iteration_time = fake_iteration_time,
	.gain = fake_gain,
	.epoch_start = fake_epoch_start,
	.work = fake_work,
	.loss = fake_loss,
	.gradients = fake_gradients,
	.checkpoint = fake_checkpoint,
	.oracle_split = fake_split,
	.iterations_to = fake_iterations_to,
};

/* A policy that starts every job at its submitted GPUs, placed as the
 * plan places them, in submission order, and watches the engine. */
typedef struct fixed {
	size_t plans;
	int nodes[4], replicas[4], nobs[4];
	/* Gradient estimates taken, by the epoch they were made in (the
	 * fake's |G|^2 is 1 + epoch). */
	long estimates[4][2];
} fixed_t;

static int fixed_plan(px_policy_t *p, px_sim_t *s, const size_t *active,
		      size_t n, int (*next)[PX_GPUS], int *nnext)
{
	fixed_t *f = p->state;
	int *want = calloc(n + 1, sizeof(int));
	size_t *order = calloc(n + 1, sizeof(size_t));
	int rc;

	ck_assert(want && order);
	f->plans++;
	for (size_t k = 0; k < n; k++) {
		const px_job_t *j = &s->jobs[active[k]];
		want[k] = j->spec->replicas;
		order[k] = k;
		if (j->nobs && active[k] < 4) {
			f->nodes[active[k]] = j->obs[j->nobs - 1].nodes;
			f->replicas[active[k]] = j->obs[j->nobs - 1].replicas;
			f->nobs[active[k]] = j->nobs;
		}
		if (active[k] < 4) {
			px_estimate_t *e;
			size_t ne = px_job_estimates_take(&s->jobs[active[k]],
							  &e);
			for (size_t q = 0; q < ne; q++)
				f->estimates[active[k]]
					    [(int)e[q].grad_sqr - 1] +=
					e[q].count;
			free(e);
		}
	}
	rc = px_place_in_order(s, active, order, n, want, next, nnext,
			       px_place_even);
	free(want);
	free(order);
	return rc;
}

static void fixed_destroy(px_policy_t *p)
{
	free(p);
}

static px_policy_t *fixed_new(fixed_t *f)
{
	px_policy_t *p = calloc(1, sizeof(*p));

	ck_assert_ptr_nonnull(p);
	*p = (px_policy_t){ "fixed", fixed_plan, fixed_destroy, f, NULL };
	return p;
}

static px_spec_t fake_job(const char *name, double submit, int replicas,
			  double bsz, int epochs)
{
	px_spec_t j = { .truth = &fake_truth, .app = NULL, .submit = submit,
			.replicas = replicas, .bsz = bsz, .epochs = epochs,
			.declared_epochs = epochs };

	snprintf(j.name, sizeof(j.name), "%s", name);
	return j;
}

/*
 * Two jobs at 0 s, planned at 60 s (the first round), each losing the
 * 30 s of its start. a: 1 GPU, 8 s an iteration, 200 units: epoch 0 ends
 * at 90 + 800 = 890 s, the job at 1690 s. b: 6 GPUs, on two nodes of the
 * plan's even split (3 + 3; a holds one GPU of node 0), 8/6 + 1 s an
 * iteration: epoch 0 ends in the round from 300 s, at 90 s of progress,
 * 10 units short, so 23 s later (rounded); epoch 1 in the round from
 * 540 s, 7 units short, 16 s later: 556 s. Plans every 60 s while a job
 * is active: 60, 120, ..., 1680 s, 28 of them.
 */
START_TEST(test_engine_asks_the_truth)
{
	px_spec_t jobs[2] = { fake_job("a", 0, 1, 32, 2),
			      fake_job("b", 0, 6, 96, 2) };
	px_workload_t w = { jobs, 2 };
	fixed_t f = { 0 };
	px_result_t r;
	char err[256];

	memset(&asked, 0, sizeof(asked));
	ck_assert_msg(px_sim_run(&w, NULL, fixed_new(&f), &r, err,
				 sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(r.run.ndone, 2);
	ck_assert_double_eq(sim_job_outcome_jct(&r.run.jobs[0]), 1690.0);
	ck_assert_double_eq(sim_job_outcome_jct(&r.run.jobs[1]), 556.0);
	ck_assert_double_eq(r.run.makespan, 1690.0);
	ck_assert_double_eq(sim_job_outcome_wait(&r.run.jobs[0]), 60.0);
	ck_assert_double_eq(sim_job_outcome_wait(&r.run.jobs[1]), 60.0);
	ck_assert_double_eq(r.run.jobs[0].lost, 30.0);
	ck_assert_double_eq(r.run.jobs[1].lost, 30.0);
	ck_assert_double_eq(r.run.jobs[0].gpu_seconds, 1.0 * (1690 - 60));
	ck_assert_double_eq(r.run.jobs[1].gpu_seconds, 6.0 * (556 - 60));
	ck_assert_uint_eq(r.run.restarts, 0);
	ck_assert_uint_eq(f.plans, 28);
	/* What the jobs ran in and reported, as the engine recorded it. */
	ck_assert_int_eq(f.nodes[0], 1);
	ck_assert_int_eq(f.replicas[0], 1);
	ck_assert_int_eq(f.nodes[1], 2);
	ck_assert_int_eq(f.replicas[1], 6);
	ck_assert_int_eq(f.nobs[1], 1);
	/* An estimate every 10 steps (iterations of 8 s from 90 s): 10 in
	 * epoch 0, and by the last plan at 1680 s (198.75 steps) 9 of
	 * epoch 1's; the last one, at its end, no plan takes. */
	ck_assert_int_eq(f.estimates[0][0], 10);
	ck_assert_int_eq(f.estimates[0][1], 9);
	/* Every question went to the truth given. */
	ck_assert_int_eq(asked.max_replicas, 2);
	ck_assert_int_eq(asked.split, 2);
	ck_assert_int_gt(asked.step_time, 0);
	ck_assert_int_gt(asked.gain, 0);
	ck_assert_int_gt(asked.epoch_start, 0);
	ck_assert_int_gt(asked.gradients, 0);
	px_result_free(&r);
}
END_TEST

/* The truth's error stops the run, its message the caller's. */
START_TEST(test_engine_stops_on_the_truths_error)
{
	px_spec_t jobs[1] = { fake_job("wide", 0, 12, 96, 1) };
	px_workload_t w = { jobs, 1 };
	fixed_t f = { 0 };
	px_result_t r;
	char err[256] = "";

	ck_assert_int_eq(px_sim_run(&w, NULL, fixed_new(&f), &r, err,
				    sizeof(err)), -EDOM);
	ck_assert_msg(strstr(err, "wide: no step time on 12 GPUs"), "%s",
		      err);
	px_result_free(&r);
}
END_TEST

/* The oracles' reads go through the truth too. */
START_TEST(test_oracle_reads_the_truth)
{
	px_spec_t spec = fake_job("o", 0, 2, 64, 3);
	px_job_t j = { .core = { .ops = spec.truth, .data = &spec },
		       .spec = &spec, .epoch = 1 };

	/* 4 GPUs on one node: 8/4 s. */
	ck_assert_double_eq(px_job_true_step(&j, 4), 2.0);
	/* 8 GPUs on two nodes: 8/8 + 1 s. */
	ck_assert_double_eq(px_job_true_step(&j, 8), 2.0);
	ck_assert_double_eq(px_job_true_step(&j, 12), -1.0);
	/* Iterations from the end of epoch 1 to the end of epoch 2. */
	ck_assert_double_eq(px_job_remaining_steps(&j), 100.0);
	ck_assert_int_eq(px_job_max_replicas(&j), 8);
}
END_TEST

static int gpus_on(const int *alloc, int n, int node)
{
	int c = 0;

	for (int g = 0; g < n; g++)
		c += alloc[g] == node;
	return c;
}

/* GPUs px_place_even gave a job of `want` (alloc[] from 0). */
static int placed(int *free_, int want, int *alloc)
{
	int n = 0;

	ck_assert_int_eq(px_place_even(free_, want, alloc, &n), 0);
	return n;
}

/* Only nodes 3 and 5 have free GPUs: 3 and 4. */
static void two_nodes_free(int *free_)
{
	memset(free_, 0, PX_NODES * sizeof(*free_));
	free_[3] = 3;
	free_[5] = 4;
}

/*
 * The plan's placement (alloc/placement.c): the fewest nodes that hold an
 * even split, nodes with the most free GPUs first (lowest index on ties),
 * a split's extra GPU on the node with fewer free; none when no even
 * split fits, whatever the free GPUs add up to.
 */
START_TEST(test_place_even_is_the_plans)
{
	int free_[PX_NODES], alloc[PX_GPUS], n;

	for (int k = 0; k < PX_NODES; k++)
		free_[k] = PX_NODE_GPUS;
	ck_assert_int_eq(n = placed(free_, 6, alloc), 6);
	ck_assert_int_eq(gpus_on(alloc, n, 0), 3);
	ck_assert_int_eq(gpus_on(alloc, n, 1), 3);
	ck_assert_int_eq(free_[0], 1);
	ck_assert_int_eq(free_[1], 1);
	/* Most free first: 2 GPUs on node 2, not on a node with 1 left. */
	ck_assert_int_eq(n = placed(free_, 2, alloc), 2);
	ck_assert_int_eq(gpus_on(alloc, n, 2), 2);
	/* 5 on nodes of 4 and 3 free: 2 + 3, the extra one on the node
	 * with fewer free. */
	two_nodes_free(free_);
	ck_assert_int_eq(n = placed(free_, 5, alloc), 5);
	ck_assert_int_eq(alloc[0], 5);
	ck_assert_int_eq(gpus_on(alloc, n, 5), 2);
	ck_assert_int_eq(gpus_on(alloc, n, 3), 3);
	/* 7 on the same: 3 + 4 does not fit the node of 3, and there is no
	 * third node: nothing placed, nothing taken. */
	two_nodes_free(free_);
	ck_assert_int_eq(placed(free_, 7, alloc), 0);
	ck_assert_int_eq(free_[3], 3);
	ck_assert_int_eq(free_[5], 4);
	/* The peer's rule, for comparison: 4 then 3. */
	n = 0;
	ck_assert_int_eq(px_place_most_free(free_, 7, alloc, &n), 0);
	ck_assert_int_eq(n, 7);
	ck_assert_int_eq(gpus_on(alloc, n, 5), 4);
}
END_TEST

/* Free GPUs on nodes 0, 1, 2 only: a, b, c. */
static void three_nodes_free(int *free_, int a, int b, int c)
{
	memset(free_, 0, PX_NODES * sizeof(*free_));
	free_[0] = a;
	free_[1] = b;
	free_[2] = c;
}

/*
 * The Slurm baselines' packing (Slurm's select/cons_tres as modelled):
 * whole free nodes first, the rest on the fullest node that holds it
 * (lowest index on ties), no even split required; when no node holds the
 * rest it is spread over the nodes with the most free.
 */
START_TEST(test_place_slurm_packs_as_slurm)
{
	int free_[PX_NODES], alloc[PX_GPUS], n = 0;

	/* 6 GPUs on nodes of 2, 4 and 3 free: the whole node, then the 2
	 * on the node of 2 (the fullest that holds them): 4 + 2 where the
	 * plugin's rule puts 3 + 3. */
	three_nodes_free(free_, 2, 4, 3);
	ck_assert_int_eq(px_place_slurm(free_, 6, alloc, &n), 0);
	ck_assert_int_eq(n, 6);
	ck_assert_int_eq(gpus_on(alloc, n, 1), 4);
	ck_assert_int_eq(gpus_on(alloc, n, 0), 2);
	ck_assert_int_eq(free_[0], 0);
	ck_assert_int_eq(free_[1], 0);
	ck_assert_int_eq(free_[2], 3);
	three_nodes_free(free_, 2, 4, 3);
	ck_assert_int_eq(n = placed(free_, 6, alloc), 6);
	ck_assert_int_eq(gpus_on(alloc, n, 1), 3);
	ck_assert_int_eq(gpus_on(alloc, n, 2), 3);
	/* 2 GPUs with every node free but node 3 (2 free) and node 5 (2
	 * free): the fullest that holds them, lowest index on ties; no
	 * whole node is broken. */
	for (int k = 0; k < PX_NODES; k++)
		free_[k] = PX_NODE_GPUS;
	free_[3] = free_[5] = 2;
	n = 0;
	ck_assert_int_eq(px_place_slurm(free_, 2, alloc, &n), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(gpus_on(alloc, n, 3), 2);
	/* 7 GPUs and no whole node free: across nodes of 3, 3 and 1, where
	 * no even split fits and the plugin's rule places nothing. */
	three_nodes_free(free_, 3, 1, 3);
	n = 0;
	ck_assert_int_eq(px_place_slurm(free_, 7, alloc, &n), 0);
	ck_assert_int_eq(n, 7);
	ck_assert_int_eq(gpus_on(alloc, n, 0), 3);
	ck_assert_int_eq(gpus_on(alloc, n, 2), 3);
	ck_assert_int_eq(gpus_on(alloc, n, 1), 1);
	for (int k = 0; k < PX_NODES; k++)
		ck_assert_int_eq(free_[k], 0);
	three_nodes_free(free_, 3, 1, 3);
	ck_assert_int_eq(placed(free_, 7, alloc), 0);
	ck_assert_int_eq(free_[0] + free_[1] + free_[2], 7);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pollux_engine");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_engine_asks_the_truth);
	tcase_add_test(tc, test_engine_stops_on_the_truths_error);
	tcase_add_test(tc, test_oracle_reads_the_truth);
	tcase_add_test(tc, test_place_even_is_the_plans);
	tcase_add_test(tc, test_place_slurm_packs_as_slurm);
	suite_add_tcase(s, tc);
	return check_run(s);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * bench_alloc.c - allocation + placement time at the Optimus paper's scale
 * (4,000 jobs, ~100,000 tasks, 16,000 nodes; the paper needs < 5 s on one
 * core) and at 10x, with peak memory, and ratios against baselines measured
 * in the same run: the paper's 5 s, and a naive rescan greedy (every gain
 * recomputed each step) on a 1/10 instance. Then a whole plan_run under
 * Policy=goodput against Policy=optimus on the same records (4,000
 * adaptive jobs on 16,000 GPUs, and 10x), and under Policy=goodput again
 * with the running jobs saying the all-reduce part of their steps at two
 * batches a GPU, so that their fits find an overlap (gamma) and the plan
 * searches their best batches.
 *
 * Usage: bench_alloc [scale...]   (default: 1 10)
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <gsl/gsl_errno.h>

#include "alloc/alloc.h"
#include "alloc_synth.h"
#include "alloc/placement.h"
#include "job/job_model.h"
#include "plan/plan.h"
#include "plan/plan_interval.h"

#define PAPER_SECONDS 5.0

typedef struct instance {
	size_t njobs, nservers;
	alloc_job_t *jobs;
	fixture_speed_t *speeds;
	fixture_loss_t *losses;
	res_vec_t *servers;
	res_vec_t capacity;
} instance_t;

/* Milliseconds on a clock: CLOCK_MONOTONIC (wall) or
 * CLOCK_PROCESS_CPUTIME_ID (this process' CPU, for a shared host). */
static double clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/*
 * Servers of 32 CPUs, 128 GB and 0-4 GPUs, each already 10-65% used by
 * other work, so that the free capacity is heterogeneous and binds at about
 * 25 tasks per job. FIFO's requested sizes: 2-8 PS and 4-20 workers.
 */
static void instance_make(instance_t *in, double scale, uint64_t seed)
{
	uint64_t st = seed;

	in->njobs = (size_t)(4000 * scale);
	in->nservers = (size_t)(16000 * scale);
	in->jobs = calloc(in->njobs, sizeof(*in->jobs));
	in->speeds = calloc(in->njobs, sizeof(*in->speeds));
	in->losses = calloc(in->njobs, sizeof(*in->losses));
	in->servers = calloc(in->nservers, sizeof(*in->servers));
	if (!in->jobs || !in->speeds || !in->losses || !in->servers) {
		fprintf(stderr, "bench_alloc: out of memory\n");
		exit(1);
	}
	fixture_jobs(in->jobs, in->speeds, in->losses, in->njobs, seed);
	for (size_t j = 0; j < in->njobs; j++) {
		in->jobs[j].req_ps = 2 + fixture_rand(&st) % 7;
		in->jobs[j].req_workers = 4 + fixture_rand(&st) % 17;
	}
	in->capacity = res_make(0, 0, 0);
	for (size_t s = 0; s < in->nservers; s++) {
		double used = fixture_uniform(&st, 0.1, 0.65);
		in->servers[s] = res_make(32 * (1 - used), 128 * (1 - used),
					  (double)(fixture_rand(&st) % 5));
		in->capacity = res_add(in->capacity, in->servers[s]);
	}
}

static void instance_free(instance_t *in)
{
	free(in->jobs);
	free(in->speeds);
	free(in->losses);
	free(in->servers);
}

static long tasks_of(const alloc_result_t *r)
{
	long n = 0;

	for (size_t i = 0; i < r->njobs; i++)
		n += r->grants[i].ps + r->grants[i].workers;
	return n;
}

/* Allocate with `run`, then place; print and return the total time. */
static double bench_one(const char *name, alloc_run_fn run,
			const instance_t *in, bool place, double share)
{
	alloc_params_t prm;
	alloc_result_t r;
	place_result_t pr = { 0 };
	place_job_t *pj = calloc(in->njobs + 1, sizeof(*pj));
	double t0, t1, t2;
	size_t n;

	/* share < 1 leaves headroom against fragmentation at placement */
	alloc_params_init(&prm, in->capacity);
	for (int k = 0; k < RES_NUM; k++)
		prm.capacity.v[k] *= share;
	prm.total_units = (long)in->nservers * 8;
	t0 = now_ms();
	if (!pj || run(in->jobs, in->njobs, &prm, &r)) {
		fprintf(stderr, "bench_alloc: %s failed: %s\n", name, r.err);
		exit(1);
	}
	t1 = now_ms();
	n = placement_jobs_from_alloc(in->jobs, &r, pj);
	if (place && placement_run(in->servers, in->nservers, pj, n, &pr)) {
		fprintf(stderr, "bench_alloc: placement failed: %s\n", pr.err);
		exit(1);
	}
	t2 = now_ms();
	printf("  %-16s jobs %6zu  servers %6zu  tasks %7ld  left out %5zu  "
	       "alloc %8.1f ms", name, in->njobs, in->nservers,
	       run == alloc_quality_run ? r.units_used : tasks_of(&r),
	       r.nleft_out, t1 - t0);
	if (place)
		printf("  place %7.1f ms (unfit %zu)  total %8.1f ms",
		       t2 - t1, pr.nunfit, t2 - t0);
	printf("\n");
	placement_result_free(&pr);
	alloc_result_free(&r);
	free(pj);
	return t2 - t0;
}

static bool same_grants(const instance_t *in)
{
	alloc_params_t prm;
	alloc_result_t a, b;
	bool same = true;

	alloc_params_init(&prm, in->capacity);
	alloc_optimus_run(in->jobs, in->njobs, &prm, &a);
	fixture_naive_optimus(in->jobs, in->njobs, &prm, &b);
	for (size_t i = 0; i < in->njobs; i++)
		same = same && a.grants[i].ps == b.grants[i].ps &&
		       a.grants[i].workers == b.grants[i].workers;
	alloc_result_free(&a);
	alloc_result_free(&b);
	return same;
}

/* Heap greedy vs the naive rescan on a 1/10 instance. */
static void bench_baseline(void)
{
	instance_t in;
	double heap_ms, naive_ms;

	instance_make(&in, 0.1, 42);
	printf("baseline, 1/10 of the paper's scale:\n");
	heap_ms = bench_one("optimus (heap)", alloc_optimus_run, &in, false, 1);
	naive_ms = bench_one("optimus (rescan)", fixture_naive_optimus, &in,
			     false, 1);
	printf("  rescan / heap allocation time: %.1fx (same grants: %s)\n",
	       naive_ms / heap_ms, same_grants(&in) ? "yes" : "NO");
	bench_one("tetris", alloc_tetris_run, &in, true, 1);
	instance_free(&in);
}

static void bench_scale(double scale)
{
	instance_t in;
	double ms;

	instance_make(&in, scale, 42);
	printf("scale %gx of the paper's (4000 jobs, ~100000 tasks, "
	       "16000 nodes):\n", scale);
	ms = bench_one("optimus", alloc_optimus_run, &in, true, 1);
	printf("  paper's %.0f s / optimus alloc+place: %.0fx faster\n",
	       PAPER_SECONDS * scale, PAPER_SECONDS * scale * 1e3 / ms);
	bench_one("optimus @90% cap", alloc_optimus_run, &in, true, 0.9);
	bench_one("optimus @80% cap", alloc_optimus_run, &in, true, 0.8);
	bench_one("quality", alloc_quality_run, &in, false, 1);
	bench_one("drf", alloc_drf_run, &in, true, 1);
	bench_one("fifo", alloc_fifo_run, &in, true, 1);
	printf("  peak RSS so far: %.1f MB\n", peak_rss_kb() / 1024.0);
	instance_free(&in);
}

/* ---- plan_run under Policy=goodput ---- */

#define GP_NODE_GPUS 4
#define GP_MAX_WORKERS 32
/* packed from where the previous job ended: one server more than whole
 * servers would need */
#define GP_MAX_SLOTS (GP_MAX_WORKERS / GP_NODE_GPUS + 1)
#define GP_NOW 1000000

/* A planning interval: adaptive all-reduce jobs as the plan's records,
 * the cluster's servers, half the jobs (in submission order) running. */
typedef struct gp_instance {
	size_t njobs, nservers;
	job_model_t **models;
	plan_input_t *in;
	place_slot_t *slots;	/* GP_MAX_SLOTS per job */
	res_vec_t *usage;	/* likewise */
	res_vec_t *capacity;	/* per server */
	int running;
	/* The running jobs' truth hides its all-reduce under compute and
	 * they say its part (gp_step_overlap): their fits have a gamma. */
	bool overlap;
} gp_instance_t;

static double now_cpu_ms(void)
{
	return clock_ms(CLOCK_PROCESS_CPUTIME_ID);
}

/* The synthetic truth: a micro-step's compute, linear in the per-GPU
 * batch, and an all-reduce across GPUs that is slower across nodes. */
static double gp_compute(const double *c, int local)
{
	return c[0] + c[1] * local;
}

static double gp_sync(const double *c, int w, int n)
{
	return w > 1 ? c[2] * (n > 1 ? 2.0 : 1.0) : 0.0;
}

/* Seconds per step: the compute repeated per micro-step, then the
 * all-reduce. */
static double gp_step(const double *c, int w, int n, int local, int accum)
{
	return gp_compute(c, local) * (accum + 1) + gp_sync(c, w, n);
}

/* The same truth with its all-reduce under the last micro-step's compute
 * (gamma 3, models/goodput.h): the step, and in *sync the part of it the
 * step waited for, as a job says it (sync_seconds). */
static double gp_step_overlap(const double *c, int w, int n, int local,
			      int accum, double *sync)
{
	double g = gp_compute(c, local), s = gp_sync(c, w, n);
	double last = cbrt(g * g * g + s * s * s);

	*sync = last - g;
	return g * accum + last;
}

/*
 * One adaptive job (Policy=goodput): 1 to 32 GPUs, B0 32 to 128, a
 * submitted batch 1 to 4 times B0, gradient noise scale 10 to 1000 B0,
 * one measured step (its fit from the first step), epochs= and
 * epoch_steps= given.
 */
static job_model_t *gp_job(uint32_t id, uint64_t *st, double *coef)
{
	optimus_hints_t h;
	job_model_t *m;
	double b0 = 32 << (fixture_rand(st) % 3);
	goodput_limits_t lim = { b0, b0 * 64, 8, 256, 15 };

	hints_init(&h, HINTS_POLICY_OPTIMUS);
	h.mode = HINTS_MODE_ALLREDUCE;
	h.min_ps = h.max_ps = 0;
	h.min_workers = 1;
	h.max_workers = 1u << (fixture_rand(st) % 6);
	h.worker_res = (hints_res_t){ .cpus = 4, .mem_mb = 16384, .gpus = 1 };
	h.batch = (uint64_t)(b0 * (1 + fixture_rand(st) % 4));
	h.epochs = 10 + fixture_rand(st) % 90;
	h.epoch_steps = 100 + fixture_rand(st) % 2000;
	m = job_model_new(id, 0, &h, GP_NOW - 7200 + (time_t)id);
	coef[0] = fixture_uniform(st, 0.01, 0.05);
	coef[1] = fixture_uniform(st, 1e-4, 1e-3);
	coef[2] = fixture_uniform(st, 0.005, 0.05);
	if (!m || job_model_batch_limits(m, (double)h.batch, &lim, NULL, 0) ||
	    job_model_gradients(m, 1.0, fixture_uniform(st, 10, 1000),
				b0, 1, NULL, 0) ||
	    job_model_batch_sample(m, 1, 1, (int)h.batch, 0,
				   gp_step(coef, 1, 1, (int)h.batch, 0))) {
		fprintf(stderr, "bench_alloc: job %u refused\n", id);
		exit(1);
	}
	return m;
}

/* Job i runs on w GPUs packed from server *next on, if they are there. */
static bool gp_run(gp_instance_t *g, size_t i, int w, size_t *next,
		   int *free_, const double *coef)
{
	place_slot_t *sl = &g->slots[i * GP_MAX_SLOTS];
	res_vec_t *us = &g->usage[i * GP_MAX_SLOTS];
	job_model_t *m = g->models[i];
	size_t ns = 0;
	int left = w;

	while (left > 0 && *next < g->nservers) {
		int take = free_[*next] < left ? free_[*next] : left;
		if (take > 0) {
			sl[ns] = (place_slot_t){ .server = (uint32_t)*next,
						 .ps = 0, .workers = take };
			us[ns++] = res_make(4.0 * take, 16384.0 * take, take);
			free_[*next] -= take;
			left -= take;
		}
		if (!free_[*next])
			(*next)++;
	}
	if (left > 0)
		return false;
	job_model_started(m, GP_NOW - 3600, 0, w, (int)ns);
	(void)job_model_checkpoint(m, GP_NOW - 3600, 0);
	int local = (int)ceil(m->hints.batch / (double)w);
	double sync = 0.0, step = gp_step(coef, w, (int)ns, local, 0);
	if (g->overlap && w > 1) {
		/* also at twice its batch a GPU, each step's all-reduce part
		 * said: a fit that finds gamma */
		double sync2, step2 = gp_step_overlap(coef, w, (int)ns,
						      2 * local, 0, &sync2);
		(void)job_model_batch_sample_sync(m, w, (int)ns, 2 * local, 0,
						  step2, sync2);
		step = gp_step_overlap(coef, w, (int)ns, local, 0, &sync);
	}
	(void)job_model_batch_sample_sync(m, w, (int)ns, local, 0, step,
					  sync);
	(void)job_model_progress(m, GP_NOW - 60, 3000, 1.0 / step, 1);
	g->in[i].state = PLAN_INPUT_RUNNING;
	g->in[i].slots = sl;
	g->in[i].usage = us;
	g->in[i].nslots = ns;
	g->running++;
	return true;
}

static void gp_make(gp_instance_t *g, double scale, uint64_t seed,
		    bool overlap)
{
	uint64_t st = seed;
	size_t next = 0;
	int *free_;

	memset(g, 0, sizeof(*g));
	g->overlap = overlap;
	g->njobs = (size_t)(4000 * scale);
	g->nservers = (size_t)(4000 * scale);	/* 16,000 GPUs at 1x */
	g->models = calloc(g->njobs, sizeof(*g->models));
	g->in = calloc(g->njobs, sizeof(*g->in));
	g->slots = calloc(g->njobs * GP_MAX_SLOTS, sizeof(*g->slots));
	g->usage = calloc(g->njobs * GP_MAX_SLOTS, sizeof(*g->usage));
	g->capacity = calloc(g->nservers, sizeof(*g->capacity));
	free_ = calloc(g->nservers, sizeof(*free_));
	if (!g->models || !g->in || !g->slots || !g->usage || !g->capacity ||
	    !free_) {
		fprintf(stderr, "bench_alloc: out of memory\n");
		exit(1);
	}
	for (size_t s = 0; s < g->nservers; s++) {
		g->capacity[s] = res_make(64, 262144, GP_NODE_GPUS);
		free_[s] = GP_NODE_GPUS;
	}
	for (size_t i = 0; i < g->njobs; i++) {
		double coef[3];
		g->models[i] = gp_job((uint32_t)i + 1, &st, coef);
		g->in[i] = (plan_input_t){ .model = g->models[i],
					   .state = PLAN_INPUT_QUEUED,
					   .held = true };
		/* The first half of the jobs at a size of their own. */
		if (i < g->njobs / 2)
			(void)gp_run(g, i, 1 + (int)(fixture_rand(&st) %
				g->models[i]->hints.max_workers), &next, free_,
				coef);
	}
	free(free_);
}

static void gp_free(gp_instance_t *g)
{
	for (size_t i = 0; i < g->njobs; i++)
		job_model_free(g->models[i]);
	free(g->models);
	free(g->in);
	free(g->slots);
	free(g->usage);
	free(g->capacity);
}

/*
 * One plan of g under `policy` (the records' state is left as it was: the
 * plan reads them only): plan_interval_prepare and plan_run timed apart,
 * in CPU time; the jobs left waiting while a GPU is free (each job needs
 * 1 GPU at least), which a plan that places every job that fits leaves at 0.
 */
static double gp_plan(const char *name, const gp_instance_t *g,
		      plan_policy_t policy)
{
	res_vec_t *room = calloc(g->nservers, sizeof(*room));
	plan_job_t *jobs = calloc(g->njobs, sizeof(*jobs));
	size_t *which = calloc(g->njobs, sizeof(*which));
	plan_params_t conf, prm;
	size_t n, waiting = 0, started = 0;
	double t0, t1, t2, free_gpus = 0;
	long rss0 = peak_rss_kb();
	plan_t p;

	if (!room || !jobs || !which) {
		fprintf(stderr, "bench_alloc: out of memory\n");
		exit(1);
	}
	memcpy(room, g->capacity, g->nservers * sizeof(*room));
	plan_params_init(&conf);
	conf.policy = policy;
	conf.interval = 60;
	conf.preempt = plan_preempt_default(policy);
	t0 = now_cpu_ms();
	n = plan_interval_prepare(g->in, g->njobs, GP_NOW, room, g->nservers,
				  &conf, NULL, NULL, jobs, which, &prm);
	t1 = now_cpu_ms();
	if (plan_run(jobs, n, room, g->nservers, &prm, &p)) {
		fprintf(stderr, "bench_alloc: plan_run (%s) failed: %s\n",
			name, p.err);
		exit(1);
	}
	t2 = now_cpu_ms();
	for (size_t k = 0; k < n; k++) {
		waiting += p.decisions[k].action == PLAN_WAIT;
		started += p.decisions[k].action == PLAN_START;
	}
	/* What the decisions hold: a kept job its slots, a start or a
	 * resize the slots planned. */
	free_gpus = (double)g->nservers * GP_NODE_GPUS;
	for (size_t k = 0; k < n; k++) {
		const plan_decision_t *d = &p.decisions[k];
		const plan_input_t *in = &g->in[which[k]];
		if (d->action == PLAN_KEEP)
			for (size_t q = 0; q < in->nslots; q++)
				free_gpus -= in->slots[q].workers;
		if (d->action == PLAN_START || d->action == PLAN_RESIZE)
			for (size_t q = 0; q < d->nslots; q++)
				free_gpus -= d->slots[q].workers;
	}
	printf("  %-22s jobs %6zu (running %d)  GPUs %6zu  prepare %7.1f ms  "
	       "plan_run %8.1f ms CPU  started %5zu  waiting %5zu  "
	       "GPUs left free %6.0f  peak RSS %.1f -> %.1f MB\n", name,
	       g->njobs, g->running, g->nservers * GP_NODE_GPUS, t1 - t0,
	       t2 - t1, started, waiting, free_gpus, rss0 / 1024.0,
	       peak_rss_kb() / 1024.0);
	plan_free(&p);
	free(room);
	free(jobs);
	free(which);
	return t2 - t1;
}

static void bench_goodput(double scale)
{
	gp_instance_t g;

	gp_make(&g, scale, 42, false);
	printf("plan_run at %gx (%zu adaptive jobs, %zu GPUs on %zu servers "
	       "of %d):\n", scale, g.njobs, g.nservers * GP_NODE_GPUS,
	       g.nservers, GP_NODE_GPUS);
	double base = gp_plan("Policy=optimus", &g, PLAN_OPTIMUS);
	double t = gp_plan("Policy=goodput", &g, PLAN_GOODPUT);
	printf("  goodput/optimus plan_run CPU: %.2fx (target: %s at %gx)\n",
	       base > 0 ? t / base : 0.0, scale >= 10 ? "1 s" : "100 ms",
	       scale);
	gp_free(&g);
	/* The same jobs, the running ones saying their all-reduce part of
	 * steps at two batches a GPU: gamma fitted, the best batch searched. */
	gp_make(&g, scale, 42, true);
	t = gp_plan("Policy=goodput, gamma", &g, PLAN_GOODPUT);
	printf("  goodput with gamma/optimus plan_run CPU: %.2fx\n",
	       base > 0 ? t / base : 0.0);
	gp_free(&g);
}

int main(int argc, char **argv)
{
	/* GSL's default error handler aborts: the models return errors. */
	gsl_set_error_handler_off();
	bench_baseline();
	if (argc < 2) {
		bench_scale(1);
		bench_scale(10);
		bench_goodput(1);
		bench_goodput(10);
	}
	for (int i = 1; i < argc; i++) {
		bench_scale(atof(argv[i]));
		bench_goodput(atof(argv[i]));
	}
	return 0;
}

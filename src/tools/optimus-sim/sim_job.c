/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_job.c - one simulated job: its hidden truth and injected errors, the
 * pre-run speed samples and progress reports it feeds its job_model, and
 * the servers it holds.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "sim_curves.h"
#include "sim_decision.h"
#include "sim_state.h"
#include "util/errmsg.h"

/* Pre-run (p, w) combinations (the paper uses 5-10). */
static const int prerun[][2] = { { 1, 1 }, { 1, 2 }, { 2, 2 }, { 2, 4 },
				 { 4, 4 }, { 3, 6 }, { 4, 8 }, { 8, 8 } };
/* The oracle's exact samples: every pair of these counts. */
static const int oracle_counts[] = { 1, 2, 3, 4, 6, 8, 12, 16 };
/* Loss reports per interval at most; per half epoch otherwise. */
#define MAX_REPORTS 8
/* Measurement noise of a report (relative), apart from injected errors. */
#define SPEED_JITTER 0.02
#define LOSS_JITTER 0.003
static double draw_error(gsl_rng *rng, double sigma)
{
	double e = sigma > 0.0 ? gsl_ran_gaussian(rng, sigma) : 0.0;

	return fmin(fmax(e, -0.6), 2.0);
}

int sim_job_init(sim_state_t *s, sim_job_t *j, uint32_t id,
		 const sim_job_spec_t *spec)
{
	memset(j, 0, sizeof(*j));
	j->core.id = id;
	j->spec = *spec;
	j->rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!j->rng)
		return -ENOMEM;
	/* Same job, same truth and errors whatever the policy. */
	gsl_rng_set(j->rng, s->cfg->seed * 1000003UL + id + 1);
	int rc = sim_truth_init(&j->truth, spec->model, spec->mode,
				spec->size, s->cfg->delta, j->rng);
	if (!rc && spec->curve)
		rc = sim_curve_truth(&j->truth, spec->curve, spec->size);
	if (rc)
		return rc;
	j->core.ops = &sim_catalog_truth;
	j->core.data = &j->truth;
	double es = draw_error(j->rng, s->cfg->speed_err);
	double ec = draw_error(j->rng, s->cfg->conv_err);
	j->speed_bias = s->cfg->oracle ? 1.0 : 1.0 + es;
	/* Reported losses follow l(k * scale): for Eqn. 1's curve the
	 * predicted steps to converge scale by about (1 + ec). */
	j->conv_scale = s->cfg->oracle ? 1.0 : pow(1.0 + ec, -2.0);
	j->res.id = id;
	j->res.model = spec->model->name;
	j->res.sync = j->truth.mode == SPEED_SYNC;
	j->core.outcome = (sim_job_outcome_t){ .submit = spec->arrival,
					  .start = -1.0, .end = -1.0 };
	j->res.total_steps = j->core.ops->work(j->core.data);
	j->res.loss0 = j->res.loss_end = j->res.window_loss =
		sim_job_true_loss(j, 0.0);
	return 0;
}

double sim_job_true_loss(const sim_job_t *j, double step)
{
	double loss = NAN;

	(void)j->core.ops->loss(j->core.data, step, &loss);
	return loss;
}

/* Steps of its epochs (the catalogue's are all as long as the first). */
static double job_epoch_steps(const sim_job_t *j)
{
	return j->core.ops->epoch_start(j->core.data, 1);
}

/* True steps per second of the job in `run`, its parameters assigned as
 * the configuration says (paa); 0 where it has no step time. */
static double true_speed(const sim_state_t *s, const sim_job_t *j,
			 sim_truth_run_t run)
{
	sim_truth_sample_t m;

	run.paa = s->cfg->paa;
	if (sim_truth_measure(j->core.ops, j->core.data, &run, 0, &m, NULL,
			      0) ||
	    !m.moves)
		return 0.0;
	return m.rate;
}

void sim_job_free(sim_job_t *j)
{
	job_model_free(j->core.jm);
	gsl_rng_free(j->rng);
	sim_hold_free(&j->core.hold);
	j->core.jm = NULL;
	j->rng = NULL;
}

static void job_hints(const sim_state_t *s, const sim_job_t *j,
		      optimus_hints_t *h)
{
	const sim_model_t *m = j->spec.model;
	bool mllib = m->family == SIM_FAMILY_MLLIB;

	hints_init(h, mllib ? HINTS_POLICY_QUALITY : HINTS_POLICY_OPTIMUS);
	h->mode = j->truth.mode == SPEED_SYNC ? HINTS_MODE_SYNC :
						HINTS_MODE_ASYNC;
	h->min_ps = h->min_workers = 1;
	h->max_ps = m->max_ps;
	h->max_workers = m->max_workers;
	if (s->cfg->fixed_size) {
		int p, w;
		sim_workload_request(&j->spec, &p, &w);
		h->min_ps = h->max_ps = (unsigned)p;
		h->min_workers = h->max_workers = (unsigned)w;
	}
	h->ps_res = (hints_res_t){ m->ps.v[RES_CPU], m->ps.v[RES_MEM],
				   m->ps.v[RES_GPU] };
	h->worker_res = (hints_res_t){ m->worker.v[RES_CPU],
				       m->worker.v[RES_MEM],
				       m->worker.v[RES_GPU] };
	/* An MLlib iteration processes the whole data set: its catalogue
	 * batch (1) is no global batch, and as one it would refuse the
	 * fixed-size baselines' 4 workers (batch < min_workers). */
	h->batch = h->mode == HINTS_MODE_SYNC && !mllib ?
		   (uint64_t)j->truth.batch : 0;
	h->delta = s->cfg->delta;
	snprintf(h->model, sizeof(h->model), "%s", m->name);
	h->form = m->form;
	h->epoch_steps = (uint64_t)llround(job_epoch_steps(j));
	/* The oracle knows when the job converges. */
	h->steps = s->cfg->oracle ?
		   (uint64_t)j->core.ops->work(j->core.data) : 0;
	h->weight = j->spec.weight;
}

/*
 * The servers a pre-run of (p, w) takes: the plan's placement of the job
 * alone (alloc/placement.c, Theorem 1: the fewest servers that hold an
 * even split) on an empty cluster of as many servers as it has tasks; a
 * task no server holds takes a server of its own. 0 or -errno.
 */
static int prerun_servers(const sim_state_t *s, const sim_model_t *m,
			  int p, int w, int *k)
{
	size_t n = (size_t)(p + w);
	res_vec_t *room = calloc(n, sizeof(*room));
	place_job_t job = { .ps_demand = m->ps, .worker_demand = m->worker,
			    .ps = p, .workers = w };
	place_result_t res;
	int rc;

	if (!room)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		room[i] = s->cfg->server;
	rc = placement_run(room, n, &job, 1, &res);
	*k = !rc && res.jobs[0].status == PLACE_OK ?
	     (int)res.jobs[0].nslots : p + w;
	placement_result_free(&res);
	free(room);
	return rc;
}

static int add_sample(sim_state_t *s, sim_job_t *j, int p, int w)
{
	int k, rc = prerun_servers(s, j->spec.model, p, w, &k);
	int ps[SIM_MAX_PS], workers[SIM_MAX_PS];

	if (rc)
		return rc;
	size_t n = sim_truth_split_even(p, w, k, ps, workers);
	double f = true_speed(s, j, (sim_truth_run_t){
		.workers = w, .ps = p, .nnodes = n, .node_workers = workers,
		.node_ps = ps });

	if (!s->cfg->oracle)
		f *= j->speed_bias *
		     (1.0 + gsl_ran_gaussian(j->rng, SPEED_JITTER));
	return job_model_speed_sample(j->core.jm, p, w, f);
}

static int prerun_samples(sim_state_t *s, sim_job_t *j)
{
	const sim_model_t *m = j->spec.model;
	size_t nc = sizeof(oracle_counts) / sizeof(oracle_counts[0]);
	int rc = 0;

	if (s->cfg->oracle) {
		for (size_t a = 0; a < nc && !rc; a++)
			for (size_t b = 0; b < nc && !rc; b++)
				if (oracle_counts[a] <= m->max_ps &&
				    oracle_counts[b] <= m->max_workers)
					rc = add_sample(s, j, oracle_counts[a],
							oracle_counts[b]);
		return rc;
	}
	for (size_t i = 0; i < sizeof(prerun) / sizeof(prerun[0]); i++) {
		/* MLlib has one driver: vary the workers only. */
		int p = m->max_ps == 1 ? 1 : prerun[i][0];
		int w = m->max_ps == 1 ? 1 << (i % 5) : prerun[i][1];
		if (p <= m->max_ps && w <= m->max_workers &&
		    (rc = add_sample(s, j, p, w)))
			break;
	}
	return rc;
}

int sim_job_arrive(sim_state_t *s, sim_job_t *j)
{
	optimus_hints_t h;

	job_hints(s, j, &h);
	j->core.jm = job_model_new(j->core.id, 1000, &h, sim_time(s->eng.now));
	if (!j->core.jm)
		return errmsg_set(s->err, s->errlen, -EINVAL,
				  "job %u: invalid hints", j->core.id);
	j->st = SJ_PENDING;
	j->t_step = s->eng.now;
	int rc = prerun_samples(s, j);
	if (!rc)
		rc = job_feed_progress(j->core.jm, &j->core.feed,
				       &(job_progress_t){
			.received = sim_time(s->eng.now), .loss = j->res.loss0,
			.rebatch_seconds = -1.0 }, NULL);
	if (rc)
		errmsg_set(s->err, s->errlen, 0,
			   "job %u: pre-run: %d", j->core.id, rc);
	return rc;
}

void sim_job_run(sim_state_t *s, sim_job_t *j)
{
	sim_truth_run_t run = sim_hold_run(&j->core.hold);

	sim_decision_started(j->core.jm, sim_time(s->eng.now), run.ps,
			     run.workers, (int)j->core.hold.n);
	j->st = SJ_RUNNING;
	sim_job_set_speed(s, j);
}

void sim_job_advance(sim_job_t *j, double t)
{
	if (j->speed > 0.0 && t > j->t_step)
		j->core.progress = fmin(j->core.progress +
					j->speed * (t - j->t_step),
					j->core.ops->work(j->core.data));
	j->t_step = t;
}

double sim_job_loss_at(const sim_job_t *j, double t)
{
	double step = j->core.progress;

	if (j->speed > 0.0 && t > j->t_step)
		step = fmin(step + j->speed * (t - j->t_step),
			    j->core.ops->work(j->core.data));
	return sim_job_true_loss(j, step);
}

/* What the job's training loop would report at `step`. */
static double observed_loss(sim_job_t *j, double step, bool exact)
{
	double l = sim_job_true_loss(j, (step + 1.0) * j->conv_scale - 1.0);

	return exact ? l : l * (1.0 + gsl_ran_gaussian(j->rng, LOSS_JITTER));
}

int sim_job_report(sim_state_t *s, sim_job_t *j)
{
	bool exact = s->cfg->oracle;
	double from = j->reported, to = j->core.progress;
	double epoch_steps = job_epoch_steps(j);
	int n = (int)ceil((to - from) / (0.5 * epoch_steps));
	int rc = 0;

	if (!(to > from))
		return 0;
	n = n < 1 ? 1 : n > MAX_REPORTS ? MAX_REPORTS : n;
	for (int i = 1; i <= n && !rc; i++) {
		double step = from + (to - from) * i / n;
		double f = j->speed;
		if (!exact)
			f *= j->speed_bias *
			     (1.0 + gsl_ran_gaussian(j->rng, SPEED_JITTER));
		rc = job_feed_progress(j->core.jm, &j->core.feed,
				       &(job_progress_t){
			.received = sim_time(s->eng.now), .step = step,
			.loss = observed_loss(j, step, exact),
			.epoch = step / epoch_steps,
			.rebatch_seconds = -1.0, .timed = f }, NULL);
	}
	j->reported = to;
	return rc;
}

void sim_job_set_speed(sim_state_t *s, sim_job_t *j)
{
	j->gen++;
	j->speed = 0.0;
	if (j->st != SJ_RUNNING)
		return;
	j->speed = true_speed(s, j, sim_hold_run(&j->core.hold)) *
		   sim_straggler_factor(s, j);
	double left = j->core.ops->work(j->core.data) - j->core.progress;
	(void)sim_events_push(&s->eng.q,
			      s->eng.now + fmax(left, 0.0) / j->speed,
			      SIM_EV_FINISH, j->core.id, j->gen);
}

void sim_job_release(sim_state_t *s, sim_job_t *j)
{
	sim_hold_release(&j->core.hold, s->free);
}

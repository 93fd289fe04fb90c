/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_run.c - the synthetic workloads on the one event loop (sim_engine.h):
 * arrivals, scheduling ticks, completions and resize restarts, with the
 * jobs progressing at their true speed between events (see sim_run.h).
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "sim_state.h"
#include "util/errmsg.h"

void sim_config_init(sim_config_t *c)
{
	memset(c, 0, sizeof(*c));
	c->policy = PLAN_OPTIMUS;
	c->interval = PLAN_INTERVAL_DEFAULT;	/* Optimus: every 10 minutes */
	c->damping = ALLOC_DAMPING_DEFAULT;
	c->placement = true;
	c->paa = true;
	c->speed_err = 0.0;
	c->conv_err = 0.0;
	c->restart_base = 20.0;
	c->min_resize_interval = 1200.0;
	c->resize_threshold = -1.0;
	c->delta = CONV_DELTA_DEFAULT;
	c->nservers = 16;
	c->server = res_make(24, 98304, 4);
	c->seed = 1;
	c->horizon = 30 * 86400.0;
	c->sample_every = 60.0;
	c->window = 0.0;
	c->event_plans = true;
	c->preempt = -1;
}

static double mean_loss(const sim_state_t *s, double t)
{
	double sum = 0.0;
	size_t n = 0;

	for (size_t i = 0; i < s->eng.njobs; i++) {
		const sim_job_t *j = &s->jobs[i];
		if (j->st == SJ_FUTURE)
			continue;
		sum += sim_job_loss_at(j, t);
		n++;
	}
	return n ? sum / n : NAN;
}

static int record_sample(sim_state_t *s, double t)
{
	/* Both series share series_cap: grow both from it. */
	size_t tcap = s->series_cap, lcap = s->series_cap;
	double *a = grow_array(s->series_t, &tcap, s->nseries, sizeof(*a), 256);
	if (!a)
		return -ENOMEM;
	s->series_t = a;
	double *b = grow_array(s->series_loss, &lcap, s->nseries, sizeof(*b),
			       256);
	if (!b)
		return -ENOMEM;
	s->series_loss = b;
	s->series_cap = lcap;
	s->series_t[s->nseries] = t;
	s->series_loss[s->nseries++] = mean_loss(s, t);
	return 0;
}

static void snapshot_window(sim_state_t *s, double t)
{
	for (size_t i = 0; i < s->eng.njobs; i++) {
		sim_job_t *j = &s->jobs[i];
		j->res.window_cpu = j->res.cpu_seconds;
		j->res.window_loss = sim_job_loss_at(j, t);
	}
}

/* Accounting of held resources from s->eng.now to t (nothing changes). */
static void account(sim_state_t *s, double t)
{
	double dt = t - s->eng.now;

	for (size_t i = 0; i < s->eng.njobs && dt > 0; i++) {
		sim_job_t *j = &s->jobs[i];
		if (!sim_job_holds(j))
			continue;
		double a = j->core.outcome.submit;
		double young = fmin(t, a + s->cfg->interval) -
			       fmax(s->eng.now, a);
		const res_vec_t *usage = j->core.hold.usage;
		for (size_t k = 0; k < j->core.hold.n; k++) {
			j->res.cpu_seconds += usage[k].v[RES_CPU] * dt;
			if (young > 0)
				j->res.young_cpu +=
					usage[k].v[RES_CPU] * young;
			j->core.outcome.gpu_seconds += usage[k].v[RES_GPU] * dt;
			for (int r = 0; r < RES_NUM; r++)
				s->used_int[r] += usage[k].v[r] * dt;
		}
	}
}

/* Move time to t: samples of the loss series and the window on the way
 * (sim_engine_ops_t.advance). */
static int run_advance(void *ctx, double t)
{
	sim_state_t *s = ctx;
	const sim_config_t *c = s->cfg;

	while (s->next_sample <= t) {
		double ts = s->next_sample;
		account(s, ts);
		s->eng.now = ts;
		if (c->window > 0 && ts == c->window)
			snapshot_window(s, ts);
		sim_qtrace_sample(s, ts);
		int rc = record_sample(s, ts);
		if (rc)
			return rc;
		s->next_sample += c->sample_every;
		if (c->window > 0 && s->next_sample > c->window &&
		    ts < c->window)
			s->next_sample = c->window;
	}
	account(s, t);
	for (size_t i = 0; i < s->eng.njobs; i++)
		sim_job_advance(&s->jobs[i], t);
	s->eng.now = t;
	return 0;
}

static int run_finish(void *ctx, uint32_t job, uint32_t gen, bool *done)
{
	sim_state_t *s = ctx;
	sim_job_t *j = &s->jobs[job];

	if (gen != j->gen || j->st != SJ_RUNNING)
		return 0;
	j->core.progress = j->core.ops->work(j->core.data);
	job_model_done(j->core.jm, sim_time(s->eng.now));
	sim_job_release(s, j);
	j->st = SJ_DONE;
	j->speed = 0.0;
	j->core.outcome.end = s->eng.now;
	j->res.loss_end = sim_job_true_loss(j, j->core.progress);
	*done = true;
	return 0;
}

/* A resized job's restart is over: its run begins. */
static int run_resume(void *ctx, uint32_t job, uint32_t gen)
{
	sim_state_t *s = ctx;
	sim_job_t *j = &s->jobs[job];

	if (gen == j->gen && j->st == SJ_RESTARTING)
		sim_job_run(s, j);
	return 0;
}

static int run_arrive(void *ctx, uint32_t job)
{
	sim_state_t *s = ctx;

	return sim_job_arrive(s, &s->jobs[job]);
}

static int run_plan(void *ctx)
{
	return sim_apply_tick(ctx);
}

/* Up to the window, a tick closes the traced interval before its plan
 * and opens the next after it (sim_epoch.c, sim_qtrace.c). */
static bool tick_traced(const sim_state_t *s)
{
	return s->cfg->window > 0 && s->eng.now <= s->cfg->window;
}

static int run_tick_begin(void *ctx)
{
	sim_state_t *s = ctx;

	if (tick_traced(s) && s->eng.now > 0)
		sim_epoch_tick(s);
	if (tick_traced(s))
		sim_qtrace_close(s);
	return 0;
}

static int run_tick_end(void *ctx)
{
	sim_state_t *s = ctx;

	if (tick_traced(s) && s->eng.now < s->cfg->window)
		sim_qtrace_open(s);
	return 0;
}

/* The synthetic workloads' part of the loop (sim_engine.h). */
static const sim_engine_ops_t run_ops = {
	.advance = run_advance,
	.arrive = run_arrive,
	.finish = run_finish,
	.resume = run_resume,
	.plan = run_plan,
	.tick_begin = run_tick_begin,
	.tick_end = run_tick_end,
};

static int state_init(sim_state_t *s, const sim_config_t *c,
		      const sim_workload_t *w)
{
	s->cfg = c;
	s->costs = (sim_start_costs_t){ .restart = c->restart_base };
	sim_engine_init(&s->eng, &run_ops, s, w->n, c->interval, c->horizon);
	s->eng.event_plans = c->event_plans;
	s->jobs = calloc(w->n ? w->n : 1, sizeof(*s->jobs));
	s->free = calloc(c->nservers, sizeof(*s->free));
	if (!s->jobs || !s->free)
		return -ENOMEM;
	for (size_t i = 0; i < c->nservers; i++)
		s->free[i] = c->server;
	for (size_t i = 0; i < w->n; i++) {
		int rc = sim_job_init(s, &s->jobs[i], (uint32_t)i,
				      &w->jobs[i]);
		if (rc == -EDOM)
			return errmsg_set(s->err, s->errlen, rc,
					  "job %zu (%s): size %g is beyond its "
					  "truth model (at most %.3g at delta "
					  "%g: larger would converge sooner)",
					  i, w->jobs[i].model->name,
					  w->jobs[i].size,
					  sim_truth_max_size(w->jobs[i].model,
							     c->delta),
					  c->delta);
		if (rc)
			return errmsg_set(s->err, s->errlen, rc,
					  "job %zu (%s): bad truth",
					  i, w->jobs[i].model->name);
		rc = sim_events_push(&s->eng.q, w->jobs[i].arrival,
				     SIM_EV_ARRIVAL, (uint32_t)i, 0);
		if (rc)
			return rc;
	}
	if (sim_epoch_init(s) || sim_qtrace_init(s) || sim_straggler_init(s))
		return -ENOMEM;
	return sim_events_push(&s->eng.q, 0.0, SIM_EV_TICK, 0, 0);
}

static int state_result(sim_state_t *s, sim_result_t *out)
{
	const sim_config_t *c = s->cfg;
	/* The GPUs held are the integral account() sums slot by slot, as
	 * the CPUs' is, not the jobs' sum of their own: the same seconds
	 * summed in another order, which differs in the last digits. */
	int rc = sim_outcome_build(&out->run, s->jobs, s->eng.njobs,
				   sizeof(*s->jobs),
				   c->server.v[RES_GPU] * c->nservers,
				   s->used_int[RES_GPU], s->eng.now);

	if (rc)
		return rc;
	out->jobs = calloc(s->eng.njobs ? s->eng.njobs : 1, sizeof(*out->jobs));
	if (!out->jobs)
		return -ENOMEM;
	for (size_t i = 0; i < s->eng.njobs; i++)
		out->jobs[i] = s->jobs[i].res;
	out->restart_share = out->run.run_seconds > 0 ?
			     out->run.lost / out->run.run_seconds : 0.0;
	out->cpu_util = sim_outcome_use(&out->run, c->server.v[RES_CPU] *
					c->nservers, s->used_int[RES_CPU],
					s->eng.now);
	out->stragglers = s->stragglers;
	out->plans = s->plans;
	out->plan_wall = s->plan_wall;
	out->nseries = s->nseries;
	out->series_t = s->series_t;
	out->series_loss = s->series_loss;
	s->series_t = s->series_loss = NULL;
	out->window = c->window;
	out->epoch_top = sim_epoch_share(&s->epoch, true);
	out->epoch_bottom = sim_epoch_share(&s->epoch, false);
	sim_qtrace_result(s, out);
	return 0;
}

static void state_free(sim_state_t *s)
{
	for (size_t i = 0; s->jobs && i < s->eng.njobs; i++)
		sim_job_free(&s->jobs[i]);
	free(s->jobs);
	free(s->free);
	free(s->series_t);
	free(s->series_loss);
	sim_epoch_free(s);
	sim_qtrace_free(s);
	free(s->slow_server);
	free(s->drained);
	sim_engine_free(&s->eng);
}

int sim_run(const sim_config_t *c, const sim_workload_t *w,
	    sim_progress_fn cb, void *cb_ctx, sim_result_t *out,
	    char *err, size_t errlen)
{
	sim_state_t s;
	int rc;

	memset(&s, 0, sizeof(s));
	memset(out, 0, sizeof(*out));
	s.err = err;
	s.errlen = errlen;
	err[0] = '\0';
	if (!c->nservers || !(c->interval > 0) || !(c->sample_every > 0))
		return errmsg_set(err, errlen, -EINVAL,
				  "invalid configuration");
	rc = state_init(&s, c, w);
	s.eng.progress = cb;
	s.eng.progress_arg = cb_ctx;
	if (!rc)
		rc = sim_engine_run(&s.eng);
	if (!rc)
		rc = state_result(&s, out);
	if (rc && !err[0])
		errmsg_set(err, errlen, 0, "simulation failed: %d", rc);
	state_free(&s);
	return rc;
}

void sim_result_free(sim_result_t *r)
{
	for (unsigned i = 0; r->more_seeds && i < r->nmore_seeds; i++)
		sim_result_free(&r->more_seeds[i]);
	free(r->more_seeds);
	sim_outcome_free(&r->run);
	free(r->jobs);
	free(r->series_t);
	free(r->series_loss);
	memset(r, 0, sizeof(*r));
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * job_model_predict.c - what the allocator asks of a job: its speed f(p,w),
 * its remaining steps Q, its loss after the next interval, and the summary
 * line shown to users. Every prediction has a documented fallback so that a
 * job without a fit is still allocated sensibly (doc/design/planning.md).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "job/job_model.h"
#include "util/names.h"

/*
 * Prior shape of f(p,w), in the form of Eqns. 3/4 so that speed_model_eval
 * computes it: per step, 1 unit of compute per worker, parameter traffic
 * 0.25 * w/p (the PS bandwidth bottleneck the paper assumes) and a small
 * per-connection overhead 0.01 * (w + p). It grows with w and saturates as
 * w/p grows (async: f -> 1/(0.25/p + 0.01)). Sync: the same costs for the
 * global batch, split over the w workers.
 */
static const double prior_async[4] = { 1.0, 0.25, 0.01, 0.01 };
static const double prior_sync[5] = { 1.0, 0.05, 0.25, 0.01, 0.01 };
/*
 * All-reduce (allreduce_speed.h): 1 unit of compute for the global batch
 * split over w workers, 0.05 fixed, a ring all-reduce of 0.1 (w-1)/w
 * inside a node that costs 0.3 (w-1)/w more across nodes (network links
 * a few times slower than intra-node ones), 0.01 per worker.
 */
static const double prior_allreduce[5] = { 1.0, 0.05, 0.1, 0.3, 0.01 };

static void job_model_prior_shape(const job_model_t *m, speed_model_t *out)
{
	double t[SPEED_NTHETA];

	memset(out, 0, sizeof(*out));
	out->mode = m->speed.mode;
	out->batch = m->speed.batch;
	if (out->mode == SPEED_SYNC) {
		memcpy(t, prior_sync, sizeof(prior_sync));
		t[0] /= out->batch;	/* theta0 * M = 1 */
	} else if (out->mode == SPEED_ALLREDUCE) {
		memcpy(t, prior_allreduce, sizeof(prior_allreduce));
		t[0] /= out->batch;
	} else {
		memcpy(t, prior_async, sizeof(prior_async));
	}
	(void)speed_model_set_theta(out, t, speed_model_ntheta(out));
}

/*
 * Scale of the prior: the geometric mean of measured/shape over the job's
 * samples (one sample: the prior passes exactly through it), else the
 * shape scaled so that f(1,1) = JOB_MODEL_PRIOR_SPEED.
 */
static double job_model_prior_scale(const job_model_t *m,
				    const speed_model_t *shape)
{
	double logsum = 0.0;
	size_t i;

	for (i = 0; i < m->speed.nsamples; i++) {
		const speed_sample_t *s = &m->speed.samples[i];

		logsum += log(speed_sample_mean(s) /
			      speed_model_eval(shape, s->p, s->w));
	}
	if (m->speed.nsamples)
		return exp(logsum / m->speed.nsamples);
	return JOB_MODEL_PRIOR_SPEED / speed_model_eval(shape, 1, 1);
}

/* How many distinct values of p (is_ps) or w the samples hold, up to 2. */
static int job_model_distinct(const speed_model_t *s, bool is_ps)
{
	for (size_t i = 1; i < s->nsamples; i++) {
		if (is_ps ? s->samples[i].p != s->samples[0].p :
			    s->samples[i].w != s->samples[0].w)
			return 2;
	}
	return s->nsamples ? 1 : 0;
}

/*
 * The job's own fit is trusted with at least as many distinct (p, w)
 * samples as the model has coefficients, spanning two values of p and of
 * w (one suffices for a role whose count the hints fix).
 */
static bool job_model_own_fit_ok(const job_model_t *m)
{
	const speed_model_t *s = &m->speed;
	/* all-reduce: nodes may never have varied; the fit then puts no
	 * cross-node cost, which the next multi-node run's samples add */
	int need_p = m->hints.max_ps > m->hints.min_ps ? 2 : 1;
	int need_w = m->hints.max_workers > m->hints.min_workers ? 2 : 1;

	return s->fitted && s->nsamples >= speed_model_ntheta(s) &&
	       job_model_distinct(s, true) >= need_p &&
	       job_model_distinct(s, false) >= need_w;
}

static const speed_model_t *job_model_profile(const job_model_t *m,
					      const speed_profiles_t *reg)
{
	const speed_model_t *p;

	if (!reg || !m->hints.model[0])
		return NULL;
	p = speed_profiles_get(reg, m->uid, m->hints.model);
	if (!p || !p->fitted || p->mode != m->speed.mode)
		return NULL;
	return p;
}

double job_model_speed_from(const job_model_t *m,
			    const speed_profiles_t *profiles, int ps,
			    int workers, job_speed_source_t *src)
{
	const speed_model_t *prof;
	speed_model_t shape;
	double f;

	if (!m || ps < 1 || workers < 1)
		return 0.0;
	if (job_model_own_fit_ok(m) &&
	    (f = speed_model_eval(&m->speed, ps, workers)) > 0.0) {
		if (src)
			*src = JOB_SPEED_FIT;
		return f;
	}
	prof = job_model_profile(m, profiles);
	if (prof && (f = speed_model_eval(prof, ps, workers)) > 0.0) {
		if (src)
			*src = JOB_SPEED_PROFILE;
		return f;
	}
	job_model_prior_shape(m, &shape);
	if (src)
		*src = m->speed.nsamples ? JOB_SPEED_SCALED : JOB_SPEED_PRIOR;
	return job_model_prior_scale(m, &shape) *
	       speed_model_eval(&shape, ps, workers);
}

double job_model_speed(const job_model_t *m, const speed_profiles_t *profiles,
		       int ps, int workers)
{
	return job_model_speed_from(m, profiles, ps, workers, NULL);
}

const char *job_speed_source_name(job_speed_source_t s)
{
	static const char *const names[] = { "fit", "profile", "scaled-prior",
					     "prior" };

	return names_at(names, NAMES_COUNT(names), (unsigned)s);
}

/*
 * steps=, else epochs= times epoch_steps=, else epochs= times the epoch
 * length the reports tell (job_model_epoch_marked).
 */
double job_model_target_steps(const job_model_t *m)
{
	const optimus_hints_t *h = &m->hints;

	if (h->steps)
		return (double)h->steps;
	if (h->epochs && h->epoch_steps)
		return (double)h->epochs * (double)h->epoch_steps;
	if (h->epochs && m->epoch_mark >= 1.0 && m->epoch_mark_step > 0.0)
		return (double)h->epochs * m->epoch_mark_step / m->epoch_mark;
	return 0.0;
}

/*
 * A job still running past the end its fitted curve predicts: true, with
 * *steps the remaining steps assumed for it, as many as it has already run
 * past that end (never less than one). The fit was wrong about where the
 * job stops, not about its having slowed down; doubling the overrun moves
 * smoothly from the fit's last prediction (about 1 step when the end has
 * just passed) instead of jumping to the prior (a DDP job's remaining
 * time would go 4 s, 1 s, then 882 s within 10 s).
 */
static bool job_model_past_fit(const job_model_t *m, double *steps)
{
	double r, over;

	if (!m->conv || m->phase == JM_DONE ||
	    convergence_remaining_steps(m->conv, &r) || !(r < 1.0) ||
	    convergence_overrun_steps(m->conv, &over))
		return false;
	*steps = fmax(over, 1.0);
	return true;
}

/*
 * The convergence fit when there is one (capped by the target: a job that
 * stops at steps= never runs longer); for a job running past the fit's
 * end, its overrun again (job_model_past_fit); else the target minus the
 * steps done, else the prior max(JOB_MODEL_PRIOR_STEPS, steps done): a job
 * is assumed at most half-way through.
 */
double job_model_remaining_steps(const job_model_t *m, bool *fitted)
{
	double target = job_model_target_steps(m), left = 0.0, r;
	bool done;

	if (fitted)
		*fitted = false;
	if (!m)
		return JOB_MODEL_PRIOR_STEPS;
	done = m->phase == JM_DONE;
	if (target > 0.0)
		left = fmax(target - m->step, 0.0);
	if (m->conv && !convergence_remaining_steps(m->conv, &r) &&
	    isfinite(r) && r >= 0.0) {
		if (target > 0.0)
			r = fmin(r, left);
		/* A job not done past its fitted convergence (or target) is
		 * evidence that the prediction is wrong: never less than one
		 * step for it, else the planner never grows it. */
		if (r >= 1.0 || done) {
			if (fitted)
				*fitted = true;
			return r;
		}
	}
	if (job_model_past_fit(m, &r))
		return target > 0.0 && left >= 1.0 ? fmin(r, left) : r;
	if (target > 0.0 && (left >= 1.0 || done))
		return left;
	return fmax(JOB_MODEL_PRIOR_STEPS, m->step);
}

double job_model_remaining_time(const job_model_t *m,
				const speed_profiles_t *profiles,
				int ps, int workers)
{
	double f = job_model_speed(m, profiles, ps, workers);

	if (!(f > 0.0) || !isfinite(f))
		return INFINITY;
	return job_model_remaining_steps(m, NULL) / f;
}

/*
 * Without a fitted loss curve, the prior L(k) = L0 * sqrt(k0 / k) from the
 * last report (L0 = 1 before any): a new job's loss drops fast, so it is
 * favoured, as in SLAQ. Without a learned cost c, the iterations come from
 * the speed model with min_ps PS and `units` workers.
 */
double job_model_loss_after(const job_model_t *m,
			    const speed_profiles_t *profiles, double T,
			    int units)
{
	const quality_model_t *q = &m->quality;
	int ps = m->hints.min_ps > 1 ? (int)m->hints.min_ps : 1;
	double iters, k0, l;

	ps = job_model_speed_p(m, ps, units, 0);

	if (units < 1 || !(T > 0.0))
		return q->fitted && q->n ? curve_eval(&q->coef, q->iter[q->n - 1])
					 : (m->reports ? m->loss : 1.0);
	if (q->fitted && q->cost_c > 0.0 &&
	    isfinite(l = quality_model_loss_after(q, T, units)))
		return l;
	iters = T * job_model_speed(m, profiles, ps, units);
	if (q->fitted && q->n)
		return curve_eval(&q->coef, q->iter[q->n - 1] + iters);
	k0 = fmax(m->step, 1.0);
	l = m->reports ? m->loss : 1.0;
	return l * sqrt(k0 / (k0 + iters));
}

/* "inverse(b0=..,b1=..,b2=..)" of the convergence fit, or "none". */
static void job_model_fit_text(const job_model_t *m, char *buf, size_t len)
{
	const curve_coef_t *c = &m->conv->coef;

	if (!m->conv->fitted) {
		snprintf(buf, len, "none");
		return;
	}
	snprintf(buf, len, "%s(b0=%.4g,b1=%.4g,b2=%.4g)",
		 curve_form_name(c->form), c->c[0], c->c[1], c->c[2]);
}

/*
 * Time lost to resizes over the time since the first start (until the end,
 * or the latest run start, end or report): the cost of elasticity.
 */
double job_model_resize_share(const job_model_t *m)
{
	double first, last;

	if (!m || !m->nruns || m->resize_seconds <= 0.0)
		return 0.0;
	first = (double)m->runs[0].start;
	last = (double)(m->end_time ? m->end_time : m->last_report);
	for (size_t i = 0; !m->end_time && i < m->nruns; i++)
		last = fmax(last, fmax((double)m->runs[i].start,
				       (double)m->runs[i].end));
	return last > first ? fmin(1.0, m->resize_seconds / (last - first))
			    : 0.0;
}

int job_model_batch_now(const job_model_t *m, int workers,
			job_batch_now_t *out)
{
	const job_batch_t *b = &m->batch;

	*out = (job_batch_now_t){ .global = b->global, .local = b->local,
				  .accum = b->accum, .efficiency = NAN,
				  .goodput = NAN,
				  .noise_scale = NAN };
	if (!m->hints.batch)
		return -ENOENT;
	if (!(out->global > 0)) {
		hints_batch_t split;

		if (workers < 1 || hints_batch_split(&m->hints, (uint32_t)workers,
						     &split, NULL, 0))
			return -ENOENT;
		out->global = (double)split.batch;
		out->local = (int)split.local;
		out->accum = (int)split.accum;
	}
	if (b->eff.reports && b->eff.init_batch > 0) {
		out->efficiency = efficiency_eval(&b->eff, out->global);
		out->noise_scale = efficiency_noise_scale(&b->eff);
	}
	if (isfinite(out->efficiency) && m->steps_per_sec > 0)
		out->goodput = out->efficiency * out->global * m->steps_per_sec;
	return 0;
}

/* " batch=B local=L accum=K[(adaptive)] eff=E goodput=G/s" (see
 * job_model_batch_now; "unknown" before a figure exists), "" without a
 * batch. */
static void batch_text(const job_model_t *m, int workers, char *buf,
		       size_t len)
{
	job_batch_now_t now;
	char e[32] = "unknown", g[32] = "unknown";

	buf[0] = '\0';
	if (job_model_batch_now(m, workers, &now))
		return;
	if (isfinite(now.efficiency))
		snprintf(e, sizeof(e), "%.3g", now.efficiency);
	if (isfinite(now.goodput))
		snprintf(g, sizeof(g), "%.4g/s", now.goodput);
	snprintf(buf, len, " batch=%.0f local=%d accum=%d%s eff=%s goodput=%s",
		 now.global, now.local, now.accum,
		 m->batch.adaptive ? "(adaptive)" : "", e, g);
}

int job_model_summary(const job_model_t *m, const speed_profiles_t *profiles,
		      char *buf, size_t len)
{
	bool fitted;
	job_speed_source_t src = JOB_SPEED_PRIOR;
	int p, w;
	double rem, f, eta;
	char fit[96], jct[32] = "", loss[32], pred[96], strag[STRAGGLER_NODE_LEN + 32];
	char batch[128], preempted[32] = "", rebatched[32] = "";
	char stop[JOB_STOP_REASON_LEN + 16];
	const char *no;
	const job_run_t *last;
	const char *how;
	int n;

	if (!m || !buf || !len)
		return -EINVAL;
	/* The ETA is for the current size, else the planned one, else the
	 * minimum. */
	p = m->cur_ps ? m->cur_ps : m->plan_ps ? m->plan_ps : (int)m->hints.min_ps;
	w = m->cur_workers ? m->cur_workers : m->plan_workers ?
		m->plan_workers : (int)m->hints.min_workers;
	p = m->cur_nodes && hints_is_allreduce(&m->hints) ? m->cur_nodes :
	    job_model_speed_p(m, p, w, 0);
	rem = job_model_remaining_steps(m, &fitted);
	how = fitted ? "" : job_model_past_fit(m, &f) ? "(past fit)" :
	      job_model_target_steps(m) > 0.0 ? "(target)" : "(prior)";
	f = job_model_speed_from(m, profiles, p, w, &src);
	eta = f > 0.0 ? rem / f : INFINITY;
	job_model_fit_text(m, fit, sizeof(fit));
	if (m->phase == JM_DONE && m->end_time)
		snprintf(jct, sizeof(jct), " jct=%.0fs",
			 difftime(m->end_time, m->first_submit));
	/* A job between runs or done shows the topology it last ran with. */
	last = m->nruns ? &m->runs[m->nruns - 1] : NULL;
	batch_text(m, m->cur_workers || !last ? m->cur_workers : last->workers,
		   batch, sizeof(batch));
	/* Why the planner will not resize it. */
	no = m->phase == JM_DONE ? NULL : job_model_not_resizable(m);
	/* Before any report the loss is unknown: 0 would read as perfect. */
	if (m->reports)
		snprintf(loss, sizeof(loss), "%.4g", m->loss);
	else
		snprintf(loss, sizeof(loss), "unknown");
	/* A job that ended says how (a failure as sacct words it), not a
	 * prediction of work still to do. */
	if (m->phase == JM_DONE && m->failed[0])
		snprintf(pred, sizeof(pred), "failed: %s", m->failed);
	else if (m->phase == JM_DONE)
		snprintf(pred, sizeof(pred), "completed");
	else
		snprintf(pred, sizeof(pred), "remaining=%.0f steps%s eta=%.0fs",
			 rem, how, eta);
	/* A job preempted for others says so, waiting or running again. */
	if (m->preemptions)
		snprintf(preempted, sizeof(preempted), " preempted=%u",
			 m->preemptions);
	/* Batch changes taken in place: not restarts (job_rebatch.c). */
	if (m->batch.rebatches)
		snprintf(rebatched, sizeof(rebatched), " rebatches=%u",
			 m->batch.rebatches);
	n = snprintf(buf, len, "optimus: ps=%d workers=%d plan=%d/%d "
		     "step=%.0f loss=%s speed=%.3g/s model=%s "
		     "%s fit=%s restarts=%u faults=%u%s%s "
		     "resize=%.0fs(%.1f%%)%s%s%s%s%s%s%s",
		     m->cur_ps || !last ? m->cur_ps : last->ps,
		     m->cur_workers || !last ? m->cur_workers : last->workers,
		     m->plan_ps, m->plan_workers,
		     job_model_step_shown(m), loss, m->steps_per_sec,
		     job_speed_source_name(src), pred, fit, m->restarts,
		     m->fault_restarts, preempted, rebatched, m->resize_seconds,
		     100.0 * job_model_resize_share(m), jct,
		     job_model_stop_text(m, stop, sizeof(stop)),
		     no ? " resizable=no: " : "", no ? no : "",
		     no ? job_model_not_resizable_help(m) : "",
		     job_model_straggler_text(m, strag, sizeof(strag)),
		     batch);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

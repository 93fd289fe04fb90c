/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * job_batch.c - the adaptive batch of a job record: its limits,
 * the gradient statistics and step times it reported, and the batch it
 * should run at with an allocation (see job_model.h, "Adaptive batch").
 *
 * The models are models/efficiency.h (statistical efficiency of a batch)
 * and models/goodput.h (step time of any batch, best batch); this file
 * only keeps what feeds them and answers in the record's terms.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "job/job_model.h"
#include "models/allreduce_speed.h"
#include "report/protocol.h"
#include "util/errmsg.h"
#include "util/json_num.h"

/* A speed report's micro-steps (the protocol's bound) are the ones a job
 * may declare (the hints' bound): one number, held here where both meet. */
_Static_assert(PROTOCOL_MAX_ACCUM == HINTS_MAX_ACCUM,
	       "a report's accum bound is the hints' accum bound");

int job_model_batch_limits(job_model_t *m, double submitted,
			   const goodput_limits_t *lim, char *err,
			   size_t errlen)
{
	job_batch_t *b;
	int rc;

	if (!m || !lim)
		return errmsg_set(err, errlen, -EINVAL, "batch: no record");
	if (!(lim->min_batch > 0) || !isfinite(lim->max_batch) ||
	    !(lim->max_batch >= lim->min_batch))
		return errmsg_set(err, errlen, -EINVAL, "batch range %g..%g: "
				  "needs 0 < min <= max, finite",
				  lim->min_batch, lim->max_batch);
	if (!(submitted >= lim->min_batch && submitted <= lim->max_batch))
		return errmsg_set(err, errlen, -EINVAL, "submitted batch %g "
				  "outside the range %g..%g", submitted,
				  lim->min_batch, lim->max_batch);
	if (lim->min_local < 1 || lim->max_local < lim->min_local)
		return errmsg_set(err, errlen, -EINVAL, "per-GPU batch %d..%d: "
				  "needs 1 <= min <= max", lim->min_local,
				  lim->max_local);
	if (lim->max_accum < 0 || lim->max_accum > JOB_BATCH_MAX_ACCUM)
		return errmsg_set(err, errlen, -EINVAL, "accumulation steps "
				  "%d: needs 0..%d", lim->max_accum,
				  JOB_BATCH_MAX_ACCUM);
	/* The largest per-GPU batch must hold the smallest global batch's
	 * share on some count of GPUs: min_local * 1 * 1 <= max_batch. */
	if ((double)lim->min_local > lim->max_batch)
		return errmsg_set(err, errlen, -EINVAL, "per-GPU batch %d above "
				  "the largest global batch %g",
				  lim->min_local, lim->max_batch);
	b = &m->batch;
	if (b->speed.mode != SPEED_ALLREDUCE &&
	    (rc = allreduce_speed_init(&b->speed, submitted)))
		return errmsg_set(err, errlen, rc, "batch: step-time model");
	/* |G|^2 and tr(Sigma) do not depend on B0: kept across limits. */
	b->eff.init_batch = lim->min_batch;
	if (!(b->eff.smoothing > 0))
		b->eff.smoothing = EFFICIENCY_SMOOTHING_DEFAULT;
	b->adaptive = true;
	b->submitted = submitted;
	b->limits = *lim;
	m->dirty |= JOB_MODEL_DIRTY_BATCH;
	return 0;
}

int job_model_gradients(job_model_t *m, double grad_sqr, double grad_var,
			double var_batch, uint32_t estimates, char *err,
			size_t errlen)
{
	efficiency_model_t *e;

	if (!m)
		return errmsg_set(err, errlen, -EINVAL, "gradients: no record");
	if (!(grad_sqr >= 0) || !isfinite(grad_sqr))
		return errmsg_set(err, errlen, -EINVAL, "grad_sqr %g: needs a "
				  "finite number >= 0", grad_sqr);
	if (!(grad_var >= 0) || !isfinite(grad_var))
		return errmsg_set(err, errlen, -EINVAL, "grad_var %g: needs a "
				  "finite number >= 0", grad_var);
	if (!(var_batch > 0) || !isfinite(var_batch) ||
	    var_batch > PROTOCOL_MAX_COUNT)
		return errmsg_set(err, errlen, -EINVAL, "var_batch %g: needs a "
				  "finite number > 0", var_batch);
	e = &m->batch.eff;
	/* A job not adaptive (yet): B0 is its batch, else the examples the
	 * statistics were measured over; job_model_batch_limits sets it. */
	if (!(e->init_batch > 0) &&
	    efficiency_init(e, m->hints.batch > 0 ? (double)m->hints.batch :
				       var_batch, EFFICIENCY_SMOOTHING_DEFAULT))
		return errmsg_set(err, errlen, -EINVAL, "gradients: no B0");
	return efficiency_report_many(e, grad_sqr, grad_var, var_batch,
				      estimates ? estimates : 1) ?
	       errmsg_set(err, errlen, -EINVAL, "gradients refused") : 0;
}

static bool batch_sample_valid(int w, int n, int local, int accum,
			       double seconds)
{
	return w >= 1 && (double)w <= (double)PROTOCOL_MAX_COUNT && n >= 1 && n <= w &&
	       local >= 1 && accum >= 0 && accum <= JOB_BATCH_MAX_ACCUM &&
	       seconds > 0 && isfinite(seconds);
}

/* The index of the sample of configuration `key` (its workers, nodes,
 * per-worker batch and micro-steps), or b->nsamples: none yet. */
static size_t batch_sample_find(const job_batch_t *b, goodput_sample_t key)
{
	size_t k;

	for (k = 0; k < b->nsamples; k++)
		if (b->samples[k].w == key.w && b->samples[k].n == key.n &&
		    b->samples[k].local == key.local &&
		    b->samples[k].accum == key.accum)
			break;
	return k;
}

int job_model_batch_sample(job_model_t *m, int w, int n, int local,
			   int accum, double seconds)
{
	return job_model_batch_sample_sync(m, w, n, local, accum, seconds,
					   0.0);
}

int job_model_batch_sample_sync(job_model_t *m, int w, int n, int local,
				int accum, double seconds, double sync)
{
	job_batch_t *b;
	size_t k;

	if (!m || !batch_sample_valid(w, n, local, accum, seconds) ||
	    !(sync >= 0 && sync < seconds))
		return -EINVAL;
	b = &m->batch;
	/* One sample per configuration, the latest: a configuration's step
	 * time drifts (data pipeline, neighbours) and the newest is what a
	 * run there would see. */
	k = batch_sample_find(b, (goodput_sample_t){ .w = w, .n = n,
						    .local = local,
						    .accum = accum });
	if (k == JOB_BATCH_SAMPLES_MAX) {
		memmove(b->samples, b->samples + 1,
			(JOB_BATCH_SAMPLES_MAX - 1) * sizeof(b->samples[0]));
		k--;
	} else if (k == b->nsamples) {
		b->nsamples++;
	} else if (!(sync > 0) && b->samples[k].sync < seconds) {
		/* A step timed whole keeps the all-reduce part last
		 * measured there (a job says it now and then). */
		sync = b->samples[k].sync;
	}
	b->samples[k] = (goodput_sample_t){ w, n, local, accum, seconds,
					    sync };
	m->dirty |= JOB_MODEL_DIRTY_BATCH;
	return 0;
}

double job_model_batch_global(const job_model_t *m)
{
	return m->batch.global > 0 ? m->batch.global : m->batch.submitted;
}

int job_model_batch_run(job_model_t *m, double global, int local, int accum)
{
	if (!m || !(global >= 0) || !isfinite(global) || local < 0 ||
	    accum < 0 || accum > JOB_BATCH_MAX_ACCUM ||
	    (global > 0 && local < 1))
		return -EINVAL;
	m->batch.global = global;
	m->batch.local = global > 0 ? local : 0;
	m->batch.accum = global > 0 ? accum : 0;
	return 0;
}

/* The configuration the current run trains at (its sample's key): the
 * run's workers and nodes, the batch split the plan gave it, or the
 * submitted batch over its workers in one pass. */
static goodput_sample_t batch_running(const job_model_t *m)
{
	const job_batch_t *b = &m->batch;
	int w = m->cur_workers, n = m->cur_nodes > 0 ? m->cur_nodes : 1;
	goodput_sample_t run = { .w = w, .n = n > w ? w : n,
				 .local = b->local, .accum = b->accum };

	if (!(b->global > 0)) {
		run.local = (int)ceil(b->submitted / w - 1e-9);
		run.accum = 0;
	}
	return run;
}

/* The global batch the current run uses. */
static double batch_current(const job_batch_t *b, double submitted)
{
	return b->global > 0 ? b->global : submitted;
}

void job_model_batch_progress(job_model_t *m, double steps,
			      double steps_per_sec)
{
	job_batch_t *b = &m->batch;
	double g;

	if (!b->adaptive)
		return;
	g = efficiency_gain(&b->eff, batch_current(b, b->submitted));
	if (steps > 0 && g > 0 && isfinite(g))
		b->progress = job_model_steps_add(b->progress, steps * g);
	/* The step time of the running configuration at its batch. */
	if (steps_per_sec > 0 && m->cur_workers > 0) {
		goodput_sample_t run = batch_running(m);
		(void)job_model_batch_sample(m, run.w, run.n, run.local,
					     run.accum, 1.0 / steps_per_sec);
	}
}

int job_model_batch_sync(job_model_t *m, double sync)
{
	job_batch_t *b = &m->batch;
	goodput_sample_t *x;
	size_t k;

	if (!b->adaptive || m->cur_workers < 1 || !(sync > 0))
		return 0;
	k = batch_sample_find(b, batch_running(m));
	if (k == b->nsamples)
		return 0;
	x = &b->samples[k];
	/* A part of the step the record timed: a claim beyond it is no
	 * measurement of it. */
	if (!(sync < x->step))
		return -EINVAL;
	x->sync = sync;
	m->dirty |= JOB_MODEL_DIRTY_BATCH;
	return 0;
}

bool job_model_batch_at_submitted(const job_model_t *m)
{
	const job_batch_t *b = &m->batch;

	return !b->adaptive || !(b->global > 0) || b->global == b->submitted;
}

void job_model_batch_refit(job_model_t *m)
{
	job_batch_t *b = &m->batch;
	int rc;

	/* From the first sample: goodput_fit gives the terms the samples do
	 * not determine their priors (goodput.h). */
	if (!b->adaptive || !b->nsamples)
		return;
	rc = goodput_fit(b->samples, b->nsamples, &b->speed);
	/* A failed fit (numerical trouble) keeps the previous one. */
	if (!rc)
		b->fitted = true;
}

/*
 * An adaptive job before its fit (until its first measured step): the
 * submitted batch, but no more than its workers hold without accumulating
 * (max_local each), never below min_local each. Accumulation keeps about
 * the examples per second and lowers the statistical efficiency of each
 * (it falls with the batch), so it pays only where saved synchronisations
 * outweigh that, which a job without a step-time fit cannot know; the
 * submitted batch was chosen for the submitted GPUs (doc/design/simulator.md
 * "Low load").
 */
static double batch_unfitted(const job_batch_t *b, int workers)
{
	double local = ceil(b->submitted / workers - 1e-9);

	/* An even split rounded up may pass the job's largest batch (4096
	 * over 12 GPUs: 12 x 342 = 4104); the range is the user's. */
	if (local * workers > b->limits.max_batch)
		local = floor(b->limits.max_batch / workers + 1e-9);
	if (local > b->limits.max_local)
		local = b->limits.max_local;
	if (local < b->limits.min_local)
		local = b->limits.min_local;
	return local * workers;
}

/* The batch for w workers before the fit (batch_unfitted; a job not
 * adaptive: its submitted one), predicted from the record's speed. */
static int batch_submitted(const job_model_t *m, int workers, int nodes,
			   goodput_choice_t *out)
{
	const job_batch_t *b = &m->batch;
	double B = b->adaptive ? batch_unfitted(b, workers) :
		   (double)m->hints.batch;
	double f;

	if (!(B > 0))
		B = 1;
	*out = (goodput_choice_t){ .batch = B,
		.local = (int)ceil(B / workers - 1e-9), .accum = 0,
		.step_time = NAN, .efficiency = NAN, .goodput = NAN };
	f = job_model_speed(m, NULL, hints_is_allreduce(&m->hints) ? nodes :
			    (int)m->hints.min_ps, workers);
	if (f > 0 && isfinite(f)) {
		out->step_time = 1.0 / f;
		if (b->eff.init_batch > 0) {
			out->efficiency = efficiency_eval(&b->eff, B);
			out->goodput = out->efficiency * B * f;
		}
	}
	return 0;
}

int job_model_batch_for(const job_model_t *m, int workers, int nodes,
			goodput_choice_t *out)
{
	if (!m || !out || workers < 1 || nodes < 1 || nodes > workers)
		return -EINVAL;
	if (!m->batch.adaptive || !m->batch.fitted)
		return batch_submitted(m, workers, nodes, out);
	return goodput_best(&m->batch.speed, &m->batch.eff, workers, nodes,
			    &m->batch.limits, out);
}

double job_model_batch_rate(const job_model_t *m,
			    const speed_profiles_t *profiles, int workers,
			    int nodes)
{
	const job_batch_t *b = &m->batch;
	goodput_choice_t c;
	double f;

	if (!b->adaptive || workers < 1 || nodes < 1 || nodes > workers)
		return 0.0;
	if (b->fitted)
		return job_model_batch_for(m, workers, nodes, &c) ? 0.0 :
		       c.goodput / b->eff.init_batch;
	f = job_model_speed(m, profiles, nodes, workers);
	return f * efficiency_gain(&b->eff, batch_unfitted(b, workers));
}

double job_model_batch_rate_at(const job_model_t *m, int workers, int nodes,
			       int local, int accum)
{
	const job_batch_t *b = &m->batch;
	goodput_choice_t c;

	if (!b->adaptive || !b->fitted ||
	    goodput_eval(&b->speed, &b->eff, workers, nodes, local, accum, &c))
		return 0.0;
	return c.goodput / b->eff.init_batch;
}

/* The B0-steps of examples in one step at the submitted batch (at B0's
 * efficiency of 1): a target or remainder in such steps times this. */
static double batch_submitted_step(const job_batch_t *b)
{
	return b->submitted / b->eff.init_batch;
}

/*
 * A job in its first epoch (none >= 1 reported) has run at least the share
 * of it a report says (a fractional epoch), else is taken to have run
 * half, as the prior takes a job to be half-way: its epoch at least as
 * long as its progress, not JOB_MODEL_PRIOR_STEPS steps whatever it
 * declared. Planned on the prior, a BERT job of 2 declared epochs ran its
 * first on 2 GPUs for 7,000 s, its work taken 25 times its length, last
 * in the completion-rate greedy's line (doc/design/planning.md, Goodput).
 * 0: not in its first epoch, no epochs= or no progress yet.
 */
static double batch_first_epoch_target(const job_model_t *m)
{
	double share = m->epoch > 0.0 && m->epoch < 1.0 ?
		       m->epoch : JOB_MODEL_FIRST_EPOCH_SHARE;

	if (!m->hints.epochs || m->epoch >= 1.0 ||
	    !(m->batch.progress > 0.0))
		return 0.0;
	return (double)m->hints.epochs * m->batch.progress / share;
}

double job_model_batch_target(const job_model_t *m)
{
	const job_batch_t *b = &m->batch;
	const optimus_hints_t *h = &m->hints;

	if (h->steps || (h->epochs && h->epoch_steps))
		return job_model_target_steps(m) * batch_submitted_step(b);
	if (h->epochs && b->epoch_mark >= 1.0 && b->epoch_mark_progress > 0.0)
		return (double)h->epochs * b->epoch_mark_progress /
		       b->epoch_mark;
	return batch_first_epoch_target(m);
}

double job_model_batch_remaining(const job_model_t *m)
{
	const job_batch_t *b = &m->batch;
	double target, left;

	if (!b->adaptive)
		return job_model_remaining_steps(m, NULL);
	target = job_model_batch_target(m);
	/* A job still running past its target was not as long as it said
	 * (a user's epoch count is a guess): it is planned as one without
	 * a target, as job_model_remaining_steps plans a job past its
	 * steps, not as a job about to end, which is never grown. */
	if (target - b->progress >= 1.0)
		left = target - b->progress;
	else
		left = job_model_remaining_steps(m, NULL) *
		       batch_submitted_step(b);
	return fmax(left, 1.0);
}

/* ---- JSON ---- */

static int batch_add_num(json_object *o, const char *key, double d)
{
	json_object *v = json_num_new(d);

	if (!v || json_object_object_add(o, key, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

static json_object *batch_samples_to(const job_batch_t *b)
{
	json_object *a = json_object_new_array();

	for (size_t k = 0; a && k < b->nsamples; k++) {
		const goodput_sample_t *s = &b->samples[k];
		json_object *r = json_object_new_array();
		if (!r || json_object_array_add(a, r) ||
		    json_object_array_add(r, json_object_new_int(s->w)) ||
		    json_object_array_add(r, json_object_new_int(s->n)) ||
		    json_object_array_add(r, json_object_new_int(s->local)) ||
		    json_object_array_add(r, json_object_new_int(s->accum)) ||
		    json_object_array_add(r, json_num_new(s->step)) ||
		    (s->sync > 0 &&
		     json_object_array_add(r, json_num_new(s->sync)))) {
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

int job_model_batch_to_json(json_object *o, const job_model_t *m)
{
	const job_batch_t *b = &m->batch;
	const goodput_limits_t *l = &b->limits;
	json_object *j, *s;

	if (!b->adaptive && !b->eff.reports)
		return 0;
	j = json_object_new_object();
	if (!j || json_object_object_add(o, "batch", j)) {
		json_object_put(j);
		return -ENOMEM;
	}
	json_object_object_add(j, "adaptive", json_object_new_boolean(
				       b->adaptive));
	s = batch_samples_to(b);
	if (!s || json_object_object_add(j, "samples", s) ||
	    batch_add_num(j, "submitted", b->submitted) ||
	    batch_add_num(j, "min_batch", l->min_batch) ||
	    batch_add_num(j, "max_batch", l->max_batch) ||
	    batch_add_num(j, "min_local", l->min_local) ||
	    batch_add_num(j, "max_local", l->max_local) ||
	    batch_add_num(j, "max_accum", l->max_accum) ||
	    batch_add_num(j, "global", b->global) ||
	    batch_add_num(j, "local", b->local) ||
	    batch_add_num(j, "accum", b->accum) ||
	    batch_add_num(j, "progress", b->progress) ||
	    batch_add_num(j, "epoch_mark", b->epoch_mark) ||
	    batch_add_num(j, "epoch_mark_progress", b->epoch_mark_progress) ||
	    batch_add_num(j, "init_batch", b->eff.init_batch) ||
	    batch_add_num(j, "smoothing", b->eff.smoothing) ||
	    batch_add_num(j, "grad_sqr", b->eff.sqr) ||
	    batch_add_num(j, "grad_trace", b->eff.trace) ||
	    batch_add_num(j, "grad_reports", b->eff.reports) ||
	    batch_add_num(j, "noise_scale", efficiency_noise_scale(&b->eff)) ||
	    job_model_rebatch_to_json(j, m))
		return -ENOMEM;
	return 0;
}

/* Whole number in [lo, hi] under key. */
static int batch_int(const json_object *o, const char *key, double lo,
		     double hi, int *out, char *err, size_t len)
{
	double x;
	int rc = json_num_get(o, key, lo, hi, &x, err, len);

	if (rc)
		return rc;
	if (x != floor(x))
		return errmsg_set(err, len, -EINVAL, "'batch.%s': %g is not "
				  "an integer", key, x);
	*out = (int)x;
	return 0;
}

static int batch_samples_from(const json_object *j, job_batch_t *b,
			      char *err, size_t len)
{
	json_object *a;
	size_t n;

	if (!json_object_object_get_ex(j, "samples", &a) ||
	    !json_object_is_type(a, json_type_array))
		return errmsg_set(err, len, -EINVAL, "'batch.samples': missing "
				  "or not an array");
	n = json_object_array_length(a);
	if (n > JOB_BATCH_SAMPLES_MAX)
		return errmsg_set(err, len, -EINVAL, "'batch.samples': %zu, "
				  "at most %d", n, JOB_BATCH_SAMPLES_MAX);
	for (size_t k = 0; k < n; k++) {
		json_object *r = json_object_array_get_idx(a, k);
		double v[6] = { 0 };
		size_t nv = json_object_is_type(r, json_type_array) ?
			    json_object_array_length(r) : 0;
		/* The sync part only when measured (goodput.h). */
		if (nv != 5 && nv != 6)
			return errmsg_set(err, len, -EINVAL, "'batch.samples'"
					  "[%zu]: needs [w, n, local, accum, "
					  "seconds[, sync seconds]]", k);
		for (size_t i = 0; i < nv; i++) {
			json_object *x = json_object_array_get_idx(r, i);
			v[i] = json_object_is_type(x, json_type_int) ||
			       json_object_is_type(x, json_type_double) ?
			       json_object_get_double(x) : NAN;
			if (i < 4 && (v[i] != floor(v[i]) || fabs(v[i]) > 1e9))
				v[i] = NAN;
		}
		if (!(v[0] == v[0] && v[1] == v[1] && v[2] == v[2] &&
		      v[3] == v[3]) || !batch_sample_valid((int)v[0], (int)v[1],
							  (int)v[2], (int)v[3],
							  v[4]) ||
		    !(v[5] >= 0 && v[5] < v[4]))
			return errmsg_set(err, len, -EINVAL, "'batch.samples'"
					  "[%zu]: out of range", k);
		b->samples[k] = (goodput_sample_t){ (int)v[0], (int)v[1],
			(int)v[2], (int)v[3], v[4], v[5] };
	}
	b->nsamples = n;
	return 0;
}

int job_model_batch_from_json(const json_object *o, job_model_t *m,
			      char *err, size_t len)
{
	json_object *j, *ad;
	goodput_limits_t l;
	double submitted, sqr, trace, reports, init, smooth;
	double glob, prog;
	int local, accum, rc;
	job_batch_t *b = &m->batch;

	/* A state file with no "batch" (no adaptive batch then): not
	 * adaptive. */
	if (!json_object_object_get_ex(o, "batch", &j))
		return 0;
	if (!json_object_is_type(j, json_type_object) ||
	    !json_object_object_get_ex(j, "adaptive", &ad) ||
	    !json_object_is_type(ad, json_type_boolean))
		return errmsg_set(err, len, -EINVAL, "'batch': needs an object "
				  "with a boolean 'adaptive'");
	if ((rc = json_num_get(j, "submitted", 0, 1e12, &submitted, err,
			       len)) ||
	    (rc = json_num_get(j, "min_batch", 0, 1e12, &l.min_batch, err,
			       len)) ||
	    (rc = json_num_get(j, "max_batch", 0, 1e12, &l.max_batch, err,
			       len)) ||
	    (rc = batch_int(j, "min_local", 0, 1e9, &l.min_local, err, len)) ||
	    (rc = batch_int(j, "max_local", 0, 1e9, &l.max_local, err, len)) ||
	    (rc = batch_int(j, "max_accum", 0, JOB_BATCH_MAX_ACCUM,
			    &l.max_accum, err, len)) ||
	    (rc = json_num_get(j, "global", 0, 1e12, &glob, err, len)) ||
	    (rc = batch_int(j, "local", 0, 1e9, &local, err, len)) ||
	    (rc = batch_int(j, "accum", 0, JOB_BATCH_MAX_ACCUM, &accum, err,
			    len)) ||
	    (rc = json_num_get(j, "progress", 0, (double)PROTOCOL_MAX_STEP,
			       &prog, err, len)) ||
	    (rc = json_num_get(j, "init_batch", 0, 1e12, &init, err, len)) ||
	    (rc = json_num_get(j, "smoothing", 0, 1, &smooth, err, len)) ||
	    (rc = json_num_get(j, "grad_sqr", 0, 1e300, &sqr, err, len)) ||
	    (rc = json_num_get(j, "grad_trace", 0, 1e300, &trace, err,
			       len)) ||
	    (rc = json_num_get(j, "grad_reports", 0, 4e9, &reports, err,
			       len)) ||
	    (rc = batch_samples_from(j, b, err, len)))
		return rc;
	if (json_object_get_boolean(ad) &&
	    (rc = job_model_batch_limits(m, submitted, &l, err, len)))
		return rc;
	if (reports > 0 && (!(init > 0) || !(smooth > 0)))
		return errmsg_set(err, len, -EINVAL, "'batch': statistics "
				  "without B0 or smoothing");
	b->eff = (efficiency_model_t){ init, smooth, sqr, trace,
				       (unsigned)reports };
	if (job_model_batch_run(m, glob, local, accum))
		return errmsg_set(err, len, -EINVAL, "'batch': bad current "
				  "batch %g (%d x %d)", glob, local, accum);
	b->progress = prog;
	/* Optional: a state file written before the epoch was marked on the
	 * progress has none; such a job marks it at its next epoch. */
	b->epoch_mark = b->epoch_mark_progress = 0.0;
	if ((rc = json_num_get_optional(j, "epoch_mark", 0,
					(double)PROTOCOL_MAX_STEP,
					&b->epoch_mark, err, len)) ||
	    (rc = json_num_get_optional(j, "epoch_mark_progress", 0,
					(double)PROTOCOL_MAX_STEP,
					&b->epoch_mark_progress, err, len)))
		return rc;
	m->dirty |= JOB_MODEL_DIRTY_BATCH;
	return job_model_rebatch_from_json(j, m, err, len);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * job_model.c - the per-job record: creation, progress reports feeding the
 * models, lazy refits, and the run history (see job_model.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/allreduce_speed.h"
#include "job/job_model.h"
#include "util/errmsg.h"
#include "report/protocol.h"
#include "util/names.h"

static const char *const phase_names[] = {
	"pending", "running", "checkpointing", "requeued", "done",
};

const char *job_phase_name(job_phase_t p)
{
	return names_at(phase_names, NAMES_COUNT(phase_names), (unsigned)p);
}

int job_phase_parse(const char *name, job_phase_t *out)
{
	int i = names_find(phase_names, NAMES_COUNT(phase_names), name, false);

	if (i < 0)
		return i;
	*out = (job_phase_t)i;
	return 0;
}

/*
 * The convergence model follows the hints: their curve form and delta, and
 * a decrease window of one epoch when the epoch length is known (the paper
 * states convergence as "loss decrease per epoch below delta").
 */
static void job_model_conv_cfg(const optimus_hints_t *h,
			       convergence_cfg_t *cfg)
{
	convergence_cfg_default(cfg);
	cfg->form = h->form;
	if (h->delta > 0.0 && isfinite(h->delta))
		cfg->delta = h->delta;
	if (h->epoch_steps > 0)
		cfg->window = (double)h->epoch_steps;
}

/* Sets up the three models of m (hints already copied). */
static int job_model_init_models(job_model_t *m)
{
	convergence_cfg_t cfg;
	speed_mode_t mode = job_model_speed_mode(&m->hints);
	/* Sync and allreduce modes need the global batch M; 1 stands for
	 * "unknown" (the fit then absorbs M into theta0). */
	double batch = m->hints.batch > 0 ? (double)m->hints.batch : 1.0;

	job_model_conv_cfg(&m->hints, &cfg);
	m->conv = convergence_new(&cfg);
	if (!m->conv)
		return -ENOMEM;
	if (speed_model_init(&m->speed, mode, batch))
		return -EINVAL;
	return quality_model_init(&m->quality, JOB_MODEL_QUALITY_DECAY,
				  JOB_MODEL_QUALITY_CAP);
}

job_model_t *job_model_new(uint32_t job_id, uint32_t uid,
			   const optimus_hints_t *hints, time_t submit)
{
	job_model_t *m;

	if (!hints || hints_validate(hints, NULL, 0))
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->job_id = job_id;
	m->uid = uid;
	m->hints = *hints;
	m->phase = JM_PENDING;
	m->first_submit = submit;
	m->waiting_since = submit;
	if (job_model_init_models(m)) {
		job_model_free(m);
		return NULL;
	}
	return m;
}

void job_model_free(job_model_t *m)
{
	if (!m)
		return;
	convergence_free(m->conv);
	speed_model_clear(&m->speed);
	quality_model_clear(&m->quality);
	speed_model_clear(&m->batch.speed);
	straggler_clear(&m->straggler);
	free(m);
}

job_model_t *job_model_clone(const job_model_t *m)
{
	job_model_t *c;

	if (!m || !(c = malloc(sizeof(*c))))
		return NULL;
	*c = *m;
	c->conv = convergence_clone(m->conv);
	c->speed.samples = NULL;
	c->quality.iter = NULL;
	c->batch.speed.samples = NULL;
	/* The straggler detector's ranks are the copy's own too: a shared
	 * array would be freed with either record. */
	c->straggler.ranks = NULL;
	if (m->straggler.ranks) {
		c->straggler.ranks = malloc(m->straggler.nranks *
					    sizeof(*c->straggler.ranks));
		if (c->straggler.ranks)
			memcpy(c->straggler.ranks, m->straggler.ranks,
			       m->straggler.nranks * sizeof(*c->straggler.ranks));
	}
	if (!c->conv || (m->straggler.ranks && !c->straggler.ranks) ||
	    speed_model_copy(&c->speed, &m->speed) ||
	    speed_model_copy(&c->batch.speed, &m->batch.speed) ||
	    quality_model_copy(&c->quality, &m->quality)) {
		job_model_free(c);
		return NULL;
	}
	return c;
}

speed_mode_t job_model_speed_mode(const optimus_hints_t *h)
{
	return hints_is_allreduce(h) ? SPEED_ALLREDUCE :
	       h->mode == HINTS_MODE_SYNC ? SPEED_SYNC : SPEED_ASYNC;
}

int job_model_speed_p(const job_model_t *m, int ps, int workers,
		      int node_workers)
{
	const job_run_t *last;

	if (!m || !hints_is_allreduce(&m->hints))
		return ps;
	if (workers < 1)
		return 0;
	last = m->nruns ? &m->runs[m->nruns - 1] : NULL;
	if (node_workers < 1 && last && last->nodes >= 1 && last->workers >= 1)
		node_workers = (last->workers + last->nodes - 1) / last->nodes;
	if (node_workers < 1)
		return 1;
	return allreduce_min_nodes(workers, node_workers);
}

/* A run whose speed reports are samples of the model: PS jobs need their
 * PS count, all-reduce ones their node count. */
static bool job_model_running_topology(const job_model_t *m)
{
	return (hints_is_allreduce(&m->hints) ? m->cur_nodes >= 1 &&
		m->cur_nodes <= m->cur_workers : m->cur_ps >= 1) &&
	       m->cur_workers >= 1;
}

/*
 * Without explicit CPU-time samples, the quality model's per-iteration cost
 * c*S is derived from the measured speed: one iteration takes
 * cur_workers / steps_per_sec worker-seconds, S being the batch (1 when
 * unknown). The units of the quality allocation are then workers, and
 * iter = T*a/(c*S) = T * a * speed / cur_workers: linear scaling.
 */
static void job_model_derived_cost(job_model_t *m, double steps_per_sec)
{
	double s = m->hints.batch > 0 ? (double)m->hints.batch : 1.0;

	if (m->explicit_cost || !job_model_running_topology(m))
		return;
	if (!quality_model_add_cost(&m->quality, s,
				    m->cur_workers / steps_per_sec))
		m->dirty |= JOB_MODEL_DIRTY_QUALITY;
}

/*
 * Feed the loss models. A job restarted from an older checkpoint reports
 * steps it already made: those points are skipped (the models need
 * non-decreasing steps), the report itself still counts.
 */
static void job_model_feed_loss(job_model_t *m, double step, double loss)
{
	if (!convergence_add(m->conv, step, loss))
		m->dirty |= JOB_MODEL_DIRTY_CONV;
	if (step >= 1.0 && !quality_model_add_loss(&m->quality, step, loss))
		m->dirty |= JOB_MODEL_DIRTY_QUALITY;
}

/*
 * The first report of a run after another run: a job that resumed below
 * the step it had reached (or below the checkpoint it confirmed for the
 * resize, the floor set by job_model_started()) threw work away on
 * restart, and would again: it is never resized again while it runs.
 */
static void job_model_check_resume(job_model_t *m, double step)
{
	const job_run_t *cur;

	if (m->nruns < 2 || !m->reports || m->not_resumable)
		return;
	cur = &m->runs[m->nruns - 1];
	if (cur->end || m->last_report >= cur->start)
		return;		/* not the first report of this run */
	if (step < m->resume_floor)
		m->not_resumable = true;
}

/* A restart timed: its seconds lost, and one more restart they count
 * (plan_input_restart_cost averages the one over the other). */
static void job_model_restart_lost(job_model_t *m, double seconds)
{
	m->resize_seconds += seconds;
	m->restarts_timed++;
}

/*
 * A restart being timed ends at the run's first report: the time from the
 * resize's signal to the first step it shows, the steps since taken off at
 * the reported speed (none known: the report's own time), never before
 * the run started.
 */
static void job_model_restart_timed(job_model_t *m, time_t now,
				    double steps_per_sec)
{
	const job_run_t *r;
	double lost;

	if (!m->restart_from || !m->nruns)
		return;
	r = &m->runs[m->nruns - 1];
	lost = difftime(now, m->restart_from);
	if (steps_per_sec > 0.0)
		lost -= r->steps_done / steps_per_sec;
	job_model_restart_lost(m, fmax(lost, difftime(r->start,
						      m->restart_from)));
	m->restart_from = 0;
}

/*
 * Where epoch `epoch` began on a measure of a job's work (its steps, or
 * an adaptive batch's progress), for the epoch length a target of
 * epochs= without epoch_steps= is run to: *mark epochs took *at of it.
 * A fractional epoch is the exact share of epochs done: `to`, where the
 * report is, marks it. A whole one is the epoch in progress, as a `for
 * epoch in range(E)` loop reports it: with the last report at `from` in
 * epoch `last`, the k = epoch - last epochs that began in between did so
 * at an even pace, the last of them half an epoch's length before `to`
 * on average, (to - from) / 2k (the middle of the two for k = 1; the
 * middle for any k took the epochs as half their length when a report
 * spans several). Without an earlier report of that job, `to`.
 */
static void job_model_epoch_mark(double *mark, double *at, double epoch,
				 double last, bool seen_before, double from,
				 double to)
{
	double k = floor(epoch) - floor(last);

	if (epoch != floor(epoch)) {
		*mark = epoch;
		*at = to;
	} else if (floor(epoch) > floor(*mark)) {
		*mark = epoch;
		*at = seen_before && k >= 1.0 && from < to ?
		      to - (to - from) / (2.0 * k) : to;
	}
}

/*
 * The epoch marks of a report at `step` in `epoch`, `progress_before` the
 * adaptive batch's progress before the report: steps mark it at the
 * submitted batch alone (steps at another batch are other steps), an
 * adaptive batch's progress at any batch, so that a job re-batched
 * before its first epoch ends still learns its epoch's length.
 */
static void job_model_epoch_marked(job_model_t *m, double step, double epoch,
				   double progress_before)
{
	bool seen_before = m->reports && m->epoch < epoch;
	job_batch_t *b = &m->batch;

	if (epoch < 1.0)
		return;
	if (job_model_batch_at_submitted(m))
		job_model_epoch_mark(&m->epoch_mark, &m->epoch_mark_step,
				     epoch, m->epoch, seen_before, m->step,
				     step);
	if (b->adaptive)
		job_model_epoch_mark(&b->epoch_mark, &b->epoch_mark_progress,
				     epoch, m->epoch, seen_before,
				     progress_before, b->progress);
}

double job_model_steps_add(double sum, double steps)
{
	double bound = (double)PROTOCOL_MAX_STEP;

	return sum + steps < bound ? sum + steps : bound;
}

/* A report's step and speed within the protocol's one bound: what the
 * record keeps loads back from the state file. */
static bool job_model_step_valid(double step, double steps_per_sec)
{
	return isfinite(step) && step >= 0.0 &&
	       step <= (double)PROTOCOL_MAX_STEP &&
	       isfinite(steps_per_sec) && steps_per_sec >= 0.0 &&
	       steps_per_sec <= (double)PROTOCOL_MAX_STEP;
}

/* What every report records: the step (the run's progress, the resume
 * check, the adaptive batch's progress), the epoch and when. */
static void job_model_reported(job_model_t *m, time_t now, double step,
			       double steps_per_sec, double epoch)
{
	double progress_before = m->batch.progress;

	if (job_model_running_topology(m))
		job_model_batch_progress(m, step > m->step ? step - m->step :
					 0.0, steps_per_sec);
	job_model_epoch_marked(m, step, epoch, progress_before);
	job_model_check_resume(m, step);
	/* Where the run's own progress begins: its speed claims are checked
	 * against the steps from here (job_claims.c). */
	if (m->nruns && !m->runs[m->nruns - 1].end && !m->claims.first_report &&
	    now >= m->runs[m->nruns - 1].start) {
		m->claims.first_report = now;
		m->claims.first_step = step;
	}
	if (m->nruns && !m->runs[m->nruns - 1].end && step > m->step)
		m->runs[m->nruns - 1].steps_done = job_model_steps_add(
			m->runs[m->nruns - 1].steps_done, step - m->step);
	job_model_restart_timed(m, now, steps_per_sec);
	m->step = step;
	m->epoch = epoch;
	m->last_report = now;
	m->reports++;
}

/* The speed a report carries (0: none): a sample of the speed model at
 * the running configuration, the quality model's derived cost, the
 * record's last speed. */
static void job_model_speed_reported(job_model_t *m, double steps_per_sec)
{
	if (!(steps_per_sec > 0.0))
		return;
	/* An adaptive job's steps at another batch are other steps: its own
	 * step-time model of any batch takes them. */
	if (job_model_running_topology(m) && job_model_batch_at_submitted(m) &&
	    !speed_model_add_sample(&m->speed, hints_is_allreduce(&m->hints) ?
				    m->cur_nodes : m->cur_ps,
				    m->cur_workers, steps_per_sec))
		m->dirty |= JOB_MODEL_DIRTY_SPEED;
	job_model_derived_cost(m, steps_per_sec);
	m->steps_per_sec = steps_per_sec;
}

int job_model_report(job_model_t *m, time_t now, double step, double loss,
		     double steps_per_sec, double epoch)
{
	if (!m || !job_model_step_valid(step, steps_per_sec) ||
	    !isfinite(loss) || loss < 0.0 || !isfinite(epoch) || epoch < 0.0)
		return -EINVAL;
	job_model_feed_loss(m, step, loss);
	job_model_speed_reported(m, steps_per_sec);
	job_model_reported(m, now, step, steps_per_sec, epoch);
	m->loss = loss;
	return 0;
}

int job_model_progress(job_model_t *m, time_t now, double step,
		       double steps_per_sec, double epoch)
{
	if (!m || !job_model_step_valid(step, steps_per_sec) ||
	    !isfinite(epoch) || epoch < 0.0)
		return -EINVAL;
	job_model_speed_reported(m, steps_per_sec);
	job_model_reported(m, now, step, steps_per_sec, epoch);
	return 0;
}

int job_model_speed_sample(job_model_t *m, int ps, int workers,
			   double steps_per_sec)
{
	int rc;

	if (!m)
		return -EINVAL;
	rc = speed_model_add_sample(&m->speed, ps, workers, steps_per_sec);
	if (!rc)
		m->dirty |= JOB_MODEL_DIRTY_SPEED;
	return rc;
}

int job_model_cost_sample(job_model_t *m, double data_size,
			  double cpu_seconds)
{
	int rc;

	if (!m)
		return -EINVAL;
	if (!m->explicit_cost) {
		/* Derived samples are in other units: start afresh. */
		m->quality.ncost = m->quality.cost_next = 0;
		m->explicit_cost = true;
	}
	rc = quality_model_add_cost(&m->quality, data_size, cpu_seconds);
	if (!rc)
		m->dirty |= JOB_MODEL_DIRTY_QUALITY;
	return rc;
}

/*
 * A failed refit (too few points, numerical trouble) keeps the models'
 * fitted flags as they are: predictions then use the previous fit, or the
 * fallbacks of job_model_predict.c when there never was one.
 */
void job_model_refit(job_model_t *m)
{
	if (!m)
		return;
	if (m->dirty & JOB_MODEL_DIRTY_CONV)
		(void)convergence_fit(m->conv);
	if (m->dirty & JOB_MODEL_DIRTY_SPEED && m->speed.nsamples)
		(void)speed_model_fit(&m->speed);
	if (m->dirty & JOB_MODEL_DIRTY_QUALITY)
		(void)quality_model_fit(&m->quality);
	if (m->dirty & JOB_MODEL_DIRTY_BATCH)
		job_model_batch_refit(m);
	m->dirty = 0;
}

/* Drop the oldest run when the history is full. */
static job_run_t *job_model_new_run(job_model_t *m)
{
	if (m->nruns == JOB_MODEL_MAX_RUNS) {
		memmove(m->runs, m->runs + 1,
			(JOB_MODEL_MAX_RUNS - 1) * sizeof(m->runs[0]));
		m->nruns--;
	}
	memset(&m->runs[m->nruns], 0, sizeof(m->runs[0]));
	return &m->runs[m->nruns++];
}

/*
 * A start after a resize (the job was checkpointing or requeued) ends the
 * resize: its duration counts as time lost to elasticity.
 */
void job_model_started(job_model_t *m, time_t now, int ps, int workers,
		       int nodes)
{
	job_run_t *r;

	if (!m)
		return;
	job_model_stopped(m, now);
	if (m->rerun) {
		m->reruns++;
		m->resume_floor = 0;
		m->rerun = false;
	} else if (m->fault_requeue) {
		/* A fault's restart: not the plan's, and the work since the
		 * last confirmed checkpoint is the fault's loss, not the
		 * job's failure to resume. */
		m->fault_restarts++;
		m->resume_floor = m->ckpt_confirmed && m->ckpt_step < m->step ?
				  m->ckpt_step : m->ckpt_confirmed ? m->step : 0;
		m->fault_requeue = false;
	} else {
		if (m->nruns)
			m->restarts++;	/* a restart that happened, not one begun */
		/* Where this run must resume: the step reached, or the
		 * checkpoint confirmed for the resize if lower (reports made
		 * after it are lost by design). */
		m->resume_floor = m->resize_ckpt && m->resize_ckpt_step < m->step ?
				  m->resize_ckpt_step : m->step;
	}
	m->resize_ckpt = false;
	m->preempt_began = 0;
	if (m->resize_began && now >= m->resize_began)
		m->restart_from = m->resize_began;	/* timed to its first step */
	m->resize_began = 0;
	r = job_model_new_run(m);
	r->start = now;
	r->ps = ps;
	r->workers = workers;
	r->nodes = nodes;
	m->cur_ps = ps;
	m->cur_workers = workers;
	m->cur_nodes = nodes;
	m->phase = JM_RUNNING;
	/* A new run uses the submitted batch unless its adapter says which
	 * the plan chose (job_model_batch_run, after this). */
	(void)job_model_batch_run(m, 0, 0, 0);
	job_model_rebatch_void(m);
	/* A new run has new workers on new nodes: detect afresh. */
	straggler_clear(&m->straggler);
	/* ... and makes its own claims, checked against its own steps. */
	m->claims.first_report = 0;
	m->claims.first_step = 0.0;
	m->claims.tokens = JOB_CLAIM_BURST;
	m->claims.tokens_at = now;
}

/*
 * A job that declares no GPU (a CPU PS job) is served in workers, the
 * unit the plan grants it.
 */
double job_model_gpus(const job_model_t *m, int ps, int workers)
{
	uint64_t g;

	if (ps < 0 || workers < 0)
		return 0.0;
	g = hints_gpus(&m->hints, (uint32_t)ps, (uint32_t)workers);
	return (double)(g ? g : (uint64_t)workers);
}

double job_model_run_service(const job_model_t *m, const job_run_t *r,
			     time_t until)
{
	if (until <= r->start)
		return 0.0;
	return job_model_gpus(m, r->ps, r->workers) *
	       difftime(until, r->start);
}

double job_model_attained(const job_model_t *m, time_t now)
{
	const job_run_t *r;

	if (!m)
		return 0.0;
	r = m->nruns ? &m->runs[m->nruns - 1] : NULL;
	if (r && !r->end &&
	    (m->phase == JM_RUNNING || m->phase == JM_CHECKPOINTING))
		return m->attained + job_model_run_service(m, r, now);
	return m->attained;
}

void job_model_stopped(job_model_t *m, time_t now)
{
	job_run_t *r;

	if (!m)
		return;
	/* A batch change sent to the run is void with it. */
	job_model_rebatch_void(m);
	if (!m->nruns)
		return;
	r = &m->runs[m->nruns - 1];
	/* end 0 means "running": a run ending in its start second (or on a
	 * clock that went back) lasts one second. */
	if (!r->end) {
		r->end = now > r->start ? now : r->start + 1;
		m->attained += job_model_run_service(m, r, r->end);
	}
	/* Ended before its first report: the whole restart was lost. */
	if (m->restart_from && r->end >= m->restart_from)
		job_model_restart_lost(m, difftime(r->end, m->restart_from));
	m->restart_from = 0;
}

void job_model_requeued(job_model_t *m, time_t now)
{
	if (!m || (m->phase != JM_RUNNING && m->phase != JM_CHECKPOINTING))
		return;
	job_model_stopped(m, now);
	m->phase = JM_REQUEUED;
	if (m->preempt_began) {
		/* Pending again like any job: aged from now, no size. */
		m->preempt_began = 0;
		m->waiting_since = now;
		m->plan_ps = m->plan_workers = 0;
	}
}

void job_model_lost_run(job_model_t *m, time_t now)
{
	if (!m || (m->phase != JM_RUNNING && m->phase != JM_CHECKPOINTING))
		return;
	job_model_stopped(m, now);
	/* A resize under way ends with the run: its restart is the fault's,
	 * never charged as a resize. */
	m->resize_began = 0;
	m->resize_ckpt = false;
	m->preempt_began = 0;
	/* It lost its GPUs: its wait is aged from now, as a preempted
	 * job's (plan_preempt.c). */
	m->waiting_since = now;
	m->fault_requeue = true;
	m->phase = JM_REQUEUED;
}

void job_model_rerun(job_model_t *m, time_t now)
{
	if (!m || m->phase != JM_DONE)
		return;
	m->phase = JM_PENDING;
	m->rerun = true;
	m->fault_requeue = false;
	m->end_time = 0;
	m->failed[0] = '\0';
	m->waiting_since = now;
	m->plan_ps = m->plan_workers = 0;
}

void job_model_done(job_model_t *m, time_t now)
{
	if (!m)
		return;
	job_model_stopped(m, now);
	m->end_time = now;
	m->phase = JM_DONE;
	m->cur_ps = m->cur_workers = m->cur_nodes = 0;
}

void job_model_failed(job_model_t *m, const char *how)
{
	if (m && how)
		snprintf(m->failed, sizeof(m->failed), "%s", how);
}

void job_model_resizing(job_model_t *m, time_t now)
{
	if (!m)
		return;
	/* The run ends: a batch change sent to it is void (never missed). */
	job_model_rebatch_void(m);
	m->phase = JM_CHECKPOINTING;
	m->resizes++;
	m->resize_began = now;
	m->last_resize = now;
}

void job_model_preempting(job_model_t *m, time_t now)
{
	if (!m)
		return;
	job_model_rebatch_void(m);
	m->phase = JM_CHECKPOINTING;
	m->preemptions++;
	m->preempt_began = now;
}

time_t job_model_signalled(const job_model_t *m)
{
	return m->preempt_began ? m->preempt_began : m->resize_began;
}

bool job_model_requeue_due(const job_model_t *m, bool acked, time_t now)
{
	return m->phase == JM_CHECKPOINTING &&
	       (acked || now >= job_model_signalled(m) +
				(time_t) m->hints.ckpt_grace);
}

void job_model_adopted(job_model_t *m, time_t start, time_t now, int ps,
		       int workers, int nodes)
{
	job_model_started(m, start, ps, workers, nodes);
	m->plan_ps = ps;
	m->plan_workers = workers;
	m->adopted = now;
	m->last_resize = now;
}

int job_model_checkpoint(job_model_t *m, time_t now, double step)
{
	if (!m || !job_model_step_valid(step, 0.0))
		return -EINVAL;
	m->ckpt_confirmed = now;
	m->ckpt_step = step;
	/* The checkpoint of the resize or preemption under way (not a
	 * declaration made at start): the next run may resume from it. */
	if (m->phase == JM_CHECKPOINTING && job_model_signalled(m) &&
	    now >= job_model_signalled(m)) {
		m->resize_ckpt = true;
		m->resize_ckpt_step = step;
	}
	return 0;
}

bool job_model_run_declared(const job_model_t *m)
{
	const job_run_t *r = m->nruns ? &m->runs[m->nruns - 1] : NULL;

	return r && !r->end && m->ckpt_confirmed &&
	       m->ckpt_confirmed >= r->start;
}

const char *job_model_not_resizable(const job_model_t *m)
{
	const job_run_t *r = m->nruns ? &m->runs[m->nruns - 1] : NULL;

	if (m->not_resumable)
		return "resumed below the step it had reached";
	/* The checkpoint signal would kill a job that cannot checkpoint:
	 * until one is confirmed, it keeps its size until it ends. */
	if (!m->ckpt_confirmed)
		return "never confirmed a checkpoint";
	/*
	 * Each run's processes install their handler anew, which takes what
	 * their start takes (importing a framework, loading data: minutes),
	 * and the signal kills them until then. No time stands in for it:
	 * only the run's own declaration says its handler is in place.
	 */
	if (r && !r->end && !job_model_run_declared(m))
		return "this run has not declared its checkpoint yet";
	/* A job adopted without a record may have reported before: until it
	 * reports again nothing tells how far it got since its checkpoint. */
	if (m->adopted && m->last_report <= m->adopted)
		return "found running without a record, no report since";
	return NULL;
}

const char *job_model_not_resizable_help(const job_model_t *m)
{
	/* A trainer written from a description of the signal alone never
	 * declares it can checkpoint and stays at its first size for its
	 * whole life: say what would make it resizable. */
	if (!m->not_resumable && !m->ckpt_confirmed)
		return " (declare at every start, once the signal's handler is "
		       "in place, that the job can checkpoint: "
		       "optimus-report checkpoint --step S, or "
		       "Reporter.handle_checkpoints; trap the signal in the "
		       "batch script; see optimus_hints(5))";
	/* A run that declares late (a slow start) is simply waited for; one
	 * that never does keeps its size. */
	if (!m->not_resumable && m->nruns && !m->runs[m->nruns - 1].end &&
	    !job_model_run_declared(m))
		return " (each run declares once its handler is in place; "
		       "no signal before)";
	return "";
}

const char *job_model_why_not_resizable(const job_model_t *m, time_t now,
					double min_interval, char *why,
					size_t len)
{
	const char *no = job_model_not_resizable(m);

	if (no) {
		snprintf(why, len, "resizable=no: %s", no);
		return why;
	}
	if (m->last_resize && difftime(now, m->last_resize) < min_interval) {
		snprintf(why, len, "resized %.0fs ago (min %.0fs)",
			 difftime(now, m->last_resize), min_interval);
		return why;
	}
	return NULL;
}

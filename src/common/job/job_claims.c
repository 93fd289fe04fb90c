/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * job_claims.c - a job's speed reports are claims, checked against its run
 * (job_model.h job_model_speed_claim; doc/design/reports.md "Claims and fair
 * shares").
 *
 * Why: the speed model decides how many GPUs the plan gives a job, and a
 * speed report is the job's word. One that says "slow and perfectly
 * scalable" for sizes it never ran, or while it waits, bought it GPUs. The
 * record therefore takes a speed only for the configuration slurmctld
 * started (the run's PS, workers and nodes), at most as often as a trainer
 * reports, and only when it agrees with what the record saw of the run
 * itself: the steps its progress reports show over their wall time.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "job/job_model.h"
#include "util/errmsg.h"

double job_model_observed_speed(const job_model_t *m)
{
	const job_claims_t *c = &m->claims;
	double dt = difftime(m->last_report, c->first_report);

	if (!c->first_report || dt < JOB_CLAIM_WINDOW ||
	    !(m->step > c->first_step))
		return 0.0;
	return (m->step - c->first_step) / dt;
}

/* The run's batch per worker and step: local x (accum + 1); 0: none. */
static double claim_run_batch(const job_model_t *m)
{
	job_batch_now_t now;

	if (job_model_batch_now(m, m->cur_workers, &now) || now.local < 1)
		return 0.0;
	return (double)now.local * (now.accum + 1);
}

static int claim_refuse(job_model_t *m, char *why, size_t len,
			const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int claim_refuse(job_model_t *m, char *why, size_t len,
			const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errmsg_vset(m->claims.last_refusal, sizeof(m->claims.last_refusal),
		    -EPERM, fmt, ap);
	va_end(ap);
	m->claims.refused++;
	return errmsg_set(why, len, -EPERM, "%s", m->claims.last_refusal);
}

/* Is `claimed` within JOB_CLAIM_FACTOR of [lo, hi]? */
static bool claim_near(double claimed, double lo, double hi)
{
	return claimed >= lo / JOB_CLAIM_FACTOR &&
	       claimed <= hi * JOB_CLAIM_FACTOR;
}

/* The claim against the steps per second `seen` at the run's batch. */
static int claim_observed(job_model_t *m, double seen, int local_batch,
			  int accum, double sps, char *why, size_t len)
{
	double run_batch, q;

	if (!local_batch) {
		if (claim_near(sps, seen, seen))
			return 0;
		return claim_refuse(m, why, len, "%.4g steps/s is more than "
				    "%gx away from the %.4g steps/s the run's "
				    "progress reports show", sps,
				    JOB_CLAIM_FACTOR, seen);
	}
	run_batch = claim_run_batch(m);
	if (!(run_batch > 0.0))
		return claim_refuse(m, why, len, "a step time at a batch of "
				    "its own, but the job has no batch= hint");
	/* A step of q times the examples per worker takes between the
	 * run's step time (a fixed cost dominates) and q times it (the
	 * per-example cost does). */
	q = (double)local_batch * (accum + 1) / run_batch;
	if (claim_near(1.0 / sps, fmin(1.0, q) / seen, fmax(1.0, q) / seen))
		return 0;
	return claim_refuse(m, why, len, "a step of %.4gs at %d x %d per "
			    "worker is more than %gx away from %.4g..%.4gs "
			    "(the run's %.4g steps/s at %.0f per worker)",
			    1.0 / sps, local_batch, accum + 1,
			    JOB_CLAIM_FACTOR, fmin(1.0, q) / seen,
			    fmax(1.0, q) / seen, seen, run_batch);
}

int job_model_speed_check(const job_model_t *m, int ps, int workers,
			  int local_batch, int accum, double steps_per_sec,
			  char *why, size_t len)
{
	if (!m)
		return errmsg_set(why, len, -EINVAL, "no record");
	if (!(steps_per_sec > 0.0) || !isfinite(steps_per_sec) ||
	    local_batch < 0 || accum < 0)
		return errmsg_set(why, len, -EINVAL, "%g steps/s is not a "
				  "speed: it must be above 0", steps_per_sec);
	/* At the run's own batch it is a sample of the speed model, which
	 * holds only the configurations a job of its kind can run. */
	if (!local_batch &&
	    !speed_model_sample_valid(job_model_speed_p(m, ps, workers, 0),
				      workers, steps_per_sec))
		return errmsg_set(why, len, -EINVAL, "a speed sample of %d PS "
				  "and %d workers is no configuration of this "
				  "%s job (it needs ps >= 1 and workers >= 1)",
				  ps, workers, hints_is_allreduce(&m->hints) ?
				  "all-reduce" : "parameter-server");
	return 0;
}

/* The configuration: the run's PS and workers (its nodes are the run's). */
static int claim_configuration(job_model_t *m, int ps, int workers,
			       char *why, size_t len)
{
	if (ps == m->cur_ps && workers == m->cur_workers)
		return 0;
	return claim_refuse(m, why, len, "%d PS + %d workers is not the "
			    "configuration the job runs (%d PS + %d workers "
			    "on %d nodes)", ps, workers, m->cur_ps,
			    m->cur_workers, m->cur_nodes);
}

int job_model_speed_claim(job_model_t *m, time_t now, int ps, int workers,
			  int local_batch, int accum, double steps_per_sec,
			  char *why, size_t len)
{
	const job_run_t *run;
	char no[sizeof(m->claims.last_refusal)];
	double seen;
	int rc;

	if (!m)
		return errmsg_set(why, len, -EINVAL, "no record");
	run = m->nruns ? &m->runs[m->nruns - 1] : NULL;
	if ((m->phase != JM_RUNNING && m->phase != JM_CHECKPOINTING) ||
	    !run || run->end)
		return claim_refuse(m, why, len, "the job is not running (%s):"
				    " a speed is a claim about the run "
				    "slurmctld started",
				    job_phase_name(m->phase));
	if (job_model_speed_check(m, ps, workers, local_batch, accum,
				  steps_per_sec, no, sizeof(no)))
		return claim_refuse(m, why, len, "%s", no);
	if ((rc = claim_configuration(m, ps, workers, why, len)))
		return rc;
	if (!m->claims.tokens_at || m->claims.tokens_at < run->start) {
		m->claims.tokens = JOB_CLAIM_BURST;
		m->claims.tokens_at = run->start;
	}
	if (now > m->claims.tokens_at) {
		m->claims.tokens = fmin(JOB_CLAIM_BURST, m->claims.tokens +
					JOB_CLAIM_RATE *
					difftime(now, m->claims.tokens_at));
		m->claims.tokens_at = now;
	}
	if (m->claims.tokens < 1.0)
		return claim_refuse(m, why, len, "more than %d at once or %g "
				    "a second: a trainer reports its speed "
				    "with its progress", JOB_CLAIM_BURST,
				    JOB_CLAIM_RATE);
	seen = job_model_observed_speed(m);
	if (!(seen > 0.0))
		return claim_refuse(m, why, len, "the run's progress reports "
				    "do not span %ds yet: nothing to check a "
				    "speed against", JOB_CLAIM_WINDOW);
	if ((rc = claim_observed(m, seen, local_batch, accum, steps_per_sec,
				 why, len)))
		return rc;
	m->claims.tokens -= 1.0;
	m->claims.taken++;
	return 0;
}

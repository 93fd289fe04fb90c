/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_qtrace.c - what the quality experiment traces besides the loss
 * series: when each job reaches each loss-reduction level (the quality
 * paper's Figure 3), and, interval by interval up to the window, the loss
 * drop the plan's allocation was predicted to bring (Algorithm 1's
 * Loss(0) - Loss(a) of every job holding a units) against the drop that
 * happened, so that a small gain can be traced to the predictions, to the
 * allocation or to the workload.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "sim_state.h"

const double sim_levels[SIM_NLEVELS] = { 0.5, 0.8, 0.9, 0.95 };

int sim_qtrace_init(sim_state_t *s)
{
	sim_qtrace_t *q = &s->qtrace;
	size_t n = s->eng.njobs ? s->eng.njobs : 1;

	q->loss = calloc(n, sizeof(*q->loss));
	if (!q->loss)
		return -ENOMEM;
	for (size_t i = 0; i < s->eng.njobs; i++)
		for (int l = 0; l < SIM_NLEVELS; l++)
			s->jobs[i].res.level_time[l] = -1.0;
	return 0;
}

void sim_qtrace_free(sim_state_t *s)
{
	free(s->qtrace.loss);
	s->qtrace.loss = NULL;
}

void sim_qtrace_sample(sim_state_t *s, double t)
{
	for (size_t i = 0; i < s->eng.njobs; i++) {
		sim_job_t *j = &s->jobs[i];
		if (j->st == SJ_FUTURE || !(j->res.loss0 > 0.0))
			continue;
		double reduced = 1.0 - sim_job_loss_at(j, t) / j->res.loss0;
		for (int l = 0; l < SIM_NLEVELS; l++)
			if (j->res.level_time[l] < 0.0 &&
			    reduced >= sim_levels[l] - 1e-12)
				j->res.level_time[l] = t - j->core.outcome.submit;
	}
}

/* At a tick: the interval opened by the previous plan ends now. */
void sim_qtrace_close(sim_state_t *s)
{
	sim_qtrace_t *q = &s->qtrace;

	if (!q->open || q->n >= SIM_QT_MAX)
		return;
	double real = 0.0;
	for (size_t i = 0; i < s->eng.njobs; i++)
		real += q->loss[i] - sim_job_loss_at(&s->jobs[i], s->eng.now);
	q->real[q->n++] = real;
	q->open = false;
}

/* After a tick's plan: what its allocation is predicted to bring. */
void sim_qtrace_open(sim_state_t *s)
{
	sim_qtrace_t *q = &s->qtrace;
	double pred = 0.0;

	if (q->n >= SIM_QT_MAX)
		return;
	for (size_t i = 0; i < s->eng.njobs; i++) {
		sim_job_t *j = &s->jobs[i];
		int workers = sim_hold_workers(&j->core.hold);
		q->loss[i] = sim_job_loss_at(j, s->eng.now);
		if ((j->st != SJ_RUNNING && j->st != SJ_RESTARTING) ||
		    workers < 1 || !j->core.jm)
			continue;
		double now = job_model_loss_after(j->core.jm, NULL,
						  s->cfg->interval, 0);
		double after = job_model_loss_after(j->core.jm, NULL,
						    s->cfg->interval,
						    workers);
		if (isfinite(now) && isfinite(after))
			pred += now - after;
	}
	q->pred[q->n] = pred;
	q->open = true;
}

void sim_qtrace_result(const sim_state_t *s, sim_result_t *out)
{
	out->nqt = s->qtrace.n;
	for (size_t i = 0; i < s->qtrace.n; i++) {
		out->qt_pred[i] = s->qtrace.pred[i];
		out->qt_real[i] = s->qtrace.real[i];
	}
}

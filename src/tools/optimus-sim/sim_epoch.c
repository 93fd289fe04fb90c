/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_epoch.c - CPU shares per scheduling interval, grouped by the loss
 * each job reduced in that interval: a second reading of the quality
 * paper's Figure 4 (53% of the CPU to the 20% of jobs that improve most,
 * 16% to the bottom half), which can also be read over the whole window
 * (sim_exp_quality.c). At every tick up to the window, the jobs that held
 * CPU since the previous tick are ranked by their loss drop in between;
 * the CPU seconds of the top 20% and of the bottom 50% are added up over
 * the intervals.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "sim_rank.h"
#include "sim_state.h"

int sim_epoch_init(sim_state_t *s)
{
	sim_epoch_t *e = &s->epoch;
	size_t n = s->eng.njobs ? s->eng.njobs : 1;

	e->loss = calloc(n, sizeof(*e->loss));
	e->cpu = calloc(n, sizeof(*e->cpu));
	e->drop = calloc(n, sizeof(*e->drop));
	e->held = calloc(n, sizeof(*e->held));
	e->rank = calloc(n, sizeof(*e->rank));
	if (!e->loss || !e->cpu || !e->drop || !e->held || !e->rank)
		return -ENOMEM;
	for (size_t i = 0; i < s->eng.njobs; i++)
		e->loss[i] = s->jobs[i].res.loss0;
	return 0;
}

void sim_epoch_free(sim_state_t *s)
{
	free(s->epoch.loss);
	free(s->epoch.cpu);
	free(s->epoch.drop);
	free(s->epoch.held);
	free(s->epoch.rank);
}

void sim_epoch_tick(sim_state_t *s)
{
	sim_epoch_t *e = &s->epoch;
	size_t n = 0;

	for (size_t i = 0; i < s->eng.njobs; i++) {
		double loss = sim_job_loss_at(&s->jobs[i], s->eng.now);
		double cpu = s->jobs[i].res.cpu_seconds;

		e->drop[i] = e->loss[i] - loss;
		e->held[i] = cpu - e->cpu[i];
		if (e->held[i] > 0.0)
			e->rank[n++] = i;
		e->loss[i] = loss;
		e->cpu[i] = cpu;
	}
	sim_rank_by_drop(e->rank, n, e->drop);
	sim_rank_add_cpu(e->rank, n, e->held, 0.0, 1.0, &e->all);
	sim_rank_add_cpu(e->rank, n, e->held, 0.0, 0.2, &e->top);
	sim_rank_add_cpu(e->rank, n, e->held, 0.5, 1.0, &e->bottom);
}

double sim_epoch_share(const sim_epoch_t *e, bool top)
{
	if (!(e->all > 0.0))
		return NAN;
	return (top ? e->top : e->bottom) / e->all;
}

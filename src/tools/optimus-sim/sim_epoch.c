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

#include "sim_state.h"

int sim_epoch_init(sim_state_t *s)
{
	sim_epoch_t *e = &s->epoch;

	e->loss = calloc(s->njobs ? s->njobs : 1, sizeof(*e->loss));
	e->cpu = calloc(s->njobs ? s->njobs : 1, sizeof(*e->cpu));
	e->rank = calloc(s->njobs ? s->njobs : 1, sizeof(*e->rank));
	if (!e->loss || !e->cpu || !e->rank)
		return -ENOMEM;
	for (size_t i = 0; i < s->njobs; i++)
		e->loss[i] = s->jobs[i].res.loss0;
	return 0;
}

void sim_epoch_free(sim_state_t *s)
{
	free(s->epoch.loss);
	free(s->epoch.cpu);
	free(s->epoch.rank);
}

/* Loss drop of job i since the previous tick (qsort has no context). */
static const sim_epoch_t *rank_epoch;
static const double *rank_now;

/* Larger drop first; ties by index, so that a seed gives one order. */
static int by_drop(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	double dx = rank_epoch->loss[x] - rank_now[x];
	double dy = rank_epoch->loss[y] - rank_now[y];

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return x < y ? -1 : 1;
}

/* Shares of this interval's CPU, added to the totals. */
static void epoch_add(sim_epoch_t *e, const sim_state_t *s, size_t n,
		      const double *now)
{
	size_t top = (size_t)floor(0.2 * n + 0.5);
	size_t bottom = (size_t)floor(0.5 * n + 0.5);

	rank_epoch = e;
	rank_now = now;
	qsort(e->rank, n, sizeof(*e->rank), by_drop);
	for (size_t k = 0; k < n; k++) {
		size_t i = e->rank[k];
		double cpu = s->jobs[i].res.cpu_seconds - e->cpu[i];

		e->all += cpu;
		if (k < top)
			e->top += cpu;
		if (k >= bottom)
			e->bottom += cpu;
	}
}

void sim_epoch_tick(sim_state_t *s)
{
	sim_epoch_t *e = &s->epoch;
	double *now = malloc((s->njobs ? s->njobs : 1) * sizeof(*now));
	size_t n = 0;

	if (!now)
		return;
	for (size_t i = 0; i < s->njobs; i++) {
		now[i] = sim_job_loss_at(&s->jobs[i], s->now);
		if (s->jobs[i].res.cpu_seconds > e->cpu[i])
			e->rank[n++] = i;
	}
	if (n)
		epoch_add(e, s, n, now);
	for (size_t i = 0; i < s->njobs; i++) {
		e->loss[i] = now[i];
		e->cpu[i] = s->jobs[i].res.cpu_seconds;
	}
	free(now);
}

double sim_epoch_share(const sim_epoch_t *e, bool top)
{
	if (!(e->all > 0.0))
		return NAN;
	return (top ? e->top : e->bottom) / e->all;
}

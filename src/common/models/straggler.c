/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* straggler.c - slow-worker detection from per-rank step times. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "models/straggler.h"
#include "util/errmsg.h"

void straggler_params_init(straggler_params_t *p)
{
	p->async_ratio = STRAGGLER_ASYNC_RATIO_DEFAULT;
	p->sync_factor = STRAGGLER_SYNC_FACTOR_DEFAULT;
	p->consecutive = STRAGGLER_CONSECUTIVE_DEFAULT;
}

int straggler_params_check(const straggler_params_t *p, char *err,
			   size_t errlen)
{
	if (!(p->async_ratio > 0 && p->async_ratio < 1))
		return errmsg_set(err, errlen, -EINVAL,
				  "async ratio %g is not in (0, 1)",
				  p->async_ratio);
	if (!(p->sync_factor > 1 && isfinite(p->sync_factor)))
		return errmsg_set(err, errlen, -EINVAL,
				  "sync factor %g is not a finite number "
				  "above 1", p->sync_factor);
	if (p->consecutive < 1 || p->consecutive > 1000)
		return errmsg_set(err, errlen, -EINVAL,
				  "consecutive reports %u is not in 1..1000",
				  p->consecutive);
	return 0;
}

int straggler_init(straggler_t *s, straggler_mode_t mode, size_t nranks)
{
	memset(s, 0, sizeof(*s));
	s->mode = mode;
	return straggler_reset(s, nranks);
}

int straggler_reset(straggler_t *s, size_t nranks)
{
	straggler_rank_t *r;

	if (nranks < 1 || nranks > STRAGGLER_MAX_RANKS)
		return -EINVAL;
	r = calloc(nranks, sizeof(*r));
	if (!r)
		return -ENOMEM;
	free(s->ranks);
	s->ranks = r;
	s->nranks = nranks;
	s->rounds = 0;
	s->detected = false;
	s->rank = -1;
	s->node[0] = '\0';
	s->slowdown = 0;
	return 0;
}

void straggler_clear(straggler_t *s)
{
	free(s->ranks);
	memset(s, 0, sizeof(*s));
}

const char *straggler_mode_name(straggler_mode_t m)
{
	return m == STRAGGLER_ASYNC ? "async" : "sync";
}

/* Printable node names only: they reach logs and SystemComment. */
static bool node_name_ok(const char *node)
{
	size_t i, n = node ? strlen(node) : 0;

	if (n == 0 || n >= STRAGGLER_NODE_LEN)
		return false;
	for (i = 0; i < n; i++)
		if (node[i] < 0x21 || node[i] > 0x7e)
			return false;
	return true;
}

/* Median step time of every rank but `skip` (scratch holds nranks). */
static double median_of_others(const straggler_t *s, size_t skip,
			       double *scratch)
{
	size_t i, n = 0;

	for (i = 0; i < s->nranks; i++)
		if (i != skip)
			scratch[n++] = s->ranks[i].step_time;
	return gsl_stats_median(scratch, 1, n);
}

/* Is a rank with step time t slow against the others' median m? */
static bool is_slow(straggler_mode_t mode, const straggler_params_t *p,
		    double t, double m)
{
	if (mode == STRAGGLER_ASYNC)	/* speed 1/t below ratio x 1/m */
		return t * p->async_ratio > m;
	return t > p->sync_factor * m;
}

/* Every rank has a fresh figure: compare each with the others. */
static int evaluate_round(straggler_t *s, const straggler_params_t *p)
{
	double *scratch, m;
	size_t i;
	int found = 0;

	s->rounds++;
	for (i = 0; i < s->nranks; i++)
		s->ranks[i].fresh = false;
	if (s->nranks < 2 || s->detected)
		return 0;
	scratch = malloc(s->nranks * sizeof(*scratch));
	if (!scratch)
		return 0;	/* try again next round */
	for (i = 0; i < s->nranks; i++) {
		straggler_rank_t *r = &s->ranks[i];

		m = median_of_others(s, i, scratch);
		if (!is_slow(s->mode, p, r->step_time, m)) {
			r->slow_rounds = 0;
			continue;
		}
		r->slow_rounds++;
		/* The slowest rank past the bar is the one named. */
		if (r->slow_rounds >= p->consecutive &&
		    r->step_time / m > s->slowdown) {
			s->rank = (int)i;
			s->slowdown = r->step_time / m;
			snprintf(s->node, sizeof(s->node), "%s", r->node);
			found = 1;
		}
	}
	free(scratch);
	s->detected = found;
	return found;
}

int straggler_observe(straggler_t *s, const straggler_params_t *p, int rank,
		      const char *node, double step_time)
{
	straggler_rank_t *r;
	size_t i;

	if (!s->ranks || rank < 0 || (size_t)rank >= s->nranks ||
	    !node_name_ok(node) || !isfinite(step_time) || step_time <= 0)
		return -EINVAL;
	r = &s->ranks[rank];
	r->step_time = step_time;
	snprintf(r->node, sizeof(r->node), "%s", node);
	r->fresh = true;
	for (i = 0; i < s->nranks; i++)
		if (!s->ranks[i].fresh)
			return 0;
	return evaluate_round(s, p);
}

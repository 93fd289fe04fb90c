/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* sim_events.c - the event min-heap (see sim_events.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "util/grow.h"
#include "sim_events.h"

static bool ev_before(const sim_event_t *a, const sim_event_t *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	if (a->kind != b->kind)
		return a->kind < b->kind;
	return a->seq < b->seq;
}

static void ev_swap(sim_event_t *a, sim_event_t *b)
{
	sim_event_t t = *a;
	*a = *b;
	*b = t;
}

void sim_events_init(sim_events_t *q)
{
	q->v = NULL;
	q->n = q->cap = 0;
	q->next_seq = 0;
}

void sim_events_free(sim_events_t *q)
{
	free(q->v);
	sim_events_init(q);
}

int sim_events_push(sim_events_t *q, double time, sim_ev_kind_t kind,
		    uint32_t job, uint32_t gen)
{
	if (!isfinite(time))
		return -EINVAL;
	sim_event_t *v = grow_array(q->v, &q->cap, q->n, sizeof(*v), 64);
	if (!v)
		return -ENOMEM;
	q->v = v;
	size_t i = q->n++;
	q->v[i] = (sim_event_t){ time, kind, job, gen, q->next_seq++ };
	while (i > 0 && ev_before(&q->v[i], &q->v[(i - 1) / 2])) {
		ev_swap(&q->v[i], &q->v[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	return 0;
}

bool sim_events_pop(sim_events_t *q, sim_event_t *out)
{
	if (!q->n)
		return false;
	*out = q->v[0];
	q->v[0] = q->v[--q->n];
	for (size_t i = 0;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < q->n && ev_before(&q->v[l], &q->v[m]))
			m = l;
		if (r < q->n && ev_before(&q->v[r], &q->v[m]))
			m = r;
		if (m == i)
			break;
		ev_swap(&q->v[i], &q->v[m]);
		i = m;
	}
	return true;
}

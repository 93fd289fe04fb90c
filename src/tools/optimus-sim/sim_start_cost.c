/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_start_cost.c - the seconds a decision costs a simulated job
 * (sim_start_cost.h).
 */
#include "sim_start_cost.h"

double sim_start_queued(double base, double per_queued, double now,
			double *busy_until)
{
	double wait = *busy_until > now ? *busy_until - now : 0.0;

	*busy_until = now + wait + per_queued;
	return base + wait;
}

double sim_start_cost(sim_start_costs_t *c, sim_take_t take,
		      double checkpoint, double now)
{
	switch (take) {
	case SIM_TAKE_START:
		return sim_start_queued(c->first, c->first_queued, now,
					&c->busy_until);
	case SIM_TAKE_RESTART:
	case SIM_TAKE_RESIZE:
		return c->restart + checkpoint;
	case SIM_TAKE_REBATCH:
		return c->rebatch;
	default:
		return 0.0;
	}
}

double sim_start_charge(sim_start_costs_t *c, sim_job_core_t *j,
			sim_take_t take, double now)
{
	double cost = sim_start_cost(c, take, j->ops->checkpoint(j->data),
				     now);

	sim_job_outcome_take(&j->outcome, take, now);
	return cost;
}

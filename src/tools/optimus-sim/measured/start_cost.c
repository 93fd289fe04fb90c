/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/start_cost.c - a first start's cost against the starts queued
 * before it (measured/start_cost.h).
 */
#include "measured/start_cost.h"

double px_start_cost(double base, double per_queued, double now,
		     double *busy_until)
{
	double wait = *busy_until > now ? *busy_until - now : 0.0;

	*busy_until = now + wait + per_queued;
	return base + wait;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/start_cost.h - the seconds a job's first start costs when other
 * jobs start with it. On the localhost cluster of bench/pollux_replay.py
 * the launches of jobs allocated together queue on the one host (four
 * slurmds, each job a slurmstepd and a Python trainer): the i-th of a
 * burst reached its first step about 2 s after the one before it, where a
 * job starting alone took 2 to 4 s (doc/design/simulator.md, "A start cost that
 * depends on the starts together"; calibrated by bench/start_cost.py).
 */
#ifndef OPTIMUS_PX_START_COST_H
#define OPTIMUS_PX_START_COST_H

/*
 * A first start at `now` (seconds): `base` (a start alone) plus the
 * seconds the launches before it still hold the launcher (*busy_until -
 * now, when later), after which this one holds it `per_queued` seconds
 * more (*busy_until updated). Jobs starting together in that order cost
 * base, base + per_queued, base + 2 per_queued, ...; starts further apart
 * than per_queued each cost base. per_queued 0: every start costs base
 * (the pooled single-number cost, experiment pollux's default).
 */
double px_start_cost(double base, double per_queued, double now,
		     double *busy_until);

#endif

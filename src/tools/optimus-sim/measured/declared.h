/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/declared.h - what the users of the measured workloads tell the
 * scheduler of their jobs' length at submission: the hints `epochs=` and
 * `epoch_steps=` of each job (doc/design/simulator.md, "What a job says").
 *
 *   noisy  epochs= as a user gives it: the job's true epoch count times
 *          a lognormal factor (sigma PX_DECLARED_SIGMA, median 1), rounded,
 *          at least 1, drawn per job in submission order from one MT19937
 *          stream seeded with the workload's generator seed; no
 *          epoch_steps= (the record learns an epoch's length from the
 *          epochs the job reports). The rule was fixed before any run.
 *   exact  epochs= the true count and epoch_steps= the dataset over the
 *          submitted batch (the first epoch's steps): each job's total
 *          work within 0.02% of the truth.
 *   none   neither: the record's prior until the job's convergence shows.
 */
#ifndef OPTIMUS_POLLUX_DECLARED_H
#define OPTIMUS_POLLUX_DECLARED_H

#include "measured/engine.h"

#define PX_DECLARED_SIGMA 0.25

typedef enum px_hints {
	PX_HINTS_EXACT = 0, PX_HINTS_NOISY, PX_HINTS_NONE,
} px_hints_t;

/* "exact", "noisy", "none"; NULL for another value. */
const char *px_hints_name(px_hints_t h);
/* 0 and *out, or -EINVAL for an unknown name. */
int px_hints_parse(const char *name, px_hints_t *out);

/* Set every job's declared_epochs and epoch_steps_hint by the rule of
 * `hints`, noisy draws from `seed`: 0 or -ENOMEM. */
int px_workload_declare(px_workload_t *w, px_hints_t hints,
			unsigned long seed);

#endif

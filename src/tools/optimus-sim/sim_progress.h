/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_progress.h - a progress bar on stderr for long runs: shown only on a
 * terminal or when asked (--progress); never on stdout, so that tables and
 * JSON stay identical for a seed.
 */
#ifndef OPTIMUS_SIM_PROGRESS_H
#define OPTIMUS_SIM_PROGRESS_H

#include <stdbool.h>

typedef struct sim_progress {
	bool on, tty;
	int last;		/* last percent drawn */
	const char *what;
} sim_progress_t;

void sim_progress_init(sim_progress_t *p, bool force, const char *what);
/* sim_progress_fn: done in 0..1. */
void sim_progress_update(void *ctx, double done);
void sim_progress_end(sim_progress_t *p);

#endif

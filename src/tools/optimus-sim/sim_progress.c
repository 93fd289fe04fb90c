/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* sim_progress.c - the stderr progress bar (see sim_progress.h). */
#include <stdio.h>
#include <unistd.h>

#include "sim_progress.h"

#define BAR 40

void sim_progress_init(sim_progress_t *p, bool force, const char *what)
{
	p->tty = isatty(STDERR_FILENO);
	p->on = force || p->tty;
	p->last = -1;
	p->what = what;
}

/* A terminal gets a bar redrawn in place at each percent; a log (forced
 * with --progress) one line per 10%. */
void sim_progress_update(void *ctx, double done)
{
	sim_progress_t *p = ctx;
	int step = p->tty ? 1 : 10;
	int pc = (int)(done * 100 + 1e-9) / step * step;

	pc = pc < 0 ? 0 : pc > 100 ? 100 : pc;
	if (!p->on || pc == p->last)
		return;
	p->last = pc;
	int fill = pc * BAR / 100;
	fprintf(stderr, "%s%s [", p->tty ? "\r" : "", p->what);
	for (int i = 0; i < BAR; i++)
		fputc(i < fill ? '=' : i == fill ? '>' : ' ', stderr);
	fprintf(stderr, "] %3d%%%s", pc, p->tty ? "" : "\n");
	fflush(stderr);
}

void sim_progress_end(sim_progress_t *p)
{
	if (p->on && p->tty && p->last >= 0)
		fputc('\n', stderr);
}

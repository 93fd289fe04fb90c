/* sim_progress.c - the stderr progress bar (see sim_progress.h). */
#include <stdio.h>
#include <unistd.h>

#include "sim_progress.h"

#define BAR 40

void sim_progress_init(sim_progress_t *p, bool force, const char *what)
{
	p->on = force || isatty(STDERR_FILENO);
	p->last = -1;
	p->what = what;
}

void sim_progress_update(void *ctx, double done)
{
	sim_progress_t *p = ctx;
	int pm = (int)(done * 1000 + 0.5);

	if (!p->on || pm == p->last)
		return;
	p->last = pm < 0 ? 0 : pm > 1000 ? 1000 : pm;
	int fill = p->last * BAR / 1000;
	fprintf(stderr, "\r%s [", p->what);
	for (int i = 0; i < BAR; i++)
		fputc(i < fill ? '=' : i == fill ? '>' : ' ', stderr);
	fprintf(stderr, "] %5.1f%%", p->last / 10.0);
	fflush(stderr);
}

void sim_progress_end(sim_progress_t *p)
{
	if (p->on && p->last >= 0)
		fputc('\n', stderr);
}

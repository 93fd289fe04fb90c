/*
 * sim_svg.h - a small SVG writer for the simulator's figures: grouped bar
 * charts (normalised JCT and makespan per policy, as in the Optimus
 * paper's figures) and line charts (loss over time). No dependency.
 */
#ifndef OPTIMUS_SIM_SVG_H
#define OPTIMUS_SIM_SVG_H

#include <stddef.h>
#include <stdio.h>

typedef struct svg_series {
	const char *name;
	const double *x, *y;	/* bars: y only, one per group */
	size_t n;
} svg_series_t;

/* Grouped bars: groups[g] labels, series[s].y[g] heights. */
void svg_bars(FILE *f, const char *title, const char *ylabel,
	      const char *const *groups, size_t ngroups,
	      const svg_series_t *series, size_t nseries);
/* Lines over a shared x axis. */
void svg_lines(FILE *f, const char *title, const char *xlabel,
	       const char *ylabel, const svg_series_t *series,
	       size_t nseries);

#endif

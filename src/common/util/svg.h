/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * svg.h - the one SVG writer of the project: grouped bar charts
 * (normalised JCT and makespan per policy, as in the Optimus paper's
 * figures, optimus-sim) and line charts (loss over time, optimus-sim; a
 * job's size over time with its resizes marked, optimusctl plan-history).
 * Plain SVG 1.1, no dependency; text is escaped for XML after the one rule
 * for user text (escape.h), so the document is well-formed whatever the
 * labels hold.
 */
#ifndef OPTIMUS_SVG_H
#define OPTIMUS_SVG_H

#include <stddef.h>
#include <stdio.h>

typedef struct svg_series {
	const char *name;
	const double *x, *y;	/* bars: y only, one per group */
	size_t n;
} svg_series_t;

/* A dashed vertical line at x across a line chart (an event), its label
 * shown above it and as the line's tooltip (<title>). */
typedef struct svg_mark {
	double x;
	const char *label;
} svg_mark_t;

/* One line chart of a stack (svg_stack). */
typedef struct svg_chart {
	const char *title, *xlabel, *ylabel;
	const svg_series_t *series;
	size_t nseries;
	const svg_mark_t *marks;	/* may be NULL */
	size_t nmarks;
} svg_chart_t;

/* Grouped bars: groups[g] labels, series[s].y[g] heights. */
void svg_bars(FILE *f, const char *title, const char *ylabel,
	      const char *const *groups, size_t ngroups,
	      const svg_series_t *series, size_t nseries);
/* Lines over a shared x axis. */
void svg_lines(FILE *f, const char *title, const char *xlabel,
	       const char *ylabel, const svg_series_t *series,
	       size_t nseries);
/* Line charts one above the other in one document, their x axes from 0 to
 * the largest x (or mark) of all of them, so that they line up. */
void svg_stack(FILE *f, const svg_chart_t *charts, size_t ncharts);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * ascii_plot.h - a terminal plot of points (y against x) and a curve.
 */
#ifndef OPTIMUS_ASCII_PLOT_H
#define OPTIMUS_ASCII_PLOT_H

#include <stddef.h>
#include <stdio.h>

typedef double (*ascii_curve_fn)(double x, const void *ctx);

/* Points as '*', the curve (may be NULL) as '.', both on one grid of
 * width x height cells with the y range on the left and the x range
 * below. 0, or -EINVAL when there is nothing to plot. */
int ascii_plot(FILE *f, const double *x, const double *y, size_t n,
	       ascii_curve_fn curve, const void *ctx, int width, int height);

#endif

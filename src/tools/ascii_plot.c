/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * ascii_plot.c - render points and a curve into a character grid.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ascii_plot.h"

typedef struct range {
	double lo, hi;
} range_t;

static range_t range_of(const double *v, size_t n)
{
	range_t r = { INFINITY, -INFINITY };

	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		r.lo = fmin(r.lo, v[i]);
		r.hi = fmax(r.hi, v[i]);
	}
	if (r.hi <= r.lo)	/* one value: give it some room */
		r = (range_t){ r.lo - 0.5, r.lo + 0.5 };
	return r;
}

static int cell(double v, range_t r, int cells)
{
	int c = (int)lround((v - r.lo) / (r.hi - r.lo) * (cells - 1));

	return c < 0 ? -1 : c >= cells ? -1 : c;
}

int ascii_plot(FILE *f, const double *x, const double *y, size_t n,
	       ascii_curve_fn curve, const void *ctx, int width, int height)
{
	range_t rx = range_of(x, n), ry = range_of(y, n);
	char *grid;

	if (n == 0 || width < 8 || height < 3 || !isfinite(rx.lo) || !isfinite(ry.lo))
		return -EINVAL;
	grid = malloc((size_t)width * height);
	if (!grid)
		return -ENOMEM;
	memset(grid, ' ', (size_t)width * height);
	for (int col = 0; curve && col < width; col++) {
		double xv = rx.lo + (rx.hi - rx.lo) * col / (width - 1);
		int row = cell(curve(xv, ctx), ry, height);

		if (row >= 0)
			grid[(height - 1 - row) * width + col] = '.';
	}
	for (size_t i = 0; i < n; i++) {
		int col = cell(x[i], rx, width), row = cell(y[i], ry, height);

		if (col >= 0 && row >= 0)
			grid[(height - 1 - row) * width + col] = '*';
	}
	for (int row = 0; row < height; row++) {
		double label = ry.hi - (ry.hi - ry.lo) * row / (height - 1);

		fprintf(f, "%10.4g |%.*s\n", label, width, grid + row * width);
	}
	fprintf(f, "%10s +%.*s\n", "", width,
		"--------------------------------------------------------------"
		"--------------------------------------------------------------");
	fprintf(f, "%10s  %-*.6g%*.6g\n", "", width / 2, rx.lo,
		width - width / 2, rx.hi);
	free(grid);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/interp_nd.h - piecewise-linear interpolation over scattered points in
 * three dimensions, as the peer's simulator does it (SciPy's
 * LinearNDInterpolator): the Delaunay tetrahedra of the points (Qhull with
 * SciPy's options, "Qbb Qc Qz Q12 Qt"), then barycentric weights inside
 * the tetrahedron that holds the query, found as SciPy finds it (a walk
 * over the lifted facets' planes from the first tetrahedron, then a
 * directed search, then brute force). Where the measured points sit on a
 * grid, Qhull splits a flat face differently on its two sides and the
 * interpolant jumps across it; the search order then decides the value, so
 * it is reproduced, not just any tetrahedron that holds the point.
 * Outside the points' convex hull there is no value.
 */
#ifndef OPTIMUS_POLLUX_ND_H
#define OPTIMUS_POLLUX_ND_H

#include <stddef.h>

#define PX_ND_DIM 3
#define PX_ND_VALS 2

typedef struct px_nd_simplex {
	int v[PX_ND_DIM + 1];		/* vertex indices */
	int nb[PX_ND_DIM + 1];		/* neighbour opposite v[k], -1: none */
	double eq[PX_ND_DIM + 2];	/* lifted facet plane: normal, offset */
	double inv[PX_ND_DIM * PX_ND_DIM];	/* barycentric transform */
	double r[PX_ND_DIM];		/* v[PX_ND_DIM]'s point */
	int flat;			/* degenerate: no transform */
} px_nd_simplex_t;

typedef struct px_nd {
	size_t npoints, nsimplex;
	double (*x)[PX_ND_DIM];		/* points */
	double (*y)[PX_ND_VALS];	/* values at the points */
	px_nd_simplex_t *s;
	double lo[PX_ND_DIM], hi[PX_ND_DIM];	/* bounds of the points */
	double pscale, pshift;		/* Qbb's scaling of the lifted axis */
} px_nd_t;

/* Triangulate n points x with values y (copied): 0 or -errno + message. */
int px_nd_build(px_nd_t *nd, const double (*x)[PX_ND_DIM],
		const double (*y)[PX_ND_VALS], size_t n, char *err,
		size_t errlen);
/* Values at q: 0, or -EDOM outside the convex hull. */
int px_nd_eval(const px_nd_t *nd, const double q[PX_ND_DIM],
	       double out[PX_ND_VALS]);
void px_nd_free(px_nd_t *nd);

#endif

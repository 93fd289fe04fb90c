/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/interp_nd.c - Delaunay (Qhull) linear interpolation with SciPy's simplex
 * search, see measured/interp_nd.h.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libqhull_r/qhull_ra.h>

#include "util/errmsg.h"
#include "measured/interp_nd.h"

#define D PX_ND_DIM
/* SciPy's tolerances: barycentric weights, the broad one beside a flat
 * tetrahedron, and the reciprocal condition below which it is flat. */
#define ND_EPS (100 * DBL_EPSILON)
#define ND_EPS_BROAD 1.4901161193847656e-08	/* sqrt(DBL_EPSILON) */
#define ND_RCOND_MIN (1000 * DBL_EPSILON)

/* 3x3 inverse; 0 when singular. */
static int invert3(const double m[9], double inv[9])
{
	double a = m[0], b = m[1], c = m[2], d = m[3], e = m[4], f = m[5],
	       g = m[6], h = m[7], i = m[8];
	double A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
	double det = a * A + b * B + c * C;

	if (det == 0.0 || !isfinite(det))
		return 0;
	inv[0] = A / det;
	inv[1] = -(b * i - c * h) / det;
	inv[2] = (b * f - c * e) / det;
	inv[3] = B / det;
	inv[4] = (a * i - c * g) / det;
	inv[5] = -(a * f - c * d) / det;
	inv[6] = C / det;
	inv[7] = -(a * h - b * g) / det;
	inv[8] = (a * e - b * d) / det;
	return 1;
}

/* Infinity norm (largest row sum) of a 3x3 matrix. */
static double norm_inf(const double m[9])
{
	double n = 0.0;

	for (int r = 0; r < 3; r++)
		n = fmax(n, fabs(m[3 * r]) + fabs(m[3 * r + 1]) +
			    fabs(m[3 * r + 2]));
	return n;
}

/*
 * The transform of simplex s: lambda = inv * (q - r). A tetrahedron whose
 * reciprocal condition number is below SciPy's limit is flat, as there
 * (LAPACK sees the C array transposed: its 1-norm is our infinity norm).
 */
static void simplex_prepare(px_nd_t *nd, px_nd_simplex_t *s)
{
	double m[9];

	memcpy(s->r, nd->x[s->v[D]], sizeof(s->r));
	for (int i = 0; i < D; i++)
		for (int j = 0; j < D; j++)
			m[i * 3 + j] = nd->x[s->v[j]][i] - s->r[i];
	s->flat = !invert3(m, s->inv) ||
		  !(1.0 / (norm_inf(m) * norm_inf(s->inv)) >= ND_RCOND_MIN);
}

/* Qhull's facets in its order, as SciPy numbers them: lower Delaunay
 * ones only; a neighbour on the upper side is -1. */
static int take_facets(qhT *qh, px_nd_t *nd)
{
	facetT *facet;
	vertexT *vertex, **vertexp;
	facetT *neighbor, **neighborp;
	int *id_map = malloc((qh->facet_id + 1) * sizeof(int));
	size_t j = 0;

	if (!id_map)
		return -ENOMEM;
	for (unsigned k = 0; k <= qh->facet_id; k++)
		id_map[k] = -1;
	FORALLfacets
		if (!facet->upperdelaunay)
			id_map[facet->id] = (int)j++;
	nd->s = calloc(j ? j : 1, sizeof(*nd->s));
	if (!nd->s) {
		free(id_map);
		return -ENOMEM;
	}
	j = 0;
	FORALLfacets {
		int k = 0;
		if (facet->upperdelaunay)
			continue;
		px_nd_simplex_t *s = &nd->s[j++];
		FOREACHvertex_(facet->vertices)
			if (k <= D)
				s->v[k++] = qh_pointid(qh, vertex->point);
		k = 0;
		FOREACHneighbor_(facet)
			if (k <= D)
				s->nb[k++] = id_map[neighbor->id];
		for (k = 0; k <= D; k++)
			s->eq[k] = facet->normal[k];
		s->eq[D + 1] = facet->offset;
	}
	nd->nsimplex = j;
	free(id_map);
	return 0;
}

static int triangulate(px_nd_t *nd, char *err, size_t errlen)
{
	qhT qh_qh, *qh = &qh_qh;
	coordT *pts = malloc(nd->npoints * D * sizeof(*pts));
	char opts[] = "qhull d Qbb Qc Qz Q12 Qt";
	int curlong, totlong, rc = 0;

	if (!pts)
		return -ENOMEM;
	memcpy(pts, nd->x, nd->npoints * D * sizeof(*pts));
	qh_zero(qh, stderr);
	if (qh_new_qhull(qh, D, (int)nd->npoints, pts, False, opts, NULL,
			 stderr)) {
		rc = errmsg_set(err, errlen, -EINVAL, "Delaunay triangulation "
				"of %zu points failed", nd->npoints);
	} else {
		/* Qbb scales the lifted axis; queries are lifted alike. */
		nd->pscale = 1.0;
		nd->pshift = 0.0;
		if (qh->SCALElast) {
			nd->pscale = qh->last_newhigh /
				     (qh->last_high - qh->last_low);
			nd->pshift = -qh->last_low * nd->pscale;
		}
		rc = take_facets(qh, nd);
	}
	qh_freeqhull(qh, !qh_ALL);
	qh_memfreeshort(qh, &curlong, &totlong);
	free(pts);
	return rc;
}

int px_nd_build(px_nd_t *nd, const double (*x)[PX_ND_DIM],
		const double (*y)[PX_ND_VALS], size_t n, char *err,
		size_t errlen)
{
	memset(nd, 0, sizeof(*nd));
	if (n < D + 1)
		return errmsg_set(err, errlen, -EINVAL, "%zu points cannot be "
				  "triangulated in 3 dimensions", n);
	nd->npoints = n;
	nd->x = malloc(n * sizeof(*nd->x));
	nd->y = malloc(n * sizeof(*nd->y));
	if (!nd->x || !nd->y)
		return -ENOMEM;
	memcpy(nd->x, x, n * sizeof(*nd->x));
	memcpy(nd->y, y, n * sizeof(*nd->y));
	for (int d = 0; d < D; d++) {
		nd->lo[d] = INFINITY;
		nd->hi[d] = -INFINITY;
		for (size_t i = 0; i < n; i++) {
			nd->lo[d] = fmin(nd->lo[d], x[i][d]);
			nd->hi[d] = fmax(nd->hi[d], x[i][d]);
		}
	}
	int rc = triangulate(nd, err, errlen);
	for (size_t s = 0; !rc && s < nd->nsimplex; s++)
		simplex_prepare(nd, &nd->s[s]);
	return rc;
}

/* Weight k of q in s (k = D: one minus the others, computed before). */
static double bary(const px_nd_simplex_t *s, const double *q, double *c,
		   int k)
{
	if (k == D) {
		c[D] = 1.0;
		for (int j = 0; j < D; j++)
			c[D] -= c[j];
		return c[D];
	}
	c[k] = 0.0;
	for (int j = 0; j < D; j++)
		c[k] += s->inv[D * k + j] * (q[j] - s->r[j]);
	return c[k];
}

static int inside(const px_nd_simplex_t *s, const double *q, double *c,
		  double eps)
{
	for (int k = 0; k <= D; k++) {
		double w = bary(s, q, c, k);
		if (w < -eps || w > 1 + eps)
			return 0;
	}
	return 1;
}

static int fully_outside(const px_nd_t *nd, const double *q)
{
	for (int d = 0; d < D; d++)
		if (q[d] < nd->lo[d] - ND_EPS || q[d] > nd->hi[d] + ND_EPS)
			return 1;
	return 0;
}

/* Every tetrahedron in order; beside a flat one, its neighbours with a
 * broader tolerance towards it. */
static int find_brute(const px_nd_t *nd, const double *q, double *c)
{
	if (fully_outside(nd, q))
		return -1;
	for (size_t i = 0; i < nd->nsimplex; i++) {
		const px_nd_simplex_t *s = &nd->s[i];
		if (!s->flat) {
			if (inside(s, q, c, ND_EPS))
				return (int)i;
			continue;
		}
		for (int k = 0; k <= D; k++) {
			int nb = s->nb[k];
			if (nb < 0 || nd->s[nb].flat)
				continue;
			const px_nd_simplex_t *t = &nd->s[nb];
			int in = 1;
			for (int m = 0; m <= D && in; m++) {
				double w = bary(t, q, c, m);
				double lo = t->nb[m] == (int)i ? -ND_EPS_BROAD :
								 -ND_EPS;
				in = w >= lo && w <= 1 + ND_EPS;
			}
			if (in)
				return nb;
		}
	}
	return -1;
}

/* Hop to the neighbour across the face the point is beyond, until a
 * tetrahedron holds it; brute force when a flat one is in the way. */
static int find_directed(const px_nd_t *nd, const double *q, double *c,
			 int start)
{
	int i = start;

	for (size_t cycle = 0; cycle < 1 + nd->nsimplex / 4; cycle++) {
		const px_nd_simplex_t *s = &nd->s[i];
		int state = 1;	/* 1 inside, -1 hopped, 0 failed */
		for (int k = 0; k <= D; k++) {
			double w = s->flat ? NAN : bary(s, q, c, k);
			if (w < -ND_EPS) {
				if (s->nb[k] < 0)
					return -1;
				i = s->nb[k];
				state = -1;
				break;
			}
			if (!(w <= 1 + ND_EPS))
				state = 0;
		}
		if (state == 1)
			return i;
		if (state == 0)
			return find_brute(nd, q, c);
	}
	return find_brute(nd, q, c);
}

static double plane_dist(const px_nd_t *nd, int i, const double *z)
{
	const double *e = nd->s[i].eq;
	double d = e[D + 1];

	for (int k = 0; k <= D; k++)
		d += e[k] * z[k];
	return d;
}

/* SciPy's find_simplex from the first tetrahedron (the peer's simulator
 * asks for one point at a time). */
static int find_simplex(const px_nd_t *nd, const double *q, double *c)
{
	double z[D + 1];
	int i = 0;

	if (fully_outside(nd, q) || !nd->nsimplex)
		return -1;
	z[D] = 0.0;
	for (int k = 0; k < D; k++) {
		z[k] = q[k];
		z[D] += q[k] * q[k];
	}
	z[D] = z[D] * nd->pscale + nd->pshift;
	double best = plane_dist(nd, i, z);
	for (int changed = 1; changed && !(best > 0);) {
		changed = 0;
		for (int k = 0; k <= D; k++) {
			int nb = nd->s[i].nb[k];
			if (nb < 0)
				continue;
			double dist = plane_dist(nd, nb, z);
			if (dist > best + ND_EPS * (1 + fabs(best))) {
				i = nb;
				best = dist;
				changed = 1;
			}
		}
	}
	return find_directed(nd, q, c, i);
}

int px_nd_eval(const px_nd_t *nd, const double q[PX_ND_DIM],
	       double out[PX_ND_VALS])
{
	double c[D + 1];
	int i = find_simplex(nd, q, c);

	if (i < 0)
		return -EDOM;
	const px_nd_simplex_t *s = &nd->s[i];
	for (int k = 0; k <= D; k++)
		bary(s, q, c, k);
	for (int j = 0; j < PX_ND_VALS; j++) {
		out[j] = 0.0;
		for (int k = 0; k <= D; k++)
			out[j] += c[k] * nd->y[s->v[k]][j];
	}
	return 0;
}

void px_nd_free(px_nd_t *nd)
{
	free(nd->x);
	free(nd->y);
	free(nd->s);
	memset(nd, 0, sizeof(*nd));
}

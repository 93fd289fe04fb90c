/* pollux_nd.c - Delaunay (Qhull) linear interpolation, see pollux_nd.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libqhull_r/qhull_ra.h>

#include "util/errmsg.h"
#include "pollux_nd.h"

/* Tolerance on barycentric weights, as SciPy's find_simplex. */
#define ND_EPS (100 * 2.220446049250313e-16)

/* 3x3 inverse; false when singular (a flat tetrahedron). */
static int invert3(const double m[9], double inv[9])
{
	double a = m[0], b = m[1], c = m[2], d = m[3], e = m[4], f = m[5],
	       g = m[6], h = m[7], i = m[8];
	double A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
	double det = a * A + b * B + c * C;

	if (!(fabs(det) > 1e-12) || !isfinite(det))
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

/* The transform of simplex s: lambda = inv * (q - x[last]). */
static int simplex_prepare(px_nd_t *nd, size_t s)
{
	const int *v = nd->simplex[s];
	const double *r = nd->x[v[PX_ND_DIM]];
	double m[9];

	for (int k = 0; k < PX_ND_DIM; k++)
		for (int d = 0; d < PX_ND_DIM; d++)
			m[d * 3 + k] = nd->x[v[k]][d] - r[d];
	for (int d = 0; d < PX_ND_DIM; d++) {
		nd->lo[3 * s + d] = INFINITY;
		nd->hi[3 * s + d] = -INFINITY;
		for (int k = 0; k <= PX_ND_DIM; k++) {
			nd->lo[3 * s + d] = fmin(nd->lo[3 * s + d],
						 nd->x[v[k]][d]);
			nd->hi[3 * s + d] = fmax(nd->hi[3 * s + d],
						 nd->x[v[k]][d]);
		}
	}
	return invert3(m, nd->inv[s]);
}

static int triangulate(px_nd_t *nd, char *err, size_t errlen)
{
	qhT qh_qh, *qh = &qh_qh;
	coordT *pts = malloc(nd->npoints * PX_ND_DIM * sizeof(*pts));
	char opts[] = "qhull d Qbb Qc Qz Q12 Qt";
	facetT *facet;
	vertexT *vertex, **vertexp;
	size_t cap = 0;
	int curlong, totlong, rc = 0;

	if (!pts)
		return -ENOMEM;
	memcpy(pts, nd->x, nd->npoints * PX_ND_DIM * sizeof(*pts));
	qh_zero(qh, stderr);
	if (qh_new_qhull(qh, PX_ND_DIM, (int)nd->npoints, pts, False, opts,
			 NULL, stderr)) {
		rc = errmsg_set(err, errlen, -EINVAL, "Delaunay triangulation "
				"of %zu points failed", nd->npoints);
		goto out;
	}
	FORALLfacets
		cap++;
	nd->simplex = calloc(cap ? cap : 1, sizeof(*nd->simplex));
	if (!nd->simplex) {
		rc = -ENOMEM;
		goto out;
	}
	FORALLfacets {
		int k = 0, ok = 1;
		if (facet->upperdelaunay)
			continue;
		FOREACHvertex_(facet->vertices) {
			int id = qh_pointid(qh, vertex->point);
			if (k > PX_ND_DIM || id < 0 || id >= (int)nd->npoints)
				ok = 0;
			else
				nd->simplex[nd->nsimplex][k++] = id;
		}
		if (ok && k == PX_ND_DIM + 1)
			nd->nsimplex++;
	}
out:
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
	if (n < PX_ND_DIM + 1)
		return errmsg_set(err, errlen, -EINVAL, "%zu points cannot be "
				  "triangulated in 3 dimensions", n);
	nd->npoints = n;
	nd->x = malloc(n * sizeof(*nd->x));
	nd->y = malloc(n * sizeof(*nd->y));
	if (!nd->x || !nd->y)
		return -ENOMEM;
	memcpy(nd->x, x, n * sizeof(*nd->x));
	memcpy(nd->y, y, n * sizeof(*nd->y));
	int rc = triangulate(nd, err, errlen);
	if (rc)
		return rc;
	nd->inv = calloc(nd->nsimplex + 1, sizeof(*nd->inv));
	nd->lo = calloc(3 * nd->nsimplex + 1, sizeof(double));
	nd->hi = calloc(3 * nd->nsimplex + 1, sizeof(double));
	if (!nd->inv || !nd->lo || !nd->hi)
		return -ENOMEM;
	/* Flat tetrahedra keep a NaN transform and are never chosen. */
	for (size_t s = 0; s < nd->nsimplex; s++)
		if (!simplex_prepare(nd, s))
			nd->inv[s][0] = NAN;
	return 0;
}

int px_nd_eval(const px_nd_t *nd, const double q[PX_ND_DIM],
	       double out[PX_ND_VALS])
{
	for (size_t s = 0; s < nd->nsimplex; s++) {
		const double *inv = nd->inv[s], *lo = nd->lo + 3 * s,
			     *hi = nd->hi + 3 * s;
		const int *v = nd->simplex[s];
		double l[PX_ND_DIM + 1], d[PX_ND_DIM], last = 1.0;
		int inside = !isnan(inv[0]);

		for (int k = 0; k < PX_ND_DIM && inside; k++)
			inside = q[k] >= lo[k] - 1e-9 && q[k] <= hi[k] + 1e-9;
		if (!inside)
			continue;
		for (int k = 0; k < PX_ND_DIM; k++)
			d[k] = q[k] - nd->x[v[PX_ND_DIM]][k];
		for (int k = 0; k < PX_ND_DIM && inside; k++) {
			l[k] = inv[3 * k] * d[0] + inv[3 * k + 1] * d[1] +
			       inv[3 * k + 2] * d[2];
			last -= l[k];
			inside = l[k] >= -ND_EPS && l[k] <= 1 + ND_EPS;
		}
		if (!inside || last < -ND_EPS || last > 1 + ND_EPS)
			continue;
		l[PX_ND_DIM] = last;
		for (int j = 0; j < PX_ND_VALS; j++) {
			out[j] = 0.0;
			for (int k = 0; k <= PX_ND_DIM; k++)
				out[j] += l[k] * nd->y[v[k]][j];
		}
		return 0;
	}
	return -EDOM;
}

void px_nd_free(px_nd_t *nd)
{
	free(nd->x);
	free(nd->y);
	free(nd->simplex);
	free(nd->inv);
	free(nd->lo);
	free(nd->hi);
	memset(nd, 0, sizeof(*nd));
}

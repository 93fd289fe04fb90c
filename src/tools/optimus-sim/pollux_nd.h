/*
 * pollux_nd.h - piecewise-linear interpolation over scattered points in
 * three dimensions: the Delaunay triangulation of the points (Qhull, with
 * the options SciPy's Delaunay uses, "Qbb Qc Qz Q12 Qt", so that the
 * measured step times interpolate over the same tetrahedra as in the
 * peer's simulator), then barycentric weights inside the tetrahedron that
 * holds the query. Outside the points' convex hull there is no value.
 */
#ifndef OPTIMUS_POLLUX_ND_H
#define OPTIMUS_POLLUX_ND_H

#include <stddef.h>

#define PX_ND_DIM 3
#define PX_ND_VALS 2

typedef struct px_nd {
	size_t npoints, nsimplex;
	double (*x)[PX_ND_DIM];		/* points */
	double (*y)[PX_ND_VALS];	/* values at the points */
	int (*simplex)[PX_ND_DIM + 1];	/* vertex indices */
	double (*inv)[PX_ND_DIM * PX_ND_DIM];	/* barycentric transform */
	double *lo, *hi;		/* per simplex bounding box, 3 each */
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

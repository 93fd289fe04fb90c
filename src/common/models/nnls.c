/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* nnls.c - Lawson-Hanson non-negative least squares on GSL.
 *
 * The active-set loop is written once (nnls_run) over two callbacks: the
 * gradient w = A'(b - A x) and the unconstrained least-squares solve on the
 * passive (free) set. The passive solve uses column-pivoted QR with a
 * numerical rank (gsl_linalg_QRPT_rank + QRPT_lssolve2), so dependent
 * columns get a basic solution instead of a division by zero.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_permutation.h>

#include "models/nnls.h"

typedef struct nnls_problem {
	size_t n;
	void (*gradient)(void *ctx, const double *x, double *w);
	/* Solve on columns with passive[j] != 0; fills z[j] for those. */
	int (*solve)(void *ctx, const unsigned char *passive, double *z);
	void *ctx;
} nnls_problem_t;

/* Least squares of the passive columns of an m x np matrix already copied
 * into M (overwritten), right-hand side rhs; out receives np values. */
static int nnls_qr_lssolve(gsl_matrix *M, const gsl_vector *rhs,
			   gsl_vector *out, gsl_vector *tau, gsl_vector *norm,
			   gsl_vector *resid, size_t *perm_data)
{
	gsl_permutation perm = { M->size2, perm_data };
	int signum;
	size_t rank;

	gsl_linalg_QRPT_decomp(M, tau, &perm, &signum, norm);
	rank = gsl_linalg_QRPT_rank(M, -1.0);
	if (rank == 0) {
		gsl_vector_set_zero(out);
		return 0;
	}
	return gsl_linalg_QRPT_lssolve2(M, tau, &perm, rhs, rank, out, resid);
}

/* Largest gradient entry among the free, not blocked variables. */
static size_t nnls_pick(const nnls_problem_t *pb, const double *w,
			const unsigned char *passive,
			const unsigned char *blocked, double tol)
{
	size_t j, best = pb->n;
	double wmax = tol;

	for (j = 0; j < pb->n; j++) {
		if (!passive[j] && !blocked[j] && w[j] > wmax) {
			wmax = w[j];
			best = j;
		}
	}
	return best;
}

/* Inner loop: move from x towards the passive solution z while some
 * passive z_j <= 0, dropping variables that hit zero. Returns 0 when x is
 * the (feasible) passive solution, a negative errno otherwise. */
static int nnls_inner(const nnls_problem_t *pb, double *x, double *z,
		      unsigned char *passive, int *budget)
{
	size_t j, n = pb->n;
	double alpha;
	int rc;

	for (;;) {
		if ((*budget)-- <= 0)
			return -ERANGE;
		if ((rc = pb->solve(pb->ctx, passive, z)))
			return rc;
		alpha = 2.0;
		for (j = 0; j < n; j++)
			if (passive[j] && z[j] <= 0.0 && x[j] - z[j] > 0.0)
				alpha = fmin(alpha, x[j] / (x[j] - z[j]));
		if (alpha > 1.0) {
			for (j = 0; j < n; j++)
				x[j] = passive[j] ? z[j] : 0.0;
			return 0;
		}
		for (j = 0; j < n; j++) {
			if (!passive[j])
				continue;
			x[j] += alpha * (z[j] - x[j]);
			/* Variables driven to (numerical) zero leave the set. */
			if (x[j] <= 1e-15 * (1.0 + fabs(z[j]))) {
				x[j] = 0.0;
				passive[j] = 0;
			}
		}
	}
}

static int nnls_run(const nnls_problem_t *pb, double *x, double tol,
		    size_t max_passive)
{
	size_t n = pb->n, t, np = 0, j;
	unsigned char passive[n], blocked[n];
	double w[n], z[n];
	int rc, budget = 30 * (int)n + 30;

	memset(passive, 0, n);
	memset(blocked, 0, n);
	for (j = 0; j < n; j++)
		x[j] = 0.0;
	for (;;) {
		pb->gradient(pb->ctx, x, w);
		t = nnls_pick(pb, w, passive, blocked, tol);
		if (t == n || np >= max_passive)
			return 0;
		passive[t] = 1;
		if (budget-- <= 0)
			return -ERANGE;
		if ((rc = pb->solve(pb->ctx, passive, z)))
			return rc;
		/* Lawson-Hanson's safeguard: a column whose own coefficient comes
		 * out non-positive is (numerically) dependent on the passive set;
		 * block it until x moves, otherwise the loop would cycle. */
		if (z[t] <= 0.0) {
			passive[t] = 0;
			blocked[t] = 1;
			continue;
		}
		if ((rc = nnls_inner(pb, x, z, passive, &budget)))
			return rc;
		memset(blocked, 0, n);
		for (np = 0, j = 0; j < n; j++)
			np += passive[j];
	}
}

/* ---- dense problem: passive solves by QR on the columns of A ---- */

typedef struct nnls_dense {
	const gsl_matrix *A;
	const gsl_vector *b;
	gsl_matrix *M;		/* m x n scratch for the passive columns */
	gsl_vector *tau, *norm, *resid, *zp, *r;
	size_t *perm;
} nnls_dense_t;

static void nnls_dense_gradient(void *ctx, const double *x, double *w)
{
	nnls_dense_t *d = ctx;
	gsl_vector_const_view xv = gsl_vector_const_view_array(x, d->A->size2);
	gsl_vector_view wv = gsl_vector_view_array(w, d->A->size2);

	gsl_vector_memcpy(d->r, d->b);
	gsl_blas_dgemv(CblasNoTrans, -1.0, d->A, &xv.vector, 1.0, d->r);
	gsl_blas_dgemv(CblasTrans, 1.0, d->A, d->r, 0.0, &wv.vector);
}

static int nnls_dense_solve(void *ctx, const unsigned char *passive, double *z)
{
	nnls_dense_t *d = ctx;
	size_t m = d->A->size1, n = d->A->size2, j, np = 0;
	gsl_matrix_view Mp;
	gsl_vector_view tau, norm, zp;
	int rc;

	for (j = 0; j < n; j++) {
		if (!passive[j])
			continue;
		gsl_vector_const_view col = gsl_matrix_const_column(d->A, j);
		gsl_matrix_set_col(d->M, np++, &col.vector);
	}
	Mp = gsl_matrix_submatrix(d->M, 0, 0, m, np);
	tau = gsl_vector_subvector(d->tau, 0, np);
	norm = gsl_vector_subvector(d->norm, 0, np);
	zp = gsl_vector_subvector(d->zp, 0, np);
	rc = nnls_qr_lssolve(&Mp.matrix, d->b, &zp.vector, &tau.vector,
			     &norm.vector, d->resid, d->perm);
	if (rc)
		return -EDOM;
	for (np = 0, j = 0; j < n; j++)
		z[j] = passive[j] ? gsl_vector_get(d->zp, np++) : 0.0;
	return 0;
}

static void nnls_dense_free(nnls_dense_t *d)
{
	gsl_matrix_free(d->M);
	gsl_vector_free(d->tau);
	gsl_vector_free(d->norm);
	gsl_vector_free(d->resid);
	gsl_vector_free(d->zp);
	gsl_vector_free(d->r);
	free(d->perm);
}

static int nnls_dense_init(nnls_dense_t *d, const gsl_matrix *A,
			   const gsl_vector *b)
{
	size_t m = A->size1, n = A->size2;

	memset(d, 0, sizeof(*d));
	d->A = A;
	d->b = b;
	d->M = gsl_matrix_alloc(m, n);
	d->tau = gsl_vector_alloc(n);
	d->norm = gsl_vector_alloc(n);
	d->resid = gsl_vector_alloc(m);
	d->zp = gsl_vector_alloc(n);
	d->r = gsl_vector_alloc(m);
	d->perm = calloc(n, sizeof(size_t));
	if (!d->M || !d->tau || !d->norm || !d->resid || !d->zp || !d->r ||
	    !d->perm) {
		nnls_dense_free(d);
		return -ENOMEM;
	}
	return 0;
}

/* Gradient tolerance relative to the initial gradient A'b: below it a
 * variable cannot reduce the residual beyond rounding noise. */
static double nnls_tol(const double *w0, size_t n)
{
	double s = 0.0;
	size_t j;

	for (j = 0; j < n; j++)
		s = fmax(s, fabs(w0[j]));
	return 1e-11 * fmax(s, 1e-300);
}

/* Non-finite input makes the active set loop meaningless (and the QR
 * return garbage): refused up front, and so is a non-finite result. */
static int nnls_finite(const double *v, size_t n, size_t stride)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(v[i * stride]))
			return 0;
	return 1;
}

static int nnls_matrix_finite(const gsl_matrix *A)
{
	size_t i;

	for (i = 0; i < A->size1; i++)
		if (!nnls_finite(A->data + i * A->tda, A->size2, 1))
			return 0;
	return 1;
}

int nnls_solve(const gsl_matrix *A, const gsl_vector *b, gsl_vector *x,
	       double *rnorm)
{
	nnls_dense_t d;
	nnls_problem_t pb;
	size_t n;
	int rc;

	if (!A || !b || !x || A->size1 == 0 || A->size2 == 0 ||
	    b->size != A->size1 || x->size != A->size2)
		return -EINVAL;
	if (!nnls_matrix_finite(A) || !nnls_finite(b->data, b->size, b->stride))
		return -EDOM;
	n = A->size2;
	if ((rc = nnls_dense_init(&d, A, b)))
		return rc;
	pb = (nnls_problem_t){ n, nnls_dense_gradient, nnls_dense_solve, &d };
	{
		double x0[n], w0[n];

		memset(x0, 0, sizeof(x0));
		nnls_dense_gradient(&d, x0, w0);
		rc = nnls_run(&pb, x0, nnls_tol(w0, n), A->size1);
		if (!rc && !nnls_finite(x0, n, 1))
			rc = -EDOM;
		if (!rc) {
			for (size_t j = 0; j < n; j++)
				gsl_vector_set(x, j, x0[j]);
			if (rnorm) {
				nnls_dense_gradient(&d, x0, w0);
				*rnorm = gsl_blas_dnrm2(d.r);
			}
		}
	}
	nnls_dense_free(&d);
	return rc;
}

/* ---- Gram problem: passive solves on G_PP z = h_P, all on the stack ---- */

typedef struct nnls_gram {
	const gsl_matrix *G;
	const gsl_vector *h;
} nnls_gram_t;

static void nnls_gram_gradient(void *ctx, const double *x, double *w)
{
	nnls_gram_t *g = ctx;
	size_t n = g->h->size, i, j;

	for (i = 0; i < n; i++) {
		w[i] = gsl_vector_get(g->h, i);
		for (j = 0; j < n; j++)
			w[i] -= gsl_matrix_get(g->G, i, j) * x[j];
	}
}

static int nnls_gram_solve(void *ctx, const unsigned char *passive, double *z)
{
	nnls_gram_t *g = ctx;
	size_t n = g->h->size, idx[NNLS_GRAM_MAX], perm[NNLS_GRAM_MAX];
	double m[NNLS_GRAM_MAX * NNLS_GRAM_MAX], r[NNLS_GRAM_MAX];
	double tau[NNLS_GRAM_MAX], nrm[NNLS_GRAM_MAX], out[NNLS_GRAM_MAX];
	double res[NNLS_GRAM_MAX];
	size_t np = 0, i, j;

	for (j = 0; j < n; j++)
		if (passive[j])
			idx[np++] = j;
	for (i = 0; i < np; i++) {
		r[i] = gsl_vector_get(g->h, idx[i]);
		for (j = 0; j < np; j++)
			m[i * np + j] = gsl_matrix_get(g->G, idx[i], idx[j]);
	}
	{
		gsl_matrix_view M = gsl_matrix_view_array(m, np, np);
		gsl_vector_view R = gsl_vector_view_array(r, np);
		gsl_vector_view T = gsl_vector_view_array(tau, np);
		gsl_vector_view N = gsl_vector_view_array(nrm, np);
		gsl_vector_view O = gsl_vector_view_array(out, np);
		gsl_vector_view S = gsl_vector_view_array(res, np);

		if (nnls_qr_lssolve(&M.matrix, &R.vector, &O.vector, &T.vector,
				    &N.vector, &S.vector, perm))
			return -EDOM;
	}
	for (j = 0; j < n; j++)
		z[j] = 0.0;
	for (i = 0; i < np; i++)
		z[idx[i]] = out[i];
	return 0;
}

int nnls_solve_gram(const gsl_matrix *G, const gsl_vector *h, gsl_vector *x)
{
	nnls_gram_t g = { G, h };
	nnls_problem_t pb = { 0, nnls_gram_gradient, nnls_gram_solve, &g };
	size_t n, j;
	int rc;

	if (!G || !h || !x || h->size == 0 || h->size > NNLS_GRAM_MAX ||
	    G->size1 != h->size || G->size2 != h->size || x->size != h->size)
		return -EINVAL;
	if (!nnls_matrix_finite(G) || !nnls_finite(h->data, h->size, h->stride))
		return -EDOM;
	n = pb.n = h->size;
	{
		double x0[n], w0[n];

		memset(x0, 0, sizeof(x0));
		nnls_gram_gradient(&g, x0, w0);
		rc = nnls_run(&pb, x0, nnls_tol(w0, n), n);
		if (!rc && !nnls_finite(x0, n, 1))
			rc = -EDOM;
		if (!rc)
			for (j = 0; j < n; j++)
				gsl_vector_set(x, j, x0[j]);
	}
	return rc;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* nnls.h - non-negative least squares (Lawson-Hanson active set).
 *
 * Two entry points share one active-set loop:
 *  - nnls_solve(): min ||A x - b||_2 s.t. x >= 0, passive-set sub-problems
 *    solved by GSL's column-pivoted QR on the columns of A (accurate, copes
 *    with rank-deficient and collinear columns);
 *  - nnls_solve_gram(): the same problem given only G = A'A and h = A'b,
 *    for tall problems (m >> n) refitted very often: the sufficient
 *    statistics are accumulated in one pass and the solve costs O(n^3),
 *    independent of m, with no heap allocation for n <= NNLS_GRAM_MAX.
 * Both return 0 or a negative errno (-EINVAL bad sizes, -ENOMEM,
 * -ERANGE no convergence within 3n outer iterations, -EDOM non-finite
 * input or result).
 */
#ifndef OPTIMUS_NNLS_H
#define OPTIMUS_NNLS_H

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#define NNLS_GRAM_MAX 8

/* x (size n) receives the solution; rnorm (may be NULL) ||A x - b||. */
int nnls_solve(const gsl_matrix *A, const gsl_vector *b, gsl_vector *x,
	       double *rnorm);

/* G is n x n symmetric positive semi-definite, h size n, x size n;
 * n <= NNLS_GRAM_MAX. */
int nnls_solve_gram(const gsl_matrix *G, const gsl_vector *h, gsl_vector *x);

#endif

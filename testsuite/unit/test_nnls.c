/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* test_nnls.c - Lawson-Hanson NNLS: known solutions, active constraints,
 * rank-deficient and collinear inputs, Gram variant, KKT conditions. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_rng.h>

#include "models/nnls.h"
#include "check_run.h"

/* KKT: x >= 0, gradient A'(b - Ax) <= tol, and ~0 where x > 0. */
static void check_kkt(const gsl_matrix *A, const gsl_vector *b,
		      const gsl_vector *x)
{
	gsl_vector *r = gsl_vector_alloc(A->size1);
	gsl_vector *w = gsl_vector_alloc(A->size2);
	size_t j;

	gsl_vector_memcpy(r, b);
	gsl_blas_dgemv(CblasNoTrans, -1.0, A, x, 1.0, r);
	gsl_blas_dgemv(CblasTrans, 1.0, A, r, 0.0, w);
	for (j = 0; j < A->size2; j++) {
		ck_assert(gsl_vector_get(x, j) >= 0.0);
		ck_assert_msg(gsl_vector_get(w, j) <= 1e-8, "w[%zu]=%g", j,
			      gsl_vector_get(w, j));
		if (gsl_vector_get(x, j) > 0.0)
			ck_assert(fabs(gsl_vector_get(w, j)) <= 1e-8);
	}
	gsl_vector_free(r);
	gsl_vector_free(w);
}

static gsl_matrix *random_matrix(gsl_rng *rng, size_t m, size_t n)
{
	gsl_matrix *A = gsl_matrix_alloc(m, n);
	size_t i, j;

	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++)
			gsl_matrix_set(A, i, j, gsl_rng_uniform(rng) - 0.3);
	return A;
}

START_TEST(test_identity_clips_negative)
{
	double a[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, bb[3] = { 1, -2, 3 };
	gsl_matrix_view A = gsl_matrix_view_array(a, 3, 3);
	gsl_vector_view b = gsl_vector_view_array(bb, 3);
	gsl_vector *x = gsl_vector_alloc(3);
	double rnorm;

	ck_assert_int_eq(nnls_solve(&A.matrix, &b.vector, x, &rnorm), 0);
	ck_assert_double_eq_tol(gsl_vector_get(x, 0), 1.0, 1e-12);
	ck_assert_double_eq_tol(gsl_vector_get(x, 1), 0.0, 1e-12);
	ck_assert_double_eq_tol(gsl_vector_get(x, 2), 3.0, 1e-12);
	ck_assert_double_eq_tol(rnorm, 2.0, 1e-12);
	gsl_vector_free(x);
}
END_TEST

START_TEST(test_recovers_positive_solution)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_matrix *A = random_matrix(rng, 20, 4);
	double xt[4] = { 1, 2, 0.5, 3 };
	gsl_vector_view xtv = gsl_vector_view_array(xt, 4);
	gsl_vector *b = gsl_vector_alloc(20), *x = gsl_vector_alloc(4);
	size_t j;

	gsl_blas_dgemv(CblasNoTrans, 1.0, A, &xtv.vector, 0.0, b);
	ck_assert_int_eq(nnls_solve(A, b, x, NULL), 0);
	for (j = 0; j < 4; j++)
		ck_assert_double_eq_tol(gsl_vector_get(x, j), xt[j], 1e-9);
	gsl_matrix_free(A);
	gsl_vector_free(b);
	gsl_vector_free(x);
	gsl_rng_free(rng);
}
END_TEST

/* Two identical columns: any split of the coefficient is optimal. */
START_TEST(test_collinear_columns)
{
	double a[8] = { 1, 1, 2, 2, 3, 3, 4, 4 }, bb[4] = { 2, 4, 6, 8 };
	gsl_matrix_view A = gsl_matrix_view_array(a, 4, 2);
	gsl_vector_view b = gsl_vector_view_array(bb, 4);
	gsl_vector *x = gsl_vector_alloc(2);
	double rnorm;

	ck_assert_int_eq(nnls_solve(&A.matrix, &b.vector, x, &rnorm), 0);
	ck_assert_double_eq_tol(gsl_vector_get(x, 0) + gsl_vector_get(x, 1),
				2.0, 1e-10);
	ck_assert(rnorm < 1e-10);
	check_kkt(&A.matrix, &b.vector, x);
	gsl_vector_free(x);
}
END_TEST

/* Third column = first + second, and more columns than useful rows. */
START_TEST(test_rank_deficient)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_matrix *A = random_matrix(rng, 6, 5);
	gsl_vector *b = gsl_vector_alloc(6), *x = gsl_vector_alloc(5);
	size_t i;

	for (i = 0; i < 6; i++) {
		gsl_matrix_set(A, i, 2, gsl_matrix_get(A, i, 0) +
				       gsl_matrix_get(A, i, 1));
		gsl_matrix_set(A, i, 4, 2.0 * gsl_matrix_get(A, i, 3));
		gsl_vector_set(b, i, gsl_rng_uniform(rng) - 0.2);
	}
	ck_assert_int_eq(nnls_solve(A, b, x, NULL), 0);
	check_kkt(A, b, x);
	gsl_matrix_free(A);
	gsl_vector_free(b);
	gsl_vector_free(x);
	gsl_rng_free(rng);
}
END_TEST

/* Random problems with active constraints: dense and Gram variants give
 * the same KKT point. */
START_TEST(test_gram_matches_dense)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int trial;

	gsl_rng_set(rng, 7);
	for (trial = 0; trial < 50; trial++) {
		size_t m = 30, n = 1 + trial % 6, j;
		gsl_matrix *A = random_matrix(rng, m, n);
		gsl_matrix *G = gsl_matrix_alloc(n, n);
		gsl_vector *b = gsl_vector_alloc(m), *h = gsl_vector_alloc(n);
		gsl_vector *x = gsl_vector_alloc(n), *y = gsl_vector_alloc(n);

		for (j = 0; j < m; j++)
			gsl_vector_set(b, j, gsl_rng_uniform(rng) - 0.5);
		gsl_blas_dgemm(CblasTrans, CblasNoTrans, 1.0, A, A, 0.0, G);
		gsl_blas_dgemv(CblasTrans, 1.0, A, b, 0.0, h);
		ck_assert_int_eq(nnls_solve(A, b, x, NULL), 0);
		ck_assert_int_eq(nnls_solve_gram(G, h, y), 0);
		check_kkt(A, b, x);
		for (j = 0; j < n; j++)
			ck_assert_double_eq_tol(gsl_vector_get(x, j),
						gsl_vector_get(y, j), 1e-8);
		gsl_matrix_free(A);
		gsl_matrix_free(G);
		gsl_vector_free(b);
		gsl_vector_free(h);
		gsl_vector_free(x);
		gsl_vector_free(y);
	}
	gsl_rng_free(rng);
}
END_TEST

/* Singular Gram matrix (collinear +1/-1 columns) as used by curve_fit. */
START_TEST(test_gram_singular)
{
	double g[9] = { 2, 1, -1, 1, 3, -3, -1, -3, 3 }, hh[3] = { 1, -2, 2 };
	gsl_matrix_view G = gsl_matrix_view_array(g, 3, 3);
	gsl_vector_view h = gsl_vector_view_array(hh, 3);
	gsl_vector *x = gsl_vector_alloc(3);
	double u, v;

	ck_assert_int_eq(nnls_solve_gram(&G.matrix, &h.vector, x), 0);
	/* Unconstrained optimum of [[2,1],[1,3]] z = [1,-2]: z = (1, -1);
	 * the -1 is carried by the third (negated) column. */
	u = gsl_vector_get(x, 0);
	v = gsl_vector_get(x, 1) - gsl_vector_get(x, 2);
	ck_assert_double_eq_tol(u, 1.0, 1e-10);
	ck_assert_double_eq_tol(v, -1.0, 1e-10);
	gsl_vector_free(x);
}
END_TEST

START_TEST(test_bad_arguments)
{
	gsl_matrix *A = gsl_matrix_calloc(3, 2), *G = gsl_matrix_calloc(9, 9);
	gsl_vector *b = gsl_vector_calloc(4), *x = gsl_vector_calloc(2);
	gsl_vector *h = gsl_vector_calloc(9), *x9 = gsl_vector_calloc(9);

	ck_assert_int_eq(nnls_solve(A, b, x, NULL), -EINVAL);
	ck_assert_int_eq(nnls_solve(NULL, b, x, NULL), -EINVAL);
	ck_assert_int_eq(nnls_solve_gram(G, h, x9), -EINVAL);
	/* All-zero data: x = 0. */
	gsl_vector_free(b);
	b = gsl_vector_calloc(3);
	ck_assert_int_eq(nnls_solve(A, b, x, NULL), 0);
	ck_assert(gsl_vector_get(x, 0) == 0.0 && gsl_vector_get(x, 1) == 0.0);
	gsl_matrix_free(A);
	gsl_matrix_free(G);
	gsl_vector_free(b);
	gsl_vector_free(x);
	gsl_vector_free(h);
	gsl_vector_free(x9);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nnls");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_identity_clips_negative);
	tcase_add_test(tc, test_recovers_positive_solution);
	tcase_add_test(tc, test_collinear_columns);
	tcase_add_test(tc, test_rank_deficient);
	tcase_add_test(tc, test_gram_matches_dense);
	tcase_add_test(tc, test_gram_singular);
	tcase_add_test(tc, test_bad_arguments);
	suite_add_tcase(s, tc);
	return check_run(s);
}

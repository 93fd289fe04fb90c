/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * test_paa.c - the Parameter Assignment Algorithm on ResNet-50 (the paper's
 * Table 3 case: 157 blocks, ~25 M parameters) and on random block lists,
 * against MXNet's default assignment.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "alloc_synth.h"
#include "alloc/paa.h"
#include "check_run.h"

#define MAXB 4096

static uint64_t blocks[MAXB];

/* Every block is covered exactly once by contiguous pieces; loads add up. */
static void assert_consistent(const uint64_t *b, size_t n,
			      const paa_result_t *r)
{
	uint64_t *covered = calloc(n, sizeof(*covered));
	uint64_t *load = calloc(r->nps, sizeof(*load));
	uint32_t *req = calloc(r->nps, sizeof(*req));

	for (size_t i = 0; i < r->npieces; i++) {
		const paa_piece_t *p = &r->pieces[i];
		ck_assert_uint_lt(p->block, n);
		ck_assert_uint_lt(p->ps, r->nps);
		ck_assert_uint_eq(p->offset, covered[p->block]);
		covered[p->block] += p->size;
		load[p->ps] += p->size;
		req[p->ps]++;
	}
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(covered[i], b[i]);
	for (size_t s = 0; s < r->nps; s++) {
		ck_assert_uint_eq(load[s], r->load[s]);
		ck_assert_uint_eq(req[s], r->requests[s]);
	}
	free(covered);
	free(load);
	free(req);
}

static uint64_t total_of(const uint64_t *b, size_t n)
{
	uint64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += b[i];
	return t;
}

START_TEST(test_resnet50_blocks)
{
	size_t n = paa_model_resnet50(blocks, MAXB);
	uint64_t total = total_of(blocks, n), biggest = 0;

	ck_assert_uint_eq(n, 157);
	/* 25.5 M: the paper's "25 M parameters" */
	ck_assert_uint_gt(total, 25000000);
	ck_assert_uint_lt(total, 26000000);
	for (size_t i = 0; i < n; i++)
		biggest = blocks[i] > biggest ? blocks[i] : biggest;
	/* stage 4's 3x3 conv, 512 x 512 x 9 */
	ck_assert_uint_eq(biggest, 512 * 512 * 9);
	ck_assert_uint_eq(blocks[n - 2], 2048 * 1000);
}
END_TEST

/* Table 3: with 10 PS the PAA sends 157 requests and balances the load. */
START_TEST(test_resnet50_paa_vs_mxnet)
{
	size_t n = paa_model_resnet50(blocks, MAXB);
	paa_result_t paa, mx;
	double mx_spread = 0.0;
	uint64_t mx_req = 0;
	int seeds = 20;

	ck_assert_int_eq(paa_assign(blocks, n, 10, &paa), 0);
	assert_consistent(blocks, n, &paa);
	ck_assert_uint_eq(paa_total_requests(&paa), 157);
	for (int seed = 0; seed < seeds; seed++) {
		ck_assert_int_eq(paa_mxnet_assign(blocks, n, 10,
						  PAA_MXNET_THRESHOLD, seed,
						  &mx), 0);
		assert_consistent(blocks, n, &mx);
		mx_spread += paa_load_spread(&mx) / seeds;
		mx_req = paa_total_requests(&mx);
		paa_result_free(&mx);
	}
	printf("ResNet-50, 10 PS: PAA %llu requests, load max/min %.4f; "
	       "MXNet %llu requests, mean load max/min %.4f (%d seeds)\n",
	       (unsigned long long)paa_total_requests(&paa),
	       paa_load_spread(&paa), (unsigned long long)mx_req, mx_spread,
	       seeds);
	ck_assert_uint_gt(mx_req, 157);
	ck_assert(paa_load_spread(&paa) < mx_spread);
	ck_assert(paa_load_spread(&paa) < 1.25);
	paa_result_free(&paa);
}
END_TEST

/* Only blocks above avg_size are sliced; everything else is one request. */
START_TEST(test_random_blocks)
{
	uint64_t st = 500 + _i;
	size_t n = 1 + fixture_rand(&st) % 400, nps = 1 + fixture_rand(&st) % 32;
	paa_result_t r;
	double avg;
	size_t expect = 0;

	for (size_t i = 0; i < n; i++)
		blocks[i] = 1 + (uint64_t)exp(fixture_uniform(&st, 0, 15));
	avg = (double)total_of(blocks, n) / nps;
	for (size_t i = 0; i < n; i++)
		expect += (double)blocks[i] > avg ?
			  (size_t)ceil(blocks[i] / avg) : 1;
	ck_assert_int_eq(paa_assign(blocks, n, nps, &r), 0);
	assert_consistent(blocks, n, &r);
	ck_assert_uint_eq(r.npieces, expect);
	paa_result_free(&r);
}
END_TEST

START_TEST(test_invalid)
{
	paa_result_t r;

	ck_assert_int_eq(paa_assign(blocks, 3, 0, &r), -EINVAL);
	paa_result_free(&r);
}
END_TEST

static Suite *paa_suite(void)
{
	Suite *s = suite_create("paa");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_resnet50_blocks);
	tcase_add_test(tc, test_resnet50_paa_vs_mxnet);
	tcase_add_loop_test(tc, test_random_blocks, 0, 30);
	tcase_add_test(tc, test_invalid);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(paa_suite());
}

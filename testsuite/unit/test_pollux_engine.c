/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * test_pollux_engine.c - the measured engine's boundaries: the placement
 * of the policies that place their own jobs, the plan's
 * (measured/place.h).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measured/place.h"
#include "measured/policy.h"
#include "check_run.h"

static int gpus_on(const int *alloc, int n, int node)
{
	int c = 0;

	for (int g = 0; g < n; g++)
		c += alloc[g] == node;
	return c;
}

/* GPUs px_place_even gave a job of `want` (alloc[] from 0). */
static int placed(int *free_, int want, int *alloc)
{
	int n = 0;

	ck_assert_int_eq(px_place_even(free_, want, alloc, &n), 0);
	return n;
}

/* Only nodes 3 and 5 have free GPUs: 3 and 4. */
static void two_nodes_free(int *free_)
{
	memset(free_, 0, PX_NODES * sizeof(*free_));
	free_[3] = 3;
	free_[5] = 4;
}

/*
 * The plan's placement (alloc/placement.c): the fewest nodes that hold an
 * even split, nodes with the most free GPUs first (lowest index on ties),
 * a split's extra GPU on the node with fewer free; none when no even
 * split fits, whatever the free GPUs add up to.
 */
START_TEST(test_place_even_is_the_plans)
{
	int free_[PX_NODES], alloc[PX_GPUS], n;

	for (int k = 0; k < PX_NODES; k++)
		free_[k] = PX_NODE_GPUS;
	ck_assert_int_eq(n = placed(free_, 6, alloc), 6);
	ck_assert_int_eq(gpus_on(alloc, n, 0), 3);
	ck_assert_int_eq(gpus_on(alloc, n, 1), 3);
	ck_assert_int_eq(free_[0], 1);
	ck_assert_int_eq(free_[1], 1);
	/* Most free first: 2 GPUs on node 2, not on a node with 1 left. */
	ck_assert_int_eq(n = placed(free_, 2, alloc), 2);
	ck_assert_int_eq(gpus_on(alloc, n, 2), 2);
	/* 5 on nodes of 4 and 3 free: 2 + 3, the extra one on the node
	 * with fewer free. */
	two_nodes_free(free_);
	ck_assert_int_eq(n = placed(free_, 5, alloc), 5);
	ck_assert_int_eq(alloc[0], 5);
	ck_assert_int_eq(gpus_on(alloc, n, 5), 2);
	ck_assert_int_eq(gpus_on(alloc, n, 3), 3);
	/* 7 on the same: 3 + 4 does not fit the node of 3, and there is no
	 * third node: nothing placed, nothing taken. */
	two_nodes_free(free_);
	ck_assert_int_eq(placed(free_, 7, alloc), 0);
	ck_assert_int_eq(free_[3], 3);
	ck_assert_int_eq(free_[5], 4);
	/* The peer's rule, for comparison: 4 then 3. */
	n = 0;
	ck_assert_int_eq(px_place_most_free(free_, 7, alloc, &n), 0);
	ck_assert_int_eq(n, 7);
	ck_assert_int_eq(gpus_on(alloc, n, 5), 4);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pollux_engine");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_place_even_is_the_plans);
	suite_add_tcase(s, tc);
	return check_run(s);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* check_run.h - run a Check suite and turn its result into an exit code. */
#ifndef OPTIMUS_CHECK_RUN_H
#define OPTIMUS_CHECK_RUN_H

#include <check.h>
#include <stdlib.h>

/* Run every test of s (the runner frees it); EXIT_SUCCESS if all pass. */
static inline int check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif

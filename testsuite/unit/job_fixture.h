/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* job_fixture.h - a job record from hints text, for the unit tests of the
 * record and the plan. */
#ifndef OPTIMUS_JOB_FIXTURE_H
#define OPTIMUS_JOB_FIXTURE_H

#include <check.h>

#include "job/job_model.h"

/* A new record for job id with the hints `text` (which must parse). */
static inline job_model_t *job_fixture_new(uint32_t id, const char *text)
{
	optimus_hints_t h;
	char err[256];
	job_model_t *m;

	ck_assert_msg(!hints_parse(text, &h, err, sizeof(err)), "%s", err);
	m = job_model_new(id, 0, &h, 10);
	ck_assert_ptr_nonnull(m);
	return m;
}

#endif

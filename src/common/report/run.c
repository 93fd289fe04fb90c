/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * report/run.c - which run of a job a report comes from (report/run.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "report/run.h"

report_run_verdict_t report_run_verdict(const report_t *r, uint32_t current)
{
	if (!r->has_run)
		return REPORT_RUN_UNNAMED;
	return r->run == current ? REPORT_RUN_CURRENT : REPORT_RUN_STALE;
}

int report_run_from_env(const char *text, uint32_t *run)
{
	char *end;
	unsigned long n;

	/* digits only: strtoul would take " 1", "+1" and "-1" */
	if (!text || *text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	n = strtoul(text, &end, 10);
	if (errno || *end || n > PROTOCOL_MAX_RUN)
		return -EINVAL;
	*run = (uint32_t)n;
	return 0;
}

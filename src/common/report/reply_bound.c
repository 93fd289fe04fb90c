/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * report/reply_bound.c - how much of the replies may wait
 * (report/reply_bound.h).
 */
#include "report/reply_bound.h"

reply_bound_verdict_t reply_bound_verdict(size_t len, size_t queued)
{
	if (len > REPLY_BOUND_MAX)
		return REPLY_BOUND_TOO_LARGE;
	if (queued > REPLY_BOUND_BUDGET || len > REPLY_BOUND_BUDGET - queued)
		return REPLY_BOUND_BUSY;
	return REPLY_BOUND_OK;
}

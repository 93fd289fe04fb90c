/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * report/viewer.c - who sees a job (report/viewer.h).
 */
#include "report/viewer.h"

bool report_viewer_may_see(const report_viewer_t *v, uint32_t owner)
{
	return v->admin || (uid_t)owner == v->uid;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_data.c - the default data paths of optimus-sim (sim_data.h).
 */
#include <stdlib.h>

#include "sim_data.h"

const char *sim_data_path(const char *env, const char *installed)
{
	const char *path = getenv(env);

	return path && *path ? path : installed;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_data.c - the default data paths of optimus-sim (sim_data.h).
 */
#include <sys/stat.h>

#include "sim_data.h"

const char *sim_data_default(const char *built, const char *installed)
{
	struct stat st;

	return stat(built, &st) == 0 ? built : installed;
}

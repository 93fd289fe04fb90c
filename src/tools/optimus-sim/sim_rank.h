/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_rank.h - jobs ranked by their loss drop, and the CPU held by a range
 * of that ranking: the grouping of the quality paper's Figure 4 (the 20%
 * of jobs that improve most, the bottom half), read over the whole window
 * (sim_exp_quality.c) and interval by interval (sim_epoch.c).
 */
#ifndef OPTIMUS_SIM_RANK_H
#define OPTIMUS_SIM_RANK_H

#include <stddef.h>

/* Sort the job indices idx[0..n) by drop[idx], larger first; ties by
 * index, so that a seed gives one order. */
void sim_rank_by_drop(size_t *idx, size_t n, const double *drop);

/* Add cpu[idx[k]] to *sum, one by one in rank order, over the ranks k in
 * [from * n, to * n), each bound rounded to the nearest rank. */
void sim_rank_add_cpu(const size_t *idx, size_t n, const double *cpu,
		      double from, double to, double *sum);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* bench_allreduce.h - all-reduce speed model on measured profiles. */
#ifndef OPTIMUS_BENCH_ALLREDUCE_H
#define OPTIMUS_BENCH_ALLREDUCE_H

/* Prints the error of the all-reduce speed model on the Pollux OSDI'21
 * traces under tracedir (one folder per model). */
void bench_allreduce_measured(const char *tracedir);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * alloc_synth.h - synthetic jobs (fixture_*) shared by the allocation unit
 * tests and bench/bench_alloc (neither owns them: testsuite/synth):
 * Optimus' sync speed model (Eqn. 4) with random coefficients, SLAQ-style
 * loss curves, random instances, and a naive rescan version of the Optimus
 * greedy used as a reference and as the benchmark's baseline.
 */
#ifndef OPTIMUS_ALLOC_SYNTH_H
#define OPTIMUS_ALLOC_SYNTH_H

#include <stdint.h>

#include "alloc/alloc.h"

/* f(p,w) = 1 / (th0 * M / w + th1 + th2 * w / p + th3 * w + th4 * p) */
typedef struct fixture_speed {
	double th[5];
	double batch;   /* M */
} fixture_speed_t;

/* Loss(a) = mu * (done + per_unit * a)^-b + c (Algorithm 1's model). */
typedef struct fixture_loss {
	double mu, b, c;
	double done, per_unit;
} fixture_loss_t;

double fixture_speed(void *ctx, int p, int w);
double fixture_loss(void *ctx, int units);

uint64_t fixture_rand(uint64_t *state);
double fixture_uniform(uint64_t *state, double lo, double hi);

/*
 * n random jobs; speeds[i] and losses[i] back jobs[i]. Task demands draw
 * from a few container shapes (CPU-only PS, CPU or GPU workers).
 */
void fixture_jobs(alloc_job_t *jobs, fixture_speed_t *speeds,
		  fixture_loss_t *losses, size_t n, uint64_t seed);

/* The Optimus greedy recomputing every gain each step (no heap). */
int fixture_naive_optimus(const alloc_job_t *jobs, size_t n,
			  const alloc_params_t *prm, alloc_result_t *out);
/* The completion-rate greedy (alloc/rate.c) rescanning every job at every
 * step (no heap). */
int fixture_naive_rate(const alloc_job_t *jobs, size_t n,
		       const alloc_params_t *prm, alloc_result_t *out);

#endif

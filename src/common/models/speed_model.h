/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* speed_model.h - Optimus resource-to-speed model f(p, w).
 *
 *   async (Eqn. 3): f = w / (t0 + t1*w/p + t2*w + t3*p)
 *   sync  (Eqn. 4): f = 1 / (t0*M/w + t1 + t2*w/p + t3*w + t4*p)
 * p parameter servers, w workers, M the global mini-batch (sync), f in
 * steps per second. The t >= 0 are fitted by NNLS on 1/f (or w/f), which
 * is linear in t, with rows weighted by 1/y so that the residuals are
 * relative errors. Samples come from pre-runs and from every allocation a
 * job ran with; repeated (p, w) are averaged.
 * Mode SPEED_ALLREDUCE (all-reduce jobs, no PS) has its form in
 * allreduce_speed.h; there p is the number of nodes the workers span.
 */
#ifndef OPTIMUS_SPEED_MODEL_H
#define OPTIMUS_SPEED_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#define SPEED_MAX_SAMPLES 4096
#define SPEED_NTHETA 5

typedef enum speed_mode {
	SPEED_ASYNC = 0,
	SPEED_SYNC = 1,
	SPEED_ALLREDUCE = 2,	/* no PS; see allreduce_speed.h (p = nodes) */
} speed_mode_t;

typedef struct speed_sample {
	int p, w;
	double sum;		/* sum of measured speeds */
	unsigned count;		/* how many were averaged */
} speed_sample_t;

/* Fields are readable; modify only through the functions. */
typedef struct speed_model {
	speed_mode_t mode;
	double batch;		/* M, sync mode only */
	speed_sample_t *samples;
	size_t nsamples, cap;
	double theta[SPEED_NTHETA];	/* t0..t3 (async) or t0..t4 (sync) */
	/* The goodput model's overlap of compute and all-reduce (its gamma,
	 * models/goodput.h); 0: none fitted, the two add up. */
	double overlap;
	int fitted;
	double rel_rms;		/* RMS of (f_fit - f)/f over the samples */
	double r2;		/* R^2 of f over the samples, NAN if < 2 */
} speed_model_t;

/* Signature the allocator takes per job, with the model as context. */
typedef double (*speed_fn_t)(const void *ctx, int p, int w);

/* batch must be > 0 in sync and allreduce modes (ignored in async).
 * 0 or -EINVAL. */
int speed_model_init(speed_model_t *m, speed_mode_t mode, double batch);
void speed_model_clear(speed_model_t *m);
/* dst (uninitialised) becomes a deep copy of src: 0 or -ENOMEM. */
int speed_model_copy(speed_model_t *dst, const speed_model_t *src);
size_t speed_model_ntheta(const speed_model_t *m);

/* p >= 1, w >= 1, speed > 0 finite. 0, -EINVAL, -ENOMEM, -ENOSPC. */
int speed_model_add_sample(speed_model_t *m, int p, int w, double speed);
/* Whether (p, w, speed) is a sample the model holds: p >= 1, w >= 1, a
 * finite speed above 0 (speed_model_add_sample refuses any other). */
bool speed_model_sample_valid(int p, int w, double speed);
/* count samples averaging `mean` (restoring saved state). */
int speed_model_add_mean(speed_model_t *m, int p, int w, double mean,
			 unsigned count);
/* Adds all samples of src (same mode and batch) into dst. */
int speed_model_merge(speed_model_t *dst, const speed_model_t *src);

/* 0, -ENODATA (no sample), -ENOMEM, -EDOM (numerical failure). */
int speed_model_fit(speed_model_t *m);
/* Set coefficients directly (ground truth, tests, simulator). */
int speed_model_set_theta(speed_model_t *m, const double *theta, size_t n);

/* Steps per second with p PS and w workers; 0 if not fitted, p < 1 or
 * w < 1. */
double speed_model_eval(const speed_model_t *m, int p, int w);
/* speed_fn_t adapter: ctx is a const speed_model_t *. */
double speed_model_fn(const void *ctx, int p, int w);

/* "async", "sync", "allreduce"; parse: 0 or -EINVAL. */
const char *speed_mode_name(speed_mode_t mode);
int speed_mode_parse(const char *name, speed_mode_t *mode);

/* Mean measured speed of a sample. */
double speed_sample_mean(const speed_sample_t *s);

#endif

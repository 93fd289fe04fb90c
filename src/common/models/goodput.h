/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* goodput.h - goodput of a data-parallel job and the best global batch for
 * an allocation (Pollux, Qiao et al., OSDI 2021: goodput = throughput x
 * statistical efficiency).
 *
 *   goodput(w, n, B) = E(B) * B / T(w, n, b, k)        examples/s at B0's
 *                                                      worth per example
 *
 * E from efficiency.h; T the predicted seconds of one step of w workers
 * on n nodes with per-GPU (atomic) batch b and k extra gradient-
 * accumulation micro-steps, B = b * w * (k + 1), from the fitted
 * all-reduce speed model (allreduce_speed.h, coefficients t0..t4):
 *
 *   g = t0 * b + t1                                    a micro-step's compute
 *   s = t2 * (w-1)/w + t3 * (w-1)/w * [n > 1] + t4 * w   one all-reduce
 *   T = k * g + (g^gamma + s^gamma)^(1/gamma)
 *
 * A micro-step repeats the forward/backward pass and its fixed cost; the
 * gradients are reduced once per step, during the last micro-step's
 * backward pass: gamma (Pollux's, in [1, 10]; speed_model_t.overlap) is
 * how much of the all-reduce that compute hides, 1 none (T = (k + 1) g +
 * s), 10 nearly all but what outlasts it. goodput / B0 is B0-steps of
 * progress per second (efficiency_gain / T).
 *
 * Best batch: for each k = 0..max_accum, with gamma 1 T is linear in B
 * (T = a + c B, a = (k+1) t1 + sync, c = t0 / w) and E(B) B = (Bn + B0) B
 * / (Bn + B), so goodput is unimodal in B with its maximum where
 * d/dB [B / ((Bn + B)(a + c B))] = 0, i.e. B* = sqrt(a Bn / c) (closed
 * form: no numerical search needed). B* is turned into whole per-GPU
 * batches (the two around it and the ends of the range) within the
 * limits; the best of all candidates is chosen. With gamma above 1, T is
 * convex in b and goodput still unimodal: a golden-section search over
 * the whole per-GPU batches finds it. Each micro-step adds t1 to a, which
 * lowers the goodput of every batch: the search goes through k in order
 * and stops once its choice beats the most any batch of a k could have
 * (at B*; with gamma above 1, at B* of each of two lines below T), which
 * no later k can reach (the same choice as through every k).
 */
#ifndef OPTIMUS_GOODPUT_H
#define OPTIMUS_GOODPUT_H

#include "models/efficiency.h"
#include "models/speed_model.h"

typedef struct goodput_limits {
	double min_batch, max_batch;	/* the user's global batch range */
	int min_local, max_local;	/* per-GPU batch: >= 1, the largest
					 * that fits in one GPU's memory */
	int max_accum;			/* extra micro-steps allowed, >= 0 */
} goodput_limits_t;

typedef struct goodput_choice {
	double batch;		/* global: local * workers * (accum + 1) */
	int local, accum;
	double step_time;	/* predicted seconds per step */
	double efficiency;	/* E(batch) */
	double goodput;		/* E(batch) * batch / step_time */
} goodput_choice_t;

/* One measured step: w workers on n nodes, per-GPU batch `local`, `accum`
 * extra micro-steps, `step` seconds for all of them; `sync` the seconds
 * of its all-reduce as the job measured them (step less its micro-steps
 * without all-reduce, e.g. PyTorch DDP's no_sync(); a report's
 * sync_seconds), 0: not measured. A one-worker step has none. */
typedef struct goodput_sample {
	int w, n, local, accum;
	double step;
	double sync;
} goodput_sample_t;

/*
 * Fit t0..t4 of T (formula above) to measured steps of any batches, by
 * NNLS on T with rows weighted by 1/step (relative errors), into speed
 * (initialised by allreduce_speed_init; its batch is not used here).
 * From the first sample on (Pollux's priors, fit_perf_params): a term the
 * samples do not determine takes a prior instead of a guess by the solver.
 *  - One per-GPU batch in all samples: t0 and t1 are not told apart; t1 =
 *    t0 * local, half of a micro-step's compute is its constant (a smaller
 *    per-GPU batch is not free).
 *  - A sync term is fitted only with a sample of its kind, else 0
 *    (optimistic): t2 a single-node sample of w > 1, t3 one of n > 1, t4
 *    one of w > 1; and only if it adds to the rank of the terms before it
 *    (order t0/t1, t2, t3, t4), so the fit has one answer.
 * The sync part measured in every sample of more than one worker
 * (0 < sync < step; a one-worker sample is all compute, whatever its
 * sync): t0/t1 are fitted on the compute part (step - sync) alone and
 * t2..t4 on the all-reduce alone, each by the same rules (priors, rank
 * order t2, t3, t4, rows weighted by 1/step), and gamma with them. A job
 * measures the part of the all-reduce its step waited for, e: the
 * reducing micro-step took g + e, so the whole all-reduce at gamma is
 * s = ((g + e)^gamma - g^gamma)^(1/gamma) (e at gamma 1). Gamma is the
 * one of [1, 10] whose fit predicts the steps best (a grid, then GSL's
 * Brent), kept only if better than 1's beyond rounding, which steps of
 * one per-GPU batch per size cannot show. Else (a sample without its
 * part) all terms on the whole step as above, gamma 1: one sample
 * without it and the fit cannot tell which of its seconds are which.
 * 0, -EINVAL (a bad sample), -ENODATA (none), -ENOMEM, -EDOM.
 */
int goodput_fit(const goodput_sample_t *samples, size_t n,
		speed_model_t *speed);

/* Predicted seconds per step (formula above) from a fitted SPEED_ALLREDUCE
 * model; NAN if not fitted or outside w >= 1, 1 <= n <= w, local >= 1,
 * accum >= 0. */
double goodput_step_time(const speed_model_t *speed, int w, int n,
			 int local, int accum);

/* The goodput of one choice (fills c from local and accum): 0, -EINVAL,
 * -EDOM (no prediction). */
int goodput_eval(const speed_model_t *speed, const efficiency_model_t *eff,
		 int w, int n, int local, int accum, goodput_choice_t *c);

/* The batch of w workers on n nodes with the highest goodput within lim:
 * 0, -EINVAL (bad arguments or limits), -ERANGE (no per-GPU batch within
 * the limits for w workers), -EDOM (the speed model predicts nothing). */
int goodput_best(const speed_model_t *speed, const efficiency_model_t *eff,
		 int w, int n, const goodput_limits_t *lim,
		 goodput_choice_t *best);

#endif

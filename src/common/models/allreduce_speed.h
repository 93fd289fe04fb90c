/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* allreduce_speed.h - speed model of data-parallel all-reduce jobs
 * (PyTorch DDP, Horovod): no parameter servers, w workers on n nodes.
 *
 * Form, motivated like the Optimus paper's Eqn. 2 (time of one step is
 * computation plus communication) for a synchronous job with global
 * mini-batch M split evenly over w workers:
 *
 *   1/f(w, n) = t0 * M/w                    forward/backward of M/w examples
 *             + t1                          fixed per-step cost (update, I/O)
 *             + t2 * (w-1)/w                ring all-reduce inside a node
 *             + t3 * (w-1)/w * [n > 1]      extra when the ring crosses nodes
 *             + t4 * w                      per-worker overhead
 *
 * A ring all-reduce of a model of size S moves 2 (w-1)/w S bytes per
 * worker over the slowest link of the ring, so its time grows with
 * (w-1)/w (t2 ~ 2S/B_intra), and jumps by t3 ~ 2S/B_inter - 2S/B_intra
 * as soon as one link of the ring is a network link (n > 1). t4 carries
 * what grows with the number of workers (ring latency hops, stragglers,
 * launch and barrier costs). f is in steps per second; the t >= 0 are
 * fitted by NNLS on 1/f, which is linear in t, rows weighted by 1/y so
 * that the residuals are relative errors (as the PS model).
 *
 * The model is a speed_model_t in mode SPEED_ALLREDUCE whose samples'
 * p field holds the number of nodes n (1 <= n <= w): samples, averaging,
 * merging, fitting, fit quality and JSON state ("mode": "allreduce") are
 * the PS model's. Accuracy on measured profiles: bench/bench_models.
 */
#ifndef OPTIMUS_ALLREDUCE_SPEED_H
#define OPTIMUS_ALLREDUCE_SPEED_H

#include "models/speed_model.h"

#define ALLREDUCE_NTHETA 5

/* batch M > 0 (global mini-batch, examples per step). 0 or -EINVAL. */
int allreduce_speed_init(speed_model_t *m, double batch);

/* w >= 1 workers on 1 <= n <= w nodes, speed > 0 finite steps/s.
 * 0, -EINVAL, -ENOMEM, -ENOSPC. */
int allreduce_speed_add_sample(speed_model_t *m, int w, int n, double speed);

/* 0, -ENODATA, -ENOMEM, -EDOM (see speed_model_fit). */
int allreduce_speed_fit(speed_model_t *m);

/* Steps per second of w workers on n nodes; 0 if not fitted or outside
 * 1 <= n <= w. */
double allreduce_speed_predict(const speed_model_t *m, int w, int n);

/* The regressors of 1/f at (w, n) for batch M: the form above, one home
 * for it (speed_model.c calls it for SPEED_ALLREDUCE). */
void allreduce_speed_features(double batch, int w, int n, double *phi);

/* Fewest nodes holding w workers with gpn GPUs (workers) per node. */
int allreduce_min_nodes(int w, int gpn);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/app.h - the ground truth of one measured model ("application") of
 * the Pollux artifact (testsuite/data/pollux-osdi21/traces/<name>): its
 * step time for a GPU placement and per-GPU batch, its gradient
 * statistics and epoch boundaries per global batch size. The semantics
 * are those the data's README describes; doc/design/simulator.md ("Measured
 * workloads") says how each is read.
 */
#ifndef OPTIMUS_POLLUX_APP_H
#define OPTIMUS_POLLUX_APP_H

#include <stdbool.h>
#include <stddef.h>

#include "measured/interp_nd.h"
#include "sim_truth_ops.h"

/* Nodes of the simulated cluster (GPUs per node: PX_NODE_GPUS). */
#define PX_NODES 16
#define PX_NODE_GPUS 4
#define PX_MAX_NODES 16

typedef struct px_valid {
	double bsz;		/* global batch size of this run */
	size_t n;		/* epochs (rows) */
	double *progress, *iteration, *metric, *grad_sqr, *grad_var;
} px_valid_t;

typedef struct px_place {
	long long id;		/* GPUs per node, digits concatenated */
	size_t n;		/* rows, by local_bsz ascending */
	double *bsz, *step, *sync;
} px_place_t;

typedef struct px_tput_cache px_tput_cache_t;

typedef struct px_app {
	char name[32];
	px_valid_t *valid;	/* by bsz ascending */
	size_t nvalid;
	px_place_t *places;
	size_t nplaces;
	px_nd_t nd;		/* every measured point over (nodes, replicas,
				 * local_bsz): placements not in `places` */
	double init_bsz, max_bsz;	/* smallest and largest validated */
	double min_local, max_local;	/* per-GPU batch range measured */
	int max_epochs;		/* epochs counted until completion */
	px_tput_cache_t *cache;
} px_app_t;

/* The six models with the epochs the peer counts (bert 2, cifar10 100, ncf
 * 10, imagenet 90, deepspeech2 80, yolov3 50; yolov3 at most 8 per GPU). */
int px_apps_load(const char *traces_dir, px_app_t **apps, size_t *napps,
		 char *err, size_t errlen);
void px_apps_free(px_app_t *apps, size_t napps);
const px_app_t *px_app_find(const px_app_t *apps, size_t n, const char *name);

/*
 * Seconds per step and of it the all-reduce (sync) seconds, for
 * `placement` (GPUs per node, nodes in any order) and per-GPU batch:
 * the measured placement interpolated over local_bsz, or else linear
 * interpolation among all points over (nodes, replicas, local_bsz).
 * 0, or -EDOM outside the measured domain (message in err).
 */
int px_app_step_time(const px_app_t *a, const int *placement, size_t nnodes,
		     double local_bsz, double *step, double *sync, char *err,
		     size_t errlen);
/* Gradient (sqr, var) during `epoch` (0-based) at global batch `bsz`,
 * linear between the validated batch sizes around it: 0 or -EDOM. */
int px_app_grad_stats(const px_app_t *a, double bsz, int epoch, double *sqr,
		      double *var);
/* The truth's gain of global batch bsz during `epoch` over the smallest
 * validated batch B0 (steps of B0 one step is worth): with s = bsz/B0 and
 * the epoch's statistics at bsz, (var + sqr) / (var/s + sqr), 1 if both
 * are 0 (the artifact's reading, README "How the authors' simulator uses
 * them"). 0 or -EDOM. The one home of this rule: the simulator
 * (measured/engine.c) and the replay trainer (optimus-sim truth,
 * examples/replay_trainer.py) both use it. */
int px_app_gain(const px_app_t *a, double bsz, int epoch, double *gain);
/* Seconds of one iteration of `accum` extra micro-steps (each without the
 * all-reduce) after a step of `step` seconds of which `sync` all-reduce. */
double px_app_iteration_time(double step, double sync, int accum);
/* Most GPUs a job of batch bsz may use: bsz over the smallest per-GPU
 * batch measured, within 1..PX_NODES * PX_NODE_GPUS; NCF one (the
 * artifact's rule). */
int px_app_max_replicas(const px_app_t *a, double bsz);
/* The batch NCF runs at under the artifact's elastic policies (its
 * simulator sets it for every NCF job, whatever the workload row says). */
#define PX_NCF_BATCH 32768.0
/* The global batch the artifact starts an elastic (Pollux) job of `a` at:
 * B0, the smallest validated batch, before the job's fit (its simulator's
 * update_local_bsz); NCF at PX_NCF_BATCH, which it never changes. What a
 * goodput job of the simulator submits as its batch (`batch=`). */
double px_app_adaptive_batch(const px_app_t *a);
/* Most extra accumulation micro-steps a goodput job accepts (fixed before
 * the first run, doc/design/simulator.md): the simulator's adaptive jobs and the
 * replay trainer's hints (optimus-sim truth). */
#define PX_MAX_ACCUM 15
/* Most GPUs an adaptive job can use at any batch in its range: the
 * largest batch over the smallest per-GPU batch (NCF one, the artifact's
 * rule), within PX_NODES * PX_NODE_GPUS. */
int px_app_max_replicas_any_batch(const px_app_t *a);
/* Progress at the start of `epoch` (the smallest over the runs). */
double px_app_progress(const px_app_t *a, int epoch);
/* Steps of an epoch at batch bsz, as a job knows them before it runs one
 * (its loader's length: the dataset over the batch), the epoch_steps=
 * hint the simulator's jobs are given (not with --bench-hints). */
double px_app_epoch_steps(const px_app_t *a, double bsz);
/* Cumulative steps after `epoch` at batch bsz (interpolated): -1 if out. */
double px_app_iteration(const px_app_t *a, double bsz, int epoch);

/*
 * The per-GPU (atomic) batch and gradient-accumulation steps for a global
 * batch `bsz` over `replicas` GPUs; force_accum: at least one extra
 * micro-step on one GPU (the peer's rule for a batch above the smallest).
 */
void px_app_split_batch(const px_app_t *a, double bsz, int replicas,
			bool force_accum, int *atomic, int *accum);

/* The split a job runs: at a batch above the smallest validated one, at
 * least one extra micro-step on one GPU (the peer's rule, part of the
 * measured truth); the simulator's jobs and `optimus-sim truth` alike. */
void px_app_split_job(const px_app_t *a, double bsz, int replicas,
		      int *atomic, int *accum);

/* The measured applications as the engines' truth (sim_truth_ops.h,
 * measured/app_truth.c), for a px_spec_t whose `app` is one of them. */
extern const sim_truth_ops_t px_app_truth;

#endif

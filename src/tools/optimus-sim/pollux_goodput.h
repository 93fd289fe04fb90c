/*
 * pollux_goodput.h - what the `goodput` policy knows of one job on the
 * measured workloads: its efficiency model (models/efficiency.h) fed with
 * the gradient statistics the job reported, and its step-time model
 * (models/goodput.h) fitted to the steps it ran, at whatever batch. No
 * truth is read: only px_job_t's reports (obs, grad_sqr/grad_var).
 */
#ifndef OPTIMUS_POLLUX_GOODPUT_H
#define OPTIMUS_POLLUX_GOODPUT_H

#include <stdbool.h>

#include "models/efficiency.h"
#include "models/goodput.h"
#include "pollux_sim.h"

/* Distinct configurations a job must have run before its own step-time
 * fit (the full form of goodput.h) and batch choice are used; below it,
 * the plugin's record with its prior, at the submitted batch and at most
 * px_job_max_replicas GPUs. doc/simulator.md measures 1 against 3. */
#define PX_GOODPUT_MIN_CONFIGS 3
/* Most extra accumulation micro-steps the policy chooses. */
#define PX_GOODPUT_MAX_ACCUM 15

typedef struct px_goodput_job {
	efficiency_model_t eff;
	speed_model_t speed;	/* t0..t4 of goodput.h, by goodput_fit */
	bool fitted;		/* at least PX_GOODPUT_MIN_CONFIGS configs */
	int nobs_fed, nstats_fed;
	goodput_limits_t lim;
} px_goodput_job_t;

/* Set up for job j (its application's limits): 0 or -errno. */
int px_goodput_init(px_goodput_job_t *g, const px_job_t *j);
void px_goodput_clear(px_goodput_job_t *g);
/* Feed what j reported since the last call and refit: 0 or -errno. */
int px_goodput_update(px_goodput_job_t *g, const px_job_t *j);
/* Best batch of w GPUs on n nodes (g->fitted): 0 or -errno. */
int px_goodput_best(const px_goodput_job_t *g, int w, int n,
		    goodput_choice_t *c);
/* Most GPUs a job can use at any batch in its range: the largest batch
 * over the smallest per-GPU batch (NCF one, the artifact's rule). */
int px_goodput_max_replicas(const px_job_t *j);


#endif

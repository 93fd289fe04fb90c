/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_truth.c - derived true speed and convergence of a simulated job
 * (see sim_truth.h and doc/design/simulator.md, "Ground truth").
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "alloc/paa.h"
#include "sim_curves.h"
#include "sim_truth.h"

#define MAX_BLOCKS 512
/* Per-connection overhead per step (Eqn. 2's delta, delta'). */
#define CONN_COST 0.002

/* Most loaded PS over the mean: what slows the PS-bound transfer. */
static double imbalance(const paa_result_t *r)
{
	uint64_t max = 0, sum = 0;

	for (size_t i = 0; i < r->nps; i++) {
		sum += r->load[i];
		if (r->load[i] > max)
			max = r->load[i];
	}
	return sum ? (double)max * r->nps / sum : 1.0;
}

static void truth_imbalance(sim_truth_t *t)
{
	uint64_t blocks[MAX_BLOCKS];
	size_t nb = sim_catalog_blocks(t->model, blocks, MAX_BLOCKS);

	t->imb_paa[0] = t->imb_mxnet[0] = 1.0;
	for (size_t p = 1; p <= SIM_MAX_PS; p++) {
		paa_result_t r;

		t->imb_paa[p] = t->imb_mxnet[p] = 1.0;
		if (paa_assign(blocks, nb, p, &r) == 0)
			t->imb_paa[p] = imbalance(&r);
		paa_result_free(&r);
		/* Seed fixed per (model, p): the same layout in every run. */
		if (paa_mxnet_assign(blocks, nb, p, PAA_MXNET_THRESHOLD,
				     nb * 131 + p, &r) == 0)
			t->imb_mxnet[p] = imbalance(&r);
		paa_result_free(&r);
	}
}

/* Eqns. (3)/(4) coefficients from the model's figures. */
static void truth_speed_coefs(sim_truth_t *t)
{
	const sim_model_t *m = t->model;
	double transfer = 2.0 * 4.0 * m->params_m * 1e6 / SIM_BANDWIDTH;

	memset(t->theta, 0, sizeof(t->theta));
	if (m->family == SIM_FAMILY_MLLIB) {
		/* One iteration is c*S CPU seconds over w units of 2 vCPU,
		 * plus Spark's per-iteration driver overhead. */
		t->batch = 1.0;
		t->theta[0] = m->gflops / m->worker.v[0];
		t->theta[1] = 0.3;
		t->theta[2] = transfer;
		t->theta[3] = 0.01;
		t->comm = 2;
		return;
	}
	double per_sample = 3.0 * m->gflops / SIM_GPU_GFLOPS;
	if (t->mode == SPEED_ASYNC) {
		t->theta[0] = per_sample * m->batch + 0.01;
		t->theta[1] = transfer;
		t->theta[2] = t->theta[3] = CONN_COST;
		t->comm = 1;
	} else {
		t->batch = m->batch * SIM_SYNC_REF_WORKERS;
		t->theta[0] = per_sample;
		t->theta[1] = 0.02;
		t->theta[2] = transfer;
		t->theta[3] = t->theta[4] = CONN_COST;
		t->comm = 2;
	}
}

/*
 * Inverse curve (Eqn. 1) normalised to 1 at k = 1 with asymptote `floor`;
 * beta0 makes the per-epoch decrease reach delta near `target` steps
 * (decrease ~ beta0*W/(beta0*k)^2).
 */
static void truth_inverse(sim_truth_t *t, double target, double floor)
{
	double b0 = t->epoch_steps / (t->delta * target * target);
	double b1 = 1.0 / (1.0 - floor) - b0;

	if (b1 < 1e-6)
		b1 = 1e-6;
	t->curve.form = CURVE_INVERSE;
	/* Un-normalised: loss0 * (1/(b0 k + b1) + floor). */
	t->curve.c[0] = b0 / t->loss0;
	t->curve.c[1] = b1 / t->loss0;
	t->curve.c[2] = floor * t->loss0;
}

/* Power curve mu*k^-b + c with mu + c = loss0 (quality-driven paper). */
static void truth_power(sim_truth_t *t, double b, double floor)
{
	t->curve.form = CURVE_POWER;
	t->curve.c[0] = (1.0 - floor) * t->loss0;
	t->curve.c[1] = b;
	t->curve.c[2] = floor * t->loss0;
}

double sim_truth_max_size(const sim_model_t *m, double delta)
{
	if (m->family != SIM_FAMILY_DL)
		return INFINITY;
	return (1.0 - SIM_FLOOR_HI * m->floor) / (2.0 * delta * m->epochs);
}

int sim_truth_init(sim_truth_t *t, const sim_model_t *m, speed_mode_t mode,
		   double size, double delta, gsl_rng *rng)
{
	if (!t || !m || !(size > 0.0) || !(delta > 0.0) || !rng)
		return -EINVAL;
	if (size > sim_truth_max_size(m, delta))
		return -EDOM;
	memset(t, 0, sizeof(*t));
	t->model = m;
	t->mode = m->family == SIM_FAMILY_MLLIB ? SPEED_SYNC : mode;
	t->delta = delta;
	truth_speed_coefs(t);
	truth_imbalance(t);
	t->epoch_steps = m->epoch_steps;
	if (t->mode == SPEED_SYNC && m->family == SIM_FAMILY_DL)
		t->epoch_steps /= SIM_SYNC_REF_WORKERS;
	t->loss0 = m->loss0 * gsl_ran_flat(rng, 0.8, 1.2);
	double floor = m->floor * gsl_ran_flat(rng, SIM_FLOOR_LO, SIM_FLOOR_HI);
	if (m->family == SIM_FAMILY_MLLIB)
		truth_power(t, gsl_ran_flat(rng, 0.5, 1.0) / size, floor);
	else
		truth_inverse(t, t->epoch_steps * m->epochs * size, floor);
	/* Converged when the normalised loss drops <= delta per epoch. */
	curve_coef_t norm = t->curve;
	norm.c[2] /= t->loss0;
	if (norm.form == CURVE_INVERSE) {
		norm.c[0] *= t->loss0;
		norm.c[1] *= t->loss0;
	} else {
		norm.c[0] /= t->loss0;
	}
	t->total_steps = ceil(curve_k_decrease_below(&norm, 1.0,
						     t->epoch_steps, delta));
	return isfinite(t->total_steps) ? 0 : -EINVAL;
}

double sim_truth_step(const sim_truth_t *t, int p, int w, double x,
		      bool paa, double *comm)
{
	if (p < 1 || w < 1)
		return NAN;
	int pi = p > SIM_MAX_PS ? SIM_MAX_PS : p;
	double imb = paa ? t->imb_paa[pi] : t->imb_mxnet[pi];
	double cx = (SIM_LOCAL_COST + (1.0 - SIM_LOCAL_COST) * x) * imb;
	const double *th = t->theta;

	if (t->mode == SPEED_ASYNC) {
		if (comm)
			*comm = th[1] * cx * w / p;
		return th[0] + th[1] * cx * w / p + th[2] * w + th[3] * p;
	}
	if (comm)
		*comm = th[2] * cx * w / p;
	return th[0] * t->batch / w + th[1] + th[2] * cx * w / p +
	       th[3] * w + th[4] * p;
}

/* Checkpoint bandwidth to shared storage (bytes/s), save + load. */
#define CKPT_BANDWIDTH 2e8

double sim_truth_checkpoint(const sim_truth_t *t)
{
	double bytes = 4.0 * t->model->params_m * 1e6;

	return 2.0 * bytes / CKPT_BANDWIDTH;
}

double sim_truth_loss(const sim_truth_t *t, double step)
{
	if (t->rec)
		return sim_curve_loss(t->rec, step);
	return curve_eval(&t->curve, step + 1.0);
}

double sim_truth_cross(const int *ps, const int *workers, size_t n)
{
	double P = 0, W = 0, local = 0;

	for (size_t i = 0; i < n; i++) {
		P += ps[i];
		W += workers[i];
		local += (double)ps[i] * workers[i];
	}
	return P > 0 && W > 0 ? 1.0 - local / (P * W) : 0.0;
}

size_t sim_truth_split_even(int p, int w, int k, int *ps, int *workers)
{
	if (k < 1)
		k = 1;
	if (k > SIM_MAX_PS)
		k = SIM_MAX_PS;
	for (int i = 0; i < k; i++) {
		ps[i] = placement_share_front(p, k, i);
		workers[i] = placement_share_back(w, k, i);
	}
	return (size_t)k;
}

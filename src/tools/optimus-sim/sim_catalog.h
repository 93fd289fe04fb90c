/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_catalog.h - the simulated workload's model types: the Optimus paper's
 * deep-learning jobs (ResNet-50, VGG-16, Inception-BN, ResNeXt-110,
 * DeepSpeech2, Seq2Seq, CTC, DSSM, KNN, CNN-rand) and the quality-driven
 * paper's Spark MLlib jobs (SVM, MLP, LR, LinReg, GBT, K-means, LDA).
 *
 * Each entry holds physical figures (parameters, compute per sample,
 * batch, dataset size, epochs); sim_truth.c derives the true speed
 * coefficients of Eqns. (3)/(4) and the true loss curve from them. The
 * derivation is documented in doc/design/simulator.md.
 */
#ifndef OPTIMUS_SIM_CATALOG_H
#define OPTIMUS_SIM_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#include "models/curve_fit.h"
#include "alloc/resources.h"

typedef enum sim_family {
	SIM_FAMILY_DL = 0,	/* PS-based deep learning (Optimus) */
	SIM_FAMILY_MLLIB,	/* Spark MLlib (quality-driven paper) */
} sim_family_t;

typedef struct sim_model {
	const char *name;
	sim_family_t family;
	double params_m;	/* parameters, millions */
	double gflops;		/* forward GFLOP per sample */
	double batch;		/* samples per worker per step (async) */
	double epoch_steps;	/* steps per epoch with one worker */
	double epochs;		/* epochs to converge (median job) */
	double loss0;		/* initial (un-normalised) training loss */
	double floor;		/* asymptote as a fraction of loss0 */
	unsigned nlayers;	/* parameter blocks of the model (PAA) */
	res_vec_t ps, worker;	/* one task */
	int max_ps, max_workers;
	curve_form_t form;	/* true loss curve shape */
} sim_model_t;

size_t sim_catalog_count(void);
const sim_model_t *sim_catalog_at(size_t i);
/* By name (case-insensitive); NULL if unknown. */
const sim_model_t *sim_catalog_find(const char *name);
/* The models of a family, in catalogue order: count written. */
size_t sim_catalog_family(sim_family_t f, const sim_model_t **out,
			  size_t cap);

/*
 * The model's parameter blocks (sizes): ResNet-50 from paa.h's exact
 * architecture, the others laid out deterministically from nlayers and
 * params_m (a few large fully-connected/embedding blocks, many small
 * conv/bias blocks). Returns the count written.
 */
size_t sim_catalog_blocks(const sim_model_t *m, uint64_t *sizes, size_t cap);

#endif

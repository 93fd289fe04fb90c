/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_catalog.c - the model catalogue (figures and their sources are in
 * doc/design/simulator.md, "Workload").
 */
#include <math.h>
#include <strings.h>

#include "alloc/paa.h"
#include "sim_catalog.h"

/* Units as in the hints: CPUs, MB, GPUs. A DL worker holds one GPU, a PS
 * only CPU and memory. */
#define DL_PS { { 2, 4096, 0 } }
#define DL_WORKER { { 4, 8192, 1 } }
/* MLlib: one worker is one unit (2 vCPU, 8 GB); the PS is the driver. */
#define ML_PS { { 1, 1024, 0 } }
#define ML_WORKER { { 2, 8192, 0 } }

/*
 * name, family, params (M), GFLOP/sample (MLlib: CPU s per iteration),
 * batch, steps per epoch, epochs, initial loss, asymptote fraction,
 * blocks, ps, worker, max ps, max workers, curve.
 * Datasets are down-sampled (as in the paper's testbed) so that a median
 * job runs 30-90 minutes on 4 workers.
 */
static const sim_model_t catalog[] = {
	{ "resnet-50", SIM_FAMILY_DL, 25.5, 4.1, 32, 2000, 30, 6.9, 0.10,
	  157, DL_PS, DL_WORKER, 8, 16, CURVE_INVERSE },
	{ "vgg-16", SIM_FAMILY_DL, 138.4, 15.5, 32, 1000, 20, 6.9, 0.12,
	  32, DL_PS, DL_WORKER, 8, 16, CURVE_INVERSE },
	{ "inception-bn", SIM_FAMILY_DL, 11.3, 2.0, 32, 2000, 30, 6.9, 0.10,
	  200, DL_PS, DL_WORKER, 8, 16, CURVE_INVERSE },
	{ "resnext-110", SIM_FAMILY_DL, 1.7, 0.25, 128, 390, 100, 2.3, 0.05,
	  330, DL_PS, DL_WORKER, 4, 16, CURVE_INVERSE },
	{ "deepspeech2", SIM_FAMILY_DL, 38.0, 20.0, 16, 1500, 15, 4.5, 0.15,
	  60, DL_PS, DL_WORKER, 8, 16, CURVE_INVERSE },
	{ "seq2seq", SIM_FAMILY_DL, 40.0, 3.0, 64, 2000, 12, 9.2, 0.20,
	  30, DL_PS, DL_WORKER, 8, 16, CURVE_INVERSE },
	{ "ctc", SIM_FAMILY_DL, 12.0, 2.0, 32, 1000, 20, 4.0, 0.15,
	  40, DL_PS, DL_WORKER, 8, 16, CURVE_INVERSE },
	{ "dssm", SIM_FAMILY_DL, 10.0, 0.05, 256, 1500, 15, 0.7, 0.20,
	  12, DL_PS, DL_WORKER, 4, 12, CURVE_INVERSE },
	{ "knn", SIM_FAMILY_DL, 5.0, 0.02, 256, 1000, 10, 1.0, 0.10,
	  8, DL_PS, DL_WORKER, 4, 12, CURVE_INVERSE },
	{ "cnn-rand", SIM_FAMILY_DL, 6.0, 0.01, 50, 200, 20, 1.1, 0.10,
	  8, DL_PS, DL_WORKER, 4, 8, CURVE_INVERSE },
	/* MLlib: gflops holds the CPU seconds of one iteration (c*S). */
	{ "svm", SIM_FAMILY_MLLIB, 0.05, 4.0, 1, 100, 6, 0.20, 0.20,
	  1, ML_PS, ML_WORKER, 1, 16, CURVE_POWER },
	{ "mlp", SIM_FAMILY_MLLIB, 0.5, 12.0, 1, 100, 4, 0.35, 0.15,
	  4, ML_PS, ML_WORKER, 1, 16, CURVE_POWER },
	{ "logreg", SIM_FAMILY_MLLIB, 0.05, 3.0, 1, 100, 6, 0.18, 0.25,
	  1, ML_PS, ML_WORKER, 1, 16, CURVE_POWER },
	{ "linreg", SIM_FAMILY_MLLIB, 0.05, 2.0, 1, 100, 6, 0.10, 0.30,
	  1, ML_PS, ML_WORKER, 1, 16, CURVE_POWER },
	{ "gbt", SIM_FAMILY_MLLIB, 0.2, 20.0, 1, 50, 4, 0.25, 0.20,
	  2, ML_PS, ML_WORKER, 1, 16, CURVE_POWER },
	{ "kmeans", SIM_FAMILY_MLLIB, 0.1, 6.0, 1, 100, 4, 0.15, 0.30,
	  1, ML_PS, ML_WORKER, 1, 16, CURVE_POWER },
	{ "lda", SIM_FAMILY_MLLIB, 1.0, 16.0, 1, 50, 4, 0.22, 0.25,
	  2, ML_PS, ML_WORKER, 1, 16, CURVE_POWER },
};

#define NCATALOG (sizeof(catalog) / sizeof(catalog[0]))

size_t sim_catalog_count(void)
{
	return NCATALOG;
}

const sim_model_t *sim_catalog_at(size_t i)
{
	return i < NCATALOG ? &catalog[i] : NULL;
}

const sim_model_t *sim_catalog_find(const char *name)
{
	for (size_t i = 0; name && i < NCATALOG; i++)
		if (!strcasecmp(catalog[i].name, name))
			return &catalog[i];
	return NULL;
}

size_t sim_catalog_family(sim_family_t f, const sim_model_t **out,
			  size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < NCATALOG && n < cap; i++)
		if (catalog[i].family == f)
			out[n++] = &catalog[i];
	return n;
}

/* VGG-16's 13 conv + 3 FC layers, weights and biases: 138.4 M. */
static size_t blocks_vgg16(uint64_t *sizes, size_t cap)
{
	static const int cfg[] = { 64, 64, 128, 128, 256, 256, 256,
				   512, 512, 512, 512, 512, 512 };
	static const uint64_t fc[][2] = { { 25088, 4096 }, { 4096, 4096 },
					   { 4096, 1000 } };
	size_t n = 0;
	uint64_t in = 3;

	for (size_t i = 0; i < 13 && n + 2 <= cap; i++) {
		sizes[n++] = 9 * in * cfg[i];
		sizes[n++] = cfg[i];
		in = cfg[i];
	}
	for (size_t i = 0; i < 3 && n + 2 <= cap; i++) {
		sizes[n++] = fc[i][0] * fc[i][1];
		sizes[n++] = fc[i][1];
	}
	return n;
}

/*
 * Other models: alternating weight and bias/normalisation blocks; weights
 * grow with depth as (i+1)^1.5 (channels widen), and the last weight block
 * (classifier or embedding) holds a quarter of the parameters.
 */
static size_t blocks_generic(const sim_model_t *m, uint64_t *sizes,
			     size_t cap)
{
	size_t n = m->nlayers < cap ? m->nlayers : cap;
	size_t last = (n - 1) & ~(size_t)1;	/* last weight block */
	double total = m->params_m * 1e6, wsum = 0.0, small = 0.0;

	if (n == 0)
		return 0;
	for (size_t i = 1; i < n; i += 2)
		small += sizes[i] = 256 + (i * 37) % 1792;
	for (size_t i = 0; i < n; i += 2)
		wsum += pow(i + 1.0, 1.5);
	double body = total - small;
	for (size_t i = 0; i < n; i += 2)
		sizes[i] = (uint64_t)(0.75 * body * pow(i + 1.0, 1.5) / wsum)
			   + 1;
	sizes[last] += (uint64_t)(0.25 * body);
	return n;
}

size_t sim_catalog_blocks(const sim_model_t *m, uint64_t *sizes, size_t cap)
{
	if (!strcasecmp(m->name, "resnet-50"))
		return paa_model_resnet50(sizes, cap);
	if (!strcasecmp(m->name, "vgg-16"))
		return blocks_vgg16(sizes, cap);
	return blocks_generic(m, sizes, cap);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * paa_models.c - parameter block lists of reference models, computed from
 * their architecture, to exercise and benchmark the PAA.
 *
 * ResNet-50 as built by MXNet's symbols/resnet.py (the model of the Optimus
 * paper's Table 3): pre-activation (v2) bottleneck units [3, 4, 6, 3] with
 * filters [256, 512, 1024, 2048]. Trainable arrays, in symbol order:
 *   bn_data gamma, beta (3 input channels)
 *   conv0 7x7, 3 -> 64 (no bias); bn0 gamma, beta
 *   per unit (in -> f, bottleneck f/4):
 *     bn1 (in), conv1 1x1 in -> f/4, bn2 (f/4), conv2 3x3 f/4 -> f/4,
 *     bn3 (f/4), conv3 1x1 f/4 -> f, and in the first unit of each stage a
 *     1x1 shortcut conv in -> f
 *   bn1 (2048) gamma, beta; fc1 weight 2048 x 1000 and bias 1000
 * Moving means/variances are auxiliary states, not pushed to the PS.
 * That is 2 + 1 + 2 + 16 * 9 + 4 + 2 + 2 = 157 blocks, 25.5 M parameters.
 */
#include "alloc/paa.h"

typedef struct blocks {
	uint64_t *sizes;
	size_t cap, n;
} blocks_t;

static void blocks_add(blocks_t *b, uint64_t size)
{
	if (b->n < b->cap)
		b->sizes[b->n] = size;
	b->n++;
}

/* Batch norm: gamma and beta, one value per channel each. */
static void blocks_bn(blocks_t *b, uint64_t channels)
{
	blocks_add(b, channels);
	blocks_add(b, channels);
}

static void blocks_conv(blocks_t *b, uint64_t in, uint64_t out, uint64_t k)
{
	blocks_add(b, in * out * k * k);
}

static void blocks_unit(blocks_t *b, uint64_t in, uint64_t f, int first)
{
	blocks_bn(b, in);
	blocks_conv(b, in, f / 4, 1);
	blocks_bn(b, f / 4);
	blocks_conv(b, f / 4, f / 4, 3);
	blocks_bn(b, f / 4);
	blocks_conv(b, f / 4, f, 1);
	if (first)
		blocks_conv(b, in, f, 1);
}

size_t paa_model_resnet50(uint64_t *sizes, size_t cap)
{
	static const int units[4] = { 3, 4, 6, 3 };
	static const uint64_t filters[5] = { 64, 256, 512, 1024, 2048 };
	blocks_t b = { .sizes = sizes, .cap = cap };
	uint64_t in = filters[0];

	blocks_bn(&b, 3);
	blocks_conv(&b, 3, filters[0], 7);
	blocks_bn(&b, filters[0]);
	for (int s = 0; s < 4; s++)
		for (int u = 0; u < units[s]; u++) {
			blocks_unit(&b, in, filters[s + 1], u == 0);
			in = filters[s + 1];
		}
	blocks_bn(&b, in);
	blocks_add(&b, in * 1000);
	blocks_add(&b, 1000);
	return b.n;
}

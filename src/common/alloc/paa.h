/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * paa.h - Optimus' Parameter Assignment Algorithm (PAA): parameter blocks to
 * parameter servers, balancing both the load (parameters) and the number of
 * update requests per PS, and MXNet's default assignment for comparison.
 */
#ifndef OPTIMUS_PAA_H
#define OPTIMUS_PAA_H

#include <stddef.h>
#include <stdint.h>

typedef struct paa_piece {
	uint32_t block;    /* index in the input block array */
	uint32_t ps;
	uint64_t offset;   /* first parameter of the block in this piece */
	uint64_t size;
} paa_piece_t;

typedef struct paa_result {
	size_t nps;
	uint64_t *load;        /* parameters held by each PS */
	uint32_t *requests;    /* update requests (pieces) per PS per step */
	size_t npieces;
	paa_piece_t *pieces;
} paa_result_t;

/* Thresholds of the PAA, as fractions of avg_size = total / #PS. */
#define PAA_SMALL_FRACTION 0.01
/* MXNet slices blocks of at least this many parameters across all PS. */
#define PAA_MXNET_THRESHOLD 1000000ULL

/*
 * PAA: blocks < 1% of avg_size go to the PS with the fewest requests,
 * blocks of 1%..100% of avg_size are best-fit into the PS whose remaining
 * room (avg_size - load) is the smallest that holds them, and only blocks
 * larger than avg_size are sliced (into ceil(size / avg_size) pieces on the
 * least loaded PS). Returns 0, -EINVAL or -ENOMEM.
 */
int paa_assign(const uint64_t *blocks, size_t nblocks, size_t nps,
	       paa_result_t *out);
/*
 * MXNet's default (KVStore dist): a block below `threshold` parameters goes
 * to one PS drawn at random (seeded); a larger one is sliced equally across
 * all PS.
 */
int paa_mxnet_assign(const uint64_t *blocks, size_t nblocks, size_t nps,
		     uint64_t threshold, uint64_t seed, paa_result_t *out);
void paa_result_free(paa_result_t *out);

/* max PS load / min PS load (INFINITY when a PS holds nothing). */
double paa_load_spread(const paa_result_t *res);
uint64_t paa_total_requests(const paa_result_t *res);

/*
 * The parameter blocks (arrays updated through the PS) of MXNet's ResNet-50
 * (v2, ImageNet, 1000 classes), computed from the architecture: 157 blocks,
 * about 25.5 M parameters. Writes at most cap sizes; returns the count.
 */
size_t paa_model_resnet50(uint64_t *sizes, size_t cap);

#endif

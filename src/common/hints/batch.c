/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* hints/batch.c - the batch hints in use: the submitted batch of a job
 * split over its workers (hints_batch_split), the limits of an adaptive
 * job's batch (hints_batch_limits); see hints.h. */
#include <errno.h>

#include "hints/hints.h"
#include "util/errmsg.h"

int hints_batch_split(const optimus_hints_t *h, uint32_t workers,
		      hints_batch_t *out, char *err, size_t errlen)
{
	uint64_t per, accum = 0, local;

	if (!h->batch)
		return errmsg_set(err, errlen, -ENOENT, "no batch= hint");
	if (!workers)
		return errmsg_set(err, errlen, -EINVAL, "no workers");
	per = (h->batch + workers - 1) / workers;
	if (h->max_local_batch)
		accum = (per + h->max_local_batch - 1) / h->max_local_batch - 1;
	if (accum > h->max_accum)
		return errmsg_set(err, errlen, -ERANGE, "batch=%llu on %u "
				  "workers needs %llu samples per worker, "
				  "more than max_local_batch=%llu x (max_accum="
				  "%llu + 1)", (unsigned long long)h->batch,
				  workers, (unsigned long long)per,
				  (unsigned long long)h->max_local_batch,
				  (unsigned long long)h->max_accum);
	local = (per + accum) / (accum + 1);
	out->local = (uint32_t)local;
	out->accum = (uint32_t)accum;
	out->batch = local * workers * (accum + 1);
	return 0;
}

uint32_t hints_batch_fewest_workers(const optimus_hints_t *h)
{
	uint64_t cap = h->max_local_batch * (h->max_accum + 1);

	if (!h->batch || !h->max_local_batch)
		return 1;
	return (uint32_t)((h->batch + cap - 1) / cap);
}

int hints_batch_limits(const optimus_hints_t *h, goodput_limits_t *lim)
{
	double lo, hi;

	if (!h->batch)
		return -EINVAL;
	lo = (double)(h->min_batch ? h->min_batch : h->batch);
	hi = (double)(h->max_batch ? h->max_batch : h->batch);
	*lim = (goodput_limits_t){
		.min_batch = lo, .max_batch = hi, .min_local = 1,
		.max_local = h->max_local_batch ? (int)h->max_local_batch :
			     (int)(hi < 2147483647.0 ? hi : 2147483647.0),
		.max_accum = (int)h->max_accum };
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/fixed_size.c - the fixed-size baselines of this project on the
 * measured workloads, through the core's allocators (alloc.h) on
 * all-reduce jobs: `drf` (fair sharing) and `fifo` (strict order), each
 * job at the GPUs it was submitted with, never resized, placed on the
 * fewest nodes. The policies that size jobs (optimus, optimus-rate,
 * goodput, quality, optimus-oracle) go through the plan itself
 * (measured/plan_adapter.c); the peer's through their rules (measured/peer_baselines.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "util/errmsg.h"
#include "measured/policy.h"

typedef enum { OURS_DRF, OURS_FIFO } ours_kind_t;

/* A fixed-size job's speed: positive, the allocators only size it. */
static double fixed_speed(void *ctx, int p, int w)
{
	(void)ctx;
	(void)p;
	return w > 0 ? (double)w : 0.0;
}

static void job_for_alloc(const px_sim_t *s, size_t i, alloc_job_t *aj)
{
	const px_job_t *j = &s->jobs[i];

	memset(aj, 0, sizeof(*aj));
	aj->id = (uint32_t)i;
	aj->speed = fixed_speed;
	aj->remaining_steps = 1.0;
	aj->no_ps = true;
	aj->ps_demand = res_make(0, 0, 0);
	aj->worker_demand = res_make(0, 0, 1);
	aj->min_workers = aj->max_workers = aj->req_workers =
		j->spec->replicas;
	aj->max_units = aj->max_workers;
}

static int ours_plan(px_policy_t *p, px_sim_t *s, const size_t *active,
		     size_t n, int (*next)[PX_GPUS], int *nnext)
{
	ours_kind_t kind = *(const ours_kind_t *)p->state;
	alloc_job_t *aj = calloc(n, sizeof(*aj));
	int *want = calloc(n, sizeof(int)), rc = 0;
	size_t *order = calloc(n, sizeof(size_t));
	alloc_params_t prm;
	alloc_result_t res;

	memset(&res, 0, sizeof(res));
	if (!aj || !want || !order) {
		rc = errmsg_set(s->err, s->errlen, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		job_for_alloc(s, active[k], &aj[k]);
	alloc_params_init(&prm, res_make(1e6, 0, PX_GPUS));
	prm.total_units = PX_GPUS;
	rc = kind == OURS_DRF ? alloc_drf_run(aj, n, &prm, &res) :
				alloc_fifo_run(aj, n, &prm, &res);
	if (rc) {
		errmsg_set(s->err, s->errlen, rc, "allocator: %s", res.err);
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		want[k] = res.grants[k].status != ALLOC_OK ? 0 :
			  res.grants[k].workers;
		if (want[k] != nnext[active[k]])
			nnext[active[k]] = 0;
	}
	/* Largest first, each on the fewest nodes. */
	px_order_by(want, n, true, order);
	px_place_in_order(s, active, order, n, want, next, nnext,
			  px_place_fewest);
out:
	alloc_result_free(&res);
	free(aj);
	free(want);
	free(order);
	return rc;
}

static void ours_free(px_policy_t *p)
{
	free(p->state);
	free(p);
}

px_policy_t *px_ours_new(const char *name)
{
	static const struct {
		const char *name;
		ours_kind_t kind;
	} k[] = { { "drf", OURS_DRF }, { "fifo", OURS_FIFO } };

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		if (strcmp(name, k[i].name))
			continue;
		px_policy_t *p = calloc(1, sizeof(*p));
		ours_kind_t *o = malloc(sizeof(*o));
		if (!p || !o) {
			free(p);
			free(o);
			return NULL;
		}
		*o = k[i].kind;
		*p = (px_policy_t){ k[i].name, ours_plan, ours_free, o, NULL };
		return p;
	}
	return NULL;
}

const char *const px_policy_names[] = {
	"peer-optimus-oracle", "tiresias", "optimus", "optimus-rate",
	"goodput", "goodput-nopreempt", "optimus-oracle", "quality", "drf", "fifo", "slurm-backfill",
	"first-fit",
};
const size_t px_policy_count = sizeof(px_policy_names) /
			       sizeof(px_policy_names[0]);

px_policy_t *px_policy_new(const char *name, px_prerun_mode_t prerun)
{
	px_policy_t *p;

	if (!strcmp(name, "peer-optimus-oracle"))
		return px_peer_optimus_new();
	if (!strcmp(name, "tiresias"))
		return px_tiresias_new();
	if ((p = px_backfill_new(name)))
		return p;
	if ((p = px_plan_new(name, prerun)))
		return p;
	return px_ours_new(name);
}

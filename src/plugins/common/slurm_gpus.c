/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * slurm_gpus.c - GPU counts from slurmctld's GRES state.
 *
 * Why not parse the Gres=/tres_per_node strings: their syntax changes
 * between releases ("gres:gpu:2" vs "gres/gpu:2", types, bare "gpu") and two
 * parsers of our own disagreed; slurmctld has already parsed them into the
 * node's and job's GRES lists, whose counts are the ones it schedules with.
 */
#include "config.h"

#include "src/common/xstring.h"

#include "slurm_gpus.h"

extern uint32_t gpus_of_node(node_record_t *node)
{
	return (uint32_t) gres_node_config_cnt(node->gres_list, "gpu");
}

extern uint32_t gpus_of_job_per_node(job_record_t *job)
{
	uint32_t id = gres_build_id("gpu");
	gres_state_t *gs;

	if (!job->gres_list_req)
		return 0;
	gs = list_find_first(job->gres_list_req, gres_find_id, &id);
	if (!gs || !gs->gres_data)
		return 0;
	return (uint32_t) ((gres_job_state_t *) gs->gres_data)->gres_per_node;
}

extern char *gpus_tres_per_node(uint32_t n)
{
	return n ? xstrdup_printf(COMPAT_TRES_GRES_PREFIX "gpu:%u", n) : NULL;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_job_core.h - one simulated job, what both engines keep of it under
 * one name each: the synthetic engine's sim_job_t (sim_state.h) and the
 * measured engine's px_job_t (measured/engine.h) each begin with one and
 * add only their own. The code both engines share reads a job through it:
 * the plan's input (sim_plan_input_job), the one rule that carries a
 * plan's decisions out (sim_apply_decision.h: the job's slots, what its
 * restart checkpoints, its outcome), the figures (sim_outcome_build).
 */
#ifndef OPTIMUS_SIM_JOB_CORE_H
#define OPTIMUS_SIM_JOB_CORE_H

#include <stdint.h>

#include "job/job_feed.h"
#include "job/job_model.h"
#include "sim_hold.h"
#include "sim_outcome.h"
#include "sim_truth_ops.h"

typedef struct sim_job_core {
	/* Its record's id, the plan's job_id of its decisions. */
	uint32_t id;
	/* Its truth: what the engine asks of it (sim_truth_ops.h), each
	 * operation given `data` as the job (a synthetic job's own
	 * sim_truth_t, a measured job's px_spec_t). */
	const sim_truth_ops_t *ops;
	const void *data;
	/* Its record (the plugin's job_model_t), NULL while it has none (a
	 * synthetic job before it arrives; a measured job before a policy
	 * of ours first plans it, and always under a peer baseline), and
	 * the feed of its reports into it. */
	job_model_t *jm;
	job_feed_t feed;
	/* Its slots while it holds servers (sim_hold.h): the PS and workers
	 * it runs are theirs (sim_hold_run). */
	sim_hold_t hold;
	/* Its submission, first allocation, completion, restarts, batch
	 * changes, seconds lost and GPU-seconds (sim_outcome.h). */
	sim_job_outcome_t outcome;
	/* Its true progress, as its truth counts it (sim_truth_ops.h: work,
	 * epoch_start): what it ran so far, which its engine advances. */
	double progress;
} sim_job_core_t;

#endif

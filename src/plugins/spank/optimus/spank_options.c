/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* spank_options.c - the --scheduler option in sbatch, salloc and srun. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spank_optimus.h"
#include "util/escape.h"

static char *scheduler_arg;
/* sbatch calls post-option processing once per heterogeneous component */
static int post_opt_calls;

static int scheduler_option_cb(int val, const char *optarg, int remote)
{
	optimus_hints_t h;
	char err[512];

	if (!remote && spank_optimus_conf.submit_check &&
	    hints_parse(optarg, &h, err, sizeof(err))) {
		slurm_error("%s", err);
		return -1;
	}
	free(scheduler_arg);
	scheduler_arg = strdup(optarg ? optarg : "");
	return scheduler_arg ? 0 : -1;
}

static struct spank_option scheduler_option = {
	.name = "scheduler",
	.arginfo = "POLICY[,KEY=VALUE...]",
	.usage = "Schedule this training job with sched/optimus. POLICY: "
		 "optimus (shortest completion time) or quality (largest "
		 "loss reduction). KEYs: mode=sync|async|allreduce (all-"
		 "reduce: workers only), ps=N, min_ps, "
		 "max_ps, workers=N, min_workers, max_workers, ps_cpus, "
		 "ps_mem, ps_gpus, worker_cpus, worker_mem, worker_gpus, "
		 "batch (sync, allreduce), min_batch, max_batch, "
		 "max_local_batch, max_accum, adaptive_batch=yes|no "
		 "(allreduce), delta, model, form=inverse|power|"
		 "exp, steps, "
		 "epochs, epoch_steps, ckpt_signal, ckpt_grace, ckpt_dir, "
		 "layout=colocated|separate, weight (quality). "
		 "To be resized the job must survive its checkpoint signal "
		 "(the batch script: trap 'echo checkpoint' USR1 before "
		 "srun), checkpoint on it and confirm a checkpoint "
		 "(optimus-report checkpoint, or Reporter.handle_checkpoints "
		 "in Python); until then it keeps its size. "
		 "See optimus_hints(5).",
	.has_arg = 1,
	.val = 0,
	.cb = scheduler_option_cb,
};

int spank_options_register(spank_t sp)
{
	if (spank_option_register(sp, &scheduler_option) != ESPANK_SUCCESS) {
		slurm_error("optimus: cannot register the --scheduler option");
		return -1;
	}
	return 0;
}

/*
 * The job's submission stamp (seconds since the epoch), part of its
 * identity beside SLURM_CLUSTER_NAME and SLURM_JOB_ID: job ids repeat on a
 * new cluster and wrap at MaxJobId. It travels as the hints do (the job's
 * SPANK environment, SLURM_SPANK_OPTIMUS_SUBMIT_TIME in every task), so it
 * is kept across requeues, unlike Slurm's SubmitTime (reset by a requeue)
 * and SLURM_JOB_START_TIME (new each run). sbatch and salloc make a new
 * job: always a new stamp. srun keeps the one it inherits (it copies
 * SLURM_SPANK_* into its job environment): inside an allocation it starts
 * a step of a job that has one already.
 */
static int stamp_submission(spank_t sp, spank_context_t ctx)
{
	char now[32];

	snprintf(now, sizeof(now), "%lld", (long long)time(NULL));
	if (spank_job_control_setenv(sp, SPANK_OPTIMUS_STAMP_ENV, now,
				     ctx == S_CTX_ALLOCATOR) != ESPANK_SUCCESS &&
	    ctx == S_CTX_ALLOCATOR) {
		slurm_error("optimus: cannot pass the submission time to the job");
		return -1;
	}
	return 0;
}

int spank_options_post_opt(spank_t sp)
{
	spank_context_t ctx = spank_context();

	if (ctx != S_CTX_ALLOCATOR && ctx != S_CTX_LOCAL)
		return 0;
	post_opt_calls++;
	if (!scheduler_arg)
		return 0;
	if (ctx == S_CTX_ALLOCATOR && post_opt_calls > 1 &&
	    spank_optimus_conf.submit_check) {
		slurm_error("optimus: --scheduler cannot be used with a "
			    "heterogeneous job: sched/optimus sizes one "
			    "homogeneous allocation per training job and places "
			    "PS and workers itself (use layout=separate for "
			    "separate PS and worker nodes)");
		return -1;
	}
	if (stamp_submission(sp, ctx))
		return -1;
	if (spank_job_control_setenv(sp, HINTS_SPANK_ENV, scheduler_arg, 1) !=
	    ESPANK_SUCCESS) {
		char shown[1024];

		slurm_error("optimus: cannot pass --scheduler=%s to slurmctld",
			    str_escape(scheduler_arg, strlen(scheduler_arg),
				       shown, sizeof(shown)));
		return -1;
	}
	return 0;
}

void spank_options_free(void)
{
	free(scheduler_arg);
	scheduler_arg = NULL;
}

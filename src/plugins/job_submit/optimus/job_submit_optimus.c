/*
 * job_submit_optimus.c - the job_submit/optimus plugin's entry points.
 *
 * The authoritative check of `--scheduler=...` (spank/optimus passes the
 * option's value in the job's SPANK environment): every hint is validated
 * by src/common/hints.c, a bad one refuses the job with a message naming
 * the key and its accepted values, and a good one sizes the job.
 */
#include "config.h"

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "hints/hints.h"
#include "job_size.h"
#include "slurm_compat.h"
#include "roles/spank_env.h"

const char plugin_name[] = "Optimus job submit plugin";
const char plugin_type[] = "job_submit/optimus";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

extern int init(void)
{
	info("job_submit/optimus: loaded");
	return SLURM_SUCCESS;
}

extern void fini(void)
{
}

/*
 * Under sched/optimus the job waits, held, until the planner sizes it and
 * pins its nodes; otherwise Slurm's scheduler would start it at once with
 * its initial size wherever it fits. Under any other scheduler the job runs
 * with the size job_size_apply() gave it.
 */
static void hold_for_planner(job_desc_msg_t *job_desc)
{
	if (xstrcmp(slurm_conf.schedtype, "sched/optimus"))
		return;
	job_desc->priority = 0;
}

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid,
		      char **err_msg)
{
	const char *text = spank_env_get(job_desc->spank_job_env,
					 job_desc->spank_job_env_size,
					 HINTS_SPANK_ENV);
	optimus_hints_t h;
	char err[512];

	if (!text)
		return SLURM_SUCCESS;
	info("job_submit/optimus: job from uid %u with --scheduler=%s",
	     submit_uid, text);
	if (job_desc->het_job_offset != NO_VAL) {
		*err_msg = xstrdup("--scheduler cannot be used with a "
				   "heterogeneous job: sched/optimus sizes one "
				   "homogeneous allocation per training job "
				   "and places PS and workers itself (use "
				   "--scheduler=...,layout=separate)");
		return ESLURM_NOT_SUPPORTED;
	}
	if (hints_parse(text, &h, err, sizeof(err))) {
		info("job_submit/optimus: refused job from uid %u: %s",
		     submit_uid, err);
		*err_msg = xstrdup(err);
		return SLURM_ERROR;
	}
	if (job_size_apply(&h, job_desc, err_msg) != SLURM_SUCCESS)
		return SLURM_ERROR;
	hold_for_planner(job_desc);
	return SLURM_SUCCESS;
}

extern int job_modify(COMPAT_JOB_MODIFY_PARAMS)
{
	return SLURM_SUCCESS;
}

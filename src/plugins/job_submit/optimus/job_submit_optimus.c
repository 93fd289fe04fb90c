/*
 * job_submit_optimus.c - the job_submit/optimus plugin's entry points.
 *
 * Recognises jobs submitted with `--scheduler=...` (spank/optimus passes the
 * option's value to slurmctld in the job's SPANK environment).
 */
#include "config.h"

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "spank_env.h"

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

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid,
		      char **err_msg)
{
	const char *hints = spank_env_get(job_desc->spank_job_env,
					  job_desc->spank_job_env_size,
					  OPTIMUS_SPANK_ENV_HINTS);

	if (!hints)
		return SLURM_SUCCESS;
	info("job_submit/optimus: job from uid %u with --scheduler=%s",
	     submit_uid, hints);
	return SLURM_SUCCESS;
}

extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr,
		      uint32_t submit_uid, char **err_msg)
{
	return SLURM_SUCCESS;
}

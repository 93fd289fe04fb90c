/*
 * accounting.c - an ended job's final SystemComment in slurmdbd.
 *
 * slurmctld sends a job's completion record to slurmdbd as soon as it ends,
 * before the planner knows the true completion time, and in Slurm 22.05 the
 * completion record does not carry SystemComment at all. The comment is
 * therefore written afterwards with the same call as
 * `sacctmgr modify job where jobid=N set SystemComment=...`, as SlurmUser.
 */
#include "config.h"

#include "slurm/slurm.h"
#include "slurm/slurmdb.h"
#include "slurm/slurm_errno.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "accounting.h"
#include "slurm_compat.h"

static slurm_selected_step_t *whole_job(uint32_t job_id)
{
	slurm_selected_step_t *sel = xmalloc(sizeof(*sel));

	sel->array_task_id = NO_VAL;
	sel->het_job_offset = NO_VAL;
	sel->step_id.job_id = job_id;
	sel->step_id.step_id = NO_VAL;
	sel->step_id.step_het_comp = NO_VAL;
	return sel;
}

extern int accounting_set_system_comment(uint32_t job_id, const char *comment)
{
	slurmdb_job_cond_t cond = { 0 };
	slurmdb_job_rec_t *rec;
	list_t *modified;
	int rc = SLURM_ERROR;

	if (!slurm_conf.accounting_storage_type ||
	    !xstrcmp(slurm_conf.accounting_storage_type,
		     "accounting_storage/none"))
		return SLURM_ERROR;
	cond.db_flags = SLURMDB_JOB_FLAG_NOTSET;
	cond.flags = JOBCOND_FLAG_NO_DEFAULT_USAGE;
	cond.step_list = list_create(slurm_destroy_selected_step);
	list_append(cond.step_list, whole_job(job_id));
	cond.cluster_list = list_create(xfree_ptr);
	list_append(cond.cluster_list, xstrdup(slurm_conf.cluster_name));
	rec = slurmdb_create_job_rec();
	rec->system_comment = xstrdup(comment);

	modified = acct_storage_g_modify_job(acct_db_conn,
					     slurm_conf.slurm_user_id, &cond,
					     rec);
	if (modified && list_count(modified)) {
		rc = SLURM_SUCCESS;
		debug("sched/optimus: JobId=%u: final SystemComment stored in slurmdbd",
		      job_id);
	} else {
		error("sched/optimus: JobId=%u: cannot store SystemComment in slurmdbd: %s",
		      job_id, modified ? "job not found in the database yet" :
		      slurm_strerror(errno));
	}
	FREE_NULL_LIST(modified);
	FREE_NULL_LIST(cond.step_list);
	FREE_NULL_LIST(cond.cluster_list);
	slurmdb_destroy_job_rec(rec);
	return rc;
}

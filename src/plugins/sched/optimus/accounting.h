/*
 * accounting.h - put an ended optimus job's final SystemComment (with its
 * true completion time) into slurmdbd.
 */
#ifndef OPTIMUS_ACCOUNTING_H
#define OPTIMUS_ACCOUNTING_H

#include <stdint.h>

/*
 * Store `comment` as the job's SystemComment in the accounting database.
 * A blocking RPC to slurmdbd: call it without slurmctld locks. Returns
 * SLURM_SUCCESS, or SLURM_ERROR (logged) when accounting is off or the
 * update failed.
 */
extern int accounting_set_system_comment(uint32_t job_id, const char *comment);

#endif

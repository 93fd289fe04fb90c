/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * job_submit_optimus.c - the job_submit/optimus plugin's entry points.
 *
 * The authoritative check of `--scheduler=...` (spank/optimus passes the
 * option's value in the job's SPANK environment): every hint is validated
 * by src/common/hints/hints.c (hints_parse), a bad one refuses the job with
 * a message naming the key and its accepted values, and a good one sizes
 * the job; under sched/optimus the job then waits at optimus' gate.
 */
#include <gsl/gsl_errno.h>

#include "config.h"

#include <limits.h>
#include <pthread.h>
#include <sys/stat.h>

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "hints/bounds.h"
#include "hints/hints.h"
#include "hints/script.h"
#include "gate.h"
#include "util/escape.h"
#include "job_size.h"
#include "slurm_compat.h"
#include "report/conf.h"
#include "roles/spank_env.h"

const char plugin_name[] = "Optimus job submit plugin";
const char plugin_type[] = "job_submit/optimus";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

extern int init(void)
{
	/* GSL's default error handler aborts the process: the models check
	 * every result and return errors instead. */
	gsl_set_error_handler_off();
	info("job_submit/optimus: loaded");
	return SLURM_SUCCESS;
}

extern void fini(void)
{
}

/*
 * The site's bounds (optimus.conf MaxUserWeight=, MaxCkptGrace=), read
 * again when the file changed: job_submit runs under slurmctld's job write
 * lock, so a submission costs a stat(), not a read. A file refused keeps
 * the bounds last read (at first the defaults), said once per change.
 */
static pthread_mutex_t bounds_lock = PTHREAD_MUTEX_INITIALIZER;
static hints_bounds_t bounds = { HINTS_MAX_USER_WEIGHT_DEFAULT,
				 HINTS_MAX_CKPT_GRACE_DEFAULT };
static struct timespec bounds_mtime;
static ino_t bounds_ino;
static bool bounds_read;

static hints_bounds_t site_bounds(void)
{
	char path[PATH_MAX], err[512];
	struct stat st;
	hints_bounds_t b;

	slurm_mutex_lock(&bounds_lock);
	if (!slurm_conf.slurm_conf ||
	    report_conf_path(slurm_conf.slurm_conf, path, sizeof(path)))
		goto out;
	if (stat(path, &st)) {
		/* No optimus.conf: the defaults. */
		if (bounds_read)
			hints_bounds_init(&bounds);
		bounds_read = false;
		goto out;
	}
	if (bounds_read && st.st_ino == bounds_ino &&
	    st.st_mtim.tv_sec == bounds_mtime.tv_sec &&
	    st.st_mtim.tv_nsec == bounds_mtime.tv_nsec)
		goto out;
	bounds_read = true;
	bounds_ino = st.st_ino;
	bounds_mtime = st.st_mtim;
	b = bounds;
	if (hints_bounds_read(path, &b, err, sizeof(err)))
		error("job_submit/optimus: %s; MaxUserWeight=%g MaxCkptGrace=%u stay in force",
		      err, bounds.max_user_weight, bounds.max_ckpt_grace);
	else
		bounds = b;
out:
	b = bounds;
	slurm_mutex_unlock(&bounds_lock);
	return b;
}

/*
 * Under sched/optimus the job waits at optimus' gate (gate.h) until the
 * planner sizes it and pins its nodes; otherwise Slurm's scheduler would
 * start it at once with its initial size wherever it fits. Never a
 * priority of 0: that is a hold, and only `scontrol release` may clear a
 * hold. Under any other scheduler the job runs with the size
 * job_size_apply() gave it.
 */
static void gate_for_planner(job_desc_msg_t *job_desc)
{
	if (!xstrcmp(slurm_conf.schedtype, "sched/optimus"))
		gate_close_submitted(job_desc);
}

/*
 * The planner requeues an optimus job to resize it, to preempt it or to
 * move it off a straggler, and Slurm truncates a requeued job's output
 * files unless their open mode is append: each run would erase the
 * earlier runs' output. Appended unless the user chose (--open-mode; a
 * site's JobFileAppend=1 appends anyway).
 */
static void keep_output(job_desc_msg_t *job_desc)
{
	if (!job_desc->open_mode)
		job_desc->open_mode = OPEN_MODE_APPEND;
}

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid,
		      char **err_msg)
{
	const char *text = spank_env_get(job_desc->spank_job_env,
					 job_desc->spank_job_env_size,
					 HINTS_SPANK_ENV);
	optimus_hints_t h;
	char err[512], shown[1024];

	if (!text)
		return SLURM_SUCCESS;
	/* the user's text, escaped: a newline in it must not forge a line */
	info("job_submit/optimus: job from uid %u with --scheduler=%s",
	     submit_uid, str_escape(text, strlen(text), shown, sizeof(shown)));
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
	/* Beyond the site's bounds a declaration needs an administrator,
	 * as --nice below 0 does (hints/bounds.h). */
	if (!validate_operator(submit_uid)) {
		hints_bounds_t b = site_bounds();

		if (hints_bounds_check(&h, &b, err, sizeof(err))) {
			info("job_submit/optimus: refused job from uid %u: %s",
			     submit_uid, err);
			*err_msg = xstrdup(err);
			return ESLURM_ACCESS_DENIED;
		}
	}
	if (job_size_apply(&h, job_desc, err_msg) != SLURM_SUCCESS)
		return SLURM_ERROR;
	gate_for_planner(job_desc);
	keep_output(job_desc);
	/* A message with a successful return is printed by sbatch: say at
	 * once that an elastic job whose shell the checkpoint signal would
	 * kill can never be resized, instead of leaving the user
	 * to find resizable=no in SystemComment. */
	if (job_desc->script && hints_elastic(&h) &&
	    !hints_script_survives_signal(job_desc->script, h.ckpt_signal)) {
		char warn[1024];

		hints_script_warning(&h, warn, sizeof(warn));
		info("job_submit/optimus: job from uid %u: batch script does "
		     "not survive its checkpoint signal %d: warned",
		     submit_uid, h.ckpt_signal);
		*err_msg = xstrdup(warn);
	}
	return SLURM_SUCCESS;
}

/*
 * `scontrol update StartTime=` (the begin time) on a job at optimus' gate: the new begin
 * time is the user's (kept for the planner, as --begin is at submit); the
 * gate stays closed. Slurm's own update then finds nothing to change.
 */
extern int job_modify(COMPAT_JOB_MODIFY_PARAMS)
{
	if (!job_desc->begin_time || !job_ptr || !IS_JOB_PENDING(job_ptr) ||
	    !gate_is_closed(job_ptr))
		return SLURM_SUCCESS;
	/* Slurm checks who may update the job after this hook: only the
	 * owner's or an operator's begin time is kept. */
	if (submit_uid != job_ptr->user_id && !validate_operator(submit_uid))
		return SLURM_SUCCESS;
	info("job_submit/optimus: JobId=%u: begin time %lld kept for the planner (uid %u)",
	     job_ptr->job_id, (long long) job_desc->begin_time, submit_uid);
	gate_keep_begin(job_ptr, job_desc);
	return SLURM_SUCCESS;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sched_optimus.c - the sched/optimus plugin's entry points.
 *
 * sched/optimus plans optimus jobs (see planner.c) and delegates every other
 * job to Slurm's own backfill scheduler, loaded from here.
 */
#include <gsl/gsl_errno.h>

#include "config.h"

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "backfill_delegate.h"
#include "optimus_conf.h"
#include "planner.h"
#include "query.h"
#include "listener.h"

const char plugin_name[] = "Optimus deep-learning scheduler plugin";
const char plugin_type[] = "sched/optimus";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

extern int init(void)
{
	/* GSL's default error handler aborts the process: the models check
	 * every result and return errors instead. */
	gsl_set_error_handler_off();
	if (slurmctld_config.scheduling_disabled)
		return SLURM_SUCCESS;
	info("sched/optimus: loaded");
	/* spank/optimus gives each task ports Slurm reserved for its step:
	 * without a range to reserve from, optimus jobs' tasks get none. */
	if (!xstrstr(slurm_conf.mpi_params, "ports="))
		error("sched/optimus: slurm.conf has no MpiParams=ports=LOW-HIGH: the tasks of optimus jobs get no ports (spank_optimus(8), PORTS)");
	listener_start();	/* reports/queries; failure is logged, not fatal */
	planner_start(listener_attach_consumer());
	listener_set_query(query_answer);
	listener_set_metrics(query_metrics);
	return backfill_delegate_load();
}

extern void fini(void)
{
	listener_stop();
	planner_stop();
	backfill_delegate_unload();
	info("sched/optimus: unloaded");
}

extern int sched_p_reconfig(void)
{
	optimus_conf_load();
	planner_kick();
	return backfill_delegate_reconfig();
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * optimus_conf.h - optimus.conf, the sched/optimus configuration file.
 *
 * Read with Slurm's s_p_* parser from the folder of slurm.conf. One struct
 * and one option table (optimus_conf.c): a component adding keys adds a
 * field here, a row to the table and a line to optimus_conf_apply().
 */
#ifndef OPTIMUS_SCHED_CONF_H
#define OPTIMUS_SCHED_CONF_H

#include <stdbool.h>
#include <stdint.h>

#include "hints/bounds.h"
#include "models/speed_profiles.h"
#include "models/straggler.h"
#include "plan/plan_interval.h"

/* How long a job has to take a batch change sent in place before its
 * changes go the restart path (RebatchTimeout, seconds): two reports of a
 * trainer that reports every 30 s, one to see the change and one to say
 * it runs at it. */
#define OPTIMUS_REBATCH_TIMEOUT_DEFAULT 60

typedef struct optimus_conf {
	/* Report listener (doc/design/reports.md). */
	char *report_address;		/* ReportAddress, "127.0.0.1" */
	uint16_t report_port;		/* ReportPort, 6830; 0 disables */
	uint32_t report_queue_size;	/* ReportQueueSize, 4096 */
	uint32_t report_max_connections;/* ReportMaxConnections, 256 */
	uint32_t report_timeout;	/* ReportTimeout (s), 10 */
	uint32_t report_auth_timeout;	/* ReportAuthTimeout (s), 3 */
	uint32_t report_max_peer_connections; /* ReportMaxPeerConnections, 64 */
	uint32_t report_replay_window;	/* ReportReplayWindow (s), 300 */
	uint32_t report_replay_capacity;/* ReportReplayCapacity, 262144 */
	uint32_t report_status_max_jobs;/* ReportStatusMaxJobs, 1000 */

	/* Planner (doc/design/planning.md). */
	/* A buffer, not a pointer: `scontrol reconfigure` rewrites it while
	 * the planner and the listener read it, and must free nothing they
	 * may hold. */
	char policy[32];		/* Policy, "optimus" */
	uint32_t plan_interval;		/* PlanInterval (s), 600 */
	double damping;			/* Damping, 0.95 */
	double resize_threshold;	/* ResizeThreshold, 0.10 */
	double resize_threshold_large;	/* ResizeThresholdLarge, 0.05 */
	uint32_t large_job_tasks;	/* LargeJobTasks, 16 */
	uint32_t min_resize_interval;	/* MinResizeInterval (s), 1800 */
	uint32_t restart_cost;		/* RestartCost (s), 180 */
	bool explore_scaling;		/* ExploreScaling, no */
	bool preempt;			/* Preempt, yes under Policy=goodput,
					 * else no */
	uint32_t rebatch_cost;		/* RebatchCost (s), 5 */
	uint32_t rebatch_timeout;	/* RebatchTimeout (s), 60 */

	/* Stragglers (sched_optimus(8) "Stragglers"). */
	straggler_params_t straggler;	/* StragglerAsyncRatio 0.5,
					 * StragglerSyncFactor 1.5,
					 * StragglerReports 3 */
	bool straggler_drain;		/* StragglerDrain, no */

	/* Metrics (doc/metrics.md). */
	bool metrics_per_job;		/* MetricsPerJob, no */

	/* What users may declare and whose profiles every user reads
	 * (doc/design/reports.md "Claims and fair shares"). The bounds are applied
	 * by job_submit/optimus, which reads them itself (hints/bounds.h):
	 * shown here. */
	hints_bounds_t bounds;		/* MaxUserWeight 1, MaxCkptGrace 300 */
	/* PublishProfiles, "": none; a buffer, as policy. */
	char publish_profiles[1024];
	speed_profile_pub_t published[SPEED_PROFILES_PUBLISHED_MAX];
	size_t npublished;
} optimus_conf_t;

/* The configuration in force (defaults until optimus_conf_load()). */
extern optimus_conf_t optimus_conf;

/* dirname(slurm.conf)/optimus.conf; xfree() it. */
extern char *optimus_conf_path(void);
/* (Re)read optimus.conf into optimus_conf; a missing file means defaults.
 * SLURM_SUCCESS or SLURM_ERROR (parse error or a value out of range,
 * logged: the defaults at the first read, the values in force at a
 * re-read).
 * A re-read (`scontrol reconfigure`) applies the planner's keys at once;
 * the report listener's (Report*) are read only when slurmctld starts:
 * a changed one is logged as needing a restart and the value in force is
 * kept. */
extern int optimus_conf_load(void);
extern void optimus_conf_free(void);
/* The configuration in force as optimus.conf's "Key=Value" pairs (defaults
 * included): logged at every (re)load, answered to `optimusctl show
 * config`. xfree() it. */
extern char *optimus_conf_text(void);
/* What an interval is planned with, from the configuration in force: the
 * values of optimus.conf, one step of a job's tasks alike and spread by
 * --ntasks-per-node as Slurm runs them, the shared speed profiles. */
extern void optimus_conf_plan(plan_params_t *pc,
			      const speed_profiles_t *profiles);
/* The profiles PublishProfiles= publishes, made those every user reads
 * (with the registry's lock held). */
extern void optimus_conf_publish(speed_profiles_t *profiles);

#endif

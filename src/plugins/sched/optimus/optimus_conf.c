/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * optimus_conf.c - read optimus.conf with s_p_* (optimus_conf.h).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/parse_config.h"
#include "src/common/read_config.h"
#include "src/common/uid.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "optimus_conf.h"
#include "slurm_compat.h"
#include "plan/plan.h"
#include "report/conf.h"
#include "report/viewer.h"

optimus_conf_t optimus_conf;

/*
 * Every key optimus.conf may hold; others add their rows here. ReportAddress
 * and ReportPort are listed for the strict parse to accept them; their
 * values come from report_conf_listener(), the clients' reader too.
 */
static s_p_options_t optimus_conf_options[] = {
	{ .key = "ReportAddress", .type = S_P_STRING },
	{ .key = "ReportPort", .type = S_P_UINT16 },
	{ .key = "ReportQueueSize", .type = S_P_UINT32 },
	{ .key = "ReportMaxConnections", .type = S_P_UINT32 },
	{ .key = "ReportTimeout", .type = S_P_UINT32 },
	{ .key = "ReportAuthTimeout", .type = S_P_UINT32 },
	{ .key = "ReportMaxPeerConnections", .type = S_P_UINT32 },
	{ .key = "ReportReplayWindow", .type = S_P_UINT32 },
	{ .key = "ReportReplayCapacity", .type = S_P_UINT32 },
	{ .key = "ReportStatusMaxJobs", .type = S_P_UINT32 },
	{ .key = "Policy", .type = S_P_STRING },
	{ .key = "PlanInterval", .type = S_P_UINT32 },
	{ .key = "Damping", .type = S_P_DOUBLE },
	{ .key = "ResizeThreshold", .type = S_P_DOUBLE },
	{ .key = "ResizeThresholdLarge", .type = S_P_DOUBLE },
	{ .key = "LargeJobTasks", .type = S_P_UINT32 },
	{ .key = "MinResizeInterval", .type = S_P_UINT32 },
	{ .key = "RestartCost", .type = S_P_UINT32 },
	{ .key = "ExploreScaling", .type = S_P_BOOLEAN },
	{ .key = "Preempt", .type = S_P_BOOLEAN },
	{ .key = "RebatchCost", .type = S_P_UINT32 },
	{ .key = "RebatchTimeout", .type = S_P_UINT32 },
	{ .key = "StragglerAsyncRatio", .type = S_P_DOUBLE },
	{ .key = "StragglerSyncFactor", .type = S_P_DOUBLE },
	{ .key = "StragglerReports", .type = S_P_UINT32 },
	{ .key = "StragglerDrain", .type = S_P_BOOLEAN },
	{ .key = "MetricsPerJob", .type = S_P_BOOLEAN },
	{ .key = "MaxUserWeight", .type = S_P_DOUBLE },
	{ .key = "MaxCkptGrace", .type = S_P_UINT32 },
	{ .key = "PublishProfiles", .type = S_P_STRING },
	{NULL}
};

static void optimus_conf_defaults(optimus_conf_t *c)
{
	c->report_address = xstrdup(REPORT_DEFAULT_ADDRESS);
	c->report_port = REPORT_DEFAULT_PORT;
	c->report_queue_size = 4096;
	c->report_max_connections = 256;
	c->report_timeout = 10;
	c->report_auth_timeout = 3;
	c->report_max_peer_connections = 64;
	c->report_replay_window = 300;
	c->report_replay_capacity = 1 << 18;
	c->report_status_max_jobs = REPORT_STATUS_MAX_JOBS_DEFAULT;
	snprintf(c->policy, sizeof(c->policy), "optimus");
	c->plan_interval = PLAN_INTERVAL_DEFAULT;
	c->damping = ALLOC_DAMPING_DEFAULT;
	c->resize_threshold = PLAN_RESIZE_THRESHOLD_DEFAULT;
	c->resize_threshold_large = PLAN_RESIZE_THRESHOLD_LARGE_DEFAULT;
	c->large_job_tasks = PLAN_LARGE_TASKS_DEFAULT;
	c->min_resize_interval = PLAN_MIN_RESIZE_INTERVAL_DEFAULT;
	c->restart_cost = PLAN_RESTART_COST_DEFAULT;
	c->explore_scaling = false;
	c->preempt = false;	/* Policy=optimus's: optimus_conf_apply() */
	c->rebatch_cost = PLAN_REBATCH_COST_DEFAULT;
	c->rebatch_timeout = OPTIMUS_REBATCH_TIMEOUT_DEFAULT;
	straggler_params_init(&c->straggler);
	c->straggler_drain = false;
	c->metrics_per_job = false;
	hints_bounds_init(&c->bounds);
	c->publish_profiles[0] = '\0';
	c->npublished = 0;
}

extern char *optimus_conf_path(void)
{
	char path[PATH_MAX];

	if (!slurm_conf.slurm_conf ||
	    report_conf_path(slurm_conf.slurm_conf, path, sizeof(path)))
		return get_extra_conf_path("optimus.conf");
	return xstrdup(path);
}

/* ReportAddress and ReportPort, read as the clients read them. */
static int optimus_conf_listener(const char *path, optimus_conf_t *c)
{
	char addr[256], err[512];
	int rc = report_conf_listener(path, addr, sizeof(addr),
				      &c->report_port, err, sizeof(err));

	if (rc) {
		error("sched/optimus: %s", err);
		return SLURM_ERROR;
	}
	xfree(c->report_address);
	c->report_address = xstrdup(addr);
	return SLURM_SUCCESS;
}

/* Copy the keys present in tbl over the defaults in c. */
static void optimus_conf_apply(s_p_hashtbl_t *tbl, optimus_conf_t *c)
{
	char *addr = NULL;

	s_p_get_uint32(&c->report_queue_size, "ReportQueueSize", tbl);
	s_p_get_uint32(&c->report_max_connections, "ReportMaxConnections", tbl);
	s_p_get_uint32(&c->report_timeout, "ReportTimeout", tbl);
	s_p_get_uint32(&c->report_auth_timeout, "ReportAuthTimeout", tbl);
	s_p_get_uint32(&c->report_max_peer_connections,
		       "ReportMaxPeerConnections", tbl);
	s_p_get_uint32(&c->report_replay_window, "ReportReplayWindow", tbl);
	s_p_get_uint32(&c->report_replay_capacity, "ReportReplayCapacity", tbl);
	s_p_get_uint32(&c->report_status_max_jobs, "ReportStatusMaxJobs", tbl);
	if (s_p_get_string(&addr, "Policy", tbl)) {
		/* A name too long for the buffer is no policy: left empty,
		 * refused by the check as "(too long)". */
		if (snprintf(c->policy, sizeof(c->policy), "%s", addr) >=
		    (int) sizeof(c->policy))
			c->policy[0] = '\0';
		xfree(addr);
	}
	s_p_get_uint32(&c->plan_interval, "PlanInterval", tbl);
	s_p_get_double(&c->damping, "Damping", tbl);
	s_p_get_double(&c->resize_threshold, "ResizeThreshold", tbl);
	s_p_get_double(&c->resize_threshold_large, "ResizeThresholdLarge", tbl);
	s_p_get_uint32(&c->large_job_tasks, "LargeJobTasks", tbl);
	s_p_get_uint32(&c->min_resize_interval, "MinResizeInterval", tbl);
	s_p_get_uint32(&c->restart_cost, "RestartCost", tbl);
	s_p_get_boolean(&c->explore_scaling, "ExploreScaling", tbl);
	/* Left out, Preempt follows the policy (plan_preempt_default). */
	if (!s_p_get_boolean(&c->preempt, "Preempt", tbl)) {
		plan_policy_t policy;

		c->preempt = !plan_policy_parse(c->policy, &policy) &&
			     plan_preempt_default(policy);
	}
	s_p_get_uint32(&c->rebatch_cost, "RebatchCost", tbl);
	s_p_get_uint32(&c->rebatch_timeout, "RebatchTimeout", tbl);
	s_p_get_double(&c->straggler.async_ratio, "StragglerAsyncRatio", tbl);
	s_p_get_double(&c->straggler.sync_factor, "StragglerSyncFactor", tbl);
	s_p_get_uint32(&c->straggler.consecutive, "StragglerReports", tbl);
	s_p_get_boolean(&c->straggler_drain, "StragglerDrain", tbl);
	s_p_get_boolean(&c->metrics_per_job, "MetricsPerJob", tbl);
	if (s_p_get_string(&addr, "PublishProfiles", tbl)) {
		/* Too long for the buffer: refused by the check. */
		if (snprintf(c->publish_profiles, sizeof(c->publish_profiles),
			     "%s", addr) >= (int) sizeof(c->publish_profiles))
			c->publish_profiles[0] = '\x01';
		xfree(addr);
	}
}

/* A user name or number (PublishProfiles=), as Slurm resolves one. */
static int optimus_conf_uid(void *arg, const char *user, uint32_t *uid)
{
	uid_t u;

	if (uid_from_string(user, &u) != SLURM_SUCCESS)
		return -ENOENT;
	*uid = (uint32_t) u;
	return 0;
}

/*
 * MaxUserWeight and MaxCkptGrace, read as job_submit/optimus reads them,
 * and PublishProfiles' names and users.
 */
static int optimus_conf_declarations(const char *path, optimus_conf_t *c)
{
	char err[512];

	if (hints_bounds_read(path, &c->bounds, err, sizeof(err))) {
		error("sched/optimus: %s", err);
		return SLURM_ERROR;
	}
	if (c->publish_profiles[0] == '\x01') {
		error("sched/optimus: %s: PublishProfiles: longer than %zu characters",
		      path, sizeof(c->publish_profiles) - 1);
		return SLURM_ERROR;
	}
	if (speed_profiles_parse_pub(c->publish_profiles, optimus_conf_uid,
				     NULL, c->published, &c->npublished, err,
				     sizeof(err))) {
		error("sched/optimus: %s: %s", path, err);
		return SLURM_ERROR;
	}
	return SLURM_SUCCESS;
}

/* Planner values out of range are refused, naming the key. */
static int optimus_conf_check_planner(const char *path, const optimus_conf_t *c)
{
	plan_policy_t policy;

	if (plan_policy_parse(c->policy, &policy)) {
		/* the plan's own names, every one of them */
		char *names = NULL;
		int n = 0;

		while (strcmp(plan_policy_name((plan_policy_t) n), "unknown"))
			n++;
		for (int i = 0; i < n; i++)
			xstrfmtcat(names, "%s%s", !i ? "" : i == n - 1 ?
				   " or " : ", ",
				   plan_policy_name((plan_policy_t) i));
		error("sched/optimus: %s: Policy=%s: expected %s",
		      path, c->policy[0] ? c->policy : "(too long)", names);
		xfree(names);
		return SLURM_ERROR;
	}
	if (c->plan_interval < 1 || c->plan_interval > 86400) {
		error("sched/optimus: %s: PlanInterval=%u: expected 1..86400 seconds",
		      path, c->plan_interval);
		return SLURM_ERROR;
	}
	if (!(c->damping > 0 && c->damping <= 1)) {
		error("sched/optimus: %s: Damping=%g: expected a factor in (0, 1]",
		      path, c->damping);
		return SLURM_ERROR;
	}
	if (c->rebatch_timeout < 1 || c->rebatch_timeout > 86400) {
		error("sched/optimus: %s: RebatchTimeout=%u: expected 1..86400 seconds",
		      path, c->rebatch_timeout);
		return SLURM_ERROR;
	}
	if (!(c->resize_threshold >= 0 && c->resize_threshold < 1) ||
	    !(c->resize_threshold_large >= 0 && c->resize_threshold_large < 1)) {
		error("sched/optimus: %s: ResizeThreshold and ResizeThresholdLarge: expected a relative gain in [0, 1)",
		      path);
		return SLURM_ERROR;
	}
	return SLURM_SUCCESS;
}

/* Values that would make the listener misbehave are refused. */
static int optimus_conf_check(const char *path, const optimus_conf_t *c)
{
	char why[128];

	if (straggler_params_check(&c->straggler, why, sizeof(why))) {
		error("sched/optimus: %s: StragglerAsyncRatio/StragglerSyncFactor/StragglerReports: %s",
		      path, why);
		return SLURM_ERROR;
	}
	if (!c->report_queue_size || !c->report_max_connections ||
	    !c->report_timeout || !c->report_replay_window ||
	    !c->report_replay_capacity || !c->report_status_max_jobs ||
	    !c->report_auth_timeout || !c->report_max_peer_connections) {
		error("sched/optimus: %s: ReportQueueSize, ReportMaxConnections, "
		      "ReportMaxPeerConnections, ReportTimeout, ReportAuthTimeout, "
		      "ReportReplayCapacity, ReportStatusMaxJobs "
		      "and ReportReplayWindow must be > 0", path);
		return SLURM_ERROR;
	}
	return optimus_conf_check_planner(path, c);
}

/*
 * A re-read keeps the report listener's keys in force: the listener binds
 * its address and port and sizes its tables, queue and replay cache once,
 * when slurmctld starts. Each changed key is named with the value in
 * force, so that the admin knows a restart is needed. The address in force
 * moves into next (never freed while the listener's thread may read it).
 */
static void optimus_conf_keep_listener(const char *path, optimus_conf_t *next)
{
	optimus_conf_t *cur = &optimus_conf;
	const struct { const char *key; uint32_t *now, was; } keys[] = {
		{ "ReportQueueSize", &next->report_queue_size,
		  cur->report_queue_size },
		{ "ReportMaxConnections", &next->report_max_connections,
		  cur->report_max_connections },
		{ "ReportTimeout", &next->report_timeout, cur->report_timeout },
		{ "ReportAuthTimeout", &next->report_auth_timeout,
		  cur->report_auth_timeout },
		{ "ReportMaxPeerConnections",
		  &next->report_max_peer_connections,
		  cur->report_max_peer_connections },
		{ "ReportReplayWindow", &next->report_replay_window,
		  cur->report_replay_window },
		{ "ReportReplayCapacity", &next->report_replay_capacity,
		  cur->report_replay_capacity },
		{ "ReportStatusMaxJobs", &next->report_status_max_jobs,
		  cur->report_status_max_jobs },
	};

	if (xstrcmp(next->report_address, cur->report_address))
		info("sched/optimus: %s: ReportAddress=%s needs a restart of slurmctld; %s stays in force",
		     path, next->report_address, cur->report_address);
	xfree(next->report_address);
	next->report_address = cur->report_address;
	cur->report_address = NULL;
	if (next->report_port != cur->report_port)
		info("sched/optimus: %s: ReportPort=%u needs a restart of slurmctld; %u stays in force",
		     path, next->report_port, cur->report_port);
	next->report_port = cur->report_port;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (*keys[i].now != keys[i].was)
			info("sched/optimus: %s: %s=%u needs a restart of slurmctld; %u stays in force",
			     path, keys[i].key, *keys[i].now, keys[i].was);
		*keys[i].now = keys[i].was;
	}
}

/* Read and check the file at path into c (defaults first). */
static int optimus_conf_read(const char *path, optimus_conf_t *c)
{
	s_p_hashtbl_t *tbl = s_p_hashtbl_create(optimus_conf_options);
	int rc;

	if (s_p_parse_file(tbl, NULL, (char *) path, COMPAT_PARSE_STRICT,
			   NULL) != SLURM_SUCCESS) {
		error("sched/optimus: cannot parse %s", path);
		rc = SLURM_ERROR;
	} else {
		optimus_conf_apply(tbl, c);
		rc = optimus_conf_listener(path, c);
		if (rc == SLURM_SUCCESS)
			rc = optimus_conf_declarations(path, c);
		if (rc == SLURM_SUCCESS)
			rc = optimus_conf_check(path, c);
	}
	s_p_hashtbl_destroy(tbl);
	return rc;
}

/* Where the configuration last in force is kept, beside the state file. */
static char *optimus_conf_saved_path(void)
{
	return xstrdup_printf("%s/optimus_conf.in_force",
			      slurm_conf.state_save_location);
}

/*
 * The configuration in force, one Key=Value a line, kept in
 * StateSaveLocation after every accepted read. Slurm 23.11 and later run
 * `scontrol reconfigure` as a restart of slurmctld: the plugin then reads
 * optimus.conf as at a first start, and a typo would put the defaults in
 * force (PlanInterval=600, the listener on the default port). A refused
 * first read uses this copy instead (bad input stays bad input).
 */
static void optimus_conf_save_in_force(void)
{
	char *path = optimus_conf_saved_path();
	char *tmp = xstrdup_printf("%s.new", path);
	char *text = optimus_conf_text();
	FILE *f;

	for (char *p = text; *p; p++)
		if (*p == ' ')
			*p = '\n';
	if (!(f = fopen(tmp, "w")) || fprintf(f, "%s\n", text) < 0 ||
	    fclose(f) || rename(tmp, path))
		error("sched/optimus: cannot keep the configuration in force in %s: %m",
		      path);
	xfree(text);
	xfree(tmp);
	xfree(path);
}

/* A refused first read: the configuration last in force, if kept. */
static int optimus_conf_read_saved(const char *path, optimus_conf_t *c)
{
	char *saved = optimus_conf_saved_path();
	struct stat st;
	int rc = SLURM_ERROR;

	optimus_conf_defaults(c);
	if (!stat(saved, &st) && optimus_conf_read(saved, c) == SLURM_SUCCESS) {
		error("sched/optimus: %s refused: the configuration last in force (kept in %s) is used",
		      path, saved);
		rc = SLURM_SUCCESS;
	} else {
		xfree(c->report_address);
		*c = (optimus_conf_t){ 0 };
		optimus_conf_defaults(c);
	}
	xfree(saved);
	return rc;
}

extern int optimus_conf_load(void)
{
	static bool loaded;	/* read once: this is a re-read */

	char *path = optimus_conf_path();
	optimus_conf_t c = { 0 };
	struct stat st;
	int rc = SLURM_SUCCESS;
	bool from_saved = false;
	char *text;

	optimus_conf_defaults(&c);
	if (stat(path, &st) != 0)
		info("sched/optimus: no %s, using defaults", path);
	else
		rc = optimus_conf_read(path, &c);
	/* A re-read refused keeps what is in force: a typo made on a live
	 * system must not put the defaults (PlanInterval=600, ...) in force
	 * (bad input stays bad input). */
	if (rc != SLURM_SUCCESS && loaded) {
		xfree(c.report_address);
		text = optimus_conf_text();
		error("sched/optimus: %s refused: the values in force are kept: %s",
		      path, text);
		xfree(text);
		xfree(path);
		return rc;
	}
	if (rc != SLURM_SUCCESS) {
		xfree(c.report_address);
		c = (optimus_conf_t){ 0 };
		from_saved = optimus_conf_read_saved(path, &c) == SLURM_SUCCESS;
	}
	if (loaded)
		optimus_conf_keep_listener(path, &c);
	optimus_conf_free();
	optimus_conf = c;
	loaded = true;
	if (rc == SLURM_SUCCESS)
		optimus_conf_save_in_force();
	/* What is in force after every (re)read: `scontrol reconfigure`
	 * re-reads optimus.conf, and its defaults are not obvious. */
	text = optimus_conf_text();
	info("sched/optimus: read %s%s: %s", path,
	     from_saved ? " (refused: the configuration last in force)" :
	     rc != SLURM_SUCCESS ? " (refused: defaults)" :
	     stat(path, &st) ? " (missing: defaults)" : "", text);
	xfree(text);
	xfree(path);
	return rc;
}

extern char *optimus_conf_text(void)
{
	const optimus_conf_t *c = &optimus_conf;

	return xstrdup_printf(
		"ReportAddress=%s ReportPort=%u ReportQueueSize=%u "
		"ReportMaxConnections=%u ReportTimeout=%u ReportAuthTimeout=%u "
		"ReportMaxPeerConnections=%u ReportReplayWindow=%u "
		"ReportStatusMaxJobs=%u Policy=%s "
		"PlanInterval=%u Damping=%g ResizeThreshold=%g "
		"ResizeThresholdLarge=%g LargeJobTasks=%u MinResizeInterval=%u "
		"RestartCost=%u ExploreScaling=%s Preempt=%s "
		"RebatchCost=%u RebatchTimeout=%u "
		"StragglerAsyncRatio=%g StragglerSyncFactor=%g "
		"StragglerReports=%u StragglerDrain=%s MetricsPerJob=%s "
		"MaxUserWeight=%g MaxCkptGrace=%u%s%s",
		c->report_address ? c->report_address : "", c->report_port,
		c->report_queue_size, c->report_max_connections,
		c->report_timeout, c->report_auth_timeout,
		c->report_max_peer_connections, c->report_replay_window,
		c->report_status_max_jobs, c->policy, c->plan_interval, c->damping,
		c->resize_threshold, c->resize_threshold_large,
		c->large_job_tasks, c->min_resize_interval, c->restart_cost,
		c->explore_scaling ? "yes" : "no", c->preempt ? "yes" : "no",
		c->rebatch_cost, c->rebatch_timeout,
		c->straggler.async_ratio, c->straggler.sync_factor,
		c->straggler.consecutive, c->straggler_drain ? "yes" : "no",
		c->metrics_per_job ? "yes" : "no",
		c->bounds.max_user_weight, c->bounds.max_ckpt_grace,
		c->publish_profiles[0] ? " PublishProfiles=" : "",
		c->publish_profiles);
}

extern void optimus_conf_free(void)
{
	xfree(optimus_conf.report_address);
}

extern void optimus_conf_plan(plan_params_t *pc,
			      const speed_profiles_t *profiles)
{
	plan_params_init(pc);
	/* validated when the file was read: Policy= is one of plan's names */
	(void) plan_policy_parse(optimus_conf.policy, &pc->policy);
	pc->interval = optimus_conf.plan_interval;
	pc->damping = optimus_conf.damping;
	pc->resize_threshold = optimus_conf.resize_threshold;
	pc->resize_threshold_large = optimus_conf.resize_threshold_large;
	pc->large_tasks = (int) optimus_conf.large_job_tasks;
	pc->min_resize_interval = optimus_conf.min_resize_interval;
	pc->restart_cost = optimus_conf.restart_cost;
	pc->explore_scaling = optimus_conf.explore_scaling;
	pc->preempt = optimus_conf.preempt;
	pc->rebatch_cost = optimus_conf.rebatch_cost;
	pc->uniform_task_cpus = true;	/* one srun step: uniform tasks */
	pc->uniform_node_share = true;	/* --ntasks-per-node on each node */
	pc->profiles = profiles;
}

extern void optimus_conf_publish(speed_profiles_t *profiles)
{
	/* Checked when the file was read. */
	if (speed_profiles_publish(profiles, optimus_conf.published,
				   optimus_conf.npublished))
		error("sched/optimus: PublishProfiles=%s not applied",
		      optimus_conf.publish_profiles);
}

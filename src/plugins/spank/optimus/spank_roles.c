/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * spank_roles.c - each task's role and environment (slurmstepd side).
 *
 * Gathers the inputs (job id, step layout, this task's node and local id,
 * the hints and the topology) and hands them to src/common/roles/roles.c;
 * sets whatever it returns in the task's environment. Any failure is logged and
 * leaves the task's environment as it was: a job never fails for it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "spank_optimus.h"
#include "util/errmsg.h"

#define TOPOLOGY_TASK_ENV "SLURM_SPANK_" ROLES_TOPOLOGY_ENV
#define HINTS_TASK_ENV "SLURM_SPANK_" HINTS_SPANK_ENV
#define STAMP_TASK_ENV "SLURM_SPANK_" SPANK_OPTIMUS_STAMP_ENV

typedef struct step_inputs {
	uint32_t job_id, step_id, node_id, restart;
	int local_id;
	char submit_dir[1024], home[1024], cluster[128], submit_time[32];
	optimus_hints_t hints;
} step_inputs_t;

static int getenv_str(spank_t sp, const char *name, char *buf, int len)
{
	buf[0] = '\0';
	return spank_getenv(sp, name, buf, len) == ESPANK_SUCCESS ? 0 : -1;
}

static uint32_t env_u32(spank_t sp, const char *name, uint32_t dflt)
{
	char buf[32];

	return getenv_str(sp, name, buf, sizeof(buf)) ? dflt
		: (uint32_t)strtoul(buf, NULL, 10);
}

static int inputs_gather(spank_t sp, step_inputs_t *in)
{
	char text[HINTS_TEXT_MAX], err[512];

	if (getenv_str(sp, HINTS_TASK_ENV, text, sizeof(text)))
		return -ENOENT;	/* not an optimus job */
	if (hints_parse(text, &in->hints, err, sizeof(err))) {
		slurm_error("optimus: %s", err);
		return -EINVAL;
	}
	if (spank_get_item(sp, S_JOB_ID, &in->job_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &in->step_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_NODEID, &in->node_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_TASK_ID, &in->local_id) != ESPANK_SUCCESS)
		return -EINVAL;
	/* in a heterogeneous step S_JOB_NODEID counts within the component;
	 * the task's SLURM_NODEID is the step-wide index the layout uses */
	in->node_id = env_u32(sp, "SLURM_NODEID", in->node_id);
	if (spank_get_item(sp, S_SLURM_RESTART_COUNT, &in->restart) !=
	    ESPANK_SUCCESS)
		in->restart = 0;
	/* Slurm 22.05's S_SLURM_RESTART_COUNT reads a slurmstepd field that is
	 * never filled (always 0); the SLURM_RESTART_COUNT it exports is right,
	 * and overwriting it with 0 would hide a requeue from the tasks. */
	if (!getenv_str(sp, "SLURM_RESTART_COUNT", text, sizeof(text)))
		in->restart = (uint32_t)strtoul(text, NULL, 10);
	getenv_str(sp, "SLURM_SUBMIT_DIR", in->submit_dir, sizeof(in->submit_dir));
	getenv_str(sp, "HOME", in->home, sizeof(in->home));
	/* the job's identity beside its id (roles.h, roles_job_t) */
	getenv_str(sp, "SLURM_CLUSTER_NAME", in->cluster, sizeof(in->cluster));
	getenv_str(sp, STAMP_TASK_ENV, in->submit_time, sizeof(in->submit_time));
	return 0;
}

static void env_apply(spank_t sp, const roles_env_t *env)
{
	for (size_t i = 0; i < env->n; i++)
		if (spank_setenv(sp, env->names[i], env->values[i], 1) !=
		    ESPANK_SUCCESS)
			slurm_error("optimus: cannot set %s", env->names[i]);
}

/* The scheduler's topology: the prolog's file in the batch step (fresh for
 * this run), the inherited variable in the other steps. */
static const roles_topology_t *topology_given(spank_t sp,
					      const step_inputs_t *in,
					      roles_topology_t *t)
{
	char text[128];

	if (in->step_id == SLURM_BATCH_SCRIPT)
		return spank_topology_load(sp, in->job_id, t) ? NULL : t;
	if (getenv_str(sp, TOPOLOGY_TASK_ENV, text, sizeof(text)) ||
	    roles_topology_parse(text, t, NULL, 0))
		return NULL;
	return t;
}

static void job_init(const step_inputs_t *in, roles_job_t *job)
{
	memset(job, 0, sizeof(*job));
	job->job_id = in->job_id;
	job->restart_count = in->restart;
	job->submit_dir = in->submit_dir;
	job->home = in->home;
	job->cluster = in->cluster;
	job->submit_time = in->submit_time;
	job->hints = &in->hints;
}

/*
 * The job's task count for the batch script's steps. When the planned
 * tasks do not split evenly across the nodes (5 on 2), Slurm allocates
 * ntasks-per-node on every node and counts that many tasks (6), and a
 * layout=separate job is given the fullest node's task slots on every node
 * (hints_request_t.task_slots): the scheduler's topology (or, without one,
 * the submitted size) then says how many to run, and srun must be told
 * (SLURM_NTASKS), without the per-node count it could not honour.
 */
static uint32_t batch_tasks(spank_t sp, const step_inputs_t *in,
			    const roles_topology_t *given)
{
	uint32_t slots = env_u32(sp, "SLURM_NTASKS", 1);
	uint32_t planned;
	char text[16];

	if (given && given->workers)
		planned = given->ps + given->workers;
	else if (in->hints.layout == HINTS_LAYOUT_SEPARATE)
		/* no scheduler topology (sched/backfill): the size that
		 * job_submit/optimus gave it, on the fullest node's task
		 * slots per node (hints_request_t.task_slots) */
		planned = in->hints.min_ps + in->hints.min_workers;
	else
		return slots;
	if (planned >= slots)
		return slots;
	snprintf(text, sizeof(text), "%u", planned);
	if (spank_setenv(sp, "SLURM_NTASKS", text, 1) != ESPANK_SUCCESS ||
	    spank_setenv(sp, "SLURM_NPROCS", text, 1) != ESPANK_SUCCESS) {
		slurm_error("optimus: job %u: cannot set SLURM_NTASKS=%s",
			    in->job_id, text);
		return slots;
	}
	spank_unsetenv(sp, "SLURM_NTASKS_PER_NODE");
	slurm_info("optimus: job %u: %u tasks as planned on %u allocated task slots",
		   in->job_id, planned, slots);
	return planned;
}

/*
 * The ports the batch script's srun steps must ask for: Slurm reserves
 * (1 + the most tasks on one node) per step, but nodes sharing an address
 * (several slurmd on one machine) share its ports, and their tasks take
 * successive ones (roles.h "Ports"). When the job's nodes do, srun is told
 * the count through SLURM_RESV_PORTS (its --resv-ports), unless the user
 * set one. The job's nodes and their task slots: SLURM_JOB_NODELIST and
 * SLURM_TASKS_PER_NODE; the addresses were loaded in slurm_spank_init.
 */
static void batch_ports(spank_t sp, const step_inputs_t *in)
{
	char list[8192], tpn[4096], text[16], **hosts = NULL;
	uint32_t *counts = NULL, ask = 0;
	roles_node_t *nodes = NULL;
	size_t nh = 0, nc = 0;

	if (!getenv_str(sp, "SLURM_RESV_PORTS", text, sizeof(text)) ||
	    getenv_str(sp, "SLURM_JOB_NODELIST", list, sizeof(list)) ||
	    getenv_str(sp, "SLURM_TASKS_PER_NODE", tpn, sizeof(tpn)) ||
	    roles_hostlist_expand(list, &hosts, &nh))
		return;
	if (!roles_tasks_per_node(tpn, &counts, &nc) && nc == nh &&
	    (nodes = calloc(nh, sizeof(*nodes)))) {
		for (size_t i = 0; i < nh; i++) {
			nodes[i].host = spank_addrs_of(hosts[i]);
			nodes[i].tasks = counts[i];
		}
		ask = roles_ports_request(nodes, nh);
	}
	if (ask) {
		snprintf(text, sizeof(text), "%u", ask);
		if (spank_setenv(sp, "SLURM_RESV_PORTS", text, 1) !=
		    ESPANK_SUCCESS)
			slurm_error("optimus: job %u: cannot set "
				    "SLURM_RESV_PORTS=%s", in->job_id, text);
		else
			slurm_info("optimus: job %u: nodes share an address: "
				   "its steps ask for %u reserved ports "
				   "(SLURM_RESV_PORTS)", in->job_id, ask);
	}
	free(nodes);
	free(counts);
	roles_hostlist_free(hosts, nh);
}

/* The batch script: job-level variables for the job's whole size. */
static int batch_env(spank_t sp, const step_inputs_t *in)
{
	roles_topology_t given, t;
	const roles_topology_t *g = topology_given(sp, in, &given);
	roles_env_t env;
	roles_job_t job;
	int rc, derived;

	derived = roles_topology_for_step(&in->hints, g, batch_tasks(sp, in, g),
					  &t);
	if (derived < 0)
		return derived;
	job_init(in, &job);
	job.topology = t;
	roles_env_init(&env);
	if (!(rc = roles_env_job(&job, &env))) {
		env_apply(sp, &env);
		if (!derived)	/* inherited by every srun step of this run */
			spank_setenv(sp, TOPOLOGY_TASK_ENV,
				     roles_env_get(&env, "OPTIMUS_TOPOLOGY"), 1);
		else	/* a stale value must not outlive its run */
			spank_unsetenv(sp, TOPOLOGY_TASK_ENV);
		spank_setenv(sp, "OPTIMUS_TOPOLOGY_SOURCE",
			     derived ? "derived" : "scheduler", 1);
	}
	roles_env_free(&env);
	return rc;
}

/* The step's nodes and task counts from its environment. */
static int step_layout(spank_t sp, char ***hosts, uint32_t **counts,
		       size_t *n)
{
	char list[8192], tpn[4096];
	size_t nh, nc;

	if (getenv_str(sp, "SLURM_STEP_NODELIST", list, sizeof(list)) ||
	    getenv_str(sp, "SLURM_STEP_TASKS_PER_NODE", tpn, sizeof(tpn)))
		return -ENOENT;
	if (roles_hostlist_expand(list, hosts, &nh))
		return -EINVAL;
	if (roles_tasks_per_node(tpn, counts, &nc) || nc != nh) {
		roles_hostlist_free(*hosts, nh);
		return -EINVAL;
	}
	*n = nh;
	return 0;
}

/* The step's SLURM_STEP_RESV_PORTS, for nodes slurmctld did not name
 * (spank_ports.c); NULL, 0 when the step has none. */
static uint32_t *step_env_ports(spank_t sp, size_t *n)
{
	char text[4096];
	uint32_t *ports;

	*n = 0;
	if (getenv_str(sp, "SLURM_STEP_RESV_PORTS", text, sizeof(text)) ||
	    roles_ports_parse(text, &ports, n))
		return NULL;
	return ports;
}

static int task_env(spank_t sp, const step_inputs_t *in, char **hosts,
		    const uint32_t *counts, size_t n)
{
	roles_node_t *nodes = calloc(n, sizeof(*nodes));
	roles_topology_t given, t;
	const roles_topology_t *g = topology_given(sp, in, &given);
	uint32_t total = 0, *env_ports;
	size_t nenv;
	roles_env_t env;
	roles_job_t job;
	char err[512];
	int rc, derived;

	if (!nodes)
		return -ENOMEM;
	env_ports = step_env_ports(sp, &nenv);
	for (size_t i = 0; i < n; i++) {
		nodes[i].host = spank_addrs_of(hosts[i]);
		nodes[i].tasks = counts[i];
		nodes[i].ports = spank_ports_of(hosts[i], &nodes[i].nports);
		if (!nodes[i].ports) {
			nodes[i].ports = env_ports;
			nodes[i].nports = nenv;
		}
		total += counts[i];
	}
	derived = roles_topology_for_step(&in->hints, g, total, &t);
	job_init(in, &job);
	job.topology = t;
	roles_env_init(&env);
	if (derived < 0) {
		rc = errmsg_set(err, sizeof(err), derived,
				"no PS/worker topology for %u tasks: %s", total,
				strerror(-derived));
	} else {
		rc = roles_assign(&t, in->hints.layout, nodes, n, err,
				  sizeof(err));
	}
	if (!rc)
		rc = roles_env_task(&job, nodes, n, in->node_id, in->local_id,
				    &env, err, sizeof(err));
	if (!rc) {
		env_apply(sp, &env);
		spank_setenv(sp, "OPTIMUS_TOPOLOGY_SOURCE",
			     derived ? "derived" : "scheduler", 1);
	} else {
		slurm_error("optimus: job %u: %s", in->job_id, err);
	}
	roles_env_free(&env);
	free(env_ports);
	free(nodes);
	return rc;
}

/*
 * The addresses of the step's nodes and the ports reserved for it, once
 * per step on each node: every task forked after this inherits them
 * (spank_addrs.c, spank_ports.c); the batch script's step, the addresses
 * of every node (it sizes its steps' port requests: batch_ports). Called
 * from slurm_spank_init in slurmstepd, as root and before privileges are
 * dropped:
 * from user_init on, slurmstepd of Slurm 24.11 holds its auth plugin's lock
 * (auth_setuid_lock) while it runs as the user, and any RPC made there
 * (slurm_load_node) dies with "auth_g_create: pthread_rwlock_rdlock():
 * Resource deadlock avoided".
 */
int spank_roles_step_init(spank_t sp)
{
	char text[HINTS_TEXT_MAX], **hosts;
	uint32_t job_id, step_id, *counts;
	size_t n;

	if (!spank_remote(sp) ||
	    getenv_str(sp, HINTS_TASK_ENV, text, sizeof(text)) ||
	    spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step_id) != ESPANK_SUCCESS)
		return 0;	/* not an optimus job's step */
	if (step_id == SLURM_EXTERN_CONT)
		return 0;
	if (step_id == SLURM_BATCH_SCRIPT) {
		(void) spank_addrs_load(sp, NULL, 0);
		return 0;
	}
	if (step_layout(sp, &hosts, &counts, &n))
		return 0;	/* task_init reports it */
	(void) spank_addrs_load(sp, hosts, n);
	(void) spank_ports_load(job_id, step_id);
	roles_hostlist_free(hosts, n);
	free(counts);
	return 0;
}

int spank_roles_task_init(spank_t sp)
{
	step_inputs_t in;
	char **hosts;
	uint32_t *counts;
	size_t n;
	int rc;

	memset(&in, 0, sizeof(in));
	if (!spank_remote(sp) || inputs_gather(sp, &in))
		return 0;
	if (in.step_id == SLURM_EXTERN_CONT)
		return 0;
	if (in.step_id == SLURM_BATCH_SCRIPT) {
		if (batch_env(sp, &in))
			slurm_error("optimus: job %u: cannot set the batch "
				    "script's environment", in.job_id);
		batch_ports(sp, &in);
		return 0;
	}
	if ((rc = step_layout(sp, &hosts, &counts, &n))) {
		slurm_error("optimus: job %u: cannot read the step's layout "
			    "(SLURM_STEP_NODELIST, SLURM_STEP_TASKS_PER_NODE)",
			    in.job_id);
		return 0;
	}
	task_env(sp, &in, hosts, counts, n);
	roles_hostlist_free(hosts, n);
	free(counts);
	return 0;
}

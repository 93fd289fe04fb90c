/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * roles.h - the role of each task of a training job, and its environment.
 *
 * A job runs p parameter servers (PS) and w workers. The scheduler decides
 * (p, w) for each run of a job and writes them into the job's SPANK
 * environment as OPTIMUS_TOPOLOGY=ps=P,workers=W (roles_topology_format());
 * tasks see it as SLURM_SPANK_OPTIMUS_TOPOLOGY. In every job step
 * spank/optimus turns the topology, the step's layout (nodes, tasks per
 * node) and the task's place (node id, node-local task id) into a role, a
 * rank, the host lists and the framework variables (MXNet, TensorFlow,
 * PyTorch). Everything here is pure: no Slurm header, no I/O.
 *
 * Colocated layout (default, Theorem 1 of the Optimus paper): every node
 * holds an even share of PS and workers; on node i the first
 * placement_share_front(p, n, i) local tasks are PS, the others workers.
 * All-reduce jobs (mode=allreduce, PyTorch DDP): ps=0, every task a
 * worker, one task per worker (and per GPU when worker_gpus=1).
 * Separate layout: whole nodes of PS then whole nodes of workers, either in
 * one step (tasks ranked node by node) or in a heterogeneous step
 * `srun -n P ps : -n W worker` (component 0 = PS, component 1 = workers).
 */
#ifndef OPTIMUS_ROLES_H
#define OPTIMUS_ROLES_H

#include <stddef.h>
#include <stdint.h>

#include "hints/hints.h"

/* Name of the job's SPANK environment entry the scheduler writes. */
#define ROLES_TOPOLOGY_ENV "OPTIMUS_TOPOLOGY"

/*
 * Ports: a task's ports are ports Slurm reserved for its step on its node.
 * With MpiParams=ports=LOW-HIGH in slurm.conf, slurmctld gives every srun
 * step (max tasks on one node + 1) ports of that range, the same numbers on
 * each of the step's nodes (SLURM_STEP_RESV_PORTS), and never one port of
 * a node to two steps at once: jobs sharing a node never meet on a port,
 * whatever their ids. On each host the first reserved port is the step's
 * rendezvous: DMLC's scheduler (DMLC_PS_ROOT_PORT) on PS 0's host,
 * PyTorch's MASTER_PORT on worker 0's; the next ones are the step's tasks'
 * on that host, node by node (nodes sharing an address, as several slurmd
 * on one machine, share its ports: their tasks take successive ones, and
 * the batch script asks srun for that many, roles_ports_request()).
 */

typedef struct roles_topology {
	uint32_t ps;
	uint32_t workers;
	/* The batch the scheduler chose for this run (adaptive_batch=yes):
	 * global = local_batch * workers * (accum + 1); batch 0: none (the
	 * submitted batch, hints_batch_split). */
	uint64_t batch;
	uint32_t local_batch;
	uint32_t accum;
} roles_topology_t;

/* "ps=P,workers=W[,batch=B,local_batch=L,accum=K]" (any order; ps and
 * workers required, P >= 0, W >= 1; the batch fields all or none, with
 * B = L * W * (K + 1), L >= 1, K <= HINTS_MAX_ACCUM). */
int roles_topology_parse(const char *text, roles_topology_t *t, char *err,
			 size_t errlen);
/* Length written, or -ENOSPC. */
int roles_topology_format(const roles_topology_t *t, char *buf, size_t len);

/*
 * The topology a step of `tasks` tasks runs: *given (the scheduler's) when
 * it is non-NULL and adds up to `tasks`; otherwise derived from the step's
 * size: min(min_ps, tasks - 1) PS and the other tasks as workers. Returns 0
 * when *given was used, 1 when derived, -EINVAL when tasks == 0.
 */
int roles_topology_for_step(const optimus_hints_t *h,
			    const roles_topology_t *given, uint32_t tasks,
			    roles_topology_t *out);

typedef enum roles_role { ROLE_PS = 0, ROLE_WORKER = 1 } roles_role_t;

/* One node of a step: its host address (NodeAddr, as srun connects to it;
 * else its name), its task count and how many are PS
 * (roles_assign() fills `ps`: local ids 0..ps-1 are PS), and the ports
 * Slurm reserved for the step on it, ascending (a heterogeneous step: its
 * component's own; NULL, 0 when none). */
typedef struct roles_node {
	const char *host;
	uint32_t tasks;
	uint32_t ps;
	const uint32_t *ports;
	size_t nports;
} roles_node_t;

/*
 * Decide how many PS each node runs (see the layouts above). The node task
 * counts must add up to t->ps + t->workers. 0, or -ERANGE with a message.
 */
int roles_assign(const roles_topology_t *t, hints_layout_t layout,
		 roles_node_t *nodes, size_t nnodes, char *err, size_t errlen);

/* Where one task stands once the nodes are assigned. */
typedef struct roles_task {
	roles_role_t role;
	uint32_t rank;		/* index among the tasks of its role */
	uint32_t local_rank;	/* index among its role's tasks on its node */
	uint32_t port;
	const char *host;
} roles_task_t;

/* The task at (node, local id): 0, -ERANGE (no such task) or -ENOSPC
 * (its node's reserved ports are too few: roles_ports_check). */
int roles_task_at(const roles_node_t *nodes, size_t nnodes, uint32_t node,
		  uint32_t local_id, roles_task_t *out);

/* The rendezvous port on a node's host (the first reserved), 0 if none. */
uint32_t roles_rendezvous_port(const roles_node_t *node);

/*
 * Does every node hold the ports its host's tasks take (1 + the tasks of
 * the step on its host)? 0, or -ENOSPC naming the first node short of
 * them and what would give them (MpiParams=ports=, srun --resv-ports).
 */
int roles_ports_check(const roles_node_t *nodes, size_t nnodes, char *err,
		      size_t errlen);

/*
 * The ports a step of these nodes must ask srun for (SLURM_RESV_PORTS, or
 * --resv-ports) so that every host's tasks have theirs: 0 when Slurm's own
 * count (1 + the most tasks on one node) is enough, which it is unless
 * nodes share an address.
 */
uint32_t roles_ports_request(const roles_node_t *nodes, size_t nnodes);

/* Slurm's reserved ports, "12000-12003,12007" (SLURM_STEP_RESV_PORTS),
 * into a malloc()ed ascending array: 0, or -EINVAL/-ENOMEM. */
int roles_ports_parse(const char *text, uint32_t **ports, size_t *n);

/* The variables a task sees; names and values owned by the list. */
typedef struct roles_env {
	size_t n, cap;
	char **names;
	char **values;
} roles_env_t;

void roles_env_init(roles_env_t *e);
void roles_env_free(roles_env_t *e);
/* The value of name, or NULL. */
const char *roles_env_get(const roles_env_t *e, const char *name);

typedef struct roles_job {
	uint32_t job_id;
	uint32_t restart_count;
	const char *submit_dir;	/* default checkpoint folder under it */
	const char *home;	/* ... or under $HOME; may be NULL */
	/* The job's identity beside its id (job ids repeat on a new cluster
	 * and wrap at MaxJobId): SLURM_CLUSTER_NAME and the submission stamp
	 * spank/optimus gave it in sbatch (seconds since the epoch, kept
	 * across requeues); each may be NULL when unknown. */
	const char *cluster;
	const char *submit_time;
	const optimus_hints_t *hints;
	roles_topology_t topology;
} roles_job_t;

/*
 * The checkpoint folder: the ckpt_dir hint, else
 * <submit_dir or home>/optimus-checkpoints/<cluster>-<job id>-<submit time>
 * (a part left out when unknown; characters of the cluster name outside
 * [A-Za-z0-9._-] become '_'). -EINVAL if none.
 */
int roles_checkpoint_dir(const roles_job_t *job, char *buf, size_t len);

/*
 * Job-level variables (the batch script's): OPTIMUS_JOB_ID,
 * OPTIMUS_CLUSTER and OPTIMUS_SUBMIT_TIME (when known), OPTIMUS_TOPOLOGY, OPTIMUS_NUM_PS, OPTIMUS_NUM_WORKERS, OPTIMUS_MODE,
 * OPTIMUS_GLOBAL_BATCH, OPTIMUS_LOCAL_BATCH and OPTIMUS_ACCUM_STEPS (the
 * topology's batch, else the batch= hint split over the workers; none
 * without either, or when the hint does not fit them),
 * OPTIMUS_CHECKPOINT_DIR, OPTIMUS_CKPT_SIGNAL, OPTIMUS_CKPT_GRACE,
 * SLURM_RESTART_COUNT. 0 or -ENOMEM / -EINVAL.
 */
int roles_env_job(const roles_job_t *job, roles_env_t *env);

/*
 * Everything one task sees: the job-level variables plus OPTIMUS_ROLE,
 * OPTIMUS_RANK, OPTIMUS_PS_HOSTS, OPTIMUS_WORKER_HOSTS (host:port lists),
 * OPTIMUS_SHARD_INDEX/COUNT, DMLC_* (MXNet; not for mode=allreduce, which
 * has no PS), TF_CONFIG (TensorFlow) and, for workers, MASTER_ADDR,
 * MASTER_PORT, WORLD_SIZE, RANK, LOCAL_RANK, LOCAL_WORLD_SIZE, NODE_RANK
 * and GROUP_RANK (PyTorch's torch.distributed and torchrun, among
 * workers); the ports from the nodes' reservations (above). nodes must be
 * assigned (roles_assign()). 0, -ENOSPC when a node's reserved ports are
 * too few (roles_ports_check, the reason in err), -ERANGE or -ENOMEM.
 */
int roles_env_task(const roles_job_t *job, const roles_node_t *nodes,
		   size_t nnodes, uint32_t node, uint32_t local_id,
		   roles_env_t *env, char *err, size_t errlen);

/*
 * Slurm's compact lists, parsed without Slurm: "n[1-3,07],login" into host
 * names, and "2(x3),1" (SLURM_TASKS_PER_NODE) into counts. The arrays are
 * malloc()ed (free hosts with roles_hostlist_free()). 0 or -EINVAL/-ENOMEM.
 */
int roles_hostlist_expand(const char *list, char ***hosts, size_t *n);
void roles_hostlist_free(char **hosts, size_t n);
int roles_tasks_per_node(const char *text, uint32_t **counts, size_t *n);

#endif

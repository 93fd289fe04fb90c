/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* roles/env.c - the environment variables of a job and of each task. */
#define _GNU_SOURCE	/* vasprintf */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "util/grow.h"
#include "roles/roles.h"
#include "util/errmsg.h"

void roles_env_init(roles_env_t *e)
{
	memset(e, 0, sizeof(*e));
}

void roles_env_free(roles_env_t *e)
{
	for (size_t i = 0; i < e->n; i++) {
		free(e->names[i]);
		free(e->values[i]);
	}
	free(e->names);
	free(e->values);
	roles_env_init(e);
}

const char *roles_env_get(const roles_env_t *e, const char *name)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->names[i], name))
			return e->values[i];
	return NULL;
}

static int env_grow(roles_env_t *e)
{
	/* names and values share e->cap: grow both from it. */
	size_t ncap = e->cap, vcap = e->cap;
	char **names = grow_array(e->names, &ncap, e->cap, sizeof(*names), 32);
	char **values;

	if (!names)
		return -ENOMEM;
	e->names = names;
	values = grow_array(e->values, &vcap, e->cap, sizeof(*values), 32);
	if (!values)
		return -ENOMEM;
	e->values = values;
	e->cap = vcap;
	return 0;
}

/* Set (or replace) name to an owned value. */
static int env_take(roles_env_t *e, const char *name, char *value)
{
	for (size_t i = 0; i < e->n; i++) {
		if (!strcmp(e->names[i], name)) {
			free(e->values[i]);
			e->values[i] = value;
			return 0;
		}
	}
	if (!value || (e->n == e->cap && env_grow(e)) ||
	    !(e->names[e->n] = strdup(name))) {
		free(value);
		return -ENOMEM;
	}
	e->values[e->n++] = value;
	return 0;
}

static int env_setf(roles_env_t *e, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *value = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&value, fmt, ap);
	va_end(ap);
	return env_take(e, name, n < 0 ? NULL : value);
}

/* Is the submission stamp seconds since the epoch? Anything else would
 * name another folder than the one the trainers check against. */
static int stamp_valid(const char *t)
{
	if (!t || !*t || strlen(t) > 20)
		return 0;
	for (; *t; t++)
		if (*t < '0' || *t > '9')
			return 0;
	return 1;
}

int roles_checkpoint_dir(const roles_job_t *job, char *buf, size_t len)
{
	const char *base = job->submit_dir && *job->submit_dir ? job->submit_dir
							      : job->home;
	char cluster[128] = "";
	int n;

	if (job->hints && job->hints->ckpt_dir[0]) {
		n = snprintf(buf, len, "%s", job->hints->ckpt_dir);
		return n < 0 || (size_t)n >= len ? -EINVAL : 0;
	}
	if (!base || !*base)
		return -EINVAL;
	/* Unique to the job, not to its id: ids start again on a new cluster
	 * and wrap at MaxJobId, and a folder named by the id alone would hand
	 * an older job's checkpoint to a new job. */
	if (job->cluster && *job->cluster) {
		size_t i;

		for (i = 0; job->cluster[i] && i < sizeof(cluster) - 2; i++) {
			char c = job->cluster[i];

			cluster[i] = (isalnum((unsigned char)c) || c == '.' ||
				      c == '_' || c == '-') ? c : '_';
		}
		cluster[i++] = '-';
		cluster[i] = '\0';
	}
	n = snprintf(buf, len, "%s/optimus-checkpoints/%s%u%s%s", base, cluster,
		     job->job_id, stamp_valid(job->submit_time) ? "-" : "",
		     stamp_valid(job->submit_time) ? job->submit_time : "");
	return n < 0 || (size_t)n >= len ? -EINVAL : 0;
}

/*
 * The run's batch: the scheduler's (the topology's) for an adaptive job,
 * else the submitted one over this run's workers. 0 when set, 1 when
 * the job has none (or it does not fit: job_submit refused hints that
 * cannot fit min_workers, and a derived topology may have fewer).
 */
static int env_batch(const roles_job_t *job, roles_env_t *env)
{
	const roles_topology_t *t = &job->topology;
	hints_batch_t b = { t->batch, t->local_batch, t->accum };
	int rc = 0;

	if (!b.batch && (!job->hints ||
			 hints_batch_split(job->hints, t->workers, &b, NULL, 0)))
		return 1;
	rc |= env_setf(env, "OPTIMUS_GLOBAL_BATCH", "%llu",
		       (unsigned long long)b.batch);
	rc |= env_setf(env, "OPTIMUS_LOCAL_BATCH", "%u", b.local);
	rc |= env_setf(env, "OPTIMUS_ACCUM_STEPS", "%u", b.accum);
	return rc;
}

int roles_env_job(const roles_job_t *job, roles_env_t *env)
{
	const optimus_hints_t *h = job->hints;
	char ckpt[HINTS_PATH_MAX + 64], topo[160];
	int rc = 0;

	rc |= env_setf(env, "OPTIMUS_JOB_ID", "%u", job->job_id);
	if (job->cluster && *job->cluster)
		rc |= env_setf(env, "OPTIMUS_CLUSTER", "%s", job->cluster);
	if (stamp_valid(job->submit_time))
		rc |= env_setf(env, "OPTIMUS_SUBMIT_TIME", "%s",
			       job->submit_time);
	if (roles_topology_format(&job->topology, topo, sizeof(topo)) < 0)
		return -EINVAL;
	rc |= env_setf(env, "OPTIMUS_TOPOLOGY", "%s", topo);
	if (env_batch(job, env) < 0)
		rc = -ENOMEM;
	rc |= env_setf(env, "OPTIMUS_NUM_PS", "%u", job->topology.ps);
	rc |= env_setf(env, "OPTIMUS_NUM_WORKERS", "%u", job->topology.workers);
	rc |= env_setf(env, "SLURM_RESTART_COUNT", "%u", job->restart_count);
	if (h) {
		rc |= env_setf(env, "OPTIMUS_MODE", "%s", hints_mode_name(h->mode));
		rc |= env_setf(env, "OPTIMUS_CKPT_SIGNAL", "%d", h->ckpt_signal);
		rc |= env_setf(env, "OPTIMUS_CKPT_GRACE", "%u", h->ckpt_grace);
	}
	if (!roles_checkpoint_dir(job, ckpt, sizeof(ckpt)))
		rc |= env_setf(env, "OPTIMUS_CHECKPOINT_DIR", "%s", ckpt);
	return rc ? -ENOMEM : 0;
}

/* "host:port" of every task of a role, in rank order, into a json array
 * and a comma-separated list. */
static int role_hosts(const roles_node_t *nodes, size_t nnodes,
		      roles_role_t role, json_object *arr, char **list)
{
	size_t used = 0, cap = 256;
	char *s = calloc(cap, 1);
	roles_task_t t;

	for (uint32_t i = 0; s && i < nnodes; i++) {
		for (uint32_t l = 0; l < nodes[i].tasks; l++) {
			char item[300];
			int n;

			if (roles_task_at(nodes, nnodes, i, l, &t) ||
			    t.role != role)
				continue;
			n = snprintf(item, sizeof(item), "%s:%u", t.host, t.port);
			json_object_array_add(arr, json_object_new_string(item));
			while (s && used + n + 2 > cap) {
				char *bigger = realloc(s, cap *= 2);
				if (!bigger)
					free(s);
				s = bigger;
			}
			if (s)
				used += sprintf(s + used, "%s%s", used ? "," : "",
						item);
		}
	}
	*list = s;
	return s ? 0 : -ENOMEM;
}

/* TensorFlow's TF_CONFIG: {"cluster": {"ps": [...], "worker": [...]},
 * "task": {"type": "ps"|"worker", "index": rank}}. */
static char *tf_config(json_object *ps, json_object *workers,
		       const roles_task_t *t)
{
	json_object *root = json_object_new_object();
	json_object *cluster = json_object_new_object();
	json_object *task = json_object_new_object();
	char *out;

	if (json_object_array_length(ps))
		json_object_object_add(cluster, "ps", json_object_get(ps));
	json_object_object_add(cluster, "worker", json_object_get(workers));
	json_object_object_add(task, "type", json_object_new_string(
				       t->role == ROLE_PS ? "ps" : "worker"));
	json_object_object_add(task, "index", json_object_new_int64(t->rank));
	json_object_object_add(root, "cluster", cluster);
	json_object_object_add(root, "task", task);
	out = strdup(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN));
	json_object_put(root);
	return out;
}

/* The first task of a role: MXNet's root is PS 0, PyTorch's worker 0. */
static const roles_node_t *first_host_of(const roles_node_t *nodes,
					 size_t nnodes, roles_role_t role)
{
	for (size_t i = 0; i < nnodes; i++)
		if (role == ROLE_PS ? nodes[i].ps > 0
				    : nodes[i].tasks > nodes[i].ps)
			return &nodes[i];
	return NULL;
}

static int env_frameworks(const roles_job_t *job, const roles_node_t *nodes,
			  size_t nnodes, const roles_task_t *t,
			  roles_env_t *env)
{
	const roles_node_t *root = first_host_of(nodes, nnodes, ROLE_PS);
	const roles_node_t *master = first_host_of(nodes, nnodes, ROLE_WORKER);
	int rc = 0;

	/* an all-reduce job has no PS: MXNet's PS variables do not apply */
	if (job->hints && hints_is_allreduce(job->hints))
		goto torch;
	rc |= env_setf(env, "DMLC_ROLE", "%s",
		       t->role == ROLE_PS ? "server" : "worker");
	if (!root)
		root = master;	/* no PS: the root still needs an address */
	rc |= env_setf(env, "DMLC_PS_ROOT_URI", "%s", root->host);
	rc |= env_setf(env, "DMLC_PS_ROOT_PORT", "%u",
		       roles_rendezvous_port(root));
	rc |= env_setf(env, "DMLC_NUM_SERVER", "%u", job->topology.ps);
	rc |= env_setf(env, "DMLC_NUM_WORKER", "%u", job->topology.workers);
torch:
	if (t->role != ROLE_WORKER)
		return rc;
	rc |= env_setf(env, "MASTER_ADDR", "%s", master->host);
	rc |= env_setf(env, "MASTER_PORT", "%u", roles_rendezvous_port(master));
	rc |= env_setf(env, "WORLD_SIZE", "%u", job->topology.workers);
	rc |= env_setf(env, "RANK", "%u", t->rank);
	rc |= env_setf(env, "LOCAL_RANK", "%u", t->local_rank);
	return rc;
}

static int env_lists(const roles_job_t *job, const roles_node_t *nodes,
		     size_t nnodes, const roles_task_t *t, roles_env_t *env)
{
	json_object *ps = json_object_new_array();
	json_object *wk = json_object_new_array();
	char *ps_list = NULL, *wk_list = NULL;
	int rc;

	rc = role_hosts(nodes, nnodes, ROLE_PS, ps, &ps_list);
	rc |= role_hosts(nodes, nnodes, ROLE_WORKER, wk, &wk_list);
	if (!rc) {
		rc |= env_take(env, "OPTIMUS_PS_HOSTS", ps_list);
		rc |= env_take(env, "OPTIMUS_WORKER_HOSTS", wk_list);
		rc |= env_take(env, "TF_CONFIG", tf_config(ps, wk, t));
	} else {
		free(ps_list);
		free(wk_list);
	}
	json_object_put(ps);
	json_object_put(wk);
	return rc;
}

/*
 * What torchrun gives each worker beside RANK and LOCAL_RANK: the workers
 * on its node (LOCAL_WORLD_SIZE) and its node's index among the nodes
 * holding workers (NODE_RANK, torchrun's GROUP_RANK): ranks are
 * contiguous node by node (roles_task_at), as torchrun numbers them.
 */
static int env_torch_node(const roles_node_t *nodes, uint32_t node,
			  const roles_task_t *t, roles_env_t *env)
{
	uint32_t node_rank = 0;
	int rc = 0;

	if (t->role != ROLE_WORKER)
		return 0;
	for (uint32_t i = 0; i < node; i++)
		node_rank += nodes[i].tasks > nodes[i].ps;
	rc |= env_setf(env, "LOCAL_WORLD_SIZE", "%u",
		       nodes[node].tasks - nodes[node].ps);
	rc |= env_setf(env, "NODE_RANK", "%u", node_rank);
	rc |= env_setf(env, "GROUP_RANK", "%u", node_rank);
	return rc;
}

int roles_env_task(const roles_job_t *job, const roles_node_t *nodes,
		   size_t nnodes, uint32_t node, uint32_t local_id,
		   roles_env_t *env, char *err, size_t errlen)
{
	roles_task_t t;
	int rc;

	/* every task's port, not only this one's: the host lists name all */
	if ((rc = roles_ports_check(nodes, nnodes, err, errlen)))
		return rc;
	if (roles_task_at(nodes, nnodes, node, local_id, &t))
		return errmsg_set(err, errlen, -ERANGE,
				  "no task %u on node %u of %zu", local_id,
				  node, nnodes);
	rc = roles_env_job(job, env);
	rc |= env_setf(env, "OPTIMUS_ROLE", "%s",
		       t.role == ROLE_PS ? "ps" : "worker");
	rc |= env_setf(env, "OPTIMUS_RANK", "%u", t.rank);
	rc |= env_setf(env, "OPTIMUS_LOCAL_RANK", "%u", t.local_rank);
	rc |= env_setf(env, "OPTIMUS_PORT", "%u", t.port);
	/* data shards follow the workers of the current topology, so a
	 * resized job re-partitions its data on restart */
	if (t.role == ROLE_WORKER)
		rc |= env_setf(env, "OPTIMUS_SHARD_INDEX", "%u", t.rank);
	rc |= env_setf(env, "OPTIMUS_SHARD_COUNT", "%u", job->topology.workers);
	rc |= env_lists(job, nodes, nnodes, &t, env);
	rc |= env_frameworks(job, nodes, nnodes, &t, env);
	rc |= env_torch_node(nodes, node, &t, env);
	if (rc && err && errlen)
		errmsg_set(err, errlen, 0,
			   "out of memory building the environment");
	return rc ? -ENOMEM : 0;
}

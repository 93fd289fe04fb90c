/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * test_roles.c - per-task roles: the topology string, the PS/worker split
 * per node (Theorem 1 for the colocated layout), ranks and ports unique,
 * the framework variables consistent with each other, Slurm's compact
 * host and task-count lists.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "alloc/placement.h"
#include "roles/roles.h"
#include "check_run.h"

START_TEST(test_topology_string)
{
	roles_topology_t t, u;
	char buf[64];

	ck_assert_int_eq(roles_topology_parse("ps=2,workers=6", &t, NULL, 0), 0);
	ck_assert_uint_eq(t.ps, 2);
	ck_assert_uint_eq(t.workers, 6);
	ck_assert_int_eq(roles_topology_parse("workers=3,ps=0", &t, NULL, 0), 0);
	ck_assert_uint_eq(t.ps, 0);
	ck_assert_int_gt(roles_topology_format(&t, buf, sizeof(buf)), 0);
	ck_assert_int_eq(roles_topology_parse(buf, &u, NULL, 0), 0);
	ck_assert_int_eq(memcmp(&t, &u, sizeof(t)), 0);
	ck_assert_int_eq(roles_topology_format(&t, buf, 5), -ENOSPC);
	/* the scheduler's batch for the run */
	ck_assert_int_eq(roles_topology_parse("ps=0,workers=4,batch=96,"
					      "local_batch=12,accum=1", &t,
					      NULL, 0), 0);
	ck_assert_uint_eq(t.batch, 96);
	ck_assert_uint_eq(t.local_batch, 12);
	ck_assert_uint_eq(t.accum, 1);
	ck_assert_int_gt(roles_topology_format(&t, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "ps=0,workers=4,batch=96,local_batch=12,accum=1");
	ck_assert_int_eq(roles_topology_parse(buf, &u, NULL, 0), 0);
	ck_assert_int_eq(memcmp(&t, &u, sizeof(t)), 0);
}
END_TEST

/* Each task's batch: the scheduler's (topology) at every start, else the
 * submitted batch split over the run's workers; none without batch=. */
START_TEST(test_env_batch)
{
	optimus_hints_t h;
	roles_job_t job = { .job_id = 9, .submit_dir = "/w", .hints = &h };
	roles_env_t env;
	char err[256];

	ck_assert_msg(!hints_parse("optimus,mode=allreduce,max_workers=8,"
				   "batch=32,max_batch=256,max_local_batch=16,"
				   "max_accum=3,adaptive_batch=yes", &h, err,
				   sizeof(err)), "%s", err);
	/* 32 on 1 worker: 2 micro-steps of 16 */
	job.topology = (roles_topology_t){ .ps = 0, .workers = 1 };
	roles_env_init(&env);
	ck_assert_int_eq(roles_env_job(&job, &env), 0);
	ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_GLOBAL_BATCH"), "32");
	ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_LOCAL_BATCH"), "16");
	ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_ACCUM_STEPS"), "1");
	ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_TOPOLOGY"),
			 "ps=0,workers=1");
	roles_env_free(&env);
	/* the scheduler chose 192 for 4 workers: 12 each in 4 micro-steps */
	ck_assert_int_eq(roles_topology_parse("ps=0,workers=4,batch=192,"
					      "local_batch=12,accum=3",
					      &job.topology, err, sizeof(err)),
			 0);
	roles_env_init(&env);
	ck_assert_int_eq(roles_env_job(&job, &env), 0);
	ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_GLOBAL_BATCH"), "192");
	ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_LOCAL_BATCH"), "12");
	ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_ACCUM_STEPS"), "3");
	/* srun steps read the batch back from the topology */
	ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_TOPOLOGY"),
			 "ps=0,workers=4,batch=192,local_batch=12,accum=3");
	roles_env_free(&env);
	/* no batch= hint: no batch variables */
	ck_assert(!hints_parse("optimus,mode=allreduce,workers=2", &h, err,
			       sizeof(err)));
	job.topology = (roles_topology_t){ .ps = 0, .workers = 2 };
	roles_env_init(&env);
	ck_assert_int_eq(roles_env_job(&job, &env), 0);
	ck_assert_ptr_null(roles_env_get(&env, "OPTIMUS_GLOBAL_BATCH"));
	ck_assert_ptr_null(roles_env_get(&env, "OPTIMUS_LOCAL_BATCH"));
	roles_env_free(&env);
}
END_TEST

static const char *const bad_topo[] = {
	"", "ps=1", "workers=2", "ps=1,workers=0", "ps=1,workers=2,ps=1",
	"ps=-1,workers=2", "ps=1,workers=2x", "ps=1;workers=2", "gpus=1,ps=1",
	"ps=,workers=1", "ps=1,workers=2,",
	/* the batch: all three fields or none, and consistent */
	"ps=0,workers=4,batch=32", "ps=0,workers=4,batch=32,local_batch=8",
	"ps=0,workers=4,batch=32,local_batch=4,accum=0",
	"ps=0,workers=4,batch=0,local_batch=0,accum=0",
	"ps=0,workers=4,batch=64,local_batch=8,accum=65",
	"ps=0,workers=4,batch=32,local_batch=8,accum=0,batch=32",
};

START_TEST(test_topology_refused)
{
	roles_topology_t t = { .ps = 7, .workers = 7 };
	char err[128] = "";

	ck_assert_int_eq(roles_topology_parse(bad_topo[_i], &t, err,
					      sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "OPTIMUS_TOPOLOGY"));
	ck_assert_uint_eq(t.ps, 7);
}
END_TEST

START_TEST(test_topology_for_step)
{
	optimus_hints_t h;
	roles_topology_t given = { .ps = 2, .workers = 6 }, t;

	hints_init(&h, HINTS_POLICY_OPTIMUS);
	h.min_ps = 3;
	ck_assert_int_eq(roles_topology_for_step(&h, &given, 8, &t), 0);
	ck_assert_uint_eq(t.ps, 2);
	/* a step of another size derives from the hints */
	ck_assert_int_eq(roles_topology_for_step(&h, &given, 10, &t), 1);
	ck_assert_uint_eq(t.ps, 3);
	ck_assert_uint_eq(t.workers, 7);
	ck_assert_int_eq(roles_topology_for_step(&h, NULL, 2, &t), 1);
	ck_assert_uint_eq(t.ps, 1);
	ck_assert_uint_eq(t.workers, 1);
	ck_assert_int_eq(roles_topology_for_step(&h, NULL, 1, &t), 1);
	ck_assert_uint_eq(t.ps, 0);
	ck_assert_uint_eq(t.workers, 1);
	ck_assert_int_eq(roles_topology_for_step(&h, NULL, 0, &t), -EINVAL);
}
END_TEST

#define MAXN 8
static const char *const host_names[MAXN] = {
	"n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8"
};

/* The ports Slurm reserved for a step, as SLURM_STEP_RESV_PORTS lists
 * them: 20 from RESV (not contiguous: Slurm skips ports in use). */
#define RESV "31000-31009,31020-31029"
static uint32_t *resv;
static size_t nresv;

static void resv_load(void)
{
	if (!resv)
		ck_assert_int_eq(roles_ports_parse(RESV, &resv, &nresv), 0);
	ck_assert_uint_eq(nresv, 20);
}

static size_t make_nodes(roles_node_t *nodes, size_t n, const uint32_t *tasks)
{
	resv_load();
	for (size_t i = 0; i < n; i++) {
		nodes[i].host = host_names[i];
		nodes[i].tasks = tasks[i];
		nodes[i].ps = 0;
		nodes[i].ports = resv;
		nodes[i].nports = nresv;
	}
	return n;
}

/* The index of port in the reservation, or -1. */
static int resv_index(uint32_t port)
{
	for (size_t i = 0; i < nresv; i++)
		if (resv[i] == port)
			return (int)i;
	return -1;
}

/* Two nodes with one address (multiple slurmd on a host) never
 * give two tasks the same host:port; the rendezvous port is none of theirs. */
START_TEST(test_ports_unique_per_address)
{
	roles_node_t nodes[3] = {
		{ .host = "127.0.0.1", .tasks = 3 },
		{ .host = "10.0.0.2", .tasks = 2 },
		{ .host = "127.0.0.1", .tasks = 3 },
	};
	roles_topology_t t = { .ps = 3, .workers = 5 };
	char seen[2][20];
	roles_task_t task;

	resv_load();
	for (int i = 0; i < 3; i++)
		nodes[i].ports = resv, nodes[i].nports = nresv;
	memset(seen, 0, sizeof(seen));
	ck_assert_int_eq(roles_assign(&t, HINTS_LAYOUT_COLOCATED, nodes, 3,
				      NULL, 0), 0);
	for (uint32_t i = 0; i < 3; i++)
		for (uint32_t l = 0; l < nodes[i].tasks; l++) {
			int h = strcmp(nodes[i].host, "127.0.0.1") ? 1 : 0, k;

			ck_assert_int_eq(roles_task_at(nodes, 3, i, l, &task), 0);
			k = resv_index(task.port);
			ck_assert_int_ge(k, 1);
			ck_assert_msg(!seen[h][k], "port %u twice on %s",
				      task.port, task.host);
			seen[h][k] = 1;
		}
	/* 6 tasks on 127.0.0.1 take 7 ports there: Slurm's own count for the
	 * step (1 + 3 per node) is short, srun must ask for 7 */
	ck_assert_uint_eq(roles_ports_request(nodes, 3), 7);
	nodes[0].nports = nodes[2].nports = 6;
	ck_assert_int_eq(roles_task_at(nodes, 3, 2, 2, &task), -ENOSPC);
	ck_assert_int_eq(roles_ports_check(nodes, 3, NULL, 0), -ENOSPC);
	nodes[0].nports = nodes[2].nports = 7;
	ck_assert_int_eq(roles_ports_check(nodes, 3, NULL, 0), 0);
}
END_TEST

/*
 * Slurm's reservation decides: the ports come from the step's reserved
 * ports alone (no job id plays a part), a
 * node with one slurmd needs Slurm's own count, and a step without
 * reserved ports is refused with what to configure.
 */
START_TEST(test_ports_from_the_reservation)
{
	static const uint32_t tasks[] = { 3, 2 };
	uint32_t small[4] = { 40001, 40002, 40003, 40004 }, *v;
	roles_node_t nodes[2];
	roles_task_t task;
	size_t n;
	char err[256];

	make_nodes(nodes, 2, tasks);
	ck_assert_uint_eq(roles_ports_request(nodes, 2), 0);
	ck_assert_uint_eq(roles_rendezvous_port(&nodes[0]), 31000);
	ck_assert_int_eq(roles_task_at(nodes, 2, 0, 2, &task), 0);
	ck_assert_uint_eq(task.port, 31003);
	ck_assert_int_eq(roles_task_at(nodes, 2, 1, 0, &task), 0);
	ck_assert_uint_eq(task.port, 31001);	/* another host: its own */
	/* exactly Slurm's count: 1 + 3 tasks */
	nodes[0].ports = nodes[1].ports = small;
	nodes[0].nports = nodes[1].nports = 4;
	ck_assert_int_eq(roles_ports_check(nodes, 2, err, sizeof(err)), 0);
	ck_assert_int_eq(roles_task_at(nodes, 2, 0, 2, &task), 0);
	ck_assert_uint_eq(task.port, 40004);
	nodes[0].nports = 3;
	ck_assert_int_eq(roles_ports_check(nodes, 2, err, sizeof(err)),
			 -ENOSPC);
	ck_assert_msg(strstr(err, "3 ports") && strstr(err, "need 4"), "%s",
		      err);
	nodes[0].ports = NULL;
	nodes[0].nports = 0;
	ck_assert_int_eq(roles_ports_check(nodes, 2, err, sizeof(err)),
			 -ENOSPC);
	ck_assert_ptr_nonnull(strstr(err, "MpiParams=ports="));
	ck_assert_uint_eq(roles_rendezvous_port(&nodes[0]), 0);
	/* Slurm's lists */
	ck_assert_int_eq(roles_ports_parse("12000", &v, &n), 0);
	ck_assert_uint_eq(n, 1);
	free(v);
	ck_assert_int_eq(roles_ports_parse("12000-12002,12005,12007-12008",
					   &v, &n), 0);
	ck_assert_uint_eq(n, 6);
	ck_assert_uint_eq(v[3], 12005);
	ck_assert_uint_eq(v[5], 12008);
	free(v);
	static const char *const bad[] = { "", "x", "12000-", "-3", "0",
		"12002-12000", "12000,11000", "12000;12001", "70000",
		"12000-70000", "12000,", "(null)" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(roles_ports_parse(bad[i], &v, &n) == -EINVAL,
			      "%s", bad[i]);
}
END_TEST

/* Every task has exactly one (role, rank); ranks 0..count-1 of each role. */
static void assert_ranks(const roles_node_t *nodes, size_t n,
			 const roles_topology_t *t)
{
	unsigned char seen[2][64] = { { 0 } };
	uint32_t count[2] = { 0, 0 };
	roles_task_t task;

	for (uint32_t i = 0; i < n; i++) {
		unsigned char port_used[20] = { 0 };

		for (uint32_t l = 0; l < nodes[i].tasks; l++) {
			int k;

			ck_assert_int_eq(roles_task_at(nodes, n, i, l, &task), 0);
			ck_assert_uint_lt(task.rank, 64);
			ck_assert(!seen[task.role][task.rank]);
			seen[task.role][task.rank] = 1;
			count[task.role]++;
			ck_assert_str_eq(task.host, nodes[i].host);
			/* a reserved port, not the rendezvous (the first) */
			k = resv_index(task.port);
			ck_assert_int_ge(k, 1);
			ck_assert(!port_used[k]);
			port_used[k] = 1;
		}
	}
	ck_assert_uint_eq(count[ROLE_PS], t->ps);
	ck_assert_uint_eq(count[ROLE_WORKER], t->workers);
	for (uint32_t r = 0; r < t->ps; r++)
		ck_assert(seen[ROLE_PS][r]);
	for (uint32_t r = 0; r < t->workers; r++)
		ck_assert(seen[ROLE_WORKER][r]);
}

START_TEST(test_colocated_theorem1)
{
	/* p PS, w workers over k nodes with the Theorem 1 split */
	uint32_t k = 1 + _i % 4, p = 1 + _i % 5, w = 1 + (_i * 7) % 11;
	roles_topology_t t = { .ps = p, .workers = w };
	roles_node_t nodes[MAXN];
	uint32_t tasks[MAXN];
	char err[160];

	for (uint32_t i = 0; i < k; i++)
		tasks[i] = placement_share_front(p, k, i) +
			   placement_share_back(w, k, i);
	make_nodes(nodes, k, tasks);
	if (p + w < k)
		return;
	ck_assert_msg(!roles_assign(&t, HINTS_LAYOUT_COLOCATED, nodes, k, err,
				    sizeof(err)), "%s", err);
	for (uint32_t i = 0; i < k; i++)
		ck_assert_uint_eq(nodes[i].ps, placement_share_front(p, k, i));
	assert_ranks(nodes, k, &t);
}
END_TEST

START_TEST(test_colocated_uneven_steps)
{
	/* a step laid out unlike Theorem 1 still gets every PS placed */
	static const uint32_t tasks[] = { 1, 1, 6 };
	roles_topology_t t = { .ps = 5, .workers = 3 };
	roles_node_t nodes[3];

	make_nodes(nodes, 3, tasks);
	ck_assert_int_eq(roles_assign(&t, HINTS_LAYOUT_COLOCATED, nodes, 3,
				      NULL, 0), 0);
	ck_assert_uint_eq(nodes[0].ps + nodes[1].ps + nodes[2].ps, 5);
	for (int i = 0; i < 3; i++)
		ck_assert_uint_le(nodes[i].ps, nodes[i].tasks);
	assert_ranks(nodes, 3, &t);
}
END_TEST

START_TEST(test_separate_and_mismatch)
{
	/* `srun -n2 ps : -n4 worker` on 1 + 2 nodes */
	static const uint32_t tasks[] = { 2, 2, 2 };
	roles_topology_t t = { .ps = 2, .workers = 4 }, bad = { .ps = 2, .workers = 5 };
	roles_node_t nodes[3];
	char err[160];

	make_nodes(nodes, 3, tasks);
	ck_assert_int_eq(roles_assign(&t, HINTS_LAYOUT_SEPARATE, nodes, 3,
				      NULL, 0), 0);
	ck_assert_uint_eq(nodes[0].ps, 2);
	ck_assert_uint_eq(nodes[1].ps, 0);
	ck_assert_uint_eq(nodes[2].ps, 0);
	assert_ranks(nodes, 3, &t);
	ck_assert_int_eq(roles_assign(&bad, HINTS_LAYOUT_SEPARATE, nodes, 3,
				      err, sizeof(err)), -ERANGE);
	ck_assert_ptr_nonnull(strstr(err, "6 tasks"));
}
END_TEST

/* 2 nodes, 2 PS + 2 workers: n1 = {ps0, w0}, n2 = {ps1, w1}. */
START_TEST(test_task_env)
{
	static const uint32_t tasks[] = { 2, 2 };
	optimus_hints_t h;
	roles_node_t nodes[2];
	roles_job_t job = { .job_id = 77, .restart_count = 3,
			    .submit_dir = "/home/u/run", .hints = &h,
			    .topology = { 2, 2 } };
	roles_env_t env;
	json_object *tf, *cl, *task, *v;
	char err[256];

	ck_assert_int_eq(hints_parse("optimus,ps=2,workers=2,mode=sync,batch=64",
				     &h, err, sizeof(err)), 0);
	make_nodes(nodes, 2, tasks);
	ck_assert_int_eq(roles_assign(&job.topology, h.layout, nodes, 2, NULL, 0), 0);
	roles_env_init(&env);
	ck_assert_msg(!roles_env_task(&job, nodes, 2, 1, 1, &env, err,
				      sizeof(err)), "%s", err);
	ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_ROLE"), "worker");
	ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_RANK"), "1");
	ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_SHARD_INDEX"), "1");
	ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_SHARD_COUNT"), "2");
	ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_MODE"), "sync");
	ck_assert_str_eq(roles_env_get(&env, "SLURM_RESTART_COUNT"), "3");
	ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_CHECKPOINT_DIR"),
			 "/home/u/run/optimus-checkpoints/77");
	/* each host: its rendezvous port, then its tasks' */
	ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_PS_HOSTS"),
			 "n1:31001,n2:31001");
	ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_WORKER_HOSTS"),
			 "n1:31002,n2:31002");
	ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_PORT"), "31002");
	ck_assert_str_eq(roles_env_get(&env, "DMLC_PS_ROOT_PORT"), "31000");
	ck_assert_str_eq(roles_env_get(&env, "MASTER_PORT"), "31000");
	ck_assert_str_eq(roles_env_get(&env, "DMLC_ROLE"), "worker");
	ck_assert_str_eq(roles_env_get(&env, "DMLC_PS_ROOT_URI"), "n1");
	ck_assert_str_eq(roles_env_get(&env, "DMLC_NUM_SERVER"), "2");
	ck_assert_str_eq(roles_env_get(&env, "MASTER_ADDR"), "n1");
	ck_assert_str_eq(roles_env_get(&env, "WORLD_SIZE"), "2");
	ck_assert_str_eq(roles_env_get(&env, "RANK"), "1");
	ck_assert_str_eq(roles_env_get(&env, "LOCAL_RANK"), "0");
	ck_assert_str_eq(roles_env_get(&env, "LOCAL_WORLD_SIZE"), "1");
	ck_assert_str_eq(roles_env_get(&env, "NODE_RANK"), "1");
	tf = json_tokener_parse(roles_env_get(&env, "TF_CONFIG"));
	ck_assert_ptr_nonnull(tf);
	ck_assert(json_object_object_get_ex(tf, "cluster", &cl));
	ck_assert(json_object_object_get_ex(cl, "ps", &v));
	ck_assert_int_eq(json_object_array_length(v), 2);
	ck_assert(json_object_object_get_ex(cl, "worker", &v));
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(v, 1)),
			 "n2:31002");
	ck_assert(json_object_object_get_ex(tf, "task", &task));
	ck_assert(json_object_object_get_ex(task, "type", &v));
	ck_assert_str_eq(json_object_get_string(v), "worker");
	ck_assert(json_object_object_get_ex(task, "index", &v));
	ck_assert_int_eq(json_object_get_int(v), 1);
	json_object_put(tf);
	roles_env_free(&env);

	/* a PS: no PyTorch variables, no shard */
	roles_env_init(&env);
	ck_assert_int_eq(roles_env_task(&job, nodes, 2, 1, 0, &env, NULL, 0), 0);
	ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_ROLE"), "ps");
	ck_assert_str_eq(roles_env_get(&env, "DMLC_ROLE"), "server");
	ck_assert_ptr_null(roles_env_get(&env, "RANK"));
	ck_assert_ptr_null(roles_env_get(&env, "OPTIMUS_SHARD_INDEX"));
	roles_env_free(&env);
	ck_assert_int_eq(roles_env_task(&job, nodes, 2, 2, 0, &env, err,
					sizeof(err)), -ERANGE);
	/* no reserved ports: no environment, and what to configure */
	nodes[1].ports = NULL;
	nodes[1].nports = 0;
	ck_assert_int_eq(roles_env_task(&job, nodes, 2, 0, 0, &env, err,
					sizeof(err)), -ENOSPC);
	ck_assert_ptr_nonnull(strstr(err, "MpiParams=ports="));
	ck_assert_uint_eq(env.n, 0);
}
END_TEST

/* All-reduce, 5 workers on 2 nodes (3 + 2): torchrun's variables, no
 * PS and no MXNet variables. */
START_TEST(test_task_env_allreduce)
{
	static const uint32_t tasks[] = { 3, 2 };
	optimus_hints_t h;
	roles_node_t nodes[2];
	roles_job_t job = { .job_id = 78, .submit_dir = "/w", .hints = &h };
	roles_topology_t t;
	roles_env_t env;
	char err[160];

	ck_assert_int_eq(hints_parse("optimus,mode=allreduce,workers=5", &h,
				     err, sizeof(err)), 0);
	/* the derived topology of a 5-task step has no PS */
	ck_assert_int_eq(roles_topology_for_step(&h, NULL, 5, &t), 1);
	ck_assert_uint_eq(t.ps, 0);
	ck_assert_uint_eq(t.workers, 5);
	job.topology = t;
	make_nodes(nodes, 2, tasks);
	ck_assert_int_eq(roles_assign(&t, h.layout, nodes, 2, NULL, 0), 0);
	for (uint32_t node = 0, rank = 0; node < 2; node++)
		for (uint32_t l = 0; l < tasks[node]; l++, rank++) {
			char want[16];

			roles_env_init(&env);
			ck_assert_msg(!roles_env_task(&job, nodes, 2, node, l,
						      &env, err, sizeof(err)),
				      "%s", err);
			ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_ROLE"),
					 "worker");
			ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_MODE"),
					 "allreduce");
			ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_NUM_PS"),
					 "0");
			ck_assert_str_eq(roles_env_get(&env, "MASTER_ADDR"),
					 "n1");
			ck_assert_str_eq(roles_env_get(&env, "WORLD_SIZE"), "5");
			snprintf(want, sizeof(want), "%u", rank);
			ck_assert_str_eq(roles_env_get(&env, "RANK"), want);
			snprintf(want, sizeof(want), "%u", l);
			ck_assert_str_eq(roles_env_get(&env, "LOCAL_RANK"), want);
			snprintf(want, sizeof(want), "%u", tasks[node]);
			ck_assert_str_eq(roles_env_get(&env, "LOCAL_WORLD_SIZE"),
					 want);
			snprintf(want, sizeof(want), "%u", node);
			ck_assert_str_eq(roles_env_get(&env, "NODE_RANK"), want);
			ck_assert_str_eq(roles_env_get(&env, "OPTIMUS_PS_HOSTS"),
					 "");
			ck_assert_ptr_null(roles_env_get(&env, "DMLC_ROLE"));
			ck_assert_ptr_null(roles_env_get(&env,
							 "DMLC_PS_ROOT_URI"));
			roles_env_free(&env);
		}
}
END_TEST

START_TEST(test_checkpoint_dir)
{
	optimus_hints_t h;
	roles_job_t job = { .job_id = 5, .home = "/home/u", .hints = &h };
	char buf[256];

	hints_init(&h, HINTS_POLICY_OPTIMUS);
	ck_assert_int_eq(roles_checkpoint_dir(&job, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/home/u/optimus-checkpoints/5");
	/* the job's identity beside its id: ids repeat on a new cluster */
	job.cluster = "prod";
	job.submit_time = "1796360400";
	ck_assert_int_eq(roles_checkpoint_dir(&job, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/home/u/optimus-checkpoints/prod-5-1796360400");
	/* a name cannot leave the folder; a stamp that is no number is left out */
	job.cluster = "../a b";
	job.submit_time = "12x";
	ck_assert_int_eq(roles_checkpoint_dir(&job, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/home/u/optimus-checkpoints/.._a_b-5");
	job.cluster = job.submit_time = NULL;
	strcpy(h.ckpt_dir, "/scratch/x");
	ck_assert_int_eq(roles_checkpoint_dir(&job, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/scratch/x");
	h.ckpt_dir[0] = '\0';
	job.home = NULL;
	ck_assert_int_eq(roles_checkpoint_dir(&job, buf, sizeof(buf)), -EINVAL);
}
END_TEST

START_TEST(test_hostlist)
{
	char **h;
	size_t n;

	ck_assert_int_eq(roles_hostlist_expand("n[1-3,07],login,gpu[09-10]x",
					       &h, &n), 0);
	ck_assert_uint_eq(n, 7);
	ck_assert_str_eq(h[0], "n1");
	ck_assert_str_eq(h[2], "n3");
	ck_assert_str_eq(h[3], "n07");
	ck_assert_str_eq(h[4], "login");
	ck_assert_str_eq(h[5], "gpu09x");
	ck_assert_str_eq(h[6], "gpu10x");
	roles_hostlist_free(h, n);
	ck_assert_int_eq(roles_hostlist_expand("localhost", &h, &n), 0);
	ck_assert_uint_eq(n, 1);
	roles_hostlist_free(h, n);
	ck_assert_int_eq(roles_hostlist_expand("n[3-1]", &h, &n), -EINVAL);
	ck_assert_int_eq(roles_hostlist_expand("n[1-2", &h, &n), -EINVAL);
	ck_assert_int_eq(roles_hostlist_expand("n,,m", &h, &n), -EINVAL);
	ck_assert_int_eq(roles_hostlist_expand("", &h, &n), -EINVAL);
}
END_TEST

START_TEST(test_tasks_per_node)
{
	uint32_t *c;
	size_t n;

	ck_assert_int_eq(roles_tasks_per_node("2(x3),1", &c, &n), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(c[0], 2);
	ck_assert_uint_eq(c[2], 2);
	ck_assert_uint_eq(c[3], 1);
	free(c);
	ck_assert_int_eq(roles_tasks_per_node("4", &c, &n), 0);
	ck_assert_uint_eq(n, 1);
	free(c);
	ck_assert_int_eq(roles_tasks_per_node("2(x)", &c, &n), -EINVAL);
	ck_assert_int_eq(roles_tasks_per_node("a", &c, &n), -EINVAL);
	ck_assert_int_eq(roles_tasks_per_node("", &c, &n), -EINVAL);
}
END_TEST

static Suite *roles_suite(void)
{
	Suite *s = suite_create("roles");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_ports_unique_per_address);
	tcase_add_test(tc, test_topology_string);
	tcase_add_test(tc, test_env_batch);
	tcase_add_loop_test(tc, test_topology_refused, 0,
			    sizeof(bad_topo) / sizeof(bad_topo[0]));
	tcase_add_test(tc, test_topology_for_step);
	tcase_add_loop_test(tc, test_colocated_theorem1, 0, 40);
	tcase_add_test(tc, test_colocated_uneven_steps);
	tcase_add_test(tc, test_separate_and_mismatch);
	tcase_add_test(tc, test_ports_from_the_reservation);
	tcase_add_test(tc, test_task_env);
	tcase_add_test(tc, test_task_env_allreduce);
	tcase_add_test(tc, test_checkpoint_dir);
	tcase_add_test(tc, test_hostlist);
	tcase_add_test(tc, test_tasks_per_node);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(roles_suite());
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* record_replay_plan.c - writes testsuite/data/replay_plan.json, the planning
 * input test_replay replays (see testsuite/data/README.md): the core's job
 * models fed a scripted history, written with job_model_to_json. */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "plan/plan.h"
#include "hints/hints.h"

#define T0 1000000000
static json_object *jobs;

static job_model_t *mk(uint32_t id, const char *h, time_t submit)
{
	optimus_hints_t hh; char err[256];
	if (hints_parse(h, &hh, err, sizeof err)) { fprintf(stderr, "%s\n", err); return NULL; }
	return job_model_new(id, 1000, &hh, submit);
}

static res_vec_t dem(const job_model_t *m, int ps)
{
	return ps ? res_make(m->hints.ps_res.cpus, m->hints.ps_res.mem_mb, m->hints.ps_res.gpus)
		  : res_make(m->hints.worker_res.cpus, m->hints.worker_res.mem_mb, m->hints.worker_res.gpus);
}

static void emit(job_model_t *m, const char *state, const int (*sl)[3], int n)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	json_object_object_add(o, "state", json_object_new_string(state));
	for (int k = 0; k < n; k++) {
		json_object *s = json_object_new_object(), *u = json_object_new_array();
		res_vec_t use = res_combo(dem(m, 1), sl[k][1], dem(m, 0), sl[k][2]);
		json_object_object_add(s, "server", json_object_new_int(sl[k][0]));
		json_object_object_add(s, "ps", json_object_new_int(sl[k][1]));
		json_object_object_add(s, "workers", json_object_new_int(sl[k][2]));
		for (int r = 0; r < RES_NUM; r++)
			json_object_array_add(u, json_object_new_double(use.v[r]));
		json_object_object_add(s, "usage", u);
		json_object_array_add(a, s);
	}
	json_object_object_add(o, "slots", a);
	json_object_object_add(o, "model", job_model_to_json(m));
	json_object_array_add(jobs, o);
}

static void feed(job_model_t *m, time_t from, int n, double step0, double rate, double loss0)
{
	for (int k = 1; k <= n; k++) {
		double step = step0 + rate * 60 * k;
		job_model_report(m, from + 60 * k, step, 0.1 + loss0 / (1 + 0.0005 * step), rate, step / 500.0);
	}
}

int main(void)
{
	time_t now = T0 + 7200;
	jobs = json_object_new_array();
	/* 101: done after two resizes of 40 s and 60 s. */
	job_model_t *m = mk(101, "optimus,steps=20000,ps_cpus=2,worker_cpus=4,ps_mem=4096,worker_mem=8192", T0);
	job_model_started(m, T0 + 10, 1, 2, 1);
	feed(m, T0 + 10, 10, 0, 5, 2.0);
	job_model_resizing(m, T0 + 700); job_model_stopped(m, T0 + 720);
	m->phase = JM_REQUEUED;
	job_model_started(m, T0 + 740, 2, 4, 2);
	feed(m, T0 + 740, 10, 3000, 9, 2.0);
	job_model_resizing(m, T0 + 1400); job_model_stopped(m, T0 + 1420);
	m->phase = JM_REQUEUED;
	job_model_started(m, T0 + 1460, 2, 6, 2);
	job_model_done(m, T0 + 3000);
	emit(m, "done", NULL, 0);
	/* 102: running 2 PS + 4 workers on servers 0 and 1 for an hour. */
	m = mk(102, "optimus,steps=100000,ps_cpus=2,worker_cpus=4,ps_mem=4096,worker_mem=8192,max_ps=8,max_workers=16", T0 + 100);
	job_model_speed_sample(m, 1, 1, 2.0); job_model_speed_sample(m, 1, 2, 3.8);
	job_model_speed_sample(m, 2, 4, 7.0); job_model_speed_sample(m, 4, 8, 12.0);
	job_model_started(m, T0 + 3600, 2, 4, 2);
	feed(m, T0 + 3600, 55, 0, 7, 30.0);
	{ static const int s[][3] = { { 0, 1, 2 }, { 1, 1, 2 } }; emit(m, "running", s, 2); }
	/* 103: started 10 s ago on server 2, has not declared its checkpoint. */
	m = mk(103, "optimus,steps=50000,ps_cpus=2,worker_cpus=4,ps_mem=4096,worker_mem=8192", T0 + 6000);
	job_model_started(m, now - 10, 1, 2, 1);
	{ static const int s[][3] = { { 2, 1, 2 } }; emit(m, "running", s, 1); }
	/* 104: signalled to checkpoint for a resize, still on server 3. */
	m = mk(104, "optimus,steps=40000,ps_cpus=2,worker_cpus=4,ps_mem=4096,worker_mem=8192", T0 + 200);
	job_model_started(m, T0 + 300, 1, 3, 1);
	feed(m, T0 + 300, 50, 0, 4, 2.5);
	job_model_resizing(m, now - 30);
	{ static const int s[][3] = { { 3, 1, 3 } }; emit(m, "restarting", s, 1); }
	/* 105, 106: pending, held for the plan. */
	m = mk(105, "optimus,steps=30000,ps_cpus=2,worker_cpus=4,ps_mem=4096,worker_mem=8192", now - 300);
	emit(m, "pending", NULL, 0);
	m = mk(106, "optimus,steps=200000,ps_cpus=4,worker_cpus=8,ps_mem=8192,worker_mem=16384,ps=2,workers=8", now - 60);
	emit(m, "pending", NULL, 0);

	json_object *o = json_object_new_object(), *sv = json_object_new_array();
	json_object_object_add(o, "comment", json_object_new_string(
		"One planning input (testsuite/unit/test_replay.c): four servers and six jobs "
		"(done after two measured resizes, running, running without a declaration, checkpointing, two pending)."));
	json_object_object_add(o, "now", json_object_new_int64(now));
	json_object_object_add(o, "restart_cost", json_object_new_double(180));
	json_object_object_add(o, "policy", json_object_new_string("optimus"));
	for (int s = 0; s < 4; s++) {
		json_object *c = json_object_new_array();
		json_object_array_add(c, json_object_new_double(16));
		json_object_array_add(c, json_object_new_double(65536));
		json_object_array_add(c, json_object_new_double(0));
		json_object_array_add(sv, c);
	}
	json_object_object_add(o, "servers", sv);
	json_object_object_add(o, "jobs", jobs);
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	return 0;
}

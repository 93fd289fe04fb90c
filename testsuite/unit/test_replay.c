/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * test_replay.c - one recorded planning input (testsuite/data/
 * replay_plan.json) replayed through sched/optimus' path (planner_input.c:
 * snapshot and registry records) and optimus-sim's path (sim_apply.c:
 * simulated jobs): both translate into the core's plan_input_t, the core's
 * rules choose who enters the plan (plan_input_collect), and the two plans
 * must be the same decision for decision.
 *
 * Both paths prepare the interval with the core's one entry
 * (plan_interval_prepare) and their own node-name resolver
 * (planner_input_server_of, sim_server_of), from the same configuration (the
 * input's policy and restart cost, the defaults); the restart cost each
 * path takes from its own inputs. The configuration values that differ on
 * purpose (Slurm's uniform tasks, the simulator's ablation switches) are
 * not under test here. Preemption is on for both (plan_preempt.c); a
 * variant of the input (job 102 can checkpoint, job 106 smaller) makes
 * both plan the same PLAN_PREEMPT.
 *
 * The third adapter, the measured workloads' (measured/plan_adapter.c), is replayed
 * on workload 6 of the Pollux artifact under optimus, optimus-rate,
 * goodput and quality: every round, the GPUs the engine gives each job are
 * the plan's decision (a START/RESIZE on its slots' servers, a KEEP on
 * its GPUs, a WAIT on none; a re-batch on its GPUs with the new batch),
 * and the plan's rules hold in the engine: no job changes its GPUs twice
 * within the minimum resize interval, every grow of a running job gained
 * its threshold after the restart cost; a preempted job (Preempt= on,
 * the default under Policy=goodput) gives all its GPUs back, never before
 * its minimum run.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "check_run.h"
#include "plan/plan_input.h"
#include "plan/plan_interval.h"
#include "planner_input.h"
#include "sim_state.h"
#include "pollux_fixture.h"
#include "measured/policy.h"

#define MAXJ 16
#define MAXS 8

/* The recorded input, as read from the file. */
typedef struct replay {
	json_object *root;
	time_t now;
	double restart_cost;
	plan_policy_t policy;
	size_t ns, nj;
	res_vec_t cap[MAXS];
	const char *state[MAXJ];
	json_object *model[MAXJ];
	place_slot_t slots[MAXJ][MAXS];
	res_vec_t usage[MAXJ][MAXS];
	size_t nslots[MAXJ];
} replay_t;

/* What one path hands to plan_run, and its plan. */
typedef struct path {
	job_model_t *m[MAXJ];
	plan_input_t in[MAXJ];
	plan_job_t jobs[MAXJ];
	size_t which[MAXJ], n;
	res_vec_t room[MAXS];
	plan_params_t prm;
	plan_t plan;
} path_t;

static res_vec_t vec_of(json_object *a)
{
	res_vec_t v = res_make(0, 0, 0);

	ck_assert_int_eq(json_object_array_length(a), RES_NUM);
	for (int r = 0; r < RES_NUM; r++)
		v.v[r] = json_object_get_double(json_object_array_get_idx(a, r));
	return v;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	ck_assert_msg(json_object_object_get_ex(o, key, &v), "no %s", key);
	return v;
}

static void replay_read(replay_t *r)
{
	const char *dir = getenv("srcdir");
	char path[1024];
	json_object *a;

	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), "%s/testsuite/data/replay_plan.json",
		 dir ? dir : ".");
	r->root = json_object_from_file(path);
	ck_assert_msg(r->root, "cannot read %s", path);
	r->now = (time_t)json_object_get_int64(get(r->root, "now"));
	r->restart_cost = json_object_get_double(get(r->root, "restart_cost"));
	ck_assert_int_eq(plan_policy_parse(json_object_get_string(
		get(r->root, "policy")), &r->policy), 0);
	a = get(r->root, "servers");
	r->ns = json_object_array_length(a);
	ck_assert(r->ns > 0 && r->ns <= MAXS);
	for (size_t s = 0; s < r->ns; s++)
		r->cap[s] = vec_of(json_object_array_get_idx(a, s));
	a = get(r->root, "jobs");
	r->nj = json_object_array_length(a);
	ck_assert(r->nj > 0 && r->nj <= MAXJ);
	for (size_t i = 0; i < r->nj; i++) {
		json_object *j = json_object_array_get_idx(a, i);
		json_object *sl = get(j, "slots");

		r->state[i] = json_object_get_string(get(j, "state"));
		r->model[i] = get(j, "model");
		r->nslots[i] = json_object_array_length(sl);
		ck_assert(r->nslots[i] <= MAXS);
		for (size_t k = 0; k < r->nslots[i]; k++) {
			json_object *o = json_object_array_get_idx(sl, k);

			r->slots[i][k] = (place_slot_t){
				.server = (uint32_t)json_object_get_int(
					get(o, "server")),
				.ps = json_object_get_int(get(o, "ps")),
				.workers = json_object_get_int(get(o, "workers")) };
			r->usage[i][k] = vec_of(get(o, "usage"));
		}
	}
}

/* Each path gets its own models: the plan refits them. */
static void path_models(const replay_t *r, path_t *p)
{
	char err[256];

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < r->nj; i++) {
		p->m[i] = job_model_from_json(r->model[i], err, sizeof(err));
		ck_assert_msg(p->m[i], "job %zu: %s", i, err);
	}
}

/* Both paths prepare the interval through the core's one entry
 * (plan_interval_prepare: collect, stragglers' servers, the parameters
 * from one configuration), as planner_plan() and sim_apply_tick() do. */
static void path_plan(const replay_t *r, path_t *p, size_t nin,
		      size_t nservers, plan_server_of_fn server_of, void *arg)
{
	plan_params_t conf;

	plan_params_init(&conf);
	conf.policy = r->policy;
	conf.restart_cost = r->restart_cost;
	conf.preempt = true;	/* the rule runs on both paths */
	p->n = plan_interval_prepare(p->in, nin, r->now, p->room, nservers,
				     &conf, server_of, arg, p->jobs,
				     p->which, &p->prm);
	ck_assert_msg(!plan_run(p->jobs, p->n, p->room, nservers, &p->prm,
				&p->plan), "%s", p->plan.err);
}

static void path_free(const replay_t *r, path_t *p)
{
	plan_free(&p->plan);
	for (size_t i = 0; i < r->nj; i++)
		job_model_free(p->m[i]);
}

/*
 * sched/optimus: the snapshot slurmctld would give (a done job is no
 * longer in it; a checkpointing one still runs) and the registry records.
 */
static void plugin_path(const replay_t *r, path_t *p)
{
	snap_node_t nodes[MAXS];
	snap_job_t sj[MAXJ];
	int node_index[MAXJ][MAXS];
	reg_job_t rj[MAXJ];
	place_slot_t slots[MAXJ][MAXS];
	snapshot_t snap = { .taken = r->now, .nnodes = (int)r->ns,
			    .nodes = nodes, .jobs = sj };

	path_models(r, p);
	memset(nodes, 0, sizeof(nodes));
	memset(sj, 0, sizeof(sj));
	memset(rj, 0, sizeof(rj));
	for (size_t s = 0; s < r->ns; s++)
		nodes[s].capacity = r->cap[s];
	for (size_t i = 0; i < r->nj; i++) {
		snap_job_t *j = &sj[snap.njobs];

		rj[i].model = p->m[i];
		if (!strcmp(r->state[i], "done"))
			continue;
		j->job_id = p->m[i]->job_id;
		j->state = strcmp(r->state[i], "pending") ? SNAP_RUNNING :
							     SNAP_PENDING;
		j->held = j->state == SNAP_PENDING;
		j->nnodes = (int)r->nslots[i];
		j->node_index = node_index[i];
		j->usage = (res_vec_t *)r->usage[i];
		for (size_t k = 0; k < r->nslots[i]; k++)
			node_index[i][k] = (int)r->slots[i][k].server;
		snap.njobs++;
	}
	planner_input_room(&snap, p->room);
	for (size_t i = 0; i < r->nj; i++)
		planner_input_job(&rj[i], planner_input_find(&snap,
							     p->m[i]->job_id),
				  slots[i], &p->in[i]);
	path_plan(r, p, r->nj, r->ns, planner_input_server_of, &snap);
}

/* optimus-sim: the simulated jobs in the states the input names. */
static void sim_path(const replay_t *r, path_t *p)
{
	sim_config_t cfg;
	sim_state_t s;
	sim_job_t jobs[MAXJ];

	path_models(r, p);
	sim_config_init(&cfg);
	cfg.nservers = r->ns;
	cfg.server = r->cap[0];
	for (size_t k = 1; k < r->ns; k++)
		ck_assert(res_fits(r->cap[k], cfg.server) &&
			  res_fits(cfg.server, r->cap[k]));
	memset(&s, 0, sizeof(s));
	memset(jobs, 0, sizeof(jobs));
	s.cfg = &cfg;
	s.jobs = jobs;
	s.eng.njobs = r->nj;
	for (size_t i = 0; i < r->nj; i++) {
		sim_job_t *j = &jobs[i];

		j->core.id = p->m[i]->job_id;
		j->core.jm = p->m[i];
		j->st = !strcmp(r->state[i], "pending")	   ? SJ_PENDING :
			!strcmp(r->state[i], "running")	   ? SJ_RUNNING :
			!strcmp(r->state[i], "restarting") ? SJ_RESTARTING :
							     SJ_DONE;
		j->core.hold.slots = (place_slot_t *)r->slots[i];
		j->core.hold.usage = (res_vec_t *)r->usage[i];
		j->core.hold.n = r->nslots[i];
		sim_input_job(j, &p->in[i]);
	}
	sim_input_room(&s, p->room);
	path_plan(r, p, r->nj, r->ns, sim_server_of, &s);
}

/* The plan's view of each job, as both paths gave it to plan_run. */
static void check_same_jobs(const path_t *a, const path_t *b)
{
	ck_assert_uint_eq(a->n, b->n);
	for (size_t k = 0; k < a->n; k++) {
		ck_assert_uint_eq(a->which[k], b->which[k]);
		ck_assert_int_eq(a->jobs[k].running, b->jobs[k].running);
		ck_assert_int_eq(a->jobs[k].starting, b->jobs[k].starting);
		ck_assert_uint_eq(a->jobs[k].nslots, b->jobs[k].nslots);
	}
	for (size_t s = 0; s < MAXS; s++)
		for (int r = 0; r < RES_NUM; r++)
			ck_assert_double_eq(a->room[s].v[r], b->room[s].v[r]);
	ck_assert_double_eq(a->prm.restart_cost, b->prm.restart_cost);
}

static const plan_decision_t *decision_of(const path_t *p, uint32_t id)
{
	for (size_t k = 0; k < p->plan.ndecisions; k++)
		if (p->plan.decisions[k].job_id == id)
			return &p->plan.decisions[k];
	return NULL;
}

/* Both paths' plans, decision for decision (every slot and reason, not
 * the time planning took); then both paths and the input freed. */
static void check_same_plans_free(replay_t *r, path_t *plugin, path_t *sim)
{
	json_object *pa = plan_to_json(&plugin->plan);
	json_object *sa = plan_to_json(&sim->plan);

	ck_assert_ptr_nonnull(pa);
	ck_assert_ptr_nonnull(sa);
	ck_assert_str_eq(json_object_to_json_string(get(pa, "decisions")),
			 json_object_to_json_string(get(sa, "decisions")));
	json_object_put(pa);
	json_object_put(sa);
	path_free(r, plugin);
	path_free(r, sim);
	json_object_put(r->root);
}

START_TEST(test_replay_same_decisions)
{
	replay_t r;
	path_t plugin, sim;

	replay_read(&r);
	plugin_path(&r, &plugin);
	sim_path(&r, &sim);
	check_same_jobs(&plugin, &sim);
	ck_assert_uint_eq(plugin.plan.ndecisions, 4);
	check_same_plans_free(&r, &plugin, &sim);
}
END_TEST

/*
 * The rules the input exercises, on the plugin's path (the same on the
 * simulator's by the test above): the measured restart cost, the run that
 * has not declared its checkpoint kept (by that rule, not by its age),
 * the checkpointing job left out with its room taken.
 */
START_TEST(test_replay_rules)
{
	replay_t r;
	path_t p;
	const plan_decision_t *d;

	replay_read(&r);
	plugin_path(&r, &p);
	/* Job 101 resized twice: 40 s and 60 s. */
	ck_assert_double_eq_tol(p.prm.restart_cost, 50.0, 1e-9);
	ck_assert_ptr_null(decision_of(&p, 101));	/* done */
	ck_assert_ptr_null(decision_of(&p, 104));	/* checkpointing */
	ck_assert_double_eq(p.room[3].v[RES_CPU], 16.0 - 2.0 - 3 * 4.0);
	d = decision_of(&p, 103);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->action, PLAN_KEEP);
	ck_assert_msg(strstr(d->reason, "resizable=no: never confirmed a "
			     "checkpoint"), "%s", d->reason);
	ck_assert_ptr_nonnull(decision_of(&p, 102));
	d = decision_of(&p, 105);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->action, PLAN_START);
	path_free(&r, &p);
	json_object_put(r.root);
}
END_TEST

/*
 * The same input with job 102 able to checkpoint (a confirmation at its
 * start) and pending job 106 at 1 PS + 1 worker (12 CPUs: more than any
 * server has free, as much as one of 102's servers has with it gone; at
 * 2 PS + 8 workers it fits nowhere and nothing is preempted for it).
 * 102 has run 3600 s on 4 workers (14400 worker-s: its job declares no
 * GPU), past the minimum interval: both paths plan the same PLAN_PREEMPT.
 */
#define SMALL_106 "optimus,mode=async,min_ps=1,max_ps=1,min_workers=1," \
	"max_workers=1,ps_cpus=4,ps_mem=8192,ps_gpus=0,worker_cpus=8," \
	"worker_mem=16384,worker_gpus=0,delta=0.001,form=inverse," \
	"steps=200000,ckpt_signal=USR1,ckpt_grace=60,layout=colocated"
START_TEST(test_replay_preemption)
{
	replay_t r;
	path_t plugin, sim;
	const plan_decision_t *d;

	replay_read(&r);
	for (size_t i = 0; i < r.nj; i++) {
		int id = json_object_get_int(get(r.model[i], "job_id"));

		if (id == 102)
			json_object_object_add(r.model[i], "ckpt_confirmed",
				json_object_new_int64(1000003600));
		if (id == 106)
			json_object_object_add(r.model[i], "hints",
				json_object_new_string(SMALL_106));
	}
	plugin_path(&r, &plugin);
	sim_path(&r, &sim);
	check_same_jobs(&plugin, &sim);
	d = decision_of(&plugin, 102);
	ck_assert_ptr_nonnull(d);
	ck_assert_msg(d->action == PLAN_PREEMPT, "102: %s (%s)",
		      plan_action_name(d->action), d->reason);
	ck_assert_msg(strstr(d->reason, "preempted for JobId=106"), "%s",
		      d->reason);
	ck_assert_int_eq(decision_of(&plugin, 106)->action, PLAN_START);
	ck_assert_uint_eq(plugin.plan.npreempt, 1);
	check_same_plans_free(&r, &plugin, &sim);
}
END_TEST

/* Wraps a policy of measured/plan_adapter.c and checks each round against its plan. */
typedef struct measured {
	px_policy_t *inner;
	double *changed;	/* per job: when its GPUs last changed, < 0 */
	int *held;		/* per job: its GPUs before this plan */
	size_t rounds, starts, resizes, rebatches, preempts;
} measured_t;

static int measured_plan(px_policy_t *p, px_sim_t *s, const size_t *active,
			 size_t n, int (*next)[PX_GPUS], int *nnext)
{
	measured_t *m = p->state;
	const size_t *job;
	const plan_t *plan;
	int rc;

	if (!m->changed) {
		m->changed = malloc(s->eng.njobs * sizeof(double));
		ck_assert_ptr_nonnull(m->changed);
		for (size_t i = 0; i < s->eng.njobs; i++)
			m->changed[i] = -1;
		m->held = calloc(s->eng.njobs, sizeof(int));
		ck_assert_ptr_nonnull(m->held);
	}
	/* Our policies carry their decisions out as they plan. */
	for (size_t i = 0; i < s->eng.njobs; i++)
		m->held[i] = px_job_gpus(&s->jobs[i]);
	if ((rc = m->inner->plan(m->inner, s, active, n, next, nnext)))
		return rc;
	plan = px_plan_last(m->inner, &job);
	ck_assert_ptr_nonnull(plan);
	m->rounds++;
	for (size_t k = 0; k < plan->ndecisions; k++) {
		const plan_decision_t *d = &plan->decisions[k];
		const px_job_t *j = &s->jobs[job[k]];
		int per[PX_NODES] = { 0 }, want[PX_NODES] = { 0 };
		bool moved = d->action == PLAN_START ||
			     (d->action == PLAN_RESIZE && !d->rebatch);

		for (int g = 0; g < nnext[job[k]]; g++)
			per[next[job[k]][g]]++;
		if (moved)
			for (size_t q = 0; q < d->nslots; q++)
				want[d->slots[q].server] += d->slots[q].workers;
		else if (d->action != PLAN_WAIT && d->action != PLAN_PREEMPT)
			for (size_t q = 0; q < j->core.hold.n; q++)
				want[j->core.hold.slots[q].server] +=
					j->core.hold.workers[q];
		ck_assert_int_eq(memcmp(per, want, sizeof(per)), 0);
		if (d->rebatch) {
			ck_assert(d->batch > 0);
			ck_assert_double_eq(j->bsz, d->batch);
			m->rebatches++;
		}
		if (d->action == PLAN_START)
			m->starts++;
		if (d->action == PLAN_PREEMPT) {
			/* Preempted: it held GPUs, ran its minimum run since
			 * its last start, and gives them all back now. */
			const job_model_t *jm = px_plan_job_model(m->inner,
								  job[k]);
			const job_run_t *run = &jm->runs[jm->nruns - 1];

			ck_assert_int_gt(m->held[job[k]], 0);
			ck_assert_int_eq(px_job_gpus(j), 0);
			ck_assert_int_eq(jm->phase, JM_REQUEUED);
			ck_assert_int_eq(run->end, (time_t)s->eng.now);
			ck_assert_msg(s->eng.now - run->start >=
				      s->shape.min_resize, "job %zu preempted "
				      "%.0f s after its start", job[k],
				      s->eng.now - run->start);
			m->preempts++;
		}
		if (d->action != PLAN_RESIZE)
			continue;
		m->resizes++;
		/* The set-up's minimum interval (10 x its restart), given to
		 * the plan, in the engine. */
		ck_assert_double_eq(s->shape.min_resize,
				    px_min_resize_for(s->shape.restart));
		/* A growth beyond the extent the job explored is exempt
		 * (ExploreScaling: job_model_explore_growth). */
		int ew, en;
		job_model_explored(px_plan_job_model(m->inner, job[k]), &ew,
				   &en);
		bool explores = s->shape.explore_scaling &&
				d->workers > m->held[job[k]] &&
				(d->workers > ew || (int)d->nslots > en);
		ck_assert_msg(m->changed[job[k]] < 0 || explores ||
			      s->eng.now - m->changed[job[k]] >=
			      s->shape.min_resize,
			      "job %zu resized at %.0f and %.0f (%d -> %d "
			      "workers on %zu nodes, explored %d on %d)",
			      job[k], m->changed[job[k]], s->eng.now,
			      m->held[job[k]], d->workers, d->nslots, ew, en);
		if (d->workers > m->held[job[k]])
			ck_assert_msg(d->gain > PLAN_RESIZE_THRESHOLD_LARGE_DEFAULT, "%s job %zu %d -> %d gain %g now %g planned %g", m->inner->name, job[k], m->held[job[k]], d->workers, d->gain, d->remaining_now, d->remaining_planned);
	}
	for (size_t k = 0; k < plan->ndecisions; k++)
		if (plan->decisions[k].action == PLAN_RESIZE ||
		    (plan->decisions[k].action == PLAN_START &&
		     m->held[job[k]]))
			m->changed[job[k]] = s->eng.now;
	return 0;
}

static void measured_destroy(px_policy_t *p)
{
	measured_t *m = p->state;

	m->inner->destroy(m->inner);
	free(m->changed);
	free(m->held);
	free(p);
}

START_TEST(test_replay_measured)
{
	static const char *const pol[] = { "optimus", "optimus-rate",
					   "goodput", "quality" };
	px_workload_t work;
	char err[512];

	load_apps();
	ck_assert_msg(px_workload_read(POLLUX_DATA_DIR
				       "/workloads/workload-6.csv", apps,
				       napps, &work, err, sizeof(err)) == 0,
		      "%s", err);
	/* Each policy with ExploreScaling off and on (the set-up's), where
	 * growths beyond the extent explored skip the interval. */
	for (size_t k = 0; k < 8; k++) {
		size_t i = k % 4;
		px_shape_t shape = px_shape_default();
		measured_t m = { .inner = px_policy_new(pol[i],
							PX_PRERUN_NONE) };
		px_policy_t *p = calloc(1, sizeof(*p));
		px_result_t r;

		shape.explore_scaling = k >= 4;
		ck_assert_ptr_nonnull(m.inner);
		ck_assert_ptr_nonnull(p);
		*p = (px_policy_t){ m.inner->name, measured_plan,
				    measured_destroy, &m, NULL };
		ck_assert_msg(px_sim_run(&work, &shape, p, &r, err,
					 sizeof(err)) == 0, "%s", err);
		ck_assert_uint_eq(r.run.ndone, work.n);
		/* Every job started through a plan; some were resized. */
		ck_assert_uint_ge(m.starts, work.n);
		ck_assert_uint_gt(m.resizes, 0);
		if (!strcmp(pol[i], "goodput"))
			ck_assert_uint_gt(m.rebatches, 0);
		/* Preempt= is on by default under Policy=goodput only. */
		if (!strcmp(pol[i], "goodput") ||
		    !strcmp(pol[i], "optimus-rate"))
			ck_assert_uint_gt(m.preempts, 0);
		else
			ck_assert_uint_eq(m.preempts, 0);
		px_result_free(&r);
	}
	px_workload_free(&work);
	unload_apps();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("replay");
	TCase *tc = tcase_create("replay");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_replay_same_decisions);
	tcase_add_test(tc, test_replay_rules);
	tcase_add_test(tc, test_replay_preemption);
	tcase_add_test(tc, test_replay_measured);
	suite_add_tcase(s, tc);
	return check_run(s);
}

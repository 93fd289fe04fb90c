/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * planner.c - sched/optimus' planner thread: the loop and its clock.
 *
 * Locks: slurmctld's only to copy data in (snapshot.c) and to apply
 * decisions (apply.c); the registry mutex only to change records, since
 * this thread is the registry's only writer (registry.h) and reads it
 * without the lock. Fitting runs on copies of the models, swapped in under
 * the lock; the plan reads the models without it (planner_decide.c); the
 * state file is written without it. slurmdbd is written by the accounting
 * thread (accounting.c), never by this one.
 */
#include "config.h"

#include <pthread.h>
#include <time.h>

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/macros.h"
#include "src/common/xmalloc.h"

#include "accounting.h"
#include "lock_hold.h"
#include "optimus_conf.h"
#include "planner.h"
#include "registry.h"
#include "state_file.h"

static pthread_t planner_thread;
static pthread_mutex_t planner_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t planner_cond = PTHREAD_COND_INITIALIZER;
static bool planner_stopping;
static bool planner_kicked;
static report_queue_t *report_source;

/* Sleep up to one second, waking early on stop or kick. */
static void planner_sleep(void)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 1;
	slurm_mutex_lock(&planner_mutex);
	if (!planner_stopping && !planner_kicked)
		pthread_cond_timedwait(&planner_cond, &planner_mutex, &until);
	slurm_mutex_unlock(&planner_mutex);
}

static bool planner_take_kick(void)
{
	bool kicked;

	slurm_mutex_lock(&planner_mutex);
	kicked = planner_kicked;
	planner_kicked = false;
	slurm_mutex_unlock(&planner_mutex);
	return kicked;
}

static bool planner_should_stop(void)
{
	bool stop;

	slurm_mutex_lock(&planner_mutex);
	stop = planner_stopping;
	slurm_mutex_unlock(&planner_mutex);
	return stop;
}

/*
 * The longest lock holds since the previous plan (this plan's snapshot,
 * fitting, application and state file included), logged and kept in the
 * plan's JSON for optimusctl and bench/load_scale.py.
 */
static void planner_report_holds(void)
{
	double last[LOCK_SITE_NUM], ever[LOCK_SITE_NUM];
	json_object *plan, *o;

	lock_hold_take(last, ever);
	debug("sched/optimus: lock holds: longest since the last plan: slurmctld snapshot %.3f ms, slurmctld apply %.3f ms, registry %.3f ms",
	      1e3 * last[LOCK_SITE_SNAPSHOT], 1e3 * last[LOCK_SITE_APPLY],
	      1e3 * last[LOCK_SITE_REGISTRY]);
	registry_lock();
	if ((plan = registry_plan_json())) {
		o = json_object_new_object();
		for (int s = 0; s < LOCK_SITE_NUM; s++) {
			json_object *h = json_object_new_object();

			json_object_object_add(h, "last_ms",
				json_object_new_double(1e3 * last[s]));
			json_object_object_add(h, "max_ms",
				json_object_new_double(1e3 * ever[s]));
			json_object_object_add(o, lock_site_name(s), h);
		}
		json_object_object_add(plan, "lock_holds", o);
	}
	registry_unlock();
}

struct refit_list {
	reg_job_t **regs;
	job_model_t **fits;
	int n, cap;
};

static int collect_dirty(reg_job_t *rj, void *arg)
{
	struct refit_list *l = arg;
	job_model_t *copy;

	if (!rj->model->dirty || l->n >= l->cap)
		return 0;
	if (!(copy = job_model_clone(rj->model))) {
		error("sched/optimus: JobId=%u: no memory to refit a copy of the model; refitted under the registry lock",
		      rj->model->job_id);
		return 0;
	}
	l->regs[l->n] = rj;
	l->fits[l->n++] = copy;
	return 0;
}

/*
 * Refit the models that reports made dirty without holding the registry
 * lock, so that queries never wait for fitting: copies are fitted, then
 * swapped in under the lock. Reading the records unlocked is safe on this
 * thread only (the registry's only writer; see registry.h).
 */
static void planner_refit(void)
{
	struct refit_list l = { .cap = registry_count() };

	l.regs = xcalloc(l.cap + 1, sizeof(*l.regs));
	l.fits = xcalloc(l.cap + 1, sizeof(*l.fits));
	registry_for_each(collect_dirty, &l);
	for (int i = 0; i < l.n; i++)
		job_model_refit(l.fits[i]);
	registry_lock();
	for (int i = 0; i < l.n; i++) {
		job_model_t *old = l.regs[i]->model;

		l.regs[i]->model = l.fits[i];
		l.fits[i] = old;
	}
	registry_unlock();
	for (int i = 0; i < l.n; i++)
		job_model_free(l.fits[i]);
	xfree(l.regs);
	xfree(l.fits);
}

/* A state file write, counted for the metrics query (registry lock held). */
static void note_save(int rc)
{
	metrics_sched_t *s = registry_stats();

	if (rc != SLURM_SUCCESS) {
		s->state_save_failures++;
		return;
	}
	s->state_saves++;
	s->state_save_time = (double)time(NULL);
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* One tick: follow jobs; plan when the interval has passed. */
static void planner_tick(time_t *last_plan)
{
	snapshot_t *snap = snapshot_take();	/* slurmctld read locks */
	time_t now = snap->taken;
	bool plan = planner_take_kick() ||
		    now - *last_plan >= (time_t) optimus_conf.plan_interval;

	/* Like Slurm's own scheduler, react to arrivals and departures at
	 * once; the interval paces the rest (refits and resizes). */
	registry_lock();
	plan |= planner_sync(snap);
	if (report_source)
		planner_feed_reports(report_source);
	registry_unlock();

	planner_follow_resizes();	/* may take write locks */
	if (plan) {
		struct timespec t0;
		double took;
		int saved;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		planner_refit();	/* fits without locks */
		planner_plan(snap);	/* plans without locks, applies under
					 * slurmctld write locks */
		took = seconds_since(&t0);
		*last_plan = now;
		saved = state_file_save();	/* reads the registry: no lock here */
		registry_lock();
		registry_stats()->plan_seconds = took;
		registry_stats()->plan_time = (double)now;
		note_save(saved);
		registry_unlock();
		planner_report_holds();
	}
	snapshot_free(snap);
}

static void *planner_main(void *arg)
{
	time_t last_plan = 0;

	info("sched/optimus: planner started (plan every %us, policy %s)",
	     optimus_conf.plan_interval, optimus_conf.policy);
	while (!planner_should_stop()) {
		planner_tick(&last_plan);
		planner_sleep();
	}
	return NULL;
}

extern int planner_start(report_queue_t *reports)
{
	report_source = reports;
	registry_init();
	registry_lock();
	state_file_load();
	registry_unlock();
	planner_stopping = false;
	accounting_start();
	slurm_thread_create(&planner_thread, planner_main, NULL);
	return SLURM_SUCCESS;
}

/* A comment the accounting thread had not written yet: the job is
 * accounted again after the restart (its record is saved below). */
static void planner_unaccount(uint32_t job_id)
{
	reg_job_t *rj;

	registry_lock();
	if ((rj = registry_find(job_id)))
		rj->accounted = false;
	registry_unlock();
}

extern void planner_stop(void)
{
	slurm_mutex_lock(&planner_mutex);
	planner_stopping = true;
	pthread_cond_broadcast(&planner_cond);
	slurm_mutex_unlock(&planner_mutex);
	if (planner_thread) {
		pthread_join(planner_thread, NULL);
		planner_thread = 0;
	}
	accounting_stop(planner_unaccount);	/* joins: no lock held */
	registry_lock();
	note_save(state_file_save());
	registry_unlock();
	registry_fini();
}

extern void planner_kick(void)
{
	slurm_mutex_lock(&planner_mutex);
	planner_kicked = true;
	pthread_cond_broadcast(&planner_cond);
	slurm_mutex_unlock(&planner_mutex);
}

/*
 * sim_apply.c - one scheduling interval: the jobs report their progress,
 * their models are refitted, plan_run() (the plugin's code) decides, and
 * the decisions are carried out on the simulated servers.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_state.h"

static bool holds_servers(const sim_job_t *j)
{
	return j->st == SJ_RUNNING || j->st == SJ_RESTARTING;
}

static bool is_active(const sim_job_t *j)
{
	return j->st == SJ_PENDING || holds_servers(j);
}

static void plan_params(const sim_state_t *s, plan_params_t *prm)
{
	const sim_config_t *c = s->cfg;

	plan_params_init(prm);
	prm->policy = c->policy;
	prm->now = sim_time(s->now);
	prm->interval = c->interval;
	prm->damping = c->damping;
	prm->min_resize_interval = c->min_resize_interval;
	prm->restart_cost = c->restart_base;
	prm->placement = c->placement;
	if (c->resize_threshold >= 0.0)
		prm->resize_threshold = prm->resize_threshold_large =
			c->resize_threshold;
	prm->profiles = NULL;
}

/* Reports, refits, and the plan's view of each active job. */
static int collect(sim_state_t *s, plan_job_t *pj, sim_job_t **act,
		   size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < s->njobs; i++) {
		sim_job_t *j = &s->jobs[i];
		if (!is_active(j))
			continue;
		if (j->st == SJ_RUNNING) {
			int rc = sim_job_report(s, j);
			if (!rc)
				rc = sim_straggler_report(s, j);
			if (rc) {
				snprintf(s->err, s->errlen,
					 "job %u: report: %d", j->id, rc);
				return rc;
			}
		}
		job_model_refit(j->jm);
		pj[*n] = (plan_job_t){ .model = j->jm,
				       .running = holds_servers(j),
				       .slots = j->slots,
				       .nslots = j->nslots,
				       .slot_usage = j->usage };
		sim_straggler_close(j, &pj[*n]);
		act[(*n)++] = j;
	}
	return 0;
}

static void do_start(sim_state_t *s, sim_job_t *j)
{
	job_model_started(j->jm, sim_time(s->now), j->ps, j->workers,
			  (int)j->nslots);
	/* Simulated trainers checkpoint on the signal: resizable (the core
	 * resizes only jobs that confirmed a checkpoint). */
	(void)job_model_checkpoint(j->jm, sim_time(s->now), j->jm->step);
	if (j->res.start < 0.0)
		j->res.start = s->now;
	j->st = SJ_RUNNING;
	sim_job_set_speed(s, j);
}

static int do_resize(sim_state_t *s, sim_job_t *j)
{
	double cost = sim_job_restart_cost(s, j);

	job_model_resizing(j->jm, sim_time(s->now));
	j->st = SJ_RESTARTING;
	sim_job_set_speed(s, j);
	j->res.resizes++;
	j->res.resize_seconds += cost;
	s->resizes++;
	return sim_events_push(&s->q, s->now + cost, SIM_EV_RESUME, j->id,
			       j->gen);
}

/* Resized jobs give their servers back first, then everyone takes. */
static int apply(sim_state_t *s, const plan_t *p, sim_job_t **act)
{
	int rc = 0;

	for (size_t i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].action == PLAN_RESIZE)
			sim_job_release(s, act[i]);
	for (size_t i = 0; i < p->ndecisions && !rc; i++) {
		const plan_decision_t *d = &p->decisions[i];
		if (d->action != PLAN_START && d->action != PLAN_RESIZE)
			continue;
		if ((rc = sim_job_take(s, act[i], d)))
			break;
		if (d->action == PLAN_START)
			do_start(s, act[i]);
		else
			rc = do_resize(s, act[i]);
	}
	return rc;
}

int sim_apply_tick(sim_state_t *s)
{
	plan_job_t *pj = calloc(s->njobs + 1, sizeof(*pj));
	sim_job_t **act = calloc(s->njobs + 1, sizeof(*act));
	plan_params_t prm;
	plan_t plan;
	size_t n;
	int rc = -ENOMEM;

	memset(&plan, 0, sizeof(plan));
	if (!pj || !act || (rc = collect(s, pj, act, &n)) || !n)
		goto out;
	plan_params(s, &prm);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = plan_run(pj, n, sim_straggler_room(s), s->cfg->nservers, &prm,
		      &plan);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s->plan_wall += (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec -
							  t0.tv_nsec);
	s->plans++;
	if (rc)
		snprintf(s->err, s->errlen, "plan_run: %s", plan.err);
	else
		rc = apply(s, &plan, act);
	plan_free(&plan);
out:
	free(pj);
	free(act);
	return rc;
}

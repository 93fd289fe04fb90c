/*
 * query.c - answers to optimusctl's queries from the planner's registry.
 *
 * The listener has already checked that a job query comes from the job's
 * owner or an administrator.
 */
#include "config.h"

#include "src/common/log.h"

#include "optimus_conf.h"
#include "query.h"
#include "registry.h"

#define SUMMARY_MAX 1024

/* One line per job: what `optimusctl status` prints. */
static int status_row(reg_job_t *rj, void *arg)
{
	job_model_t *m = rj->model;
	json_object *o = json_object_new_object();
	char summary[SUMMARY_MAX];
	bool fitted = false;

	job_model_summary(m, registry_profiles(), summary, sizeof(summary));
	json_object_object_add(o, "job_id", json_object_new_int64(m->job_id));
	json_object_object_add(o, "uid", json_object_new_int64(m->uid));
	json_object_object_add(o, "policy", json_object_new_string(
		hints_policy_name(m->hints.policy)));
	json_object_object_add(o, "phase",
			       json_object_new_string(job_phase_name(m->phase)));
	json_object_object_add(o, "ps", json_object_new_int(m->cur_ps));
	json_object_object_add(o, "workers", json_object_new_int(m->cur_workers));
	json_object_object_add(o, "plan_ps", json_object_new_int(m->plan_ps));
	json_object_object_add(o, "plan_workers",
			       json_object_new_int(m->plan_workers));
	json_object_object_add(o, "step", json_object_new_double(m->step));
	json_object_object_add(o, "loss", json_object_new_double(m->loss));
	json_object_object_add(o, "remaining_steps", json_object_new_double(
		job_model_remaining_steps(m, &fitted)));
	json_object_object_add(o, "fitted", json_object_new_boolean(fitted));
	json_object_object_add(o, "restarts", json_object_new_int(m->restarts));
	json_object_object_add(o, "summary", json_object_new_string(summary));
	json_object_array_add(arg, o);
	return 0;
}

static json_object *answer_status(void)
{
	json_object *o = json_object_new_object();
	json_object *jobs = json_object_new_array();

	json_object_object_add(o, "policy",
			       json_object_new_string(optimus_conf.policy));
	json_object_object_add(o, "plan_interval",
			       json_object_new_int(optimus_conf.plan_interval));
	registry_for_each(status_row, jobs);
	json_object_object_add(o, "jobs", jobs);
	return o;
}

static json_object *answer_job(uint32_t job_id)
{
	reg_job_t *rj = registry_find(job_id);
	json_object *o;
	char summary[SUMMARY_MAX];

	if (!rj)
		return NULL;
	o = job_model_to_json(rj->model);
	if (!o)
		return NULL;
	job_model_summary(rj->model, registry_profiles(), summary,
			  sizeof(summary));
	json_object_object_add(o, "phase_name", json_object_new_string(
		job_phase_name(rj->model->phase)));
	json_object_object_add(o, "summary", json_object_new_string(summary));
	json_object_object_add(o, "decision", plan_decision_to_json(&rj->last));
	return o;
}

static json_object *answer_plan(void)
{
	json_object *plan = registry_plan_json();

	if (!plan)
		return json_object_new_object();
	return json_tokener_parse(json_object_to_json_string(plan));
}

extern json_object *query_answer(const query_t *q, uid_t uid)
{
	json_object *o = NULL;

	registry_lock();
	switch (q->kind) {
	case QUERY_STATUS:
		o = answer_status();
		break;
	case QUERY_JOB:
		o = answer_job(q->job_id);
		break;
	case QUERY_PLAN:
		o = answer_plan();
		break;
	}
	registry_unlock();
	return o;
}

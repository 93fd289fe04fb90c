/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan.c - the checks and words of a plan: parameters and their
 * defaults, the action names, the checks of a plan's input, failure and
 * reasons. The context: plan_setup.c; the passes: plan_run.c; the
 * policies' names: plan_policy.c.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_priv.h"
#include "util/errmsg.h"
#include "util/names.h"

static const char *const action_names[] = {
	"wait", "start", "keep", "resize", "preempt",
};

void plan_params_init(plan_params_t *prm)
{
	memset(prm, 0, sizeof(*prm));
	prm->policy = PLAN_OPTIMUS;
	prm->interval = PLAN_INTERVAL_DEFAULT;
	prm->damping = ALLOC_DAMPING_DEFAULT;
	prm->resize_threshold = PLAN_RESIZE_THRESHOLD_DEFAULT;
	prm->resize_threshold_large = PLAN_RESIZE_THRESHOLD_LARGE_DEFAULT;
	prm->large_tasks = PLAN_LARGE_TASKS_DEFAULT;
	prm->min_resize_interval = PLAN_MIN_RESIZE_INTERVAL_DEFAULT;
	prm->restart_cost = PLAN_RESTART_COST_DEFAULT;
	prm->rebatch_cost = PLAN_REBATCH_COST_DEFAULT;
	prm->placement = true;
	prm->shrink_for_pending = true;
	prm->explore_scaling = false;
	prm->round_budget = PLAN_ROUND_BUDGET_DEFAULT;
	prm->goodput_objective = PLAN_GOODPUT_RATE;
}

const char *plan_action_name(plan_action_t a)
{
	return names_at(action_names, NAMES_COUNT(action_names), (unsigned)a);
}

void plan_reason(plan_decision_t *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
	va_end(ap);
}

void plan_free(plan_t *p)
{
	if (!p)
		return;
	for (size_t i = 0; p->decisions && i < p->ndecisions; i++)
		free(p->decisions[i].slots);
	free(p->decisions);
	p->decisions = NULL;
	p->ndecisions = 0;
}

int plan_fail(plan_t *out, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errmsg_vset(out->err, sizeof(out->err), rc, fmt, ap);
	va_end(ap);
	return rc;
}

static int plan_check_prm(const plan_params_t *p, plan_t *out)
{
	if (!(p->interval > 0.0) || !isfinite(p->interval) ||
	    !(p->damping > 0.0 && p->damping <= 1.0) ||
	    !(p->resize_threshold >= 0.0) || !isfinite(p->resize_threshold) ||
	    !(p->resize_threshold_large >= 0.0) ||
	    !isfinite(p->resize_threshold_large) || p->large_tasks < 1 ||
	    !(p->min_resize_interval >= 0.0) ||
	    !isfinite(p->min_resize_interval) || !(p->restart_cost >= 0.0) ||
	    !isfinite(p->restart_cost) || !(p->rebatch_cost >= 0.0) ||
	    !isfinite(p->rebatch_cost) ||
	    (p->goodput_objective != PLAN_GOODPUT_RATE &&
	     p->goodput_objective != PLAN_GOODPUT_SPEEDUP &&
	     p->goodput_objective != PLAN_GOODPUT_SPEEDUP_RESTART))
		return plan_fail(out, -EINVAL, "invalid plan parameters");
	return 0;
}

int plan_check(const plan_job_t *jobs, size_t n, const res_vec_t *sf,
		      size_t ns, const plan_params_t *prm, plan_t *out)
{
	if (!prm || (n && !jobs) || (ns && !sf))
		return plan_fail(out, -EINVAL, "missing jobs, servers or "
				 "parameters");
	for (size_t s = 0; s < ns; s++)
		for (int r = 0; r < RES_NUM; r++)
			if (!isfinite(sf[s].v[r]) ||
			    fabs(sf[s].v[r]) > PLAN_ROOM_MAX)
				return plan_fail(out, -EINVAL, "server %zu: "
						 "free room not finite or "
						 "beyond %g", s, PLAN_ROOM_MAX);
	for (size_t i = 0; i < n; i++) {
		if (!jobs[i].model)
			return plan_fail(out, -EINVAL, "job %zu: no model", i);
		if (jobs[i].nslots && !jobs[i].slots)
			return plan_fail(out, -EINVAL, "job %u: no slots",
					 jobs[i].model->job_id);
		for (size_t k = 0; k < jobs[i].nslots; k++)
			if (jobs[i].slots[k].server >= ns ||
			    (jobs[i].slot_usage &&
			     !res_is_valid(jobs[i].slot_usage[k])))
				return plan_fail(out, -EINVAL, "job %u: bad "
						 "slot %zu", jobs[i].model->job_id,
						 k);
	}
	return plan_check_prm(prm, out);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_policy.c - the table of policies: each Policy= value and its
 * operations, from plan_policy_list.h's rows; their names, the Preempt=
 * default under each, which are baselines run at submitted sizes, and
 * which policy's rules plan a job. Adding a policy: its file, its row in
 * plan_policy_list.h, its tests.
 */
#include <errno.h>
#include <string.h>

#include "plan/plan_priv.h"

static const plan_policy_ops_t *const plan_policies[] = {
#define PLAN_POLICY(value, ops) [value] = &ops,
#include "plan/plan_policy_list.h"
#undef PLAN_POLICY
};

#define PLAN_NPOLICIES (sizeof(plan_policies) / sizeof(plan_policies[0]))

/* The policy a job's own choice (hints.policy) names, under a policy
 * that lets it choose (by_hints); Optimus' for a choice not listed. */
static const plan_policy_ops_t *const plan_hinted[] = {
	[HINTS_POLICY_OPTIMUS] = &plan_policy_optimus,
	[HINTS_POLICY_QUALITY] = &plan_policy_quality,
};

const plan_policy_ops_t *plan_policy_ops(plan_policy_t p)
{
	return (unsigned)p < PLAN_NPOLICIES ? plan_policies[p] : NULL;
}

const char *plan_policy_name(plan_policy_t p)
{
	const plan_policy_ops_t *ops = plan_policy_ops(p);

	return ops ? ops->name : "unknown";
}

int plan_policy_parse(const char *name, plan_policy_t *out)
{
	for (size_t p = 0; name && p < PLAN_NPOLICIES; p++)
		if (!strcmp(plan_policies[p]->name, name)) {
			*out = (plan_policy_t)p;
			return 0;
		}
	return -EINVAL;
}

bool plan_preempt_default(plan_policy_t p)
{
	const plan_policy_ops_t *ops = plan_policy_ops(p);

	return ops && ops->preempt_default;
}

bool plan_policy_fixed_size(plan_policy_t p)
{
	const plan_policy_ops_t *ops = plan_policy_ops(p);

	return ops && ops->fixed_size;
}

const plan_policy_ops_t *plan_policy_rules(const plan_ctx_t *c, size_t i)
{
	const plan_policy_ops_t *p = c->policy;
	unsigned h = (unsigned)c->jobs[i].model->hints.policy;

	if (p->by_hints)
		return h < sizeof(plan_hinted) / sizeof(plan_hinted[0]) ?
		       plan_hinted[h] : plan_hinted[HINTS_POLICY_OPTIMUS];
	return p->job_rules ? p->job_rules(c, i) : p;
}

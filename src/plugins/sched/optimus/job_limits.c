/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * job_limits.c - a job's effective limits as the plan's cap (job_limits.h).
 *
 * Read the way Slurm checks a job before it starts it
 * (acct_policy_job_runnable_post_select in src/slurmctld/acct_policy.c,
 * the partition's node count in job_mgr.c's _part_access_check), so that
 * what the plan gives passes those checks:
 *   - the job's QOS and its partition's QOS, in Slurm's order
 *     (acct_policy_set_qos_order); a limit of one kind set by the first
 *     QOS is the one that holds for that TRES;
 *   - then the association and its parents: their GrpTRES where no QOS
 *     set GrpTRES for that TRES, the job's own association's MaxTRES
 *     (per job) and MaxTRESPerNode where no QOS set those, scaled by the
 *     QOS' LimitFactor;
 *   - GrpTRES, MaxTRESPerUser and MaxTRESPerAccount less what the other
 *     jobs of the QOS, user, account or association hold (a running job's
 *     own allocation is given back: the cap is what it may hold in all);
 *   - the partition's MaxNodes (unless the QOS has PartitionMaxNodes),
 *     MaxCPUsPerNode and MaxMemPerNode.
 * An operator's override of a TRES limit on the job (ADMIN_SET_LIMIT) is
 * honoured as Slurm honours it; a planned start leaves on the TRES it
 * sizes the overrides the owner's own request would (job_limits_as_owner).
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/macros.h"
#include "src/common/xstring.h"
#include "src/slurmctld/acct_policy.h"
#include "src/slurmctld/slurmctld.h"

#include "job_limits.h"
#include "slurm_compat.h"

/* The TRES the plan sizes a job in, and where each goes in the cap. */
typedef struct limits_tres {
	int pos;		/* in Slurm's TRES arrays; -1: not tracked */
	int res;		/* RES_CPU, RES_MEM, RES_GPU; -1: nodes */
	const char *name;	/* as sacctmgr names it */
	const char *unit;
} limits_tres_t;

#define LIMITS_NTRES 4

/* The kinds of QOS limit, each held by the first QOS that sets it. */
enum limits_kind { LK_GRP, LK_PJ, LK_PN, LK_PA, LK_PU, LK_NUM };

static const char *kind_name[LK_NUM] = {
	"GrpTRES", "MaxTRESPerJob", "MaxTRESPerNode", "MaxTRESPerAccount",
	"MaxTRESPerUser" };

typedef struct limits_ctx {
	job_record_t *job;
	job_cap_t *cap;
	limits_tres_t tres[LIMITS_NTRES];
	bool qos_set[LK_NUM][LIMITS_NTRES];
	double factor;		/* the QOS' LimitFactor (<= 0: none) */
} limits_ctx_t;

static const assoc_mgr_lock_t limits_locks = {
	.assoc = READ_LOCK, .qos = READ_LOCK, .tres = READ_LOCK };

extern void job_limits_lock(void)
{
	assoc_mgr_lock_t locks = limits_locks;

	assoc_mgr_lock(&locks);
}

extern void job_limits_unlock(void)
{
	assoc_mgr_lock_t locks = limits_locks;

	assoc_mgr_unlock(&locks);
}

extern int job_limits_gpu_pos(bool locked)
{
	slurmdb_tres_rec_t rec = { .type = "gres", .name = "gpu" };

	return assoc_mgr_find_tres_pos(&rec, locked);
}

/* An operator's override of TRES t on the job: Slurm skips t's limits. */
static bool overridden(const limits_ctx_t *x, int t)
{
	return x->job->limit_set.tres &&
	       x->job->limit_set.tres[t] == ADMIN_SET_LIMIT;
}

/* What the job itself holds of TRES t (running: its allocation). */
static uint64_t own_use(const limits_ctx_t *x, int t)
{
	job_record_t *job = x->job;

	if (!job->tres_alloc_cnt ||
	    !(IS_JOB_RUNNING(job) || IS_JOB_SUSPENDED(job)))
		return 0;
	return job->tres_alloc_cnt[t] == NO_CONSUME_VAL64 ? 0 :
	       job->tres_alloc_cnt[t];
}

/* What is left of `limit` for the job when the others hold `used` (which
 * counts the job's own allocation if it runs). */
static double left_of(const limits_ctx_t *x, int t, uint64_t limit,
		      uint64_t used)
{
	uint64_t own = own_use(x, t), others = used > own ? used - own : 0;

	return others >= limit ? 0.0 : (double)(limit - others);
}

/* Lower the cap's bound of tres k, in all (or per node), with words. */
static void cap_tres(limits_ctx_t *x, int k, bool per_node, double v,
		     const char *who, const char *kind, uint64_t limit,
		     bool leaves)
{
	const limits_tres_t *tr = &x->tres[k];
	char left[40] = "";

	if (leaves)
		snprintf(left, sizeof(left), " leaves %.0f", v);
	if (tr->res < 0 && per_node)
		return;		/* nodes per node: nothing to bound */
	if (tr->res < 0)
		cap_lower_servers(x->cap, v, "%s %s %s=%" PRIu64 "%s", who,
				  kind, tr->name, limit, left);
	else if (per_node)
		cap_lower_per_server(x->cap, tr->res, v, "%s %s %s=%" PRIu64
				     "%s%s", who, kind, tr->name, limit,
				     tr->unit, left);
	else
		cap_lower_total(x->cap, tr->res, v, "%s %s %s=%" PRIu64 "%s%s",
				who, kind, tr->name, limit, tr->unit, left);
}

static slurmdb_used_limits_t *used_by(list_t *l, bool user, uint32_t uid,
				      const char *acct)
{
	slurmdb_used_limits_t *u = NULL;
	list_itr_t *it;

	if (!l)
		return NULL;
	it = list_iterator_create(l);
	while ((u = list_next(it)))
		if (user ? u->uid == uid : !xstrcmp(u->acct, acct))
			break;
	list_iterator_destroy(it);
	return u;
}

/* One QOS' limits of kind `kind` (array `lim`), for the TRES no earlier
 * QOS set that kind of. */
static void qos_kind(limits_ctx_t *x, slurmdb_qos_rec_t *qos, int kind,
		     const uint64_t *lim, const uint64_t *used)
{
	char who[80];

	if (!lim)
		return;
	snprintf(who, sizeof(who), "QOS %s", qos->name);
	for (int k = 0; k < LIMITS_NTRES; k++) {
		int t = x->tres[k].pos;
		bool usage = kind == LK_GRP || kind == LK_PA || kind == LK_PU;

		if (t < 0 || overridden(x, t) || lim[t] == INFINITE64 ||
		    lim[t] == NO_VAL64 || x->qos_set[kind][k])
			continue;
		x->qos_set[kind][k] = true;
		/* used NULL: no record, nobody holds anything under it */
		cap_tres(x, k, kind == LK_PN, usage ?
			 left_of(x, t, lim[t], used ? used[t] : 0) :
			 (double)lim[t], who, kind_name[kind], lim[t], usage);
	}
}

/* Does `lim` limit one of the TRES the plan sizes? */
static bool limits_any(const limits_ctx_t *x, const uint64_t *lim)
{
	for (int k = 0; lim && k < LIMITS_NTRES; k++)
		if (x->tres[k].pos >= 0 && lim[x->tres[k].pos] != INFINITE64 &&
		    lim[x->tres[k].pos] != NO_VAL64)
			return true;
	return false;
}

static void qos_limits(limits_ctx_t *x, slurmdb_qos_rec_t *qos)
{
	slurmdb_qos_usage_t *u = qos->usage;
	job_record_t *job = x->job;
	slurmdb_used_limits_t *pu = NULL, *pa = NULL;

	/* The user's and account's records are looked for (a walk of the
	 * QOS' lists, under the snapshot's locks) only when a limit needs
	 * them. */
	if (u && limits_any(x, qos->max_tres_pu_ctld))
		pu = used_by(u->user_limit_list, true, job->user_id, NULL);
	if (u && job->assoc_ptr && limits_any(x, qos->max_tres_pa_ctld))
		pa = used_by(u->acct_limit_list, false, 0,
			     job->assoc_ptr->acct);
	qos_kind(x, qos, LK_GRP, qos->grp_tres_ctld,
		 u ? u->grp_used_tres : NULL);
	qos_kind(x, qos, LK_PJ, qos->max_tres_pj_ctld, NULL);
	qos_kind(x, qos, LK_PN, qos->max_tres_pn_ctld, NULL);
	qos_kind(x, qos, LK_PA, qos->max_tres_pa_ctld, pa ? pa->tres : NULL);
	qos_kind(x, qos, LK_PU, qos->max_tres_pu_ctld, pu ? pu->tres : NULL);
}

/* An association's limit scaled by the QOS' LimitFactor, as Slurm does. */
static uint64_t factored(const limits_ctx_t *x, uint64_t limit)
{
	double v;

	if (x->factor <= 0.0 || limit == INFINITE64 || limit == NO_VAL64)
		return limit;
	v = (double)limit * x->factor;
	return v >= (double)INFINITE64 ? INFINITE64 : (uint64_t)v;
}

static void assoc_limits(limits_ctx_t *x)
{
	bool parent = false;

	for (slurmdb_assoc_rec_t *a = x->job->assoc_ptr; a;
	     a = a->usage ? a->usage->parent_assoc_ptr : NULL) {
		char who[120];

		snprintf(who, sizeof(who), "association %s%s%s", a->acct,
			 a->user ? "/" : "", a->user ? a->user : "");
		for (int k = 0; k < LIMITS_NTRES; k++) {
			int t = x->tres[k].pos;
			uint64_t lim;

			if (t < 0 || overridden(x, t))
				continue;
			lim = a->grp_tres_ctld ? factored(x, a->grp_tres_ctld[t]) :
			      INFINITE64;
			if (!x->qos_set[LK_GRP][k] && lim != INFINITE64 &&
			    lim != NO_VAL64 && a->usage &&
			    a->usage->grp_used_tres)
				cap_tres(x, k, false, left_of(x, t, lim,
					 a->usage->grp_used_tres[t]), who,
					 "GrpTRES", lim, true);
			/* A parent's per-job limits are already in the
			 * child's (Slurm propagates them). */
			if (parent)
				continue;
			lim = a->max_tres_ctld ? factored(x, a->max_tres_ctld[t]) :
			      INFINITE64;
			if (!x->qos_set[LK_PJ][k] && lim != INFINITE64 &&
			    lim != NO_VAL64)
				cap_tres(x, k, false, (double)lim, who,
					 "MaxTRESPerJob", lim, false);
			lim = a->max_tres_pn_ctld ?
			      factored(x, a->max_tres_pn_ctld[t]) : INFINITE64;
			if (!x->qos_set[LK_PN][k] && lim != INFINITE64 &&
			    lim != NO_VAL64)
				cap_tres(x, k, true, (double)lim, who,
					 "MaxTRESPerNode", lim, false);
		}
		parent = true;
	}
}

static void partition_limits(limits_ctx_t *x)
{
	part_record_t *p = x->job->part_ptr;
	slurmdb_qos_rec_t *qos = x->job->qos_ptr;

	if (!p)
		return;
	if (p->max_nodes != INFINITE && p->max_nodes != NO_VAL &&
	    !(qos && (qos->flags & QOS_FLAG_PART_MAX_NODE)))
		cap_lower_servers(x->cap, p->max_nodes,
				  "partition %s MaxNodes=%u", p->name,
				  p->max_nodes);
	if (p->max_cpus_per_node != INFINITE && p->max_cpus_per_node != NO_VAL)
		cap_lower_per_server(x->cap, RES_CPU, p->max_cpus_per_node,
				     "partition %s MaxCPUsPerNode=%u", p->name,
				     p->max_cpus_per_node);
	/* MaxMemPerNode (not MaxMemPerCPU, which the flag marks). */
	if (p->max_mem_per_cpu && p->max_mem_per_cpu != INFINITE64 &&
	    p->max_mem_per_cpu != NO_VAL64 &&
	    !(p->max_mem_per_cpu & MEM_PER_CPU))
		cap_lower_per_server(x->cap, RES_MEM,
				     (double)p->max_mem_per_cpu,
				     "partition %s MaxMemPerNode=%" PRIu64,
				     p->name, p->max_mem_per_cpu);
}

extern void job_limits_read(job_record_t *job, int gpu_pos, job_cap_t *cap)
{
	limits_ctx_t x = {
		.job = job, .cap = cap, .factor = -1.0,
		.tres = { { TRES_ARRAY_CPU, RES_CPU, "cpu", "" },
			  { TRES_ARRAY_MEM, RES_MEM, "mem", "M" },
			  { gpu_pos, RES_GPU, "gres/gpu", "" },
			  { TRES_ARRAY_NODE, -1, "node", "" } } };
	slurmdb_qos_rec_t *q1 = NULL, *q2 = NULL;

	cap_init(cap);
	partition_limits(&x);
	if (!(accounting_enforce & ACCOUNTING_ENFORCE_LIMITS))
		return;
	acct_policy_set_qos_order(job, &q1, &q2);
	if (q1)
		qos_limits(&x, q1);
	if (q2)
		qos_limits(&x, q2);
	if (q1 && !fuzzy_equal(q1->limit_factor, INFINITE))
		x.factor = q1->limit_factor;
	else if (q2 && !fuzzy_equal(q2->limit_factor, INFINITE))
		x.factor = q2->limit_factor;
	assoc_limits(&x);
}

extern void job_limits_as_owner(job_record_t *job)
{
	int pos[] = { TRES_ARRAY_CPU, TRES_ARRAY_MEM, TRES_ARRAY_NODE,
		      job_limits_gpu_pos(false) };

	if (!job->limit_set.tres || validate_operator(job->user_id))
		return;
	for (size_t i = 0; i < sizeof(pos) / sizeof(pos[0]); i++)
		if (pos[i] >= 0 && pos[i] < slurmctld_tres_cnt)
			job->limit_set.tres[pos[i]] = 0;
}

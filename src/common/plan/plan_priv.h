/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_priv.h - what the parts of plan_run() share: the context of one
 * plan, a policy's operations, and each file's functions, from the top of
 * HACKING.md's map of plan/ down (every file calls only files below it:
 * testsuite/unit/plan_layers.sh). Not installed, not for callers of
 * plan.h.
 */
#ifndef OPTIMUS_PLAN_PRIV_H
#define OPTIMUS_PLAN_PRIV_H

#include "plan/plan.h"

/* Where a job stands while the plan is made. */
typedef enum plan_state {
	PS_PENDING = 0,	/* pending, (re)allocated in pass 2 */
	PS_EXCLUDED,	/* pending, could not be placed: waits */
	PS_KEEP,	/* running, fixed on its servers */
	PS_RESIZE,	/* running, (re)allocated and placed in pass 2 */
} plan_state_t;

struct plan_ctx;

/* Callback context of one job for the allocators' function pointers. */
typedef struct plan_cb {
	const job_model_t *model;
	const speed_profiles_t *profiles;
	double interval;
	/* All-reduce jobs: workers the largest server holds (their speed
	 * depends on the nodes they span: job_model_speed_p). */
	int node_workers;
	/* The plan and the job's index, for a policy whose speed of a job
	 * depends on the plan (goodput: the nodes it would get). */
	const struct plan_ctx *ctx;
	size_t i;
	/* All-reduce jobs: speeds by workers asked in this plan (NAN: not
	 * yet), the allocators ask the same ones many times; NULL: none. */
	double *cache;
	int ncache;
	double (*speed)(void *ctx, int p, int w);	/* uncached */
	/* ExploreScaling, an all-reduce job: its explored extent and best
	 * per-GPU rate (plan_explore.c). */
	bool exploring;
	job_explore_t explore;
} plan_cb_t;

/* A placement of one job: slots, or ok false. */
typedef struct plan_slots {
	bool ok;
	size_t n;
	place_slot_t *v;
} plan_slots_t;

typedef struct plan_ctx {
	const plan_job_t *jobs;
	size_t n;
	const res_vec_t *server_free;	/* the caller's; see free0 */
	res_vec_t *free0;	/* server_free, negatives clamped to 0 */
	size_t nservers;
	const plan_params_t *prm;
	plan_t *out;

	size_t *order;		/* allocation order (see plan_order) */
	double *order_key;	/* Tetris: remaining time at the minimum */
	alloc_job_t *aj;	/* per job, built once */
	plan_cb_t *cb;
	int *cur_ps, *cur_w;	/* running jobs' current size */
	res_vec_t *usage;	/* running jobs' total usage */
	res_vec_t capacity;	/* free room + running usage */
	alloc_grant_t *grant1;	/* pass 1: every job over the whole capacity */
	alloc_grant_t *grant2;	/* pass 2: pending and resized jobs over the room */
	plan_state_t *state;
	int *lim_ps, *lim_w;	/* pass 2 size limits after a failed placement */
	/* Why job i's minimum is over its cap (the cap's words), NULL when
	 * it is not: such a job is not allocated (plan_cap_bound). */
	const char **over_cap;
	bool *shrink;		/* RESIZE chosen to make room (pass 1) */
	bool pending_granted;	/* some pending job got room in pass 1 */
	/* No job waits and a running job's growth passed its verdict
	 * (plan_policy_ops_t.shrink_for_growth): kept jobs may shrink to
	 * their pass-1 grants to make room for it (plan_run.c). */
	bool growth_granted;
	plan_slots_t *placed;	/* pass 2 placements */
	res_vec_t *room;	/* per server, pass 2 */
	double alloc_s, place_s;
	/* Fair shares between users (plan_fair.c): each job's user (an
	 * index into fair_frac), each user's fair fraction of the capacity
	 * (its demand, or its weighted share, whichever is less), and
	 * whether two users or more contend for it (their demands exceed
	 * it); after pass 1, whether some user below its fraction wants more
	 * (a user above its own then yields). */
	size_t *fair_user;
	double *fair_frac;
	double *fair_held;	/* per user, after pass 1: what it holds */
	size_t nusers;
	bool contended;
	bool fair_owed;
	/* The plan's policy (prm->policy), and the policy whose job
	 * operations plan each job (plan_policy_rules). */
	const struct plan_policy_ops *policy;
	const struct plan_policy_ops **rules;
	/* What the plan's policy keeps for one plan (its setup and cleanup
	 * operations own it); NULL: nothing. */
	void *policy_state;
} plan_ctx_t;

/*
 * A policy: what it decides, plan_run.c's mechanics doing the rest (the
 * passes, placement, stragglers, preemption). One file a policy
 * (plan_policy_NAME.c) defines its operations, one row of the table
 * (plan_policy.c) names it. The plan's policy gives the plan-wide
 * operations; the job operations of job i are those of c->rules[i]: the
 * plan's policy, or the one it leaves the job to (by_hints, job_rules).
 * An operation marked optional may be NULL.
 */
typedef struct plan_policy_ops {
	const char *name;		/* Policy= value */
	bool preempt_default;		/* Preempt= default under it */
	/* When no job waits, a kept job shrinks to its pass-1 grant for a
	 * running job's growth that passed its verdict, as it does for a
	 * pending job (plan_run.c, plan_growth_shrink). */
	bool shrink_for_growth;
	bool fixed_size;		/* a baseline run at submitted sizes */

	/* Plan-wide. The allocator of the jobs allocated in tasks: one
	 * allocator, or, where the plan's parameters choose it, the
	 * function that says which (used when set). */
	alloc_run_fn allocate;
	alloc_run_fn (*allocator)(const plan_ctx_t *c);
	/* A job's own choice of policy (hints.policy, --scheduler) names
	 * the rules it is planned by. */
	bool by_hints;
	/* Optional: the policy whose rules plan job i (NULL: this one). */
	const struct plan_policy_ops *(*job_rules)(const plan_ctx_t *c,
						   size_t i);
	/* Optional: pending jobs' order key, least first (else 0: by
	 * submission). */
	double (*order_key)(const plan_ctx_t *c, size_t i);
	/* Optional: after the allocator input is built, before
	 * exploration's setup: 0 or -ENOMEM (message set). */
	int (*setup)(plan_ctx_t *c);
	/* Optional: frees what setup kept. */
	void (*cleanup)(plan_ctx_t *c);
	/* Optional: what follows the plan's decisions (and preemption):
	 * 0 or -ENOMEM. */
	int (*after)(plan_ctx_t *c);

	/* Of a job. Optional: jobs allocated apart, in units (Algorithm
	 * 1), on a share of the capacity by job counts: their allocator,
	 * and the units `share` of room[0..nroom) holds for jobs idx[0..n). */
	alloc_run_fn allocate_units;
	long (*units)(const plan_ctx_t *c, const size_t *idx, size_t n,
		      const res_vec_t *room, size_t nroom, double share);
	/* Predicted seconds left of job i with ps PS and w workers. */
	double (*time)(const plan_ctx_t *c, size_t i, int ps, int w);
	/* Job i's rate at w workers on n nodes without exploration's
	 * optimism, and the nodes ps/w span (plan_explore.c). */
	double (*rate)(const plan_ctx_t *c, size_t i, int w, int n);
	int (*nodes)(const plan_ctx_t *c, size_t i, int ps, int w);
	/* Optional: job i's rate is optimistic by itself beyond the
	 * configurations it measured, so ExploreScaling leaves it alone
	 * (plan_explore.c); NULL: never. */
	bool (*optimistic)(const plan_ctx_t *c, size_t i);
	/* Running job i granted g, which is not its size: why it keeps its
	 * size (in why[len]), or NULL when it is resized (c->shrink[i] set).
	 * again: pass 2's re-check of a resize pass 1 chose. */
	const char *(*verdict)(plan_ctx_t *c, size_t i,
			       const alloc_grant_t *g, bool again, char *why,
			       size_t len);
	/* May kept job i, resizable and above its minimum, shrink so that
	 * a pending job can be placed? */
	bool (*may_shrink)(const plan_ctx_t *c, size_t i);
	/* Optional: the reason of pending job i that got nothing, when the
	 * policy has its own words (true: written). */
	bool (*wait_reason)(const plan_ctx_t *c, size_t i, res_vec_t cap,
			    plan_decision_t *d);
	/* Optional: a RESIZE's reason in the policy's words (whom: the job
	 * a shrink makes room for). */
	void (*resize_reason)(const plan_ctx_t *c, size_t i,
			      plan_decision_t *d, const char *whom);
} plan_policy_ops_t;

/* The policies (one file each) and the job operations they share. */
#define PLAN_POLICY(value, ops) extern const plan_policy_ops_t ops;
#include "plan/plan_policy_list.h"
#undef PLAN_POLICY


/* plan_setup.c: the context of one plan */
/* The context: the policy and each job's rules, allocator input, sizes
 * and usage of the running jobs, capacity, order, fair shares. 0, or
 * -errno (message set). */
int plan_setup(plan_ctx_t *c);
void plan_ctx_free(plan_ctx_t *c);

/* plan_policy.c: the table of policies */
/* Policy p's operations, NULL when unknown. */
const plan_policy_ops_t *plan_policy_ops(plan_policy_t p);
/* The policy whose job operations plan job i under c->policy. */
const plan_policy_ops_t *plan_policy_rules(const plan_ctx_t *c, size_t i);

/* plan_policy_optimus.c: Optimus' job operations, which the policies
 * without their own use */
double plan_optimus_time(const plan_ctx_t *c, size_t i, int ps, int w);
double plan_optimus_rate(const plan_ctx_t *c, size_t i, int w, int n);
const char *plan_optimus_verdict(plan_ctx_t *c, size_t i,
				 const alloc_grant_t *g, bool again,
				 char *why, size_t len);
bool plan_optimus_may_shrink(const plan_ctx_t *c, size_t i);
/* Optimus' job operations, as designated initializers. */
#define PLAN_OPTIMUS_JOB_OPS \
	.time = plan_optimus_time, .rate = plan_optimus_rate, \
	.nodes = plan_speed_p, .verdict = plan_optimus_verdict, \
	.may_shrink = plan_optimus_may_shrink

/* plan_straggler.c: after the decisions, move the kept jobs that have a
 * straggler to servers without it, on the room the plan leaves. */
int plan_move_stragglers(plan_ctx_t *c);

/* plan_preempt.c: after the decisions (prm->preempt), preemption with
 * aging: waiting jobs in order of least key get their minimum, on free
 * room or on the GPUs of the running job with the most attained service
 * (PLAN_PREEMPT). 0 or -ENOMEM. */
int plan_preempt(plan_ctx_t *c);

/* plan_alloc.c: allocator input and allocation */
void plan_alloc_build(plan_ctx_t *c);
/* Allocate, with the policies' allocators, the jobs i with in[i] over
 * cap, which is room[0..nroom) added up (units are counted per server);
 * grants[i] answers job i (zeroed, status ALLOC_MIN_UNFIT when !in[i]). */
int plan_alloc(plan_ctx_t *c, const bool *in, res_vec_t cap,
	       const res_vec_t *room, size_t nroom, alloc_grant_t *grants);
/* The speed model's first coordinate of job i with ps PS, w workers
 * (for an all-reduce job, the nodes its workers span). */
int plan_speed_p(const plan_ctx_t *c, size_t i, int ps, int workers);
/* Sets every all-reduce job's node_workers from the servers' sizes. */
void plan_node_workers(plan_ctx_t *c);
/* Each capped job's allocator bounds from its cap, and over_cap. */
void plan_cap_bound(plan_ctx_t *c);
/* A speed cache for every all-reduce job (after its speed callback is
 * final): 0 or -ENOMEM (message set). */
int plan_speed_cache(plan_ctx_t *c);

/* plan_explore.c: ExploreScaling */
/* Each all-reduce job's extent, best per-GPU rate and grant cap, after
 * the policy's setup. */
void plan_explore_setup(plan_ctx_t *c);
/* f, the predicted speed or rate of w workers on n nodes, made
 * optimistic beyond the job's extent when it explores. */
double plan_explore_speed(const plan_cb_t *cb, int w, int n, double f);
/* The minimum resize interval for running job i to (ps, w): none for a
 * growth beyond its explored extent (job_model_explore_growth). */
double plan_explore_min_interval(const plan_ctx_t *c, size_t i, int ps,
				 int w);

/* plan_gain.c: what a change of a running job is worth */
/* Predicted seconds left of job i at ps/w, by its policy. */
double plan_time(const plan_ctx_t *c, size_t i, int ps, int w);
/* The one gain formula: (now - planned - cost) / now, 0 when a time is
 * not finite or now is not positive; sets d's three fields. */
double plan_gain(plan_decision_t *d, double now, double planned,
		 double cost);
/* The gain of resizing running job i to ps/w (restart cost). */
double plan_resize_gain(const plan_ctx_t *c, size_t i, int ps, int w,
			plan_decision_t *d);
/* The resize threshold of job i going to ps/w (smaller for large jobs). */
double plan_threshold(const plan_ctx_t *c, size_t i, int ps, int w);
/* Is g a shrink of running job i that frees room for others? */
bool plan_is_shrink(const plan_ctx_t *c, size_t i, const alloc_grant_t *g);

/* plan_fair.c: fair shares between users */
/* Each job's user and each user's fair fraction (after the capacity and
 * the running jobs' usage are known). 0 or -ENOMEM (message set). */
int plan_fair_setup(plan_ctx_t *c);
/* Under contention, among jobs idx[0..k) (copied into jobs[] with their
 * limits) that plan_alloc allocates (in[]) over cap with allocator `run`:
 * each user's jobs are allocated its share first and their grants become
 * their minimums (guaranteed[j] set), so that the policy's own run shares
 * only the rest. `frac`: the part of the capacity the group has. 0, or an
 * allocator's error (message set). */
int plan_fair_guarantee(plan_ctx_t *c, const bool *in, const size_t *idx,
			size_t k, alloc_job_t *jobs, res_vec_t cap, long units,
			double frac, alloc_run_fn run, bool units_based,
			alloc_grant_t *guaranteed);
/* grants[0..k) of the policy's run keep every guarantee, else become the
 * guarantees alone. */
void plan_fair_hold(const alloc_grant_t *guaranteed, alloc_grant_t *grants,
		    size_t k);
/* After pass 1's verdicts on the running jobs: what each user holds, and
 * does some user below its fraction want more (a pending job granted, a
 * running one growing: fair_owed)? */
void plan_fair_pass1(plan_ctx_t *c);
/* Does running job i's user hold more than its fair fraction while
 * another user is owed (a shrink that pays no gain still frees it)? */
bool plan_fair_yields(const plan_ctx_t *c, size_t i);

/* plan_place.c: place the jobs i with which[i] and grants g[i] on room;
 * fills c->placed[i] (previous content freed). */
int plan_place(plan_ctx_t *c, const bool *which, const alloc_grant_t *g,
	       const res_vec_t *room);
/* Job i with ps PS and workers as the placement sees it (its layout). */
place_job_t plan_place_job(const plan_ctx_t *c, size_t i, int ps,
			   int workers);
/* A set of servers: the candidates of a run of placements one job at a
 * time, where scanning every server for each took seconds at 40,000. */
#define PLAN_SERVER_SHAPES 64	/* past this many task shapes: every server */
typedef struct plan_servers {
	uint32_t *v;
	size_t n;
	bool *in;	/* per server */
	res_vec_t needs[PLAN_SERVER_SHAPES];	/* the task shapes */
	size_t nneeds;
} plan_servers_t;
/* The servers whose room holds one task (PS or worker) of one of the
 * jobs jobs[0..njobs): 0 or -ENOMEM. Past a few dozen task shapes it is
 * every server (v NULL). */
int plan_servers_for(const plan_ctx_t *c, const res_vec_t *room,
		     const size_t *jobs, size_t njobs, plan_servers_t *out);
/* Adds server s (a set never opened, v NULL, stays "every server"). */
void plan_servers_add(plan_servers_t *set, uint32_t s);
/* Drops the servers whose room holds none of the set's task shapes. */
void plan_servers_prune(plan_servers_t *set, const res_vec_t *room);
void plan_servers_free(plan_servers_t *set);
/* pj placed alone on room (not changed), on the servers of cand that can
 * hold it (NULL: all; cand must hold every server that can): 1 with its
 * slots in *s (empty before), 0 if it does not fit, or -errno. */
int plan_place_one(const plan_ctx_t *c, const place_job_t *pj,
		   const res_vec_t *room, const plan_servers_t *cand,
		   plan_slots_t *s);
/*
 * Placements found not to fit on a room: a plan's waiting jobs share a few
 * shapes, and one that did not fit still does not while the room only
 * shrinks (empty it, n = 0, when the room grows). `with` tells apart
 * rooms with something added (preemption: the running job whose servers
 * were; else c->n). The first PLAN_NOFIT found are kept.
 */
#define PLAN_NOFIT 16
typedef struct plan_nofit {
	place_job_t v[PLAN_NOFIT];
	size_t with[PLAN_NOFIT];
	size_t n;
} plan_nofit_t;
bool plan_nofit_known(const plan_nofit_t *f, const place_job_t *pj,
		      size_t with);
void plan_nofit_add(plan_nofit_t *f, const place_job_t *pj, size_t with);
/* Job i at (ps, workers) placed alone on `room` (on the servers of cand
 * that hold it; NULL or v NULL: every server): its slots in *s (empty
 * before) and their room taken off `room`; false, both unchanged, when it
 * does not fit (or memory ran out). */
bool plan_place_alone(const plan_ctx_t *c, size_t i, int ps, int workers,
		      res_vec_t *room, const plan_servers_t *cand,
		      plan_slots_t *s);

/* plan.c: checks and words of a plan */
int plan_check(const plan_job_t *jobs, size_t n, const res_vec_t *sf,
	       size_t ns, const plan_params_t *prm, plan_t *out);
int plan_fail(plan_t *out, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void plan_reason(plan_decision_t *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* plan_slots.c: the bottom, used by every other part */
double plan_clock(void);
/* qsort/bsearch order of uint32_t, ascending. */
int plan_u32_cmp(const void *a, const void *b);
/* A job's resources at a size; at its minimum size. */
res_vec_t plan_need(const alloc_job_t *j, int ps, int workers);
res_vec_t plan_min_need(const alloc_job_t *j);
/* What running job i uses on the server of its slot k. */
res_vec_t plan_slot_usage(const plan_ctx_t *c, size_t i, size_t k);
/* Give running job i's servers back to room (what it uses on each slot). */
void plan_add_servers(const plan_ctx_t *c, res_vec_t *room, size_t i);
/* Take from room what job i needs on the servers of slots v[0..n). */
void plan_take_slots(const plan_ctx_t *c, res_vec_t *room, size_t i,
		     const place_slot_t *v, size_t n);
/* The room every decision of the plan leaves on each server. */
void plan_room_after(const plan_ctx_t *c, res_vec_t *room);
int plan_copy_slots(plan_decision_t *d, const place_slot_t *v, size_t n);
void plan_slots_clear(plan_slots_t *s);

#endif

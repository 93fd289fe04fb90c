/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * plan_priv.h - what the parts of plan_run() share. From the top down:
 * plan_run.c the passes and decisions of one interval; plan_straggler.c
 * moving a kept job off its straggler's server; plan_alloc.c the
 * allocation by policy; plan_place.c the placement; plan.c the checks,
 * set-up and words of a plan; plan_slots.c, at the bottom, the helpers
 * every part uses. Not installed, not for callers of plan.h.
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
	/* Policy=goodput, an adaptive job: the plan and the job's index
	 * (the nodes it would get depend on the plan's room). */
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
	/* Policy=goodput, per adaptive job (NULL otherwise): workers the
	 * servers it could use hold, fullest first, added up (held[k]: the
	 * k+1 fullest), and its rates by workers (NAN: not asked yet). */
	int **gp_held;
} plan_ctx_t;

/* plan_slots.c: the bottom, used by every other part */
double plan_clock(void);
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

/* plan.c: checks, set-up and words of a plan */
int plan_check(const plan_job_t *jobs, size_t n, const res_vec_t *sf,
	       size_t ns, const plan_params_t *prm, plan_t *out);
int plan_setup(plan_ctx_t *c);
void plan_ctx_free(plan_ctx_t *c);
int plan_fail(plan_t *out, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void plan_reason(plan_decision_t *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* plan_alloc.c */
void plan_alloc_build(plan_ctx_t *c);
/* Allocate, with the plan's policy, the jobs i with in[i] over cap, which
 * is room[0..nroom) added up (the quality units are counted per server);
 * grants[i] answers job i (zeroed, status ALLOC_MIN_UNFIT when !in[i]). */
int plan_alloc(plan_ctx_t *c, const bool *in, res_vec_t cap,
	       const res_vec_t *room, size_t nroom, alloc_grant_t *grants);
/* Is job i allocated by the quality-driven Algorithm 1 in this plan? */
bool plan_is_quality(const plan_ctx_t *c, size_t i);
/* The speed model's first coordinate of job i with ps PS, w workers. */
int plan_speed_p(const plan_ctx_t *c, size_t i, int ps, int workers);
/* Sets every all-reduce job's node_workers from the servers' sizes. */
void plan_node_workers(plan_ctx_t *c);
/* Each capped job's allocator bounds from its cap, and over_cap. */
void plan_cap_bound(plan_ctx_t *c);
/* A speed cache for every all-reduce job (after its speed callback is
 * final): 0 or -ENOMEM (message set). */
int plan_speed_cache(plan_ctx_t *c);

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


/* plan_batch.c: the goodput policy (Policy=goodput, adaptive jobs) */
bool plan_is_goodput(const plan_ctx_t *c, size_t i);
/* Per adaptive job: the room it could use, its speed callback, its
 * remaining progress and size limit. 0 or -ENOMEM (message set). */
int plan_goodput_setup(plan_ctx_t *c);
/* ExploreScaling (plan_explore.c): each all-reduce job's extent, best
 * per-GPU rate and grant cap, after plan_goodput_setup. */
void plan_explore_setup(plan_ctx_t *c);
/* f, the predicted speed or rate of w workers on n nodes, made
 * optimistic beyond the job's extent when it explores. */
double plan_explore_speed(const plan_cb_t *cb, int w, int n, double f);
/* The minimum resize interval for running job i to (ps, w): none for a
 * growth beyond its explored extent (job_model_explore_growth). */
double plan_explore_min_interval(const plan_ctx_t *c, size_t i, int ps,
				 int w);
void plan_goodput_free(plan_ctx_t *c);
/* Nodes adaptive job i would span with w workers (placement-aware). */
int plan_goodput_nodes(const plan_ctx_t *c, size_t i, int w);
/* Remaining seconds of adaptive job i with w workers (its current size:
 * at its current batch; else at the best batch for the nodes). */
double plan_goodput_time(const plan_ctx_t *c, size_t i, int w);
/* After the decisions: the batch of every adaptive START/RESIZE, and a
 * KEEP re-batched when that pays what the change costs (in place: the
 * job's re-batch time; else a restart). */
int plan_batches(plan_ctx_t *c);

/* plan_run.c: the resize threshold of job i going to ps/w. */
double plan_threshold(const plan_ctx_t *c, size_t i, int ps, int w);

/* plan_straggler.c: after the decisions, move the kept jobs that have a
 * straggler to servers without it, on the room the plan leaves. */
int plan_move_stragglers(plan_ctx_t *c);

/* plan_preempt.c: after the decisions (prm->preempt), preemption with
 * aging: waiting jobs in order of least key get their minimum, on free
 * room or on the GPUs of the running job with the most attained service
 * (PLAN_PREEMPT). 0 or -ENOMEM. */
int plan_preempt(plan_ctx_t *c);

#endif

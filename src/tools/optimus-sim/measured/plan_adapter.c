/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/plan_adapter.c - our policies on the measured workloads through the plan
 * itself: the third adapter of plan_run(), beside sched/optimus and
 * sim_apply.c (doc/design/simulator.md, "Our policies on the same jobs").
 *
 * Every round, each active job's record (the plugin's job_model_t: an
 * all-reduce job, its GPUs the workers) is fed what the job reported
 * since the last round (the step time of every configuration it ran in,
 * its steps and epochs through the feed's rules, job/job_feed.h, its
 * gradient statistics), its run is recorded as the plugin records one
 * (sim_decision_started when its GPUs or batch changed; each decision's
 * change by plan_apply, as the plugin's), and the jobs go
 * through plan_interval_prepare() and plan_run() as plan_input_t on 16
 * servers of 4 GPUs. The decisions are carried out on the engine's jobs
 * by the rule both engines follow (px_sim_apply, sim_apply_decision.h):
 * a START/RESIZE on the GPUs of its slots, at its batch (Policy=goodput),
 * a KEEP on its GPUs (a KEEP re-batched in place: its new batch there,
 * for the re-batch cost: the measured jobs say their batch and take a
 * change in place), a WAIT on none. So the gain
 * threshold, the minimum interval, the measured restart cost, shrinking
 * only for a job that would wait, resizability and placement are the
 * plan's code, not restated here.
 *
 *   optimus       Policy=optimus (Eqn. 9)
 *   optimus-rate  Policy=goodput with no adaptive job: the completion-rate
 *                 greedy at the submitted batch
 *   goodput       Policy=goodput, every job adaptive (batch range: the
 *                 artifact's validated range, per-GPU batch as measured,
 *                 at most PX_MAX_ACCUM extra micro-steps)
 *   goodput-nopreempt  the same with Preempt=no
 *
 * Preemption with aging (plan/plan_preempt.c) is on as optimus.conf's
 * default Preempt= for the policy has it (plan_preempt_default: under
 * Policy=goodput, so for optimus-rate and goodput). A PLAN_PREEMPT is
 * applied as the plugin applies it: checkpoint (the measured jobs hold
 * one whenever asked), requeue, wait pending; the GPUs go back at once
 * and the next start pays the restart.
 *   quality       Policy=quality, every job --scheduler=quality; its loss
 *                 is the share of its measured progress left (1 at
 *                 submission), as the replay trainer reports it: the
 *                 truth's exact fraction of work left, an oracle (so
 *                 labelled: pp_oracle)
 *   optimus-oracle  Policy=optimus on records given the truth (an oracle):
 *                 the true step time of every GPU count on the fewest
 *                 nodes, and the true remaining steps every round
 *   drf, fifo     Policy=drf, Policy=fifo, every job at the GPUs it was
 *                 submitted with (min_workers = max_workers)
 *
 * What a job says: at submission epochs= and epoch_steps= as its spec
 * declares them (measured/declared.h: by default its application's epoch
 * count and the dataset over its submitted batch; `experiment pollux
 * --hints` the users' noisy counts or none), kept as the plugin keeps a
 * hint; then its steps and epochs. An adaptive job's epoch is the
 * dataset over its submitted batch (its progress is counted in B0-steps,
 * job_batch.c). With --bench-hints no epoch_steps=: the record learns the
 * epoch's length from the epochs reported (job_model_epoch_marked).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "job/job_feed.h"
#include "job/job_model.h"
#include "models/allreduce_speed.h"
#include "plan/plan.h"
#include "util/errmsg.h"
#include "measured/place.h"
#include "measured/policy.h"
#include "sim_decision.h"
#include "sim_plan.h"


typedef enum { PP_OPTIMUS, PP_RATE, PP_GOODPUT, PP_QUALITY,
	       PP_ORACLE, PP_DRF, PP_FIFO } pp_kind_t;

/* What a policy of ours keeps of a job beside its record (the job's own,
 * px_job_t.core.jm, made when the policy first plans it). */
typedef struct pp_job {
	size_t nobs_fed;
	bool prerun_done;
	/* The run the record knows of: its GPUs and batch, and the batch
	 * changes it took in place. */
	int alloc[PX_GPUS];
	int nalloc;
	double bsz;
	unsigned rebatches;
} pp_job_t;

typedef struct pp {
	pp_kind_t kind;
	/* Preemption with aging as optimus.conf's Preempt=
	 * (sim_plan_conf_t.preempt): its default for the policy (-1), off
	 * (0) for the -nopreempt rows. */
	int preempt;
	px_prerun_mode_t prerun;
	pp_job_t *jobs;
	size_t njobs;
	/* The run it plans: its jobs hold their records
	 * (px_plan_job_model). */
	const px_sim_t *sim;
	/* The last round's plan, decisions[k] for job last_job[k] (tests). */
	plan_t last;
	size_t *last_job;
} pp_t;

/* The plan's policy of each of ours. */
static plan_policy_t pp_policy(pp_kind_t kind)
{
	return kind == PP_QUALITY ? PLAN_QUALITY :
	       kind == PP_RATE || kind == PP_GOODPUT ? PLAN_GOODPUT :
	       kind == PP_DRF ? PLAN_DRF : kind == PP_FIFO ? PLAN_FIFO :
	       PLAN_OPTIMUS;
}

/* The fixed-size policies run every job at the GPUs it was submitted
 * with (min_workers = max_workers), as the synthetic engine's baselines
 * (sim_job.c). */
static bool pp_fixed_size(pp_kind_t kind)
{
	return kind == PP_DRF || kind == PP_FIFO;
}

static bool pp_adaptive(const pp_t *o)
{
	return o->kind == PP_GOODPUT;
}

/* Most GPUs a job of `spec` may use on the cluster of `shape`
 * (px_job_max_replicas' rule before the job exists). */
static int pp_spec_max_replicas(const px_spec_t *spec,
				const px_shape_t *shape)
{
	int m = spec->truth->max_replicas(spec, spec->bsz);
	int gpus = shape->nodes * PX_NODE_GPUS;

	return m < gpus ? m : gpus;
}

/* The global batch a job of `spec` submits under policy `kind`: an
 * adaptive job the one the artifact starts its elastic jobs at
 * (px_app_adaptive_batch), where the workload row's batch is the one its
 * user chose for the GPUs it asked for; with --bench-hints the row's, as
 * bench/pollux_replay.py submits it; every other job its row's. */
static double pp_submitted_batch(pp_kind_t kind, const px_shape_t *shape,
				 const px_spec_t *spec)
{
	return kind == PP_GOODPUT && !shape->bench_hints ?
	       px_app_adaptive_batch(spec->app) : spec->bsz;
}

/* What a job of `spec` says at submission under policy `kind`, and an
 * adaptive job's batch range (*adaptive). */
static void pp_hints(pp_kind_t kind, const px_shape_t *shape,
		     const px_spec_t *spec, optimus_hints_t *h,
		     goodput_limits_t *lim, bool *adaptive)
{
	const px_app_t *a = spec->app;
	double batch = pp_submitted_batch(kind, shape, spec);

	*adaptive = kind == PP_GOODPUT;
	hints_init(h, kind == PP_QUALITY ? HINTS_POLICY_QUALITY :
					   HINTS_POLICY_OPTIMUS);
	h->mode = HINTS_MODE_ALLREDUCE;
	h->min_ps = h->max_ps = 0;
	h->min_workers = 1;
	h->max_workers = (uint32_t)(*adaptive && !shape->bench_hints ?
				    px_app_max_replicas_any_batch(a) :
				    pp_spec_max_replicas(spec, shape));
	if (pp_fixed_size(kind))
		h->min_workers = h->max_workers = (uint32_t)spec->replicas;
	h->worker_res.gpus = 1;
	h->worker_res.cpus = 1;
	h->worker_res.mem_mb = 1;
	h->batch = (uint64_t)batch;
	h->epochs = (uint64_t)spec->declared_epochs;
	if (spec->epoch_steps_hint && h->epochs && !shape->bench_hints)
		h->epoch_steps = (uint64_t)fmax(1.0, round(px_app_epoch_steps(
			a, batch)));
	*lim = (goodput_limits_t){ shape->bench_hints ? spec->bsz :
				   a->init_bsz, a->max_bsz,
				   (int)ceil(a->min_local - 1e-9),
				   (int)floor(a->max_local + 1e-9),
				   PX_MAX_ACCUM };
	/* A batch one GPU cannot hold in its micro-steps is refused at
	 * one worker (hints_validate): its user says the fewest workers
	 * that hold it, as the refusal tells them to. */
	if (*adaptive) {
		optimus_hints_t split = *h;

		split.max_local_batch = (uint64_t)lim->max_local;
		split.max_accum = (uint64_t)lim->max_accum;
		h->min_workers = hints_batch_fewest_workers(&split);
	}
}

static int pp_record_new(pp_t *o, px_sim_t *s, size_t i)
{
	const px_job_t *j = &s->jobs[i];
	optimus_hints_t h;
	goodput_limits_t lim;
	bool adaptive;
	job_model_t *m;
	char err[160];

	pp_hints(o->kind, &s->shape, j->spec, &h, &lim, &adaptive);
	m = job_model_new(j->core.id, 0, &h, (time_t)j->spec->submit);
	if (!m)
		return errmsg_set(s->err, s->errlen, -ENOMEM, "%s: no job "
				  "record", j->spec->name);
	s->jobs[i].core.jm = m;
	if (adaptive) {
		int rc = job_model_batch_limits(m, (double)h.batch, &lim, err,
						sizeof(err));
		if (rc)
			return errmsg_set(s->err, s->errlen, rc, "%s: %s",
					  j->spec->name, err);
	}
	/* Pre-runs for free (an oracle), or the oracle's every size. */
	for (int w = 1; w <= (int)h.max_workers &&
	     (o->prerun == PX_PRERUN_ORACLE || o->kind == PP_ORACLE); w++) {
		bool listed = false;
		int n = allreduce_min_nodes(w, PX_NODE_GPUS);
		for (size_t k = 0; k < 5; k++)
			listed |= px_prerun[k][0] == w;
		double t = (listed || o->kind == PP_ORACLE) ?
			   px_job_true_step(j, w) : -1;
		if (t > 0)
			(void)job_model_speed_sample(m, n, w, 1.0 / t);
	}
	return 0;
}

/*
 * The share of its work the job has left, its loss for quality: what the
 * replay trainer reports on the cluster (examples/replay_trainer.py), the
 * measured progress still to go to its last counted epoch's end. Not a
 * share of steps over an estimate of the steps per epoch: before its first
 * epoch ends that estimate (the dataset over the batch) ignores the
 * batch's efficiency, and drifts far from what the trainer says.
 */
static double pp_share_left(const px_job_t *j)
{
	double goal = j->core.ops->work(j->core.data);

	return goal > 0 ? fmax(0.0, 1.0 - j->core.progress / goal) : 1.0;
}

/*
 * The batch of an adaptive job's run, as it says it in its progress
 * reports (a trainer that takes batch changes in place): a change the
 * plan sent and the engine applied is taken, at the time its re-batch
 * was over, its time the engine's charge; the split the record keeps is
 * the one the job runs: the plan's (engine.c, job_split).
 */
static void pp_rebatched(px_sim_t *s, size_t i, pp_job_t *pj)
{
	const px_job_t *j = &s->jobs[i];
	job_model_t *m = j->core.jm;

	if (!px_job_gpus(j) || m->phase != JM_RUNNING)
		return;
	if (j->core.outcome.rebatches != pj->rebatches &&
	    m->batch.offer.global > 0 &&
	    job_model_rebatch_said(m, (time_t)(m->batch.offer.sent +
					       s->shape.rebatch), j->bsz,
				   s->shape.rebatch) == 1) {
		(void)job_model_batch_run(m, j->bsz == m->batch.submitted ?
					  0 : j->bsz, j->atomic, j->accum);
		pj->bsz = j->bsz;
	}
	pj->rebatches = j->core.outcome.rebatches;
}

/* The gradient estimates job j made since the last round: a report per
 * run of equal ones, standing for them all (`estimates`), as a trainer
 * estimating every few steps may send them. */
static void pp_feed_estimates(px_job_t *j, time_t now)
{
	job_model_t *m = j->core.jm;
	px_estimate_t *e;
	size_t n = px_job_estimates_take(j, &e);

	for (size_t k = 0; k < n; k++) {
		report_t g = { .kind = REPORT_GRADIENTS, .job_id = m->job_id,
			       .received = (double)now };
		job_feed_out_t out;
		long c = e[k].count;

		g.gradients = (report_gradients_t){ e[k].grad_sqr,
			e[k].grad_var, j->spec->app->init_bsz,
			(uint32_t)(c < PROTOCOL_MAX_ESTIMATES ? c :
				   PROTOCOL_MAX_ESTIMATES) };
		(void)job_feed_report(m, &j->core.feed, &g, 0, NULL, &out);
	}
	free(e);
}

/* Feed what job i reported since the last round and record its run. */
static int pp_sync(pp_t *o, px_sim_t *s, size_t i)
{
	px_job_t *j = &s->jobs[i];
	pp_job_t *pj = &o->jobs[i];
	job_model_t *m;
	time_t now = (time_t)s->eng.now;
	int alloc[PX_GPUS], nalloc = px_job_gpu_nodes(j, alloc), rc;

	if (!j->core.jm && (rc = pp_record_new(o, s, i)))
		return rc;
	m = j->core.jm;
	if (pp_adaptive(o) && !s->shape.rebatch_by_restart)
		pp_rebatched(s, i, pj);
	/* A new run: its GPUs or batch changed when the plan was applied;
	 * it began when its restart was over. */
	if (nalloc && (nalloc != pj->nalloc || j->bsz != pj->bsz ||
		       m->phase != JM_RUNNING ||
		       memcmp(alloc, pj->alloc,
			      (size_t)nalloc * sizeof(int)))) {
		/* From when the engine's charge for it ended (px_job_t.
		 * began: one start-cost model), on its nodes: its
		 * hold's slots, a run of GPUs on one node each, as the
		 * engine's truth counts them (job_run). */
		sim_decision_started(m, (time_t)j->began, 0, nalloc,
				     (int)j->core.hold.n);
		if (pp_adaptive(o))
			(void)job_model_batch_run(m, j->bsz ==
						  m->batch.submitted ? 0 :
						  j->bsz, j->atomic,
						  j->accum);
		memcpy(pj->alloc, alloc, (size_t)nalloc * sizeof(int));
		pj->nalloc = nalloc;
		pj->bsz = j->bsz;
	}
	/* The engine's own timing of each configuration the job ran in,
	 * samples as a pre-run's are: not a speed report, which is a claim
	 * its sender makes over the protocol (job_feed_speed). */
	for (; pj->nobs_fed < (size_t)j->nobs; pj->nobs_fed++) {
		const px_obs_t *ob = &j->obs[pj->nobs_fed];
		double t = j->core.ops->iteration_time(j->core.data, ob->step,
						       ob->sync, ob->accum);
		if (o->kind != PP_ORACLE)
			(void)job_model_speed_sample(m, ob->nodes,
						     ob->replicas, 1.0 / t);
		/* With the step's all-reduce part, as the job measures
		 * it (a micro-step without all-reduce is step - sync).
		 * Outside (0, step) it is no measurement: none. */
		bool split = ob->sync > 0 && ob->sync < t;
		if (pp_adaptive(o))
			(void)job_model_batch_sample_sync(m, ob->replicas,
				ob->nodes, ob->atomic, ob->accum, t,
				split ? ob->sync : 0.0);
	}
	pp_feed_estimates(j, now);
	if (o->kind == PP_ORACLE)
		m->hints.steps = (uint64_t)ceil(j->steps +
						px_job_remaining_steps(j));
	if (nalloc || m->reports) {
		/* Its steps and the rate it ran them at since its restart
		 * (the record takes them off the restart it times: the
		 * restart measured is the one the engine charged). Only
		 * quality plans on a loss: the share of work left. A job
		 * that takes batch changes in place says its batch, from
		 * its first report of a run on. */
		rc = job_feed_progress(m, &j->core.feed, &(job_progress_t){
			.received = (double)now, .step = j->steps,
			.loss = o->kind == PP_QUALITY ? pp_share_left(j) : NAN,
			.epoch = j->epoch,
			.batch = nalloc && pp_adaptive(o) &&
				 !s->shape.rebatch_by_restart ? j->bsz : 0.0,
			.rebatch_seconds = -1.0,
			.timed = nalloc ? j->rate : 0.0,
			.sync_seconds = nalloc ? j->sync : 0.0 }, NULL);
		if (rc)
			return errmsg_set(s->err, s->errlen, rc, "%s: report "
					  "refused", j->spec->name);
	}
	return 0;
}

/*
 * Charged pre-runs (measured/policy.h): a job not pre-run yet and holding
 * nothing gets the largest pre-run configuration its limit allows that
 * the plan's placement fits in the free GPUs (px_place_even: the fewest
 * nodes, an even split), and stays out of this plan. 1 if job i was given
 * one (or waits for free GPUs), 0 if it is planned, or -errno.
 */
static int pp_prerun(pp_t *o, px_sim_t *s, size_t i, int *free_,
		     int (*next)[PX_GPUS], int *nnext)
{
	pp_job_t *pj = &o->jobs[i];
	int lim, rc;

	if (o->prerun != PX_PRERUN_CHARGED || pj->prerun_done || nnext[i])
		return 0;
	lim = px_job_max_replicas(&s->jobs[i]);
	for (int c = 4; c >= 0 && !nnext[i]; c--)
		if (px_prerun[c][0] <= lim &&
		    (rc = px_place_even(free_, px_prerun[c][0], next[i],
					&nnext[i])))
			return errmsg_set(s->err, s->errlen, rc, "%s: no "
					  "placement of its pre-run",
					  s->jobs[i].spec->name);
	if (nnext[i]) {
		pj->prerun_done = true;
		s->jobs[i].prerun = true;
	}
	return 1;
}

/*
 * The round's decisions carried out on the jobs by the one rule
 * (px_sim_apply, sim_apply_decision.h), in submission order (the order
 * their start costs queue in): each planned job's decision taken by its
 * record, each charged pre-run placed this round (prerun[i]: its GPUs in
 * next[i]) a first start no record takes. Then next[] says what each
 * active job holds: the engine has nothing left to move.
 */
static int pp_carry(pp_t *o, px_sim_t *s, const size_t *active, size_t n,
		    const size_t *which, size_t njobs, const bool *prerun,
		    int (*next)[PX_GPUS], int *nnext)
{
	px_decision_t *dec = calloc(n + 1, sizeof(*dec));
	plan_decision_t *pre = calloc(n + 1, sizeof(*pre));
	place_slot_t (*slots)[PX_GPUS] = calloc(n + 1, sizeof(*slots));
	size_t nd = 0, q = 0;
	int rc = -ENOMEM;

	if (!dec || !pre || !slots) {
		errmsg_set(s->err, s->errlen, rc, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = active[k];
		/* A pre-run job holds nothing: its GPUs are a start. */
		if (prerun[k] && px_move_decision(s, i, next[i], nnext[i],
						  &pre[k], slots[k]))
			dec[nd++] = (px_decision_t){ i, &pre[k], NULL };
		else if (q < njobs && which[q] == i) {
			dec[nd++] = (px_decision_t){ i, &o->last.decisions[q],
						     s->jobs[i].core.jm };
			q++;
		}
	}
	rc = px_sim_apply(s, dec, nd);
	for (size_t k = 0; k < n; k++)
		nnext[active[k]] = px_job_gpu_nodes(&s->jobs[active[k]],
						    next[active[k]]);
out:
	free(dec);
	free(pre);
	free(slots);
	return rc;
}

static int pp_plan(px_policy_t *p, px_sim_t *s, const size_t *active,
		   size_t n, int (*next)[PX_GPUS], int *nnext)
{
	pp_t *o = p->state;
	plan_input_t *in = calloc(n + 1, sizeof(*in));
	size_t *which = calloc(n + 1, sizeof(*which));
	size_t *idx = calloc(n + 1, sizeof(*idx));
	bool *prerun = calloc(n + 1, sizeof(*prerun));
	res_vec_t room[PX_NODES];
	int free_[PX_NODES];
	plan_params_t conf;
	size_t nin = 0, njobs;
	int rc = 0;

	o->sim = s;
	if (!o->jobs) {
		o->jobs = calloc(s->eng.njobs, sizeof(*o->jobs));
		o->njobs = s->eng.njobs;
	}
	if (!in || !which || !idx || !prerun || !o->jobs) {
		rc = errmsg_set(s->err, s->errlen, -ENOMEM, "out of memory");
		goto out;
	}
	px_sim_room(s, room);
	px_place_free(s, next, nnext, free_);
	for (size_t k = 0; k < n; k++)
		if ((rc = pp_sync(o, s, active[k])))
			goto out;
	for (size_t k = 0; k < n; k++) {
		size_t i = active[k];
		if ((rc = pp_prerun(o, s, i, free_, next, nnext)) < 0)
			goto out;
		if (rc) {
			rc = 0;
			prerun[k] = true;
			/* Its pre-run GPUs are nobody else's this round. */
			for (int g = 0; g < nnext[i]; g++)
				room[next[i][g]] = res_sub(room[next[i][g]],
					res_make(1, 1, 1));
			continue;
		}
		/* An active job that holds no GPUs is queued. */
		sim_plan_input_job(&in[nin], &s->jobs[i].core, true);
		idx[nin++] = i;
	}
	sim_plan_params(&conf, &(sim_plan_conf_t){
		.policy = pp_policy(o->kind), .interval = s->shape.round,
		.restart_cost = s->shape.restart,
		.min_resize_interval = s->shape.min_resize,
		.preempt = o->preempt });
	conf.rebatch_cost = s->shape.rebatch;
	conf.explore_scaling = s->shape.explore_scaling;
	conf.goodput_objective = s->shape.goodput_objective;
	plan_free(&o->last);
	if ((rc = sim_plan_run(&(sim_plan_in_t){ .in = in, .n = nin,
			.now = (time_t)s->eng.now, .room = room,
			.nservers = PX_NODES, .conf = &conf }, &o->last,
			which, &njobs, NULL))) {
		errmsg_set(s->err, s->errlen, rc, "plan: %s", o->last.err);
		goto out;
	}
	for (size_t k = 0; k < njobs; k++)
		which[k] = idx[which[k]];
	if ((rc = pp_carry(o, s, active, n, which, njobs, prerun, next,
			   nnext)))
		goto out;
	free(o->last_job);
	o->last_job = which;
	which = NULL;
out:
	free(in);
	free(which);
	free(idx);
	free(prerun);
	return rc;
}

static void pp_free(px_policy_t *p)
{
	pp_t *o = p->state;

	if (o) {
		free(o->jobs);
		plan_free(&o->last);
		free(o->last_job);
	}
	free(o);
	free(p);
}

/* What a policy of ours reads from the truth for free, said beside its
 * figures (NULL: nothing). quality's loss is the exact share of work left
 * (pp_share_left), which no job knows while it runs: an oracle. */
static const char *pp_oracle(const pp_t *o)
{
	if (o->kind == PP_ORACLE)
		return "true step times and remaining steps";
	if (o->kind == PP_QUALITY)
		return o->prerun == PX_PRERUN_ORACLE ? "its loss, the true "
		       "share of its work left; true step times of the "
		       "pre-run, before the job runs" :
		       "its loss, the true share of its work left";
	return o->prerun == PX_PRERUN_ORACLE ? "true step times of the "
	       "pre-run, before the job runs" : NULL;
}

px_policy_t *px_plan_new(const char *name, px_prerun_mode_t prerun)
{
	static const struct {
		const char *name, *label[3];	/* by px_prerun_mode_t */
		pp_kind_t kind;
		bool no_preempt;
	} k[] = {
		{ "optimus", { "optimus", "optimus+charged-prerun",
			       "optimus+oracle-prerun" }, PP_OPTIMUS, false },
		{ "optimus-rate", { "optimus-rate",
				    "optimus-rate+charged-prerun",
				    "optimus-rate+oracle-prerun" }, PP_RATE, false },
		{ "goodput", { "goodput", "goodput+charged-prerun",
			       "goodput+oracle-prerun" }, PP_GOODPUT, false },
		{ "goodput-nopreempt", { "goodput-nopreempt",
					 "goodput-nopreempt+charged-prerun",
					 "goodput-nopreempt+oracle-prerun" },
		  PP_GOODPUT, true },
		{ "quality", { "quality", "quality+charged-prerun",
			       "quality+oracle-prerun" }, PP_QUALITY, false },
		{ "optimus-oracle", { "optimus-oracle", "optimus-oracle",
				      "optimus-oracle" }, PP_ORACLE, false },
		{ "drf", { "drf", "drf", "drf" }, PP_DRF, false },
		{ "fifo", { "fifo", "fifo", "fifo" }, PP_FIFO, false },
	};

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		if (strcmp(name, k[i].name))
			continue;
		px_policy_t *p = calloc(1, sizeof(*p));
		pp_t *o = calloc(1, sizeof(*o));
		if (!p || !o) {
			free(p);
			free(o);
			return NULL;
		}
		o->kind = k[i].kind;
		o->preempt = k[i].no_preempt ? 0 : -1;
		/* Nothing to fit: the oracle and the fixed sizes take no
		 * pre-run. */
		o->prerun = o->kind == PP_ORACLE || pp_fixed_size(o->kind) ?
			    PX_PRERUN_NONE : prerun;
		*p = (px_policy_t){ k[i].label[o->prerun], pp_plan, pp_free, o,
				    pp_oracle(o) };
		return p;
	}
	return NULL;
}

const job_model_t *px_plan_job_model(const px_policy_t *p, size_t job)
{
	const pp_t *o = p && p->plan == pp_plan ? p->state : NULL;

	return o && o->sim && job < o->sim->eng.njobs ?
	       o->sim->jobs[job].core.jm : NULL;
}

const plan_t *px_plan_last(const px_policy_t *p, const size_t **job)
{
	const pp_t *o = p && p->plan == pp_plan ? p->state : NULL;

	if (!o || !o->last_job)
		return NULL;
	*job = o->last_job;
	return &o->last;
}

int px_plan_hints(const char *policy, const px_shape_t *shape,
		  const px_spec_t *spec, char *buf, size_t len, char *err,
		  size_t errlen)
{
	px_policy_t *p = px_plan_new(policy, PX_PRERUN_NONE);
	optimus_hints_t h;
	goodput_limits_t lim;
	bool adaptive;
	int rc;

	if (!p)
		return -EINVAL;
	pp_hints(((pp_t *)p->state)->kind, shape, spec, &h, &lim,
		 &adaptive);
	pp_free(p);
	/* A fixed batch is the trainer's own: said as batch=, the plugin
	 * would split it for the trainer (OPTIMUS_LOCAL_BATCH), where the
	 * engine's jobs split theirs (px_app_split_job). */
	if (!adaptive)
		h.batch = 0;
	/* The batch range as hints say it (hints_batch_limits reads it
	 * back); the per-GPU floor is the truth's, which no hint says. A
	 * range of one batch is no choice to the plugin (hints_validate
	 * refuses it): the job says its batch only. */
	if (adaptive && lim.max_batch > lim.min_batch) {
		h.min_batch = (uint64_t)lim.min_batch;
		h.max_batch = (uint64_t)lim.max_batch;
		h.max_local_batch = (uint64_t)lim.max_local;
		h.max_accum = (uint64_t)lim.max_accum;
		h.adaptive_batch = true;
	}
	if ((rc = hints_validate(&h, err, errlen)))
		return rc == -EINVAL ? -ERANGE : rc;
	rc = hints_format(&h, buf, len);
	return rc < 0 ? errmsg_set(err, errlen, rc, "hints too long") : 0;
}

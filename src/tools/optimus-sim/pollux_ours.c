/*
 * pollux_ours.c - this project's policies on the measured workloads,
 * through the core's allocators (alloc.h) on all-reduce jobs.
 *
 * An all-reduce job has workers only (alloc_job_t.no_ps): its GPUs are
 * the workers, and it grows by bundles of workers (alloc/optimus.c).
 * Placement puts a job on the fewest nodes (px_place_fewest), which the
 * speeds the allocators compare assume and the measured step times
 * reward.
 *
 * optimus: Eqn. 9 on what the job reports (the plugin's job record,
 * job_model_t, fed with the step times of the configurations the job ran
 * in; remaining steps from its epochs and the user's epoch count);
 * optimus-rate: the same records and greedy maximising the completion
 * rate (alloc/rate.c) instead of minimising the sum of remaining times;
 * optimus-oracle: Eqn. 9 on the true step times and remaining steps;
 * quality: Algorithm 1 on the same records. All keep the plugin's stability rule: a running job
 * grows only when its predicted remaining time drops by the plan's
 * threshold after the restart, and at most once per minimum interval;
 * shrinks (room for others) always go through.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "models/allreduce_speed.h"
#include "job/job_model.h"
#include "plan/plan.h"
#include "util/errmsg.h"
#include "pollux_goodput.h"
#include "pollux_policy.h"


typedef enum { OURS_OPTIMUS, OURS_RATE, OURS_ORACLE, OURS_QUALITY, OURS_DRF,
	       OURS_FIFO, OURS_GOODPUT } ours_kind_t;

typedef struct ours_job {
	job_model_t *model;	/* the plugin's record; NULL: not yet */
	bool prerun_done;	/* charged: its pre-run was granted */
	/* Its predictions of this plan by GPUs (NAN: not asked yet): the
	 * allocators ask the same ones many times, and a prediction from the
	 * prior scales it through every sample. */
	double speed[PX_GPUS + 1];
	size_t nobs_fed;	/* job observations added to the model */
	double last_resize;	/* simulated time, < 0: never */
	px_goodput_job_t gp;	/* goodput: efficiency and step-time fit */
	bool gp_ready;
} ours_job_t;

typedef struct ours {
	ours_kind_t kind;
	/*
	 * The pre-run (px_prerun) of each job: none (the default: a job's
	 * model knows only the configurations it ran in); charged (its first
	 * allocation is the largest pre-run configuration the free GPUs and
	 * its limit allow, run as a pre-run by the engine, before the
	 * allocator sizes it); oracle (the true step times of every pre-run
	 * configuration, before it runs and at no cost: labelled so).
	 */
	px_prerun_mode_t prerun;
	size_t njobs;
	ours_job_t *jobs;
	const px_sim_t *sim;
	/* goodput: free GPUs per node when the plan starts (every active
	 * job's current GPUs taken off): where a grant would land. */
	int free0[PX_NODES];
} ours_t;

typedef struct speed_ctx {
	ours_t *o;
	size_t i;
} speed_ctx_t;

static int nodes_for(int w)
{
	return allreduce_min_nodes(w, PX_NODE_GPUS);
}

/* The job's measured steps per second at w GPUs (packed), or 0. */
static double true_speed(const px_job_t *j, int w)
{
	double t = px_job_true_step(j, w);

	return t > 0 ? 1.0 / t : 0.0;
}

/* The plugin's record of an all-reduce job of this batch, GPUs as
 * workers, at most the job's limit. */
static job_model_t *fitted_new(const px_job_t *j, size_t i)
{
	optimus_hints_t h;

	hints_init(&h, HINTS_POLICY_OPTIMUS);
	h.mode = HINTS_MODE_ALLREDUCE;
	h.min_ps = h.max_ps = 0;
	h.min_workers = 1;
	h.max_workers = (uint32_t)px_job_max_replicas(j);
	h.worker_res.gpus = 1;
	h.batch = (uint64_t)j->spec->bsz;
	return job_model_new((uint32_t)i, 0, &h, (time_t)j->spec->submit);
}

/*
 * Feed what the job reported (every configuration it ran in: the step
 * time its own steps took there, accumulation included) to its model and
 * refit. Predictions are the plugin's (job_model_speed): the job's own
 * fit once its samples determine it, before that the prior shape scaled
 * through the samples it has, and before its first run the prior alone.
 */
static int fitted_update(ours_t *o, size_t i)
{
	const px_job_t *j = &o->sim->jobs[i];
	ours_job_t *oj = &o->jobs[i];

	if (!oj->model) {
		if (!(oj->model = fitted_new(j, i)))
			return errmsg_set(o->sim->err, o->sim->errlen, -ENOMEM,
					  "%s: no job record", j->spec->name);
		for (size_t k = 0; o->prerun == PX_PRERUN_ORACLE && k < 5;
		     k++)
			if (px_prerun[k][0] <= px_job_max_replicas(j)) {
				double f = true_speed(j, px_prerun[k][0]);
				if (f > 0)
					(void)job_model_speed_sample(
						oj->model, px_prerun[k][1],
						px_prerun[k][0], f);
			}
	}
	for (; oj->nobs_fed < (size_t)j->nobs; oj->nobs_fed++) {
		const px_obs_t *ob = &j->obs[oj->nobs_fed];
		double t = px_app_iteration_time(ob->step, ob->sync,
						  ob->accum);
		(void)job_model_speed_sample(oj->model, ob->nodes,
					     ob->replicas, 1.0 / t);
	}
	job_model_refit(oj->model);
	if (o->kind == OURS_GOODPUT) {
		int rc = oj->gp_ready ? 0 : px_goodput_init(&oj->gp, j);
		oj->gp_ready = !rc;
		if (!rc)
			rc = px_goodput_update(&oj->gp, j);
		if (rc)
			return errmsg_set(o->sim->err, o->sim->errlen, rc,
					  "%s: goodput model", j->spec->name);
	}
	for (int w = 0; w <= PX_GPUS; w++)
		oj->speed[w] = NAN;
	return 0;
}

/* Distinct nodes of an allocation. */
static int alloc_nodes(const int *alloc, int n)
{
	bool seen[PX_NODES] = { false };
	int k = 0;

	for (int g = 0; g < n; g++)
		if (!seen[alloc[g]]) {
			seen[alloc[g]] = true;
			k++;
		}
	return k;
}

/*
 * goodput's placement-aware grant: the nodes job i would really span with
 * w GPUs. Its current allocation if w is its size; else where the
 * placement (px_place_fewest) would put w GPUs among the free ones and
 * its own when the plan starts; the fewest nodes if they are not free
 * (others would have to shrink first, and where is not known yet).
 */
static int goodput_nodes(const ours_t *o, size_t i, int w)
{
	const px_job_t *j = &o->sim->jobs[i];
	int free_[PX_NODES], got[PX_GPUS], n = 0;

	if (w == j->nalloc)
		return alloc_nodes(j->alloc, j->nalloc);
	memcpy(free_, o->free0, sizeof(free_));
	for (int g = 0; g < j->nalloc; g++)
		free_[j->alloc[g]]++;
	px_place_fewest(free_, w, got, &n);
	return n == w ? alloc_nodes(got, n) : nodes_for(w);
}

/*
 * goodput: B0-steps of progress per second at w GPUs on the nodes it
 * would span (goodput_nodes), at the best batch for them once the job's
 * own step-time fit exists; before, the plugin's record at its batch
 * times its efficiency gain.
 */
static double goodput_rate(const ours_t *o, size_t i, int w)
{
	const ours_job_t *oj = &o->jobs[i];
	const px_job_t *j = &o->sim->jobs[i];
	int n = w >= 1 && w <= PX_GPUS ? goodput_nodes(o, i, w) : nodes_for(w);
	goodput_choice_t c;

	if (oj->gp.fitted)
		return px_goodput_best(&oj->gp, w, n, &c) ? 0.0 :
		       c.goodput / oj->gp.eff.init_batch;
	return job_model_speed(oj->model, NULL, n, w) *
	       efficiency_gain(&oj->gp.eff, j->bsz);
}

static double ours_predict(ours_t *o, size_t i, int w)
{
	const ours_job_t *oj = &o->jobs[i];

	if (o->kind == OURS_GOODPUT)
		return goodput_rate(o, i, w);
	return job_model_speed(oj->model, NULL, nodes_for(w), w);
}

static double ours_speed(void *ctx, int p, int w)
{
	speed_ctx_t *c = ctx;
	const px_job_t *j = &c->o->sim->jobs[c->i];

	(void)p;
	if (c->o->kind == OURS_ORACLE)
		return true_speed(j, w);
	ours_job_t *oj = &c->o->jobs[c->i];
	if (w < 1 || w > PX_GPUS)
		return ours_predict(c->o, c->i, w);
	if (isnan(oj->speed[w]))
		oj->speed[w] = ours_predict(c->o, c->i, w);
	return oj->speed[w];
}

/*
 * Steps left, as the job reports them: the user's epoch count (the
 * training script's), and steps per epoch from the epochs it ran, or
 * before the first one, its dataset over its batch. A job past its
 * estimate keeps a twentieth of an epoch left, never none.
 */
static double fitted_remaining(const px_job_t *j)
{
	const px_app_t *a = j->spec->app;
	double per_epoch = j->epoch > 0 ? j->steps / j->epoch :
			   px_app_progress(a, 1) * a->init_bsz / j->spec->bsz;
	double left = per_epoch * j->spec->epochs - j->steps;

	return fmax(left, 0.05 * per_epoch);
}

/*
 * goodput: progress left in B0-steps (the unit of its rate), from the
 * user's epoch count and the dataset over B0, less the progress the job
 * counted from its own statistics; at least a twentieth of an epoch.
 */
static double goodput_remaining(const px_job_t *j)
{
	const px_app_t *a = j->spec->app;
	double per_epoch = px_app_progress(a, 1);

	return fmax(per_epoch * j->spec->epochs - j->progress,
		    0.05 * per_epoch);
}

static double remaining(const ours_t *o, const px_job_t *j)
{
	return o->kind == OURS_ORACLE ? px_job_remaining_steps(j) :
	       o->kind == OURS_GOODPUT ? goodput_remaining(j) :
					 fitted_remaining(j);
}

/* Quality: the share of its work a job has left after one more interval
 * with `units` GPUs (its "loss", 1 at submission, 0 when done). */
static double ours_loss_after(void *ctx, int units)
{
	speed_ctx_t *c = ctx;
	const px_job_t *j = &c->o->sim->jobs[c->i];
	double total = j->steps + fitted_remaining(j);
	double f = units > 0 ? ours_speed(ctx, 1, units) : 0.0;

	/* The horizon: progress over the next plan interval. */
	return fmax(0.0, (total - j->steps - f * c->o->sim->shape.round) /
			 total);
}

/* Fixed at the submitted size: min = max = what the user asked for. */
static bool fixed_size(ours_kind_t k)
{
	return k == OURS_DRF || k == OURS_FIFO;
}

/* Models fitted from what the jobs report. */
static bool fitted(ours_kind_t k)
{
	return k == OURS_OPTIMUS || k == OURS_RATE || k == OURS_QUALITY ||
	       k == OURS_GOODPUT;
}

static void job_for_alloc(ours_t *o, size_t i, speed_ctx_t *ctx, int pin,
			  alloc_job_t *aj)
{
	const px_job_t *j = &o->sim->jobs[i];

	memset(aj, 0, sizeof(*aj));
	aj->id = (uint32_t)i;
	aj->speed = ours_speed;
	aj->speed_ctx = ctx;
	aj->remaining_steps = remaining(o, j);
	aj->no_ps = true;
	aj->ps_demand = res_make(0, 0, 0);
	aj->worker_demand = res_make(0, 0, 1);
	aj->min_workers = 1;
	aj->max_workers = px_job_max_replicas(j);
	/* Its own fit lets it choose its batch, and so more GPUs. */
	if (o->kind == OURS_GOODPUT && o->jobs[i].gp.fitted)
		aj->max_workers = px_goodput_max_replicas(j);
	if (fixed_size(o->kind))
		aj->min_workers = aj->max_workers = aj->req_workers =
			j->spec->replicas;
	if (pin > 0)
		aj->min_workers = aj->max_workers = pin;
	/* Optimus damps jobs whose model rests on pre-runs only. */
	aj->early_stage = (o->kind == OURS_OPTIMUS || o->kind == OURS_RATE ||
			   o->kind == OURS_GOODPUT) && j->epoch == 0;
	aj->loss_after = ours_loss_after;
	aj->loss_ctx = ctx;
	aj->max_units = aj->max_workers;
}

/* The plugin's rule (plan.h defaults): grow only for a large enough
 * predicted gain after the restart, at most once per interval. */
static bool may_grow(ours_t *o, size_t i, int cur, int want,
		     const alloc_job_t *aj)
{
	const ours_job_t *oj = &o->jobs[i];
	double now = o->sim->now;
	double t_now = alloc_jct(aj, 1, cur), t_new = alloc_jct(aj, 1, want);
	double thr = want >= PLAN_LARGE_TASKS_DEFAULT ?
			     PLAN_RESIZE_THRESHOLD_LARGE_DEFAULT :
			     PLAN_RESIZE_THRESHOLD_DEFAULT;

	if (oj->last_resize >= 0 &&
	    now - oj->last_resize < o->sim->shape.min_resize)
		return false;
	return isfinite(t_now) &&
	       (t_now - t_new - o->sim->shape.restart) / t_now >= thr;
}

static int run_alloc(ours_t *o, px_sim_t *s, const size_t *active, size_t n,
		     int gpus, const int *pin, alloc_job_t *aj,
		     speed_ctx_t *ctx, int *want)
{
	alloc_params_t prm;
	alloc_result_t res;
	int rc;

	for (size_t k = 0; k < n; k++) {
		ctx[k] = (speed_ctx_t){ o, active[k] };
		job_for_alloc(o, active[k], &ctx[k], pin[k], &aj[k]);
	}
	alloc_params_init(&prm, res_make(1e6, 0, gpus));
	prm.total_units = gpus;
	memset(&res, 0, sizeof(res));
	switch (o->kind) {
	case OURS_OPTIMUS:
	case OURS_ORACLE:
		rc = alloc_optimus_run(aj, n, &prm, &res);
		break;
	case OURS_RATE:
	case OURS_GOODPUT:
		rc = alloc_rate_run(aj, n, &prm, &res);
		break;
	case OURS_QUALITY:
		rc = alloc_quality_run(aj, n, &prm, &res);
		break;
	case OURS_DRF:
		rc = alloc_drf_run(aj, n, &prm, &res);
		break;
	default:
		rc = alloc_fifo_run(aj, n, &prm, &res);
		break;
	}
	if (rc) {
		errmsg_set(s->err, s->errlen, rc, "allocator: %s", res.err);
	} else {
		for (size_t k = 0; k < n; k++) {
			const alloc_grant_t *g = &res.grants[k];
			want[k] = g->status != ALLOC_OK ? 0 :
				  o->kind == OURS_QUALITY ? g->units :
							    g->workers;
		}
	}
	alloc_result_free(&res);
	return rc;
}

/*
 * Charged pre-runs: in submission order, each job not yet pre-run and not
 * running gets the largest pre-run configuration that its limit and the
 * GPUs nobody holds allow (none free: it waits), and leaves the
 * allocator. act[] is active[] with those jobs moved to the end, the
 * others in their order; want[] set for them. Returns how many remain for
 * the allocator and, in *taken, the GPUs the pre-runs take.
 */
static size_t prerun_grant(ours_t *o, px_sim_t *s, const size_t *active,
			   size_t n, const int *nnext, size_t *act,
			   int *want, int *taken)
{
	int free_ = px_sim_gpus(s);
	size_t na = 0, nt = n;

	*taken = 0;
	for (size_t k = 0; k < n; k++)
		free_ -= nnext[active[k]];
	for (size_t k = 0; k < n; k++) {
		size_t i = active[k];
		if (o->prerun != PX_PRERUN_CHARGED || o->jobs[i].prerun_done ||
		    nnext[i] > 0) {
			act[na++] = i;
			continue;
		}
		int g = 0, lim = px_job_max_replicas(&s->jobs[i]);
		for (size_t c = 0; c < 5; c++)
			if (px_prerun[c][0] <= lim && px_prerun[c][0] <= free_)
				g = px_prerun[c][0];
		act[--nt] = i;
		want[nt] = g;
		free_ -= g;
		*taken += g;
		if (g) {
			o->jobs[i].prerun_done = true;
			s->jobs[i].prerun = true;
		}
	}
	/* The tail was filled from the end: back to submission order. */
	for (size_t a = na, b = n; a + 1 < b; a++) {
		size_t t = act[a];
		int w = want[a];
		b--;
		act[a] = act[b];
		act[b] = t;
		want[a] = want[b];
		want[b] = w;
	}
	return na;
}

/*
 * goodput's re-batch of a kept allocation: worth its restart by the
 * plugin's rule (as may_grow: the predicted remaining time drops by the
 * plan's threshold after the restart, at most once per minimum interval).
 */
static bool goodput_rebatch(ours_t *o, size_t i, const goodput_choice_t *c)
{
	const px_job_t *j = &o->sim->jobs[i];
	ours_job_t *oj = &o->jobs[i];
	goodput_choice_t now;
	int n = alloc_nodes(j->alloc, j->nalloc);

	if ((oj->last_resize >= 0 && o->sim->now - oj->last_resize <
	     o->sim->shape.min_resize) || c->batch == j->bsz ||
	    goodput_eval(&oj->gp.speed, &oj->gp.eff, j->nalloc, n, j->atomic,
			 j->accum, &now) || !(now.goodput > 0))
		return false;
	double left = goodput_remaining(j);
	double t_now = left / now.goodput, t_new = left / c->goodput;
	double thr = j->nalloc >= PLAN_LARGE_TASKS_DEFAULT ?
			     PLAN_RESIZE_THRESHOLD_LARGE_DEFAULT :
			     PLAN_RESIZE_THRESHOLD_DEFAULT;
	return (t_now - t_new - o->sim->shape.restart) / t_now >= thr;
}

/*
 * goodput: each job with its own fit runs its next allocation at the best
 * batch for the nodes it was really placed on; a kept allocation changes
 * its batch (a restart, applied by the engine) only when goodput_rebatch
 * says it is worth it.
 */
static void goodput_batches(ours_t *o, px_sim_t *s, const size_t *active,
			    size_t n, int (*next)[PX_GPUS], const int *nnext)
{
	for (size_t k = 0; k < n; k++) {
		size_t i = active[k];
		px_job_t *j = &s->jobs[i];
		goodput_choice_t c;
		bool kept = nnext[i] == j->nalloc &&
			    !memcmp(next[i], j->alloc,
				    (size_t)nnext[i] * sizeof(int));
		j->next_bsz = 0;
		if (nnext[i] == 0 || !o->jobs[i].gp.fitted ||
		    px_goodput_best(&o->jobs[i].gp, nnext[i],
				    alloc_nodes(next[i], nnext[i]), &c))
			continue;
		if (!kept) {
			j->next_bsz = c.batch;
		} else if (goodput_rebatch(o, i, &c)) {
			j->next_bsz = c.batch;
			o->jobs[i].last_resize = s->now;
		}
	}
}

static int ours_plan(px_policy_t *p, px_sim_t *s, const size_t *active,
		     size_t n, int (*next)[PX_GPUS], int *nnext)
{
	ours_t *o = p->state;
	alloc_job_t *aj = calloc(n, sizeof(*aj));
	speed_ctx_t *ctx = calloc(n, sizeof(*ctx));
	int *want = calloc(n, sizeof(int)), rc = 0, taken = 0;
	int *pin = calloc(n, sizeof(int));
	size_t *order = calloc(n, sizeof(size_t));
	size_t *act = calloc(n, sizeof(size_t)), na = n;

	if (!o->jobs) {
		o->jobs = calloc(s->njobs, sizeof(*o->jobs));
		o->njobs = s->njobs;
		for (size_t i = 0; o->jobs && i < s->njobs; i++)
			o->jobs[i].last_resize = -1;
	}
	o->sim = s;
	if (!aj || !ctx || !want || !pin || !order || !act || !o->jobs) {
		rc = -ENOMEM;
		goto out;
	}
	for (int k = 0; k < PX_NODES; k++)
		o->free0[k] = k < s->shape.nodes ? PX_NODE_GPUS : 0;
	for (size_t k = 0; k < n; k++)
		for (int g = 0; g < nnext[active[k]]; g++)
			o->free0[next[active[k]][g]]--;
	for (size_t k = 0; k < n && fitted(o->kind); k++)
		if ((rc = fitted_update(o, active[k])))
			goto out;
	if (fitted(o->kind))
		na = prerun_grant(o, s, active, n, nnext, act, want, &taken);
	else
		memcpy(act, active, n * sizeof(*act));
	/*
	 * A job the stability rule keeps from growing is pinned at its size
	 * and the allocator runs again, so that the GPUs it would have taken
	 * go to the next best use instead of idling. Each pass pins at least
	 * one more job, so this ends.
	 */
	for (bool again = na > 0; again;) {
		if ((rc = run_alloc(o, s, act, na, px_sim_gpus(s) - taken, pin, aj,
				    ctx, want)))
			goto out;
		again = false;
		for (size_t k = 0; k < na; k++) {
			int cur = nnext[act[k]];
			if (cur > 0 && want[k] > cur && !pin[k] &&
			    !fixed_size(o->kind) &&
			    !may_grow(o, act[k], cur, want[k], &aj[k])) {
				pin[k] = cur;
				again = true;
			}
		}
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = act[k];
		int cur = nnext[i];
		if (want[k] != cur) {
			nnext[i] = 0;
			if (cur > 0)
				o->jobs[i].last_resize = s->now;
		}
	}
	/* Largest first, each on the fewest nodes (the speeds it was
	 * allocated by assume so). */
	px_order_by(want, n, true, order);
	px_place_in_order(s, act, order, n, want, next, nnext,
			  px_place_fewest);
	if (o->kind == OURS_GOODPUT)
		goodput_batches(o, s, active, n, next, nnext);
out:
	free(aj);
	free(ctx);
	free(want);
	free(pin);
	free(order);
	free(act);
	return rc;
}

static void ours_free(px_policy_t *p)
{
	ours_t *o = p->state;

	for (size_t i = 0; o && o->jobs && i < o->njobs; i++) {
		job_model_free(o->jobs[i].model);
		if (o->jobs[i].gp_ready)
			px_goodput_clear(&o->jobs[i].gp);
	}
	if (o)
		free(o->jobs);
	free(o);
	free(p);
}

px_policy_t *px_ours_new(const char *name, px_prerun_mode_t prerun)
{
	/* A policy given a pre-run says which in its label. */
	static const struct {
		const char *name, *label[3];	/* by px_prerun_mode_t */
		ours_kind_t kind;
	} k[] = {
		{ "optimus", { "optimus", "optimus+charged-prerun",
			       "optimus+oracle-prerun" }, OURS_OPTIMUS },
		{ "optimus-rate", { "optimus-rate",
				    "optimus-rate+charged-prerun",
				    "optimus-rate+oracle-prerun" }, OURS_RATE },
		{ "optimus-oracle", { NULL }, OURS_ORACLE },
		{ "quality", { "quality", "quality+charged-prerun",
			       "quality+oracle-prerun" }, OURS_QUALITY },
		{ "drf", { NULL }, OURS_DRF }, { "fifo", { NULL }, OURS_FIFO },
		{ "goodput", { "goodput", "goodput+charged-prerun",
			       "goodput+oracle-prerun" }, OURS_GOODPUT },
	};
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		if (strcmp(name, k[i].name))
			continue;
		px_policy_t *p = calloc(1, sizeof(*p));
		ours_t *o = calloc(1, sizeof(*o));
		if (!p || !o) {
			free(p);
			free(o);
			return NULL;
		}
		o->kind = k[i].kind;
		o->prerun = fitted(o->kind) ? prerun : PX_PRERUN_NONE;
		*p = (px_policy_t){ o->prerun ? k[i].label[o->prerun] :
				    k[i].name, ours_plan, ours_free, o,
				    o->kind == OURS_ORACLE ?
				    "true step times and remaining steps" :
				    o->prerun == PX_PRERUN_ORACLE ? "true step "
				    "times of the pre-run, before the job runs" :
				    NULL };
		return p;
	}
	return NULL;
}

const job_model_t *px_ours_job_model(const px_policy_t *p, size_t job)
{
	const ours_t *o = p && p->plan == ours_plan ? p->state : NULL;

	return o && o->jobs && job < o->njobs ? o->jobs[job].model : NULL;
}

const char *const px_policy_names[] = {
	"peer-optimus-oracle", "tiresias", "optimus", "optimus-rate",
	"goodput", "optimus-oracle", "quality", "drf", "fifo", "slurm-backfill",
	"first-fit",
};
const size_t px_policy_count = sizeof(px_policy_names) /
			       sizeof(px_policy_names[0]);

px_policy_t *px_policy_new(const char *name, px_prerun_mode_t prerun)
{
	px_policy_t *p;

	if (!strcmp(name, "peer-optimus-oracle"))
		return px_peer_optimus_new();
	if (!strcmp(name, "tiresias"))
		return px_tiresias_new();
	if ((p = px_backfill_new(name)))
		return p;
	return px_ours_new(name, prerun);
}

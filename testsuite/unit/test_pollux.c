/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * test_pollux.c - optimus-sim on the measured workloads: the
 * CSV and workload readers' errors, the measured step times and their
 * interpolation, the peer's two baselines against their published
 * average JCTs on workload 6 (within 5%), that a fitted policy knows only
 * the configurations its jobs ran in, that goodput chooses
 * batches within the validated range, that slurm-backfill
 * never lets a later job delay the reservation of a blocked one, and a
 * start's cost against the starts queued with it.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measured/declared.h"
#include "measured/policy.h"
#include "measured/csv.h"
#include "sim_start_cost.h"
#include "check_run.h"
#include "pollux_fixture.h"

static const char *tmp_file(const char *text)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/test_pollux_XXXXXX");
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	ck_assert(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	return path;
}

START_TEST(test_csv_errors)
{
	static const struct { const char *text, *want; } bad[] = {
		{ "", "empty file" },
		{ "a,b\n1,2,3\n", "3 fields, the header has 2" },
		{ "a,b\n1,x\n", "column 'b': expected a number" },
		{ "a,b\n1,2\n", "no column 'c'" },
	};
	char err[512];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		px_csv_t t;
		const char *p = tmp_file(bad[i].text);
		int rc = px_csv_read(p, &t, err, sizeof(err));
		if (!rc) {
			int c = px_csv_col(&t, i == 3 ? "c" : "b", err,
					   sizeof(err));
			double v;
			rc = c < 0 ? c : px_csv_num(&t, 0, c, 0, 10, &v, err,
						    sizeof(err));
			px_csv_free(&t);
		}
		unlink(p);
		ck_assert_int_ne(rc, 0);
		ck_assert_msg(strstr(err, bad[i].want), "%s", err);
		ck_assert_msg(strstr(err, "/tmp/test_pollux_"), "%s", err);
	}
}
END_TEST

START_TEST(test_workload_errors)
{
	static const struct { const char *row, *want; } bad[] = {
		{ "j,0,resnet,1,128", "unknown application 'resnet'" },
		{ "j,0,cifar10,1,100000", "batch_size" },
		{ "j,0,cifar10,8,128", "below the 32 measured" },
		{ "j,-5,cifar10,1,128", "column 'time'" },
		{ "j,0,cifar10,1.5,128", "integers" },
		{ "j,0,cifar10,65,4096", "num_replicas" },
	};
	char err[512], text[256];
	px_workload_t w;

	load_apps();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "name,time,application,"
			 "num_replicas,batch_size\n%s\n", bad[i].row);
		const char *p = tmp_file(text);
		ck_assert_int_ne(px_workload_read(p, apps, napps, &w, err,
						  sizeof(err)), 0);
		unlink(p);
		ck_assert_msg(strstr(err, bad[i].want), "%s: %s", bad[i].row,
			      err);
	}
	const char *p = tmp_file("name,time,application,num_replicas,"
				 "batch_size\na,60,cifar10,1,128\n"
				 "b,0,cifar10,1,128\n");
	ck_assert_int_ne(px_workload_read(p, apps, napps, &w, err,
					  sizeof(err)), 0);
	unlink(p);
	ck_assert_msg(strstr(err, "submission order"), "%s", err);
	unload_apps();
}
END_TEST

/* Measured rows come back as measured, whatever the node order;
 * unmeasured placements interpolate; outside the data is an error. */
START_TEST(test_step_time)
{
	const px_app_t *c;
	double step, sync, s2, y2;
	char err[256];
	int one[] = { 1 }, a[] = { 3, 1 }, b[] = { 1, 3 };
	int five[] = { 4, 4, 4, 4, 4 }, four[] = { 4, 4, 4, 4 };

	load_apps();
	c = px_app_find(apps, napps, "cifar10");
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(px_app_step_time(c, one, 1, 32, &step, &sync, err,
					  sizeof(err)), 0);
	ck_assert_double_eq_tol(step, 0.0427886962890625, 1e-15);
	ck_assert_int_eq(px_app_step_time(c, a, 2, 64, &step, &sync, err,
					  sizeof(err)), 0);
	ck_assert_int_eq(px_app_step_time(c, b, 2, 64, &s2, &y2, err,
					  sizeof(err)), 0);
	ck_assert(step == s2 && sync == y2);
	/* Between two measured batches: between their step times. */
	ck_assert_int_eq(px_app_step_time(c, one, 1, 40, &step, &sync, err,
					  sizeof(err)), 0);
	ck_assert(step > 0.0427886962890625 && step < 0.05048525333404541);
	/* Five nodes are not in placements.csv: the 3-D interpolation
	 * among all points gives a finite time, above the compute-only
	 * time of four full nodes (a fifth node adds all-reduce). */
	ck_assert_int_eq(px_app_step_time(c, five, 5, 64, &step, &sync, err,
					  sizeof(err)), 0);
	ck_assert_int_eq(px_app_step_time(c, four, 4, 64, &s2, &y2, err,
					  sizeof(err)), 0);
	ck_assert(isfinite(step) && step > 0 && isfinite(sync));
	ck_assert(step > s2 - y2);
	/*
	 * On a face where Qhull split a flat grid face differently on its two
	 * sides the interpolant jumps (0.2348 s on one side); the value is
	 * the tetrahedron SciPy's search finds, as in the peer's simulator
	 * (LinearNDInterpolator on the same points gives 0.28384946527935).
	 */
	int ten[] = { 3, 3, 3, 3, 2, 2, 2, 2, 2, 2 };
	ck_assert_int_eq(px_app_step_time(c, ten, 10, 226, &step, &sync, err,
					  sizeof(err)), 0);
	ck_assert_double_eq_tol(step, 0.28384946527935206, 1e-9);
	ck_assert_int_eq(px_app_step_time(c, one, 1, 1e6, &step, &sync, err,
					  sizeof(err)), -EDOM);
	ck_assert_msg(strstr(err, "no step time measured"), "%s", err);
	/* Epoch boundaries rise; the last counted epoch exists. */
	ck_assert(px_app_progress(c, 2) > px_app_progress(c, 1));
	ck_assert(px_app_iteration(c, 1024, c->max_epochs - 1) > 0);
	ck_assert(px_app_iteration(c, 1e7, 0) < 0);
	unload_apps();
}
END_TEST

/* A linear function is reproduced exactly inside the hull. */
START_TEST(test_nd_linear)
{
	double x[8][3], y[8][2], q[3] = { 0.3, 0.6, 0.2 }, out[2];
	px_nd_t nd;
	char err[128];

	for (int i = 0; i < 8; i++) {
		x[i][0] = i & 1;
		x[i][1] = (i >> 1) & 1;
		x[i][2] = (i >> 2) & 1;
		y[i][0] = 1 + 2 * x[i][0] + 3 * x[i][1] - x[i][2];
		y[i][1] = 5;
	}
	ck_assert_int_eq(px_nd_build(&nd, (const double (*)[3])x,
				     (const double (*)[2])y, 8, err,
				     sizeof(err)), 0);
	ck_assert_int_eq(px_nd_eval(&nd, q, out), 0);
	ck_assert_double_eq_tol(out[0], 1 + 0.6 + 1.8 - 0.2, 1e-9);
	ck_assert_double_eq_tol(out[1], 5, 1e-9);
	q[0] = 1.5;
	ck_assert_int_eq(px_nd_eval(&nd, q, out), -EDOM);
	px_nd_free(&nd);
}
END_TEST

static double run_policy(const char *wl, const char *policy)
{
	px_workload_t w;
	px_result_t r;
	char err[512];

	ck_assert_msg(px_workload_read(wl, apps, napps, &w, err,
				       sizeof(err)) == 0, "%s", err);
	ck_assert_msg(px_sim_run(&w, NULL,
				 px_policy_new(policy, PX_PRERUN_NONE), &r, err,
				 sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(r.run.ndone, w.n);
	double avg = r.run.avg_jct;
	px_result_free(&r);
	px_workload_free(&w);
	return avg;
}

/* The peer's baselines on workload 6 land within 5% of their figures. */
START_TEST(test_peer_baselines)
{
	const char *wl = POLLUX_DATA_DIR "/workloads/workload-6.csv";

	load_apps();
	double o = run_policy(wl, "peer-optimus-oracle");
	double t = run_policy(wl, "tiresias");
	ck_assert_msg(fabs(o / 5301.9 - 1) < 0.05, "optimus+oracle %.1f", o);
	ck_assert_msg(fabs(t / 3469.7 - 1) < 0.05, "tiresias %.1f", t);
	/* In fact to the rounded second of every job: the figures the
	 * peer's simulator prints (data README). */
	ck_assert_msg(fabs(o - 5301.875) < 0.01, "optimus+oracle %.3f", o);
	ck_assert_msg(fabs(t - 3469.69375) < 0.01, "tiresias %.5f", t);
	/* Every policy finishes every job; same input, same output. */
	for (size_t i = 0; i < px_policy_count; i++)
		ck_assert(run_policy(wl, px_policy_names[i]) ==
			  run_policy(wl, px_policy_names[i]));
	unload_apps();
}
END_TEST

/*
 * A watcher around a real policy: after each of its plans, every speed
 * sample its record of a job holds must be a configuration (nodes, GPUs)
 * the job ran in (px_job_t.obs, what the engine saw it run). At the end,
 * no job of slurm-backfill ran past its time limit.
 */
typedef struct watch {
	px_policy_t *inner;
	const px_sim_t *sim;
	size_t samples, unseen;	/* samples checked, of configs never run */
	size_t overruns, limited;	/* slurm-backfill: jobs past / with a
					 * limit */
	size_t ncf_rounds, ncf_over;	/* NCF jobs planned; given more
					 * than one GPU */
	size_t rebatched, off_range;	/* batches set other than the
					 * submitted; outside the validated */
	struct {		/* job 0 at the second plan */
		int nalloc, nobs, ran[8][2];	/* (nodes, GPUs) run */
		double steps, attained;
	} second;
} watch_t;

static bool job_ran(const px_job_t *j, int nodes, int gpus)
{
	for (int k = 0; k < j->nobs; k++)
		if (j->obs[k].nodes == nodes && j->obs[k].replicas == gpus)
			return true;
	return false;
}

static int watch_plan(px_policy_t *p, px_sim_t *s, const size_t *active,
		      size_t n, int (*next)[PX_GPUS], int *nnext)
{
	watch_t *w = p->state;
	int rc;

	if (s->rounds == 1) {
		const px_job_t *j = &s->jobs[0];
		w->second.nalloc = px_job_gpus(j);
		w->second.nobs = j->nobs;
		w->second.steps = j->steps;
		w->second.attained = j->core.outcome.gpu_seconds;
		for (int k = 0; k < j->nobs && k < 8; k++) {
			w->second.ran[k][0] = j->obs[k].nodes;
			w->second.ran[k][1] = j->obs[k].replicas;
		}
	}
	/* The batches the jobs run as planned, then at the batches our
	 * policies' plans start, resize or re-batch them at (carried out as
	 * they plan). */
	for (size_t k = 0; k < n; k++) {
		const px_job_t *j = &s->jobs[active[k]];
		const px_app_t *a = j->spec->app;
		w->off_range += j->bsz < a->init_bsz || j->bsz > a->max_bsz;
	}
	rc = w->inner->plan(w->inner, s, active, n, next, nnext);
	w->sim = s;
	for (size_t k = 0; k < n; k++) {
		const px_job_t *j = &s->jobs[active[k]];
		bool ncf = !strcmp(j->spec->app->name, "ncf");
		w->ncf_rounds += ncf;
		w->ncf_over += ncf && nnext[active[k]] > 1;
	}
	const size_t *job;
	const plan_t *last = rc ? NULL : px_plan_last(w->inner, &job);
	for (size_t k = 0; last && k < last->ndecisions; k++) {
		const plan_decision_t *d = &last->decisions[k];
		const px_job_t *j = &s->jobs[job[k]];
		const px_app_t *a = j->spec->app;
		if (!(d->action == PLAN_START || d->action == PLAN_RESIZE ||
		      (d->action == PLAN_KEEP && d->in_place)))
			continue;
		w->rebatched += j->bsz != j->spec->bsz;
		w->off_range += j->bsz < a->init_bsz || j->bsz > a->max_bsz;
	}
	for (size_t k = 0; k < n; k++) {
		const job_model_t *m = px_plan_job_model(w->inner, active[k]);
		for (size_t q = 0; m && q < m->speed.nsamples; q++) {
			const speed_sample_t *x = &m->speed.samples[q];
			w->samples++;
			w->unseen += !job_ran(&s->jobs[active[k]], x->p, x->w);
		}
	}
	return rc;
}

static void watch_destroy(px_policy_t *p)
{
	watch_t *w = p->state;

	for (size_t i = 0; w->sim && i < w->sim->eng.njobs; i++) {
		const px_job_t *j = &w->sim->jobs[i];
		double limit = px_backfill_limit(w->inner, i);
		if (limit <= 0 || j->core.outcome.end < 0)
			continue;
		w->limited++;
		w->overruns += j->core.outcome.end -
			       j->core.outcome.start > limit;
	}
	w->inner->destroy(w->inner);
	free(p);
}

/* Run workload wl under `inner` seen through a wrapper policy (plan,
 * destroy, state: the wrapper's; inner is destroyed by it), every job
 * done. */
static void run_wrapped(const char *wl, px_policy_t *inner,
			int (*plan)(px_policy_t *, px_sim_t *, const size_t *,
				    size_t, int (*)[PX_GPUS], int *),
			void (*destroy)(px_policy_t *), void *state)
{
	px_policy_t *p = calloc(1, sizeof(*p));
	px_workload_t work;
	px_result_t r;
	char err[512];

	ck_assert_ptr_nonnull(inner);
	ck_assert_ptr_nonnull(p);
	*p = (px_policy_t){ inner->name, plan, destroy, state, inner->oracle };
	ck_assert_msg(px_workload_read(wl, apps, napps, &work, err,
				       sizeof(err)) == 0, "%s", err);
	ck_assert_msg(px_sim_run(&work, NULL, p, &r, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_uint_eq(r.run.ndone, work.n);
	px_result_free(&r);
	px_workload_free(&work);
}

static watch_t run_watched(const char *wl, const char *policy,
			   px_prerun_mode_t prerun)
{
	watch_t w = { .inner = px_policy_new(policy, prerun) };

	run_wrapped(wl, w.inner, watch_plan, watch_destroy, &w);
	return w;
}

/* A fitted policy learns only from what its jobs ran; the free
 * pre-run of --oracle-prerun is caught by the same check, and labelled. */
START_TEST(test_fitted_sees_only_what_ran)
{
	const char *wl = POLLUX_DATA_DIR "/workloads/workload-6.csv";
	static const char *const fitted[] = { "optimus", "optimus-rate",
					      "quality", "goodput" };

	load_apps();
	for (size_t i = 0; i < 4; i++) {
		watch_t w = run_watched(wl, fitted[i], PX_PRERUN_NONE);
		ck_assert_msg(w.samples > 1000, "%s: %zu samples", fitted[i],
			      w.samples);
		ck_assert_msg(w.unseen == 0, "%s: %zu of %zu samples at "
			      "configurations never run", fitted[i], w.unseen,
			      w.samples);
		ck_assert_int_eq(run_watched(wl, fitted[i],
					     PX_PRERUN_CHARGED).unseen, 0);
		w = run_watched(wl, fitted[i], PX_PRERUN_ORACLE);
		ck_assert_msg(w.unseen > 0, "%s", fitted[i]);
		px_policy_t *p = px_policy_new(fitted[i], PX_PRERUN_ORACLE);
		ck_assert(strstr(p->name, "oracle") && p->oracle);
		p->destroy(p);
		/* quality's loss is the truth's share of its work left: an
		 * oracle, said so without a pre-run too. */
		p = px_policy_new(fitted[i], PX_PRERUN_NONE);
		ck_assert(!strstr(p->name, "oracle"));
		if (strcmp(fitted[i], "quality"))
			ck_assert(!p->oracle);
		else
			ck_assert(p->oracle && strstr(p->oracle, "its loss"));
		p->destroy(p);
	}
	unload_apps();
}
END_TEST

/* Run the jobs of `csv` under policy p (destroyed by the run) on
 * `shape` (NULL: the default), every job done. */
static px_result_t run_csv_policy(const char *csv, px_policy_t *p,
				  const px_shape_t *shape)
{
	px_workload_t w;
	px_result_t r;
	char err[512];
	const char *path = tmp_file(csv);

	ck_assert_ptr_nonnull(p);
	ck_assert_msg(px_workload_read(path, apps, napps, &w, err,
				       sizeof(err)) == 0, "%s", err);
	unlink(path);
	ck_assert_msg(px_sim_run(&w, shape, p, &r, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_uint_eq(r.run.ndone, w.n);
	px_workload_free(&w);
	return r;
}

static px_result_t run_csv(const char *csv, const char *policy,
			   const px_shape_t *shape)
{
	return run_csv_policy(csv, px_policy_new(policy, PX_PRERUN_NONE),
			      shape);
}

/* Each job's JCT and wait of run r, into arrays of its jobs' length. */
static void run_times(const px_result_t *r, double *jct, double *wait)
{
	for (size_t i = 0; i < r->run.njobs; i++) {
		jct[i] = sim_job_outcome_jct(&r->run.jobs[i]);
		wait[i] = sim_job_outcome_wait(&r->run.jobs[i]);
	}
}

/*
 * Four jobs at once, in this order: A holds 48 of the 64 GPUs for long;
 * B wants all 64 and is blocked (its reservation: A's expected end); C,
 * 8 GPUs, longer than that, fits now but would delay B; D, 1 GPU, ends
 * well before it. slurm-backfill starts A and D, B as soon as A ends, C
 * after B. first-fit starts C at once and B waits for C too.
 */
START_TEST(test_backfill_keeps_reservation)
{
	static const char csv[] =
		"name,time,application,num_replicas,batch_size\n"
		"A,0,imagenet,48,3200\nB,0,cifar10,64,4096\n"
		"C,0,imagenet,8,800\nD,0,ncf,1,32768\n";
	double run[4];
	char err[256];
	px_workload_t w;

	load_apps();
	/* The scenario's premises, from the truth. */
	const char *p = tmp_file(csv);
	ck_assert_msg(px_workload_read(p, apps, napps, &w, err,
				       sizeof(err)) == 0, "%s", err);
	unlink(p);
	for (int i = 0; i < 4; i++)
		ck_assert_msg(px_spec_true_runtime(&w.jobs[i],
			      w.jobs[i].replicas, NULL, &run[i], err,
			      sizeof(err)) == 0, "%s", err);
	px_workload_free(&w);
	ck_assert_msg(run[2] > 2 * run[0] + 120 && 2 * run[3] + 120 < run[0],
		      "A %.0f C %.0f D %.0f", run[0], run[2], run[3]);

	double jct[4], wait[4];
	px_result_t b = run_csv(csv, "slurm-backfill", NULL);
	run_times(&b, jct, wait);
	ck_assert_double_eq(wait[0], PX_ROUND);
	ck_assert_double_eq(wait[3], PX_ROUND);	/* D backfilled */
	ck_assert_msg(wait[1] <= jct[0] + PX_ROUND, "B at %.0f, A ended %.0f",
		      wait[1], jct[0]);
	ck_assert_msg(wait[2] >= jct[1], "C at %.0f, B ended %.0f",
		      wait[2], jct[1]);
	px_result_free(&b);

	px_result_t f = run_csv(csv, "first-fit", NULL);
	run_times(&f, jct, wait);
	ck_assert_double_eq(wait[2], PX_ROUND);	/* C at once */
	ck_assert_msg(wait[1] >= jct[2] && wait[1] > jct[0] + PX_ROUND,
		      "B at %.0f, A ended %.0f, C %.0f", wait[1], jct[0],
		      jct[2]);
	px_result_free(&f);
	unload_apps();
}
END_TEST

/*
 * A start's cost against the starts launching with it: jobs
 * that start together queue, each per_queued seconds after the one before
 * it; starts further apart cost the base each; per_queued 0 is the single
 * pooled cost. In the engine, three 1-GPU jobs submitted together under
 * first-fit end 0, 1 and 2 times per_queued after the first; without it
 * together.
 */
START_TEST(test_start_cost_queue)
{
	static const char csv[] =
		"name,time,application,num_replicas,batch_size\n"
		"a,0,ncf,1,256\nb,0,ncf,1,256\nc,0,ncf,1,256\n";
	double busy = 0;

	ck_assert_double_eq(sim_start_queued(5, 2, 100, &busy), 5);
	ck_assert_double_eq(sim_start_queued(5, 2, 100, &busy), 7);
	ck_assert_double_eq(sim_start_queued(5, 2, 100, &busy), 9);
	ck_assert_double_eq(busy, 106);
	ck_assert_double_eq(sim_start_queued(5, 2, 105, &busy), 6);
	ck_assert_double_eq(sim_start_queued(5, 2, 200, &busy), 5);
	busy = 0;
	for (int k = 0; k < 3; k++)
		ck_assert_double_eq(sim_start_queued(5, 0, 100, &busy), 5);

	load_apps();
	px_shape_t shape = px_shape_default();
	px_result_t pooled = run_csv(csv, "first-fit", &shape);
	shape.start_queued = 40;
	px_result_t queued = run_csv(csv, "first-fit", &shape);
	double pj[3], qj[3], wait[3];
	run_times(&pooled, pj, wait);
	run_times(&queued, qj, wait);
	for (int k = 0; k < 3; k++) {
		ck_assert_double_eq_tol(pj[k], pj[0], 1e-6);
		ck_assert_double_eq_tol(qj[k], pj[0] + 40 * k, 1e-6);
	}
	px_result_free(&pooled);
	px_result_free(&queued);
	unload_apps();
}
END_TEST

/* A wrapper policy's state that only reads the engine after the run:
 * the inner policy and the engine it planned for. */
typedef struct watch_head {
	px_policy_t *inner;
	const px_sim_t *sim;
} watch_head_t;

static int read_through_plan(px_policy_t *p, px_sim_t *s,
			     const size_t *active, size_t n,
			     int (*next)[PX_GPUS], int *nnext)
{
	watch_head_t *w = p->state;

	w->sim = s;
	return w->inner->plan(w->inner, s, active, n, next, nnext);
}

static void watch_head_destroy(px_policy_t *p)
{
	watch_head_t *w = p->state;

	w->inner->destroy(w->inner);
	free(p);
}

/* A wrapper of `inner`'s plan and destroy, with state `w`. */
static px_policy_t *watch_policy(px_policy_t *inner,
				 int (*plan)(px_policy_t *, px_sim_t *,
					     const size_t *, size_t,
					     int (*)[PX_GPUS], int *),
				 void (*destroy)(px_policy_t *), void *w)
{
	px_policy_t *p = calloc(1, sizeof(*p));

	ck_assert_ptr_nonnull(inner);
	ck_assert_ptr_nonnull(p);
	*p = (px_policy_t){ inner->name, plan, destroy, w, inner->oracle };
	return p;
}

/*
 * One start-cost model: a record of ours times a job's first run from
 * the end of the start the engine charged, queued starts included
 * (--start-queued). Three jobs started together at the first plan (60 s)
 * cost 30, 70 and 110 s with 40 s per start queued.
 */
typedef struct start_watch {
	watch_head_t head;	/* first: watch_head_destroy */
	double first_run[3], charged[3];
} start_watch_t;

static int start_watch_plan(px_policy_t *p, px_sim_t *s,
			    const size_t *active, size_t n,
			    int (*next)[PX_GPUS], int *nnext)
{
	start_watch_t *w = p->state;

	w->head.sim = s;
	for (size_t i = 0; i < s->eng.njobs && i < 3; i++) {
		const job_model_t *m = px_plan_job_model(w->head.inner, i);
		if (m && m->nruns && w->first_run[i] == 0)
			w->first_run[i] = (double)m->runs[0].start;
		if (s->jobs[i].core.outcome.start >= 0 &&
		    s->jobs[i].core.outcome.restarts == 0 && w->charged[i] == 0)
			w->charged[i] = s->jobs[i].began;
	}
	return w->head.inner->plan(w->head.inner, s, active, n, next, nnext);
}

START_TEST(test_start_cost_one_model)
{
	static const char csv[] =
		"name,time,application,num_replicas,batch_size\n"
		"a,0,cifar10,1,128\nb,0,cifar10,1,128\nc,0,cifar10,1,128\n";
	static const char *const name[] = { "a", "b", "c" };
	start_watch_t w = { .head.inner = px_policy_new("optimus",
							PX_PRERUN_NONE) };
	px_shape_t shape = px_shape_default();
	px_result_t r;

	load_apps();
	shape.start_queued = 40;
	r = run_csv_policy(csv, watch_policy(w.head.inner, start_watch_plan,
					     watch_head_destroy, &w), &shape);
	for (int k = 0; k < 3; k++) {
		ck_assert_double_eq_tol(w.charged[k], 60 + 30 + 40 * k, 1e-9);
		ck_assert_msg(w.first_run[k] == w.charged[k], "%s: its record "
			      "began its run at %.0f s, the engine charged "
			      "its start until %.0f s", name[k],
			      w.first_run[k], w.charged[k]);
	}
	px_result_free(&r);
	unload_apps();
}
END_TEST

/* A charged pre-run: a job alone on the cluster spends its first round on
 * 16 GPUs measuring the five pre-run configurations on them, with no
 * progress; without a pre-run it has run only where it was put. */
START_TEST(test_charged_prerun)
{
	const char *p = tmp_file("name,time,application,num_replicas,"
				 "batch_size\nj,0,cifar10,1,2048\n");
	watch_t c, n;

	load_apps();
	c = run_watched(p, "optimus", PX_PRERUN_CHARGED);
	n = run_watched(p, "optimus", PX_PRERUN_NONE);
	unlink(p);
	ck_assert_int_eq(c.second.nalloc, 16);
	ck_assert_int_eq(c.second.nobs, 5);
	for (int k = 0; k < 5; k++)
		ck_assert(c.second.ran[k][0] == px_prerun[k][1] &&
			  c.second.ran[k][1] == px_prerun[k][0]);
	ck_assert_double_eq(c.second.steps, 0);
	ck_assert_double_eq(c.second.attained, 16 * PX_ROUND);
	ck_assert_int_eq(n.second.nobs, 1);
	ck_assert(n.second.steps > 0);
	ck_assert_int_eq(c.unseen, 0);
	unload_apps();
}
END_TEST

/* The artifact's rule: every policy that sizes jobs itself keeps NCF on
 * one GPU. */
START_TEST(test_elastic_ncf_one_gpu)
{
	static const char *const elastic[] = {
		"peer-optimus-oracle", "optimus", "optimus-rate",
		"optimus-oracle", "quality", "goodput" };

	load_apps();
	for (size_t i = 0; i < sizeof(elastic) / sizeof(elastic[0]); i++) {
		watch_t w = run_watched(POLLUX_DATA_DIR
					"/workloads/workload-6.csv",
					elastic[i], PX_PRERUN_NONE);
		ck_assert_msg(w.ncf_rounds > 100, "%s", elastic[i]);
		ck_assert_msg(w.ncf_over == 0, "%s: %zu", elastic[i],
			      w.ncf_over);
	}
	unload_apps();
}
END_TEST

/* Goodput chooses batches (within the validated range, where
 * the truth has statistics); the other policies never do. */
START_TEST(test_goodput_batches)
{
	const char *wl = POLLUX_DATA_DIR "/workloads/workload-6.csv";

	load_apps();
	watch_t w = run_watched(wl, "goodput", PX_PRERUN_NONE);
	ck_assert_msg(w.rebatched > 10, "%zu batches chosen", w.rebatched);
	ck_assert_uint_eq(w.off_range, 0);
	w = run_watched(wl, "optimus-rate", PX_PRERUN_NONE);
	ck_assert_uint_eq(w.rebatched, 0);
	ck_assert_uint_eq(w.off_range, 0);
	unload_apps();
}
END_TEST

/*
 * The engine runs the plan's decisions: a job started, resized or
 * re-batched with a batch runs the plan's split of it (local_batch,
 * accum), and under drf and fifo (the plan's Policy=drf/fifo) every job
 * runs at the GPUs it was submitted with, never resized. The jobs take
 * batch changes in place and say their batch in every progress report,
 * their first of a run included: so under goodput no change of a running
 * job's batch at its GPUs goes by a restart (a RESIZE that re-batches),
 * not even one planned in the round after its start.
 */
typedef struct split_watch {
	watch_head_t head;	/* first: watch_head_destroy */
	size_t split_checked, split_off;	/* goodput */
	size_t in_place, by_restart;		/* goodput's re-batches */
	size_t planned, off_size;		/* drf, fifo */
} split_watch_t;

static int split_watch_plan(px_policy_t *p, px_sim_t *s,
			    const size_t *active, size_t n,
			    int (*next)[PX_GPUS], int *nnext)
{
	split_watch_t *w = p->state;
	const size_t *job;
	const plan_t *last = px_plan_last(w->head.inner, &job);

	/* What the last plan sent, as the jobs run it now. */
	for (size_t k = 0; last && k < last->ndecisions; k++) {
		const plan_decision_t *d = &last->decisions[k];
		const px_job_t *j = &s->jobs[job[k]];
		bool sent = d->batch > 0 && d->local_batch > 0 &&
			    (d->action == PLAN_START ||
			     d->action == PLAN_RESIZE ||
			     (d->action == PLAN_KEEP && d->in_place));
		w->in_place += d->rebatch && d->in_place;
		w->by_restart += d->rebatch && !d->in_place;
		if (sent && px_job_gpus(j) && j->bsz == d->batch) {
			w->split_checked++;
			w->split_off += j->atomic != d->local_batch ||
					j->accum != d->accum;
		}
		if (d->action == PLAN_START || d->action == PLAN_RESIZE ||
		    d->action == PLAN_KEEP) {
			w->planned++;
			w->off_size += d->workers != j->spec->replicas ||
				       d->action == PLAN_RESIZE;
		}
	}
	return w->head.inner->plan(w->head.inner, s, active, n, next, nnext);
}

START_TEST(test_engine_runs_the_plan)
{
	const char *wl = POLLUX_DATA_DIR "/workloads/workload-6.csv";
	static const char *const fixed[] = { "drf", "fifo" };

	load_apps();
	split_watch_t w = { .head.inner = px_policy_new("goodput",
							PX_PRERUN_NONE) };
	run_wrapped(wl, w.head.inner, split_watch_plan, watch_head_destroy,
		    &w);
	ck_assert_msg(w.split_checked > 100, "%zu splits checked",
		      w.split_checked);
	ck_assert_msg(w.split_off == 0, "%zu of %zu runs not at the plan's "
		      "split", w.split_off, w.split_checked);
	ck_assert_msg(w.in_place > 10, "%zu batch changes in place",
		      w.in_place);
	ck_assert_msg(w.by_restart == 0, "%zu batch changes by a restart "
		      "(%zu in place)", w.by_restart, w.in_place);
	for (size_t i = 0; i < 2; i++) {
		split_watch_t f = { .head.inner = px_policy_new(fixed[i],
						PX_PRERUN_NONE) };
		run_wrapped(wl, f.head.inner, split_watch_plan,
			    watch_head_destroy, &f);
		ck_assert_msg(f.planned > 100, "%s: %zu decisions through "
			      "plan_run", fixed[i], f.planned);
		ck_assert_msg(f.off_size == 0, "%s: %zu of %zu decisions "
			      "resize or leave the submitted size", fixed[i],
			      f.off_size, f.planned);
	}
	unload_apps();
}
END_TEST

/*
 * One translation of a measured job into hints: the text optimus-sim
 * prints for bench/pollux_replay.py's jobs (px_plan_hints) parses back
 * into the hints the simulated record was given, and under goodput into
 * its batch range (all but the per-GPU floor, the truth's: no hint says
 * it; a range of one batch is said as that batch alone, a fixed batch
 * not at all: the job splits it itself, as the engine's jobs do).
 */
typedef struct hints_watch {
	watch_head_t head;	/* first: read_through_plan */
	const char *policy;
	size_t compared;
} hints_watch_t;

static void hints_watch_destroy(px_policy_t *p)
{
	hints_watch_t *w = p->state;

	for (size_t i = 0; w->head.sim && i < w->head.sim->eng.njobs; i++) {
		const job_model_t *m = px_plan_job_model(w->head.inner, i);
		const px_spec_t *sp = w->head.sim->jobs[i].spec;
		optimus_hints_t h;
		goodput_limits_t lim;
		char text[1024], err[160];

		ck_assert_ptr_nonnull(m);
		ck_assert_msg(px_plan_hints(w->policy, &w->head.sim->shape, sp,
					    text, sizeof(text), err,
					    sizeof(err)) == 0, "%s: %s",
			      sp->name, err);
		ck_assert_msg(hints_parse(text, &h, err, sizeof(err)) == 0,
			      "%s: '%s': %s", sp->name, text, err);
		ck_assert_int_eq(h.policy, m->hints.policy);
		ck_assert_uint_eq(h.min_workers, m->hints.min_workers);
		ck_assert_uint_eq(h.max_workers, m->hints.max_workers);
		/* A fixed batch is left to the job. */
		ck_assert_uint_eq(h.batch, m->batch.adaptive ?
				  m->hints.batch : 0);
		ck_assert_uint_eq(h.epochs, m->hints.epochs);
		ck_assert_uint_eq(h.epoch_steps, m->hints.epoch_steps);
		/* A range of one batch is said as the batch alone. */
		ck_assert(h.adaptive_batch == (m->batch.adaptive &&
			  m->batch.limits.max_batch >
			  m->batch.limits.min_batch));
		if (h.adaptive_batch) {
			ck_assert_int_eq(hints_batch_limits(&h, &lim), 0);
			ck_assert_double_eq(lim.min_batch,
					    m->batch.limits.min_batch);
			ck_assert_double_eq(lim.max_batch,
					    m->batch.limits.max_batch);
			ck_assert_int_eq(lim.max_local,
					 m->batch.limits.max_local);
			ck_assert_int_eq(lim.max_accum,
					 m->batch.limits.max_accum);
		}
		w->compared++;
	}
	w->head.inner->destroy(w->head.inner);
	free(p);
}

START_TEST(test_printed_hints_are_the_records)
{
	static const char *const ours[] = { "goodput", "optimus", "quality",
					    "drf" };
	const char *wl = POLLUX_DATA_DIR "/workloads/workload-6.csv";
	char text[1024];
	px_shape_t shape = px_shape_default();

	load_apps();
	/* The bench's jobs (--bench-hints) on its 4 nodes. */
	shape.bench_hints = true;
	shape.nodes = 4;
	{
		for (size_t i = 0; i < 4; i++) {
			hints_watch_t w = { .head.inner = px_policy_new(
					ours[i], PX_PRERUN_NONE),
					    .policy = ours[i] };
			px_policy_t *p = watch_policy(w.head.inner,
						      read_through_plan,
						      hints_watch_destroy, &w);
			px_workload_t work;
			px_result_t r;
			char err[512];

			ck_assert_msg(px_workload_read(wl, apps, napps, &work,
						       err, sizeof(err)) == 0,
				      "%s", err);
			work.n = 12;	/* a slice: every application */
			ck_assert_msg(px_sim_run(&work, &shape, p, &r, err,
						 sizeof(err)) == 0, "%s", err);
			ck_assert_uint_eq(w.compared, 12);
			px_result_free(&r);
			px_workload_free(&work);
		}
	}
	/* Not one of ours: no hints. */
	ck_assert_int_eq(px_plan_hints("tiresias", &shape, NULL, text,
				       sizeof(text), NULL, 0), -EINVAL);
	unload_apps();
}
END_TEST

/* The time limits of the rule hold every job's run on workload 6. */
START_TEST(test_backfill_limits_hold)
{
	load_apps();
	watch_t w = run_watched(POLLUX_DATA_DIR "/workloads/workload-6.csv",
				"slurm-backfill", PX_PRERUN_NONE);
	ck_assert_uint_eq(w.limited, 160);
	ck_assert_uint_eq(w.overruns, 0);
	unload_apps();
}
END_TEST

/*
 * Quality's loss is what the replay trainer reports
 * (examples/replay_trainer.py), the share of the slice's measured progress
 * still to go, 1 - progress / progress at its last epoch's end. The
 * adapter reported a share of steps over an estimate of the steps per
 * epoch (the dataset over the batch) until an epoch had run: imagenet at
 * batch 3200 had 0.33 left at step 800 where the trainer says 0.85, 0 at
 * step 1205, and 0.67 again at its first epoch's end (step 1779).
 */
typedef struct loss_watch {
	px_policy_t *inner;
	size_t checked;
	double worst;		/* largest |reported - trainer's| */
} loss_watch_t;

static int loss_watch_plan(px_policy_t *p, px_sim_t *s, const size_t *active,
			   size_t n, int (*next)[PX_GPUS], int *nnext)
{
	loss_watch_t *w = p->state;
	int rc = w->inner->plan(w->inner, s, active, n, next, nnext);

	for (size_t k = 0; k < n; k++) {
		const px_job_t *j = &s->jobs[active[k]];
		const job_model_t *m = px_plan_job_model(w->inner, active[k]);
		double goal = px_app_progress(j->spec->app, j->spec->epochs);

		if (!m || !m->reports)
			continue;
		w->checked++;
		w->worst = fmax(w->worst,
				fabs(m->loss -
				     (1.0 - j->core.progress / goal)));
	}
	return rc;
}

static void loss_watch_destroy(px_policy_t *p)
{
	loss_watch_t *w = p->state;

	w->inner->destroy(w->inner);
	free(p);
}

START_TEST(test_quality_loss_is_the_trainers)
{
	static const char csv[] =
		"name,time,application,num_replicas,batch_size\n"
		"imagenet-13,0,imagenet,16,3200\ncifar10-14,100,cifar10,1,128\n";
	loss_watch_t w = { .inner = px_policy_new("quality", PX_PRERUN_NONE) };
	px_policy_t *p = calloc(1, sizeof(*p));
	px_shape_t shape = px_shape_default();
	const char *path;
	px_workload_t work;
	px_result_t r;
	char err[512];

	load_apps();
	ck_assert_ptr_nonnull(w.inner);
	ck_assert_ptr_nonnull(p);
	*p = (px_policy_t){ w.inner->name, loss_watch_plan, loss_watch_destroy,
			    &w, false };
	path = tmp_file(csv);
	ck_assert_msg(px_workload_read(path, apps, napps, &work, err,
				       sizeof(err)) == 0, "%s", err);
	unlink(path);
	for (size_t i = 0; i < work.n; i++)
		work.jobs[i].epochs = 3;	/* the replay bench's slice */
	shape.nodes = 4;
	ck_assert_msg(px_sim_run(&work, &shape, p, &r, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_uint_eq(r.run.ndone, 2);
	ck_assert_msg(w.checked > 50, "%zu reports checked", w.checked);
	ck_assert_msg(w.worst < 1e-9, "a reported loss is %.3f off the "
		      "trainer's", w.worst);
	px_result_free(&r);
	px_workload_free(&work);
	unload_apps();
}
END_TEST

/*
 * The restart the plan weighs is the one the engine charged: every
 * re-allocation costs a job shape.restart seconds without progress
 * (30 s), then it steps at its configuration's rate until the round ends.
 * Its record times the restart from the plan's resize to the first step
 * of the new run: the report at the round's end, less the steps it shows
 * at the rate the job reports. The mean over every record's timed
 * restarts (what plan_input_restart_cost gives the plan) must be the
 * charged 30 s, and no record's own mean far from it (an epoch ends at a
 * whole second, so a restart is timed within a second or so), under
 * every policy of ours that resizes.
 */
typedef struct restart_watch {
	watch_head_t head;	/* first: read_through_plan */
	double seconds, worst;	/* summed; the record's mean farthest off */
	size_t timed;
	char worst_job[48];
} restart_watch_t;

static void restart_watch_destroy(px_policy_t *p)
{
	restart_watch_t *w = p->state;

	for (size_t i = 0; w->head.sim && i < w->head.sim->eng.njobs; i++) {
		const job_model_t *m = px_plan_job_model(w->head.inner, i);
		double mean;

		if (!m || !m->restarts_timed)
			continue;
		mean = m->resize_seconds / m->restarts_timed;
		w->seconds += m->resize_seconds;
		w->timed += m->restarts_timed;
		if (fabs(mean - PX_RESTART) > fabs(w->worst - PX_RESTART)) {
			w->worst = mean;
			snprintf(w->worst_job, sizeof(w->worst_job), "%s",
				 w->head.sim->jobs[i].spec->name);
		}
	}
	w->head.inner->destroy(w->head.inner);
	free(p);
}

START_TEST(test_restart_measured_is_charged)
{
	const char *wl = POLLUX_DATA_DIR "/workloads/workload-6.csv";
	static const char *const ours[] = { "goodput", "optimus-rate",
					    "optimus", "quality" };

	load_apps();
	for (size_t i = 0; i < 4; i++) {
		restart_watch_t w = { .head.inner = px_policy_new(ours[i],
						PX_PRERUN_NONE),
				      .worst = PX_RESTART };

		run_wrapped(wl, w.head.inner, read_through_plan,
			    restart_watch_destroy, &w);
		ck_assert_msg(w.timed > 10, "%s: %zu restarts timed", ours[i],
			      w.timed);
		ck_assert_msg(fabs(w.seconds / w.timed - PX_RESTART) < 0.5,
			      "%s: the plan weighs a restart at %.1f s (%zu "
			      "timed), the engine charged %.0f s", ours[i],
			      w.seconds / w.timed, w.timed, PX_RESTART);
		ck_assert_msg(fabs(w.worst - PX_RESTART) <= 3.0,
			      "%s: %s measured its restarts at %.1f s on "
			      "average, the engine charged %.0f s", ours[i],
			      w.worst_job, w.worst, PX_RESTART);
	}
	unload_apps();
}
END_TEST

/*
 * The users' declared epochs (measured/declared.h): exact gives the truth
 * and epoch_steps=, none nothing; noisy draws each job's count around the
 * truth (a lognormal factor of sigma 0.25, median 1), the same for the
 * same seed, at least 1, with no epoch_steps=.
 */
START_TEST(test_declared_epochs)
{
	const char *wl = POLLUX_DATA_DIR "/workloads-2.0/workload-1.csv";
	px_workload_t a, b;
	char err[512];
	double sum = 0, sq = 0;
	size_t n = 0, off = 0, below = 0;
	px_hints_t h;

	load_apps();
	ck_assert_msg(px_workload_read(wl, apps, napps, &a, err,
				       sizeof(err)) == 0, "%s", err);
	ck_assert_msg(px_workload_read(wl, apps, napps, &b, err,
				       sizeof(err)) == 0, "%s", err);
	for (size_t i = 0; i < a.n; i++)
		ck_assert(a.jobs[i].declared_epochs == a.jobs[i].epochs &&
			  a.jobs[i].epoch_steps_hint);
	ck_assert_int_eq(px_workload_declare(&a, PX_HINTS_NONE, 1), 0);
	for (size_t i = 0; i < a.n; i++)
		ck_assert(!a.jobs[i].declared_epochs &&
			  !a.jobs[i].epoch_steps_hint);
	ck_assert_int_eq(px_workload_declare(&a, PX_HINTS_NOISY, 1), 0);
	ck_assert_int_eq(px_workload_declare(&b, PX_HINTS_NOISY, 1), 0);
	for (size_t i = 0; i < a.n; i++) {
		const px_spec_t *j = &a.jobs[i];
		ck_assert_int_eq(j->declared_epochs, b.jobs[i].declared_epochs);
		ck_assert(j->declared_epochs >= 1 && !j->epoch_steps_hint);
		off += j->declared_epochs != j->epochs;
		below += j->declared_epochs < j->epochs;
		/* Counts of 50 and more: rounding is small beside the noise. */
		if (j->epochs < 50)
			continue;
		double r = log((double)j->declared_epochs / j->epochs);
		sum += r;
		sq += r * r;
		n++;
	}
	ck_assert_msg(off > a.n / 2, "%zu of %zu declared off the truth", off,
		      a.n);
	ck_assert_msg(below > off / 4 && below < 3 * off / 4, "%zu of %zu "
		      "below the truth", below, off);
	ck_assert_msg(n > 30, "%zu long jobs", n);
	ck_assert_msg(fabs(sum / n) < 0.1 && fabs(sqrt(sq / n - (sum / n) *
		      (sum / n)) - PX_DECLARED_SIGMA) < 0.06, "log ratio mean "
		      "%.3f sd %.3f over %zu jobs", sum / n,
		      sqrt(sq / n - (sum / n) * (sum / n)), n);
	/* Another seed, other draws. */
	ck_assert_int_eq(px_workload_declare(&b, PX_HINTS_NOISY, 2), 0);
	off = 0;
	for (size_t i = 0; i < a.n; i++)
		off += a.jobs[i].declared_epochs != b.jobs[i].declared_epochs;
	ck_assert_uint_gt(off, 0);
	ck_assert_int_eq(px_hints_parse("noisy", &h), 0);
	ck_assert_int_eq(h, PX_HINTS_NOISY);
	ck_assert_int_eq(px_hints_parse("roughly", &h), -EINVAL);
	ck_assert_str_eq(px_hints_name(PX_HINTS_EXACT), "exact");
	px_workload_free(&a);
	px_workload_free(&b);
	unload_apps();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pollux");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_csv_errors);
	tcase_add_test(tc, test_workload_errors);
	tcase_add_test(tc, test_step_time);
	tcase_add_test(tc, test_nd_linear);
	tcase_add_test(tc, test_peer_baselines);
	tcase_add_test(tc, test_fitted_sees_only_what_ran);
	tcase_add_test(tc, test_backfill_keeps_reservation);
	tcase_add_test(tc, test_backfill_limits_hold);
	tcase_add_test(tc, test_elastic_ncf_one_gpu);
	tcase_add_test(tc, test_charged_prerun);
	tcase_add_test(tc, test_goodput_batches);
	tcase_add_test(tc, test_engine_runs_the_plan);
	tcase_add_test(tc, test_printed_hints_are_the_records);
	tcase_add_test(tc, test_start_cost_queue);
	tcase_add_test(tc, test_start_cost_one_model);
	tcase_add_test(tc, test_quality_loss_is_the_trainers);
	tcase_add_test(tc, test_restart_measured_is_charged);
	tcase_add_test(tc, test_declared_epochs);
	suite_add_tcase(s, tc);
	return check_run(s);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * fuzz_models.c - libFuzzer target for the whole model path:
 * arbitrary report sequences into job models of every curve form and both
 * job policies (optimus, quality), speed and cost samples, lifecycle
 * events, refits (in place and on a clone, as the planner does), every
 * prediction, the state-file JSON round trip, shared
 * speed profiles, direct curve fits, and plans under every plan policy.
 *
 * The input is a program: two header bytes (policies, form, mode; counts
 * of jobs and servers) then operations, each an opcode byte and its
 * operands. Numbers are drawn by fz_num() so that the fuzzer reaches both
 * ordinary values (small integers, fractions, m*10^e over the whole double
 * range) and raw bit patterns (NaN, infinities, subnormals). Nothing here
 * checks results beyond what the sanitizers check (no crash, no undefined
 * behaviour, no leak) plus one invariant: a fit that succeeds predicts
 * finite values. Build and run: testsuite/fuzz/run.sh SECONDS models.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_errno.h>

#include "models/curve_fit.h"
#include "plan/plan.h"

#define FZ_JOBS 4
#define FZ_SERVERS 4
#define FZ_POINTS 64

typedef struct fz {
	const uint8_t *p;
	size_t n;
} fz_t;

static unsigned fz_byte(fz_t *f)
{
	unsigned b;

	if (!f->n)
		return 0;
	b = *f->p++;
	f->n--;
	return b;
}

static double fz_num(fz_t *f)
{
	unsigned t = fz_byte(f);

	if (t < 64)
		return t;
	if (t < 128)
		return (t - 64) / 64.0;
	if (t < 224) {
		unsigned m = fz_byte(f) << 8 | fz_byte(f);
		int e = (int)(int8_t)fz_byte(f);

		return (t & 1 ? -1.0 : 1.0) * m * pow(10.0, e * 2.5);
	}
	{
		double d = 0.0;
		size_t k = f->n < sizeof(d) ? f->n : sizeof(d);

		memcpy(&d, f->p, k);
		f->p += k;
		f->n -= k;
		return d;
	}
}

/* A bounded integer, most often small, sometimes out of range. */
static int fz_int(fz_t *f)
{
	unsigned t = fz_byte(f);

	if (t < 240)
		return (int)(t % 12);
	return (int)(fz_byte(f) << 8 | fz_byte(f)) - 1000;
}

typedef struct world {
	job_model_t *m[FZ_JOBS];
	size_t njobs, nservers;
	res_vec_t free[FZ_SERVERS];
	speed_profiles_t *profiles;
	plan_params_t prm;
	time_t now;
} world_t;

static void fz_hints(optimus_hints_t *h, unsigned flags, size_t i)
{
	hints_init(h, (flags >> i) & 1 ? HINTS_POLICY_QUALITY :
					HINTS_POLICY_OPTIMUS);
	h->form = (curve_form_t)((flags >> (2 + i)) % 3);
	h->max_ps = 4;
	h->max_workers = 8;
	if (flags & 0x80) {
		h->mode = HINTS_MODE_SYNC;
		h->batch = 64 << i;
	}
	if (i & 1)
		snprintf(h->model, sizeof(h->model), "m%zu", i / 2);
	h->epoch_steps = (flags & 0x40) ? 100 : 0;
}

static void fz_predict(const world_t *w, const job_model_t *m, fz_t *f)
{
	int ps = fz_int(f), wk = fz_int(f);
	double T = fz_num(f), v;
	bool fitted;
	char buf[256];
	job_speed_source_t src;
	json_object *o;

	v = job_model_speed_from(m, w->profiles, ps, wk, &src);
	(void)v;
	(void)job_model_remaining_steps(m, &fitted);
	(void)job_model_remaining_time(m, w->profiles, ps, wk);
	v = job_model_loss_after(m, w->profiles, T, wk);
	if (isfinite(T) && T >= 0.0 && !isfinite(v))
		abort();	/* job_model.h: "always finite" */
	(void)job_model_resize_share(m);
	(void)job_model_summary(m, w->profiles, buf, sizeof(buf));
	(void)convergence_predict(m->conv, m->step);
	if ((o = job_model_to_json(m))) {
		char err[256];
		job_model_t *back = job_model_from_json(o, err, sizeof(err));

		job_model_free(back);
		json_object_put(o);
	}
}

/* Direct fits of every form on up to FZ_POINTS points from the input. */
static void fz_curves(fz_t *f)
{
	double k[FZ_POINTS], l[FZ_POINTS], wt[FZ_POINTS];
	size_t n = fz_byte(f) % FZ_POINTS, i;
	int weighted = n & 1, form;

	for (i = 0; i < n; i++) {
		k[i] = fz_num(f);
		l[i] = fz_num(f);
		wt[i] = fz_num(f);
	}
	for (form = 0; form <= CURVE_EXP; form++) {
		curve_coef_t c;

		if (curve_fit(form, k, l, weighted ? wt : NULL, n, &c))
			continue;
		for (i = 0; i < 3; i++)
			if (!isfinite(c.c[i]) || c.c[i] < 0.0)
				abort();	/* a successful fit is a curve */
		(void)curve_eval(&c, n ? k[0] : 1.0);
		(void)curve_k_decrease_below(&c, n ? k[n - 1] : 1.0, 10.0,
					     1e-3);
		(void)curve_k_near_asymptote(&c, n ? k[n - 1] : 1.0, 1e-3);
	}
}

static void fz_plan(world_t *w, fz_t *f)
{
	plan_job_t jobs[FZ_JOBS];
	place_slot_t slots[FZ_JOBS];
	plan_t plan;
	size_t i;
	json_object *o;

	memset(jobs, 0, sizeof(jobs));
	for (i = 0; i < w->njobs; i++) {
		job_model_t *m = w->m[i];

		job_model_refit(m);
		jobs[i].model = m;
		if (m->phase == JM_RUNNING && m->cur_ps > 0 &&
		    m->cur_workers > 0) {
			slots[i] = (place_slot_t){ .server = i % w->nservers,
						   .ps = m->cur_ps,
						   .workers = m->cur_workers };
			jobs[i].running = true;
			jobs[i].slots = &slots[i];
			jobs[i].nslots = 1;
			jobs[i].starting = fz_byte(f) & 1;
		}
	}
	w->prm.now = w->now;
	w->prm.policy = (plan_policy_t)(fz_byte(f) % 5);
	w->prm.placement = !(fz_byte(f) & 1);
	plan_run(jobs, w->njobs, w->free, w->nservers, &w->prm, &plan);
	if ((o = plan_to_json(&plan)))
		json_object_put(o);
	plan_free(&plan);
}

static void fz_lifecycle(world_t *w, job_model_t *m, fz_t *f)
{
	switch (fz_byte(f) % 4) {
	case 0:
		job_model_started(m, w->now, fz_int(f), fz_int(f), fz_int(f));
		break;
	case 1:
		job_model_stopped(m, w->now);
		break;
	case 2:
		job_model_resizing(m, w->now);
		break;
	default:
		job_model_done(m, w->now);
		break;
	}
}

static void fz_op(world_t *w, fz_t *f)
{
	unsigned op = fz_byte(f);
	job_model_t *m = w->m[fz_byte(f) % w->njobs];
	double a, b, c, d;

	switch (op % 10) {
	case 0: case 1: case 2:	/* reports are the common case */
		w->now += fz_byte(f);
		a = fz_num(f);
		b = fz_num(f);
		c = fz_num(f);
		d = fz_num(f);
		job_model_report(m, w->now, a, b, c, d);
		break;
	case 3:
		a = fz_num(f);
		job_model_speed_sample(m, fz_int(f), fz_int(f), a);
		break;
	case 4:
		a = fz_num(f);
		b = fz_num(f);
		job_model_cost_sample(m, a, b);
		break;
	case 5:
		if (fz_byte(f) & 1) {
			/* the planner's way: refit a copy, then swap it in */
			job_model_t *copy = job_model_clone(m);
			size_t i;

			if (copy) {
				job_model_refit(copy);
				for (i = 0; w->m[i] != m; i++)
					;
				w->m[i] = copy;
				job_model_free(m);
				m = copy;
			}
		} else {
			job_model_refit(m);
		}
		fz_predict(w, m, f);
		break;
	case 6:
		fz_lifecycle(w, m, f);
		break;
	case 7:
		w->free[fz_byte(f) % w->nservers] =
			res_make(fz_num(f), fz_num(f), fz_num(f));
		break;
	case 8:
		if (m->hints.model[0])
			speed_profiles_merge(w->profiles, m->uid,
					     m->hints.model, &m->speed);
		if (fz_byte(f) & 1)
			fz_curves(f);
		break;
	default:
		fz_plan(w, f);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_t f = { data, size };
	world_t w;
	unsigned flags = fz_byte(&f), counts = fz_byte(&f);
	size_t i, ops;

	gsl_set_error_handler_off();
	memset(&w, 0, sizeof(w));
	w.njobs = 1 + counts % FZ_JOBS;
	w.nservers = 1 + (counts >> 4) % FZ_SERVERS;
	w.now = 1000000;
	plan_params_init(&w.prm);
	w.prm.interval = 60;
	for (i = 0; i < w.nservers; i++)
		w.free[i] = res_make(16, 65536, 0);
	w.profiles = speed_profiles_new();
	for (i = 0; i < w.njobs; i++) {
		optimus_hints_t h;

		fz_hints(&h, flags, i);
		w.m[i] = job_model_new(100 + i, 1000, &h, w.now - 10);
		if (!w.m[i])
			goto out;
	}
	for (ops = 0; f.n && ops < 4096; ops++)
		fz_op(&w, &f);
	fz_plan(&w, &f);
	for (i = 0; i < w.njobs; i++)
		fz_predict(&w, w.m[i], &f);
out:
	for (i = 0; i < w.njobs; i++)
		job_model_free(w.m[i]);
	speed_profiles_free(w.profiles);
	return 0;
}

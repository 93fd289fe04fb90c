/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* model_json.c - strict JSON state of the models (see model_json.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/errmsg.h"
#include "util/json_num.h"
#include "models/model_json.h"

#define MJ_MAX_ITEMS 100000

/* Set the message and return -EINVAL. */
#define mj_fail(err, len, ...) errmsg_set(err, len, -EINVAL, __VA_ARGS__)

static int mj_array(json_object *o, const char *key, size_t max,
		    json_object **arr, size_t *n, char *err, size_t len)
{
	if (!json_object_object_get_ex(o, key, arr) ||
	    !json_object_is_type(*arr, json_type_array))
		return mj_fail(err, len, "'%s': missing or not an array", key);
	*n = json_object_array_length(*arr);
	if (*n > max)
		return mj_fail(err, len, "'%s': %zu items, at most %zu", key, *n,
			       max);
	return 0;
}

/* Item i of arr: an array of exactly n finite numbers. */
static int mj_tuple(json_object *arr, size_t i, size_t n, double *v,
		    const char *what, char *err, size_t len)
{
	json_object *t = json_object_array_get_idx(arr, i), *x;
	size_t j;

	if (!json_object_is_type(t, json_type_array) ||
	    json_object_array_length(t) != n)
		return mj_fail(err, len, "%s[%zu]: not an array of %zu numbers",
			       what, i, n);
	for (j = 0; j < n; j++) {
		x = json_object_array_get_idx(t, j);
		if (!json_num_is(x) || !isfinite(v[j] = json_object_get_double(x)))
			return mj_fail(err, len, "%s[%zu][%zu]: not a finite "
				       "number", what, i, j);
	}
	return 0;
}

static int mj_string(json_object *o, const char *key, const char **out,
		     char *err, size_t len)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return mj_fail(err, len, "'%s': missing or not a string", key);
	*out = json_object_get_string(v);
	return 0;
}

/* Optional "fit" member: NULL when absent or null. */
static json_object *mj_fit(json_object *o)
{
	json_object *v;

	if (!json_object_object_get_ex(o, "fit", &v) ||
	    json_object_is_type(v, json_type_null))
		return NULL;
	return v;
}

static json_object *mj_doubles(const double *v, size_t n)
{
	json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; a && i < n; i++)
		json_object_array_add(a, json_num_new(v[i]));
	return a;
}

static int mj_object(json_object *o, char *err, size_t len)
{
	if (!o || !json_object_is_type(o, json_type_object))
		return mj_fail(err, len, "not a JSON object");
	return 0;
}

/* ---------------------------- curve coefficients ------------------------ */

static json_object *mj_coef_to(const curve_coef_t *f)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "form",
			       json_object_new_string(curve_form_name(f->form)));
	json_object_object_add(o, "c", mj_doubles(f->c, 3));
	json_object_object_add(o, "rms", json_num_new(f->rms));
	return o;
}

static int mj_coef_from(json_object *o, curve_form_t form, curve_coef_t *f,
			char *err, size_t len)
{
	json_object *arr;
	const char *name;
	size_t n;
	int rc, j;

	if ((rc = mj_object(o, err, len)) ||
	    (rc = mj_string(o, "form", &name, err, len)))
		return rc;
	if (curve_form_parse(name, &f->form) || f->form != form)
		return mj_fail(err, len, "fit 'form' '%s' does not match", name);
	if ((rc = mj_array(o, "c", 3, &arr, &n, err, len)))
		return rc;
	if (n != 3)
		return mj_fail(err, len, "fit 'c': need 3 numbers");
	if ((rc = json_num_get(o, "rms", 0, INFINITY, &f->rms, err, len)))
		return rc;
	for (j = 0; j < 3; j++) {
		json_object *x = json_object_array_get_idx(arr, j);

		f->c[j] = json_num_is(x) ? json_object_get_double(x) : NAN;
		if (!isfinite(f->c[j]) || f->c[j] < 0)
			return mj_fail(err, len, "fit 'c'[%d] invalid", j);
	}
	return 0;
}

/* ------------------------------ convergence ------------------------------ */

static const char *const mj_criteria[] = { "decrease", "asymptote" };

static json_object *mj_conv_cfg_to(const convergence_cfg_t *c)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "form",
			       json_object_new_string(curve_form_name(c->form)));
	json_object_object_add(o, "criterion",
			       json_object_new_string(mj_criteria[c->criterion]));
	json_object_object_add(o, "delta", json_num_new(c->delta));
	json_object_object_add(o, "window", json_num_new(c->window));
	json_object_object_add(o, "max_points",
			       json_object_new_int64(c->max_points));
	json_object_object_add(o, "avg_steps", json_num_new(c->avg_steps));
	json_object_object_add(o, "min_points",
			       json_object_new_int64(c->min_points));
	json_object_object_add(o, "outlier_span",
			       json_object_new_int(c->outlier_span));
	json_object_object_add(o, "drop_frac", json_num_new(c->drop_frac));
	json_object_object_add(o, "drop_confirm",
			       json_object_new_int(c->drop_confirm));
	return o;
}

json_object *convergence_to_json(const convergence_t *c)
{
	json_object *o = json_object_new_object(), *pts;
	size_t i;

	if (!o)
		return NULL;
	json_object_object_add(o, "cfg", mj_conv_cfg_to(&c->cfg));
	json_object_object_add(o, "origin", json_num_new(c->origin));
	json_object_object_add(o, "resets", json_object_new_int64(c->resets));
	pts = json_object_new_array();
	for (i = 0; i < c->n; i++) {
		double v[3] = { c->step[i], c->loss[i], c->weight[i] };

		json_object_array_add(pts, mj_doubles(v, 3));
	}
	json_object_object_add(o, "points", pts);
	if (c->fitted) {
		json_object *f = mj_coef_to(&c->coef);

		json_object_object_add(f, "scale", json_num_new(c->scale));
		json_object_object_add(f, "used", json_object_new_int64(c->used));
		json_object_object_add(o, "fit", f);
	} else {
		json_object_object_add(o, "fit", NULL);
	}
	return o;
}

static int mj_conv_cfg_from(json_object *o, convergence_cfg_t *c, char *err,
			    size_t len)
{
	const char *form, *crit;
	double mp, mn, span, conf;
	int rc;

	if ((rc = mj_object(o, err, len)) ||
	    (rc = mj_string(o, "form", &form, err, len)) ||
	    (rc = mj_string(o, "criterion", &crit, err, len)) ||
	    (rc = json_num_get(o, "delta", 0, INFINITY, &c->delta, err, len)) ||
	    (rc = json_num_get(o, "window", 0, INFINITY, &c->window, err, len)) ||
	    (rc = json_num_get(o, "max_points", 16, 4096, &mp, err, len)) ||
	    (rc = json_num_get(o, "avg_steps", 0, INFINITY, &c->avg_steps, err,
			       len)) ||
	    (rc = json_num_get(o, "min_points", 3, 4096, &mn, err, len)) ||
	    (rc = json_num_get(o, "outlier_span", 0, 100, &span, err, len)) ||
	    (rc = json_num_get(o, "drop_frac", 0, 1, &c->drop_frac, err, len)) ||
	    (rc = json_num_get(o, "drop_confirm", 1, 1000, &conf, err, len)))
		return rc;
	if (curve_form_parse(form, &c->form))
		return mj_fail(err, len, "cfg 'form': unknown '%s'", form);
	if (!strcmp(crit, mj_criteria[0]))
		c->criterion = CONV_DECREASE;
	else if (!strcmp(crit, mj_criteria[1]))
		c->criterion = CONV_ASYMPTOTE;
	else
		return mj_fail(err, len, "cfg 'criterion': unknown '%s'", crit);
	c->max_points = mp;
	c->min_points = mn;
	c->outlier_span = span;
	c->drop_confirm = conf;
	if (convergence_cfg_check(c))
		return mj_fail(err, len, "cfg: inconsistent values");
	return 0;
}

static int mj_conv_points(json_object *o, convergence_t *c, char *err,
			  size_t len)
{
	json_object *arr;
	size_t n, i;
	double v[3];
	int rc;

	if ((rc = mj_array(o, "points", c->cfg.max_points, &arr, &n, err, len)))
		return rc;
	for (i = 0; i < n; i++) {
		if ((rc = mj_tuple(arr, i, 3, v, "points", err, len)))
			return rc;
		if (v[0] < 0 || v[1] < 0 || !(v[2] > 0) ||
		    (i && v[0] < c->step[i - 1]))
			return mj_fail(err, len, "points[%zu]: step must be "
				       ">= 0 and not decreasing, loss >= 0, "
				       "weight > 0", i);
		c->step[i] = v[0];
		c->loss[i] = v[1];
		c->weight[i] = v[2];
	}
	c->n = n;
	if (n && c->cfg.avg_steps > 0)
		c->bucket = floor(c->step[n - 1] / c->cfg.avg_steps);
	return 0;
}

static int mj_conv_state(json_object *o, convergence_t *c, char *err,
			 size_t len)
{
	json_object *fit;
	double resets, used;
	int rc;

	if ((rc = json_num_get(o, "origin", 0, INFINITY, &c->origin, err, len)) ||
	    (rc = json_num_get(o, "resets", 0, 1e9, &resets, err, len)) ||
	    (rc = mj_conv_points(o, c, err, len)))
		return rc;
	c->resets = resets;
	if (c->n && c->step[0] < c->origin)
		return mj_fail(err, len, "points before 'origin'");
	if (!(fit = mj_fit(o)))
		return 0;
	if ((rc = mj_coef_from(fit, c->cfg.form, &c->coef, err, len)) ||
	    (rc = json_num_get(fit, "scale", 0, INFINITY, &c->scale, err, len)) ||
	    (rc = json_num_get(fit, "used", 0, 4096, &used, err, len)))
		return rc;
	c->used = used;
	c->fitted = 1;
	return 0;
}

int convergence_from_json(json_object *o, convergence_t **out, char *err,
			  size_t errlen)
{
	convergence_cfg_t cfg;
	json_object *jc;
	convergence_t *c;
	int rc;

	if ((rc = mj_object(o, err, errlen)))
		return rc;
	if (!json_object_object_get_ex(o, "cfg", &jc))
		return mj_fail(err, errlen, "'cfg': missing");
	if ((rc = mj_conv_cfg_from(jc, &cfg, err, errlen)))
		return rc;
	if (!(c = convergence_new(&cfg)))
		return -ENOMEM;
	if ((rc = mj_conv_state(o, c, err, errlen))) {
		convergence_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

/* ------------------------------ speed model ------------------------------ */

json_object *speed_model_to_json(const speed_model_t *m)
{
	json_object *o = json_object_new_object(), *s;
	size_t i;

	if (!o)
		return NULL;
	json_object_object_add(o, "mode", json_object_new_string(
			       speed_mode_name(m->mode)));
	json_object_object_add(o, "batch", json_num_new(m->batch));
	s = json_object_new_array();
	for (i = 0; i < m->nsamples; i++) {
		const speed_sample_t *x = &m->samples[i];
		double v[4] = { x->p, x->w, speed_sample_mean(x), x->count };

		json_object_array_add(s, mj_doubles(v, 4));
	}
	json_object_object_add(o, "samples", s);
	if (m->fitted) {
		json_object *f = json_object_new_object();

		json_object_object_add(f, "theta", mj_doubles(m->theta,
				       speed_model_ntheta(m)));
		json_object_object_add(f, "rel_rms", json_num_new(m->rel_rms));
		json_object_object_add(f, "r2", json_num_new(m->r2));
		json_object_object_add(o, "fit", f);
	} else {
		json_object_object_add(o, "fit", NULL);
	}
	return o;
}

static int mj_speed_samples(json_object *o, speed_model_t *m, char *err,
			    size_t len)
{
	json_object *arr;
	size_t n, i;
	double v[4];
	int rc;

	if ((rc = mj_array(o, "samples", SPEED_MAX_SAMPLES, &arr, &n, err, len)))
		return rc;
	for (i = 0; i < n; i++) {
		if ((rc = mj_tuple(arr, i, 4, v, "samples", err, len)))
			return rc;
		if (v[0] != floor(v[0]) || v[1] != floor(v[1]) ||
		    v[0] > 1e6 || v[1] > 1e6 || v[3] != floor(v[3]) ||
		    v[3] > 1e9 ||
		    speed_model_add_mean(m, v[0], v[1], v[2], v[3]))
			return mj_fail(err, len, "samples[%zu]: need integer "
				       "p, w >= 1, speed > 0, count >= 1", i);
	}
	return 0;
}

static int mj_speed_fit(json_object *fit, speed_model_t *m, char *err,
			size_t len)
{
	json_object *arr, *r2;
	size_t n, i, nt = speed_model_ntheta(m);
	double th[SPEED_NTHETA];
	int rc;

	if ((rc = mj_object(fit, err, len)) ||
	    (rc = mj_array(fit, "theta", nt, &arr, &n, err, len)) ||
	    (rc = json_num_get(fit, "rel_rms", 0, INFINITY, &m->rel_rms, err, len)))
		return rc;
	for (i = 0; i < n; i++) {
		json_object *x = json_object_array_get_idx(arr, i);

		th[i] = json_num_is(x) ? json_object_get_double(x) : -1;
	}
	if (n != nt || speed_model_set_theta(m, th, nt))
		return mj_fail(err, len, "fit 'theta': need %zu numbers >= 0",
			       nt);
	if (!json_object_object_get_ex(fit, "r2", &r2))
		return mj_fail(err, len, "fit 'r2': missing");
	if (json_object_is_type(r2, json_type_null))
		m->r2 = NAN;
	else if ((rc = json_num_get(fit, "r2", -INFINITY, 1, &m->r2, err, len)))
		return rc;
	return 0;
}

int speed_model_from_json(json_object *o, speed_model_t *out, char *err,
			  size_t errlen)
{
	const char *mode;
	speed_mode_t smode;
	double batch;
	json_object *fit;
	int rc;

	if ((rc = mj_object(o, err, errlen)) ||
	    (rc = mj_string(o, "mode", &mode, err, errlen)) ||
	    (rc = json_num_get(o, "batch", 0, 1e12, &batch, err, errlen)))
		return rc;
	if (speed_mode_parse(mode, &smode))
		return mj_fail(err, errlen, "'mode': unknown '%s'", mode);
	if (speed_model_init(out, smode, batch))
		return mj_fail(err, errlen, "'batch': must be > 0 in %s mode",
			       mode);
	rc = mj_speed_samples(o, out, err, errlen);
	if (!rc && (fit = mj_fit(o)))
		rc = mj_speed_fit(fit, out, err, errlen);
	if (rc)
		speed_model_clear(out);
	return rc;
}

/* ----------------------------- speed profiles ---------------------------- */

json_object *speed_profiles_to_json(const speed_profiles_t *reg)
{
	json_object *o = json_object_new_object(), *a;
	size_t i;

	if (!o)
		return NULL;
	a = json_object_new_array();
	for (i = 0; i < reg->n; i++) {
		json_object *p = json_object_new_object();

		json_object_object_add(p, "name",
				       json_object_new_string(reg->v[i].name));
		json_object_object_add(p, "owner",
				       json_object_new_int64(reg->v[i].owner));
		json_object_object_add(p, "model",
				       speed_model_to_json(&reg->v[i].model));
		json_object_array_add(a, p);
	}
	json_object_object_add(o, "profiles", a);
	return o;
}

static int mj_profile_add(json_object *p, speed_profiles_t *reg, size_t i,
			  char *err, size_t len)
{
	json_object *jm, *jo;
	const char *name;
	speed_model_t m;
	int64_t owner = 0;
	int rc;

	if ((rc = mj_object(p, err, len)) ||
	    (rc = mj_string(p, "name", &name, err, len)))
		return rc;
	/* A profile without an owner is root's. */
	if (json_object_object_get_ex(p, "owner", &jo) &&
	    (!json_object_is_type(jo, json_type_int) ||
	     (owner = json_object_get_int64(jo)) < 0 || owner > UINT32_MAX))
		return mj_fail(err, len, "profiles[%zu]: 'owner' must be a uid",
			       i);
	if (speed_profiles_own(reg, (uint32_t)owner, name))
		return mj_fail(err, len, "profiles[%zu]: duplicate name", i);
	if (!json_object_object_get_ex(p, "model", &jm))
		return mj_fail(err, len, "profiles[%zu]: 'model' missing", i);
	if ((rc = speed_model_from_json(jm, &m, err, len)))
		return rc;
	/* Merging refits the profile from its samples. */
	rc = speed_profiles_merge(reg, (uint32_t)owner, name, &m);
	speed_model_clear(&m);
	if (rc)
		return mj_fail(err, len, "profiles[%zu]: invalid name or "
			       "samples", i);
	return 0;
}

int speed_profiles_from_json(json_object *o, speed_profiles_t **out,
			     char *err, size_t errlen)
{
	json_object *arr;
	speed_profiles_t *reg;
	size_t n, i;
	int rc;

	if ((rc = mj_object(o, err, errlen)) ||
	    (rc = mj_array(o, "profiles", MJ_MAX_ITEMS, &arr, &n, err, errlen)))
		return rc;
	if (!(reg = speed_profiles_new()))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		rc = mj_profile_add(json_object_array_get_idx(arr, i), reg, i,
				    err, errlen);
		if (rc) {
			speed_profiles_free(reg);
			return rc;
		}
	}
	*out = reg;
	return 0;
}

/* ----------------------------- quality model ----------------------------- */

json_object *quality_model_to_json(const quality_model_t *q)
{
	json_object *o = json_object_new_object(), *pts, *cost;
	size_t i;

	if (!o)
		return NULL;
	json_object_object_add(o, "decay", json_num_new(q->decay));
	json_object_object_add(o, "cap", json_object_new_int64(q->cap));
	pts = json_object_new_array();
	for (i = 0; i < q->n; i++)
		json_object_array_add(pts, mj_doubles((double[]){ q->iter[i],
						      q->loss[i] }, 2));
	json_object_object_add(o, "points", pts);
	cost = json_object_new_array();
	for (i = 0; i < q->ncost; i++) {
		/* oldest first, so that reloading keeps the ring order */
		size_t j = (q->cost_next + QUALITY_COST_WINDOW - q->ncost + i) %
			   QUALITY_COST_WINDOW;

		json_object_array_add(cost, mj_doubles((double[]){ q->cost_s[j],
						       q->cost_t[j] }, 2));
	}
	json_object_object_add(o, "cost", cost);
	json_object_object_add(o, "cost_c", json_num_new(q->cost_c));
	json_object_object_add(o, "fit", q->fitted ? mj_coef_to(&q->coef) :
				  NULL);
	return o;
}

static int mj_quality_data(json_object *o, quality_model_t *q, char *err,
			   size_t len)
{
	json_object *arr;
	size_t n, i;
	double v[2];
	int rc;

	if ((rc = mj_array(o, "points", q->cap, &arr, &n, err, len)))
		return rc;
	for (i = 0; i < n; i++)
		if ((rc = mj_tuple(arr, i, 2, v, "points", err, len)) ||
		    quality_model_add_loss(q, v[0], v[1]))
			return rc ? rc : mj_fail(err, len, "points[%zu]: need "
						 "iter >= 1 not decreasing, "
						 "loss >= 0", i);
	if ((rc = mj_array(o, "cost", QUALITY_COST_WINDOW, &arr, &n, err, len)))
		return rc;
	for (i = 0; i < n; i++)
		if ((rc = mj_tuple(arr, i, 2, v, "cost", err, len)) ||
		    quality_model_add_cost(q, v[0], v[1]))
			return rc ? rc : mj_fail(err, len, "cost[%zu]: need "
						 "size > 0, seconds > 0", i);
	return json_num_get(o, "cost_c", 0, INFINITY, &q->cost_c, err, len);
}

int quality_model_from_json(json_object *o, quality_model_t *out, char *err,
			    size_t errlen)
{
	double decay, cap;
	json_object *fit;
	int rc;

	if ((rc = mj_object(o, err, errlen)) ||
	    (rc = json_num_get(o, "decay", 0, 1, &decay, err, errlen)) ||
	    (rc = json_num_get(o, "cap", 8, 4096, &cap, err, errlen)))
		return rc;
	if ((rc = quality_model_init(out, decay, cap)))
		return rc == -EINVAL ? mj_fail(err, errlen, "'decay' must be "
					       "in (0, 1]") : rc;
	rc = mj_quality_data(o, out, err, errlen);
	if (!rc && (fit = mj_fit(o))) {
		rc = mj_coef_from(fit, CURVE_POWER, &out->coef, err, errlen);
		out->fitted = !rc;
	}
	if (rc)
		quality_model_clear(out);
	return rc;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* curve_fit.c - fit l(k) = g(k; c0, c1) + c2 with c >= 0.
 *
 * Method, chosen to be fast enough to refit thousands of jobs every
 * scheduling interval:
 * 1. Profile over the asymptote c2 in [0, min l): for a fixed c2 the form
 *    linearises (1/(l-c2) = c0*k + c1, or -ln(l-c2) = c1*x - ln c0 with
 *    x = ln k or k), which is solved by NNLS on 2x2/3x3 sufficient
 *    statistics. Rows are weighted by the derivative of the transform
 *    ((l-c2)^2, resp. (l-c2)) so that the linear residual approximates the
 *    residual in l; the profile objective then comes from the same
 *    statistics, one pass per candidate c2. A coarse grid brackets the
 *    minimum and GSL's Brent minimiser refines it.
 * 2. Polish with a few projected Gauss-Newton steps on the true weighted
 *    squared error in l: each step is itself an NNLS problem (the
 *    linearised model solved for the new, non-negative coefficients), with
 *    step halving. This also lifts the c2 < min l restriction of step 1,
 *    which matters once noisy points scatter around a reached plateau.
 * k and l are scaled to (0, 1] internally (by their largest value) so the
 * normal equations stay well conditioned and their sums cannot overflow:
 * the fit is invariant to the units of k and l, whose finite range is then
 * the whole of a double's (unscaled, losses near 1e27 make the inverse
 * profile infinite and GSL's Brent abort, losses near 1e152 give a
 * "successful" c = 1,0,0). Whatever the input, every value the fit returns
 * is checked for finiteness: a failure is an error code, never a curve.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>

#include "models/curve_fit.h"
#include "models/nnls.h"
#include "util/names.h"

typedef struct cf_data {
	curve_form_t form;
	const double *l, *wt;
	double *x;	/* k / kscale */
	double *lx;	/* ln x (power form only) */
	size_t n;
	double lmin, wsum;
	double fcap;	/* finite stand-in for a non-finite profile (Brent) */
} cf_data_t;

static double cf_weight(const cf_data_t *d, size_t i)
{
	return d->wt ? d->wt[i] : 1.0;
}

/* NNLS on the linearised problem for a fixed asymptote c; returns the
 * weighted linear SSE and fills beta (2 values for the inverse form, 3 for
 * the log forms: slope, +intercept, -intercept). */
static double cf_profile(const cf_data_t *d, double c, double *beta)
{
	double Sxx = 0, Sx = 0, S1 = 0, Sxy = 0, Sy = 0, Syy = 0;
	double g[9], h[3], sse;
	size_t i, nv = d->form == CURVE_INVERSE ? 2 : 3, a, b;
	const double *xs = d->form == CURVE_POWER ? d->lx : d->x;

	for (i = 0; i < d->n; i++) {
		double r = d->l[i] - c, x = xs[i], y, W;

		if (d->form == CURVE_INVERSE) {
			y = 1.0 / r;
			W = cf_weight(d, i) * r * r * r * r;
		} else {
			y = -log(r);
			W = cf_weight(d, i) * r * r;
		}
		Sxx += W * x * x;
		Sx += W * x;
		S1 += W;
		Sxy += W * x * y;
		Sy += W * y;
		Syy += W * y * y;
	}
	/* Log forms: the intercept -ln c0 has any sign, so it is split into
	 * two non-negative variables (collinear columns +1 and -1). */
	{
		double G3[9] = { Sxx, Sx, -Sx, Sx, S1, -S1, -Sx, -S1, S1 };
		double h3[3] = { Sxy, Sy, -Sy };

		for (a = 0; a < nv; a++) {
			h[a] = h3[a];
			for (b = 0; b < nv; b++)
				g[a * nv + b] = G3[a * 3 + b];
		}
	}
	{
		gsl_matrix_view G = gsl_matrix_view_array(g, nv, nv);
		gsl_vector_view H = gsl_vector_view_array(h, nv);
		gsl_vector_view B = gsl_vector_view_array(beta, nv);

		if (nnls_solve_gram(&G.matrix, &H.vector, &B.vector))
			return INFINITY;
	}
	sse = Syy;
	for (a = 0; a < nv; a++) {
		sse -= 2.0 * beta[a] * h[a];
		for (b = 0; b < nv; b++)
			sse += beta[a] * g[a * nv + b] * beta[b];
	}
	return fmax(sse, 0.0);
}

static void cf_theta_from_beta(const cf_data_t *d, double c,
			       const double *beta, double *th)
{
	if (d->form == CURVE_INVERSE) {
		th[0] = beta[0];
		th[1] = beta[1];
	} else {
		th[0] = exp(-(beta[1] - beta[2]));
		th[1] = beta[0];
	}
	th[2] = c;
}

/* Model value and gradient (may be NULL) at point i, scaled units. */
static double cf_model(const cf_data_t *d, const double *th, size_t i,
		       double *J)
{
	double x = d->x[i], e, u;

	switch (d->form) {
	case CURVE_INVERSE:
		u = th[0] * x + th[1];
		if (J) {
			J[0] = -x / (u * u);
			J[1] = -1.0 / (u * u);
		}
		e = 1.0 / u;
		break;
	case CURVE_POWER:
		e = exp(-th[1] * d->lx[i]);
		if (J) {
			J[0] = e;
			J[1] = -th[0] * e * d->lx[i];
		}
		e *= th[0];
		break;
	default:
		e = exp(-th[1] * x);
		if (J) {
			J[0] = e;
			J[1] = -th[0] * x * e;
		}
		e *= th[0];
		break;
	}
	if (J)
		J[2] = 1.0;
	return e + th[2];
}

static double cf_sse(const cf_data_t *d, const double *th)
{
	double s = 0.0, r;
	size_t i;

	if (d->form == CURVE_INVERSE && th[0] <= 0.0 && th[1] <= 0.0)
		return INFINITY;
	for (i = 0; i < d->n; i++) {
		r = d->l[i] - cf_model(d, th, i, NULL);
		s += cf_weight(d, i) * r * r;
	}
	return isfinite(s) ? s : INFINITY;
}

/* One projected Gauss-Newton step: NNLS on J th' ~ l - f + J th. */
static int cf_gn_target(const cf_data_t *d, const double *th, double *thn)
{
	double g[9] = { 0 }, h[3] = { 0 }, J[3], t, w;
	size_t i, a, b;

	for (i = 0; i < d->n; i++) {
		double f = cf_model(d, th, i, J);

		w = cf_weight(d, i);
		t = d->l[i] - f + J[0] * th[0] + J[1] * th[1] + J[2] * th[2];
		for (a = 0; a < 3; a++) {
			h[a] += w * J[a] * t;
			for (b = a; b < 3; b++)
				g[a * 3 + b] += w * J[a] * J[b];
		}
	}
	for (a = 0; a < 3; a++)
		for (b = 0; b < a; b++)
			g[a * 3 + b] = g[b * 3 + a];
	{
		gsl_matrix_view G = gsl_matrix_view_array(g, 3, 3);
		gsl_vector_view H = gsl_vector_view_array(h, 3);
		gsl_vector_view X = gsl_vector_view_array(thn, 3);

		return nnls_solve_gram(&G.matrix, &H.vector, &X.vector);
	}
}

static double cf_polish(const cf_data_t *d, double *th, int iters)
{
	double sse = cf_sse(d, th), thn[3], cand[3], s, sc;
	int it, half, j;

	for (it = 0; it < iters && isfinite(sse); it++) {
		if (cf_gn_target(d, th, thn))
			break;
		for (half = 0, s = 1.0; half < 4; half++, s *= 0.5) {
			for (j = 0; j < 3; j++)
				cand[j] = th[j] + s * (thn[j] - th[j]);
			sc = cf_sse(d, cand);
			if (sc < sse)
				break;
		}
		if (half == 4)
			break;
		memcpy(th, cand, sizeof(cand));
		if (sse - sc <= 1e-12 * sse) {
			sse = sc;
			break;
		}
		sse = sc;
	}
	return sse;
}

/* GSL's Brent gives up (or, with the default error handler, aborts the
 * process) on a non-finite value: a failed profile reads as the worst
 * value of the bracket instead, which Brent simply moves away from. */
static double cf_brent_fn(double c, void *p)
{
	const cf_data_t *d = p;
	double beta[3], f = cf_profile(d, c, beta);

	return isfinite(f) ? f : d->fcap;
}

/* Brent on [lo, hi] around mid; the caller guarantees f(mid) is below
 * both ends (GSL aborts through its error handler otherwise). */
static double cf_brent(cf_data_t *d, double lo, double mid, double hi,
		       const double *f, int iters)
{
	gsl_min_fminimizer *m = gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
	gsl_function fn = { cf_brent_fn, d };
	int i;

	if (!m)
		return mid;
	gsl_min_fminimizer_set_with_values(m, &fn, mid, f[1], lo, f[0], hi, f[2]);
	for (i = 0; i < iters; i++) {
		if (gsl_min_fminimizer_iterate(m) != GSL_SUCCESS)
			break;
		if (gsl_min_test_interval(gsl_min_fminimizer_x_lower(m),
					  gsl_min_fminimizer_x_upper(m),
					  1e-4 * d->lmin, 0.0) == GSL_SUCCESS)
			break;
	}
	mid = gsl_min_fminimizer_x_minimum(m);
	gsl_min_fminimizer_free(m);
	return mid;
}

/* Best asymptote of the linearised profile: grid, then Brent. */
static double cf_best_asymptote(cf_data_t *d, curve_fit_opts_t o)
{
	int g = o.grid < 3 ? 3 : o.grid, i, best = 0;
	double cs[g], fs[g], beta[3], ub = d->lmin * (1.0 - 1e-6);

	for (i = 0; i < g; i++) {
		cs[i] = ub * i / (g - 1);
		fs[i] = cf_profile(d, cs[i], beta);
		if (fs[i] < fs[best])
			best = i;
	}
	if (best == 0 || best == g - 1 || o.brent_iters <= 0 ||
	    !(fs[best] < fs[best - 1] && fs[best] < fs[best + 1]) ||
	    !isfinite(fs[best - 1]) || !isfinite(fs[best + 1]))
		return cs[best];
	d->fcap = fmax(fs[best - 1], fs[best + 1]);
	return cf_brent(d, cs[best - 1], cs[best], cs[best + 1],
			(double[]){ fs[best - 1], fs[best], fs[best + 1] },
			o.brent_iters);
}

static int cf_check(const double *k, const double *l, const double *wt,
		    size_t n, double *kmax, double *lmax, double *lmin,
		    double *wsum)
{
	size_t i;

	*kmax = *lmax = 0.0;
	*lmin = INFINITY;
	*wsum = 0.0;
	for (i = 0; i < n; i++) {
		if (!isfinite(k[i]) || k[i] <= 0.0 || !isfinite(l[i]) ||
		    l[i] < 0.0 || (wt && (!isfinite(wt[i]) || wt[i] < 0.0)))
			return -EINVAL;
		*kmax = fmax(*kmax, k[i]);
		*lmax = fmax(*lmax, l[i]);
		*lmin = fmin(*lmin, l[i]);
		*wsum += wt ? wt[i] : 1.0;
	}
	if (!(*wsum > 0.0))
		return -ENODATA;
	if (!isfinite(*wsum))
		return -EINVAL;
	return *lmin > 0.0 ? 0 : -EDOM;
}

/* Back to the caller's units (k = ks*x, l = ls*y); -EDOM unless every
 * coefficient is finite, non-negative and the curve is defined at every k
 * (an inverse form needs c0*k + c1 > 0). */
static int cf_unscale(const cf_data_t *d, const double *th, double ks,
		      double ls, double sse, curve_coef_t *out)
{
	curve_coef_t f = { .form = d->form };
	int i;

	f.c[0] = th[0] * ls;
	f.c[1] = th[1];
	f.c[2] = th[2] * ls;
	if (d->form == CURVE_INVERSE) {
		f.c[0] = th[0] / ks / ls;
		f.c[1] = th[1] / ls;
	} else if (d->form == CURVE_POWER) {
		f.c[0] = th[0] * pow(ks, th[1]) * ls;
	} else {
		f.c[1] = th[1] / ks;
	}
	f.rms = sqrt(sse / d->wsum) * ls;
	for (i = 0; i < 3; i++)
		if (!isfinite(f.c[i]) || f.c[i] < 0.0)
			return -EDOM;
	if (!isfinite(f.rms) ||
	    (d->form == CURVE_INVERSE && !(f.c[0] > 0.0 || f.c[1] > 0.0)))
		return -EDOM;
	*out = f;
	return 0;
}

int curve_fit_with(curve_form_t form, const double *k, const double *l,
		   const double *wt, size_t n, curve_fit_opts_t opts,
		   curve_coef_t *out)
{
	cf_data_t d = { .form = form, .wt = wt, .n = n };
	double ks, ls, th[3], beta[3], sse, *ly;
	size_t i;
	int rc;

	if (!k || !l || !out || (unsigned)form > CURVE_EXP)
		return -EINVAL;
	if (n < 3)
		return -ENODATA;
	if ((rc = cf_check(k, l, wt, n, &ks, &ls, &d.lmin, &d.wsum)))
		return rc;
	if (!(d.x = malloc(3 * n * sizeof(double))))
		return -ENOMEM;
	d.lx = d.x + n;
	d.l = ly = d.x + 2 * n;
	for (i = 0; i < n; i++) {
		d.x[i] = k[i] / ks;
		d.lx[i] = form == CURVE_POWER ? log(d.x[i]) : 0.0;
		ly[i] = l[i] / ls;
	}
	d.lmin /= ls;
	rc = d.lmin > 0.0 ? 0 : -EDOM;	/* min/max below the double range */
	if (!rc) {
		th[2] = cf_best_asymptote(&d, opts);
		rc = isfinite(cf_profile(&d, th[2], beta)) ? 0 : -EDOM;
	}
	if (!rc) {
		cf_theta_from_beta(&d, th[2], beta, th);
		sse = cf_polish(&d, th, opts.polish_iters);
		rc = isfinite(sse) ? cf_unscale(&d, th, ks, ls, sse, out)
				   : -EDOM;
	}
	free(d.x);
	return rc;
}

int curve_fit(curve_form_t form, const double *k, const double *l,
	      const double *wt, size_t n, curve_coef_t *out)
{
	return curve_fit_with(form, k, l, wt, n, CURVE_FIT_DEFAULT, out);
}

double curve_eval(const curve_coef_t *f, double k)
{
	const double *c = f->c;

	switch (f->form) {
	case CURVE_INVERSE:
		return 1.0 / (c[0] * k + c[1]) + c[2];
	case CURVE_POWER:
		return c[0] * pow(k, -c[1]) + c[2];
	default:
		return c[0] * exp(-c[1] * k) + c[2];
	}
}

typedef int (*cf_pred_t)(const curve_coef_t *f, double k, double a,
			 double delta);

static int cf_pred_decrease(const curve_coef_t *f, double k, double window,
			    double delta)
{
	return curve_eval(f, k) - curve_eval(f, k + window) <= delta;
}

static int cf_pred_asymptote(const curve_coef_t *f, double k, double unused,
			     double delta)
{
	return curve_eval(f, k) - f->c[2] <= delta;
}

/* Smallest k >= k_from with pred true, for predicates that stay true once
 * true (all forms are convex and decreasing). */
static double cf_first_k(const curve_coef_t *f, double k_from, double a,
			 double delta, cf_pred_t pred)
{
	double lo = k_from, hi;
	int i;

	if (pred(f, lo, a, delta))
		return lo;
	for (hi = fmax(2.0 * lo, 1.0); !pred(f, hi, a, delta); hi *= 2.0)
		if (hi > 1e15)
			return INFINITY;
	for (i = 0; i < 200 && hi - lo > 1e-6 * fmax(1.0, lo); i++) {
		double mid = 0.5 * (lo + hi);

		if (pred(f, mid, a, delta))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

double curve_k_decrease_below(const curve_coef_t *f, double k_from,
			      double window, double delta)
{
	return cf_first_k(f, k_from, window, delta, cf_pred_decrease);
}

double curve_k_near_asymptote(const curve_coef_t *f, double k_from,
			      double delta)
{
	return cf_first_k(f, k_from, 0.0, delta, cf_pred_asymptote);
}

static const char *const cf_names[] = { "inverse", "power", "exp" };

const char *curve_form_name(curve_form_t form)
{
	return names_at(cf_names, NAMES_COUNT(cf_names), (unsigned)form);
}

int curve_form_parse(const char *name, curve_form_t *form)
{
	int i = names_find(cf_names, NAMES_COUNT(cf_names), name, true);

	if (i < 0)
		return i;
	*form = (curve_form_t)i;
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_exp_sweep.c - experiment quality-sweep: quality/fair of the mean
 * loss at 14 minutes as quality-vs-fair's set-up (its calibrated load
 * L*) is changed along one axis at a time, fixed before the runs:
 *   load      0.5, 1, 2, 4, 8 (the cost of every job; its length grows
 *             with it),
 *   length    jobs k = 0.25 ... 4 times as long arriving k times as
 *             seldom (the load stays L*),
 *   interval  plans every 30 ... 480 s (besides arrivals and ends).
 * A table (one line per point) and one SVG line chart per axis.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_curves.h"
#include "sim_exp.h"
#include "util/svg.h"

static const double loads[] = { 0.5, 1, 2, 4, 8 };
static const double lengths[] = { 0.25, 0.5, 1, 2, 4 };
static const double intervals[] = { 30, 60, 120, 240, 480 };
#define NPOINTS 5

/* One point: quality and fair on c/gp, its line and its sweep entry. */
static int sweep_point(sim_exp_t *e, const char *axis, double x,
		       const sim_config_t *c, const sim_gen_params_t *gp,
		       bool faithful)
{
	sim_report_t *r = calloc(1, sizeof(*r));
	sim_config_t f = *c;
	int rc;

	if (!r)
		return -ENOMEM;
	if (e->report->nsweep >= SIM_REPORT_MAX_SWEEP) {
		free(r);
		return -ENOSPC;
	}
	sim_exp_t s = *e;
	s.report = r;
	f.policy = PLAN_DRF;
	if ((rc = sim_exp_variant(&s, "quality", c, gp, NULL)) ||
	    (rc = sim_exp_variant(&s, "fair", &f, gp, NULL)))
		goto out;
	e->runs_done = s.runs_done;
	sim_sweep_point_t *p = &e->report->sweep[e->report->nsweep++];
	const sim_result_t *q = &r->runs[0], *d = &r->runs[1];
	snprintf(p->axis, sizeof(p->axis), "%s", axis);
	p->x = x;
	p->ratio = sim_exp_seed_ratio(q, d, sim_exp_window_loss, &p->sd,
				      &p->better);
	p->quality = sim_exp_seed_stat(q, sim_exp_window_loss, NULL, NULL);
	p->fair = sim_exp_seed_stat(d, sim_exp_window_loss, NULL, NULL);
	p->fair_length = sim_exp_seed_stat(d, sim_exp_mean_jct, NULL, NULL) /
			 c->interval;
	char name[64], note[200];
	snprintf(name, sizeof(name), "%s %g: quality/fair", axis, x);
	snprintf(note, sizeof(note), "q %.4f, fair %.4f; fair job %.1f "
		 "intervals; q lower on %u/%u seeds%s", p->quality, p->fair,
		 p->fair_length, p->better, e->seeds,
		 faithful ? "; quality-vs-fair's set-up" : "");
	sim_report_compare_sd(e->report, name, p->ratio, p->sd, e->seeds,
			      faithful ? 0.5 : NAN, "", note);
out:
	sim_report_free(r);
	free(r);
	return rc;
}

/* One chart per axis: quality/fair against the axis, and parity. */
static int sweep_svg(const char *dir, const sim_report_t *r, char *err,
		     size_t errlen)
{
	static const char *const axes[] = { "load", "length", "interval" };
	static const char *const xlabels[] = {
		"offered load (job cost x)",
		"job length factor (same load)",
		"plan interval, s" };

	for (int a = 0; a < 3; a++) {
		double x[SIM_REPORT_MAX_SWEEP], y[SIM_REPORT_MAX_SWEEP];
		double one[SIM_REPORT_MAX_SWEEP];
		size_t n = 0;
		char what[32], title[96];
		FILE *f;

		for (size_t i = 0; i < r->nsweep; i++)
			if (!strcmp(r->sweep[i].axis, axes[a])) {
				x[n] = r->sweep[i].x;
				y[n] = r->sweep[i].ratio;
				one[n++] = 1.0;
			}
		if (!n)
			continue;
		svg_series_t s[] = { { "quality/fair, loss at 14 min", x, y, n },
				     { "parity", x, one, n } };
		snprintf(what, sizeof(what), "%s", axes[a]);
		snprintf(title, sizeof(title), "quality/fair mean loss at 14 "
			 "min over %s (mean of %u seeds)", axes[a], r->seeds);
		if (!(f = sim_report_open_svg(dir, r->experiment, what, err,
					      errlen)))
			return -errno;
		svg_lines(f, title, xlabels[a], "quality / fair", s, 2);
		if (fclose(f))
			return -EIO;
	}
	return 0;
}

int sim_exp_quality_sweep(sim_exp_t *e)
{
	sim_curveset_t set;
	sim_config_t c;
	sim_gen_params_t gp;
	double load;
	int rc;

	e->report->svg_extra = sweep_svg;
	if ((rc = sim_exp_quality_curves(&set, e->err, e->errlen)))
		return rc;
	if ((rc = sim_exp_quality_faithful(e, &set, &c, &gp, &load)))
		goto out;
	for (int i = 0; i < NPOINTS && !rc; i++) {
		sim_gen_params_t g = gp;
		g.cost_scale = sim_exp_quality_cost(&set, loads[i]);
		rc = sweep_point(e, "load", loads[i], &c, &g,
				 loads[i] == load);
	}
	for (int i = 0; i < NPOINTS && !rc; i++) {
		sim_gen_params_t g = gp;
		g.cost_scale *= lengths[i];
		g.mean_gap *= lengths[i];
		rc = sweep_point(e, "length", lengths[i], &c, &g,
				 lengths[i] == 1.0);
	}
	for (int i = 0; i < NPOINTS && !rc; i++) {
		sim_config_t k = c;
		k.interval = intervals[i];
		rc = sweep_point(e, "interval", intervals[i], &k, &gp,
				 k.interval == c.interval);
	}
out:
	sim_curves_free(&set);
	return rc;
}

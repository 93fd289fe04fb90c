/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_exp_quality.c - the quality-driven paper's experiment: 80 jobs,
 * Poisson arrivals with a mean gap of 15 s, 10 VMs of 2-vCPU/8-GB units,
 * a plan every 2 minutes; the mean loss after 14 minutes and the CPU
 * share of the jobs that improved most. quality-vs-fair draws the jobs
 * from recorded scikit-learn curves (sim_curves.h) at an offered load of
 * one and plans at arrivals and completions too; quality-vs-
 * fair-synthetic from the catalogue's made-up MLlib curves. Every figure
 * is a mean over the seeds with its spread.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_data.h"
#include "sim_curves.h"
#include "sim_exp.h"
#include "sim_rank.h"
#include "util/svg.h"

#define WINDOW 840.0	/* 14 minutes */
#define UNITS_PER_VM 8

void sim_exp_quality_setup(const sim_exp_t *e, sim_config_t *c,
			  sim_gen_params_t *gp)
{
	sim_config_init(c);
	c->interval = 120.0;
	c->nservers = 10;
	/* Eight 2-vCPU/8-GB units per VM, plus room for eight job drivers
	 * (1 vCPU, 1 GB each). */
	c->server = res_make(2 * UNITS_PER_VM + 8,
			     UNITS_PER_VM * 8192 + 8 * 1024, 0);
	c->window = WINDOW;
	c->sample_every = 30.0;
	/* Algorithm 1 re-allocates every interval: no resize bound. */
	c->min_resize_interval = 0.0;
	c->resize_threshold = 0.0;
	c->restart_base = 2.0;		/* Spark re-assigns executors */
	/* The paper plans every 2 minutes, arrivals included. */
	c->event_plans = false;
	c->delta = 0.001;
	memset(gp, 0, sizeof(*gp));
	gp->njobs = e->opts->quick ? 20 : 80;
	gp->arrivals = SIM_ARRIVALS_POISSON;
	gp->mean_gap = 15.0;
	gp->family = SIM_FAMILY_MLLIB;
	gp->size_sigma = 0.2;
	sim_exp_overrides(e, c, gp);
}


/* ---- figures of one seed's run (sim_exp_seed_stat) ---- */

static bool submitted(const sim_job_outcome_t *j)
{
	return j->submit <= WINDOW;
}

/* Still in the system at the window: submitted and not finished. */
static bool in_system(const sim_job_outcome_t *j)
{
	return submitted(j) && (j->end < 0 || j->end > WINDOW);
}

/* Not started by the window: its loss is the initial one. */
static bool waiting(const sim_job_outcome_t *j)
{
	return submitted(j) && (j->start < 0 || j->start > WINDOW);
}

/* Mean loss at the window over the jobs `keep` takes. */
static double window_loss_of(const sim_result_t *r,
			     bool (*keep)(const sim_job_outcome_t *))
{
	double sum = 0.0;
	size_t n = 0;

	for (size_t i = 0; i < r->run.njobs; i++)
		if (keep(&r->run.jobs[i])) {
			sum += r->jobs[i].window_loss;
			n++;
		}
	return n ? sum / n : NAN;
}

/* Mean loss at the window over the jobs submitted by then. */
double sim_exp_window_loss(const sim_result_t *r, const void *arg)
{
	(void)arg;
	return window_loss_of(r, submitted);
}

static double fig_in_system_loss(const sim_result_t *r, const void *arg)
{
	(void)arg;
	return window_loss_of(r, in_system);
}

static double fig_in_system(const sim_result_t *r, const void *arg)
{
	size_t n = 0;

	(void)arg;
	for (size_t i = 0; i < r->run.njobs; i++)
		n += in_system(&r->run.jobs[i]);
	return (double)n;
}

static bool finished(const sim_job_outcome_t *j)
{
	return submitted(j) && !in_system(j);
}

/* Share (%) of the window's summed loss held by the jobs `part` takes. */
static double window_share_of(const sim_result_t *r,
			      bool (*part)(const sim_job_outcome_t *))
{
	double some = 0.0, all = 0.0;

	for (size_t i = 0; i < r->run.njobs; i++)
		if (submitted(&r->run.jobs[i])) {
			all += r->jobs[i].window_loss;
			if (part(&r->run.jobs[i]))
				some += r->jobs[i].window_loss;
		}
	return all > 0 ? 100 * some / all : NAN;
}

/* Jobs not started by the window: their loss is the initial one. */
static double fig_waiting_share(const sim_result_t *r, const void *arg)
{
	(void)arg;
	return window_share_of(r, waiting);
}

/* Jobs ended by the window (converged by the criterion, above the loss
 * their family reaches): no allocation lowers their loss any more. */
static double fig_finished_share(const sim_result_t *r, const void *arg)
{
	(void)arg;
	return window_share_of(r, finished);
}

/* Mean seconds a submitted job waited for its first start (up to the
 * window). */
static double fig_first_wait(const sim_result_t *r, const void *arg)
{
	double sum = 0.0;
	size_t n = 0;

	(void)arg;
	for (size_t i = 0; i < r->run.njobs; i++) {
		const sim_job_outcome_t *j = &r->run.jobs[i];
		if (!submitted(j))
			continue;
		double s = waiting(j) ? WINDOW : j->start;
		sum += s - j->submit;
		n++;
	}
	return n ? sum / n : NAN;
}

/* Mean CPUs a job submitted by the window held in its first plan
 * interval after arrival (*arg: the interval). */
static double fig_young_cpus(const sim_result_t *r, const void *arg)
{
	double sum = 0.0, interval = *(const double *)arg;
	size_t n = 0;

	for (size_t i = 0; i < r->run.njobs; i++)
		if (submitted(&r->run.jobs[i])) {
			sum += r->jobs[i].young_cpu / interval;
			n++;
		}
	return n ? sum / n : NAN;
}

/* Mean CPUs held over the jobs' whole runs (finished jobs). */
static double fig_run_cpus(const sim_result_t *r, const void *arg)
{
	double sum = 0.0;
	size_t n = 0;

	(void)arg;
	for (size_t i = 0; i < r->run.njobs; i++) {
		const sim_job_outcome_t *j = &r->run.jobs[i];
		if (j->end > j->start && j->start >= 0) {
			sum += r->jobs[i].cpu_seconds / (j->end - j->start);
			n++;
		}
	}
	return n ? sum / n : NAN;
}

/* From the jobs, not run.avg_jct: a row's first seed holds the mean of
 * its seeds' figures (sim_exp_variant). */
static double fig_jct(const sim_result_t *r, const void *arg)
{
	(void)arg;
	double sum = 0.0;
	size_t n = 0;

	for (size_t i = 0; i < r->run.njobs; i++)
		if (r->run.jobs[i].end >= 0) {
			sum += sim_job_outcome_jct(&r->run.jobs[i]);
			n++;
		}
	return n ? sum / n : NAN;
}

/* CPU share (within the window) of the jobs ranked [cut[0], cut[1]) by
 * loss reduction, among the jobs submitted by the window. */
static double fig_cpu_share(const sim_result_t *r, const void *arg)
{
	const double *cut = arg;
	size_t m = r->run.njobs ? r->run.njobs : 1, n = 0;
	size_t *idx = calloc(m, sizeof(*idx));
	double *drop = calloc(m, sizeof(*drop)), *cpu = calloc(m, sizeof(*cpu));
	double share = NAN, part = 0.0, all = 0.0;

	if (!idx || !drop || !cpu)
		goto out;
	for (size_t i = 0; i < r->run.njobs; i++) {
		drop[i] = r->jobs[i].loss0 - r->jobs[i].window_loss;
		cpu[i] = r->jobs[i].window_cpu;
		if (submitted(&r->run.jobs[i]))
			idx[n++] = i;
	}
	sim_rank_by_drop(idx, n, drop);
	sim_rank_add_cpu(idx, n, cpu, 0.0, 1.0, &all);
	sim_rank_add_cpu(idx, n, cpu, cut[0], cut[1], &part);
	share = all > 0 ? 100 * part / all : NAN;
out:
	free(idx);
	free(drop);
	free(cpu);
	return share;
}

static double fig_epoch_top(const sim_result_t *r, const void *arg)
{
	(void)arg;
	return 100 * r->epoch_top;
}

static double fig_epoch_bottom(const sim_result_t *r, const void *arg)
{
	(void)arg;
	return 100 * r->epoch_bottom;
}

/* Mean of the jobs' times to level *(int *)arg (those reaching it). */
static double fig_level(const sim_result_t *r, const void *arg)
{
	int l = *(const int *)arg;
	double sum = 0.0;
	size_t n = 0;

	for (size_t i = 0; i < r->run.njobs; i++)
		if (r->jobs[i].level_time[l] >= 0.0) {
			sum += r->jobs[i].level_time[l];
			n++;
		}
	return n ? sum / n : NAN;
}

static double fig_level_reached(const sim_result_t *r, const void *arg)
{
	int l = *(const int *)arg;
	size_t n = 0;

	for (size_t i = 0; i < r->run.njobs; i++)
		n += r->jobs[i].level_time[l] >= 0.0;
	return (double)n;
}

/* The loss series (mean over the submitted jobs) at time *arg. */
double sim_exp_loss_series(const sim_result_t *r, const void *arg)
{
	double t = *(const double *)arg;

	for (size_t i = 0; i < r->nseries; i++)
		if (fabs(r->series_t[i] - t) < 1e-6)
			return r->series_loss[i];
	return NAN;
}

/* Realised / predicted loss drop of plan interval *arg (-1: all). */
static double drop_sum(const sim_result_t *r, int i, bool pred)
{
	double s = 0.0;

	for (size_t k = 0; k < r->nqt; k++)
		if (i < 0 || (size_t)i == k)
			s += pred ? r->qt_pred[k] : r->qt_real[k];
	return i >= 0 && (size_t)i >= r->nqt ? NAN : s;
}

static double fig_drop_real(const sim_result_t *r, const void *arg)
{
	return drop_sum(r, *(const int *)arg, false);
}

static double fig_drop_pred(const sim_result_t *r, const void *arg)
{
	return drop_sum(r, *(const int *)arg, true);
}

/* ---- the report lines ---- */

static void cmp_stat(sim_exp_t *e, const char *name, const sim_result_t *row,
		     sim_exp_figure_fn fig, const void *arg, double paper,
		     const char *unit, const char *note)
{
	double sd, m = sim_exp_seed_stat(row, fig, arg, &sd);

	sim_report_compare_sd(e->report, name, m, sd, e->seeds, paper, unit,
			      note);
}

/* quality/fair of fig, seed by seed: the mean ratio, its s.d., and how
 * many seeds had quality below fair. */
double sim_exp_seed_ratio(const sim_result_t *q, const sim_result_t *d,
			  sim_exp_figure_fn fig, double *sd, unsigned *better)
{
	double x[SIM_EXP_MAX_SEEDS];
	unsigned n = 0;

	*better = 0;
	for (unsigned s = 0; s <= q->nmore_seeds && n < SIM_EXP_MAX_SEEDS;
	     s++) {
		const sim_result_t *a = sim_exp_seed_run(q, s);
		const sim_result_t *b = sim_exp_seed_run(d, s);
		double fa, fb;
		if (!a || !b)
			break;
		fa = fig(a, NULL);
		fb = fig(b, NULL);
		if (!(fb > 0) || isnan(fa))
			continue;
		x[n] = fa / fb;
		*better += fa < fb;
		n++;
	}
	return sim_exp_mean_sd(x, n, sd);
}

static void print_window(sim_exp_t *e, const sim_result_t *q,
			 const sim_result_t *d, const char *note)
{
	char buf[200];
	double sd;
	unsigned better;

	cmp_stat(e, "mean loss at 14 min, quality", q, sim_exp_window_loss,
		 NULL, 0.045, "", note);
	cmp_stat(e, "mean loss at 14 min, fair", d, sim_exp_window_loss, NULL,
		 0.09, "", "same jobs, fair sharing (DRF)");
	double r = sim_exp_seed_ratio(q, d, sim_exp_window_loss, &sd, &better);
	snprintf(buf, sizeof(buf), "per-seed ratio; quality lower on %u of "
		 "%u seeds", better, e->seeds);
	sim_report_compare_sd(e->report, "loss at 14 min, quality/fair", r,
			      sd, e->seeds, 0.5, "", buf);
	cmp_stat(e, "in system at 14 min: loss, q", q, fig_in_system_loss,
		 NULL, NAN, "", "jobs submitted and not finished by then");
	cmp_stat(e, "in system at 14 min: loss, fair", d, fig_in_system_loss,
		 NULL, NAN, "", "the same reading");
	r = sim_exp_seed_ratio(q, d, fig_in_system_loss, &sd, &better);
	snprintf(buf, sizeof(buf), "per-seed ratio; quality lower on %u of "
		 "%u seeds", better, e->seeds);
	sim_report_compare_sd(e->report, "in system at 14 min: q/fair", r, sd,
			      e->seeds, NAN, "", buf);
	cmp_stat(e, "jobs in system at 14 min, fair", d, fig_in_system, NULL,
		 NAN, "", "against the cluster's units (table above)");
	cmp_stat(e, "share of 14-min loss waiting, q", q, fig_waiting_share,
		 NULL, NAN, "%", "loss of jobs not started by then / all");
	cmp_stat(e, "share of 14-min loss waiting, fair", d,
		 fig_waiting_share, NULL, NAN, "%", "the same reading");
	cmp_stat(e, "share of 14-min loss ended, q", q, fig_finished_share,
		 NULL, NAN, "%", "loss of jobs ended (converged) by then / all");
	cmp_stat(e, "share of 14-min loss ended, fair", d, fig_finished_share,
		 NULL, NAN, "%", "the same reading");
	cmp_stat(e, "wait for first start, quality", q, fig_first_wait, NULL,
		 NAN, "s", "mean over the jobs submitted by 14 min");
	cmp_stat(e, "wait for first start, fair", d, fig_first_wait, NULL,
		 NAN, "s", "the same reading");
}

/* " (s.d. X)" for a note, "" for one seed. */
static const char *spread(double sd)
{
	static char buf[32];

	if (isnan(sd))
		return "";
	snprintf(buf, sizeof(buf), " (s.d. %.2g)", sd);
	return buf;
}

/* How much of the room between fair sharing and the uncontended bound
 * the quality policy takes, seed by seed. */
static void print_room(sim_exp_t *e, const sim_result_t *q,
		       const sim_result_t *d, const sim_result_t *b)
{
	double x[SIM_EXP_MAX_SEEDS], sd, fl = 0.0;
	unsigned n = 0;

	for (unsigned s = 0; s <= q->nmore_seeds && n < SIM_EXP_MAX_SEEDS;
	     s++) {
		double lq = sim_exp_window_loss(sim_exp_seed_run(q, s), NULL);
		double ld = sim_exp_window_loss(sim_exp_seed_run(d, s), NULL);
		double lb = sim_exp_window_loss(sim_exp_seed_run(b, s), NULL);
		if (!(ld > lb))
			continue;
		x[n] = 100 * (ld - lq) / (ld - lb);
		fl += lb / ld;
		n++;
	}
	double mean = sim_exp_mean_sd(x, n, &sd);
	cmp_stat(e, "bound: loss at 14 min, 10x units", b,
		 sim_exp_window_loss, NULL, NAN, "", "fair sharing with "
		 "nothing contended: no policy goes below it");
	char note[200];
	snprintf(note, sizeof(note), "(fair - quality) / (fair - bound); "
		 "bound/fair %.2f: quality/fair 0.5 needs %.0f%%",
		 n ? fl / n : NAN, n ? 100 * 0.5 / (1 - fl / n) : NAN);
	sim_report_compare_sd(e->report, "share of the room taken, quality",
			      mean, sd, n, NAN,
			      "%", note);
}

static void print_fig2(sim_exp_t *e, const sim_result_t *q,
		       const sim_result_t *d)
{
	for (int m = 2; m <= 14; m += 2) {
		char name[64], note[200];
		double t = 60.0 * m, sd;
		double f = sim_exp_seed_stat(d, sim_exp_loss_series, &t, &sd);

		/* The paper prints only the start (0.2) and 14 minutes. */
		snprintf(name, sizeof(name), "fig2 loss at %2d min, quality", m);
		snprintf(note, sizeof(note), "fair %.4f%s%s", f, spread(sd),
			 m == 14 ? " (paper 0.09)" : "");
		cmp_stat(e, name, q, sim_exp_loss_series, &t, m == 14 ? 0.045 : NAN, "",
			 note);
	}
}

static void print_fig3(sim_exp_t *e, const sim_result_t *q,
		       const sim_result_t *d)
{
	for (int l = 0; l < SIM_NLEVELS; l++) {
		char name[64], note[200];
		double sd, td = sim_exp_seed_stat(d, fig_level, &l, &sd);

		snprintf(name, sizeof(name), "fig3 s to %.0f%% reduction, quality",
			 100 * sim_levels[l]);
		snprintf(note, sizeof(note), "fair %.0f s%s; jobs "
			 "reaching it %.1f / %.1f (paper gives no numbers)", td,
			 spread(sd), sim_exp_seed_stat(q, fig_level_reached, &l, NULL),
			 sim_exp_seed_stat(d, fig_level_reached, &l, NULL));
		cmp_stat(e, name, q, fig_level, &l, NAN, "s", note);
	}
}

static const double top20[] = { 0.0, 0.2 }, mid30[] = { 0.2, 0.5 },
		    bottom50[] = { 0.5, 1.0 };

static void print_fig4(sim_exp_t *e, const sim_result_t *q,
		       const sim_result_t *d)
{
	char note[200];

	snprintf(note, sizeof(note), "fair %.1f%%; ranked by loss drop in "
		 "the first 14 min",
		 sim_exp_seed_stat(d, fig_cpu_share, top20, NULL));
	cmp_stat(e, "fig4 CPU to top 20%, quality", q, fig_cpu_share, top20,
		 53, "%", note);
	snprintf(note, sizeof(note), "fair %.1f%%",
		 sim_exp_seed_stat(d, fig_cpu_share, mid30, NULL));
	cmp_stat(e, "fig4 CPU to middle 30%, quality", q, fig_cpu_share, mid30,
		 31, "%", note);
	snprintf(note, sizeof(note), "fair %.1f%%",
		 sim_exp_seed_stat(d, fig_cpu_share, bottom50, NULL));
	cmp_stat(e, "fig4 CPU to bottom 50%, quality", q, fig_cpu_share,
		 bottom50, 16, "%", note);
	snprintf(note, sizeof(note), "fair %.1f%%; ranked per interval "
		 "by its loss drop",
		 sim_exp_seed_stat(d, fig_epoch_top, NULL, NULL));
	cmp_stat(e, "fig4 per interval: top 20%", q, fig_epoch_top, NULL, 53,
		 "%", note);
	snprintf(note, sizeof(note), "fair %.1f%%",
		 sim_exp_seed_stat(d, fig_epoch_bottom, NULL, NULL));
	cmp_stat(e, "fig4 per interval: bottom 50%", q, fig_epoch_bottom, NULL,
		 16, "%", note);
}

int sim_exp_quality_synthetic(sim_exp_t *e)
{
	sim_config_t c, f;
	sim_gen_params_t gp;
	int rc;

	sim_exp_quality_setup(e, &c, &gp);
	c.policy = PLAN_QUALITY;
	f = c;
	f.policy = PLAN_DRF;
	if ((rc = sim_exp_variant(e, "quality", &c, &gp, NULL)) ||
	    (rc = sim_exp_variant(e, "fair (drf)", &f, &gp, NULL)))
		return rc;
	const sim_result_t *q = sim_exp_row(e, "quality");
	const sim_result_t *d = sim_exp_row(e, "fair (drf)");
	cmp_stat(e, "mean loss at 14 min, quality", q, sim_exp_window_loss,
		 NULL, 0.045, "", "jobs submitted by then");
	cmp_stat(e, "mean loss at 14 min, fair", d, sim_exp_window_loss, NULL,
		 0.09, "", "same jobs, DRF");
	cmp_stat(e, "CPU to top 20% by loss drop", q, fig_cpu_share, top20,
		 53, "%", "quality policy, first 14 min");
	cmp_stat(e, "CPU to bottom 50% by loss drop", q, fig_cpu_share,
		 bottom50, 16, "%", "quality policy, first 14 min");
	cmp_stat(e, "CPU to top 20%, fair", d, fig_cpu_share, top20, NAN, "%",
		 "for comparison");
	cmp_stat(e, "per interval: CPU to top 20%", q, fig_epoch_top, NULL, 53,
		 "%", "ranked by each interval's loss drop");
	cmp_stat(e, "per interval: CPU to bottom 50%", q, fig_epoch_bottom,
		 NULL, 16, "%", "the same reading");
	cmp_stat(e, "per interval: top 20%, fair", d, fig_epoch_top, NULL, NAN,
		 "%", "for comparison");
	return 0;
}

int sim_exp_quality_curves(sim_curveset_t *set, char *err, size_t errlen)
{
	return sim_curves_read(sim_data_path("OPTIMUS_SIM_CURVES",
					     SIM_CURVES_INSTALLED),
			       set, err, errlen);
}

/* The measured shape of the curves: how early in its run a job has made
 * most of its loss reduction. */
static void print_workload(sim_exp_t *e, const sim_curveset_t *set)
{
	for (int l = 0; l < 3; l++) {
		char name[64];
		double share = sim_curves_level_share(set, sim_levels[l]);

		snprintf(name, sizeof(name), "curves: run to %.0f%% reduction",
			 100 * sim_levels[l]);
		sim_report_compare(e->report, name, 100 * share, NAN, "%",
				   "mean share of a recorded run's iterations "
				   "(the workload, no policy)");
	}
}

/* Predicted against realised loss drop per interval (sum over jobs). */
static void print_drops(sim_exp_t *e, const sim_result_t *r,
			const char *who, bool per_interval)
{
	int all = -1;

	for (int i = 0; per_interval && i < SIM_QT_MAX; i++) {
		char name[64], note[200];
		double p = sim_exp_seed_stat(r, fig_drop_pred, &i, NULL);
		if (isnan(p))
			break;
		snprintf(name, sizeof(name), "drop %d-%d min realised, %s",
			 2 * i, 2 * i + 2, who);
		snprintf(note, sizeof(note), "predicted %.4f for the jobs of "
			 "the interval's first plan%s", p, i ? "" :
			 " (newcomers planned at arrival add to the realised)");
		cmp_stat(e, name, r, fig_drop_real, &i, NAN, "", note);
	}
	char name[64], note[200];
	snprintf(name, sizeof(name), "drop 0-14 min realised, %s", who);
	snprintf(note, sizeof(note), "predicted %.4f (sum over intervals "
		 "and jobs)", sim_exp_seed_stat(r, fig_drop_pred, &all, NULL));
	cmp_stat(e, name, r, fig_drop_real, &all, NAN, "", note);
}

/* Figures 3 and 4 as bar charts (Figure 2 is the common loss chart). */
static int quality_svg(const char *dir, const sim_report_t *r, char *err,
		       size_t errlen)
{
	static const char *const levels[] = { "50%", "80%", "90%", "95%" };
	static const char *const groups[] = { "top 20%", "middle 30%",
					      "bottom 50%" };
	static const double paper[] = { 53, 31, 16 };
	static const double *const cut[] = { top20, mid30, bottom50 };
	const sim_result_t *q = sim_exp_row_of(r, "quality");
	const sim_result_t *d = sim_exp_row_of(r, "fair (drf)");
	double tq[SIM_NLEVELS], td[SIM_NLEVELS], sq[3], sd[3];
	FILE *f;

	if (!q || !d)
		return 0;
	for (int l = 0; l < SIM_NLEVELS; l++) {
		tq[l] = sim_exp_seed_stat(q, fig_level, &l, NULL);
		td[l] = sim_exp_seed_stat(d, fig_level, &l, NULL);
	}
	for (int g = 0; g < 3; g++) {
		sq[g] = sim_exp_seed_stat(q, fig_cpu_share, cut[g], NULL);
		sd[g] = sim_exp_seed_stat(d, fig_cpu_share, cut[g], NULL);
	}
	svg_series_t s3[] = { { "quality", NULL, tq, SIM_NLEVELS },
			      { "fair (drf)", NULL, td, SIM_NLEVELS } };
	svg_series_t s4[] = { { "quality", NULL, sq, 3 },
			      { "fair (drf)", NULL, sd, 3 },
			      { "paper, quality", NULL, paper, 3 } };
	if (!(f = sim_report_open_svg(dir, r->experiment, "levels", err,
				      errlen)))
		return -errno;
	svg_bars(f, "Fig. 3: mean time to each loss reduction (mean of seeds)",
		 "seconds after arrival", levels, SIM_NLEVELS, s3, 2);
	if (fclose(f))
		return -EIO;
	if (!(f = sim_report_open_svg(dir, r->experiment, "cpu-share", err,
				      errlen)))
		return -errno;
	svg_bars(f, "Fig. 4: CPU share by loss drop, first 14 min (mean of "
		 "seeds)", "% of the CPU held", groups, 3, s4, 3);
	return fclose(f) ? -EIO : 0;
}

/* The cost factor giving offered load `load`: the mean recorded run's
 * c*S x cost = load x the cluster's CPU over one mean gap, for the
 * nominal cluster and gap (10 VMs, 15 s) whatever --servers and --gap
 * then change. */
double sim_exp_quality_cost(const sim_curveset_t *set, double load)
{
	double cpu = 10 * 2.0 * UNITS_PER_VM * 15.0;

	return load * cpu / sim_curves_mean_cpu(set);
}

double sim_exp_mean_jct(const sim_result_t *r, const void *arg)
{
	return fig_jct(r, arg);
}

/* Fair sharing's mean job length, in plan intervals, at cost factor
 * gp->cost_scale, on the calibration seeds: the same whatever --seed
 * and --seeds, and never reported. */
static int fair_length(sim_exp_t *e, const sim_config_t *c,
		       const sim_gen_params_t *gp, double *len)
{
	sim_exp_opts_t o = *e->opts;
	sim_report_t *r = calloc(1, sizeof(*r));
	sim_config_t f = *c;
	int rc;

	if (!r)
		return -ENOMEM;
	o.seed = SIM_QUALITY_CALIBRATION_SEED;
	o.progress = NULL;
	sim_exp_t x = { .opts = &o, .seeds = SIM_QUALITY_CALIBRATION_SEEDS,
			.report = r, .err = e->err, .errlen = e->errlen,
			.runs_total = SIM_QUALITY_CALIBRATION_SEEDS };
	f.policy = PLAN_DRF;
	rc = sim_exp_variant(&x, "calibration", &f, gp, NULL);
	if (!rc)
		*len = sim_exp_seed_stat(&r->runs[0], fig_jct, NULL, NULL) /
		       c->interval;
	sim_report_free(r);
	free(r);
	return rc;
}

/*
 * The faithful set-up, every rule fixed before the runs: the
 * plugin's plans at arrivals and completions besides the 2-minute ticks,
 * and jobs that last several plan intervals under fair sharing: the
 * offered load is the first of 1, 2, 4, 8, 16 at which fair sharing's
 * mean job lasts SIM_QUALITY_LENGTH intervals or more, measured on
 * other seeds than the reported ones (fair sharing only: the quality
 * policy's figures play no part). *load: the load chosen.
 */
int sim_exp_quality_faithful(sim_exp_t *e, const sim_curveset_t *set,
			     sim_config_t *c, sim_gen_params_t *gp,
			     double *load)
{
	/* Calibrated on the nominal set-up: --jobs, --gap, --servers and
	 * --interval then change the load, not the jobs. */
	sim_exp_opts_t nominal = *e->opts;
	sim_exp_t ne = *e;
	double len = 0.0;
	int rc = 0;

	nominal.njobs = nominal.nservers = 0;
	nominal.mean_gap = nominal.interval = 0.0;
	ne.opts = &nominal;
	for (int pass = 0; pass < 2; pass++) {
		sim_exp_quality_setup(pass ? e : &ne, c, gp);
		c->sample_every = 5.0;	/* Figure 3's level times */
		c->event_plans = true;
		c->policy = PLAN_QUALITY;
		gp->curves = set;
		for (*load = pass ? *load : 1.0; !pass; *load *= 2) {
			gp->cost_scale = sim_exp_quality_cost(set, *load);
			if (*load >= 16.0 ||
			    (rc = fair_length(e, c, gp, &len)) ||
			    len >= SIM_QUALITY_LENGTH)
				break;
		}
	}
	gp->cost_scale = sim_exp_quality_cost(set, *load);
	return rc;
}

int sim_exp_quality_vs_fair(sim_exp_t *e)
{
	sim_curveset_t set;
	sim_config_t c, f;
	sim_gen_params_t gp;
	int rc;

	e->report->svg_extra = quality_svg;
	if ((rc = sim_exp_quality_curves(&set, e->err, e->errlen)))
		return rc;
	double load;
	if ((rc = sim_exp_quality_faithful(e, &set, &c, &gp, &load)))
		goto out;
	f = c;
	f.policy = PLAN_DRF;
	/* The room any policy has: the same jobs on ten times the units,
	 * each job at up to its most workers, nothing contended. */
	sim_config_t b = f;
	b.nservers *= 10;
	if ((rc = sim_exp_variant(e, "quality", &c, &gp, NULL)) ||
	    (rc = sim_exp_variant(e, "fair (drf)", &f, &gp, NULL)) ||
	    (rc = sim_exp_variant(e, "bound: 10x units", &b, &gp, NULL)))
		goto out;
	const sim_result_t *q = sim_exp_row(e, "quality");
	const sim_result_t *d = sim_exp_row(e, "fair (drf)");
	char note[200];
	double units = (double)c.nservers * UNITS_PER_VM;
	snprintf(note, sizeof(note), "%zu recorded curves, c*S x %.0f (load "
		 "%.2g on %.0f units); jobs submitted by then", set.n,
		 gp.cost_scale, load * 15.0 * 80 / (gp.mean_gap * units),
		 units);
	print_window(e, q, d, note);
	print_room(e, q, d, sim_exp_row(e, "bound: 10x units"));
	snprintf(note, sizeof(note), "fair sharing's mean JCT %.0f s over "
		 "the %.0f s plan interval", sim_exp_seed_stat(d, fig_jct, NULL,
							       NULL),
		 c.interval);
	double sd, m = sim_exp_seed_stat(d, fig_jct, NULL, &sd);
	sim_report_compare_sd(e->report, "job length, fair, in intervals",
			      m / c.interval, sd / c.interval, e->seeds, NAN,
			      "", note);
	snprintf(note, sizeof(note), "fair %.1f; CPUs (a unit is 2, the "
		 "driver 1) in the first %.0f s after arrival",
		 sim_exp_seed_stat(d, fig_young_cpus, &c.interval, NULL),
		 c.interval);
	cmp_stat(e, "CPUs of a young job, quality", q, fig_young_cpus,
		 &c.interval, NAN, "", note);
	snprintf(note, sizeof(note), "fair %.1f; mean over a finished job's "
		 "run", sim_exp_seed_stat(d, fig_run_cpus, NULL, NULL));
	cmp_stat(e, "CPUs over a job's run, quality", q, fig_run_cpus, NULL,
		 NAN, "", note);
	print_workload(e, &set);
	print_fig2(e, q, d);
	print_fig3(e, q, d);
	print_fig4(e, q, d);
	print_drops(e, q, "quality", true);
	print_drops(e, d, "fair", false);
out:
	sim_curves_free(&set);
	return rc;
}

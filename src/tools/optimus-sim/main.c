/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * optimus-sim - trace-driven simulator of the Optimus and quality-driven
 * schedulers, running the plugin's own planning code (plan.h) on
 * simulated jobs. See optimus-sim(1) and doc/design/simulator.md.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gsl/gsl_errno.h>

#include "measured/experiment.h"
#include "measured/truth.h"
#include "sim_exp.h"
#include "sim_progress.h"
#include "util/errmsg.h"
#include "util/version.h"
#include "util/json_strict.h"

typedef struct cli {
	sim_exp_opts_t eo;
	sim_config_t cfg;
	sim_gen_params_t gp;
	char policies[128];
	const char *trace, *json, *svg;
	bool progress, detail, timing;
	bool elastic_baselines;
	uint64_t given;		/* bit (option - O_SEED): on the command line */
} cli_t;

static void usage(FILE *f)
{
	fputs("usage: optimus-sim experiment NAME [--quick] [options]\n"
	      "       optimus-sim run [--policy P,...] [options]\n"
	      "       optimus-sim truth --app NAME --gpus-per-node N[,N...] "
	      "--batch B\n"
	      "       optimus-sim quality-bench SETUP.json [--json FILE]\n"
	      "                  (the prediction for a bench/quality_fair.py run)\n"
	      "       optimus-sim experiments | models | --help | --version\n"
	      "\n"
	      "experiments: optimus-vs-drf oracle-gap ablation damping pollux "
	      "quality-vs-fair quality-sweep (all: optimus-sim experiments)\n"
	      "common options:\n"
	      "  --seed N          first seed (default 1); same seed, same output\n"
	      "  --seeds N         seeds averaged per variant; figures are\n"
	      "                    means with their s.d.\n"
	      "  --quick           small sizes, one seed (experiments)\n"
	      "  --json FILE       write the results as JSON ('-': stdout, no table)\n"
	      "  --svg DIR         write SVG figures into DIR\n"
	      "  --detail          per-job results in the JSON\n"
	      "  --progress        progress bar on stderr even when not a tty\n"
	      "  --timing          wall-clock time on stderr\n"
	      "experiments also take --jobs, --gap, --servers, --interval;\n"
	      "any other run option is refused\n"
	      "run options:\n"
	      "  --policy LIST     optimus,quality,drf,tetris,fifo,oracle "
	      "(default optimus,drf)\n"
	      "  --trace FILE      jobs from a CSV trace (doc/design/simulator.md)\n"
	      "  --jobs N          generated jobs (default 40)\n"
	      "  --arrivals KIND   poisson, google or batch (default poisson)\n"
	      "  --gap S           mean seconds between arrivals (default 180)\n"
	      "  --family F        dl or mllib (default dl)\n"
	      "  --sync-fraction X share of synchronous jobs (default 0.5)\n"
	      "  --size-sigma X    log-normal spread of job sizes (default 0.4)\n"
	      "  --servers N       servers (default 16: 24 CPU, 96 GB, 4 GPU)\n"
	      "  --interval S      scheduling interval (default 600)\n"
	      "  --speed-error X   speed prediction error, std. dev. (0.1)\n"
	      "  --conv-error X    convergence prediction error (0.2)\n"
	      "  --damping X       early-stage damping (default 0.95)\n"
	      "  --restart S       seconds per restart besides checkpoint (20)\n"
	      "  --min-resize S    minimum seconds between resizes (1200)\n"
	      "  --no-placement    first-fit spread instead of Theorem 1\n"
	      "  --no-paa          MXNet's parameter assignment instead of PAA\n"
	      "  --ticks-only      plan every interval only, not also at once\n"
	      "                    when a job arrives or ends\n"
	      "  --elastic-baselines  drf, tetris and fifo resize jobs too;\n"
	      "                    default: they keep each job's submitted size\n",
	      f);
}

enum { O_SEED = 256, O_SEEDS, O_QUICK, O_JSON, O_SVG, O_DETAIL, O_PROGRESS,
       O_TIMING, O_POLICY, O_TRACE, O_JOBS, O_ARRIVALS, O_GAP, O_FAMILY,
       O_SYNC, O_SERVERS, O_INTERVAL, O_SERR, O_CERR, O_DAMPING,
       O_RESTART, O_MINRESIZE, O_NOPLACE, O_NOPAA, O_SIZESIGMA, O_TICKS, O_ELASTIC,
       O_HELP,
       O_VERSION };

#define OPT_BIT(o) (UINT64_C(1) << ((o) - O_SEED))
/* Options of every command; `experiment` adds --quick and the workload
 * options its definition uses (sim_exp_def_t.uses), `run` every other. */
#define OPTS_COMMON (OPT_BIT(O_SEED) | OPT_BIT(O_SEEDS) | OPT_BIT(O_JSON) | \
		     OPT_BIT(O_SVG) | OPT_BIT(O_DETAIL) | OPT_BIT(O_PROGRESS) | \
		     OPT_BIT(O_TIMING) | OPT_BIT(O_HELP) | OPT_BIT(O_VERSION))

static const struct option longopts[] = {
	{ "seed", 1, 0, O_SEED }, { "seeds", 1, 0, O_SEEDS },
	{ "quick", 0, 0, O_QUICK }, { "json", 1, 0, O_JSON },
	{ "svg", 1, 0, O_SVG }, { "detail", 0, 0, O_DETAIL },
	{ "progress", 0, 0, O_PROGRESS }, { "timing", 0, 0, O_TIMING },
	{ "policy", 1, 0, O_POLICY }, { "trace", 1, 0, O_TRACE },
	{ "jobs", 1, 0, O_JOBS }, { "arrivals", 1, 0, O_ARRIVALS },
	{ "gap", 1, 0, O_GAP }, { "family", 1, 0, O_FAMILY },
	{ "sync-fraction", 1, 0, O_SYNC }, { "servers", 1, 0, O_SERVERS },
	{ "interval", 1, 0, O_INTERVAL }, { "speed-error", 1, 0, O_SERR },
	{ "conv-error", 1, 0, O_CERR }, { "damping", 1, 0, O_DAMPING },
	{ "restart", 1, 0, O_RESTART }, { "min-resize", 1, 0, O_MINRESIZE },
	{ "no-placement", 0, 0, O_NOPLACE }, { "no-paa", 0, 0, O_NOPAA },
	{ "size-sigma", 1, 0, O_SIZESIGMA }, { "ticks-only", 0, 0, O_TICKS },
	{ "elastic-baselines", 0, 0, O_ELASTIC },
	{ "help", 0, 0, O_HELP }, { "version", 0, 0, O_VERSION },
	{ 0, 0, 0, 0 }
};

/* A number in [lo, hi] or exit 2 with the option's name. */
static double number(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= lo && v <= hi)) {
		fprintf(stderr, "optimus-sim: --%s: expected a number in "
			"[%g, %g], got '%s'\n", opt, lo, hi, s);
		exit(2);
	}
	return v;
}

static void cli_defaults(cli_t *c)
{
	memset(c, 0, sizeof(*c));
	c->eo.seed = 1;
	sim_config_init(&c->cfg);
	c->cfg.speed_err = 0.10;
	c->cfg.conv_err = 0.20;
	c->gp = (sim_gen_params_t){ .njobs = 40,
				    .arrivals = SIM_ARRIVALS_POISSON,
				    .mean_gap = 180.0,
				    .family = SIM_FAMILY_DL,
				    .sync_fraction = 0.5, .size_sigma = 0.4 };
	snprintf(c->policies, sizeof(c->policies), "optimus,drf");
}

/* The long name of option o, found by its value: the enum and the table
 * need not be in the same order. */
static const char *option_name(int o)
{
	for (const struct option *p = longopts; p->name; p++)
		if (p->val == o)
			return p->name;
	return "?";
}

static int cli_option(cli_t *c, int o, const char *a)
{
	const char *n = option_name(o);

	if (o >= O_SEED && o <= O_VERSION)
		c->given |= OPT_BIT(o);
	switch (o) {
	case O_SEED: c->eo.seed = (uint64_t)number(n, a, 0, 4e9); break;
	case O_SEEDS: c->eo.seeds = (unsigned)number(n, a, 1, 100); break;
	case O_QUICK: c->eo.quick = true; break;
	case O_JSON: c->json = a; break;
	case O_SVG: c->svg = a; break;
	case O_DETAIL: c->detail = true; break;
	case O_PROGRESS: c->progress = true; break;
	case O_TIMING: c->timing = true; break;
	case O_POLICY: snprintf(c->policies, sizeof(c->policies), "%s", a);
		break;
	case O_TRACE: c->trace = a; break;
	case O_JOBS: c->gp.njobs = (size_t)number(n, a, 1, 100000); break;
	case O_ARRIVALS:
		if (sim_arrivals_parse(a, &c->gp.arrivals)) {
			fprintf(stderr, "optimus-sim: --arrivals: poisson, "
				"google or batch\n");
			return 2;
		}
		break;
	case O_GAP: c->gp.mean_gap = number(n, a, 0, 1e7); break;
	case O_FAMILY:
		if (strcmp(a, "dl") && strcmp(a, "mllib")) {
			fprintf(stderr, "optimus-sim: --family: dl or mllib\n");
			return 2;
		}
		c->gp.family = strcmp(a, "dl") ? SIM_FAMILY_MLLIB :
						 SIM_FAMILY_DL;
		break;
	case O_SYNC: c->gp.sync_fraction = number(n, a, 0, 1); break;
	case O_SERVERS: c->cfg.nservers = (size_t)number(n, a, 1, 100000);
		break;
	case O_INTERVAL: c->cfg.interval = number(n, a, 1, 86400); break;
	case O_SERR: c->cfg.speed_err = number(n, a, 0, 2); break;
	case O_CERR: c->cfg.conv_err = number(n, a, 0, 2); break;
	case O_DAMPING: c->cfg.damping = number(n, a, 0, 1); break;
	case O_RESTART: c->cfg.restart_base = number(n, a, 0, 86400); break;
	case O_MINRESIZE:
		c->cfg.min_resize_interval = number(n, a, 0, 1e7);
		break;
	case O_NOPLACE: c->cfg.placement = false; break;
	case O_NOPAA: c->cfg.paa = false; break;
	case O_TICKS: c->cfg.event_plans = false; break;
	case O_ELASTIC: c->elastic_baselines = true; break;
	case O_SIZESIGMA: c->gp.size_sigma = number(n, a, 0, 3); break;
	case O_HELP: usage(stdout); exit(0);
	case O_VERSION: printf("optimus-sim %s\n", OPTIMUS_VERSION); exit(0);
	default: usage(stderr); return 2;
	}
	return 0;
}

static int emit(const cli_t *c, sim_report_t *r)
{
	char err[256];
	int rc = 0;

	if (!c->json || strcmp(c->json, "-"))
		sim_report_table(stdout, r);
	if (c->json) {
		json_object *o = sim_report_json(r, c->detail);
		/* strict JSON: a non-finite figure is null */
		const char *s = json_object_to_json_string_ext(json_strict(o),
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
		FILE *f = strcmp(c->json, "-") ? fopen(c->json, "w") : stdout;
		if (!f || fprintf(f, "%s\n", s) < 0 ||
		    (f != stdout && fclose(f))) {
			fprintf(stderr, "optimus-sim: %s: %s\n", c->json,
				strerror(errno));
			rc = 1;
		}
		json_object_put(o);
	}
	if (c->svg && sim_report_svg(c->svg, r, err, sizeof(err))) {
		fprintf(stderr, "optimus-sim: %s\n", err);
		rc = 1;
	}
	return rc;
}

/* `run`: one variant per policy of the list, on one workload. */
static int cmd_run(cli_t *c, sim_report_t *r, sim_exp_t *e)
{
	sim_workload_t trace = { 0 };
	char *save = NULL, err[256];
	int rc = 0;

	if (c->trace && sim_workload_read(c->trace, &trace, err, sizeof(err))) {
		fprintf(stderr, "optimus-sim: %s\n", err);
		return 1;
	}
	for (char *p = strtok_r(c->policies, ",", &save); p && !rc;
	     p = strtok_r(NULL, ",", &save)) {
		sim_config_t cfg = c->cfg;
		cfg.oracle = !strcmp(p, "oracle");
		if (!cfg.oracle && plan_policy_parse(p, &cfg.policy)) {
			fprintf(stderr, "optimus-sim: unknown policy '%s'\n",
				p);
			rc = 2;
			break;
		}
		if (cfg.oracle)
			cfg.policy = PLAN_OPTIMUS;
		/* The paper's baselines fix a job's size at submission. */
		cfg.fixed_size = !c->elastic_baselines &&
				 plan_policy_fixed_size(cfg.policy);
		rc = sim_exp_variant(e, p, &cfg, &c->gp,
				     c->trace ? &trace : NULL);
		if (rc && rc != 2) {
			/* run_command prints it: the policy first */
			char why[200];
			snprintf(why, sizeof(why), "%s", e->err);
			errmsg_set(e->err, e->errlen, 0, "%s: %s", p, why);
		}
	}
	sim_workload_free(&trace);
	(void)r;
	return rc ? (rc == 2 ? 2 : 1) : 0;
}

static void list_experiments(void)
{
	for (size_t i = 0; i < sim_exp_count(); i++)
		printf("%-16s %s\n", sim_exp_at(i)->name,
		       sim_exp_at(i)->summary);
	printf("%-16s %s\n", "pollux", "measured workloads of the Pollux "
	       "artifact: the peer's baselines and ours beside their "
	       "published JCTs (own options: experiment pollux --help)");
}

static void list_models(void)
{
	printf("%-13s %-6s %9s %8s %6s %7s %6s\n", "model", "family",
	       "params M", "GFLOP", "batch", "epochs", "blocks");
	for (size_t i = 0; i < sim_catalog_count(); i++) {
		const sim_model_t *m = sim_catalog_at(i);
		printf("%-13s %-6s %9.2f %8.3g %6.0f %7.0f %6u\n", m->name,
		       m->family == SIM_FAMILY_DL ? "dl" : "mllib",
		       m->params_m, m->gflops, m->batch, m->epochs,
		       m->nlayers);
	}
}

/* The options experiment `d` (NULL: the run command) uses. */
static uint64_t options_used(const sim_exp_def_t *d)
{
	static const struct { unsigned use; int opt; } workload[] = {
		{ SIM_EXP_USE_JOBS, O_JOBS }, { SIM_EXP_USE_GAP, O_GAP },
		{ SIM_EXP_USE_SERVERS, O_SERVERS },
		{ SIM_EXP_USE_INTERVAL, O_INTERVAL },
	};
	uint64_t used = OPTS_COMMON | OPT_BIT(O_QUICK);

	if (!d)
		return ~OPT_BIT(O_QUICK);
	for (size_t i = 0; i < sizeof(workload) / sizeof(workload[0]); i++)
		if (d->uses & workload[i].use)
			used |= OPT_BIT(workload[i].opt);
	return used;
}

/* An option the command would ignore is an error naming it (exit 2);
 * the used workload options become the experiment's overrides. */
static int options_check(cli_t *c, const sim_exp_def_t *d, const char *what)
{
	uint64_t extra = c->given & ~options_used(d);

	for (int o = O_SEED; o <= O_VERSION; o++)
		if (extra & OPT_BIT(o)) {
			fprintf(stderr, "optimus-sim: %s does not use --%s\n",
				what, option_name(o));
			return 2;
		}
	if (c->given & OPT_BIT(O_JOBS))
		c->eo.njobs = c->gp.njobs;
	if (c->given & OPT_BIT(O_GAP))
		c->eo.mean_gap = c->gp.mean_gap;
	if (c->given & OPT_BIT(O_SERVERS))
		c->eo.nservers = c->cfg.nservers;
	if (c->given & OPT_BIT(O_INTERVAL))
		c->eo.interval = c->cfg.interval;
	return 0;
}

static int run_command(cli_t *c, const char *cmd, const char *name)
{
	sim_report_t r;
	sim_progress_t pb;
	char err[256] = "";
	int rc;
	struct timespec t0, t1;

	const sim_exp_def_t *d = NULL;
	char what[80];

	if (!strcmp(cmd, "experiment")) {
		if (!(d = sim_exp_find(name))) {
			fprintf(stderr, "optimus-sim: unknown experiment '%s' "
				"(see optimus-sim experiments)\n",
				name ? name : "");
			return 2;
		}
		snprintf(what, sizeof(what), "experiment %s", d->name);
	} else if (!strcmp(cmd, "quality-bench")) {
		if (!name) {
			fprintf(stderr, "optimus-sim: quality-bench needs the "
				"bench's set-up file\n");
			return 2;
		}
		snprintf(what, sizeof(what), "quality-bench");
	} else {
		snprintf(what, sizeof(what), "run");
	}
	/* quality-bench takes its set-up from the file: the common options
	 * only. */
	if (!strcmp(cmd, "quality-bench") &&
	    (c->given & ~OPTS_COMMON)) {
		fprintf(stderr, "optimus-sim: quality-bench takes its set-up "
			"from the file (only --json, --timing, --progress)\n");
		return 2;
	}
	if (strcmp(cmd, "quality-bench") && options_check(c, d, what))
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	sim_progress_init(&pb, c->progress, name ? name : cmd);
	c->eo.progress = sim_progress_update;
	c->eo.progress_ctx = &pb;
	if (d) {
		rc = sim_exp_run(d, &c->eo, &r, err, sizeof(err));
	} else if (!strcmp(cmd, "quality-bench")) {
		sim_exp_t e = { .opts = &c->eo, .seeds = 1, .report = &r,
				.err = err, .errlen = sizeof(err),
				.runs_total = 2 };
		memset(&r, 0, sizeof(r));
		r.experiment = "quality-bench";
		r.seed = c->eo.seed;
		r.seeds = 1;
		rc = sim_exp_quality_bench(&e, name);
	} else {
		unsigned seeds = c->eo.seeds ? c->eo.seeds : 1;
		sim_exp_t e = { .opts = &c->eo, .seeds = seeds,
				.report = &r, .err = err,
				.errlen = sizeof(err) };
		memset(&r, 0, sizeof(r));
		r.experiment = "run";
		r.seed = c->eo.seed;
		r.seeds = seeds;
		e.runs_total = seeds * 6;
		rc = cmd_run(c, &r, &e);
	}
	sim_progress_end(&pb);
	if (rc) {
		if (err[0])
			fprintf(stderr, "optimus-sim: %s\n", err);
		sim_report_free(&r);
		return rc == 2 ? 2 : 1;
	}
	rc = emit(c, &r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (c->timing) {
		double plan = 0;
		for (size_t i = 0; i < r.nruns; i++)
			plan += r.runs[i].plan_wall;
		fprintf(stderr, "wall-clock %.2f s (plan_run %.2f s)\n",
			(t1.tv_sec - t0.tv_sec) +
			1e-9 * (t1.tv_nsec - t0.tv_nsec), plan);
	}
	sim_report_free(&r);
	return rc;
}

int main(int argc, char **argv)
{
	cli_t c;
	int o;

	/* GSL's default error handler aborts: the models return errors. */
	gsl_set_error_handler_off();
	/* The measured-workload experiment has options of its own. */
	if (px_exp_wanted(argc, argv))
		return px_exp_main(argc, argv);
	/* The truth of one measured job, for the replay trainer. */
	if (px_truth_wanted(argc, argv))
		return px_truth_main(argc, argv);
	cli_defaults(&c);
	while ((o = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (o == 'h')
			o = O_HELP;
		if (o == '?' || cli_option(&c, o, optarg)) {
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[optind];
	if (!strcmp(cmd, "experiments")) {
		list_experiments();
		return 0;
	}
	if (!strcmp(cmd, "models")) {
		list_models();
		return 0;
	}
	if (strcmp(cmd, "run") && strcmp(cmd, "experiment") &&
	    strcmp(cmd, "quality-bench")) {
		fprintf(stderr, "optimus-sim: unknown command '%s'\n", cmd);
		usage(stderr);
		return 2;
	}
	return run_command(&c, cmd, optind + 1 < argc ? argv[optind + 1] :
						      NULL);
}

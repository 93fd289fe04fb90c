/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/experiment.c - `optimus-sim experiment pollux` (see measured/experiment.h): the
 * runs, one per (load, policy, workload), aggregated per (load, policy)
 * and printed as a table, JSON and SVG beside the published figures.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "sim_data.h"
#include "util/errmsg.h"
#include "util/json_num.h"
#include <json-c/json.h>

#include "measured/declared.h"
#include "measured/policy.h"
#include "measured/experiment.h"
#include "util/svg.h"

/* Workloads of a set: the published ones are the artifact's generator's
 * seeds 1-8 (the test set), the validation ones seeds 9-24, made with the
 * same generator and its defaults (testsuite/data/pollux-osdi21/README.md);
 * a workload's number is its seed. */
#define NWL 16
#define TEST_FIRST 1
#define TEST_COUNT 8
#define VALIDATION_FIRST 9
#define VALIDATION_COUNT 16
#define MAX_LOADS 4
#define MAX_POL 16
/* The peer's published policies, as named in published/<name>-<load>. */
static const char *const pub_names[] = { "pollux", "optimus", "tiresias" };
static const char *const pub_labels[] = { "Pollux", "Optimus+Oracle",
					  "Tiresias" };
#define NPUB 3
/* The peer's simulator run unchanged on workloads-realistic/workload-6
 * (data README): Optimus+Oracle, Tiresias; nothing else is published
 * for realistic sizes. */
#define REAL6_OPTIMUS 6685.3
#define REAL6_TIRESIAS 7731.1

typedef struct px_opts {
	const char *data, *json, *svg;
	double loads[MAX_LOADS];
	size_t nloads;
	int workloads[NWL];
	size_t nworkloads;
	const char *workload_arg;	/* --workload, read with the set */
	bool validation;		/* --workload-set validation */
	/* What the users say of their jobs' length (measured/declared.h);
	 * hints_set: given on the command line. */
	px_hints_t hints;
	bool hints_set;
	bool realistic, detail;
	/* --print-hints: the slice's jobs with their hints, no run. */
	bool print_hints;
	px_prerun_mode_t prerun;
	const char *pols[MAX_POL];
	size_t npols;
	char polbuf[256];
	/* A slice on another cluster (bench/pollux_replay.py): `jobs` jobs
	 * (0: all) from the `first`-th in arrival order (0: the first), each
	 * job's first `epochs` epochs (0: its application's count), the
	 * cluster's shape and timing. */
	size_t first, jobs;
	int epochs;
	px_shape_t shape;
} px_opts_t;

/* Seconds the runs took: on the clock, and of this process' CPU (what
 * "on one core" means on a shared machine). */
typedef struct px_time {
	double wall, cpu;
} px_time_t;

typedef struct px_row {
	char label[32];		/* the policy's, "+oracle-prerun" included */
	const char *oracle;	/* what it reads free, NULL: nothing */
	double load;
	size_t njobs, ndone;
	double avg_jct, median_jct, p99_jct, makespan, gpu_util, restarts;
	double rebatches;	/* batch changes taken in place */
	double per_wl[NWL];	/* avg JCT per selected workload */
	double *jcts;		/* pooled, sorted */
	size_t njcts;
	double published[NPUB];	/* NAN: none */
	json_object *detail;	/* --detail: every job's JCT */
} px_row_t;

static void usage(FILE *f)
{
	fputs("usage: optimus-sim experiment pollux [--workload N|all] "
	      "[--load X|all] [--realistic]\n"
	      "         [--workload-set test|validation] "
	      "[--hints noisy|exact|none]\n"
	      "         [--policy LIST] [--data DIR] [--json FILE] "
	      "[--svg DIR] [--detail]\n"
	      "         [--charged-prerun|--oracle-prerun]\n"
	      "  --workload N|all  workload-N.csv, 1..8 (default 6); "
	      "validation: 9..24\n                    (default all)\n"
	      "  --workload-set S  test: the published workloads (the "
	      "artifact's generator,\n                    seeds 1-8); "
	      "validation: the same generator, seeds 9-24\n"
	      "  --hints H         what users say of their jobs' length "
	      "(our policies):\n"
	      "                    noisy: epochs= the true count times a "
	      "lognormal factor\n                    (sigma 0.25, "
	      "seeded by the workload's number), no\n"
	      "                    epoch_steps= (the default; exact with "
	      "--bench-hints);\n                    exact: epochs= and "
	      "epoch_steps= exact; none: neither\n"
	      "  --load X|all      0.5, 1, 1.5, 2 (default 1)\n"
	      "  --realistic       sizes as users pick them (load 1 only)\n"
	      "  --policy LIST     default: every policy\n"
	      "  --charged-prerun  optimus, optimus-rate, goodput and quality "
	      "run every job's\n                    first "
	      "round as a pre-run at 1, 2, 4, 8, 16 GPUs on its own\n"
	      "                    GPUs (labelled +charged-prerun)\n"
	      "  --oracle-prerun   an oracle: the same policies start every "
	      "job with its\n"
	      "                    true step times at 1, 2, 4, 8, 16 GPUs, "
	      "free\n"
	      "                    (labelled +oracle-prerun)\n"
	      "  --data DIR        the measured data (default "
	      "$OPTIMUS_POLLUX_DATA,\n                    else "
	      POLLUX_DATA_INSTALLED ")\n"
	      "A slice on another cluster (bench/pollux_replay.py; seconds "
	      "of the trace):\n"
	      "  --jobs N          the first N jobs of each workload\n"
	      "  --first K         the slice starts at the K-th job in arrival "
	      "order\n                    (0: the first; default 0)\n"
	      "  --epochs E        each job's first E epochs\n"
	      "  --nodes N         nodes of 4 GPUs (default 16)\n"
	      "  --round S         seconds between plans (default 60)\n"
	      "  --start S         seconds lost at a job's first start "
	      "(default 30)\n"
	      "  --start-queued S  seconds each first start adds to the "
	      "starts queued\n                    behind it "
	      "(sim_start_cost.h; default 0:\n"
	      "                    every start costs --start)\n"
	      "  --restart S       seconds lost per re-allocation "
	      "(default 30)\n"
	      "  --rebatch S       seconds lost per batch change taken in "
	      "place (default 5,\n                    RebatchCost's)\n"
	      "  --min-resize S    seconds between two resizes of a job "
	      "(default 10 x the\n                    restart: 300)\n"
	      "  --explore-scaling yes|no  our policies' ExploreScaling "
	      "(default yes)\n"
	      "  --goodput-objective rate|speedup|speedup-restart  goodput's "
	      "allocation\n                    objective: the completion "
	      "rate (default), Pollux's\n                    harmonic mean "
	      "of speedups over the fair share, or\n                    "
	      "that with Pollux's restart weighting\n"
	      "  --limit-unit S    slurm-backfill's time limits in whole "
	      "units (default 60)\n"
	      "  --limit-start S   the start slurm-backfill's limits allow "
	      "for (default: --start)\n"
	      "  --bench-hints     the jobs as bench/pollux_replay.py submits "
	      "them: no\n                    epoch_steps= (learned from the "
	      "epochs reported), a goodput\n                    job's batch "
	      "range from its submitted batch\n"
	      "  --rebatch-by-restart  the jobs never say their batch (as "
	      "examples/\n                    replay_trainer.py): a batch "
	      "change is a restart\n"
	      "  --print-hints     no run: print the jobs as JSON, each with "
	      "the hints it\n                    says under each policy of "
	      "ours in --policy (--scheduler=\n                    text, "
	      "what its record is given)\n", f);
}

static int parse_loads(px_opts_t *o, const char *a)
{
	static const double all[] = { 0.5, 1.0, 1.5, 2.0 };

	if (!strcmp(a, "all")) {
		memcpy(o->loads, all, sizeof(all));
		o->nloads = 4;
		return 0;
	}
	char *end;
	double v = strtod(a, &end);
	for (int i = 0; i < 4; i++)
		if (end != a && !*end && v == all[i]) {
			o->loads[0] = v;
			o->nloads = 1;
			return 0;
		}
	fprintf(stderr, "optimus-sim: --load: 0.5, 1, 1.5, 2 or all, got "
		"'%s'\n", a);
	return 2;
}

/* --workload within the set: its default (6 of the test set, all of the
 * validation set), one number of the set, or all. */
static int parse_workloads(px_opts_t *o, const char *a)
{
	int first = o->validation ? VALIDATION_FIRST : TEST_FIRST;
	int count = o->validation ? VALIDATION_COUNT : TEST_COUNT;

	if (!a)
		a = o->validation ? "all" : "6";
	if (!strcmp(a, "all")) {
		for (int i = 0; i < count; i++)
			o->workloads[i] = first + i;
		o->nworkloads = (size_t)count;
		return 0;
	}
	char *end;
	long v = strtol(a, &end, 10);
	if (end == a || *end || v < first || v >= first + count) {
		fprintf(stderr, "optimus-sim: --workload: %d..%d or all (the "
			"%s set), got '%s'\n", first, first + count - 1,
			o->validation ? "validation" : "test", a);
		return 2;
	}
	o->workloads[0] = (int)v;
	o->nworkloads = 1;
	return 0;
}

static int parse_policies(px_opts_t *o, const char *a)
{
	char *save = NULL;

	snprintf(o->polbuf, sizeof(o->polbuf), "%s", a);
	o->npols = 0;
	for (char *p = strtok_r(o->polbuf, ",", &save); p;
	     p = strtok_r(NULL, ",", &save)) {
		bool known = false;
		for (size_t i = 0; i < px_policy_count; i++)
			known |= !strcmp(p, px_policy_names[i]);
		if (!known || o->npols == MAX_POL) {
			fprintf(stderr, "optimus-sim: --policy: unknown '%s' (",
				p);
			for (size_t i = 0; i < px_policy_count; i++)
				fprintf(stderr, "%s%s", i ? ", " : "",
					px_policy_names[i]);
			fputs(")\n", stderr);
			return 2;
		}
		o->pols[o->npols++] = p;
	}
	return 0;
}

/* --goodput-objective's words, by plan_goodput_objective_t. */
static const char *const goodput_objectives[] = {
	[PLAN_GOODPUT_RATE] = "rate",
	[PLAN_GOODPUT_SPEEDUP] = "speedup",
	[PLAN_GOODPUT_SPEEDUP_RESTART] = "speedup-restart",
};

/* The objective word a names into *out: 0, or -EINVAL. */
static int goodput_objective_parse(const char *a,
				   plan_goodput_objective_t *out)
{
	for (size_t k = 0; k < sizeof(goodput_objectives) /
				sizeof(goodput_objectives[0]); k++)
		if (!strcmp(a, goodput_objectives[k])) {
			*out = (plan_goodput_objective_t)k;
			return 0;
		}
	return -EINVAL;
}

/* A number of the slice's options within [lo, hi]: 0 or 2. */
static int parse_num(const char *name, const char *a, double lo, double hi,
		     double *out)
{
	char *end;
	double v = strtod(a, &end);

	if (end == a || *end || !(v >= lo && v <= hi)) {
		fprintf(stderr, "optimus-sim: --%s: a number in [%g, %g], got "
			"'%s'\n", name, lo, hi, a);
		return 2;
	}
	*out = v;
	return 0;
}

/* --jobs, --first, --epochs, --nodes: whole numbers. */
static int parse_int(const char *name, const char *a, int lo, int hi,
		     int *out)
{
	double v;
	int rc = parse_num(name, a, lo, hi, &v);

	if (!rc && v != floor(v)) {
		fprintf(stderr, "optimus-sim: --%s: a whole number, got '%s'\n",
			name, a);
		rc = 2;
	}
	*out = (int)v;
	return rc;
}

enum { O_WL = 1, O_LOAD, O_REAL, O_POL, O_DATA, O_JSON, O_SVG, O_DETAIL,
       O_CHARGED_PRERUN, O_ORACLE_PRERUN, O_HELP, O_JOBS, O_EPOCHS, O_NODES,
       O_ROUND, O_START, O_RESTART, O_MIN_RESIZE, O_LIMIT_UNIT, O_LIMIT_START,
       O_EXPLORE, O_START_QUEUED, O_BENCH_HINTS,
       O_FIRST, O_WL_SET, O_HINTS, O_REBATCH, O_REBATCH_BY_RESTART,
       O_PRINT_HINTS, O_GOODPUT_OBJECTIVE };

/* The shape's seconds (of the trace): option, range, field, JSON key. */
static const struct {
	int opt;
	const char *name;
	double lo, hi;
	size_t off;
	const char *key;
} shape_secs[] = {
	{ O_ROUND, "round", 1e-3, 86400, offsetof(px_shape_t, round),
	  "round_s" },
	{ O_START, "start", 0, 86400, offsetof(px_shape_t, start),
	  "start_s" },
	{ O_START_QUEUED, "start-queued", 0, 86400,
	  offsetof(px_shape_t, start_queued), "start_queued_s" },
	{ O_RESTART, "restart", 0, 86400, offsetof(px_shape_t, restart),
	  "restart_s" },
	{ O_REBATCH, "rebatch", 0, 86400, offsetof(px_shape_t, rebatch),
	  "rebatch_s" },
	{ O_MIN_RESIZE, "min-resize", 0, 1e7,
	  offsetof(px_shape_t, min_resize), "min_resize_s" },
	{ O_LIMIT_UNIT, "limit-unit", 1e-3, 1e6,
	  offsetof(px_shape_t, limit_unit), "limit_unit_s" },
	{ O_LIMIT_START, "limit-start", 0, 86400,
	  offsetof(px_shape_t, limit_start), "limit_start_s" },
};
#define NSHAPE_SECS (sizeof(shape_secs) / sizeof(shape_secs[0]))

/* One of shape_secs into o->shape: 0, 2 (bad value) or -1 (not one). */
static int parse_shape_secs(px_opts_t *o, int opt, const char *a)
{
	for (size_t i = 0; i < NSHAPE_SECS; i++)
		if (shape_secs[i].opt == opt)
			return parse_num(shape_secs[i].name, a, shape_secs[i].lo,
					 shape_secs[i].hi,
					 (double *)((char *)&o->shape +
						    shape_secs[i].off));
	return -1;
}

static int parse(int argc, char **argv, px_opts_t *o)
{
	static const struct option lo[] = {
		{ "workload", 1, 0, O_WL }, { "load", 1, 0, O_LOAD },
		{ "realistic", 0, 0, O_REAL }, { "policy", 1, 0, O_POL },
		{ "data", 1, 0, O_DATA }, { "json", 1, 0, O_JSON },
		{ "svg", 1, 0, O_SVG }, { "detail", 0, 0, O_DETAIL },
		{ "charged-prerun", 0, 0, O_CHARGED_PRERUN },
		{ "oracle-prerun", 0, 0, O_ORACLE_PRERUN },
		{ "jobs", 1, 0, O_JOBS }, { "epochs", 1, 0, O_EPOCHS },
		{ "first", 1, 0, O_FIRST },
		{ "nodes", 1, 0, O_NODES }, { "round", 1, 0, O_ROUND },
		{ "start", 1, 0, O_START }, { "restart", 1, 0, O_RESTART },
		{ "rebatch", 1, 0, O_REBATCH },
		{ "start-queued", 1, 0, O_START_QUEUED },
		{ "min-resize", 1, 0, O_MIN_RESIZE },
		{ "limit-unit", 1, 0, O_LIMIT_UNIT },
		{ "limit-start", 1, 0, O_LIMIT_START },
		{ "explore-scaling", 1, 0, O_EXPLORE },
		{ "goodput-objective", 1, 0, O_GOODPUT_OBJECTIVE },
		{ "bench-hints", 0, 0, O_BENCH_HINTS },
		{ "workload-set", 1, 0, O_WL_SET }, { "hints", 1, 0, O_HINTS },
		{ "rebatch-by-restart", 0, 0, O_REBATCH_BY_RESTART },
		{ "print-hints", 0, 0, O_PRINT_HINTS },
		{ "help", 0, 0, O_HELP }, { 0, 0, 0, 0 } };
	int c, rc = 0, jobs = 0, first = 0;
	bool min_resize_set = false;

	memset(o, 0, sizeof(*o));
	o->shape = px_shape_default();
	o->data = sim_data_path("OPTIMUS_POLLUX_DATA", POLLUX_DATA_INSTALLED);
	o->loads[0] = 1.0;
	o->nloads = 1;
	for (size_t i = 0; i < px_policy_count; i++)
		o->pols[o->npols++] = px_policy_names[i];
	optind = 1;
	while (!rc && (c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_WL: o->workload_arg = optarg; break;
		case O_WL_SET:
			if (!strcmp(optarg, "test") ||
			    !strcmp(optarg, "validation")) {
				o->validation = !strcmp(optarg, "validation");
				break;
			}
			fprintf(stderr, "optimus-sim: --workload-set: test or "
				"validation, not '%s'\n", optarg);
			rc = 2;
			break;
		case O_HINTS:
			if (px_hints_parse(optarg, &o->hints)) {
				fprintf(stderr, "optimus-sim: --hints: noisy, "
					"exact or none, not '%s'\n", optarg);
				rc = 2;
			}
			o->hints_set = true;
			break;
		case O_LOAD: rc = parse_loads(o, optarg); break;
		case O_REAL: o->realistic = true; break;
		case O_BENCH_HINTS: o->shape.bench_hints = true; break;
		case O_PRINT_HINTS: o->print_hints = true; break;
		case O_REBATCH_BY_RESTART:
			o->shape.rebatch_by_restart = true;
			break;
		case O_POL: rc = parse_policies(o, optarg); break;
		case O_DATA: o->data = optarg; break;
		case O_JSON: o->json = optarg; break;
		case O_SVG: o->svg = optarg; break;
		case O_DETAIL: o->detail = true; break;
		case O_CHARGED_PRERUN:
		case O_ORACLE_PRERUN:
			if (o->prerun) {
				fprintf(stderr, "optimus-sim: --charged-prerun "
					"and --oracle-prerun exclude each "
					"other\n");
				rc = 2;
			}
			o->prerun = c == O_ORACLE_PRERUN ? PX_PRERUN_ORACLE :
							   PX_PRERUN_CHARGED;
			break;
		case O_JOBS:
			rc = parse_int("jobs", optarg, 1, 1000000, &jobs);
			o->jobs = (size_t)jobs;
			break;
		case O_FIRST:
			rc = parse_int("first", optarg, 0, 1000000, &first);
			o->first = (size_t)first;
			break;
		case O_EPOCHS:
			rc = parse_int("epochs", optarg, 1, 1000, &o->epochs);
			break;
		case O_NODES:
			rc = parse_int("nodes", optarg, 1, PX_NODES,
				       &o->shape.nodes);
			break;
		case O_EXPLORE:
			if (!strcmp(optarg, "yes") || !strcmp(optarg, "no")) {
				o->shape.explore_scaling = !strcmp(optarg,
								   "yes");
				break;
			}
			fprintf(stderr, "optimus-sim: --explore-scaling: "
				"yes or no, not '%s'\n", optarg);
			rc = 2;
			break;
		case O_GOODPUT_OBJECTIVE:
			if (!goodput_objective_parse(optarg,
						     &o->shape.goodput_objective))
				break;
			fprintf(stderr, "optimus-sim: --goodput-objective: "
				"rate, speedup or speedup-restart, not "
				"'%s'\n", optarg);
			rc = 2;
			break;
		case 'h': case O_HELP: usage(stdout); exit(0);
		default:
			min_resize_set |= c == O_MIN_RESIZE;
			if ((rc = parse_shape_secs(o, c, optarg)) < 0) {
				usage(stderr);
				return 2;
			}
		}
	}
	if (!rc)
		rc = parse_workloads(o, o->workload_arg);
	/* Users' epoch counts as users give them, unless told; the bench's
	 * jobs are submitted with the exact count (--bench-hints). */
	if (!o->hints_set)
		o->hints = o->shape.bench_hints ? PX_HINTS_EXACT :
						  PX_HINTS_NOISY;
	/* The set-up's rule: the stability interval follows the restart
	 * cost unless given. */
	if (!min_resize_set)
		o->shape.min_resize = px_min_resize_for(o->shape.restart);
	/* The limits allow for the start a job costs unless told otherwise
	 * (the JSON's cluster shows the one used). */
	if (o->shape.limit_start < 0)
		o->shape.limit_start = o->shape.start;
	/* Positional words: "experiment pollux" only. */
	for (int i = optind; !rc && i < argc; i++)
		if (strcmp(argv[i], "experiment") && strcmp(argv[i], "pollux")) {
			fprintf(stderr, "optimus-sim: experiment pollux: "
				"unexpected '%s'\n", argv[i]);
			rc = 2;
		}
	if (!rc && o->realistic && o->validation) {
		fprintf(stderr, "optimus-sim: --realistic: the validation set "
			"has tuned sizes only\n");
		rc = 2;
	}
	if (!rc && o->realistic && (o->nloads != 1 || o->loads[0] != 1.0)) {
		fprintf(stderr, "optimus-sim: --realistic: only load 1 has "
			"realistic sizes\n");
		rc = 2;
	}
	return rc;
}

static void wl_path(const px_opts_t *o, double load, int n, char *buf,
		    size_t len)
{
	const char *set = o->validation ? "/validation" : "";

	if (o->realistic)
		snprintf(buf, len, "%s/workloads-realistic/workload-%d.csv",
			 o->data, n);
	else if (load == 1.0)
		snprintf(buf, len, "%s%s/workloads/workload-%d.csv", o->data,
			 set, n);
	else
		snprintf(buf, len, "%s%s/workloads-%.1f/workload-%d.csv",
			 o->data, set, load, n);
}

/* The published average JCT of `pub` at `load` over the selected
 * workloads (their own mean when all 8): NAN if not published. */
static bool sliced(const px_opts_t *o)
{
	px_shape_t d = px_shape_default();
	const px_shape_t *h = &o->shape;

	return o->first || o->jobs || o->epochs || h->nodes != d.nodes ||
	       h->round != d.round || h->start != d.start ||
	       h->start_queued != d.start_queued ||
	       h->restart != d.restart || h->min_resize != d.min_resize ||
	       h->limit_unit != d.limit_unit || h->limit_start != h->start;
}

static double published(const px_opts_t *o, size_t pub, double load)
{
	char path[600];
	double sum = 0;
	size_t n = 0;

	/* Published for the whole test workloads on 16 nodes only. */
	if (sliced(o) || o->validation)
		return NAN;
	if (o->realistic)
		return o->nworkloads == 1 && o->workloads[0] == 6 ?
			       (pub == 1 ? REAL6_OPTIMUS :
				pub == 2 ? REAL6_TIRESIAS : NAN) : NAN;
	snprintf(path, sizeof(path), "%s/published/%s-%.1f.json", o->data,
		 pub_names[pub], load);
	json_object *root = json_object_from_file(path), *avgs, *v;
	if (!root)
		return NAN;
	if (json_object_object_get_ex(root, "avgs", &avgs))
		for (size_t w = 0; w < o->nworkloads; w++) {
			char key[32];
			snprintf(key, sizeof(key), "workload-%d",
				 o->workloads[w]);
			if (json_object_object_get_ex(avgs, key, &v)) {
				sum += json_object_get_double(v);
				n++;
			}
		}
	json_object_put(root);
	return n == o->nworkloads ? sum / n : NAN;
}

static int row_add(px_row_t *r, const px_result_t *x, size_t w)
{
	const sim_outcome_t *o = &x->run;
	double *v = realloc(r->jcts, (r->njcts + o->njobs + 1) *
				     sizeof(double));
	if (!v)
		return -ENOMEM;
	r->jcts = v;
	for (size_t i = 0; i < o->njobs; i++)
		if (o->jobs[i].end >= 0)
			r->jcts[r->njcts++] = sim_job_outcome_jct(&o->jobs[i]);
	snprintf(r->label, sizeof(r->label), "%s", x->label);
	r->oracle = x->oracle;
	r->njobs += o->njobs;
	r->ndone += o->ndone;
	r->per_wl[w] = o->avg_jct;
	r->avg_jct += o->avg_jct;
	r->makespan += o->makespan;
	r->gpu_util += o->gpu_util;
	r->restarts += (double)o->restarts;
	r->rebatches += (double)o->rebatches;
	return 0;
}

/* --detail: each job of workload n with its JCT (null: not done). */
static void row_detail(px_row_t *r, const px_workload_t *w, int n,
		       const px_result_t *x)
{
	if (!r->detail)
		r->detail = json_object_new_array();
	for (size_t i = 0; i < w->n; i++) {
		const px_spec_t *j = &w->jobs[i];
		json_object *o = json_object_new_object();
		json_object_object_add(o, "workload", json_object_new_int(n));
		json_object_object_add(o, "name",
				       json_object_new_string(j->name));
		json_object_object_add(o, "application",
				       json_object_new_string(j->app->name));
		json_object_object_add(o, "submit",
				       json_object_new_double(j->submit));
		json_object_object_add(o, "replicas",
				       json_object_new_int(j->replicas));
		json_object_object_add(o, "batch_size",
				       json_object_new_double(j->bsz));
		const sim_job_outcome_t *out = &x->run.jobs[i];
		double jct = sim_job_outcome_jct(out);
		double wait = sim_job_outcome_wait(out);
		json_object_object_add(o, "jct", isfinite(jct) ?
				       json_object_new_double(jct) : NULL);
		json_object_object_add(o, "wait", isfinite(wait) ?
				       json_object_new_double(wait) : NULL);
		json_object_object_add(o, "restarts",
				       json_object_new_int((int)out->restarts));
		json_object_object_add(o, "rebatches",
				       json_object_new_int(
					       (int)out->rebatches));
		/* Seconds without progress: its start's, restarts' and
		 * re-batches' costs as they passed (sim_outcome.h). */
		json_object_object_add(o, "lost_s",
				       json_object_new_double(out->lost));
		json_object_object_add(o, "gpu_seconds",
				       json_object_new_double(
					       out->gpu_seconds));
		json_object_object_add(o, "epochs",
				       json_object_new_int(j->epochs));
		if (x->limit[i] > 0)
			json_object_object_add(o, "time_limit",
					       json_num_new(x->limit[i]));
		json_object_array_add(r->detail, o);
	}
}

static void row_finish(px_row_t *r, size_t nwl)
{
	r->avg_jct /= nwl;
	r->makespan /= nwl;
	r->gpu_util /= nwl;
	r->restarts /= nwl;
	r->rebatches /= nwl;
	sim_outcome_quantiles(r->jcts, r->njcts, &r->median_jct, &r->p99_jct);
}

/* --jobs jobs from the --first-th, each to its --epochs epochs at most;
 * a slice past the workload's end is an error, never an empty run. */
static int slice(const px_opts_t *o, px_workload_t *w, char *err,
		 size_t errlen)
{
	if (o->first >= w->n)
		return errmsg_set(err, errlen, -EINVAL, "--first %zu: the "
				  "workload has %zu jobs", o->first, w->n);
	if (o->first) {
		memmove(w->jobs, w->jobs + o->first,
			(w->n - o->first) * sizeof(*w->jobs));
		w->n -= o->first;
	}
	if (o->jobs && o->jobs < w->n)
		w->n = o->jobs;
	for (size_t i = 0; o->epochs && i < w->n; i++)
		if (o->epochs < w->jobs[i].epochs)
			w->jobs[i].epochs = o->epochs;
	return 0;
}

/* The jobs of every selected workload at the first load, as the runs
 * read them (slice, users' hints), each with its hints under each policy
 * of ours in --policy (measured/plan_adapter.c, px_plan_hints): what
 * bench/pollux_replay.py submits. */
static int print_jobs_hints(const px_opts_t *o, const px_app_t *apps,
			    size_t napps, char *err, size_t errlen)
{
	json_object *root = json_object_new_object();
	json_object *jobs = json_object_new_array();
	int rc = 0;

	json_object_object_add(root, "jobs", jobs);
	for (size_t w = 0; w < o->nworkloads && !rc; w++) {
		px_workload_t wl = { 0 };
		char path[600];
		wl_path(o, o->loads[0], o->workloads[w], path, sizeof(path));
		rc = px_workload_read(path, apps, napps, &wl, err, errlen);
		if (!rc)
			rc = slice(o, &wl, err, errlen);
		if (!rc && (rc = px_workload_declare(&wl, o->hints,
				(unsigned long)o->workloads[w])))
			errmsg_set(err, errlen, rc, "no memory for the users' "
				   "hints");
		for (size_t i = 0; !rc && i < wl.n; i++) {
			const px_spec_t *sp = &wl.jobs[i];
			json_object *j = json_object_new_object();
			json_object *h = json_object_new_object();
			json_object_array_add(jobs, j);
			json_object_object_add(j, "workload",
					       json_object_new_int(
						       o->workloads[w]));
			json_object_object_add(j, "name",
					       json_object_new_string(sp->name));
			json_object_object_add(j, "submit",
					       json_object_new_double(
						       sp->submit));
			json_object_object_add(j, "application",
					       json_object_new_string(
						       sp->app->name));
			json_object_object_add(j, "num_replicas",
					       json_object_new_int(
						       sp->replicas));
			json_object_object_add(j, "batch_size",
					       json_object_new_double(sp->bsz));
			json_object_object_add(j, "epochs",
					       json_object_new_int(sp->epochs));
			json_object_object_add(j, "hints", h);
			for (size_t p = 0; p < o->npols && !rc; p++) {
				char text[1024], why[256] = "";
				int r = px_plan_hints(o->pols[p], &o->shape,
						      sp, text, sizeof(text),
						      why, sizeof(why));
				if (r == -EINVAL)
					continue;	/* not one of ours */
				if (r)
					rc = errmsg_set(err, errlen, r, "%s "
							"under %s: %s",
							sp->name, o->pols[p],
							why);
				else
					json_object_object_add(h, o->pols[p],
						json_object_new_string(text));
			}
		}
		px_workload_free(&wl);
	}
	if (!rc)
		puts(json_object_to_json_string_ext(root,
						    JSON_C_TO_STRING_PRETTY));
	json_object_put(root);
	return rc;
}

static int run_all(const px_opts_t *o, const px_app_t *apps, size_t napps,
		   px_row_t *rows, size_t *nrows, char *err, size_t errlen)
{
	int rc = 0;

	*nrows = 0;
	for (size_t l = 0; l < o->nloads && !rc; l++) {
		px_workload_t wl[NWL];
		memset(wl, 0, sizeof(wl));
		for (size_t w = 0; w < o->nworkloads && !rc; w++) {
			char path[600];
			wl_path(o, o->loads[l], o->workloads[w], path,
				sizeof(path));
			rc = px_workload_read(path, apps, napps, &wl[w], err,
					      errlen);
			if (!rc)
				rc = slice(o, &wl[w], err, errlen);
			/* A workload's number is its generator's seed: the
			 * users' draws are the workload's own. */
			if (!rc && (rc = px_workload_declare(&wl[w], o->hints,
					(unsigned long)o->workloads[w])))
				errmsg_set(err, errlen, rc, "no memory for "
					   "the users' hints");
		}
		for (size_t p = 0; p < o->npols && !rc; p++) {
			px_row_t *r = &rows[(*nrows)++];
			r->load = o->loads[l];
			for (size_t k = 0; k < NPUB; k++)
				r->published[k] = published(o, k, r->load);
			for (size_t w = 0; w < o->nworkloads && !rc; w++) {
				px_result_t x;
				px_policy_t *pol = px_policy_new(
					o->pols[p], o->prerun);
				if (!pol) {
					rc = -ENOMEM;
					break;
				}
				rc = px_sim_run(&wl[w], &o->shape, pol, &x,
						err, errlen);
				if (!rc)
					rc = row_add(r, &x, w);
				if (!rc && o->detail)
					row_detail(r, &wl[w], o->workloads[w],
						   &x);
				px_result_free(&x);
			}
			row_finish(r, o->nworkloads);
		}
		for (size_t w = 0; w < NWL; w++)
			px_workload_free(&wl[w]);
	}
	return rc;
}

/* The published figure a run is the peer's counterpart of, or -1. */
static int counterpart(const char *label)
{
	if (!strcmp(label, "peer-optimus-oracle"))
		return 1;
	if (!strcmp(label, "tiresias"))
		return 2;
	return -1;
}

/* The tiresias row run at r's load, or NULL. */
static const px_row_t *tiresias_at(const px_row_t *rows, size_t n,
				   double load)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].load == load && !strcmp(rows[i].label, "tiresias"))
			return &rows[i];
	return NULL;
}

/* Every workload's average JCT of r over tiresias' at its load, and on
 * how many r is below (the comparison the reviewers ask per workload). */
static void print_vs_tiresias(FILE *f, const px_opts_t *o,
			      const px_row_t *rows, size_t n)
{
	bool head = false;

	for (size_t i = 0; i < n && o->nworkloads > 1; i++) {
		const px_row_t *r = &rows[i], *t = tiresias_at(rows, n, r->load);
		size_t below = 0;
		if (!t || t == r)
			continue;
		if (!head)
			fputs("\nagainst tiresias, workload by workload "
			      "(average JCT ratio):\n", f);
		head = true;
		for (size_t w = 0; w < o->nworkloads; w++)
			below += r->per_wl[w] < t->per_wl[w];
		fprintf(f, "load %.1f %-26s below on %zu of %zu:", r->load,
			r->label, below, o->nworkloads);
		for (size_t w = 0; w < o->nworkloads; w++)
			fprintf(f, " %d:%.2f", o->workloads[w],
				r->per_wl[w] / t->per_wl[w]);
		fputc('\n', f);
	}
}

static void print_table(FILE *f, const px_opts_t *o, const px_row_t *rows,
			size_t n, px_time_t took)
{
	char wls[64] = "";

	for (size_t w = 0; w < o->nworkloads; w++)
		snprintf(wls + strlen(wls), sizeof(wls) - strlen(wls), "%s%d",
			 w ? "," : "", o->workloads[w]);
	fprintf(f, "experiment pollux: %s workload %s (%s set), users' "
		"hints %s, %d nodes x %d GPUs, "
		"plan every %g s, %g s per start, %g s per re-allocation, "
		"%g s per re-batch in place",
		o->realistic ? "realistic" : "tuned", wls,
		o->validation ? "validation" : "test", px_hints_name(o->hints),
		o->shape.nodes,
		PX_NODE_GPUS, o->shape.round, o->shape.start,
		o->shape.restart, o->shape.rebatch);
	if (o->shape.start_queued > 0)
		fprintf(f, "; a first start %g s more per start queued "
			"before it", o->shape.start_queued);
	fprintf(f, "; ExploreScaling=%s, MinResizeInterval=%g s",
		o->shape.explore_scaling ? "yes" : "no", o->shape.min_resize);
	/* Only when set: the default output stays main's. */
	if (o->shape.goodput_objective != PLAN_GOODPUT_RATE)
		fprintf(f, "; goodput's objective: speedup over the fair "
			"share%s", o->shape.goodput_objective ==
			PLAN_GOODPUT_SPEEDUP_RESTART ? ", restarts weighed" :
			"");
	if (sliced(o))
		fprintf(f, "; a slice: %zu jobs from job %zu, %d epochs at "
			"most, resizes %g s apart at least, limits in units of "
			"%g s", o->jobs, o->first, o->epochs, o->shape.min_resize,
			o->shape.limit_unit);
	fputc('\n', f);
	for (size_t i = 0; i < n; i++) {
		const px_row_t *r = &rows[i];
		if (i == 0 || rows[i - 1].load != r->load) {
			fprintf(f, "\nload %.1f   %s avg JCT:", r->load,
				o->realistic ? "the peer's simulator's" :
					       "published");
			for (size_t k = 0; k < NPUB; k++)
				if (isfinite(r->published[k]))
					fprintf(f, "  %s %.1f s", pub_labels[k],
						r->published[k]);
				else
					fprintf(f, "  %s -", pub_labels[k]);
			fprintf(f, "\n%-26s %8s %9s %9s %9s %10s %6s %8s %8s  "
				"%s\n", "policy", "done", "avg JCT", "median",
				"p99", "makespan", "GPU %", "restarts",
				"rebatch", "against the published");
		}
		char done[24], cmp[96] = "";
		snprintf(done, sizeof(done), "%zu/%zu", r->ndone, r->njobs);
		int c = counterpart(r->label);
		if (c >= 0 && isfinite(r->published[c]))
			snprintf(cmp, sizeof(cmp), "%+.1f%% vs their %s",
				 100 * (r->avg_jct / r->published[c] - 1),
				 pub_labels[c]);
		else if (isfinite(r->published[0]))
			snprintf(cmp, sizeof(cmp), "%.2fx Pollux, %.2fx "
				 "Opt+Or, %.2fx Tiresias",
				 r->avg_jct / r->published[0],
				 r->avg_jct / r->published[1],
				 r->avg_jct / r->published[2]);
		fprintf(f, "%-26s %8s %9.1f %9.1f %9.1f %10.1f %6.1f %8.1f "
			"%8.1f  %s%s\n", r->label, done, r->avg_jct,
			r->median_jct, r->p99_jct, r->makespan,
			100 * r->gpu_util, r->restarts, r->rebatches,
			r->oracle ? "(oracle) " : "", cmp);
	}
	print_vs_tiresias(f, o, rows, n);
	/* Every figure read with free truth is said so beside the table. */
	for (size_t i = 0; i < n && rows[i].load == rows[0].load; i++)
		if (rows[i].oracle)
			fprintf(f, "%s oracle: %s: %s\n", i ? "" : "\n",
				rows[i].label, rows[i].oracle);
	fprintf(f, "\nwall time %.1f s, CPU %.1f s\n", took.wall, took.cpu);
}

static json_object *to_json(const px_opts_t *o, const px_row_t *rows,
			    size_t n, px_time_t took)
{
	json_object *root = json_object_new_object();
	json_object *runs = json_object_new_array(), *pub, *wls;

	json_object_object_add(root, "experiment",
			       json_object_new_string("pollux"));
	json_object_object_add(root, "sizes", json_object_new_string(
		o->realistic ? "realistic" : "tuned"));
	wls = json_object_new_array();
	for (size_t w = 0; w < o->nworkloads; w++)
		json_object_array_add(wls, json_object_new_int(o->workloads[w]));
	json_object_object_add(root, "workloads", wls);
	json_object_object_add(root, "workload_set", json_object_new_string(
		o->validation ? "validation" : "test"));
	/* What the users said (measured/declared.h), beside every figure. */
	json_object *hints = json_object_new_object();
	json_object_object_add(hints, "rule", json_object_new_string(
		px_hints_name(o->hints)));
	json_object_object_add(hints, "epochs", json_object_new_string(
		o->hints == PX_HINTS_NONE ? "none" :
		o->hints == PX_HINTS_EXACT ? "exact" :
		"the true count times exp(N(0, sigma^2)), rounded, at least 1"));
	if (o->hints == PX_HINTS_NOISY) {
		json_object_object_add(hints, "sigma",
				       json_num_new(PX_DECLARED_SIGMA));
		json_object_object_add(hints, "seed", json_object_new_string(
			"the workload's number (MT19937, jobs in submission "
			"order)"));
	}
	json_object_object_add(hints, "epoch_steps", json_object_new_boolean(
		o->hints == PX_HINTS_EXACT && !o->shape.bench_hints));
	json_object_object_add(root, "hints", hints);
	json_object_object_add(root, "wall_s", json_num_new(took.wall));
	json_object_object_add(root, "cpu_s", json_num_new(took.cpu));
	json_object *cl = json_object_new_object();
	json_object_object_add(cl, "nodes",
			       json_object_new_int(o->shape.nodes));
	json_object_object_add(cl, "gpus_per_node",
			       json_object_new_int(PX_NODE_GPUS));
	for (size_t i = 0; i < NSHAPE_SECS; i++)
		json_object_object_add(cl, shape_secs[i].key, json_num_new(
			*(const double *)((const char *)&o->shape +
					  shape_secs[i].off)));
	json_object_object_add(cl, "explore_scaling",
			       json_object_new_boolean(o->shape.explore_scaling));
	/* Only when on: the default output stays main's. */
	if (o->shape.rebatch_by_restart)
		json_object_object_add(cl, "rebatch_by_restart",
				       json_object_new_boolean(true));
	if (o->shape.bench_hints)
		json_object_object_add(cl, "bench_hints",
				       json_object_new_boolean(true));
	if (o->shape.goodput_objective != PLAN_GOODPUT_RATE)
		json_object_object_add(cl, "goodput_objective",
				       json_object_new_string(
					       goodput_objectives[
						       o->shape.goodput_objective]));
	json_object_object_add(cl, "first",
			       json_object_new_int64((int64_t)o->first));
	json_object_object_add(cl, "jobs",
			       json_object_new_int64((int64_t)o->jobs));
	json_object_object_add(cl, "epochs", json_object_new_int(o->epochs));
	json_object_object_add(root, "cluster", cl);
	json_object_object_add(root, "prerun", json_object_new_string(
		o->prerun == PX_PRERUN_ORACLE ? "oracle" :
		o->prerun == PX_PRERUN_CHARGED ? "charged" : "none"));
	for (size_t i = 0; i < n; i++) {
		const px_row_t *r = &rows[i];
		json_object *x = json_object_new_object();
		json_object_object_add(x, "label",
				       json_object_new_string(r->label));
		json_object_object_add(x, "oracle", r->oracle ?
				       json_object_new_string(r->oracle) :
				       NULL);
		json_object_object_add(x, "load", json_num_new(r->load));
		json_object_object_add(x, "jobs",
				       json_object_new_int64((int64_t)r->njobs));
		json_object_object_add(x, "done",
				       json_object_new_int64((int64_t)r->ndone));
		json_object_object_add(x, "avg_jct", json_num_new(r->avg_jct));
		json_object_object_add(x, "median_jct", json_num_new(r->median_jct));
		json_object_object_add(x, "p99_jct", json_num_new(r->p99_jct));
		json_object_object_add(x, "makespan", json_num_new(r->makespan));
		json_object_object_add(x, "gpu_util", json_num_new(r->gpu_util));
		json_object_object_add(x, "restarts", json_num_new(r->restarts));
		json_object_object_add(x, "rebatches",
				       json_num_new(r->rebatches));
		json_object *pw = json_object_new_object();
		for (size_t w = 0; w < o->nworkloads; w++) {
			char key[32];
			snprintf(key, sizeof(key), "workload-%d",
				 o->workloads[w]);
			json_object_object_add(pw, key, json_num_new(r->per_wl[w]));
		}
		json_object_object_add(x, "avg_jct_per_workload", pw);
		const px_row_t *t = tiresias_at(rows, n, r->load);
		if (t && t != r) {
			json_object *vt = json_object_new_object();
			for (size_t w = 0; w < o->nworkloads; w++) {
				char key[32];
				snprintf(key, sizeof(key), "workload-%d",
					 o->workloads[w]);
				json_object_object_add(vt, key, json_num_new(
					r->per_wl[w] / t->per_wl[w]));
			}
			json_object_object_add(x, "vs_tiresias_per_workload",
					       vt);
		}
		if (o->detail) {
			json_object *j = json_object_new_array();
			for (size_t k = 0; k < r->njcts; k++)
				json_object_array_add(j, json_num_new(r->jcts[k]));
			json_object_object_add(x, "jcts_sorted", j);
			json_object_object_add(x, "jobs",
					       json_object_get(r->detail));
		}
		json_object_array_add(runs, x);
	}
	json_object_object_add(root, "runs", runs);
	pub = json_object_new_object();
	for (size_t k = 0; k < NPUB; k++) {
		json_object *byload = json_object_new_object();
		for (size_t i = 0; i < n; i++) {
			char key[16];
			snprintf(key, sizeof(key), "%.1f", rows[i].load);
			if (!json_object_object_get_ex(byload, key, NULL))
				json_object_object_add(byload, key,
					json_num_new(rows[i].published[k]));
		}
		json_object_object_add(pub, pub_names[k], byload);
	}
	json_object_object_add(root, "published", pub);
	return root;
}

static int write_json(const char *path, json_object *root)
{
	const char *s = json_object_to_json_string_ext(
		root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!f || fprintf(f, "%s\n", s) < 0 || (f != stdout && fclose(f))) {
		fprintf(stderr, "optimus-sim: %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

/* CDF of each policy's JCTs at the first load; avg JCT against load with
 * the published lines beside, when several loads ran. */
static int write_svg(const char *dir, const px_opts_t *o,
		     const px_row_t *rows, size_t n)
{
	char path[600];
	svg_series_t s[MAX_POL + NPUB];
	/* A row that reads the truth says so in the legend too. */
	char names[MAX_POL][48];
	double *xs[MAX_POL] = { 0 }, *ys[MAX_POL] = { 0 };
	size_t ns = 0;
	FILE *f;
	int rc = 0;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "optimus-sim: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	/* JCTs span four decades (a minute to a day): log10 on x. */
	for (size_t i = 0; i < n && rows[i].load == rows[0].load; i++) {
		xs[ns] = malloc((rows[i].njcts + 1) * sizeof(double));
		ys[ns] = malloc((rows[i].njcts + 1) * sizeof(double));
		if (!xs[ns] || !ys[ns]) {
			free(xs[ns]);
			free(ys[ns]);
			break;
		}
		for (size_t k = 0; k < rows[i].njcts; k++) {
			xs[ns][k] = log10(fmax(rows[i].jcts[k], 1.0));
			ys[ns][k] = (k + 1.0) / rows[i].njcts;
		}
		snprintf(names[ns], sizeof(names[ns]), "%.31s%s", rows[i].label,
			 rows[i].oracle ? " (oracle)" : "");
		s[ns] = (svg_series_t){ names[ns], xs[ns], ys[ns],
					rows[i].njcts };
		ns++;
	}
	snprintf(path, sizeof(path), "%s/pollux-jct-cdf.svg", dir);
	if ((f = fopen(path, "w"))) {
		svg_lines(f, "JCT CDF per policy (measured workloads)",
			  "log10 JCT (s)", "fraction of jobs", s, ns);
		rc |= fclose(f) != 0;
	} else {
		rc = 1;
	}
	for (size_t k = 0; k < ns; k++) {
		free(xs[k]);
		free(ys[k]);
	}
	if (o->nloads > 1) {
		double x[MAX_POL + NPUB][MAX_LOADS], y[MAX_POL + NPUB][MAX_LOADS];
		size_t np = o->npols;
		for (size_t p = 0; p < np + NPUB; p++) {
			if (p < np)
				snprintf(names[p], sizeof(names[p]), "%.31s%s",
					 rows[p].label, rows[p].oracle ?
					 " (oracle)" : "");
			s[p] = (svg_series_t){ p < np ? names[p] :
					       pub_labels[p - np], x[p], y[p],
					       o->nloads };
			for (size_t l = 0; l < o->nloads; l++) {
				const px_row_t *r = &rows[l * np +
							  (p < np ? p : 0)];
				x[p][l] = r->load;
				y[p][l] = p < np ? r->avg_jct :
					  r->published[p - np];
			}
		}
		snprintf(path, sizeof(path), "%s/pollux-jct-load.svg", dir);
		if ((f = fopen(path, "w"))) {
			svg_lines(f, "average JCT against load", "load",
				  "average JCT (s)", s, np + NPUB);
			rc |= fclose(f) != 0;
		} else {
			rc = 1;
		}
	}
	if (rc)
		fprintf(stderr, "optimus-sim: cannot write SVG into %s\n", dir);
	return rc;
}

int px_exp_wanted(int argc, char **argv)
{
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "experiment"))
			return !strcmp(argv[i + 1], "pollux");
	return 0;
}

int px_exp_main(int argc, char **argv)
{
	px_opts_t o;
	px_app_t *apps = NULL;
	size_t napps = 0, nrows = 0;
	px_row_t rows[MAX_LOADS * MAX_POL];
	char err[512] = "", traces[600];
	struct timespec t0, t1, c0, c1;
	int rc;

	if ((rc = parse(argc, argv, &o)))
		return rc;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	memset(rows, 0, sizeof(rows));
	snprintf(traces, sizeof(traces), "%s/traces", o.data);
	rc = px_apps_load(traces, &apps, &napps, err, sizeof(err));
	if (!rc && o.print_hints) {
		rc = print_jobs_hints(&o, apps, napps, err, sizeof(err));
		if (rc)
			fprintf(stderr, "optimus-sim: experiment pollux: %s\n",
				err[0] ? err : strerror(-rc));
		px_apps_free(apps, napps);
		return rc ? 1 : 0;
	}
	if (!rc)
		rc = run_all(&o, apps, napps, rows, &nrows, err, sizeof(err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	px_time_t took = {
		(t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec),
		(c1.tv_sec - c0.tv_sec) + 1e-9 * (c1.tv_nsec - c0.tv_nsec) };
	if (rc) {
		fprintf(stderr, "optimus-sim: experiment pollux: %s\n",
			err[0] ? err : strerror(-rc));
	} else {
		if (!o.json || strcmp(o.json, "-"))
			print_table(stdout, &o, rows, nrows, took);
		if (o.json) {
			json_object *j = to_json(&o, rows, nrows, took);
			rc = write_json(o.json, j);
			json_object_put(j);
		}
		if (o.svg)
			rc |= write_svg(o.svg, &o, rows, nrows);
	}
	for (size_t i = 0; i < MAX_LOADS * MAX_POL; i++) {
		free(rows[i].jcts);
		json_object_put(rows[i].detail);
	}
	px_apps_free(apps, napps);
	return rc ? 1 : 0;
}

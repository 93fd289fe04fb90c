/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/truth.c - `optimus-sim truth --app NAME --gpus-per-node N[,N...]
 * --batch B [--data DIR]`: prints, as JSON, the iteration time of the
 * application on that placement at that global batch (the per-GPU batch
 * and accumulation split as the simulator splits it) and, per epoch, the
 * progress boundaries and the statistical efficiency of the batch
 * (measured/app.h), with the epoch's gradient statistics at that batch and
 * an adaptive job's batch range. What measured/engine.c runs a job by, for
 * one placement, asked the way it asks (sim_truth_ops.h: px_app_truth,
 * sim_truth_measure).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "sim_data.h"
#include "measured/engine.h"
#include "measured/truth.h"
#include "util/json_num.h"
#include "util/json_strict.h"

typedef struct truth_opts {
	const char *app, *data;
	int place[PX_MAX_NODES];
	size_t nplace;
	double bsz;
} truth_opts_t;

static void usage(FILE *f)
{
	fputs("usage: optimus-sim truth --app NAME --gpus-per-node N[,N...] "
	      "--batch B [--data DIR]\n"
	      "  the measured iteration time of NAME (bert cifar10 "
	      "deepspeech2 imagenet ncf yolov3)\n"
	      "  on N GPUs on each node at global batch B, and per epoch its "
	      "progress bounds\n"
	      "  and the batch's statistical efficiency, as JSON "
	      "(doc/design/simulator.md)\n", f);
}

int px_truth_wanted(int argc, char **argv)
{
	return argc > 1 && !strcmp(argv[1], "truth");
}

/* "2,1,4": GPUs per node, each in 1..PX_NODE_GPUS: 0 or -EINVAL. */
static int parse_place(const char *s, truth_opts_t *o)
{
	char *end;

	o->nplace = 0;
	for (const char *p = s; *p;) {
		long v = strtol(p, &end, 10);
		if (end == p || v < 1 || v > PX_NODE_GPUS ||
		    o->nplace == PX_MAX_NODES || (*end && *end != ','))
			return -EINVAL;
		o->place[o->nplace++] = (int)v;
		p = *end ? end + 1 : end;
	}
	return o->nplace ? 0 : -EINVAL;
}

static int parse(int argc, char **argv, truth_opts_t *o)
{
	static const struct option longopts[] = {
		{ "app", 1, 0, 'a' }, { "gpus-per-node", 1, 0, 'g' },
		{ "batch", 1, 0, 'b' }, { "data", 1, 0, 'd' },
		{ "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
	int c;
	char *end;

	memset(o, 0, sizeof(*o));
	o->data = sim_data_path("OPTIMUS_POLLUX_DATA", POLLUX_DATA_INSTALLED);
	optind = 2;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'a': o->app = optarg; break;
		case 'd': o->data = optarg; break;
		case 'g':
			if (parse_place(optarg, o)) {
				fprintf(stderr, "optimus-sim: truth: "
					"--gpus-per-node: counts of 1..%d "
					"separated by commas, got '%s'\n",
					PX_NODE_GPUS, optarg);
				return 2;
			}
			break;
		case 'b':
			o->bsz = strtod(optarg, &end);
			if (end == optarg || *end || !(o->bsz >= 1)) {
				fprintf(stderr, "optimus-sim: truth: --batch: "
					"a number >= 1, got '%s'\n", optarg);
				return 2;
			}
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return 2;
		}
	}
	if (!o->app || !o->nplace || !o->bsz || optind < argc) {
		usage(stderr);
		return 2;
	}
	return 0;
}

/* The truth of app `a` on o's placement, or NULL with err: a job of it
 * asked as the engine asks it (sim_truth_ops.h, px_app_truth). */
static json_object *truth_json(const px_app_t *a, const truth_opts_t *o,
			       char *err, size_t errlen)
{
	px_spec_t job = { .truth = &px_app_truth, .app = a, .bsz = o->bsz,
			  .epochs = a->max_epochs };
	const sim_truth_ops_t *t = job.truth;
	int reps = 0, atomic, accum;
	sim_truth_sample_t m;

	for (size_t i = 0; i < o->nplace; i++)
		reps += o->place[i];
	t->split(&job, o->bsz, reps, &atomic, &accum);
	sim_truth_run_t run = { .workers = reps, .nnodes = o->nplace,
				.node_workers = o->place, .atomic = atomic,
				.accum = accum };
	if (sim_truth_measure(t, &job, &run, 0, &m, err, errlen))
		return NULL;
	/* The batch the job runs, as the simulator counts it. */
	double bsz = sim_truth_run_batch(&run);
	json_object *root = json_object_new_object();
	json_object *place = json_object_new_array();
	json_object *epochs = json_object_new_array();

	for (size_t i = 0; i < o->nplace; i++)
		json_object_array_add(place, json_object_new_int(o->place[i]));
	json_object_object_add(root, "app", json_object_new_string(a->name));
	json_object_object_add(root, "gpus_per_node", place);
	json_object_object_add(root, "replicas", json_object_new_int(reps));
	json_object_object_add(root, "batch", json_num_new(o->bsz));
	json_object_object_add(root, "run_batch", json_num_new(bsz));
	json_object_object_add(root, "local_batch", json_object_new_int(atomic));
	json_object_object_add(root, "accum_steps", json_object_new_int(accum));
	json_object_object_add(root, "step_seconds", json_num_new(m.step));
	json_object_object_add(root, "sync_seconds", json_num_new(m.sync));
	json_object_object_add(root, "iteration_seconds",
			       json_num_new(m.iteration));
	json_object_object_add(root, "max_replicas", json_object_new_int(
		t->max_replicas(&job, o->bsz)));
	json_object_object_add(root, "max_epochs",
			       json_object_new_int(a->max_epochs));
	/* An adaptive job's batch range, as the simulator's goodput policy
	 * gives it (measured/plan_adapter.c), and the batch its gradient
	 * variance is given at (the smallest validated, as the simulator
	 * reports it). */
	json_object *ad = json_object_new_object();
	json_object_object_add(ad, "min_batch", json_num_new(a->init_bsz));
	json_object_object_add(ad, "max_batch", json_num_new(a->max_bsz));
	json_object_object_add(ad, "max_local_batch", json_object_new_int(
		(int)floor(a->max_local + 1e-9)));
	json_object_object_add(ad, "max_accum",
			       json_object_new_int(PX_MAX_ACCUM));
	json_object_object_add(ad, "max_replicas", json_object_new_int(
		px_app_max_replicas_any_batch(a)));
	json_object_object_add(root, "adaptive", ad);
	json_object_object_add(root, "var_batch", json_num_new(a->init_bsz));
	for (int e = 0; e < a->max_epochs; e++) {
		double gain, sqr, var;
		if (t->gain(&job, &run, e, &gain) ||
		    t->gradients(&job, bsz, e, &sqr, &var)) {
			snprintf(err, errlen, "%s: no gradient statistics at "
				 "batch %g, epoch %d", a->name, bsz, e);
			json_object_put(root);
			json_object_put(epochs);
			return NULL;
		}
		json_object *ep = json_object_new_object();
		json_object_object_add(ep, "progress_start",
				       json_num_new(t->epoch_start(&job, e)));
		json_object_object_add(ep, "progress_end", json_num_new(
			t->epoch_start(&job, e + 1)));
		json_object_object_add(ep, "efficiency", json_num_new(gain));
		json_object_object_add(ep, "grad_sqr", json_num_new(sqr));
		json_object_object_add(ep, "grad_var", json_num_new(var));
		json_object_array_add(epochs, ep);
	}
	json_object_object_add(root, "epochs", epochs);
	return root;
}

int px_truth_main(int argc, char **argv)
{
	truth_opts_t o;
	px_app_t *apps = NULL;
	size_t napps = 0;
	char err[512] = "", traces[600];
	json_object *root = NULL;
	int rc;

	if ((rc = parse(argc, argv, &o)))
		return rc;
	snprintf(traces, sizeof(traces), "%s/traces", o.data);
	if (!(rc = px_apps_load(traces, &apps, &napps, err, sizeof(err)))) {
		const px_app_t *a = px_app_find(apps, napps, o.app);
		if (!a)
			snprintf(err, sizeof(err), "unknown application '%s'",
				 o.app);
		else
			root = truth_json(a, &o, err, sizeof(err));
	}
	if (root)
		printf("%s\n", json_object_to_json_string_ext(
			json_strict(root), JSON_C_TO_STRING_PRETTY |
			JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		fprintf(stderr, "optimus-sim: truth: %s\n", err);
	json_object_put(root);
	px_apps_free(apps, napps);
	return root ? 0 : 1;
}

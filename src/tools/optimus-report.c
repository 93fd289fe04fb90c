/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * optimus-report - send a training progress report or a speed sample to
 * sched/optimus from a shell script (see optimus-report(1)).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_errno.h>

#include "report/client.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: optimus-report progress [--job N] --step S --loss L [--sps X] [--epoch E]\n"
"       optimus-report speed [--job N] --ps P --workers W --steps-per-sec X\n"
"       optimus-report checkpoint [--job N] --step S\n"
"       optimus-report worker [--job N] [--rank R] [--node NAME] --step-time T\n"
"                      [--lag L]\n"
"       optimus-report gradients [--job N] --grad-sqr G --grad-var V\n"
"                      --var-batch B [--estimates N]\n"
"\n"
"Send a munge-authenticated report to the sched/optimus listener.\n"
"'checkpoint' confirms that the job wrote the checkpoint its checkpoint\n"
"signal asked for, so that the resize goes on without waiting out the\n"
"grace period. A job is resized only if it does all of this (until then\n"
"it keeps its size; SystemComment: resizable=no):\n"
"  1. declare at every start, once its handler of the signal is in\n"
"     place, that it can checkpoint (no run is signalled before):\n"
"       optimus-report checkpoint --step <step it resumed from, or 0>\n"
"  2. survive the signal: trap 'echo checkpoint >&2' USR1 in the batch\n"
"     script before srun (or exec srun)\n"
"  3. on the signal, write a checkpoint and confirm it:\n"
"       optimus-report checkpoint --step S\n"
"  4. on restart, resume from $OPTIMUS_CHECKPOINT_DIR, only from a\n"
"     checkpoint this job wrote (cluster, job id, OPTIMUS_SUBMIT_TIME)\n"
"Python: Reporter.handle_checkpoints(save, resumed_step) does 1 and 3.\n"
"'worker' reports one worker's own seconds per step, for\n"
"straggler detection (send it every few seconds at most).\n"
"'gradients' reports the job's gradient statistics, for its statistical\n"
"efficiency at other batch sizes (adaptive_batch=yes, optimus_hints(5)):\n"
"the listener refuses a value out of range with the reason.\n"
"\n"
"  --job N            job id (default: $SLURM_JOB_ID)\n"
"  --step S           training steps done so far (checkpoint: the step\n"
"                     the checkpoint holds)\n"
"  --loss L           training loss at that step (finite, >= 0)\n"
"  --sps X            samples per second (default 0)\n"
"  --epoch E          current epoch (optional)\n"
"  --ps P             parameter servers of the measured configuration\n"
"  --workers W        workers of the measured configuration (>= 1)\n"
"  --steps-per-sec X  measured training speed in that configuration\n"
"  --rank R           the worker's rank among the workers\n"
"                     (default: $OPTIMUS_RANK)\n"
"  --node NAME        the node it runs on (default: $SLURMD_NODENAME)\n"
"  --step-time T      its own seconds per step (> 0)\n"
"  --lag L            gradient arrival lag a PS saw for it (seconds)\n"
"  --grad-sqr G       squared norm of the gradient (>= 0)\n"
"  --grad-var V       variance of a gradient averaged over B examples\n"
"                     (>= 0)\n"
"  --var-batch B      the examples B of that gradient (>= 1)\n"
"  --estimates N      how many estimates of these values the report\n"
"                     stands for (default 1)\n"
"  --addr HOST:PORT   listener (default: $OPTIMUS_REPORT_ADDR, else\n"
"                     ReportAddress/ReportPort of optimus.conf beside\n"
"                     $SLURM_CONF)\n"
"  --timeout MS       connect/reply timeout (default %d)\n"
"  -h, --help         this text\n"
"\n"
"Exit status: 0 accepted, 1 refused or unreachable (reason on stderr),\n"
"2 usage error.\n", REPORT_TIMEOUT_MS);
}

typedef struct args {
	const char *kind;
	long long job, step, epoch, ps, workers, rank, estimates;
	double loss, sps, steps_per_sec, step_time, lag;
	double grad_sqr, grad_var, var_batch;
	const char *node;
	const char *addr;
	int timeout_ms;
} args_t;

static int num(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end || !isfinite(*out) ? -1 : 0;
}

static int integer(const char *s, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno || end == s || *end ? -1 : 0;
}

enum { O_JOB = 256, O_STEP, O_LOSS, O_SPS, O_EPOCH, O_PS, O_WORKERS,
       O_SPEED, O_ADDR, O_TIMEOUT, O_RANK, O_NODE, O_STEP_TIME, O_LAG,
       O_GRAD_SQR, O_GRAD_VAR, O_VAR_BATCH, O_ESTIMATES };

static int parse_opt(int c, const char *v, args_t *a)
{
	long long t;

	switch (c) {
	case O_JOB: return integer(v, &a->job);
	case O_STEP: return integer(v, &a->step);
	case O_EPOCH: return integer(v, &a->epoch);
	case O_PS: return integer(v, &a->ps);
	case O_WORKERS: return integer(v, &a->workers);
	case O_LOSS: return num(v, &a->loss);
	case O_SPS: return num(v, &a->sps);
	case O_SPEED: return num(v, &a->steps_per_sec);
	case O_ADDR: a->addr = v; return 0;
	case O_RANK: return integer(v, &a->rank);
	case O_NODE: a->node = v; return 0;
	case O_STEP_TIME: return num(v, &a->step_time);
	case O_LAG: return num(v, &a->lag);
	case O_GRAD_SQR: return num(v, &a->grad_sqr);
	case O_GRAD_VAR: return num(v, &a->grad_var);
	case O_VAR_BATCH: return num(v, &a->var_batch);
	case O_ESTIMATES: return integer(v, &a->estimates);
	case O_TIMEOUT:
		if (integer(v, &t) || t < 1 || t > 600000)
			return -1;
		a->timeout_ms = (int)t;
		return 0;
	}
	return -1;
}

static int parse_args(int argc, char **argv, args_t *a)
{
	static const struct option opts[] = {
		{ "job", 1, NULL, O_JOB }, { "step", 1, NULL, O_STEP },
		{ "loss", 1, NULL, O_LOSS }, { "sps", 1, NULL, O_SPS },
		{ "epoch", 1, NULL, O_EPOCH }, { "ps", 1, NULL, O_PS },
		{ "workers", 1, NULL, O_WORKERS },
		{ "steps-per-sec", 1, NULL, O_SPEED },
		{ "addr", 1, NULL, O_ADDR }, { "timeout", 1, NULL, O_TIMEOUT },
		{ "rank", 1, NULL, O_RANK }, { "node", 1, NULL, O_NODE },
		{ "step-time", 1, NULL, O_STEP_TIME }, { "lag", 1, NULL, O_LAG },
		{ "grad-sqr", 1, NULL, O_GRAD_SQR },
		{ "grad-var", 1, NULL, O_GRAD_VAR },
		{ "var-batch", 1, NULL, O_VAR_BATCH },
		{ "estimates", 1, NULL, O_ESTIMATES },
		{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	const char *env = getenv("SLURM_JOB_ID");
	const char *rank = getenv("OPTIMUS_RANK");
	int c, idx = -1;

	*a = (args_t){ .job = env ? atoll(env) : -1, .step = -1, .epoch = -1,
		       .ps = -1, .workers = -1, .loss = NAN, .sps = 0,
		       .steps_per_sec = NAN, .timeout_ms = REPORT_TIMEOUT_MS,
		       .rank = rank ? atoll(rank) : -1,
		       .node = getenv("SLURMD_NODENAME"), .step_time = NAN,
		       .grad_sqr = NAN, .grad_var = NAN, .var_batch = NAN,
		       .estimates = 1 };
	opterr = 0;	/* one line of our own instead of getopt's */
	while ((c = getopt_long(argc, argv, "h", opts, &idx)) != -1) {
		if (c == 'h') {
			usage(stdout);
			exit(0);
		}
		if (c == '?') {
			fprintf(stderr, "optimus-report: %s '%s' (see --help)\n",
				optopt ? "option needs a value:" :
				"unknown option", argv[optind - 1]);
			return -1;
		}
		if (parse_opt(c, optarg, a)) {
			fprintf(stderr, "optimus-report: --%s '%s': expected %s\n",
				opts[idx].name, optarg, c == O_TIMEOUT ?
				"milliseconds from 1 to 600000" :
				c == O_LOSS || c == O_SPS || c == O_SPEED ||
				c == O_STEP_TIME || c == O_LAG ||
				c == O_GRAD_SQR || c == O_GRAD_VAR ||
				c == O_VAR_BATCH ?
				"a finite number" : "an integer");
			return -1;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "optimus-report: say 'progress', 'speed', "
			"'checkpoint', 'worker' or 'gradients' (see --help)\n");
		return -1;
	}
	a->kind = argv[optind];
	return 0;
}

static const char *build_worker(const args_t *a, message_t *m)
{
	if (a->rank < 0 || a->rank > (1 << 20))
		return "worker needs --rank R >= 0 (or $OPTIMUS_RANK)";
	if (!a->node || !*a->node || strlen(a->node) >= REPORT_NODE_LEN)
		return "worker needs --node NAME (or $SLURMD_NODENAME)";
	if (isnan(a->step_time) || a->step_time <= 0 || a->lag < 0)
		return "worker needs --step-time T > 0 (and --lag L >= 0)";
	m->type = MSG_WORKER;
	m->report.kind = REPORT_WORKER;
	m->report.worker.rank = (uint32_t)a->rank;
	snprintf(m->report.worker.node, sizeof(m->report.worker.node), "%s",
		 a->node);
	m->report.worker.step_time = a->step_time;
	m->report.worker.lag = a->lag;
	return NULL;
}

/* The values go as given: the listener is the one judge of their range
 * (protocol.c) and says what is wrong. */
static const char *build_gradients(const args_t *a, message_t *m)
{
	if (isnan(a->grad_sqr) || isnan(a->grad_var) || isnan(a->var_batch))
		return "gradients needs --grad-sqr, --grad-var and --var-batch";
	m->type = MSG_GRADIENTS;
	m->report.kind = REPORT_GRADIENTS;
	/* The message carries a count the struct can hold; the listener
	 * judges its range. */
	if (a->estimates < 1 || a->estimates > UINT32_MAX)
		return "gradients needs --estimates from 1";
	m->report.gradients = (report_gradients_t){ a->grad_sqr, a->grad_var,
		a->var_batch, (uint32_t)a->estimates };
	return NULL;
}

/* Fill m from a; NULL when valid, else what is wrong. */
static const char *build(const args_t *a, message_t *m)
{
	if (a->job < 1 || a->job > UINT32_MAX)
		return "--job N (or $SLURM_JOB_ID) is required";
	m->report.job_id = (uint32_t)a->job;
	if (!strcmp(a->kind, "progress")) {
		if (a->step < 0 || isnan(a->loss) || a->loss < 0 || a->sps < 0)
			return "progress needs --step >= 0 and --loss >= 0";
		m->type = MSG_PROGRESS;
		m->report.kind = REPORT_PROGRESS;
		m->report.progress = (report_progress_t){
			.step = (uint64_t)a->step, .loss = a->loss,
			.samples_per_sec = a->sps,
			.epoch = a->epoch < 0 ? -1 : (int32_t)a->epoch };
		return NULL;
	}
	if (!strcmp(a->kind, "speed")) {
		if (a->ps < 0 || a->workers < 1 || isnan(a->steps_per_sec) ||
		    a->steps_per_sec < 0)
			return "speed needs --ps >= 0, --workers >= 1 and "
			       "--steps-per-sec >= 0";
		m->type = MSG_SPEED;
		m->report.kind = REPORT_SPEED;
		m->report.speed = (report_speed_t){ .ps = (uint32_t)a->ps,
			.workers = (uint32_t)a->workers,
			.steps_per_sec = a->steps_per_sec };
		return NULL;
	}
	if (!strcmp(a->kind, "checkpoint")) {
		if (a->step < 0)
			return "checkpoint needs --step >= 0";
		m->type = MSG_CHECKPOINT;
		m->report.kind = REPORT_CHECKPOINT;
		m->report.checkpoint.step = (uint64_t)a->step;
		return NULL;
	}
	if (!strcmp(a->kind, "worker"))
		return build_worker(a, m);
	if (!strcmp(a->kind, "gradients"))
		return build_gradients(a, m);
	return "the report kind is 'progress', 'speed', 'checkpoint', "
	       "'worker' or 'gradients'";
}

int main(int argc, char **argv)
{
	report_endpoint_t ep;
	message_t m = { 0 };
	json_object *res = NULL;
	char err[512];
	const char *bad;
	args_t a;
	int rc;

	/* GSL's default error handler aborts: the models return errors. */
	gsl_set_error_handler_off();
	if (parse_args(argc, argv, &a))
		return 2;
	if ((bad = build(&a, &m))) {
		fprintf(stderr, "optimus-report: %s\n", bad);
		return 2;
	}
	if (setenv("OPTIMUS_REPORT_ADDR", a.addr ? a.addr : "", a.addr != NULL) ||
	    report_endpoint_resolve(&ep, err, sizeof(err))) {
		fprintf(stderr, "optimus-report: %s\n", err);
		return 1;
	}
	rc = report_client_call(&ep, &m, a.timeout_ms, 0, &res, err,
				sizeof(err));
	json_object_put(res);
	if (rc) {
		fprintf(stderr, "optimus-report: %s%s\n",
			rc == -EPROTO ? "refused: " : "", err);
		return 1;
	}
	return 0;
}

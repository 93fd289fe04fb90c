/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * load_reports - many concurrent reporters against the sched/optimus
 * listener, bounded in count and time (localhost only: the endpoint comes
 * from OPTIMUS_REPORT_ADDR / optimus.conf like any reporter's).
 *
 *   load_reports --job N [--threads T] [--seconds S] [--max M]
 *
 * Prints one line: reporters, seconds, accepted, refused (by code),
 * failures, reports per second accepted. bench/load_reports.py runs it
 * against a real cluster while measuring sbatch latency.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gsl/gsl_errno.h>

#include "report/client.h"

typedef struct load {
	uint32_t job;
	double seconds;
	long max;			/* total requests, all threads */
	report_endpoint_t ep;
	atomic_long sent, accepted, busy, refused, failed;
	double start;
} load_t;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One request on c; returns false when the connection is gone. */
static int one(load_t *L, report_client_t *c, uint64_t step)
{
	message_t m = { .type = MSG_PROGRESS };
	json_object *res;
	char err[512];
	int rc;

	m.report = (report_t){ .kind = REPORT_PROGRESS, .job_id = L->job };
	m.report.progress = (report_progress_t){ .step = step,
		.loss = 1.0 / (1.0 + step), .samples_per_sec = 100.0,
		.epoch = -1 };
	rc = report_client_request(c, &m, &res, err, sizeof(err));
	json_object_put(res);
	if (rc == 0)
		atomic_fetch_add(&L->accepted, 1);
	else if (rc == -EPROTO && !strncmp(err, "busy", 4))
		atomic_fetch_add(&L->busy, 1);
	else if (rc == -EPROTO)
		atomic_fetch_add(&L->refused, 1);
	else
		atomic_fetch_add(&L->failed, 1);
	return rc == 0 || rc == -EPROTO;
}

static void *reporter(void *arg)
{
	load_t *L = arg;
	report_client_t *c = NULL;
	char err[512];
	uint64_t step = 0;

	while (now() - L->start < L->seconds &&
	       atomic_fetch_add(&L->sent, 1) < L->max) {
		if (!c && !(c = report_client_connect(&L->ep, 5000, err,
						      sizeof(err)))) {
			atomic_fetch_add(&L->failed, 1);
			continue;
		}
		if (!one(L, c, ++step)) {
			report_client_close(c);
			c = NULL;
		}
	}
	report_client_close(c);
	return NULL;
}

int main(int argc, char **argv)
{
	static load_t L = { .seconds = 10, .max = 100000 };
	int threads = 16, c;
	char err[512];
	pthread_t *tid;
	double took;

	/* GSL's default error handler aborts: the models return errors. */
	gsl_set_error_handler_off();
	while ((c = getopt(argc, argv, "j:t:s:m:h")) != -1) {
		switch (c) {
		case 'j': L.job = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 't': threads = atoi(optarg); break;
		case 's': L.seconds = atof(optarg); break;
		case 'm': L.max = atol(optarg); break;
		default:
			fprintf(stderr, "usage: load_reports -j JOB [-t THREADS] "
				"[-s SECONDS] [-m MAX_REQUESTS]\n");
			return 2;
		}
	}
	if (!L.job || threads < 1 || threads > 1024 || L.seconds <= 0 ||
	    L.seconds > 600 || L.max < 1) {
		fprintf(stderr, "load_reports: need -j JOB, 1..1024 threads, "
			"0..600 s\n");
		return 2;
	}
	if (report_endpoint_resolve(&L.ep, err, sizeof(err))) {
		fprintf(stderr, "load_reports: %s\n", err);
		return 1;
	}
	tid = calloc(threads, sizeof(*tid));
	L.start = now();
	for (int i = 0; i < threads; i++)
		pthread_create(&tid[i], NULL, reporter, &L);
	for (int i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	took = now() - L.start;
	printf("reporters %d seconds %.2f accepted %ld busy %ld refused %ld "
	       "failed %ld reports_per_sec %.1f\n", threads, took,
	       atomic_load(&L.accepted), atomic_load(&L.busy),
	       atomic_load(&L.refused), atomic_load(&L.failed),
	       atomic_load(&L.accepted) / took);
	free(tid);
	return 0;
}

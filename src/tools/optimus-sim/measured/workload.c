/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/workload.c - the measured workloads' job lists
 * (testsuite/data/pollux-osdi21/workloads*), checked against the domain of
 * the measurements so that a bad row is an error, never a job that
 * finishes at once (see measured/engine.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/errmsg.h"
#include "measured/csv.h"
#include "measured/engine.h"

static int row_read(const px_csv_t *t, size_t r, const int *c,
		    const px_app_t *apps, size_t napps, px_spec_t *j,
		    char *err, size_t errlen)
{
	const char *name = px_csv_str(t, r, c[0]);
	const char *app = px_csv_str(t, r, c[2]);
	double reps;
	int rc;

	snprintf(j->name, sizeof(j->name), "%s", name);
	j->truth = &px_app_truth;
	j->app = px_app_find(apps, napps, app);
	if (!j->app)
		return errmsg_set(err, errlen, -EINVAL, "%s: row %zu: unknown "
				  "application '%s' (bert, cifar10, "
				  "deepspeech2, imagenet, ncf, yolov3)",
				  t->path, r + 1, app);
	if ((rc = px_csv_num(t, r, c[1], 0, 1e9, &j->submit, err, errlen)) ||
	    (rc = px_csv_num(t, r, c[3], 1, PX_GPUS, &reps, err, errlen)) ||
	    (rc = px_csv_num(t, r, c[4], j->app->init_bsz, j->app->max_bsz,
			     &j->bsz, err, errlen)))
		return rc;
	if (reps != floor(reps) || j->bsz != floor(j->bsz))
		return errmsg_set(err, errlen, -EINVAL, "%s: row %zu: "
				  "num_replicas and batch_size are integers",
				  t->path, r + 1);
	j->replicas = (int)reps;
	j->epochs = j->app->max_epochs;
	j->declared_epochs = j->epochs;
	j->epoch_steps_hint = true;
	/* Fewer samples per GPU than measured has no step time. */
	if (j->bsz / j->replicas < j->app->min_local - 1e-9)
		return errmsg_set(err, errlen, -EDOM, "%s: row %zu: batch %g "
				  "over %d GPUs is %g per GPU, below the %g "
				  "measured for %s", t->path, r + 1, j->bsz,
				  j->replicas, j->bsz / j->replicas,
				  j->app->min_local, j->app->name);
	return 0;
}

int px_workload_read(const char *path, const px_app_t *apps, size_t napps,
		     px_workload_t *out, char *err, size_t errlen)
{
	static const char *names[] = { "name", "time", "application",
				       "num_replicas", "batch_size" };
	px_csv_t t;
	int c[5], rc;

	memset(out, 0, sizeof(*out));
	if ((rc = px_csv_read(path, &t, err, errlen)))
		return rc;
	for (int k = 0; k < 5 && !rc; k++)
		if ((c[k] = px_csv_col(&t, names[k], err, errlen)) < 0)
			rc = c[k];
	if (!rc && !t.nrows)
		rc = errmsg_set(err, errlen, -EINVAL, "%s: no job", path);
	if (!rc && !(out->jobs = calloc(t.nrows, sizeof(*out->jobs))))
		rc = -ENOMEM;
	for (size_t r = 0; !rc && r < t.nrows; r++) {
		rc = row_read(&t, r, c, apps, napps, &out->jobs[r], err,
			      errlen);
		if (!rc && r && out->jobs[r].submit < out->jobs[r - 1].submit)
			rc = errmsg_set(err, errlen, -EINVAL, "%s: row %zu: "
					"jobs must come in submission order",
					path, r + 1);
		out->n = r + 1;
	}
	px_csv_free(&t);
	if (rc)
		px_workload_free(out);
	return rc;
}

void px_workload_free(px_workload_t *w)
{
	free(w->jobs);
	w->jobs = NULL;
	w->n = 0;
}

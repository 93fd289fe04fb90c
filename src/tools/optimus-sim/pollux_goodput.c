/* pollux_goodput.c - see pollux_goodput.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/allreduce_speed.h"
#include "pollux_goodput.h"

int px_goodput_init(px_goodput_job_t *g, const px_job_t *j)
{
	const px_app_t *a = j->spec->app;
	int rc;

	memset(g, 0, sizeof(*g));
	/* The statistics are the artifact's: relative to its smallest
	 * validated batch, which is also the smallest the job may use. */
	if ((rc = efficiency_init(&g->eff, a->init_bsz,
				  EFFICIENCY_SMOOTHING_DEFAULT)) ||
	    (rc = allreduce_speed_init(&g->speed, j->spec->bsz)))
		return rc;
	g->lim = (goodput_limits_t){ a->init_bsz, a->max_bsz,
				     (int)ceil(a->min_local - 1e-9),
				     (int)floor(a->max_local + 1e-9),
				     PX_GOODPUT_MAX_ACCUM };
	return 0;
}

void px_goodput_clear(px_goodput_job_t *g)
{
	speed_model_clear(&g->speed);
}

int px_goodput_update(px_goodput_job_t *g, const px_job_t *j)
{
	int rc = 0;

	if (j->nstats != g->nstats_fed) {
		/* One report per epoch and batch: the latest is fed. */
		rc = efficiency_report(&g->eff, j->grad_sqr, j->grad_var,
				       j->spec->app->init_bsz);
		g->nstats_fed = j->nstats;
		if (rc)
			return rc;
	}
	if (j->nobs == g->nobs_fed)
		return 0;
	g->nobs_fed = j->nobs;
	goodput_sample_t *x = calloc((size_t)j->nobs, sizeof(*x));
	if (!x)
		return -ENOMEM;
	for (int i = 0; i < j->nobs; i++) {
		const px_obs_t *o = &j->obs[i];
		/* What the job measured: the whole step, micro-steps too. */
		x[i] = (goodput_sample_t){ o->replicas, o->nodes, o->atomic,
			o->accum, o->step + (o->step - o->sync) * o->accum };
	}
	if (j->nobs >= PX_GOODPUT_MIN_CONFIGS &&
	    !(rc = goodput_fit(x, (size_t)j->nobs, &g->speed)))
		g->fitted = true;
	free(x);
	/* A fit the numbers do not determine keeps the previous one. */
	return rc == -EDOM || rc == -ERANGE ? 0 : rc;
}

int px_goodput_best(const px_goodput_job_t *g, int w, int n,
		    goodput_choice_t *c)
{
	if (!g->fitted)
		return -ENODATA;
	return goodput_best(&g->speed, &g->eff, w, n, &g->lim, c);
}

int px_goodput_max_replicas(const px_job_t *j)
{
	const px_app_t *a = j->spec->app;
	int m = (int)(a->max_bsz / ceil(a->min_local - 1e-9));

	if (!strcmp(a->name, "ncf"))
		return 1;
	return m < 1 ? 1 : m > PX_GPUS ? PX_GPUS : m;
}

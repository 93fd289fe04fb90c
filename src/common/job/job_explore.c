/*
 * job_explore.c - exploring how a job scales (ExploreScaling, issue 28;
 * doc/planning.md "Exploring scaling"), Pollux's rule (Qiao et al., OSDI
 * 2021, section 4.1): a job whose model has not seen a configuration is
 * optimistic about it, and may grow at most to twice the most GPUs it has
 * had, so that optimism costs at most one doubling before the job has
 * measured the truth there.
 *
 * The rule's numbers live here; the plan applies them to its all-reduce
 * jobs when its parameters ask (plan/plan_explore.c).
 */
#include <math.h>

#include "job/job_model.h"

void job_model_explored(const job_model_t *m, int *workers, int *nodes)
{
	int w = 0, n = 0;

	for (size_t k = 0; m && k < m->nruns; k++) {
		const job_run_t *r = &m->runs[k];

		if (r->workers > w)
			w = r->workers;
		if (r->nodes > n)
			n = r->nodes;
	}
	/* A run recorded without its nodes spanned at least one. */
	if (w > 0 && n < 1)
		n = 1;
	*workers = w;
	*nodes = n;
}

int job_model_explore_cap(const job_model_t *m)
{
	int w, n;

	job_model_explored(m, &w, &n);
	return w > 0 ? JOB_EXPLORE_GROWTH * w : 1;
}

/*
 * Beyond the extent (more GPUs or more nodes than any run): the larger of
 * the model and perfect scaling from the best per-GPU rate the job ran
 * at. Perfect scaling: a job's rate per GPU never rises with more GPUs
 * (the work of a step is shared, its synchronisation is not), so it is
 * the most a job could gain, the optimism that lets it try.
 */
double job_model_explore_speed(double predicted, int workers, int nodes,
			       const job_explore_t *x)
{
	if (!x || !(x->per_gpu > 0) || !isfinite(x->per_gpu) ||
	    (workers <= x->workers && nodes <= x->nodes))
		return predicted;
	return fmax(predicted, workers * x->per_gpu);
}

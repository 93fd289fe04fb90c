/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_exp_stragglers.c - what replacing stragglers is worth: the Optimus
 * experiments' workload and cluster with one server in eight running its
 * workers 3x slower, with straggler detection and replacement against
 * without it, beside the same workload with no slow server. The paper
 * gives no figure for it; the rows say what the mechanism recovers.
 */
#include <math.h>

#include "sim_exp.h"

/* Chosen before the first run (doc/design/simulator.md "Stragglers"): a sick
 * node in eight, as slow as a thermally throttled GPU. */
#define STRAGGLER_SHARE 0.125
#define STRAGGLER_SLOWDOWN 3.0

int sim_exp_stragglers(sim_exp_t *e)
{
	sim_config_t none, kept, moved, drained;
	sim_gen_params_t gp;
	int rc;

	sim_exp_optimus_setup(e, &none, &gp);
	kept = none;
	kept.straggler_share = STRAGGLER_SHARE;
	kept.straggler_slowdown = STRAGGLER_SLOWDOWN;
	moved = kept;
	moved.straggler_detect = true;
	drained = moved;
	drained.straggler_drain = true;
	if ((rc = sim_exp_variant(e, "no slow server", &none, &gp, NULL)) ||
	    (rc = sim_exp_variant(e, "stragglers kept", &kept, &gp, NULL)) ||
	    (rc = sim_exp_variant(e, "stragglers replaced", &moved, &gp,
				  NULL)) ||
	    (rc = sim_exp_variant(e, "replaced + drained", &drained, &gp,
				  NULL)))
		return rc;
	const sim_result_t *n = sim_exp_row(e, "no slow server");
	const sim_result_t *k = sim_exp_row(e, "stragglers kept");
	const sim_result_t *m = sim_exp_row(e, "stragglers replaced");
	const sim_result_t *d = sim_exp_row(e, "replaced + drained");
	sim_report_compare(e->report, "JCT reduction by replacement",
			   100 * (1 - m->run.avg_jct / k->run.avg_jct),
			   NAN, "%",
			   "1 - JCT(replaced)/JCT(kept)");
	sim_report_compare(e->report, "JCT reduction, replaced + drained",
			   100 * (1 - d->run.avg_jct / k->run.avg_jct),
			   NAN, "%",
			   "1 - JCT(drained)/JCT(kept)");
	/* Why replacement alone gains little: a server left in service
	 * takes new jobs, each slowed until it is found in turn. */
	sim_report_compare(e->report, "stragglers found, replaced",
			   (double)m->stragglers, NAN, "",
			   "jobs that found one, mean per run");
	sim_report_compare(e->report, "stragglers found, drained",
			   (double)d->stragglers, NAN, "",
			   "jobs that found one, mean per run");
	sim_report_compare(e->report, "JCT cost of slow servers, kept",
			   100 * (k->run.avg_jct / n->run.avg_jct - 1),
			   NAN, "%",
			   "JCT(kept)/JCT(none) - 1");
	sim_report_compare(e->report, "JCT cost of slow servers, replaced",
			   100 * (m->run.avg_jct / n->run.avg_jct - 1),
			   NAN, "%",
			   "JCT(replaced)/JCT(none) - 1");
	return 0;
}

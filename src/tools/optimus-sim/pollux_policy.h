/*
 * pollux_policy.h - the policies of the measured-workload experiment.
 *
 * The peer's rules, as the Pollux paper's artifact describes them and
 * labelled as theirs: `peer-optimus-oracle` (one GPU at a time to the job
 * whose remaining time drops most, true step times and remaining steps,
 * batch fixed at submission) and `tiresias` (two-queue discretised
 * least-attained-service, jobs at their submitted size).
 *
 * Ours, through the project's core allocators (alloc.h) on all-reduce
 * jobs: `optimus` (Eqn. 9 on models fitted from what the jobs report),
 * `optimus-rate` (the same fitted models, greedy on the completion rate,
 * alloc/rate.c),
 * `optimus-oracle` (Eqn. 9 on the true step times and remaining steps),
 * `quality`, `drf`, `fifo` (at submitted size, strict order) and
 * `slurm-backfill` (first come first served with backfill at the
 * submitted size: what a Slurm user gets today).
 */
#ifndef OPTIMUS_POLLUX_POLICY_H
#define OPTIMUS_POLLUX_POLICY_H

#include "pollux_sim.h"

/* A new policy by name (its label), or NULL if unknown. */
px_policy_t *px_policy_new(const char *name);
/* Every label, in the experiment's order. */
extern const char *const px_policy_names[];
extern const size_t px_policy_count;

/* Constructors (pollux_peer.c, pollux_ours.c). */
px_policy_t *px_peer_optimus_new(void);
px_policy_t *px_tiresias_new(void);
px_policy_t *px_ours_new(const char *name);

#endif

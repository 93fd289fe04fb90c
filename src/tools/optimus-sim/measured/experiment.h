/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/experiment.h - `optimus-sim experiment pollux`: the measured workloads
 * of the Pollux artifact under the peer's baselines and this project's
 * policies, beside the peer's published average JCTs (optimus-sim(1),
 * doc/design/simulator.md "Measured workloads").
 */
#ifndef OPTIMUS_POLLUX_EXP_H
#define OPTIMUS_POLLUX_EXP_H

/* True when argv asks for this experiment (`experiment pollux`). */
int px_exp_wanted(int argc, char **argv);
/* Parse its options and run it: the process exit status. */
int px_exp_main(int argc, char **argv);

#endif

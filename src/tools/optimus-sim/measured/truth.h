/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/truth.h - `optimus-sim truth`: the measured truth of one job of
 * the Pollux artifact (measured/app.h) for a placement and a batch, as JSON,
 * for the replay trainer (examples/replay_trainer.py) that plays such a
 * job on a real cluster: one implementation of the step time and the
 * statistical efficiency, the simulator's. doc/design/simulator.md, "Replayed jobs".
 */
#ifndef OPTIMUS_POLLUX_TRUTH_H
#define OPTIMUS_POLLUX_TRUTH_H

/* Whether argv asks for `truth`; its main (exit status). */
int px_truth_wanted(int argc, char **argv);
int px_truth_main(int argc, char **argv);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_data.h - where optimus-sim finds its data by default: the source
 * tree it was built in (a build tree's binary), else the copy `make
 * install` puts in $(pkgdatadir) (an installed one, whose build folder a
 * package build has deleted).
 */
#ifndef OPTIMUS_SIM_DATA_H
#define OPTIMUS_SIM_DATA_H

/* Without mk/sim.mk's definitions: the source tree's, from its top. */
#ifndef POLLUX_DATA_INSTALLED
#define POLLUX_DATA_INSTALLED "testsuite/data/pollux-osdi21"
#endif
#ifndef SIM_CURVES_INSTALLED
#define SIM_CURVES_INSTALLED "testsuite/data/quality-curves/curves.csv"
#endif

/* built when it exists, else installed. */
const char *sim_data_default(const char *built, const char *installed);

#endif

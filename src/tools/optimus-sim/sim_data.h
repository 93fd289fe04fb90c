/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * sim_data.h - where optimus-sim finds its data by default: the path the
 * environment names (OPTIMUS_POLLUX_DATA, OPTIMUS_SIM_CURVES), else the
 * copy `make install` puts in $(pkgdatadir). Nowhere else: a path of the
 * folder it was built in would make two builds of one commit differ, and
 * once that folder is gone (a package build's) whoever creates it again
 * would feed an installed binary their data; the working folder likewise.
 * A build tree's binary is pointed at the source tree's data by the
 * environment (the test suites' conftest.py, `optimus-cluster env`).
 */
#ifndef OPTIMUS_SIM_DATA_H
#define OPTIMUS_SIM_DATA_H

/* mk/sim.mk defines both from $(pkgdatadir). */
#if !defined(POLLUX_DATA_INSTALLED) || !defined(SIM_CURVES_INSTALLED)
#error "POLLUX_DATA_INSTALLED and SIM_CURVES_INSTALLED come from mk/sim.mk"
#endif

/* The value of environment variable env when set and not empty, else
 * installed. */
const char *sim_data_path(const char *env, const char *installed);

#endif

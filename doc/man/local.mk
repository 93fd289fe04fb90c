# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# doc/man
dist_man_MANS += doc/man/optimusctl.1 doc/man/optimus-report.1
dist_man_MANS += doc/man/optimus-sim.1
dist_man_MANS += doc/man/optimus_hints.5 doc/man/spank_optimus.8
dist_man_MANS += doc/man/sched_optimus.8 doc/man/optimus.conf.5

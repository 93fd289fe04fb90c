# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Shared by every pytest suite (offline, integration): the build tree's
optimus-sim reads the source tree's data, which an installed one never
looks for (src/tools/optimus-sim/sim_data.h). A test of the installed
binary's own default clears these variables."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "cluster"))
from cluster import use_build_tree_data  # noqa: E402

use_build_tree_data()

# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""A mass cancel does not freeze the planner.

Every ended optimus job's final SystemComment goes to slurmdbd; written one
at a time on the planner's path, 9,950 of them stopped planning for 14
minutes. Here some hundreds are cancelled at once, then a new job arrives
with free room: it must start within a few plan intervals.
"""
import time
from concurrent.futures import ThreadPoolExecutor

import sched_helpers as sched
from sched_helpers import cancel
from waiting import wait_for

# The cluster fixture reads the module's CLUSTER_OPTIONS.
CLUSTER_OPTIONS = sched.CLUSTER_OPTIONS

MASS = 500
# PlanInterval=2: ten plans, far more than a start takes on an idle cluster.
START_BOUND = 20


def test_new_job_starts_soon_after_mass_cancel(accounting_cluster):
    c = accounting_cluster
    block = c.sbatch(["-N4", "--exclusive", "-o", "/dev/null"],
                     "#!/bin/sh\nsleep 900\n")
    c.wait_job_state(block, {"RUNNING"})
    new = None
    try:
        def one(_):
            return c.sbatch(["--scheduler=optimus,max_workers=1", "-J",
                             "mass", "-o", "/dev/null"],
                            "#!/bin/sh\nsleep 1\n")
        with ThreadPoolExecutor(8) as pool:
            jobs = list(pool.map(one, range(MASS)))
        wait_for(lambda: "tracking JobId=%d " % max(jobs) in c.logs(), 120,
                 "the planner tracking every job")
        c.run(["scancel", "-n", "mass"])
        cancel(c, block)
        t0 = time.time()
        new = c.sbatch(["--scheduler=optimus,max_workers=1", "-o",
                        "/dev/null"], "#!/bin/sh\nsleep 30\n")
        c.wait_job_state(new, {"RUNNING", "COMPLETED"}, timeout=600)
        waited = time.time() - t0
        print("\nnew job started %.1f s after %d optimus jobs were "
              "cancelled (bound %d s)" % (waited, MASS, START_BOUND))
        assert waited <= START_BOUND, waited
        # The final comments still reach slurmdbd, off the planner's path.

        def comment():
            r = c.run(["sacct", "-n", "-X", "-j", str(max(jobs)), "-o",
                       "SystemComment%400"], check=False)
            return "jct=" in r.stdout
        wait_for(comment, 300, "the last job's SystemComment in sacct")
    finally:
        c.run(["scancel", "-n", "mass"], check=False)
        cancel(c, block, *([new] if new else []))

# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""One ordinary user cannot fill the planner's report queue for the others
(doc/reports.md "Fair shares"), on a real cluster.

The queue is made small (ReportQueueSize=32; the planner drains it every
second) and the replay table is left at its default size, so the attacker's
valid reports for its own job reach the queue instead of being refused
earlier by its share of the replay table (test_report_fairness.py)."""
import os

import pytest

from attack_helpers import TOP, run_attack
from report_helpers import (client_env, job_of, open_to_every_user,
                            unix_user)

OTHER = "optimus-attacker"
QUEUE = 32
CLUSTER_OPTIONS = {"optimus_conf": "ReportQueueSize=%d\n" % QUEUE}


@pytest.fixture(scope="module")
def env(cluster):
    open_to_every_user(cluster)
    assert os.access(os.path.join(TOP, "src", "tools", "optimus-report"),
                     os.X_OK), "run make first"
    return client_env(cluster)


def test_one_user_cannot_fill_the_report_queue(cluster, env):
    """Three processes of the attacker send valid reports for its own job as
    fast as they go, many times the queue between two drains; the other
    user's 20 reports are all accepted and land."""
    unix_user(OTHER)
    own = job_of(OTHER, env)
    jid = cluster.sbatch(["-o", "/dev/null", "-t", "10"],
                         script="#!/bin/sh\nsleep 300\n")
    run_attack(cluster, env, OTHER, own, jid, 1, 20 * QUEUE, attackers=3)
    cluster.run(["scancel", str(jid), str(own)])

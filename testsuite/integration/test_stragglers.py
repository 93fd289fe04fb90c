# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Stragglers on a real cluster: a slow node is found from the workers' own
step times, the job is moved off it through checkpoint-requeue and finishes
sooner than the same job left on it; StragglerDrain drains the node.

The jobs run workloads/synthetic_trainer.py with its documented test-only
variables: OPTIMUS_TEST_SLOW_NODE=@first makes the workers on the first node
of the job's first run 3x slower (the synchronous job then advances 3x
slower while it runs there); OPTIMUS_TEST_WORKER_REPORTS=0 leaves out the
per-worker reports, so that job runs without detection.
"""
import json
import os
import re
import time

from sched_helpers import cancel, runs
from waiting import wait_for

CLUSTER_OPTIONS = {
    "cred_expire": 5,
    "optimus_conf": ("PlanInterval=2\nMinResizeInterval=5\nRestartCost=2\n"
                     "StragglerReports=3\nStragglerSyncFactor=1.5\n"
                     "StragglerDrain=yes\n"),
}

# 1 PS + 2 workers of 3 CPUs: 9 CPUs, so every run spans two 8-CPU nodes
# and each worker has a node of its own to be compared with.
HINTS = ("optimus,mode=sync,batch=64,ps=1,workers=2,ps_cpus=3,worker_cpus=3,"
         "ckpt_grace=30")
STEPS = 30


def done_line(out):
    try:
        return [json.loads(l) for l in open(out).read().splitlines()
                if l.startswith('{"done"')]
    except OSError:
        return []


def test_straggler_found_moved_and_sooner(cluster, tmp_path):
    env = "--export=ALL,OPTIMUS_TEST_SLOW_NODE=@first"
    # One job at a time: each needs two free nodes besides its slow one.
    t0 = time.time()
    moved, moved_out = _submit_env(cluster, tmp_path, "moved", env)
    plain = None
    try:
        first = wait_for(lambda: runs(moved_out), 60, "the job to start")[0]
        slow = first["nodes"][0]
        # Detected from the workers' reports, logged once, then moved.
        wait_for(lambda: "straggler: worker" in cluster.logs(), 60,
                 "the straggler to be detected")
        wait_for(lambda: len(runs(moved_out)) >= 2, 90,
                 "the job to restart off the straggler's node")
        log = cluster.logs()
        found = re.findall(r"JobId=%d: straggler: worker \d+ on node (\S+)"
                           % moved, log)
        assert found == [slow], found
        assert len(re.findall(r"JobId=%d: moves off straggler node %s"
                              % (moved, slow), log)) == 1, log
        second = runs(moved_out)[1]
        assert slow not in second["nodes"], second
        assert second["resumed_from"] > 0, second
        assert (second["ps"], second["workers"]) == (1, 2)
        f = cluster.job_fields(moved)
        assert "straggler=%s(" % slow in f["SystemComment"], f
        # StragglerDrain=yes: the node is drained with a reason naming
        # the job and the measured slowdown.
        node = cluster.run(["scontrol", "show", "node", slow]).stdout
        assert re.search(r"State=\S*DRAIN", node), node
        assert "straggler of JobId=%d" % moved in node, node
        cluster.wait_job_state(moved, {"COMPLETED"}, timeout=240)
        t_moved = time.time() - t0
        assert done_line(moved_out)
        cluster.run(["scontrol", "update", "nodename=" + slow,
                     "state=resume"])
        # The same job without worker reports stays on its straggler.
        t0 = time.time()
        plain, plain_out = _submit_env(cluster, tmp_path, "left",
                                       env + ",OPTIMUS_TEST_WORKER_REPORTS=0")
        cluster.wait_job_state(plain, {"COMPLETED"}, timeout=300)
        t_left = time.time() - t0
        assert len(runs(plain_out)) == 1     # never moved
        print("straggler test: moved job done after %.0fs, left job after "
              "%.0fs" % (t_moved, t_left))
        assert t_moved < t_left
    finally:
        cancel(cluster, moved, *([plain] if plain else []))
        cluster.run(["scontrol", "update", "nodename=n[1-4]",
                     "state=resume"], check=False)


def _submit_env(cluster, tmp_path, name, export):
    out = str(tmp_path / ("%s.out" % name))
    hints = HINTS + ",ckpt_dir=%s" % (tmp_path / ("ckpt-" + name))
    trainer = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "workloads", "synthetic_trainer.py")
    jid = cluster.sbatch(["--scheduler=" + hints, "-J", name, export,
                          "--open-mode=append", "-D", str(tmp_path),
                          "-o", out],
                         "#!/bin/sh\nexec /usr/bin/python3 %s %d\n"
                         % (trainer, STEPS))
    return jid, out

# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Task ports that never collide (doc/hints.md, "Ports").

A task's ports are the ports Slurm reserved for its step on its node
(MpiParams=ports=, SLURM_STEP_RESV_PORTS): two jobs on one node never
share one, whatever their ids, and every test cluster on a host reserves
from its own range. The jobs here are the example trainers, whose
parameter servers (examples/ps_trainer.py) and PyTorch rendezvous
(examples/torch_trainer.py) bind their ports and fail the job when a
port is taken: every job must complete.
"""
import re
import tempfile

import pytest

from cluster import Cluster
from examples_helpers import HAVE_TORCH, submit, wait_done
from waiting import wait_for

# Slurm's backfill starts the jobs at once where they ask to run: the
# ports are the nodes' affair (spank/optimus), not the planner's.
CLUSTER_OPTIONS = {"scheduler": "sched/backfill", "nodes": 2}

# Long enough (tens of seconds) for two jobs to run side by side.
PS_ARGS = ["--target-loss", "0.0001", "--max-steps", "250",
           "--work-ms-per-sample", "2"]
PS_HINTS = "optimus,ps=1,workers=1"
AR_HINTS = "optimus,mode=allreduce,workers=2,batch=32"
LISTEN_RE = re.compile(r"serving parameters \[\d+, \d+\) on [\d.]+:(\d+)")


def _both_running(c1, j1, c2, j2):
    return (c1.job_fields(j1).get("JobState") == "RUNNING" and
            c2.job_fields(j2).get("JobState") == "RUNNING")


def _run_pair(c1, d1, c2, d2, hints, args, id1, id2, example):
    """Two jobs, on node n1 of c1 and of c2, with ids id1 and id2, side by
    side; both must complete. Their outputs."""
    c1.set_next_job_id(id1)
    j1 = submit(c1, d1, hints, args, ["-w", "n1"], example=example)
    c2.set_next_job_id(id2)
    j2 = submit(c2, d2, hints, args, ["-w", "n1"], example=example)
    assert (j1, j2) == (id1, id2)
    wait_for(lambda: _both_running(c1, j1, c2, j2) or
             c1.job_fields(j1).get("JobState") not in ("PENDING", "RUNNING")
             or c2.job_fields(j2).get("JobState") not in ("PENDING", "RUNNING"),
             120, "both jobs running")
    return wait_done(c1, d1, j1), wait_done(c2, d2, j2)


def test_jobs_320_ids_apart_on_one_node_both_complete(cluster):
    """Ids 320 apart gave two jobs the same port block (job id modulo
    320): the second job's PS could not listen ("Address already in
    use") and failed. Both complete, on ports of their own."""
    d = tempfile.mkdtemp(prefix="ports-", dir=cluster.root)
    first = cluster.first_job_id + 600
    out1, out2 = _run_pair(cluster, d, cluster, d, PS_HINTS, PS_ARGS,
                           first, first + 320, "ps_trainer.sbatch")
    p1, p2 = LISTEN_RE.findall(out1), LISTEN_RE.findall(out2)
    assert p1 and p2 and not set(p1) & set(p2), (p1, p2)
    print("jobs %d and %d on n1: both COMPLETED, PS ports %s and %s"
          % (first, first + 320, p1, p2))


@pytest.mark.skipif(not HAVE_TORCH, reason="python3-torch not installed")
def test_allreduce_jobs_320_ids_apart_on_one_node_both_complete(cluster):
    """The same for PyTorch DDP jobs (mode=allreduce): MASTER_PORT, where
    worker 0's TCPStore binds ("failed to bind to 0.0.0.0:...")."""
    d = tempfile.mkdtemp(prefix="ports-ar-", dir=cluster.root)
    first = cluster.first_job_id + 700
    _run_pair(cluster, d, cluster, d, AR_HINTS, PS_ARGS, first, first + 320,
              "torch_trainer.sbatch")
    print("all-reduce jobs %d and %d on n1: both COMPLETED"
          % (first, first + 320))


def test_two_clusters_on_one_host_run_the_same_ids(cluster):
    """A second cluster on the same host numbers its jobs as this one:
    the same job id on both, side by side, both complete (each cluster
    reserves its tasks' ports from a range of its own)."""
    root = tempfile.mkdtemp(prefix="optimus-test-second-")
    other = Cluster(root, **CLUSTER_OPTIONS)
    other.start()
    failed = True
    try:
        d1 = tempfile.mkdtemp(prefix="ports-c1-", dir=cluster.root)
        d2 = tempfile.mkdtemp(prefix="ports-c2-", dir=other.root)
        same = cluster.first_job_id + 800
        out1, out2 = _run_pair(cluster, d1, other, d2, PS_HINTS, PS_ARGS,
                               same, same, "ps_trainer.sbatch")
        p1, p2 = LISTEN_RE.findall(out1), LISTEN_RE.findall(out2)
        assert p1 and p2 and not set(p1) & set(p2), (p1, p2)
        print("job %d on two clusters: both COMPLETED, PS ports %s and %s"
              % (same, p1, p2))
        failed = False
    finally:
        other.stop(keep=failed)
        if failed:
            print("second cluster's logs kept in", other.log)

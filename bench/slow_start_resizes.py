#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""A slow-starting elastic job shrunk and grown --cycles times (default
10) on a real localhost cluster: how many times it FAILED, and how many
checkpoint signals reached one of its runs before that run declared its
checkpoint.

The job is the synthetic trainer of the integration tests
(testsuite/integration/workloads/synthetic_trainer.py) with every run's
process sleeping --handler-delay seconds (default 40) before it installs
its SIGUSR1 handler and declares (optimus_report.Reporter
.handle_checkpoints): until then the signal kills it, as it kills a
trainer still importing torch or loading its data. It takes the whole
cluster (4 nodes of 8 CPUs: 32 tasks). Each cycle submits a newcomer, for
which the plan shrinks the job (checkpoint signal, requeue, a smaller
run); as soon as that run starts, the newcomer is cancelled and the plan
grows the job back (a larger run). A signal is counted as before its
run's declaration when the run its output shows in progress then had not
declared, or wrote no checkpoint after it (sched_helpers
.signals_unanswered: the signal killed it).

The cluster is the planner tests' (testsuite/cluster/sched_helpers
CLUSTER_OPTIONS: plans every 2 s, MinResizeInterval 5 s, cred_expire 5 s).

    bench/slow_start_resizes.py                 # 10 cycles, about 25 min
    bench/slow_start_resizes.py --cycles 2 --handler-delay 40

Prints each run as it starts and, at the end, the figure. Exit status 0
only if the job never failed, every cycle shrank and grew it, and no
signal came before a declaration. Needs root (the cluster's daemons) and a
built tree.
"""
import argparse
import os
import pathlib
import shutil
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "testsuite", "cluster"))
from cluster import Cluster  # noqa: E402
import sched_helpers as sched  # noqa: E402
from waiting import wait_for  # noqa: E402

BIG = ("optimus,max_ps=8,max_workers=24,ckpt_grace=30,steps=10000000,"
       "delta=0.00001")
NEWCOMER = "optimus,max_ps=2,max_workers=6"
ALIVE = ("RUNNING", "PENDING", "REQUEUED", "COMPLETING")


def log(t0, msg):
    print("[%7.1f s] %s" % (time.time() - t0, msg), flush=True)


def wait_run(c, big, out, restart, timeout):
    """Run `restart`'s start line, or None if the job ended first."""
    def seen():
        r = sched.run_start(out, restart)
        if r:
            return r
        return c.job_fields(big)["JobState"] not in ALIVE and "ended"
    r = wait_for(seen, timeout, "run %d of job %d" % (restart, big))
    return r if isinstance(r, dict) else None


def cycles(c, work, n, delay, t0):
    """Run the cycles; returns (cycles completed, the job's id, its
    output)."""
    big, out = sched.submit(c, work, "slow", BIG, 10000000,
                            handler_delay=delay)
    log(t0, "job %d submitted (handler delay %g s)" % (big, delay))
    first = wait_run(c, big, out, 0, 120)
    log(t0, "run 0: %d PS + %d workers" % (first["ps"], first["workers"]))
    done = 0
    for k in range(n):
        # the newcomer arrives once the current run declared
        wait_for(lambda: sched.run_declared(out, 2 * k), 4 * delay + 120,
                 "run %d's declaration" % (2 * k))
        small, _ = sched.submit(c, work, "newcomer-%d" % k, NEWCOMER,
                                10000000)
        shrunk = wait_run(c, big, out, 2 * k + 1, 4 * delay + 180)
        sched.cancel(c, small)
        if not shrunk:
            log(t0, "job ended before cycle %d shrank it" % (k + 1))
            break
        log(t0, "run %d: %d PS + %d workers (shrunk for job %d)"
            % (2 * k + 1, shrunk["ps"], shrunk["workers"], small))
        grown = wait_run(c, big, out, 2 * k + 2, 4 * delay + 180)
        if not grown:
            log(t0, "job ended before cycle %d grew it" % (k + 1))
            break
        log(t0, "run %d: %d PS + %d workers (grown back)"
            % (2 * k + 2, grown["ps"], grown["workers"]))
        if (grown["ps"] + grown["workers"] <=
                shrunk["ps"] + shrunk["workers"]):
            log(t0, "cycle %d did not grow it" % (k + 1))
            break
        done += 1
    return done, big, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cycles", type=int, default=10)
    ap.add_argument("--handler-delay", type=float, default=40.0)
    ap.add_argument("--keep", action="store_true",
                    help="keep the cluster's folder (logs, outputs)")
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="optimus-slow-start-")
    work = os.path.join(root, "jobs")
    os.makedirs(work)
    c = Cluster(os.path.join(root, "cluster"), **sched.CLUSTER_OPTIONS)
    c.start()
    t0 = time.time()
    ok = False
    try:
        done, big, out = cycles(c, pathlib.Path(work), a.cycles,
                                a.handler_delay, t0)
        f = c.job_fields(big)
        failed = int(f["JobState"] == "FAILED")
        sent, bad = sched.signals_unanswered(c, big, out)
        sched.cancel(c, big)
        for t, why in bad:
            log(t0, "signal at %.1f s: %s" % (t - t0, why))
        print("slow-starting job (handler after %g s), %d of %d cycles "
              "shrunk and grown: %d FAILED, %d signals before its run's "
              "declaration (%d signals sent), %.0f s"
              % (a.handler_delay, done, a.cycles, failed, len(bad), sent,
                 time.time() - t0), flush=True)
        ok = done == a.cycles and not failed and not bad
    finally:
        c.stop(keep=True)
        if a.keep or not ok:
            print("kept: %s" % root)
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

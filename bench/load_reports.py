#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Load test of the report listener on a real localhost cluster.

Starts its own cluster (testsuite/cluster), submits one long job to report
for, measures sbatch latency with no reports, then runs bench/load_reports
(THREADS concurrent reporters for SECONDS, bounded) and measures sbatch
latency again while it runs. Prints reports per second accepted and the
sbatch latencies with their ratio. Localhost only; stops by itself.

    make && /usr/bin/python3 bench/load_reports.py [--threads 32]
        [--seconds 20] [--submits 20] [--dir /tmp/optimus-load]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "testsuite", "cluster"))
from cluster import Cluster  # noqa: E402

LOADER = os.path.join(TOP, "bench", "load_reports")


def sbatch_latencies(c, n, stop_at=None):
    """Seconds per `sbatch --hold` (held jobs do not load the nodes)."""
    out = []
    for _ in range(n):
        if stop_at and time.time() > stop_at:
            break
        t = time.perf_counter()
        c.run(["sbatch", "--hold", "-o", "/dev/null", "--wrap", "true"])
        out.append(time.perf_counter() - t)
        time.sleep(0.2)
    return out


def summary(xs):
    xs = sorted(xs)
    return statistics.median(xs), xs[min(len(xs) - 1, int(0.95 * len(xs)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=32)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--submits", type=int, default=20)
    ap.add_argument("--dir")
    a = ap.parse_args()
    if not os.access(LOADER, os.X_OK):
        sys.exit("build first: make bench/load_reports")
    root = a.dir or tempfile.mkdtemp(prefix="optimus-load-")
    c = Cluster(root, nodes=2)
    c.start()
    try:
        job = c.sbatch(["-o", "/dev/null", "-t", "30"],
                       script="#!/bin/sh\nsleep 600\n")
        base = sbatch_latencies(c, a.submits)
        env = c.env()
        env.pop("OPTIMUS_REPORT_ADDR", None)
        load = subprocess.Popen(
            [LOADER, "-j", str(job), "-t", str(a.threads), "-s",
             str(a.seconds), "-m", "2000000"], env=env,
            stdout=subprocess.PIPE, text=True)
        time.sleep(1)
        loaded = sbatch_latencies(c, a.submits,
                                  stop_at=time.time() + a.seconds - 1)
        out, _ = load.communicate(timeout=a.seconds + 60)
        ping = c.run(["scontrol", "ping"], check=False).stdout.strip()
        b_med, b_p95 = summary(base)
        l_med, l_p95 = summary(loaded)
        print("load:", out.strip())
        print("sbatch latency without reports: median %.1f ms, p95 %.1f ms "
              "(%d submits)" % (b_med * 1e3, b_p95 * 1e3, len(base)))
        print("sbatch latency under load:      median %.1f ms, p95 %.1f ms "
              "(%d submits)" % (l_med * 1e3, l_p95 * 1e3, len(loaded)))
        print("ratio under load / without: median %.2f, p95 %.2f"
              % (l_med / b_med, l_p95 / b_p95))
        print("scontrol ping after load:", ping)
    finally:
        c.stop(keep=False)
        if a.dir is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()

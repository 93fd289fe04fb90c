#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""slurmctld under load at scale: sched/optimus against sched/backfill.

Starts two real localhost clusters side by side (testsuite/cluster), one
with SchedulerType=sched/optimus, one with sched/backfill (job_submit/optimus
sizes the jobs in both), and gives both the same workload:
  1. IDLE: SUBMITS `sbatch --hold` latencies on each, alternating clusters;
  2. submits JOBS optimus jobs (`--scheduler=optimus`, each `sleep`ing) to
     each, so that some run and the rest wait;
  3. starts a report flood on the optimus cluster: bench/load_reports,
     THREADS reporters on each of up to LOADERS running jobs, for SECONDS
     (no listener runs under sched/backfill: a flood there would only burn
     CPU on refused connections);
  4. LOADED: up to SUBMITS `sbatch --hold` latencies on each, alternating
     clusters, while the flood lasts.
Submits alternate between the clusters so that the machine's other load
(two shared cores here) falls on both alike. Prints sbatch p50/p99 per
cluster and phase, the optimus/backfill ratios (target: loaded p99 within
1.1x of backfill's), the flood's figures, and the longest lock holds per
plan read from the optimus cluster's slurmctld.log ("lock holds" lines:
slurmctld snapshot read locks, slurmctld apply write locks, registry
mutex) over the plans made during the loaded phase. Parameters are fixed
before the run (defaults below); the clusters plan every 2 s (the test
cluster's PlanInterval), a harder load than the default interval.

    make && /usr/bin/python3 bench/load_scale.py [--jobs 2000] [--nodes 4]
        [--submits 200] [--threads 4] [--loaders 2] [--seconds 60]
"""
import argparse
import concurrent.futures
import os
import re
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
HOLD_RE = re.compile(r"lock holds: longest since the last plan: slurmctld "
                     r"snapshot ([0-9.]+) ms, slurmctld apply ([0-9.]+) ms, "
                     r"registry ([0-9.]+) ms")
JOB_SCRIPT = "#!/bin/sh\nsleep 3600\n"


def submit_all(c, n, workers=4):
    """n optimus jobs, `workers` sbatch at a time; returns their ids."""
    args = ["--scheduler=optimus,max_ps=1,max_workers=2", "-o", "/dev/null",
            "-t", "120"]
    with concurrent.futures.ThreadPoolExecutor(workers) as ex:
        return list(ex.map(lambda _: c.sbatch(args, script=JOB_SCRIPT),
                           range(n)))


def running_jobs(c):
    out = c.run(["squeue", "-h", "-t", "R", "-o", "%i"]).stdout.split()
    return [int(x) for x in out if x.isdigit()]


def job_counts(c):
    out = c.run(["squeue", "-h", "-o", "%T"]).stdout.split()
    return out.count("RUNNING"), out.count("PENDING")


def percentile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def sbatch_once(c):
    t = time.perf_counter()
    c.run(["sbatch", "--hold", "-o", "/dev/null", "--wrap", "true"])
    return time.perf_counter() - t


def alternate(clusters, n, stop_at):
    """n sbatch latencies per cluster, one cluster after the other."""
    lat = [[] for _ in clusters]
    for i in range(n):
        if time.time() > stop_at:
            break
        for k, c in enumerate(clusters):
            lat[k].append(sbatch_once(c))
            time.sleep(0.05)
    return lat


def lock_holds(log_text):
    return [tuple(float(x) for x in m.groups())
            for m in HOLD_RE.finditer(log_text)]


def start_flood(c, a):
    env = c.env()
    env.pop("OPTIMUS_REPORT_ADDR", None)
    return [subprocess.Popen(
        [LOADER, "-j", str(job), "-t", str(a.threads), "-s", str(a.seconds),
         "-m", "100000000"], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
        for job in running_jobs(c)[:a.loaders]]


def ms(xs, q):
    return 1e3 * (statistics.median(xs) if q == 0.5 else percentile(xs, q))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2000)
    ap.add_argument("--nodes", type=int, default=4)
    ap.add_argument("--submits", type=int, default=200)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--loaders", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=60,
                    help="length of the flood; sbatch is measured within")
    ap.add_argument("--settle", type=float, default=10)
    ap.add_argument("--dir")
    a = ap.parse_args()
    if not os.access(LOADER, os.X_OK):
        sys.exit("build first: make bench/load_reports")
    base = a.dir or tempfile.mkdtemp(prefix="optimus-scale-")
    names = ("sched/optimus", "sched/backfill")
    clusters = [Cluster(os.path.join(base, n.split("/")[1]), nodes=a.nodes,
                        scheduler=n) for n in names]
    loaders = []
    try:
        for c in clusters:
            c.start()
        idle = alternate(clusters, a.submits, time.time() + 3600)
        for c, n in zip(clusters, names):
            t0 = time.time()
            submit_all(c, a.jobs)
            print("%-15s %d jobs submitted in %.0f s" % (n, a.jobs,
                                                         time.time() - t0))
        time.sleep(a.settle)
        for c, n in zip(clusters, names):
            print("%-15s %d running, %d pending" % ((n,) + job_counts(c)))
        loaders = start_flood(clusters[0], a)
        t_flood = time.time()
        time.sleep(2)
        log_before = len(clusters[0].logs("slurmctld"))
        loaded = alternate(clusters, a.submits, t_flood + a.seconds - 1)
        holds = lock_holds(clusters[0].logs("slurmctld")[log_before:])
        for p in loaders:
            out, _ = p.communicate(timeout=a.seconds + 60)
            print("%-15s flood: %s" % (names[0], out.strip()))
        for k, n in enumerate(names):
            for phase, lat in (("idle", idle[k]), ("loaded", loaded[k])):
                print("%-15s sbatch %-6s p50 %6.1f ms, p95 %6.1f ms, p99 "
                      "%6.1f ms, max %6.1f ms (%d submits)"
                      % (n, phase, ms(lat, 0.5), ms(lat, 0.95),
                         ms(lat, 0.99), 1e3 * max(lat), len(lat)))
        for phase, lat in (("idle", idle), ("loaded", loaded)):
            print("ratio optimus/backfill %-6s p50 %.2f, p95 %.2f, p99 "
                  "%.2f%s" % (phase, ms(lat[0], 0.5) / ms(lat[1], 0.5),
                              ms(lat[0], 0.95) / ms(lat[1], 0.95),
                              ms(lat[0], 0.99) / ms(lat[1], 0.99),
                     " (target p99 <= 1.10)" if phase == "loaded" else ""))
        for i, site in enumerate(("slurmctld snapshot", "slurmctld apply",
                                  "registry")):
            xs = [h[i] for h in holds]
            if xs:
                print("longest %s lock hold per plan: max %.2f ms, median "
                      "%.2f ms (%d plans)" % (site, max(xs),
                                              statistics.median(xs),
                                              len(xs)))
        if not holds:
            print("no lock-hold lines in slurmctld.log (plugin without "
                  "lock_hold.c?)")
    finally:
        for p in loaders:
            if p.poll() is None:
                p.kill()
        for c in clusters:
            c.stop(keep=False)
        if a.dir is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()

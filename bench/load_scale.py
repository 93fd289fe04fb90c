#!/usr/bin/python3
"""slurmctld under load at scale: sched/optimus against sched/backfill.

Runs the same workload twice, each time on its own real localhost cluster
(testsuite/cluster), first with SchedulerType=sched/optimus, then with
sched/backfill (job_submit/optimus still sizes the jobs):
  1. submits JOBS optimus jobs (`--scheduler=optimus`, each `sleep`ing), so
     that some run and the rest wait;
  2. starts a report flood: bench/load_reports, THREADS reporters on each
     of up to LOADERS running jobs, for the whole measurement (only under
     sched/optimus: no listener runs under sched/backfill);
  0. measures SUBMITS `sbatch --hold` latencies on the idle cluster;
  3. measures up to SUBMITS `sbatch --hold` latencies, one every 0.1 s,
     while the flood lasts.
Prints sbatch p50/p99 for both schedulers and their ratio (target: p99
within 1.1x of backfill's), and for sched/optimus the longest lock holds
per plan read from slurmctld.log (the plugin's "lock holds" lines:
slurmctld snapshot read locks, slurmctld apply write locks, registry
mutex), over the plans made during the measurement. Parameters are fixed
before the run (defaults below); the cluster plans every 2 s (the test
cluster's PlanInterval), a harder load than the default interval.

    make && /usr/bin/python3 bench/load_scale.py [--jobs 2000] [--nodes 4]
        [--submits 200] [--threads 4] [--loaders 2] [--seconds 60]
        [--only optimus]
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


def sbatch_latencies(c, n, stop_at):
    out = []
    for _ in range(n):
        if time.time() > stop_at:
            break
        t = time.perf_counter()
        c.run(["sbatch", "--hold", "-o", "/dev/null", "--wrap", "true"])
        out.append(time.perf_counter() - t)
        time.sleep(0.1)
    return out


def lock_holds(log_text):
    return [tuple(float(x) for x in m.groups())
            for m in HOLD_RE.finditer(log_text)]


def run_one(scheduler, a, root):
    c = Cluster(root, nodes=a.nodes, scheduler=scheduler)
    c.start()
    loaders = []
    try:
        idle = sbatch_latencies(c, a.submits, time.time() + 120)
        t0 = time.time()
        ids = submit_all(c, a.jobs)
        took = time.time() - t0
        time.sleep(a.settle)
        running, pending = job_counts(c)
        env = c.env()
        env.pop("OPTIMUS_REPORT_ADDR", None)
        # No listener runs under sched/backfill: a flood there would only
        # burn CPU on refused connections, so it floods sched/optimus only.
        flooded = running_jobs(c)[:a.loaders] if "optimus" in scheduler \
            else []
        for job in flooded:
            loaders.append(subprocess.Popen(
                [LOADER, "-j", str(job), "-t", str(a.threads), "-s",
                 str(a.seconds), "-m", "100000000"], env=env,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
        t_flood = time.time()
        time.sleep(2)
        log_before = len(c.logs("slurmctld"))
        lat = sbatch_latencies(c, a.submits, t_flood + a.seconds - 1)
        holds = lock_holds(c.logs("slurmctld")[log_before:])
        flood = []
        for p in loaders:
            out, _ = p.communicate(timeout=a.seconds + 60)
            flood.append(out.strip())
        return {"lat": lat, "idle": idle, "holds": holds, "flood": flood, "ids": len(ids),
                "submit_s": took, "running": running, "pending": pending}
    finally:
        for p in loaders:
            if p.poll() is None:
                p.kill()
        c.stop(keep=False)


def report(name, r):
    lat = r["lat"]
    print("%-15s %d jobs submitted in %.0f s; %d running, %d pending at the "
          "start" % (name, r["ids"], r["submit_s"], r["running"],
                     r["pending"]))
    idle = r["idle"]
    print("%-15s sbatch latency idle:   p50 %.1f ms, p99 %.1f ms (%d submits)"
          % (name, 1e3 * statistics.median(idle),
             1e3 * percentile(idle, 0.99), len(idle)))
    print("%-15s sbatch latency loaded: p50 %.1f ms, p99 %.1f ms (%d submits)"
          % (name, 1e3 * statistics.median(lat), 1e3 * percentile(lat, 0.99),
             len(lat)))
    for f in r["flood"]:
        print("%-15s flood: %s" % (name, f))
    if r["holds"]:
        for i, site in enumerate(("slurmctld snapshot", "slurmctld apply",
                                  "registry")):
            xs = [h[i] for h in r["holds"]]
            print("%-15s longest %s lock hold per plan: max %.2f ms, "
                  "median %.2f ms (%d plans)" % (name, site, max(xs),
                                                  statistics.median(xs),
                                                  len(xs)))


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
    ap.add_argument("--only", choices=("optimus", "backfill"))
    ap.add_argument("--dir")
    a = ap.parse_args()
    if not os.access(LOADER, os.X_OK):
        sys.exit("build first: make bench/load_reports")
    base = a.dir or tempfile.mkdtemp(prefix="optimus-scale-")
    res = {}
    try:
        for name in ("optimus", "backfill"):
            if a.only and a.only != name:
                continue
            res[name] = run_one("sched/" + name, a,
                                os.path.join(base, name))
            report("sched/" + name, res[name])
            sys.stdout.flush()
    finally:
        if a.dir is None:
            shutil.rmtree(base, ignore_errors=True)
    if len(res) == 2:
        o, b = res["optimus"]["lat"], res["backfill"]["lat"]
        print("ratio optimus/backfill: p50 %.2f, p99 %.2f (target p99 <= 1.10)"
              % (statistics.median(o) / statistics.median(b),
                 percentile(o, 0.99) / percentile(b, 0.99)))


if __name__ == "__main__":
    main()

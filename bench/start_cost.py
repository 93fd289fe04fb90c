#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""The start cost of a replayed job against the jobs starting with it:
a calibration run on the real cluster, separate from the benchmark it
serves (bench/pollux_replay.py --start-model; doc/e2e.md
"A start cost that depends on the starts together").

On the benchmark's cluster under plain sched/backfill (the same set-up:
4 nodes of 4 fake GPUs, accounting, the same replay trainer and
compression), bursts of k jobs of 1 GPU are submitted at once (k from
--bursts, each burst --repeat times, one burst at a time on an idle
cluster) and each job's start cost is measured as the benchmark measures
it (pollux_replay.start_cost: End - Start less the trainer's time from
its first step to its end), beside its allocation-to-first-step.

The model, chosen from the benchmark's measured runs before this
calibration (doc/e2e.md): the launches of jobs allocated together queue
on this host, each about the same seconds more than the one before it, so
the i-th job to start while i others are still starting costs
base + per_queued * i; a burst of k jobs costs base + per_queued (k-1)/2
on average. The fit, chosen before the calibration's figures were seen:
base is the mean cost of the jobs that started alone (bursts of 1: what a
start costs sched/optimus's jobs, which start as they arrive), per_queued
the least squares of each other job's cost less base on (k-1)/2 with no
intercept (its burst's mean: the average JCT is what the simulator must
predict). The per-rank means are printed as a check of the in-line form.
The JSON (--out) holds base, per_queued and every sample; --from refits
the samples of a JSON kept, with no cluster.

    bench/start_cost.py --out /tmp/start-model.json
    bench/pollux_replay.py --start-model /tmp/start-model.json

Needs root (the cluster's daemons), a built tree, MariaDB and slurmdbd.
"""
import argparse
import csv
import json
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from e2e_jct import log, sacct, unfinished  # noqa: E402
import job_outcome  # noqa: E402
from pollux_replay import (replay_cluster, start_cost, stamps,  # noqa: E402
                           submit, workload_path)

# The calibration's jobs, chosen before its first run: workload 1's
# (users' sizes) jobs of 1 GPU in arrival order, imagenet left out (its
# epoch is minutes long), each its first epoch; cycled when a burst needs
# more. Short runs keep the bursts apart and the calibration a few
# minutes long; the start does not depend on the run that follows it.
WORKLOAD, EPOCHS = 1, 1


def calibration_jobs(n):
    with open(workload_path(False, WORKLOAD)) as f:
        rows = [r for r in sorted(csv.DictReader(f),
                                  key=lambda r: float(r["time"]))
                if r["num_replicas"] == "1" and r["application"] != "imagenet"]
    return [dict(rows[k % len(rows)]) for k in range(n)]


def burst(c, workdir, a, k, tag):
    """k jobs submitted at once; each job's start cost and allocation to
    first step (wall s), once all have ended."""
    jobs = calibration_jobs(k)
    done = []
    for i, job in enumerate(jobs):
        job["name"] = "%s-%d-%s" % (tag, i, job["name"])
        done.append({"id": submit(c, workdir, job, "backfill", a, 0),
                     "name": job["name"]})
    ids = [j["id"] for j in done]
    deadline = time.time() + a.timeout
    while unfinished(c, ids):
        if time.time() > deadline:
            raise RuntimeError("burst %s still running after %d s"
                               % (tag, a.timeout))
        time.sleep(1)
    rows = sacct(c, ids, False)
    out = []
    for j in done:
        row = rows[j["id"]]
        s = stamps(os.path.join(workdir, j["name"] + ".out"))
        out.append({"id": j["id"], "name": j["name"], "burst": k,
                    "state": row["state"], "cost": start_cost(row, s),
                    "to_first_step": (s["start"][0] - row["start"]
                                      if s["start"] and row["start"]
                                      else None),
                    "allocated": row["start"],
                    "first_step": s["start"][0] if s["start"] else None})
    return out


def fit(samples):
    """(base, per_queued): base the mean cost of the jobs alone, then
    least squares of cost - base on (k-1)/2 through the origin."""
    alone = [s["cost"] for s in samples if s["burst"] == 1]
    base = sum(alone) / len(alone)
    xy = [((s["burst"] - 1) / 2.0, s["cost"] - base) for s in samples
          if s["burst"] > 1]
    return base, sum(x * y for x, y in xy) / sum(x * x for x, _ in xy)


def calibrate(a, sizes):
    """The bursts on one cluster: (samples, load averages, seconds)."""
    _, root, workdir, c = replay_cluster("backfill")
    log("calibration: starting the cluster in %s" % root)
    c.start()
    samples, loads, t0 = [], [], time.time()
    try:
        for r in range(a.repeat):
            for n, k in enumerate(sizes):
                got = burst(c, workdir, a, k, "b%d-%d%02d" % (k, r, n))
                loads.append(os.getloadavg())
                costs = sorted(g["cost"] for g in got
                               if g["cost"] is not None)
                log("burst of %d: costs %s, load %.2f" % (
                    k, " ".join("%.1f" % x for x in costs), loads[-1][0]))
                samples += got
                time.sleep(3)     # the cluster idle between bursts
    finally:
        c.stop(keep=a.keep)
        if not a.keep:
            shutil.rmtree(root, ignore_errors=True)
    return samples, loads, time.time() - t0


def summary(samples, sizes, loads, took):
    """Print the fit and its check; (base, per_queued, jobs failed)."""
    good = [s for s in job_outcome.completed(samples)
            if s["cost"] is not None]
    base, per = fit(good)
    print("start cost (wall s) by burst size: k, jobs, mean, min, max, "
          "model base + per_queued (k-1)/2")
    for k in sorted(set(sizes)):
        v = [s["cost"] for s in good if s["burst"] == k]
        if v:
            print("%3d %4d %7.2f %6.1f %6.1f %7.2f" % (
                k, len(v), sum(v) / len(v), min(v), max(v),
                base + per * (k - 1) / 2.0))
    # The in-line form's check: within a burst, the i-th to reach its
    # first step against base + per_queued * i.
    ranks, bursts = {}, {}
    for s in good:
        if s["first_step"] is not None:
            bursts.setdefault(tuple(s["name"].split("-")[:2]),
                              []).append(s)
    for b in bursts.values():
        for i, s in enumerate(sorted(b, key=lambda s: s["first_step"])):
            ranks.setdefault(i, []).append(s["cost"])
    print("by rank in its burst (i: mean cost, model): " + ", ".join(
        "%d: %.1f/%.1f" % (i, sum(v) / len(v), base + per * i)
        for i, v in sorted(ranks.items())))
    failed = job_outcome.failed(samples)
    print("model: base %.2f s, per_queued %.2f s (%d samples; %d jobs not "
          "completed%s); calibration took %.0f s, load average after the "
          "bursts %s" % (base, per, len(good), len(failed),
                         ": " + ", ".join("%s %s" % (s["name"], s["state"])
                                          for s in failed) if failed else "",
                         took, " ".join("%.2f" % x[0] for x in loads)))
    return base, per, failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bursts", default="1,4,8,16",
                    help="jobs submitted at once, one burst after another")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--compression", type=float, default=20.0,
                    help="as bench/pollux_replay.py's")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--from", dest="source", default=None, metavar="JSON",
                    help="no cluster: refit the samples of these JSONs "
                    "(comma-separated), pooled")
    ap.add_argument("--out", required=True, help="the model's JSON")
    a = ap.parse_args()
    a.epochs = EPOCHS
    if a.source:
        samples, loads, took, sizes = [], [], 0.0, []
        for path in a.source.split(","):
            with open(path) as f:
                kept = json.load(f)
            samples += kept["samples"]
            loads += kept["load_average"]
            took += kept.get("seconds", 0.0)
            sizes += kept["bursts"]
    else:
        sizes = [int(x) for x in a.bursts.split(",")]
        if 1 not in sizes or len(set(sizes)) < 2 or max(sizes) > 16:
            ap.error("--bursts: 1 and at least one more size, each at most "
                     "16 GPUs")
        samples, loads, took = calibrate(a, sizes)
    base, per, failed = summary(samples, sizes, loads, took)
    with open(a.out, "w") as f:
        json.dump({"model": "queue", "base": base, "per_queued": per,
                   "bursts": sizes, "repeat": a.repeat,
                   "compression": a.compression, "epochs": EPOCHS,
                   "workload": WORKLOAD, "samples": samples,
                   "load_average": loads, "seconds": took,
                   "from": a.source}, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Quality-driven against fair sharing on a real cluster, real curves.

The same real scikit-learn training jobs (bench/quality_job.py: runs of
contrib/record_quality_curves.py, the curves of optimus-sim's quality-vs-
fair experiment) are submitted with --scheduler=quality twice to a real
localhost cluster (testsuite/cluster/cluster.py) running sched/optimus:
once with Policy=quality (Algorithm 1), once with Policy=drf (fair
sharing, the core's DRF allocation of the same units). It prints the mean
normalised loss of the submitted jobs at fixed times after the first
submission for both, their ratio, and per policy the JCT, resizes and the
workers each job ran with.

    bench/quality_fair.py                # about 12 minutes on 2 cores
    bench/quality_fair.py --quick        # 3 jobs, a smoke test
    bench/quality_fair.py --json out.json

Set-up, fixed before any run: 2 nodes of 4 CPUs; each job is a driver (1
PS, 1 CPU) and 1-3 workers of 1 CPU (a unit); 8 jobs drawn with seed 1
from the 84 recorded curves, Poisson arrivals with a 15 s mean (the
paper's); a plan every 20 s (the paper's 2 minutes scaled with the jobs)
and at every arrival and completion (sched/optimus plans there);
RestartCost 8 s; each iteration sleeps cost_scale * its recorded c*S /
units.

Calibration, fixed before any run with it: the rule of optimus-sim's
quality-vs-fair (sim_exp_quality.c, sim_exp_quality_faithful) scaled to this
cluster. There the cost factor gives an offered load rho (the mean recorded
run's c*S x cost = rho x the cluster's worker CPUs x the 15 s mean gap) and
rho is the first of 1, 2, 4, 8, 16 at which fair sharing's mean job lasts 3
plan intervals or more; it chose rho = 2. Here: the same rho = 2 on the
cluster's 8 CPUs (drivers included, they take CPUs here) and the same 15 s
gap, so the mean recorded run takes 2 x 8 x 15 = 240 s on one unit. The rule's length condition holds by construction: on at most 3
workers the mean run lasts 80 s = 4 plan intervals of 20 s, so fair sharing
(never more than 3 workers a job) keeps a job at least that long. Beside the
cluster's figures it prints the simulator's prediction for exactly that run:
`optimus-sim quality-bench SETUP.json` on the same jobs (curves, arrivals,
cost factor), nodes, CPUs, worker limit, plan interval and RestartCost, made
before the cluster runs; and again with the restart cost measured on the
cluster (the mean gap from a job's last report before a requeue to its first
report after it), the one input the cluster measures that the set-up only
assumes. Needs root (the cluster's daemons), a built tree, python3-sklearn.
"""
import argparse
import csv
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "testsuite", "cluster"))
sys.path.insert(0, os.path.join(TOP, "bench"))
from cluster import Cluster, use_build_tree_data  # noqa: E402
import job_outcome  # noqa: E402

# The build tree's optimus-sim, here and in the jobs, on the source tree's
# data.
use_build_tree_data()

BENCH = os.path.join(TOP, "bench")
CURVES = os.path.join(TOP, "testsuite", "data", "quality-curves",
                      "curves.csv")
PYTHON = "/usr/bin/python3"
OPTIMUS_SIM = os.path.join(TOP, "src", "tools", "optimus-sim", "optimus-sim")
MAX_WORKERS = 3
HINTS = ("min_ps=1,max_ps=1,min_workers=1,max_workers=%d,ps_mem=300M,"
         "worker_mem=300M,ckpt_grace=20") % MAX_WORKERS
LOAD = 2.0                  # offered load rho (the calibration above)
CPUS = 8                    # 2 nodes x 4 CPUs
GAP = 15.0                  # mean seconds between arrivals
RUN_ONE_UNIT = LOAD * CPUS * GAP   # mean recorded run on one unit, s
INTERVAL = 20
RESTART_COST = 8
LOSS0 = 0.2


def log(msg):
    print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr,
          flush=True)


def read_curves():
    runs = {}
    with open(CURVES) as f:
        for r in csv.DictReader(f):
            c = runs.setdefault(r["curve"], {"family": r["family"],
                                             "step": r["step_size"],
                                             "cpu": []})
            if int(r["iteration"]) > 0:
                c["cpu"].append(float(r["cpu_s"]))
    return runs


def workload(njobs, seed):
    """(arrival s, curve name, family, size, step, work_s) per job."""
    runs = read_curves()
    names = sorted(runs)
    scale = RUN_ONE_UNIT / (sum(sum(runs[n]["cpu"]) for n in names) /
                            len(names))
    rng = random.Random(seed)
    t, jobs = 0.0, []
    for i in range(njobs):
        if i:
            t += rng.expovariate(1 / GAP)
        name = rng.choice(names)
        c = runs[name]
        size = int(name.split("-")[1])
        work = scale * sum(c["cpu"]) / len(c["cpu"])
        jobs.append((round(t, 1), name, c["family"], size, c["step"], work))
    return jobs, scale


def submit(c, workdir, name, job):
    _, curve, family, size, step, work = job
    ck = os.path.join(workdir, "ck-" + name)
    r = c.run(["sbatch", "--parsable", "-J", name, "-D", workdir,
               "--open-mode=append", "-o", os.path.join(workdir, name + ".out"),
               "--export=ALL,OPTIMUS_BENCH=%s,PYTHON=%s" % (BENCH, PYTHON),
               "--scheduler=quality,%s,ckpt_dir=%s" % (HINTS, ck),
               os.path.join(BENCH, "quality_job.sh"),
               "--family", family, "--size", str(size), "--step", step,
               "--work-s", "%.4f" % work, "--ckpt-dir", ck])
    return int(r.stdout.strip().split(";")[0])


def parse_out(path):
    text = open(path).read() if os.path.exists(path) else ""
    points = [(float(t), int(k), float(l), int(u)) for t, k, l, u in
              re.findall(r"qlog t=([0-9.]+) it=(\d+) loss=([0-9.e+-]+) "
                         r"units=(\d+)", text)]
    # A restart's measured cost: the last report before a requeued run
    # to the first report of that run (checkpoint, requeue, start, replay).
    gaps, last, pending = [], None, False
    for line in text.splitlines():
        m = re.match(r"qlog t=([0-9.]+) ", line)
        if line.startswith("run: ") and last is not None:
            pending = True
        elif m:
            if pending:
                gaps.append(float(m.group(1)) - last)
                pending = False
            last = float(m.group(1))
    return {"points": points, "runs": len(re.findall(r"(?m)^run: ", text)),
            "restart_gaps": gaps,
            "done": "done: " in text,
            "units": sorted({u for _, _, _, u in points})}


def loss_at(job, t):
    """The job's normalised loss at time t: LOSS0 until its first point."""
    loss = LOSS0
    for pt, _, pl, _ in job["points"]:
        if pt > t:
            break
        loss = pl
    return loss


def run_once(policy, jobs, keep, deadline_s):
    root = tempfile.mkdtemp(prefix="optimus-quality-%s-" % policy)
    workdir = os.path.join(root, "jobs")
    os.makedirs(workdir)
    c = Cluster(os.path.join(root, "cluster"), nodes=2, cpus=4, gpus=0,
                scheduler="sched/optimus", cred_expire=5,
                optimus_conf="Policy=%s\nPlanInterval=%d\n"
                "MinResizeInterval=0\nResizeThreshold=0\n"
                "ResizeThresholdLarge=0\nRestartCost=%d\n" % (policy, INTERVAL,
                                                 RESTART_COST))
    log("%s: starting the cluster in %s" % (policy, root))
    c.start()
    try:
        t0 = time.time()
        out = []
        for i, job in enumerate(jobs):
            time.sleep(max(0.0, t0 + job[0] - time.time()))
            name = "j%02d-%s" % (i, job[1])
            jid = submit(c, workdir, name, job)
            out.append({"id": jid, "name": name, "curve": job[1],
                        "submitted": time.time()})
            log("%s: submitted %s as job %d" % (policy, name, jid))
        # Each job's state as it ended (squeue forgets it after MinJobAge).
        if not job_outcome.wait(out, t0 + deadline_s - time.time(),
                                run=lambda argv: c.run(argv, check=False)):
            log("%s: deadline: jobs still running" % policy)
        for j in out:
            j.update(parse_out(os.path.join(workdir, j["name"] + ".out")))
            j["end"] = j["points"][-1][0] if j["done"] and j["points"] \
                else None
        return {"policy": policy, "t0": t0, "jobs": out}
    finally:
        c.stop(keep=keep)


def simulate(jobs, scale, times, restart):
    """optimus-sim's prediction for this run: {policy: {t: mean loss}}."""
    setup = {"nodes": CPUS // 4, "cpus": 4, "max_workers": MAX_WORKERS,
             "interval": INTERVAL, "restart": restart, "cost_scale": scale,
             "times": times,
             "jobs": [{"arrival": j[0], "curve": j[1]} for j in jobs]}
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(setup, f)
        f.flush()
        out = subprocess.run([OPTIMUS_SIM, "quality-bench", f.name, "--json",
                              "-"], check=True, capture_output=True,
                             text=True, cwd=TOP).stdout
    pred = {}
    for row in json.loads(out)["runs"]:
        series = {round(t): l for t, l in row["loss_series"]}
        pred["quality" if row["label"] == "quality" else "drf"] = {
            t: series.get(t, float("nan")) for t in times}
    return pred


def mean_loss(run, t):
    """Mean normalised loss at t s after the first submission over the
    jobs submitted by then."""
    ls = [loss_at(j, run["t0"] + t) for j in run["jobs"]
          if j["submitted"] - run["t0"] <= t]
    return sum(ls) / len(ls) if ls else float("nan")


def report(jobs, scale, runs, times, pred, json_path):
    """The cluster's figures beside the simulator's for the same run."""
    gaps = [g for r in runs for j in r["jobs"] for g in j["restart_gaps"]]
    restart = sum(gaps) / len(gaps) if gaps else float(RESTART_COST)
    pred2 = simulate(jobs, scale, times, round(restart, 1))
    waits = [j["points"][0][0] - j["submitted"] for r in runs
             for j in r["jobs"] if j["points"]]
    print("\nmeasured: %d restarts, mean gap %.1f s (RestartCost %d s); "
          "mean wait from submission to first report %.1f s" % (
              len(gaps), restart, RESTART_COST,
              sum(waits) / len(waits) if waits else float("nan")))
    print("sim: optimus-sim quality-bench, the same jobs and set-up; "
          "sim(m): with the measured restart gap")
    print("\n%6s %8s %8s %7s %8s %8s %7s %7s" % (
        "t_s", "quality", "fair", "q/fair", "sim q", "sim f", "sim q/f",
        "sim(m)"))
    table, sums = [], [0.0] * 6

    def ratio(a, b):
        return a / b if b else float("nan")
    for t in times:
        q, f = mean_loss(runs[0], t), mean_loss(runs[1], t)
        sq, sf = pred["quality"][t], pred["drf"][t]
        mq, mf = pred2["quality"][t], pred2["drf"][t]
        table.append({"t": t, "quality": q, "fair": f, "sim_quality": sq,
                      "sim_fair": sf, "sim_measured_restart_quality": mq,
                      "sim_measured_restart_fair": mf})
        sums = [a + b for a, b in zip(sums, (q, f, sq, sf, mq, mf))]
        print("%6d %8.4f %8.4f %7.2f %8.4f %8.4f %7.2f %7.2f" % (
            t, q, f, ratio(q, f), sq, sf, ratio(sq, sf), ratio(mq, mf)))
    n = len(times)
    print("%6s %8.4f %8.4f %7.2f %8.4f %8.4f %7.2f %7.2f" % (
        "mean", sums[0] / n, sums[1] / n, ratio(sums[0], sums[1]),
        sums[2] / n, sums[3] / n, ratio(sums[2], sums[3]),
        ratio(sums[4], sums[5])))
    if json_path:
        with open(json_path, "w") as f:
            json.dump({"jobs": jobs, "cost_scale": scale, "runs": runs,
                       "mean_loss": table, "restart_gap_s": restart},
                      f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--quick", action="store_true", help="3 jobs")
    ap.add_argument("--json", help="write the measurements here")
    ap.add_argument("--report", metavar="JSON",
                    help="print a run stored with --json again, beside the "
                    "simulator's prediction (no cluster)")
    ap.add_argument("--keep", action="store_true",
                    help="keep the clusters' folders")
    args = ap.parse_args()
    if args.report:
        old = json.load(open(args.report))
        jobs, scale, runs = old["jobs"], old["cost_scale"], old["runs"]
        times = [row["t"] for row in old["mean_loss"]]
        report(jobs, scale, runs, times,
               simulate(jobs, scale, times, RESTART_COST), args.json)
        return 0
    if os.geteuid() != 0:
        sys.exit("quality_fair.py: run as root (it starts Slurm daemons)")
    # A TERM stops the cluster too (run_once's finally).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("terminated"))
    jobs, scale = workload(3 if args.quick else 8, 1)
    times = list(range(30, (181 if args.quick else 361), 30))
    # Only the figures up to the last sample time need the jobs; after it
    # a job unfinished only lacks its JCT.
    deadline = times[-1] + 60
    # The prediction is made before the cluster runs.
    pred = simulate(jobs, scale, times, RESTART_COST)
    runs = [run_once(p, jobs, args.keep, deadline)
            for p in ("quality", "drf")]
    print("%d jobs (seed 1, Poisson 15 s), c*S x %.0f; 2 nodes x 4 CPUs, "
          "a plan every %d s" % (len(jobs), scale, INTERVAL))
    for r in runs:
        print("\nPolicy=%s" % r["policy"])
        print("  %-22s %6s %7s %6s %5s %s" % ("job", "id", "jct_s", "runs",
                                             "done", "workers"))
        for j in r["jobs"]:
            jct = j["end"] - j["submitted"] if j["end"] else float("nan")
            print("  %-22s %6d %7.0f %6d %5s %s" % (
                j["name"], j["id"], jct, j["runs"], j["done"],
                ",".join(map(str, j["units"]))))
    # A job still running at the deadline only lacks its JCT (above); one
    # that ended without completing is a failure.
    ended = [dict(j, policy=r["policy"]) for r in runs for j in r["jobs"]
             if j.get("state") not in job_outcome.UNDERWAY]
    for r in runs:
        late = [j for j in r["jobs"] if j.get("state") in job_outcome.UNDERWAY]
        print("Policy=%s: %s%s" % (r["policy"], job_outcome.outcome_line(
            [j for j in r["jobs"] if j not in late]), "; %d still running "
            "at the deadline" % len(late) if late else ""))
    report(jobs, scale, runs, times, pred, args.json)
    return 1 if job_outcome.failed(ended) else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Measured Pollux jobs replayed on the real cluster: sched/optimus
against plain sched/backfill, and the simulator's prediction of the same
slice beside each run.

N consecutive jobs (arrival order; default 30) of one workload file of
testsuite/data/pollux-osdi21 (workloads-realistic by default: sizes as
users chose them; --tuned: the tuned ones), by default the busiest such
window of the 8 files (the slice rule, busiest_window; --window first
--workload W --first K: a window by hand), run as replayed jobs
(examples/replay_trainer.py, doc/design/simulator.md "Replayed jobs") on a localhost
cluster of 4 nodes of 4 fake GPUs with accounting: under sched/optimus
once per policy (--policies; each job elastic from 1 GPU up to its
application's largest size within the cluster, as the simulator sizes
it), and under plain sched/backfill, each job at its submitted
num_replicas with a time limit (the simulator's slurm-backfill rule: twice
its run time alone counting a start allowance of START_ALLOWANCE, the
worst start measured on this machine, in whole minutes). Arrivals and the jobs' own time are
compressed by the same factor (--compression); each job runs the first
--epochs epochs of its application (a slice).

Then `optimus-sim experiment pollux` runs the same slice on the same
shape (4 nodes of 4 GPUs, --jobs, --epochs) with the cluster's timing
in the trace's seconds (compression times the wall seconds: the plan
interval, the minimum resize interval, a minute of time limit) and the
costs measured on the cluster in this run: a start (the seconds of a
single-run job without progress: End - Start less its trainer's time
between its first step and its end) and a resize (a checkpoint to the
next run's start, from the trainers' stamps). With --start-model the
start is instead the model bench/start_cost.py calibrated in a run of its
own (a start alone, and seconds more per start launching before it), and
the pooled mean start of this run is simulated beside it.

It prints every job's JCT, then per scheduler: average, median, p99 JCT
and makespan from sacct, resizes and their cost, jobs not COMPLETED, the
simulator's prediction (divided by the compression) and the ratio
simulator / real; the ratios to backfill and the ranking both ways. No
figure is asserted; the exit status is 1 if a job did not complete.

    bench/pollux_replay.py                  # the busiest 30 jobs, 3 epochs (doc/results.md)
    bench/pollux_replay.py --simulate-only  # the slice and the simulator's prediction, no cluster
    bench/pollux_replay.py --window first --workload 1 --jobs 11   # the earlier slice
    bench/pollux_replay.py --quick          # 3 jobs, one epoch: a smoke test (CI)
    bench/pollux_replay.py --policies optimus,quality,goodput \
        --start-model bench/start_cost_model_1205.json    # the calibrated start (this machine)

Needs root (the cluster's daemons), a built tree, MariaDB and slurmdbd.
"""
import argparse
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# One home for the cluster's accounting reads: bench/e2e_jct.py.
from e2e_jct import (TOP, Cluster, comment_value, log, model_of,  # noqa: E402
                     sacct, unfinished)
from cluster import use_build_tree_data  # noqa: E402

# The build tree's optimus-sim, here and in the jobs, on the source tree's
# data.
use_build_tree_data()
import job_outcome  # noqa: E402

EXAMPLES = os.path.join(TOP, "examples")
DATA = os.path.join(TOP, "testsuite", "data", "pollux-osdi21")
SIM = os.path.join(TOP, "src", "tools", "optimus-sim", "optimus-sim")
PYTHON = "/usr/bin/python3"
NODES, GPUS = 4, 4
# The cluster's timing, chosen before any run (bench/e2e_jct.py's: a plan
# every 5 s and at once on arrivals and ends, resizes 30 s apart at least,
# a resize estimated at 10 s until resizes are measured, cred_expire 5).
PLAN_INTERVAL, MIN_RESIZE, RESTART_COST = 5, 30, 10
# The simulator's round (wall seconds): the cluster plans at once on an
# arrival, an end and a requeue (sched/optimus; Slurm's main scheduler on
# submissions and ends, sched_interval=2, bf_interval=2), not only every
# PlanInterval, so the simulator plans every wall second (Slurm's times
# are whole seconds) rather than every PlanInterval, whose rounds would
# delay every start by half a round on average. Chosen before the first
# full run, after the --quick smoke run (doc/design/simulator.md "Replayed jobs").
SIM_ROUND = 1.0
# The start cost the simulator is given before any start is measured
# (--simulate-only, and the fallback when a run measured none; wall
# seconds, chosen before the first run).
START_ESTIMATE = 3.0
# The start a backfill job's time limit allows for (wall seconds): Slurm
# counts a limit from the allocation, and on this machine a job waited up
# to 41.7 s from allocation to its batch launch when about 20 jobs started
# at once on 2 cores (ncf-15, 2026-12-04, doc/design/simulator.md), so a limit computed
# with the 3 s estimate killed it before its work was done. The allowance
# is that measured worst case, rounded up to 45 s, fixed before the runs
# that use it. A limit is the simulator's slurm-backfill rule, twice the
# job's run alone at its size, that run counting this allowance as its
# start (--limit-start): the same rule in the simulator's backfill as on
# the cluster, whatever start cost the simulator is given. Jobs under
# sched/optimus have no time limit.
START_ALLOWANCE = 45.0
# The slice rule's bound (doc/design/simulator.md "A slice that queues"): a window's
# horizon and its work at full use at most 5 wall minutes each, so that
# each scheduler's run, its queue drained and its cluster started and
# stopped, keeps three or four schedulers within the 30 minutes.
WINDOW_BUDGET = 300.0
# sched/optimus's policies whose counterpart in the simulator has the
# same name; sched/backfill's is slurm-backfill.
SIM_POLICY = {"optimus": "optimus", "quality": "quality",
              "goodput": "goodput", "backfill": "slurm-backfill"}
STAMP = r", at=([0-9.]+)"
START_RE = re.compile(r"replay: starting at step \d+ .*" + STAMP)
PLACE_RE = re.compile(r"replay: starting at step \d+ .* on ([\d,]+) GPUs per "
                      r"node")
CKPT_RE = re.compile(r"replay: checkpoint of step \d+ written .*" + STAMP)
DONE_RE = re.compile(r"replay: done at step \d+ epoch \d+" + STAMP)
# The batch sched/optimus gave a run (OPTIMUS_GLOBAL_BATCH), and the
# gradient statistics the trainer's listener accepted.
BATCH_RE = re.compile(r"replay: starting at step .* scheduler's batch "
                      r"BatchPlan\(global=(\d+)")
GRADS_RE = re.compile(r"replay: gradients of epoch \d+ at batch ([0-9.e+]+)")


def workload(path, first, n):
    """n jobs of a workload file from the first-th, by arrival."""
    with open(path) as f:
        rows = sorted(csv.DictReader(f), key=lambda r: float(r["time"]))
    return rows[first:first + n]


def workload_path(tuned, w):
    return os.path.join(DATA, "workloads" if tuned else
                        "workloads-realistic", "workload-%d.csv" % w)


def runs_alone(a, w):
    """Every job of workload w: (submitted, GPUs asked, its run alone at
    that size with the start estimate, trace seconds). The simulator's
    truth through slurm-backfill's limit rule (twice the run alone,
    px_spec_true_runtime) with a unit of a millisecond, on 64 GPUs so
    that every size fits."""
    cmd = [SIM, "experiment", "pollux", "--workload", str(w), "--epochs",
           str(a.epochs), "--nodes", "16", "--start",
           str(START_ESTIMATE * a.compression), "--limit-unit", "0.001",
           "--policy", "slurm-backfill", "--detail", "--json", "-"]
    if not a.tuned:
        cmd.append("--realistic")
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return [(j["submit"], j["replicas"], j["time_limit"] / 2)
            for j in json.loads(r.stdout)["runs"][0]["jobs"]]


def busiest_window(a):
    """The slice rule (doc/design/simulator.md "A slice that queues", fixed before any
    run of it): over the 8 workload files, the window of --jobs
    consecutive jobs (arrival order) whose offered load on this cluster
    is the highest: its GPU-seconds at the submitted sizes over 16 GPUs
    times its horizon (its first arrival to the last end, every job run
    alone at its size from its arrival); among the windows whose jobs fit
    16 GPUs and whose horizon and work at full use (GPU-seconds / 16) are
    both at most WINDOW_BUDGET wall seconds. Ties: the lowest workload,
    then the earliest window. Returns (workload, first, load)."""
    best = None
    for w in range(1, 9):
        jobs = runs_alone(a, w)
        for k in range(len(jobs) - a.jobs + 1):
            win = jobs[k:k + a.jobs]
            if any(g > NODES * GPUS for _, g, _ in win):
                continue
            work = sum(g * t for _, g, t in win)
            horizon = max(s + t for s, _, t in win) - win[0][0]
            budget = WINDOW_BUDGET * a.compression
            if horizon > budget or work / (NODES * GPUS) > budget:
                continue
            load = work / (NODES * GPUS * horizon)
            if best is None or load > best[2]:
                best = (w, k, load)
    if best is None:
        raise SystemExit("no window of %d jobs fits the budget" % a.jobs)
    return best


def simulate(a, policies, start, restart, start_queued=0.0):
    """optimus-sim's slice: {label: run with its jobs}; costs in wall
    seconds, turned into the trace's by the compression. start_queued > 0:
    a first start costs `start` plus start_queued for each start launching
    before it (the calibrated model, --start-model)."""
    c = a.compression
    cmd = [SIM, "experiment", "pollux", "--workload", str(a.workload),
           "--first", str(a.first), "--jobs", str(a.jobs),
           "--epochs", str(a.epochs),
           "--nodes", str(NODES), "--round", str(SIM_ROUND * c),
           "--start", str(start * c), "--restart", str(restart * c),
           "--min-resize", str(MIN_RESIZE * c), "--limit-unit", str(60 * c),
           "--limit-start", str(START_ALLOWANCE * c),
           # the cluster's optimus.conf leaves ExploreScaling at its default
           "--explore-scaling", "no",
           # the jobs as the cluster's are submitted (said_hints: no
           # epoch_steps=, goodput's batch range from the submitted batch)
           "--bench-hints",
           # the replay trainer never says its batch: its batch changes
           # are restarts on the cluster, so in the simulator too
           "--rebatch-by-restart",
           "--policy", ",".join(policies), "--detail", "--json", "-"]
    if start_queued > 0:
        cmd[cmd.index("--restart"):cmd.index("--restart")] = [
            "--start-queued", str(start_queued * c)]
    if not a.tuned:
        cmd.append("--realistic")
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return {run["label"]: run for run in json.loads(r.stdout)["runs"]}, cmd


# The simulator's policy whose jobs' hints each scheduler's jobs are
# submitted with: backfill's run at their submitted size, as drf's.
HINTS_OF = {"optimus": "optimus", "quality": "quality",
            "goodput": "goodput", "backfill": "drf"}
# What the cluster adds to a job's hints: its trainer's memory and the
# seconds it takes to checkpoint (the simulator's jobs have neither).
CLUSTER_HINTS = {"worker_mem": "256M", "ckpt_grace": "20"}


def said_hints(a):
    """Every job of the slice with the hints it says under each
    scheduler: optimus-sim's (--print-hints), the ones its simulated
    record is given, with the cluster's keys: {name: {policy: text}}.
    Elastic under sched/optimus (1 up to the simulator's largest size;
    under Policy=goodput adaptive, its batch range from its submitted
    batch); the submitted size under backfill. No epoch_steps= (with
    --bench-hints): the jobs learn their epoch's length from the epochs
    they report (the trainer's epochs are the artifact's, measured in
    progress at the application's smallest batch, not passes over the
    data; a loader length given under the plugin's goodput, whose
    efficiency is relative to the submitted batch here, ended imagenet-13
    at a third of its steps: doc/design/simulator.md "The epoch length")."""
    cmd = [SIM, "experiment", "pollux", "--workload", str(a.workload),
           "--first", str(a.first), "--jobs", str(a.jobs),
           "--epochs", str(a.epochs), "--nodes", str(NODES),
           "--bench-hints", "--print-hints",
           "--policy", ",".join(sorted(set(HINTS_OF.values())))]
    if not a.tuned:
        cmd.append("--realistic")
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    out = {}
    for job in json.loads(r.stdout)["jobs"]:
        out[job["name"]] = {}
        for policy, sim in HINTS_OF.items():
            head, *keys = job["hints"][sim].split(",")
            kv = dict(k.split("=", 1) for k in keys)
            kv.update(CLUSTER_HINTS)
            out[job["name"]][policy] = ",".join(
                [head] + ["%s=%s" % x for x in kv.items()])
    return out


def submit(c, workdir, job, policy, a, limit_min, said):
    name = job["name"]
    r = c.run(["sbatch", "--parsable", "-J", name, "-D", workdir,
               "--open-mode=append", "-o", os.path.join(workdir, name + ".out"),
               "--export=ALL,OPTIMUS_EXAMPLES=%s,PYTHON=%s" % (EXAMPLES, PYTHON),
               "--scheduler=%s,ckpt_dir=%s" % (
                   said[name][policy], os.path.join(workdir, "ck-" + name))]
              + (["--time=%d" % limit_min] if limit_min else []) +
              [os.path.join(EXAMPLES, "replay_trainer.sbatch"),
               "--app", job["application"], "--batch", job["batch_size"],
               "--compression", str(a.compression), "--epochs",
               str(a.epochs), "--optimus-sim", SIM] +
              # nobody listens under plain backfill: no report retries
              (["--no-report"] if policy == "backfill" else []))
    return int(r.stdout.strip().split(";")[0])


def stamps(path):
    """The trainer's wall-clock stamps of a job: starts, checkpoints,
    done, each a list of seconds."""
    try:
        with open(path, errors="replace") as f:
            out = f.read()
    except OSError:
        out = ""
    got = {k: [float(x) for x in r.findall(out)] for k, r in
           (("start", START_RE), ("ckpt", CKPT_RE), ("done", DONE_RE))}
    got["gpus"] = PLACE_RE.findall(out)
    got["batches"] = [int(x) for x in BATCH_RE.findall(out)]
    got["gradients"] = len(GRADS_RE.findall(out))
    return got


def replay_cluster(policy):
    """The bench's cluster for one scheduler (not started): (scheduler,
    its temporary root, the jobs' folder, the Cluster). The calibration
    of the start cost (bench/start_cost.py) runs on the same one."""
    scheduler = "sched/backfill" if policy == "backfill" else "sched/optimus"
    # AuthInfo's cred_expire: how long a launch credential lives, and how
    # long Slurm holds a requeued job (cred_expire + 1 s). sched/optimus
    # requeues for every resize: 5 s (Slurm's minimum), as in
    # bench/e2e_jct.py. Plain backfill never requeues here, and its burst
    # of ~20 starts on 2 cores launched steps up to 42 s after their
    # credential: with 5 s, srun's step failed with "Job credential
    # expired" before the trainer's first line (reproduced by SIGSTOPping
    # a slurmd for 10 s, doc/design/simulator.md), so backfill gets 60 s.
    cred_expire = 60 if policy == "backfill" else 5
    root = tempfile.mkdtemp(prefix="optimus-replay-%s-" % policy)
    workdir = os.path.join(root, "jobs")
    os.makedirs(workdir)
    os.chmod(workdir, 0o777)
    c = Cluster(os.path.join(root, "cluster"), nodes=NODES, cpus=8,
                gpus=GPUS, accounting=True, scheduler=scheduler,
                cred_expire=cred_expire, optimus_conf="Policy=%s\nPlanInterval=%d\n"
                "MinResizeInterval=%d\nRestartCost=%d\n" % (
                    "optimus" if policy == "backfill" else policy,
                    PLAN_INTERVAL, MIN_RESIZE, RESTART_COST))
    return scheduler, root, workdir, c


def start_cost(row, s):
    """A job that ran once: its seconds without progress (End - Start
    from sacct, less its trainer's time from its first step to its end;
    stamps() of its output), else None."""
    if len(s["start"]) == 1 and s["done"] and row["start"]:
        return (row["end"] - row["start"]) - (s["done"][-1] - s["start"][0])
    return None


def run_once(policy, jobs, a, limits, said):
    """One cluster, one scheduler: every job's figures and the costs."""
    scheduler, root, workdir, c = replay_cluster(policy)
    log("%s: starting the cluster in %s" % (policy, root))
    c.start()
    try:
        t0, done = time.time(), []
        first = float(jobs[0]["time"])
        for k, job in enumerate(jobs):
            at = t0 + (float(job["time"]) - first) / a.compression
            time.sleep(max(0.0, at - time.time()))
            jid = submit(c, workdir, job, policy, a,
                         limits[k] if policy == "backfill" else 0, said)
            done.append({"id": jid, "name": job["name"],
                         "submitted": time.time()})
            log("%s: submitted %s as job %d" % (policy, job["name"], jid))
        ids = [j["id"] for j in done]
        deadline = time.time() + a.timeout
        while unfinished(c, ids):
            if time.time() > deadline:
                raise RuntimeError("jobs still running after %d s"
                                   % a.timeout)
            time.sleep(2)
        rows = sacct(c, ids, scheduler == "sched/optimus")
        starts, resizes = [], []
        for j in done:
            row = rows[j["id"]]
            model = model_of(c, j["id"]) if scheduler == "sched/optimus" \
                else {}
            jct = comment_value(row["comment"], "jct")
            s = stamps(os.path.join(workdir, j["name"] + ".out"))
            j.update(state=row["state"], end=row["end"],
                     first_step=(s["start"][0] - j["submitted"]
                                 if s["start"] else None),
                     jct=jct if jct is not None else row["end"] - j["submitted"],
                     runs=len(s["start"]), gpus_per_node=s["gpus"],
                     run_batches=s["batches"], gradients=s["gradients"],
                     model_batch=model.get("batch_now"),
                     restarts=int(model.get("restarts") or 0),
                     resize_seconds=float(model.get("resize_seconds") or 0))
            cost = start_cost(row, s)
            if cost is not None:
                starts.append(cost)
            # Each checkpoint followed by a run: a resize's cost.
            for ck in s["ckpt"]:
                nxt = [t for t in s["start"] if t > ck]
                if nxt:
                    resizes.append(min(nxt) - ck)
        return {"policy": policy, "scheduler": scheduler, "jobs": done,
                "makespan": max(j["end"] for j in done) -
                min(j["submitted"] for j in done),
                "start_costs": starts, "resize_costs": resizes,
                "load_average": os.getloadavg()}
    finally:
        c.stop(keep=a.keep)
        if not a.keep:
            shutil.rmtree(root, ignore_errors=True)


def quantile(values, q):
    """GSL's quantile of sorted data (linear between order statistics), as
    the simulator computes its median and p99."""
    v = sorted(values)
    x = (len(v) - 1) * q
    lo = int(math.floor(x))
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (x - lo)


def figures(jcts, makespan):
    return {"avg_jct": sum(jcts) / len(jcts),
            "median_jct": quantile(jcts, 0.5),
            "p99_jct": quantile(jcts, 0.99), "makespan": makespan}


def real_summary(run):
    """The real run's figures: the JCTs of the jobs that completed (a job
    that failed early would lower them); the others counted apart."""
    done = job_outcome.completed(run["jobs"])
    f = figures([j["jct"] for j in done] or [float("nan")],
                run["makespan"])
    first = [j["first_step"] for j in run["jobs"]
             if j["first_step"] is not None]
    f["to_first_step"] = sum(first) / len(first) if first else float("nan")
    f.update(resizes=sum(j["restarts"] for j in run["jobs"]),
             resize_seconds=sum(j["resize_seconds"] for j in run["jobs"]),
             not_completed=len(job_outcome.failed(run["jobs"])),
             outcome=job_outcome.outcome_line(run["jobs"]))
    return f


def sim_summary(sim, compression, start):
    """The simulator's figures in wall seconds (divided by the
    compression); makespan from the first submission, as the real one."""
    jobs = sim["jobs"]
    first = min(j["submit"] for j in jobs)
    f = figures([j["jct"] / compression for j in jobs],
                (max(j["submit"] + j["jct"] for j in jobs) - first) /
                compression)
    f.update(resizes=sum(j["restarts"] for j in jobs),
             to_first_step=sum(j["wait"] for j in jobs) / len(jobs) /
             compression + start)
    return f


def mean(v, default):
    return (sum(v) / len(v), "measured, %d samples" % len(v)) if v else \
        (default, "none measured: the estimate")


def ranking(rows, key):
    return " < ".join(p for p, _ in sorted(rows.items(),
                                          key=lambda kv: kv[1][key]))


def report(a, path, jobs, runs, real, sims, costs, limits, limit_check):
    pols = [r["policy"] for r in runs]
    print("%d jobs of %s from job %d (%s), %d epoch(s) each, compression "
          "%g (wall second = %g s of the trace), %d nodes of %d GPUs" % (
              len(jobs), os.path.relpath(path, TOP), a.first, a.window_how,
              a.epochs,
              a.compression, a.compression, NODES, GPUS))
    if "start_model" in costs:
        print("costs given to the simulator (wall s): a start %.2f alone, "
              "%.2f more per start queued before it (calibrated: %s); this "
              "run's starts measured %.2f on average (%s); resize %.2f (%s)"
              % (costs["start_base"], costs["start_queued"],
                 costs["start_model"], costs["start_pooled"],
                 costs["start_how"], costs["restart"],
                 costs["restart_how"]))
    else:
        print("costs given to the simulator (wall s): start %.2f (%s), "
              "resize %.2f (%s)" % (costs["start"], costs["start_how"],
                                    costs["restart"], costs["restart_how"]))
    print("load average after each run: %s" % ", ".join(
        "%s %.2f/%.2f/%.2f" % ((r["policy"],) + tuple(r["load_average"]))
        for r in runs))
    print("\nJCT (s, wall)     " + "".join("%11s %9s" % (p, "sim")
                                           for p in pols))
    for k, job in enumerate(jobs):
        cells = []
        for r in runs:
            sj = sims[r["policy"]]["jobs"][k]
            cells.append("%11.1f %9.1f" % (r["jobs"][k]["jct"],
                                           sj["jct"] / a.compression))
        print("%-16s %s   %s" % (job["name"], "".join(cells),
                                 "limit %d min" % limits[k]))
    print("GPUs per node of each run (real): " + "; ".join(
        "%s: %s" % (r["policy"], " ".join(
            "/".join(j.get("gpus_per_node") or ["?"]) for j in r["jobs"]))
        for r in runs))
    print("\n%-10s %9s %9s %6s %9s %9s %6s %8s %8s %6s" % (
        "scheduler", "avg JCT", "sim", "ratio", "median", "sim", "ratio",
        "p99", "sim", "ratio"))
    for p in pols:
        r, s = real[p], sims[p]["summary"]
        print("%-10s %9.1f %9.1f %6.2f %9.1f %9.1f %6.2f %8.1f %8.1f %6.2f"
              % (p, r["avg_jct"], s["avg_jct"], s["avg_jct"] / r["avg_jct"],
                 r["median_jct"], s["median_jct"],
                 s["median_jct"] / r["median_jct"], r["p99_jct"],
                 s["p99_jct"], s["p99_jct"] / r["p99_jct"]))
    print("\n%-10s %9s %9s %6s %8s %8s %10s %7s %7s %14s" % (
        "scheduler", "makespan", "sim", "ratio", "resizes", "sim",
        "resize s", "1st step", "sim", "not completed"))
    for p in pols:
        r, s = real[p], sims[p]["summary"]
        print("%-10s %9.1f %9.1f %6.2f %8d %8d %10.1f %7.1f %7.1f %14d" % (
            p, r["makespan"], s["makespan"], s["makespan"] / r["makespan"],
            r["resizes"], s["resizes"], r["resize_seconds"],
            r["to_first_step"], s["to_first_step"], r["not_completed"]))
    print("(1st step: mean seconds from submission to a job's first step; "
          "the simulator's wait plus the start cost; JCTs of the jobs that "
          "completed)")
    for p in pols:
        print("%-10s %s" % (p, real[p]["outcome"]))
    if "backfill" in real:
        print()
        for p in pols:
            if p != "backfill":
                print("avg JCT %s/backfill: real %.2f, simulator %.2f" % (
                    p, real[p]["avg_jct"] / real["backfill"]["avg_jct"],
                    sims[p]["summary"]["avg_jct"] /
                    sims["backfill"]["summary"]["avg_jct"]))
    print("ranking by avg JCT: real %s; simulator %s" % (
        ranking(real, "avg_jct"),
        ranking({p: sims[p]["summary"] for p in pols}, "avg_jct")))
    if limit_check:
        print("time limits the simulator gives with the measured costs "
              "differ from those used (min): %s" % limit_check)


def simulate_only(a, path, pols):
    """The slice and the simulator's prediction with the estimated costs:
    per scheduler its wall-second figures and the mean wait for a first
    start (0 under backfill: nothing queues)."""
    by_label, cmd = simulate(a, [SIM_POLICY[p] for p in pols],
                             START_ESTIMATE, RESTART_COST)
    print("%d jobs of %s from job %d (%s), %d epoch(s), compression %g" % (
        a.jobs, os.path.relpath(path, TOP), a.first, a.window_how,
        a.epochs, a.compression))
    print(" ".join(cmd))
    for p in pols:
        run = by_label[SIM_POLICY[p]]
        f = sim_summary(run, a.compression, START_ESTIMATE)
        waits = [j["wait"] / a.compression for j in run["jobs"]]
        print("%-10s avg %.1f median %.1f p99 %.1f makespan %.1f resizes %d"
              "; wait for a start: mean %.1f, max %.1f, jobs waiting > 1 s "
              "%d" % (p, f["avg_jct"], f["median_jct"], f["p99_jct"],
                      f["makespan"], f["resizes"], sum(waits) / len(waits),
                      max(waits), sum(x > 1 for x in waits)))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workload", type=int, default=1, choices=range(1, 9))
    ap.add_argument("--tuned", action="store_true",
                    help="the tuned sizes (workloads/), not the users' "
                    "(workloads-realistic/)")
    ap.add_argument("--jobs", type=int, default=30,
                    help="N jobs in arrival order (default 30)")
    ap.add_argument("--window", choices=("busiest", "first"),
                    default="busiest",
                    help="busiest: the slice rule picks the workload and "
                    "the first job (doc/design/simulator.md); first: --workload from "
                    "--first")
    ap.add_argument("--first", type=int, default=0,
                    help="with --window first: the slice's first job")
    ap.add_argument("--epochs", type=int, default=3,
                    help="epochs of each job's application replayed")
    ap.add_argument("--compression", type=float, default=20.0,
                    help="measured seconds per wall-clock second, for the "
                    "arrivals and the jobs alike")
    ap.add_argument("--policies", default="optimus,quality,goodput",
                    help="sched/optimus policies run (Policy=), each beside "
                    "the simulator's policy of that name")
    ap.add_argument("--quick", action="store_true",
                    help="3 jobs, one epoch, optimus and goodput: a smoke "
                    "test")
    ap.add_argument("--simulate-only", action="store_true",
                    help="no cluster: the slice chosen and the simulator's "
                    "prediction with the estimated costs (the check that "
                    "the slice queues under backfill before a real run)")
    ap.add_argument("--report-from", default=None, metavar="JSON",
                    help="no cluster: the report again from the runs kept "
                    "by --json (the same slice options)")
    ap.add_argument("--start-model", default=None, metavar="JSON",
                    help="the start cost the simulator is given: the model "
                    "bench/start_cost.py calibrated in a separate run (a "
                    "start alone, and seconds more per start queued before "
                    "it), not the pooled mean start of this run's jobs, "
                    "which is printed beside it")
    ap.add_argument("--timeout", type=int, default=1200)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    if a.quick:
        a.jobs, a.epochs, a.policies = 3, 1, "optimus,goodput"
        a.window, a.workload, a.first = "first", 1, 0
    if a.window == "busiest":
        a.workload, a.first, load = busiest_window(a)
        a.window_how = "the busiest window: offered load %.2f" % load
    else:
        a.window_how = "chosen by hand"
    pols = [p for p in a.policies.split(",") if p] + ["backfill"]
    for p in pols:
        if p not in SIM_POLICY:
            ap.error("--policies: %s has no counterpart in the simulator "
                     "(%s)" % (p, ", ".join(SIM_POLICY)))
    path = workload_path(a.tuned, a.workload)
    jobs = workload(path, a.first, a.jobs)
    if len(jobs) < a.jobs:
        ap.error("%s has %d jobs from job %d" % (path, len(jobs), a.first))
    if a.simulate_only:
        return simulate_only(a, path, pols)
    if a.report_from:
        with open(a.report_from) as f:
            kept = json.load(f)
        return analyse(a, path, jobs, kept["runs"], kept["limits_min"],
                       kept["cluster_seconds"])
    # The backfill jobs' time limits, before any run: the simulator's
    # rule with the start allowance, in whole wall minutes.
    pre, _ = simulate(a, ["slurm-backfill"], START_ESTIMATE, RESTART_COST)
    limits = [int(round(j["time_limit"] / a.compression / 60))
              for j in pre["slurm-backfill"]["jobs"]]
    t0 = time.time()
    said = said_hints(a)
    runs = [run_once(p, jobs, a, limits, said) for p in pols]
    return analyse(a, path, jobs, runs, limits, time.time() - t0)


def own_costs(a, runs, costs):
    """A check beside the prediction: each scheduler simulated again with
    the mean start and resize costs of its own run (the pooled ones where
    its run measured none). A start's cost on this machine grows with the
    jobs starting at the same time (doc/design/simulator.md), which one pooled cost
    cannot follow."""
    out = {}
    for r in runs:
        p = r["policy"]
        start = mean(r["start_costs"], costs["start"])[0]
        restart = mean(r["resize_costs"], costs["restart"])[0]
        by_label, _ = simulate(a, [SIM_POLICY[p]], start, restart)
        out[p] = {"start": start, "restart": restart,
                  "summary": sim_summary(by_label[SIM_POLICY[p]],
                                         a.compression, start)}
    return out


def analyse(a, path, jobs, runs, limits, took):
    """The costs measured in the runs, the simulator's prediction with
    them, the report, the JSON; the exit status."""
    pols = [r["policy"] for r in runs]
    start, start_how = mean([s for r in runs for s in r["start_costs"]],
                            START_ESTIMATE)
    restart, restart_how = mean([s for r in runs for s in r["resize_costs"]],
                                RESTART_COST)
    costs = {"start": start, "start_how": start_how, "restart": restart,
             "restart_how": restart_how}
    pooled = None
    if a.start_model:
        with open(a.start_model) as f:
            m = json.load(f)
        costs.update(start_model=a.start_model, start_base=m["base"],
                     start_queued=m["per_queued"], start_pooled=start)
        # The pooled mean of this run, simulated too: the comparison.
        by_label, _ = simulate(a, [SIM_POLICY[p] for p in pols], start,
                               restart)
        pooled = {p: sim_summary(by_label[SIM_POLICY[p]], a.compression,
                                 start) for p in pols}
        start = m["base"]
    by_label, cmd = simulate(a, [SIM_POLICY[p] for p in pols], start,
                             restart, costs.get("start_queued", 0.0))
    sims = {p: by_label[SIM_POLICY[p]] for p in pols}
    for p in pols:
        sims[p]["summary"] = sim_summary(sims[p], a.compression, start)
    real = {r["policy"]: real_summary(r) for r in runs}
    now_limits = [int(round(j["time_limit"] / a.compression / 60))
                  for j in sims["backfill"]["jobs"]]
    limit_check = ", ".join("%s %d->%d" % (jobs[k]["name"], limits[k], m)
                            for k, m in enumerate(now_limits)
                            if m != limits[k])
    report(a, path, jobs, runs, real, sims, costs, limits, limit_check)
    if pooled:
        print("\nthe same with the pooled mean start of this run (%.2f s, "
              "the former single-number cost) instead of the model:"
              % costs["start_pooled"])
        for p in pols:
            print("%-10s avg JCT real %7.1f; model %7.1f sim/real %.2f; "
                  "pooled %7.1f sim/real %.2f" % (
                      p, real[p]["avg_jct"], sims[p]["summary"]["avg_jct"],
                      sims[p]["summary"]["avg_jct"] / real[p]["avg_jct"],
                      pooled[p]["avg_jct"],
                      pooled[p]["avg_jct"] / real[p]["avg_jct"]))
    own = own_costs(a, runs, costs)
    print("\nthe simulator with each run's own mean costs (a check, not the "
          "prediction: one start cost for all runs cannot follow a start "
          "that costs more when many jobs start at once)")
    for p in pols:
        print("%-10s start %5.2f s, resize %5.2f s: avg JCT %7.1f, "
              "sim/real %.2f" % (p, own[p]["start"], own[p]["restart"],
                                 own[p]["summary"]["avg_jct"],
                                 own[p]["summary"]["avg_jct"] /
                                 real[p]["avg_jct"]))
    print("cluster runs took %.0f s in all" % took)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"workload": os.path.relpath(path, TOP),
                       "first": a.first, "window": a.window_how,
                       "jobs": a.jobs, "epochs": a.epochs,
                       "compression": a.compression,
                       "plan_interval": PLAN_INTERVAL,
                       "simulator_round": SIM_ROUND,
                       "min_resize_interval": MIN_RESIZE,
                       "restart_cost_configured": RESTART_COST,
                       "costs": costs, "limits_min": limits,
                       "simulator_command": cmd, "runs": runs,
                       "real": real,
                       "simulator": {p: sims[p] for p in pols},
                       "simulator_own_costs": own,
                       "simulator_pooled_start": pooled,
                       "cluster_seconds": took}, f, indent=1)
    return 0 if not any(r["not_completed"] for r in real.values()) else 1


if __name__ == "__main__":
    sys.exit(main())

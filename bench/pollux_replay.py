#!/usr/bin/python3
"""Measured Pollux jobs replayed on the real cluster: sched/optimus
against plain sched/backfill (issue 29 item 2, its --quick smoke part).

The first N jobs (arrival order) of one workload file of
testsuite/data/pollux-osdi21 (workloads-realistic by default: sizes as
users chose them; --tuned: the tuned ones) run as replayed jobs
(examples/replay_trainer.py, doc/e2e.md "Replayed jobs") on a localhost
cluster of 4 nodes of 4 fake GPUs with accounting, twice: under
sched/optimus, each job elastic (1 up to its application's largest size,
optimus-sim truth's max_replicas, within the cluster), and under plain
sched/backfill, each job at its submitted num_replicas. Arrivals and the
jobs' own time are compressed by the same factor (--compression); each
job runs the first --epochs epochs of its application (a slice). It prints
every job's JCT (from its first submission, as bench/e2e_jct.py counts it),
the average, median and makespan side by side, and the resizes. No figure
is asserted.

    bench/pollux_replay.py --quick          # 3 jobs, one epoch each: a smoke test
    bench/pollux_replay.py --jobs 8 --epochs 2 --json out.json

Needs root (the cluster's daemons), a built tree, MariaDB and slurmdbd.
"""
import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# One home for the cluster's accounting reads: bench/e2e_jct.py.
from e2e_jct import (TOP, Cluster, comment_value, log, model_of,  # noqa: E402
                     sacct, unfinished)

EXAMPLES = os.path.join(TOP, "examples")
DATA = os.path.join(TOP, "testsuite", "data", "pollux-osdi21")
SIM = os.path.join(TOP, "src", "tools", "optimus-sim", "optimus-sim")
PYTHON = "/usr/bin/python3"
NODES, GPUS = 4, 4


def workload(path, n):
    """The first n jobs of a workload file, by arrival."""
    with open(path) as f:
        rows = sorted(csv.DictReader(f), key=lambda r: float(r["time"]))
    return rows[:n]


def max_replicas(app, batch):
    r = subprocess.run([SIM, "truth", "--app", app, "--gpus-per-node", "1",
                        "--batch", str(batch)], capture_output=True,
                       text=True, check=True)
    return min(json.loads(r.stdout)["max_replicas"], NODES * GPUS)


def hints(job, scheduler):
    """Elastic under sched/optimus; the submitted size under backfill."""
    n = int(job["num_replicas"])
    lo, hi = (1, max(n, max_replicas(job["application"],
                                     job["batch_size"]))) \
        if scheduler == "sched/optimus" else (n, n)
    return ("optimus,mode=allreduce,min_workers=%d,max_workers=%d,"
            "worker_gpus=1,worker_mem=256M,ckpt_grace=20" % (lo, hi))


def submit(c, workdir, job, scheduler, a):
    name = job["name"]
    r = c.run(["sbatch", "--parsable", "-J", name, "-D", workdir,
               "--open-mode=append", "-o", os.path.join(workdir, name + ".out"),
               "--export=ALL,OPTIMUS_EXAMPLES=%s,PYTHON=%s" % (EXAMPLES, PYTHON),
               "--scheduler=%s,ckpt_dir=%s" % (
                   hints(job, scheduler), os.path.join(workdir, "ck-" + name)),
               os.path.join(EXAMPLES, "replay_trainer.sbatch"),
               "--app", job["application"], "--batch", job["batch_size"],
               "--compression", str(a.compression), "--epochs",
               str(a.epochs)] +
              # nobody listens under plain backfill: no report retries
              ([] if scheduler == "sched/optimus" else ["--no-report"]))
    return int(r.stdout.strip().split(";")[0])


def run_once(scheduler, jobs, a):
    root = tempfile.mkdtemp(prefix="optimus-replay-%s-" %
                            scheduler.split("/")[1])
    workdir = os.path.join(root, "jobs")
    os.makedirs(workdir)
    os.chmod(workdir, 0o777)
    # The cluster of bench/e2e_jct.py, with GPUs: plans every 5 s, the
    # restart estimate until resizes are measured.
    c = Cluster(os.path.join(root, "cluster"), nodes=NODES, cpus=8,
                gpus=GPUS, accounting=True, scheduler=scheduler,
                cred_expire=5, optimus_conf="PlanInterval=5\n"
                "MinResizeInterval=30\nRestartCost=10\n")
    log("%s: starting the cluster in %s" % (scheduler, root))
    c.start()
    try:
        t0, done = time.time(), []
        first = float(jobs[0]["time"])
        for job in jobs:
            at = t0 + (float(job["time"]) - first) / a.compression
            time.sleep(max(0.0, at - time.time()))
            jid = submit(c, workdir, job, scheduler, a)
            done.append({"id": jid, "name": job["name"],
                         "submitted": time.time()})
            log("%s: submitted %s as job %d" % (scheduler, job["name"], jid))
        ids = [j["id"] for j in done]
        deadline = time.time() + a.timeout
        while unfinished(c, ids):
            if time.time() > deadline:
                raise RuntimeError("jobs still running after %d s"
                                   % a.timeout)
            time.sleep(2)
        rows = sacct(c, ids, scheduler == "sched/optimus")
        for j in done:
            row = rows[j["id"]]
            model = model_of(c, j["id"]) if scheduler == "sched/optimus" \
                else {}
            jct = comment_value(row["comment"], "jct")
            j.update(state=row["state"], end=row["end"],
                     jct=jct if jct is not None else row["end"] - j["submitted"],
                     restarts=int(model.get("restarts") or 0),
                     resize_seconds=float(model.get("resize_seconds") or 0))
        return {"scheduler": scheduler, "jobs": done,
                "makespan": max(j["end"] for j in done) -
                min(j["submitted"] for j in done)}
    finally:
        c.stop(keep=a.keep)
        if not a.keep:
            shutil.rmtree(root, ignore_errors=True)


def summary(run):
    jcts = [j["jct"] for j in run["jobs"]]
    return {"avg_jct": statistics.mean(jcts),
            "median_jct": statistics.median(jcts),
            "makespan": run["makespan"],
            "resizes": sum(j["restarts"] for j in run["jobs"]),
            "resize_seconds": sum(j["resize_seconds"] for j in run["jobs"]),
            "failed": sum(j["state"] != "COMPLETED" for j in run["jobs"])}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workload", type=int, default=1, choices=range(1, 9))
    ap.add_argument("--tuned", action="store_true",
                    help="the tuned sizes (workloads/), not the users' "
                    "(workloads-realistic/)")
    ap.add_argument("--jobs", type=int, default=6)
    ap.add_argument("--epochs", type=int, default=1,
                    help="epochs of each job's application replayed")
    ap.add_argument("--compression", type=float, default=20.0,
                    help="measured seconds per wall-clock second, for the "
                    "arrivals and the jobs alike")
    ap.add_argument("--quick", action="store_true",
                    help="3 jobs, one epoch: a smoke test")
    ap.add_argument("--timeout", type=int, default=1200)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    if a.quick:
        a.jobs, a.epochs = 3, 1
    path = os.path.join(DATA, "workloads" if a.tuned else
                        "workloads-realistic", "workload-%d.csv" % a.workload)
    jobs = workload(path, a.jobs)
    runs = [run_once(s, jobs, a) for s in ("sched/optimus", "sched/backfill")]
    sums = [summary(r) for r in runs]
    print("%d jobs of %s, %d epoch(s) each, compression %g, %d nodes of %d "
          "GPUs" % (len(jobs), os.path.relpath(path, TOP), a.epochs,
                    a.compression, NODES, GPUS))
    print("%-16s %12s %12s" % ("job", "optimus JCT", "backfill JCT"))
    for k, job in enumerate(jobs):
        print("%-16s %12.1f %12.1f" % (job["name"], runs[0]["jobs"][k]["jct"],
                                       runs[1]["jobs"][k]["jct"]))
    for key in ("avg_jct", "median_jct", "makespan", "resizes",
                "resize_seconds", "failed"):
        print("%-16s %12.1f %12.1f" % (key, sums[0][key], sums[1][key]))
    print("avg JCT optimus/backfill: %.2f" % (sums[0]["avg_jct"] /
                                              sums[1]["avg_jct"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"workload": os.path.relpath(path, TOP),
                       "epochs": a.epochs, "compression": a.compression,
                       "runs": runs, "summary": sums}, f, indent=1)
    return 0 if not any(s["failed"] for s in sums) else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""End-to-end job completion time: sched/optimus against sched/backfill.

Runs the same mix of real training jobs (examples/ps_trainer.py on the
digits data: staggered arrivals, sync and async, different targets and
per-sample costs) twice on a real localhost cluster with accounting
(slurmdbd + MariaDB): once with sched/optimus, once with plain
sched/backfill, under which the optimus jobs run at the size job_submit
gives them (their minimum). It prints, for both, every job's JCT, the
average JCT (of the jobs that completed) and the makespan, their ratio, the
number of resizes and what they cost. A job that did not complete is
named and counted: the target is then not met and the exit status is 1
(bench/job_outcome.py).

JCT is counted from the job's first submission: sched/optimus writes it
into SystemComment (jct=...), because a requeue resets Slurm's Submit; with
backfill nothing is requeued and sacct's End - Submit is the JCT. Both are
checked against the submission times the benchmark itself recorded.

    bench/e2e_jct.py              # about 8 minutes on 2 cores
    bench/e2e_jct.py --quick      # 3 jobs, for a smoke test
    bench/e2e_jct.py --workload mixed   # all-reduce (PyTorch DDP) and PS jobs
    bench/e2e_jct.py --json out.json

Needs root (the cluster's daemons), a built tree (plugins, optimusctl),
MariaDB (mariadb-server) and slurmdbd, python3-numpy and python3-sklearn
(and python3-torch for the mixed workload).
"""

import argparse
import json
import os
import re
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "testsuite", "cluster"))
sys.path.insert(0, os.path.join(TOP, "bench"))
from cluster import Cluster  # noqa: E402
import job_outcome  # noqa: E402

EXAMPLES = os.path.join(TOP, "examples")
OPTIMUSCTL = os.path.join(TOP, "src", "tools", "optimusctl")
PYTHON = "/usr/bin/python3"
# The hints of a job that starts at 1 PS + 1 worker and may grow to 2 PS +
# 4 workers; under sched/backfill it runs at its minimum. The trainers
# confirm their checkpoints, so ckpt_grace is only the upper bound.
FLEX = "min_ps=1,max_ps=2,min_workers=1,max_workers=4,ckpt_grace=15"
WIDE = "min_ps=1,max_ps=3,min_workers=2,max_workers=6,ckpt_grace=15"
# All-reduce jobs (examples/torch_trainer.py, DDP): workers only, from 1
# (or 2) up to 6; the global batch is kept whatever the size.
AR_FLEX = "min_workers=1,max_workers=6,batch=32,ckpt_grace=15"
AR_WIDE = "min_workers=2,max_workers=8,batch=32,ckpt_grace=15"

# A job: (arrival s, name, mode, hints, trainer options).
# --work-ms-per-sample stands for a bigger model's compute (see
# examples/README.md); at its minimum size each job needs about 1 to 3
# minutes.
JOBS = [
    ("a-async", "async", FLEX, ["--target-loss", "0.12",
                                "--work-ms-per-sample", "6"]),
    ("b-sync", "sync", FLEX, ["--target-loss", "0.15", "--batch", "64",
                              "--work-ms-per-sample", "3"]),
    ("c-async", "async", FLEX, ["--target-loss", "0.2",
                                "--work-ms-per-sample", "8"]),
    ("d-sync", "sync", WIDE, ["--target-loss", "0.2",
                              "--work-ms-per-sample", "6"]),
    ("e-async", "async", FLEX, ["--target-loss", "0.1",
                                "--work-ms-per-sample", "4"]),
    ("f-async", "async", WIDE, ["--target-loss", "0.3",
                                "--work-ms-per-sample", "10"]),
    ("g-sync", "sync", FLEX, ["--target-loss", "0.2",
                              "--work-ms-per-sample", "5"]),
]


# All-reduce and PS jobs in one cluster, the costs chosen as for JOBS (each
# about 1 to 3 minutes at its minimum size), fixed before any run.
MIXED_JOBS = [
    ("a-ddp", "allreduce", AR_FLEX, ["--target-loss", "0.15",
                                     "--work-ms-per-sample", "6"]),
    ("b-sync", "sync", FLEX, ["--target-loss", "0.15", "--batch", "64",
                              "--work-ms-per-sample", "3"]),
    ("c-ddp", "allreduce", AR_WIDE, ["--target-loss", "0.2",
                                     "--work-ms-per-sample", "8"]),
    ("d-async", "async", FLEX, ["--target-loss", "0.2",
                                "--work-ms-per-sample", "8"]),
    ("e-ddp", "allreduce", AR_FLEX, ["--target-loss", "0.1",
                                     "--work-ms-per-sample", "4"]),
    ("f-sync", "sync", WIDE, ["--target-loss", "0.2",
                              "--work-ms-per-sample", "6"]),
    ("g-ddp", "allreduce", AR_FLEX, ["--target-loss", "0.2",
                                     "--work-ms-per-sample", "5"]),
]


def arrive(gaps, jobs):
    """Jobs with arrival times: the first at 0, then the given gaps."""
    t, out = 0, []
    for gap, job in zip([0] + gaps, jobs):
        t += gap
        out.append((t,) + job)
    return out


# Workloads: (nodes, CPUs per node, jobs).
# - staggered: arrivals 15-20 s apart on 4 nodes of 4 CPUs, so the
#   cluster is busy at times and partly idle at others, as a shared
#   cluster is; under backfill no job waits (the minimums always fit).
# - burst: the seven jobs within 75 s on 2 nodes of 4 CPUs, whose minimum
#   sizes fill the cluster: little room to reallocate (the worst case).
WORKLOADS = {
    "staggered": (4, 4, arrive([15, 20, 15, 20, 15, 20], JOBS)),
    "burst": (2, 4, arrive([10, 10, 10, 15, 15, 15], JOBS)),
}
WORKLOADS["quick"] = (2, 4, [WORKLOADS["burst"][2][i] for i in (0, 2, 5)])
# - mixed: the staggered arrivals, four all-reduce jobs among the seven.
WORKLOADS["mixed"] = (4, 4, arrive([15, 20, 15, 20, 15, 20], MIXED_JOBS))


def log(msg):
    print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr,
          flush=True)


def submit(c, workdir, name, mode, hints, args):
    ck = os.path.join(workdir, "ck-" + name)
    script = "torch_trainer.sbatch" if mode == "allreduce" else \
        "ps_trainer.sbatch"
    r = c.run(["sbatch", "--parsable", "-J", name, "-D", workdir,
               "--open-mode=append", "-o", os.path.join(workdir, name + ".out"),
               "--export=ALL,OPTIMUS_EXAMPLES=%s,PYTHON=%s" % (EXAMPLES, PYTHON),
               "--scheduler=optimus,mode=%s,%s,ckpt_dir=%s" % (mode, hints, ck),
               os.path.join(EXAMPLES, script)] + args
              + ["--max-steps", "20000"])
    return int(r.stdout.strip().split(";")[0])


def at_max(hints):
    """The hints of a fixed-size job at the largest size the hints allow:
    what a user of plain backfill might ask for instead of the minimum."""
    kv = dict(item.split("=", 1) for item in hints.split(","))
    if "max_ps" in kv:      # all-reduce jobs have no PS
        kv["min_ps"] = kv["max_ps"]
    kv["min_workers"] = kv["max_workers"]
    return ",".join("%s=%s" % item for item in kv.items())


def unfinished(c, ids):
    r = c.run(["squeue", "-h", "-o", "%i", "-j", ",".join(map(str, ids))],
              check=False)
    return [int(x) for x in r.stdout.split() if x.strip().isdigit()]


def ts(text):
    try:
        return time.mktime(time.strptime(text, "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return None


def sacct(c, ids, want_comment):
    """{id: {state, submit, start, end (epoch s), comment}} once slurmdbd
    knows every job's end (and, for sched/optimus, its SystemComment with
    jct=, which may arrive a little after the end)."""
    fields = "JobIDRaw,State,Submit,Start,End,SystemComment"
    ended = None
    for _ in range(180):
        r = c.run(["sacct", "-X", "-n", "-P", "-o", fields, "-j",
                   ",".join(map(str, ids))], check=False)
        rows = {}
        for line in r.stdout.splitlines():
            v = line.split("|", 5)
            if len(v) == 6 and v[0].isdigit():
                rows[int(v[0])] = {"state": v[1], "submit": ts(v[2]),
                                   "start": ts(v[3]), "end": ts(v[4]),
                                   "comment": v[5]}
        if len(rows) == len(ids) and all(r["end"] for r in rows.values()):
            ended = ended or time.time()
            if not want_comment or time.time() - ended > 30 or all(
                    "jct=" in r["comment"] for r in rows.values()):
                return rows
        time.sleep(1)
    raise RuntimeError("sacct never showed every job's end: " + r.stdout)


def model_of(c, job):
    """What sched/optimus knows of a job (restarts, resize time), or {}."""
    try:
        r = c.run([OPTIMUSCTL, "--json", "show", "job", str(job)], check=False)
        return json.loads(r.stdout) if r.returncode == 0 else {}
    except (OSError, ValueError) as e:  # e.g. optimusctl being rebuilt
        log("optimusctl show job %d: %s" % (job, e))
        return {}


def comment_value(comment, key):
    m = re.search(r"\b%s=([0-9.]+)" % key, comment or "")
    return float(m.group(1)) if m else None


def run_once(scheduler, workload, keep, backfill_size="min"):
    root = tempfile.mkdtemp(prefix="optimus-e2e-%s-" % scheduler.split("/")[1])
    workdir = os.path.join(root, "jobs")
    os.makedirs(workdir)
    nodes, cpus, jobs = workload
    # cred_expire 5 (Slurm's minimum): a requeued job restarts after
    # cred_expire + 1 s; the jobs here are minutes, not hours, long.
    # RestartCost: the estimate until resizes are measured, here the
    # requeue delay plus the trainers' start (they confirm checkpoints).
    c = Cluster(os.path.join(root, "cluster"), nodes=nodes, cpus=cpus,
                gpus=0, accounting=True, scheduler=scheduler, cred_expire=5,
                optimus_conf="PlanInterval=5\nMinResizeInterval=30\n"
                "RestartCost=10\n")
    log("%s: starting the cluster in %s" % (scheduler, root))
    c.start()
    try:
        if scheduler == "sched/backfill" and backfill_size == "max":
            jobs = [(t, n, m, at_max(h), a) for t, n, m, h, a in jobs]
        return run_workload(c, scheduler, jobs, workdir)
    finally:
        c.stop(keep=keep)


def run_workload(c, scheduler, workload, workdir):
    t0 = time.time()
    jobs = []
    for arrival, name, mode, hints, args in workload:
        time.sleep(max(0.0, t0 + arrival - time.time()))
        job = submit(c, workdir, name, mode, hints, args)
        jobs.append({"id": job, "name": name, "submitted": time.time()})
        log("%s: submitted %s as job %d" % (scheduler, name, job))
    ids = [j["id"] for j in jobs]
    deadline = time.time() + 900
    while unfinished(c, ids):
        if time.time() > deadline:
            raise RuntimeError("jobs still running after 15 minutes")
        time.sleep(2)
    rows = sacct(c, ids, scheduler == "sched/optimus")
    for j in jobs:
        row = rows[j["id"]]
        model = model_of(c, j["id"]) if scheduler == "sched/optimus" else {}
        out = open(os.path.join(workdir, j["name"] + ".out")).read()
        j.update(state=row["state"], end=row["end"],
                 jct_own=row["end"] - j["submitted"],
                 jct_sacct=row["end"] - row["submit"],
                 jct_comment=comment_value(row["comment"], "jct"),
                 restarts=int(model.get("restarts") or
                              len(re.findall(r"(?m)^run [1-9]", out))),
                 resize_seconds=float(model.get("resize_seconds") or 0),
                 topologies=re.findall(r"(?m)^run \d+: (\d+) PS \+ (\d+) workers",
                                       out),
                 final_loss=_final_loss(out))
        # the true JCT, from the first submission: sched/optimus's jct= when
        # sacct has it, else End - the submission time recorded here (sacct's
        # Submit is reset by a requeue)
        j["jct"] = j["jct_comment"] if j["jct_comment"] is not None \
            else j["jct_own"]
    return {"scheduler": scheduler, "jobs": jobs, "first_submit": t0,
            "makespan": max(j["end"] for j in jobs) - min(
                j["submitted"] for j in jobs)}


def _final_loss(out):
    losses = re.findall(r"step \d+ loss ([0-9.]+)", out)
    return float(losses[-1]) if losses else None


def summary(run):
    """A run's figures; the average JCT is the completed jobs' (a job that
    failed early would lower it), the failed ones are listed apart."""
    jobs = run["jobs"]
    done = job_outcome.completed(jobs)
    return {"avg_jct": sum(j["jct"] for j in done) / len(done) if done
            else float("nan"),
            "makespan": run["makespan"],
            "resizes": sum(j["restarts"] for j in jobs),
            "resize_seconds": sum(j["resize_seconds"] for j in jobs),
            "completed": len(done), "jobs": jobs,
            "failed": [{"name": j["name"], "id": j["id"],
                        "state": j["state"]}
                       for j in job_outcome.failed(jobs)]}


def verdict(opt, bf, target=0.7):
    """(text, met) of the average JCT ratio against its target: not met
    when a job of either run did not complete (job_outcome.py)."""
    return job_outcome.target_verdict(
        "avg JCT optimus/backfill", opt["avg_jct"] / bf["avg_jct"], target,
        opt["jobs"] + bf["jobs"])


def print_run(run):
    print("\n%s" % run["scheduler"])
    print("  %-8s %6s %-10s %8s %8s %9s %8s %s" % (
        "job", "id", "state", "jct_s", "own_s", "comment_s", "resizes",
        "topologies (ps,workers)"))
    for j in run["jobs"]:
        print("  %-8s %6d %-10s %8.0f %8.0f %9s %8d %s" % (
            j["name"], j["id"], j["state"], j["jct"], j["jct_own"],
            "-" if j["jct_comment"] is None else "%.0f" % j["jct_comment"],
            j["restarts"], " ".join("%s+%s" % t for t in j["topologies"])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--workload", choices=sorted(WORKLOADS),
                    default="staggered",
                    help="staggered (default): arrivals over 105 s on 4 "
                    "nodes of 4 CPUs; burst: all within 75 s on 2 nodes of "
                    "4 CPUs, which their minimum sizes fill; quick: 3 jobs; "
                    "mixed: the staggered arrivals, 4 of the 7 jobs "
                    "all-reduce (PyTorch DDP, needs python3-torch)")
    ap.add_argument("--quick", action="store_true",
                    help="same as --workload quick")
    ap.add_argument("--json", help="write the measurements here")
    ap.add_argument("--cpus", type=int,
                    help="CPUs of each node (default: the workload's)")
    ap.add_argument("--backfill-size", choices=("min", "max"), default="min",
                    help="the size of the jobs under sched/backfill: min "
                    "(default, what job_submit/optimus gives them) or max "
                    "(fixed at their hints' largest size)")
    ap.add_argument("--keep", action="store_true", help="keep the clusters' folders")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("e2e_jct.py: run as root (it starts Slurm daemons)")
    name = "quick" if args.quick else args.workload
    nodes, cpus, jobs = WORKLOADS[name]
    workload = (nodes, args.cpus or cpus, jobs)
    runs = [run_once(s, workload, args.keep, args.backfill_size)
            for s in ("sched/optimus", "sched/backfill")]
    print("workload %s: %d jobs on %d nodes of %d CPUs; backfill runs "
          "them at their %s size" % (name, len(jobs), nodes, workload[1],
                                     args.backfill_size))
    for r in runs:
        print_run(r)
    opt, bf = summary(runs[0]), summary(runs[1])
    print("\n%-15s %10s %10s %8s %10s %9s" % ("scheduler", "avg_jct_s",
                                             "makespan_s", "resizes",
                                             "resize_s", "completed"))
    for sched, s in (("sched/optimus", opt), ("sched/backfill", bf)):
        print("%-15s %10.1f %10.1f %8d %10.1f %6d/%d" % (
            sched, s["avg_jct"], s["makespan"], s["resizes"],
            s["resize_seconds"], s["completed"], len(jobs)))
    ratio = opt["avg_jct"] / bf["avg_jct"]
    text, met = verdict(opt, bf)
    for sched, s in (("sched/optimus", opt), ("sched/backfill", bf)):
        print("%s: %s" % (sched, job_outcome.outcome_line(s["jobs"])))
    print("\n%s; makespan ratio = %.2f" % (text, opt["makespan"] /
                                          bf["makespan"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"workload": name, "backfill_size": args.backfill_size,
                       "runs": runs, "jct_ratio": ratio, "target_met": met,
                       "optimus": {k: v for k, v in opt.items()
                                   if k != "jobs"},
                       "backfill": {k: v for k, v in bf.items()
                                    if k != "jobs"}}, f, indent=1)
    return 1 if opt["failed"] or bf["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Adaptive batch against a fixed batch on a real localhost cluster, both
resized mid-run: the DDP example (examples/torch_trainer.py)
trained to a target loss once with adaptive_batch=yes (the scheduler
chooses its batch with its workers: Policy=goodput) and once at its
submitted batch, the same job otherwise, each on a fresh cluster
(testsuite/cluster/cluster.py: 2 nodes of 4 CPUs, Policy=goodput, plans
every 2 s).

The resize, by one rule fixed before any run and the same for both arms:
ARRIVE_S after the DDP job's submission a rigid job arrives that the plan
must make room for: 6 workers (`workers=6`, min = max), which Theorem 1
places 3 + 3 on the two nodes, so that the DDP job (up to 4 workers, on
one node when alone) cannot keep more than one worker per node while it
runs; it holds its CPUs HOLD_S seconds from its start (`srun sleep`: no
CPU of the machine's, so the DDP job's own speed is not touched) and
never checkpoints (it is never resized or preempted). The DDP job must
be shrunk or preempted for it, and may grow back when it ends (measured
2026-12-05, both arms: the plan preempts it for the rigid job, which
waits with no room, and starts it again 2 s later on the 2 CPUs left,
1 + 1 workers; doc/results.md). The plan does it as it decides
(sched/optimus' decisions in slurmctld.log): the
bench prints, per job, every decision of the plan that changed it (its
resizes, re-batches, preemptions, with their time from the submission),
its runs (workers, batch, the step each started at), the batch changes
its trainer took in place (the reply to its report: no restart) and the
restart time sched/optimus measured (checkpoint signal to the new run's
first step), and, for the adaptive arm, how many batch changes were taken
in place and how many restarts were for a batch change alone.

A pair of runs answers the question only when both jobs were resized
mid-run: a job whose runs all had the same number of workers was not
(with a PS job of 6 tasks arriving mid-run instead of the rigid job,
the fixed job never was). Such a run is flagged
"NOT ANSWERING" and the summary says so; its times are printed but not
in the averages.

Parameters, chosen before any run and the same for both: target loss
0.05, submitted batch 32 (range 32..512, at most 256 per worker),
1..4 workers, --work-ms-per-sample 0.5 (a sleep standing for the compute
of a larger model: the test cluster declares more CPUs than the machine
has), LR 0.2 at batch 32 scaled by AdaScale's gain (--lr-rule adascale),
ARRIVE_S = 15, HOLD_S = 20, the rigid job 6 workers of 256 MB;
optimus.conf PlanInterval=2, MinResizeInterval=5, RestartCost=2 (the
measured restart replaces it once one is measured). The adaptive job
alone also has --profile-batches 0.5,2,4 (its start-up timing of other
batches, part of the adaptive machinery, charged to its own runs; a
fixed job's timings of other batches are not used). A run of each on a
shared machine moves with the machine's load; --repeat N runs each N
times, alternating; --keep keeps each cluster's folder (its
slurmctld.log) and prints where.

Not part of the default test run: `/usr/bin/python3 bench/adaptive_ddp.py`
(as root, built tree, python3-torch).
"""
import argparse
import os
import re
import shutil
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "testsuite", "cluster"))
from cluster import Cluster  # noqa: E402
import examples_helpers as ex  # noqa: E402
sys.path.insert(0, os.path.join(TOP, "bench"))
import job_outcome  # noqa: E402

TARGET = 0.05
ARRIVE_S = 15
HOLD_S = 20
HOLDER_WORKERS = 6
OPTIMUS_CONF = ("Policy=goodput\nPlanInterval=2\nMinResizeInterval=5\n"
                "RestartCost=2\n")
HINTS = ("optimus,mode=allreduce,min_workers=1,max_workers=4,"
         "worker_mem=256M,batch=32,ckpt_grace=20,steps=3000,delta=0.00001")
ADAPTIVE = ",max_batch=512,max_local_batch=256,adaptive_batch=yes"
ARGS = ["--target-loss", str(TARGET), "--max-steps", "100000",
        "--work-ms-per-sample", "0.5", "--report-every", "1.2",
        "--stats-every", "5", "--lr-rule", "adascale"]
ADAPTIVE_ARGS = ["--profile-batches", "0.5,2,4"]
HOLDER_HINTS = ("optimus,mode=allreduce,workers=%d,worker_mem=256M,"
                "steps=1000" % HOLDER_WORKERS)
HOLDER_SCRIPT = """#!/bin/bash
# The rigid job arriving mid-run: holds its CPUs %d s from its start.
trap 'echo "holder: checkpoint signal ignored" >&2' USR1
srun --kill-on-bad-exit=1 sleep %d
""" % (HOLD_S, HOLD_S)

RUN_RE = re.compile(r"run (\d+): 0 PS \+ (\d+) workers on (\S+), batch (\d+)")
INPLACE_RE = re.compile(r"batch changed in place at step (\d+): (\d+) -> "
                        r"(\d+)")
START_RE = re.compile(r"starting at step (\d+):")
# worker 0's lines (examples/trainer_util.py log: local time, to the second)
CHIEF_RE = re.compile(r"^\[(\d\d:\d\d:\d\d) worker0\] (step \d+ loss|"
                      r"checkpoint of step \d+ written|done:)", re.M)
STAMP = r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?)\] (?:debug:\s+)?"


def log(msg):
    print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), flush=True)


def stamp_seconds(text):
    """Epoch seconds of a slurmctld log stamp (the machine's local time)."""
    base, _, frac = text.partition(".")
    t = time.mktime(time.strptime(base, "%Y-%m-%dT%H:%M:%S"))
    return t + (float("0." + frac) if frac else 0.0)


def plan_events(ctld, job, t0):
    """What sched/optimus did to `job`, from slurmctld.log: [(seconds from
    t0, text)] of its starts, resize decisions (re-batches included),
    preemptions, restarts (checkpoint signal to Slurm's start) and its
    end (completion, resizes and their measured cost)."""
    pats = [
        (r"sched/optimus: JobId=%d planned: (\S+) on (\S+)" % job,
         lambda m: "start %s on %s" % m.groups()),
        (r"sched/optimus: JobId=%d: resize (\d+)\+(\d+) -> (\d+)\+(\d+)"
         r"(?: at batch (\S+) -> (\S+))?[^(]*(\(.*\))" % job,
         lambda m: ("%s %s -> %s workers%s %s"
                    % ("re-batch" if m.group(2) == m.group(4) else "resize",
                       m.group(2), m.group(4),
                       "" if m.group(5) is None else
                       ", batch %s -> %s" % (m.group(5), m.group(6)),
                       m.group(7)))),
        (r"sched/optimus: JobId=%d: re-batch in place (\d+) -> (\d+) "
         r"\((\d+) x (\d+) workers x (\d+), LR x \S+; predicted (\S+) -> "
         r"(\S+), gain (\S+)\)" % job,
         lambda m: "re-batch in place %s -> %s sent (%s x %s workers x %s; "
                   "predicted %s -> %s, gain %s)" % m.groups()),
        (r"sched/optimus: JobId=%d: re-batched in place (\d+) -> (\d+) .* "
         r"at step (\d+), (\d+)s after the plan sent it" % job,
         lambda m: "re-batched in place %s -> %s at step %s, %ss after it "
                   "was sent (no restart)" % m.groups()),
        (r"sched/optimus: JobId=%d: did not take the re-batch in place to "
         r"(\d+) within (\d+)s" % job,
         lambda m: "re-batch in place to %s not taken within %ss: restart "
                   "path" % m.groups()),
        (r"sched/optimus: JobId=%d (preempted for .*): checkpoint signal, "
         r"requeue at optimus' gate.*" % job,
         lambda m: "%s: checkpoint, requeue, pending" % m.group(1)),
        (r"sched/optimus: JobId=%d resized to (\d+) PS \+ (\d+) workers"
         r"(.*) in (\d+)s" % job,
         lambda m: "restarted on %s workers%s, %ss after the checkpoint "
                   "signal" % (m.group(2), m.group(3), m.group(4))),
        (r"sched/optimus: JobId=%d done: (.*)" % job,
         lambda m: "done: %s" % m.group(1)),
    ]
    out = []
    for line in ctld.splitlines():
        s = re.match(STAMP, line)
        if not s:
            continue
        rest = line[s.end():]
        for pat, fmt in pats:
            m = re.match(pat, rest)
            if m:
                out.append((stamp_seconds(s.group(1)) - t0, fmt(m)))
                break
    return out


def phases(out, t0):
    """Where the job's time went, from worker 0's log (to the second):
    (seconds from t0 to its first step, [seconds training per run: first
    step to its checkpoint or its end], [seconds per restart: checkpoint
    written to the next run's first step])."""
    day = time.strftime("%Y-%m-%d ", time.localtime(t0))
    first, train, restart = None, [], []
    run_start = last_ckpt = None
    for hms, what in CHIEF_RE.findall(out):
        t = time.mktime(time.strptime(day + hms, "%Y-%m-%d %H:%M:%S"))
        if t < t0 - 3600:
            t += 86400                  # past midnight
        if what.startswith("step"):
            if run_start is None:
                run_start = t
                if first is None:
                    first = t - t0
                if last_ckpt is not None:
                    restart.append(t - last_ckpt)
                    last_ckpt = None
        elif run_start is not None:     # the run's checkpoint or its end
            train.append(t - run_start)
            run_start = None
            if what.startswith("checkpoint"):
                last_ckpt = t
    return first, train, restart


def batch_changes(ctld, job):
    """(re-batches taken in place, restarts for a batch change alone):
    sched/optimus' lines for the job, a change taken in place and a
    resize at the same workers with another batch."""
    inplace = len(re.findall(r"JobId=%d: re-batched in place " % job, ctld))
    alone = len([m for m in re.finditer(
        r"JobId=%d: resize \d+\+(\d+) -> \d+\+(\d+) at batch" % job, ctld)
        if m.group(1) == m.group(2)])
    return inplace, alone


def resize_cost(ctld, job):
    """(resizes, seconds) sched/optimus counted at the job's end: restarts
    and their time, checkpoint signal to the new run's first step."""
    m = re.search(r"JobId=%d done: .* (\d+) resizes costing (\d+)s" % job,
                  ctld)
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def run_once(adaptive, timeout, keep):
    root = tempfile.mkdtemp(prefix="optimus-adaptive-")
    workdir = os.path.join(root, "jobs")
    os.makedirs(workdir)
    os.chmod(workdir, 0o777)
    holder_sh = os.path.join(workdir, "holder.sbatch")
    with open(holder_sh, "w") as f:
        f.write(HOLDER_SCRIPT)
    c = Cluster(os.path.join(root, "cluster"), nodes=2, cpus=4, gpus=0,
                cred_expire=5, optimus_conf=OPTIMUS_CONF)
    c.start()
    try:
        t0 = time.time()
        job = ex.submit(c, workdir, HINTS + (ADAPTIVE if adaptive else ""),
                        ARGS + (ADAPTIVE_ARGS if adaptive else []),
                        example="torch_trainer.sbatch")
        time.sleep(max(0.0, t0 + ARRIVE_S - time.time()))
        r = c.run(["sbatch", "--parsable", "-D", workdir,
                   "-o", os.path.join(workdir, "holder-%j.out"),
                   "--scheduler=" + HOLDER_HINTS, holder_sh])
        holder = int(r.stdout.strip().split(";")[0])
        state = c.wait_job_state(job, ("COMPLETED", "FAILED", "CANCELLED",
                                       "TIMEOUT"), timeout=timeout)
        took = time.time() - t0
        out = ex.output(workdir, job)
        c.run(["scancel", str(holder)], check=False)
        time.sleep(3)           # the planner's look at the ends: done lines
        ctld = c.logs("slurmctld")
        runs = [(int(a), int(b), n, int(d)) for a, b, n, d in
                RUN_RE.findall(out)]
        starts = [int(s) for s in START_RE.findall(out)]
        return dict(job=job, state=state, took=took, runs=runs,
                    starts=starts,
                    events=plan_events(ctld, job, t0),
                    holder=plan_events(ctld, holder, t0),
                    cost=resize_cost(ctld, job), phases=phases(out, t0),
                    changes=batch_changes(ctld, job),
                    inplace=INPLACE_RE.findall(out),
                    root=root)
    finally:
        c.stop(keep=True)
        if not keep:
            shutil.rmtree(root, ignore_errors=True)


def resized(runs):
    """Did the job run at more than one size (a resize or a preemption
    and a restart at another size)?"""
    return len({w for _, w, _, _ in runs}) > 1


def show(name, r, keep):
    log("%s: %s in %.1f s to loss %.2f" % (name, r["state"], r["took"],
                                           TARGET))
    for i, (run, w, nodes, b) in enumerate(r["runs"]):
        step = r["starts"][i] if i < len(r["starts"]) else "?"
        print("    run %d: %d workers on %s, batch %d, from step %s"
              % (run, w, nodes, b, step))
    for step, old, new in r["inplace"]:
        print("    trainer: batch changed in place at step %s: %s -> %s"
              % (step, old, new))
    for t, what in r["events"]:
        print("    %6.1f s  %s" % (t, what))
    for t, what in r["holder"]:
        print("    %6.1f s  rigid job: %s" % (t, what))
    n, s = r["cost"]
    print("    restarts counted by sched/optimus: %s, costing %s s "
          "(resizes timed from the checkpoint signal to the first step; "
          "a preemption's restart is not timed)" % (n, s))
    inplace, alone = r["changes"]
    print("    batch changes: %d taken in place, %d restarts for a batch "
          "change alone" % (inplace, alone))
    first, train, restart = r["phases"]
    print("    worker 0's log (to the second): first step at %s s, training "
          "%.0f s (%s), restarts %.0f s (%s: checkpoint written to the next "
          "first step)"
          % ("?" if first is None else "%.0f" % first, sum(train),
             " + ".join("%.0f" % x for x in train), sum(restart),
             " + ".join("%.0f" % x for x in restart) or "none"))
    if not resized(r["runs"]):
        print("    NOT ANSWERING: the %s job was not resized mid-run" % name)
    if keep:
        print("    kept: %s (cluster/log/slurmctld.log)" % r["root"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--keep", action="store_true",
                    help="keep each cluster's folder")
    a = ap.parse_args()
    times = {True: [], False: []}
    changes = [0, 0]
    pairs, every = [], []
    for i in range(a.repeat):
        pair = {}
        for adaptive in (True, False):
            name = "adaptive" if adaptive else "fixed"
            r = run_once(adaptive, a.timeout, a.keep)
            show(name, r, a.keep)
            pair[adaptive] = r
        every.append([("adaptive" if k else "fixed", p)
                      for k, p in pair.items()])
        ok = all(p["state"] == "COMPLETED" and resized(p["runs"])
                 for p in pair.values())
        pairs.append(ok)
        changes = [a + b for a, b in zip(changes, pair[True]["changes"])]
        if ok:
            for adaptive, p in pair.items():
                times[adaptive].append(p["took"])
        log("pair %d: adaptive %.1f s, fixed %.1f s%s"
            % (i + 1, pair[True]["took"], pair[False]["took"],
               "" if ok else " (NOT ANSWERING: not both completed and "
               "resized mid-run; left out of the averages)"))
    runs = [dict(p, name=name, id=p["job"])
            for pair in every for name, p in pair]
    print(job_outcome.outcome_line(runs))
    if times[True]:
        ad = sum(times[True]) / len(times[True])
        fx = sum(times[False]) / len(times[False])
        print("time to loss %.2f, both resized mid-run (a rigid job of %d "
              "workers arriving at %d s for %d s): adaptive %.1f s, fixed "
              "batch %.1f s, fixed/adaptive %.2f (%d of %d pair(s) "
              "answering)" % (TARGET, HOLDER_WORKERS, ARRIVE_S, HOLD_S, ad,
                              fx, fx / ad, len(times[True]), len(pairs)))
        print("adaptive arm: %d batch changes taken in place, %d restarts "
              "for a batch change alone (all pairs)" % tuple(changes))
        return 1 if job_outcome.failed(runs) else 0
    print("no comparison: no pair where both jobs completed and were "
          "resized mid-run")
    return 1


if __name__ == "__main__":
    sys.exit(main())

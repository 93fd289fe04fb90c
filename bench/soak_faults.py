#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""A soak with faults: PS and DDP jobs under sched/optimus
while slurmd and slurmctld daemons are killed and restarted.

For --minutes (default 20) a stream of training jobs (the mixed workload of
bench/e2e_jct.py: examples/ps_trainer.py and examples/torch_trainer.py,
half of them PyTorch DDP) arrives on a real localhost cluster with
accounting, while a driver injects faults at random moments (seeded:
--seed, every fault logged with its time):

  slurmd-restart  a node's slurmd killed (SIGKILL) and started again after
                  a few seconds: its jobs' steps live on in slurmstepd, so
                  no job should restart
  node-down       a node dies (its slurmd, slurmstepd and tasks killed at
                  once: Cluster.kill_node) and is set DOWN, as an admin
                  does for a dead machine; back (slurmd started, resumed)
                  some time later: Slurm requeues its jobs (JobRequeue=1),
                  each must resume from its last confirmed checkpoint
  ctld-restart    slurmctld killed (SIGKILL) and started again from its
                  state: nothing should restart, no record be lost

Then it waits for every job to end and checks, printing each figure:
every job COMPLETED (none killed by the scheduler, none failed), its true
JCT (jct=) in sacct's SystemComment, its record in sched/optimus
(`optimusctl show job`), and every restart explained: the record's
resizes (restarts) and runs lost to faults (fault_restarts) must make all
the runs the job's output shows, and each fault restart must have met a
node-down fault injected on one of its nodes while it ran; lost work is the
steps redone after each fault restart (last step logged before it minus
the step the next run resumed from).

    bench/soak_faults.py                    # 20 minutes of arrivals + drain
    bench/soak_faults.py --minutes 3 --seed 2   # a short one
    bench/soak_faults.py --json out.json

A slurmctld killed within seconds of starting a job may not have saved
the start: Slurm then holds that job ("launch failed requeued held") and
drains its node ("Duplicate jobid"), exactly as under plain
sched/backfill. The driver does what an admin does (releases the job,
resumes the node), counts it, and allows that job the one extra run.
A job submitted in the seconds before such a kill may be lost whole (the
restarted slurmctld gives its id again): it is reported as lost with the
crash, and is a failure only if no crash came right after it.

Exit status 0 only if every check held. Needs what bench/e2e_jct.py needs
(root, a built tree, MariaDB and slurmdbd, python3-numpy, python3-sklearn,
python3-torch). Parameters (fixed before any run, the same for every
seed): an arrival every 40 s, each job's per-sample cost 4 times the
mixed workload's (several minutes per job), a fault every 60 to 150 s, a
node down for 20 to 60 s, a slurmd or slurmctld away for 2 to 10 s.
"""

import argparse
import json
import os
import random
import re
import signal
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "testsuite", "cluster"))
sys.path.insert(0, os.path.join(TOP, "bench"))
from cluster import Cluster  # noqa: E402
import e2e_jct  # noqa: E402
import job_outcome  # noqa: E402

ARRIVAL_GAP = 40.0
FAULT_GAP = (60.0, 150.0)
NODE_DOWN_FOR = (20.0, 60.0)
DAEMON_AWAY_FOR = (2.0, 10.0)
# The mixed workload's jobs take 1 to 3 minutes at their minimum size,
# shorter than the gaps between faults: four times their per-sample cost
# makes them last several minutes, so that faults meet running jobs.
WORK_SCALE = 4
FAULT_KINDS = ("slurmd-restart", "node-down", "ctld-restart")
# How often the records are read (snapshot_records).
RECORD_EVERY = 10.0
# After the last arrival: every job must end within this.
DRAIN_LIMIT = 900.0

log = e2e_jct.log


def node_state(c, node):
    r = c.run(["sinfo", "-h", "-n", node, "-N", "-o", "%T"], check=False)
    return r.stdout.strip()


def revive(c, node):
    c._start_slurmd(node)
    # ReturnToService=2 may return it at registration already: Slurm then
    # refuses the resume of a node that is not down.
    c.run(["scontrol", "update", "nodename=" + node, "state=resume"],
          check=False)


# Slurm saves its state a few seconds after a change, not at once.
STATE_SAVE_LAG = 10.0


def lost_submission(jobs, jid, faults, lost):
    """A job id given out twice: slurmctld was killed before it saved the
    first submission, and the restarted one gave the id again. The first
    job is gone with the crash (Slurm's; plain sched/backfill loses it
    alike): it is moved from jobs to lost, and a failure unless a
    ctld-restart came within STATE_SAVE_LAG s of its submission."""
    for j in [j for j in jobs if j["id"] == jid]:
        crash = any(f["kind"] == "ctld-restart" and
                    0 <= f["start"] - j["submitted"] <= STATE_SAVE_LAG
                    for f in faults)
        jobs.remove(j)
        j["explained"] = crash
        lost.append(j)
        log("job %d (%s) was lost with the controller crash: its id was "
            "given again%s" % (jid, j["name"], "" if crash else
                               " (NOT right after a crash)"))


def admin_repairs(c, jobs, repairs):
    """What an admin does after a controller crash, counted in repairs.

    slurmctld killed within seconds of starting a job may not have saved
    the start: it recovers the job as pending, starts it again, finds the
    first launch still running on the node ("Duplicate jobid on nodes X,
    set to state DRAIN") and holds the job ("launch failed requeued
    held"). That is Slurm's own handling: the same kill under plain
    sched/backfill gives the same held job and drained node (doc/results.md,
    the soak). The admin releases the job and resumes the node."""
    r = c.run(["squeue", "-h", "-t", "PD", "-o", "%i %r"], check=False)
    for line in r.stdout.splitlines():
        jid, _, reason = line.partition(" ")
        # squeue's %r spells the reason with spaces ("launch failed
        # requeued held"), scontrol with underscores: either is matched
        # (matching only the latter, a soak never releases its held job).
        if reason.strip().replace(" ", "_") == \
                "launch_failed_requeued_held" and \
                int(jid) in {j["id"] for j in jobs}:
            c.run(["scontrol", "release", jid], check=False)
            repairs["released"].append(int(jid))
            log("admin: released job %s (%s)" % (jid, reason.strip()))
    r = c.run(["sinfo", "-h", "-N", "-t", "drain,draining", "-o", "%N|%E"],
              check=False)
    for line in r.stdout.splitlines():
        node, _, reason = line.partition("|")
        if reason.startswith("Duplicate jobid"):
            c.run(["scontrol", "update", "nodename=" + node, "state=resume"],
                  check=False)
            repairs["resumed"].append(node)
            log("admin: resumed %s (%s)" % (node, reason))


def kill9(c, name):
    """SIGKILL a daemon by its pid file, as a crash or the OOM killer
    would (no shutdown, no state saved beyond what it had written)."""
    for pid in c._daemon_pids(name):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    c._kill_all([name], timeout=5)     # waits for the end, reaps the pid file


def inject(c, rng, kind, faults):
    """One fault; its record (kind, node, start, end) goes into faults."""
    t0 = time.time()
    node = rng.choice(c._node_names()) if kind != "ctld-restart" else None
    if kind == "ctld-restart":
        kill9(c, "slurmctld")
        time.sleep(rng.uniform(*DAEMON_AWAY_FOR))
        c._start_slurmctld(clean=False)
    elif kind == "slurmd-restart":
        kill9(c, "slurmd-" + node)
        time.sleep(rng.uniform(*DAEMON_AWAY_FOR))
        c._start_slurmd(node)
    else:
        # A dead machine takes its processes with it: the node's slurmd,
        # slurmstepd and tasks (Cluster.kill_node). Its slurmd alone left
        # the steps running; back, the node reported them and Slurm
        # killed the job it had requeued there meanwhile.
        killed = c.kill_node(node)
        log("node %s dies: %d processes killed" % (node, len(killed)))
        c.run(["scontrol", "update", "nodename=" + node, "state=down",
               "reason=soak"], check=False)
        time.sleep(rng.uniform(*NODE_DOWN_FOR))
        revive(c, node)
    faults.append({"kind": kind, "node": node, "start": t0,
                   "end": time.time()})
    log("fault %d: %s%s (%.0f s)" % (len(faults), kind,
                                     " on " + node if node else "",
                                     time.time() - t0))


def runs_of(out_text):
    """The runs of one job from its output: for each, its nodes, the step
    it resumed from, the last step it logged and when its line came."""
    runs = []
    for line in out_text.splitlines():
        # "run N: P PS + W workers on NODES, [batch ..., ]checkpoints in"
        m = re.match(r"run (\d+): .* on ([^\s,]+),", line)
        if m:
            runs.append({"run": int(m.group(1)), "nodelist": m.group(2),
                         "resumed": 0, "last_step": None,
                         "first": None, "last": None})
            continue
        if not runs:
            continue
        # The trainers' lines begin "[HH:MM:SS role]": when the run lived.
        m = re.match(r"\[(\d\d):(\d\d):(\d\d) ", line)
        if m:
            t = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
            runs[-1]["first"] = runs[-1]["first"] if runs[-1]["first"] \
                is not None else t
            runs[-1]["last"] = t
        m = re.search(r"starting at step (\d+)|resuming from the checkpoint "
                      r"of step (\d+)", line)
        if m:
            runs[-1]["resumed"] = max(runs[-1]["resumed"],
                                      int(m.group(1) or m.group(2)))
        m = re.search(r"\bstep (\d+) loss ", line)
        if m:
            runs[-1]["last_step"] = int(m.group(1))
    return runs


def scaled_work(targs):
    """The trainer's arguments with WORK_SCALE times its per-sample cost."""
    out = list(targs)
    i = out.index("--work-ms-per-sample") + 1
    out[i] = str(float(out[i]) * WORK_SCALE)
    return out


def snapshot_records(c, jobs, records):
    """The latest record of every job sched/optimus still has: Slurm purges
    a job MinJobAge (300 s) after its end and the record goes with it, so
    the soak keeps what it last saw instead of asking at the end."""
    for j in jobs:
        if records.get(j["id"], {}).get("phase") == "done":
            continue
        model = e2e_jct.model_of(c, j["id"])
        if model:
            records[j["id"]] = model


def day_seconds(epoch):
    """Local seconds since midnight, as the trainers' log lines have them."""
    t = time.localtime(epoch)
    return t.tm_hour * 3600 + t.tm_min * 60 + t.tm_sec


def hostnames(c, nodelist):
    return c.run(["scontrol", "show", "hostnames", nodelist],
                 check=False).stdout.split()


def check_job(c, job, row, model, faults, workdir, released):
    """The checks of one ended job; returns the list of what failed."""
    bad = []
    if row["state"] != "COMPLETED":
        bad.append("state %s" % row["state"])
    if e2e_jct.comment_value(row["comment"], "jct") is None:
        bad.append("no jct= in sacct's SystemComment")
    if not model:
        bad.append("no sched/optimus record (optimusctl show job)")
    out = open(os.path.join(workdir, job["name"] + ".out")).read()
    runs = runs_of(out)
    plan = int(model.get("restarts") or 0)
    downs = [f for f in faults if f["kind"] == "node-down"]
    fault_restarts, lost = 0, []
    for before, after in zip(runs, runs[1:]):
        nodes = set(hostnames(c, before["nodelist"]))
        # A node-down fault on one of the run's nodes while it ran (its
        # last line at most a plan interval and a requeue before it).
        if any(f["node"] in nodes and before["first"] is not None and
               before["first"] - 5 <= day_seconds(f["start"]) <=
               before["last"] + 60 for f in downs):
            fault_restarts += 1
            if before["last_step"] is not None:
                lost.append(max(0, before["last_step"] - after["resumed"]))
    # The record counts resizes (restarts) and runs lost to faults
    # (fault_restarts) apart: together they must make every run the job
    # had, and every fault restart it counts must have met a node-down
    # fault the driver injected on one of its nodes.
    # A job Slurm held after a controller crash ran once more when
    # released (admin_repairs): a fault restart the crash explains.
    fault_restarts += released
    recorded = int(model.get("fault_restarts") or 0)
    if len(runs) - 1 != plan + recorded:
        bad.append("%d runs, but the record counts %d resizes and %d fault "
                   "restarts" % (len(runs), plan, recorded))
    if recorded > fault_restarts:
        bad.append("%d fault restarts recorded, %d explained by the faults "
                   "injected" % (recorded, fault_restarts))
    job.update(state=row["state"], runs=len(runs), plan_restarts=plan,
               fault_restarts=fault_restarts, recorded_faults=recorded,
               lost_steps=lost,
               jct=e2e_jct.comment_value(row["comment"], "jct"), bad=bad)
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--minutes", type=float, default=20.0,
                    help="how long jobs arrive and faults are injected")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="write the measurements here")
    ap.add_argument("--keep", action="store_true",
                    help="keep the cluster's folder (logs) afterwards")
    args = ap.parse_args()
    rng = random.Random(args.seed)

    root = tempfile.mkdtemp(prefix="optimus-soak-")
    workdir = os.path.join(root, "jobs")
    os.makedirs(workdir)
    # The cluster of bench/e2e_jct.py (4 nodes of 4 CPUs, accounting, short
    # plan interval and restart cost for minute-long jobs).
    c = Cluster(os.path.join(root, "cluster"), nodes=4, cpus=4, gpus=0,
                accounting=True, scheduler="sched/optimus", cred_expire=5,
                optimus_conf="PlanInterval=5\nMinResizeInterval=30\n"
                "RestartCost=10\n")
    log("soak: seed %d, %.0f minutes, cluster in %s"
        % (args.seed, args.minutes, root))
    c.start()
    jobs, faults, failed, lost = [], [], [], []
    try:
        t0 = time.time()
        end = t0 + 60.0 * args.minutes
        next_arrival, next_fault = t0, t0 + rng.uniform(*FAULT_GAP)
        next_record, records, arrivals = t0, {}, 0
        repairs = {"released": [], "resumed": []}
        while time.time() < end:
            now = time.time()
            if now >= next_arrival:
                name, mode, hints, targs = e2e_jct.MIXED_JOBS[
                    arrivals % len(e2e_jct.MIXED_JOBS)]
                # Each arrival its own name: its output and checkpoint
                # folder are named after it (a lost job leaves jobs).
                name = "%02d-%s" % (arrivals, name)
                arrivals += 1
                targs = scaled_work(targs)
                try:
                    jid = e2e_jct.submit(c, workdir, name, mode, hints, targs)
                    lost_submission(jobs, jid, faults, lost)
                    jobs.append({"id": jid, "name": name, "mode": mode,
                                 "hints": hints, "args": targs,
                                 "submitted": time.time()})
                    log("submitted %s as job %d" % (name, jid))
                except Exception as e:  # slurmctld away: next arrival
                    log("submit %s refused: %s" % (name, e))
                next_arrival += ARRIVAL_GAP
            elif now >= next_record:
                snapshot_records(c, jobs, records)
                admin_repairs(c, jobs, repairs)
                next_record = time.time() + RECORD_EVERY
            elif now >= next_fault:
                inject(c, rng, rng.choice(FAULT_KINDS), faults)
                next_fault = time.time() + rng.uniform(*FAULT_GAP)
            else:
                time.sleep(max(0.0, min(next_arrival, next_fault,
                                        next_record, end) - now))
        log("arrivals and faults over: %d jobs, %d faults; draining"
            % (len(jobs), len(faults)))
        ids = [j["id"] for j in jobs]
        deadline = time.time() + DRAIN_LIMIT
        while e2e_jct.unfinished(c, ids):
            if time.time() > deadline:
                failed.append("jobs still running %.0f s after the last "
                              "arrival" % DRAIN_LIMIT)
                break
            snapshot_records(c, jobs, records)
            admin_repairs(c, jobs, repairs)
            time.sleep(5)
        snapshot_records(c, jobs, records)
        rows = e2e_jct.sacct(c, ids, True)
        failed += ["job %d %s: lost, but not right after a controller "
                   "crash" % (j["id"], j["name"]) for j in lost
                   if not j["explained"]]
        for j in jobs:
            bad = check_job(c, j, rows.get(j["id"], {"state": "MISSING",
                                                     "comment": ""}),
                            records.get(j["id"], {}), faults, workdir,
                            repairs["released"].count(j["id"]))
            failed += ["job %d %s: %s" % (j["id"], j["name"], b) for b in bad]
    finally:
        c.stop(keep=args.keep or bool(failed))

    if args.json:   # the raw record first, whatever the summary does
        with open(args.json + ".raw", "w") as f:
            json.dump({"jobs": jobs, "faults": faults, "lost": lost,
                       "repairs": repairs, "failed": failed}, f, indent=1)
    redone = [s for j in jobs for s in j.get("lost_steps", [])]
    done = [j for j in job_outcome.completed(jobs) if j.get("jct")]
    figures = {
        "seed": args.seed, "minutes": args.minutes, "jobs": len(jobs),
        "completed": sum(j.get("state") == "COMPLETED" for j in jobs),
        "faults": {k: sum(f["kind"] == k for f in faults)
                   for k in FAULT_KINDS},
        "restarts_by_plan": sum(j.get("plan_restarts", 0) for j in jobs),
        "restarts_by_faults": sum(j.get("fault_restarts", 0) for j in jobs),
        "lost_steps_per_fault_restart": (sum(redone) / len(redone))
        if redone else 0.0,
        # of the jobs that completed: a failed one's JCT is no JCT
        "avg_jct": (sum(j["jct"] for j in done) / len(done)) if done
        else float("nan"),
        "lost_submissions": [{"name": j["name"], "id": j["id"],
                              "after_a_crash": j["explained"]}
                             for j in lost],
        "released_by_admin": repairs["released"],
        "nodes_resumed_by_admin": repairs["resumed"],
        "failed_checks": failed,
    }
    print("\nsoak: seed %d, %.0f minutes" % (args.seed, args.minutes))
    print("  %s; average JCT of those completed %.0f s" % (
        job_outcome.outcome_line(jobs), figures["avg_jct"]))
    print("  faults injected: %s" % ", ".join(
        "%s %d" % kv for kv in figures["faults"].items()))
    print("  restarts: %d by the plan, %d by node-down faults; lost work "
          "%.1f steps per fault restart (%s)" % (
              figures["restarts_by_plan"], figures["restarts_by_faults"],
              figures["lost_steps_per_fault_restart"],
              " ".join(map(str, redone)) or "none"))
    print("  submissions lost with a controller crash (Slurm had not "
          "saved them; a user resubmits): %s" % (
              ", ".join("%s (job %d)" % (j["name"], j["id"]) for j in lost)
              or "none"))
    print("  admin repairs after controller crashes (Slurm's own "
          "handling): %d jobs released, %d nodes resumed" % (
              len(repairs["released"]), len(repairs["resumed"])))
    for j in jobs:
        print("  %-14s %5d %-10s runs %d (plan %d, faults %d) jct %s" % (
            j["name"], j["id"], j.get("state"), j.get("runs", 0),
            j.get("plan_restarts", 0), j.get("fault_restarts", 0),
            "-" if j.get("jct") is None else "%.0f s" % j["jct"]))
    print("  checks: %s" % ("all held" if not failed else
                            "%d FAILED:\n    " % len(failed) +
                            "\n    ".join(failed)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"figures": figures, "jobs": jobs, "faults": faults},
                      f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Two ordinary users on one cluster, for the fair-share tests
(test_fair_share.py) and bench/report_gaming.py: their training jobs
(the synthetic trainer, all-reduce, up to 16 one-GPU workers), a job's
owner sending fabricated speed samples (slow and perfectly scalable) or
flat ones for a shared model= profile, and the GPU-seconds each job
holds, read from the planner's record of its run."""
import json
import os
import subprocess
import time

from report_helpers import open_to_every_user, unix_user

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
TRAINER = os.path.join(TOP, "testsuite", "integration", "workloads",
                       "synthetic_trainer.py")
OPTIMUSCTL = os.path.join(TOP, "src", "tools", "optimusctl")
PYTHON_DIR = os.path.join(TOP, "python")

HONEST = "optimus-fair-a"
GAMER = "optimus-fair-b"

# The planner tests' cluster (sched_helpers.CLUSTER_OPTIONS): plans every
# 2 s, resizes allowed 5 s after a start; 4 nodes of 4 GPUs.
CLUSTER_OPTIONS = {
    "cred_expire": 5,
    "optimus_conf": "PlanInterval=2\nMinResizeInterval=5\nRestartCost=2\n",
}
GPUS = 16

# One job of each user: identical, each able to use the whole cluster.
# steps= and the small delta keep it training for the whole measurement.
JOB = ("optimus,mode=allreduce,min_workers=1,max_workers=16,"
       "worker_gpus=1,ckpt_grace=20,steps=1000000,delta=0.00001")
STEPS = 1000000

# The owner's fabricated speeds, run as that user: `n` speed samples of
# job argv[1], `rate` a second (0: as fast as it can), worker counts 1..16
# in turn (no PS), each at `per_worker` x workers steps/s ("slow and
# perfectly scalable") or at `flat` steps/s whatever the workers (a flat
# profile); prints how many the listener took and refused, by reason.
FABRICATOR = r"""
import collections, json, sys, time
import optimus_report as o
job, n, rate, per_worker, flat = (int(sys.argv[1]), int(sys.argv[2]),
                                  float(sys.argv[3]), float(sys.argv[4]),
                                  float(sys.argv[5]))
codes = collections.Counter()
with o.Reporter(job_id=job) as rep:
    for i in range(n):
        w = 1 + i % 16
        sps = flat if flat > 0 else per_worker * w
        try:
            rep.speed(ps=0, workers=w, steps_per_sec=sps)
            codes["ok"] += 1
        except o.ReportError as e:
            codes[e.code] += 1
        if rate > 0:
            time.sleep(1.0 / rate)
print(json.dumps(dict(codes)), flush=True)
"""


def users():
    """The honest and the gaming user (ordinary Unix users)."""
    return unix_user(HONEST).pw_name, unix_user(GAMER).pw_name


def shared_dir(cluster):
    """A folder every user's jobs may write (outputs, checkpoints); the
    cluster's folder opened to every user (optimus.conf, munged's socket),
    as on a real cluster."""
    open_to_every_user(cluster)
    d = os.path.join(cluster.root, "fair")
    os.makedirs(d, exist_ok=True)
    os.chmod(d, 0o1777)
    return d


def as_user(cluster, user, argv, input=None, check=True, timeout=60):
    """argv run as Unix user `user` with the cluster's environment."""
    r = subprocess.run(["runuser", "-u", user, "--"] + argv,
                       env=cluster.env(), input=input, capture_output=True,
                       text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise AssertionError("%s as %s: %s%s" % (" ".join(argv), user,
                                                 r.stdout, r.stderr))
    return r


def trainer_script(steps):
    return ("#!/bin/sh\nexec /usr/bin/python3 %s %d\n" % (TRAINER, steps))


def sbatch_as(cluster, user, name, hints, steps=STEPS, held=False,
              check=True):
    """Submit the synthetic trainer as `user`: the job id, or (check
    False) the CompletedProcess of sbatch."""
    d = shared_dir(cluster)
    hints += ",ckpt_dir=%s" % os.path.join(d, "ckpt-" + name)
    argv = ["sbatch", "--parsable", "--scheduler=" + hints, "-J", name,
            "--open-mode=append", "-D", d,
            "-o", os.path.join(d, name + ".out")] + (["-H"] if held else [])
    r = as_user(cluster, user, argv, input=trainer_script(steps),
                check=check)
    if not check:
        return r
    return int(r.stdout.strip().split(";")[0])


def fabricate(cluster, user, job, n, rate=0.0, per_worker=0.05, flat=0.0,
              wait=True):
    """`n` fabricated speed samples of `job` sent by `user` (FABRICATOR);
    with wait, the listener's answers {code: count}, else the process."""
    env = dict(cluster.env(), PYTHONPATH=PYTHON_DIR)
    env.pop("OPTIMUS_REPORT_ADDR", None)
    p = subprocess.Popen(["runuser", "-u", user, "--", "/usr/bin/python3",
                          "-c", FABRICATOR, str(job), str(n), str(rate),
                          str(per_worker), str(flat)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    if not wait:
        return p
    return finish(p)


def finish(p, timeout=600):
    out, err = p.communicate(timeout=timeout)
    assert p.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def records(cluster):
    """{job id: the planner's status row} (optimusctl as root)."""
    r = subprocess.run([OPTIMUSCTL, "--json", "status"], env=cluster.env(),
                       capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        return {}
    return {j["job_id"]: j for j in json.loads(r.stdout).get("jobs", [])}


def gpus_held(row):
    """GPUs a job's run holds (one per worker) while it runs or
    checkpoints; 0 otherwise."""
    if not row or row["phase"] not in ("running", "checkpointing"):
        return 0
    return row["workers"]


def hold_gpus(cluster, jobs, seconds, interval=1.0):
    """Sample each job's GPUs for `seconds` from now: {job: {"gpu_s": GPU
    seconds, "min": fewest GPUs seen, "max": most, "samples": [...]}}."""
    out = {j: {"gpu_s": 0.0, "min": None, "max": 0, "samples": []}
           for j in jobs}
    end = time.time() + seconds
    last = time.time()
    while True:
        rows = records(cluster)
        now = time.time()
        for j in jobs:
            g = gpus_held(rows.get(j))
            o = out[j]
            o["gpu_s"] += g * (now - last)
            o["min"] = g if o["min"] is None else min(o["min"], g)
            o["max"] = max(o["max"], g)
            o["samples"].append(g)
        last = now
        if now >= end:
            return out
        time.sleep(interval)


def wait_running(cluster, jobs, timeout=120):
    """Wait until each job's run is in its record (phase running)."""
    from waiting import wait_for
    return wait_for(lambda: (lambda rows: all(
        gpus_held(rows.get(j)) > 0 for j in jobs) and rows)(
            records(cluster)), timeout, "jobs %s running" % (jobs,))


def cancel_all(cluster, *jobs):
    """scancel (as root) and wait until the jobs hold no nodes."""
    cluster.run(["scancel"] + [str(j) for j in jobs], check=False)
    for j in jobs:
        try:
            cluster.wait_job_state(j, {"CANCELLED", "COMPLETED", "FAILED"},
                                   timeout=60)
        except Exception:
            pass


def side_by_side(cluster, first, second, seconds):
    """Two jobs, each (user, name, hints), submitted held and released at
    once: what hold_gpus() measured of each over `seconds` from the moment
    both run (the first's, the second's)."""
    a = sbatch_as(cluster, *first, held=True)
    b = sbatch_as(cluster, *second, held=True)
    try:
        cluster.run(["scontrol", "release", "%d,%d" % (a, b)])
        wait_running(cluster, [a, b])
        held = hold_gpus(cluster, [a, b], seconds)
    finally:
        cancel_all(cluster, a, b)
    return held[a], held[b]


def gaming_run(cluster, seconds=60, gaming=True, log=print):
    """The gaming scenario of doc/design/reports.md "Claims and fair shares": one
    job of each user submitted held; the gaming user's job sends 160
    fabricated speed samples while held, both are released at once, and
    160 more are sent while they run (4 a second). Returns {"honest":
    {...}, "gaming": {...}} as hold_gpus() measured them over `seconds`
    from the moment both run, with the listener's answers to the
    fabricator."""
    honest_user, gamer_user = users()
    a = sbatch_as(cluster, honest_user, "honest", JOB, held=True)
    b = sbatch_as(cluster, gamer_user, "gaming" if gaming else "honest2",
                  JOB, held=True)
    try:
        pending = fabricate(cluster, gamer_user, b, 160) if gaming else {}
        cluster.run(["scontrol", "release", "%d,%d" % (a, b)])
        wait_running(cluster, [a, b])
        p = fabricate(cluster, gamer_user, b, 160, rate=4.0, wait=False) \
            if gaming else None
        held = hold_gpus(cluster, [a, b], seconds)
        running = finish(p) if p else {}
    finally:
        cancel_all(cluster, a, b)
    log("fabricated samples while held: %s; while running: %s"
        % (pending, running))
    return {"honest": dict(held[a], job=a),
            "gaming": dict(held[b], job=b),
            "answers": {"held": pending, "running": running}}

# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Fair shares between users, and reports and declarations that cannot buy
GPUs, on a real cluster of 16 GPUs with two ordinary users (doc/design/reports.md
"Claims and fair shares", sched_optimus(8) "Fair shares").

- A job whose owner sends fabricated speed samples (slow and perfectly
  scalable, some while it is held) holds no GPU of the other user's fair
  share: the honest job keeps at least 8 of the 16 throughout.
- A speed sample is a claim: one for a configuration the job does not run,
  one far from the steps the job reports over wall time, one while the job
  waits, and more than a trainer sends a second are refused; none reaches
  the job's model.
- A model= profile is the user's own: another user's samples (a held job
  cancelled after 800 flat ones) never size this user's job; an
  administrator may publish one (PublishProfiles=).
- weight= above MaxUserWeight and ckpt_grace above MaxCkptGrace need an
  administrator, as --nice below 0 does; and an administrator's weight=1000
  job still leaves the other user their fair share.
"""
import json
import os
import re
import subprocess
import time

from fair_helpers import (CLUSTER_OPTIONS, GPUS, JOB, OPTIMUSCTL,  # noqa
                          cancel_all, fabricate, gaming_run, records,
                          sbatch_as, side_by_side, users, wait_running)
from sched_helpers import write_optimus_conf
from waiting import wait_for, wait_plans

FAIR = GPUS // 2


def show_job(cluster, jid):
    r = subprocess.run([OPTIMUSCTL, "--json", "show", "job", str(jid)],
                       env=cluster.env(), capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def samples(cluster, jid):
    """The job model's speed samples: {(ps, workers): (mean, count)}."""
    s = show_job(cluster, jid)["speed"]["samples"]
    return {(int(p), int(w)): (mean, int(n)) for p, w, mean, n in s}


def reconfigure(cluster, text):
    """optimus.conf rewritten (the cluster's own keys kept) and `scontrol
    reconfigure`; waits until slurmctld has read it."""
    mark = len(cluster.logs())
    write_optimus_conf(cluster, "ReportPort=%d\n%s%s" % (
        cluster.ports["report"], CLUSTER_OPTIONS["optimus_conf"], text))
    cluster.run(["scontrol", "reconfigure"])
    wait_for(lambda: "sched/optimus: read " in cluster.logs()[mark:], 60,
             "optimus.conf read again")


def test_fabricated_speeds_do_not_take_the_other_users_share(cluster):
    r = gaming_run(cluster, seconds=60)
    h, g = r["honest"], r["gaming"]
    print("honest job %d: %.0f GPU-s, %s..%s GPUs; gaming job %d: %.0f GPU-s,"
          " %s..%s GPUs" % (h["job"], h["gpu_s"], h["min"], h["max"],
                           g["job"], g["gpu_s"], g["min"], g["max"]))
    assert h["min"] >= FAIR, (h, g)


def test_speed_claims_are_checked(cluster):
    honest_user, gamer_user = users()
    fixed = JOB.replace("min_workers=1,max_workers=16",
                        "min_workers=2,max_workers=2")
    jid = sbatch_as(cluster, gamer_user, "claims", fixed)
    held = sbatch_as(cluster, gamer_user, "claims-held", fixed, held=True)
    try:
        wait_running(cluster, [jid])
        wait_for(lambda: records(cluster)[jid]["reports"] >= 8, 90,
                 "8 progress reports")
        before = samples(cluster, jid)
        own = before[(1, 2)]
        # a configuration the job does not run, and its own one far below
        # the steps it reports over wall time
        fabricate(cluster, gamer_user, jid, 32, per_worker=0.005)
        fabricate(cluster, gamer_user, held, 16)
        wait_plans(cluster, 2)
        after = samples(cluster, jid)
        assert set(after) == {(1, 2)}, after
        mean, count = after[(1, 2)]
        assert abs(mean - own[0]) < 0.5 * own[0], (own, after[(1, 2)])
        # the held job's model took none
        assert not samples(cluster, held), samples(cluster, held)
        # a flood of plausible claims at its own configuration: at most
        # what a trainer sends a second gets in
        n0, r0, t0 = count, records(cluster)[jid]["reports"], time.time()
        p = subprocess.Popen(
            ["runuser", "-u", gamer_user, "--", "/usr/bin/python3", "-c",
             "import sys, optimus_report as o\n"
             "with o.Reporter(job_id=%d) as r:\n"
             "    for i in range(200):\n"
             "        r.speed(ps=0, workers=2, steps_per_sec=%g)\n"
             % (jid, own[0])],
            env=dict(cluster.env(), PYTHONPATH=os.path.join(
                os.path.dirname(OPTIMUSCTL), "..", "..", "python")),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert p.wait(timeout=300) == 0, p.stderr.read()
        wait_plans(cluster, 2)
        mean, count = samples(cluster, jid)[(1, 2)]
        elapsed = time.time() - t0
        progress = records(cluster)[jid]["reports"] - r0
        taken = count - n0 - progress
        print("flood: %d claims taken in %.0f s (%d progress samples)"
              % (taken, elapsed, progress))
        assert taken <= elapsed + 8, (taken, elapsed, progress)
        log = cluster.logs()
        assert re.search(r"JobId=%d: speed report refused: " % jid, log)
        assert re.search(r"JobId=%d: speed report refused: .*not running"
                         % held, log)
    finally:
        cancel_all(cluster, jid, held)


def first_size(cluster, user, name, hints):
    """The workers a job of `user` starts with on the empty cluster, and
    its record's summary then."""
    jid = sbatch_as(cluster, user, name, hints)
    try:
        wait_running(cluster, [jid])
        row = records(cluster)[jid]
        return row["workers"], row["summary"]
    finally:
        cancel_all(cluster, jid)


def test_another_users_profile_does_not_size_my_job(cluster):
    honest_user, gamer_user = users()
    # the size of a job of a model name nobody used
    alone, _ = first_size(cluster, honest_user, "control",
                          JOB + ",model=unusednet")
    poison = sbatch_as(cluster, gamer_user, "poison", JOB +
                       ",model=sharednet", held=True)
    try:
        fabricate(cluster, gamer_user, poison, 800, flat=1.0)
    finally:
        cancel_all(cluster, poison)
    wait_plans(cluster, 2)
    workers, summary = first_size(cluster, honest_user, "victim",
                                  JOB + ",model=sharednet")
    print("victim: %d workers (unused name: %d), %s" % (workers, alone,
                                                         summary))
    assert workers == alone, summary
    assert "model=profile" not in summary, summary


def test_published_profile_sizes_every_users_job(cluster):
    """An administrator's published profile (PublishProfiles=NAME@USER) is
    read by every user's job of that model; the owner's own jobs fed it."""
    honest_user, gamer_user = users()
    # The feeder runs at the size the held reader's summary is evaluated
    # at (1 worker on 1 node): a profile fitted from one other size is
    # underdetermined there (from 4 workers alone the fit put all step time
    # on the all-reduce ring term, which is 0 at 1 worker, and the reader
    # fell back to the prior whenever the other jobs left the feeder 4).
    feeder = sbatch_as(cluster, "root", "feeder", JOB.replace(
        "steps=1000000", "steps=40").replace("max_workers=16",
                                             "max_workers=1") +
        ",model=pubnet", steps=40)
    try:
        cluster.wait_job_state(feeder, {"COMPLETED"}, timeout=240)
    finally:
        cancel_all(cluster, feeder)
    other = sbatch_as(cluster, honest_user, "reader", JOB + ",model=pubnet",
                      held=True)
    try:
        wait_plans(cluster, 2)
        assert "model=profile" not in records(cluster)[other]["summary"]
        reconfigure(cluster, "PublishProfiles=pubnet@root\n")
        wait_for(lambda: "model=profile" in records(cluster)[other]["summary"],
                 30, "the published profile in the job's summary")
        # The profiles are kept across a restart of slurmctld (under
        # Slurm 24.11 every `scontrol reconfigure` is one).
        cluster.restart_slurmctld()
        wait_for(lambda: "model=profile" in records(cluster).get(
            other, {}).get("summary", ""), 60,
            "the published profile after slurmctld restarted")
    finally:
        cancel_all(cluster, other)
        reconfigure(cluster, "")


def test_weight_and_grace_above_the_site_bounds_need_an_admin(cluster):
    honest_user, _ = users()
    quality = "quality,min_workers=1,max_workers=2,worker_gpus=1"
    r = sbatch_as(cluster, honest_user, "heavy", quality + ",weight=1000",
                  held=True, check=False)
    assert r.returncode != 0, r.stdout
    assert "weight=1000 is above this site's MaxUserWeight=1" in r.stderr, \
        r.stderr
    r = sbatch_as(cluster, honest_user, "grace", JOB.replace(
        "ckpt_grace=20", "ckpt_grace=3600"), held=True, check=False)
    assert r.returncode != 0, r.stdout
    assert "ckpt_grace=3600 is above this site's MaxCkptGrace=300" in \
        r.stderr, r.stderr
    # lowering one's own weight is anyone's right; root may raise it
    light = sbatch_as(cluster, honest_user, "light", quality + ",weight=0.5",
                      held=True)
    heavy = sbatch_as(cluster, "root", "heavy-root", quality +
                      ",weight=1000", held=True)
    cancel_all(cluster, light, heavy)
    # the site may raise the bounds
    reconfigure(cluster, "MaxUserWeight=1000\nMaxCkptGrace=3600\n")
    try:
        ok = sbatch_as(cluster, honest_user, "heavy-ok", quality +
                       ",weight=1000", held=True)
        cancel_all(cluster, ok)
    finally:
        reconfigure(cluster, "")


def test_declared_weight_does_not_take_the_other_users_share(cluster):
    """quality jobs: an administrator's weight=1000 against a user's
    weight=1 (Algorithm 1 alone gives the heavy one 12 of the 16 GPUs:
    test_fair.c)."""
    honest_user, _ = users()
    quality = JOB.replace("optimus,", "quality,")
    light, heavy = side_by_side(
        cluster, (honest_user, "q-user", quality),
        ("root", "q-admin", quality + ",weight=1000"), 30)
    print("weight=1 job: %s..%s GPUs; weight=1000 job: %s..%s GPUs"
          % (light["min"], light["max"], heavy["min"], heavy["max"]))
    assert light["min"] >= FAIR, (light, heavy)

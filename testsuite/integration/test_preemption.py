# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Preemption on a real cluster: the plan's PLAN_PREEMPT carried
out by sched/optimus. A running job that can checkpoint holds every GPU; a
newcomer arrives; the running job is sent its checkpoint signal, requeued
and held at optimus' gate (Slurm's restart count 1, its SystemComment and
slurmctld.log say it was preempted for the newcomer), the newcomer starts,
and the preempted job is planned again as an ordinary pending job: it
resumes from its checkpointed step, not from 0, and completes. Nothing
fails, nothing is cancelled, sacct has both. A preempted job its user holds
stays held until released.

Never preempted: a job that cannot checkpoint (it never confirmed one),
and any job under Preempt=no (applied by `scontrol reconfigure`, as is
Preempt=yes again). A bad value is refused, naming the key.

Cluster: 2 nodes of 4 CPUs and 2 GPUs. The jobs are the synthetic trainer
(sched_helpers), one PS and fixed workers of one GPU each: the first
cannot shrink (min = max workers), so only a preemption frees its GPUs.
Parameters chosen before any run: Policy=goodput (Preempt's default is
yes there), MinResizeInterval=15 s (a job runs at least that long before
the plan may preempt it), RestartCost=2 s.
"""
import os
import re
import time

from sched_helpers import (OPTIMUSCTL, cancel, optimusctl, runs, submit,
                           trainer_lines, wait_progress, write_optimus_conf)
from waiting import wait_for, wait_plans

MIN_RESIZE_INTERVAL = 15
CLUSTER_OPTIONS = {
    "nodes": 2, "cpus": 4, "gpus": 2, "cred_expire": 5,
    "optimus_conf": "Policy=goodput\nPlanInterval=2\n"
                    "MinResizeInterval=%d\nRestartCost=2\n"
                    % MIN_RESIZE_INTERVAL,
}

# Every GPU of the cluster (2 x 2): one PS, four one-GPU workers.
HOLDS_ALL = ("optimus,min_ps=1,max_ps=1,min_workers=4,max_workers=4,"
             "worker_gpus=1,ckpt_grace=30,delta=0.00001")
NEWCOMER = ("optimus,min_ps=1,max_ps=1,min_workers=2,max_workers=2,"
            "worker_gpus=1,ckpt_grace=30")

def sacct_states(cluster, *jobs):
    """{job id: [states of its runs]} from slurmdbd (requeued runs too)."""
    r = cluster.run(["sacct", "-n", "-X", "-P", "--duplicates", "-j",
                     ",".join(str(j) for j in jobs), "-o", "JobID,State"],
                    check=False)
    found = {}
    for line in r.stdout.splitlines():
        jid, _, state = line.partition("|")
        if jid.isdigit():
            found.setdefault(int(jid), []).append(state.split()[0])
    return found


def preemptions_metric(cluster):
    """optimus_preemptions_total of `optimusctl metrics`, None if absent."""
    r = cluster.run([OPTIMUSCTL, "metrics"], check=False)
    m = re.search(r"(?m)^optimus_preemptions_total (\S+)$", r.stdout)
    return float(m.group(1)) if m else None


def preempted_in_log(cluster, victim, since=0):
    """The info line of a preemption of `victim`, naming both jobs."""
    m = re.search(r"sched/optimus: JobId=%d preempted for JobId=(\d+)[^\n]*"
                  % victim, cluster.logs()[since:])
    return m


def reconfigure(cluster, text, logged=r"sched/optimus: read "):
    """Write optimus.conf and `scontrol reconfigure`; wait until slurmctld
    logs `logged` (on 23.11 and later the reconfigure restarts it).
    Returns where the log stood before."""
    mark = len(cluster.logs())
    write_optimus_conf(cluster, text)
    cluster.run(["scontrol", "reconfigure"])
    wait_for(lambda: re.search(logged, cluster.logs()[mark:]), 60,
             "slurmctld.log: " + logged)
    return mark


def config_or_none(cluster):
    """`optimusctl show config`, None while the listener is not up (23.11
    and later restart slurmctld for a reconfigure)."""
    try:
        return optimusctl(cluster, "show", "config")
    except Exception:
        return None


def test_preempted_job_resumes_from_its_checkpoint_and_completes(
        accounting_cluster, tmp_path):
    c = accounting_cluster
    big, big_out = submit(c, tmp_path, "holds-all", HOLDS_ALL + ",steps=60",
                          60)
    small = None
    try:
        c.wait_job_state(big, {"RUNNING"}, timeout=60)
        first = wait_for(lambda: runs(big_out), 30, "the first run")[0]
        assert first["workers"] == 4, first
        wait_progress(c, big, 3)
        before = preemptions_metric(c) or 0
        small, _ = submit(c, tmp_path, "newcomer", NEWCOMER + ",steps=12", 12)

        # checkpointed and requeued for the newcomer, which starts
        line = wait_for(lambda: preempted_in_log(c, big), 90,
                        "the preemption of the first job")
        assert int(line.group(1)) == small, line.group(0)
        c.wait_job_state(small, {"RUNNING", "COMPLETED"}, timeout=60)
        f = wait_for(lambda: (lambda f: f["Restarts"] == "1" and f)(
            c.job_fields(big)), 30, "Slurm's restart count 1")
        assert f["JobState"] == "PENDING", f
        # the next plan's comment: pending, and the record's count
        wait_for(lambda: re.search(r" preempted=1\b.* waiting: ",
                                   c.job_fields(big)["SystemComment"]), 15,
                 "preempted=1 in the pending job's SystemComment")
        assert optimusctl(c, "show", "job", str(big))["preemptions"] == 1
        assert re.search(r"JobId=%d: checkpoint of step \d+ confirmed" % big,
                         c.logs())
        assert preemptions_metric(c) == before + 1

        # the user holds it: it stays held once the newcomer is done
        c.run(["scontrol", "uhold", str(big)])
        c.wait_job_state(small, {"COMPLETED"}, timeout=120)
        since = time.time()
        wait_plans(c, 4, since=since)
        f = c.job_fields(big)
        assert f["JobState"] == "PENDING" and f["Reason"] == "JobHeldUser", f
        assert len(runs(big_out)) == 1

        # released: it resumes from its checkpoint and completes
        c.run(["scontrol", "release", str(big)])
        second = wait_for(lambda: runs(big_out)[1:2], 120,
                          "the run after the preemption")[0]
        assert second["restart"] == 1, second
        assert second["resumed_from"] > 0, second
        assert second["resumed_from"] >= first["resumed_from"]
        c.wait_job_state(big, {"COMPLETED"}, timeout=180)
        assert "preempted" in c.job_fields(big)["SystemComment"]

        # sacct: both, every run ended as planned (the preempted run
        # REQUEUED), none FAILED or CANCELLED
        states = wait_for(lambda: (lambda s: s.get(big, [None])[-1] ==
                                   "COMPLETED" and s.get(small) and s)(
            sacct_states(c, big, small)), 60, "both jobs in sacct")
        assert states[small] == ["COMPLETED"], states
        assert set(states[big]) <= {"REQUEUED", "COMPLETED"}, states
    finally:
        cancel(c, big, *([small] if small else []))


def test_preempted_job_says_for_whom_at_its_checkpoints_step(
        accounting_cluster, tmp_path):
    """The owner of a preempted job sees, while it waits (its
    SystemComment rewritten by every plan) and in `optimusctl show job`,
    the job it was preempted for and the rule that chose it; the step
    shown while it is paused is its checkpoint's. The trainer goes quiet
    after 3 reports, so its checkpoint holds more steps than it reported:
    the last report's step would be the wrong one."""
    c = accounting_cluster
    big, big_out = submit(c, tmp_path, "quiet-holder",
                          HOLDS_ALL + ",steps=100000", 100000,
                          run0_reports=3)
    small = None
    try:
        c.wait_job_state(big, {"RUNNING"}, timeout=60)
        wait_progress(c, big, 3)
        small, _ = submit(c, tmp_path, "for-whom",
                          NEWCOMER + ",steps=100000", 100000)
        wait_for(lambda: preempted_in_log(c, big), 90,
                 "the preemption of the first job")
        ckpt = wait_for(lambda: [l for l in trainer_lines(big_out)
                                 if "checkpoint" in l], 60,
                        "the checkpoint of the preemption")[-1]
        c.wait_job_state(small, {"RUNNING"}, timeout=60)
        # pending, and planned again since (the comment says "waiting")
        wait_for(lambda: (lambda f: f["JobState"] == "PENDING" and
                          " waiting: " in f["SystemComment"])(
            c.job_fields(big)), 60, "the preempted job planned as pending")
        wait_plans(c, 2)
        comment = c.job_fields(big)["SystemComment"]
        why = re.compile(r"last stop: preempted for JobId=%d \(preemption "
                         r"with aging" % small)
        assert why.search(comment), comment
        step = re.search(r" step=(\d+) ", comment)
        assert step and int(step.group(1)) == int(ckpt["checkpoint"]), \
            (ckpt, comment)
        shown = c.run([OPTIMUSCTL, "show", "job", str(big)]).stdout
        assert why.search(shown), shown
        assert optimusctl(c, "show", "job", str(big))["stopped_for"] == small
    finally:
        cancel(c, big, *([small] if small else []))


def test_preempted_restart_is_not_a_free_restart(accounting_cluster,
                                                 tmp_path):
    """The plan weighs every resize against the mean restart it measured.
    A preempted job's restart is counted as a restart, but its time (the
    wait for the newcomer, then its start) was never timed as one: the mean
    would take it as a restart that cost nothing (the replay bench's
    imagenet-13, preempted twice for NCF jobs, would record 10 s over 4
    restarts of 7.3 s each, and NCF re-batches be weighed against that).
    With no resize timed, the plan keeps RestartCost (2 s
    here), not 0 s."""
    c = accounting_cluster
    big, big_out = submit(c, tmp_path, "holds-all-2", HOLDS_ALL + ",steps=60",
                          60)
    small = None
    try:
        c.wait_job_state(big, {"RUNNING"}, timeout=60)
        wait_progress(c, big, 3)
        small, _ = submit(c, tmp_path, "newcomer-2", NEWCOMER + ",steps=6", 6)
        wait_for(lambda: preempted_in_log(c, big), 90,
                 "the preemption of the first job")
        wait_for(lambda: runs(big_out)[1:2], 180,
                 "the run after the preemption")
        wait_for(lambda: (lambda j: j["restarts"] == 1 and
                          j["restart_from"] == 0 and j)(
            optimusctl(c, "show", "job", str(big))), 60,
            "the restart in the record")
        since = time.time()
        wait_plans(c, 2, since=since)
        plan = optimusctl(c, "plan")
        assert plan["restart_cost"] == 2, plan["restart_cost"]
    finally:
        cancel(c, big, *([small] if small else []))


def test_job_that_cannot_checkpoint_is_never_preempted(accounting_cluster,
                                                        tmp_path):
    c = accounting_cluster
    # a batch script that never declares a checkpoint: the signal would
    # kill it, so the plan must leave it running
    big = c.sbatch(["--scheduler=" + HOLDS_ALL, "-J", "no-ckpt", "-o",
                    str(tmp_path / "no-ckpt.out")], "#!/bin/sh\nsleep 300\n")
    small = None
    try:
        c.wait_job_state(big, {"RUNNING"}, timeout=60)
        small, _ = submit(c, tmp_path, "newcomer2", NEWCOMER + ",steps=12",
                          12)
        # past the minimum interval, and then the plans that could preempt
        since = time.time() + MIN_RESIZE_INTERVAL
        wait_plans(c, 6, since=since)
        f = c.job_fields(big)
        assert f["JobState"] == "RUNNING" and f["Restarts"] == "0", f
        assert c.job_fields(small)["JobState"] == "PENDING"
        assert not preempted_in_log(c, big)
        assert not re.search(r"JobId=%d: checkpoint signal" % big, c.logs())
    finally:
        cancel(c, big, *([small] if small else []))


def test_preempt_no_lets_the_newcomer_wait_until_reconfigured(
        accounting_cluster, tmp_path):
    c = accounting_cluster
    path = os.path.join(c.etc, "optimus.conf")
    conf = open(path).read()
    big = small = None
    try:
        # a bad value: refused, naming the key; the values in force stay
        reconfigure(c, conf + "Preempt=maybe\n",
                    r'"maybe" is not a valid option for "Preempt"')
        shown = wait_for(lambda: config_or_none(c), 30,
                         "the configuration in force")
        assert shown["Preempt"] == "yes", shown      # goodput's default

        reconfigure(c, conf + "Preempt=no\n")
        shown = wait_for(lambda: config_or_none(c), 30,
                         "the configuration in force")
        assert shown["Preempt"] == "no", shown
        big, big_out = submit(c, tmp_path, "keeps", HOLDS_ALL +
                              ",steps=100000", 100000)
        c.wait_job_state(big, {"RUNNING"}, timeout=60)
        wait_progress(c, big, 3)
        small, _ = submit(c, tmp_path, "waits", NEWCOMER + ",steps=12", 12)
        since = time.time() + MIN_RESIZE_INTERVAL
        wait_plans(c, 6, since=since)
        assert c.job_fields(big)["Restarts"] == "0"
        assert c.job_fields(small)["JobState"] == "PENDING"
        assert not preempted_in_log(c, big)

        # Preempt=yes again: the next plans preempt it for the newcomer
        mark = reconfigure(c, conf + "Preempt=yes\n")
        line = wait_for(lambda: preempted_in_log(c, big, mark), 90,
                        "the preemption once Preempt=yes")
        assert int(line.group(1)) == small, line.group(0)
        c.wait_job_state(small, {"RUNNING", "COMPLETED"}, timeout=60)
    finally:
        write_optimus_conf(c, conf)
        c.run(["scontrol", "reconfigure"], check=False)
        cancel(c, *[j for j in (big, small) if j])

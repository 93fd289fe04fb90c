# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Slurm's promises kept under sched/optimus on a real cluster.

Holds, dependencies, begin times, `scontrol top` and `--nice` keep their
meaning for optimus jobs; losing the state file resizes nobody.
"""
import json
import os
import re
import time

import pytest

import sched_helpers as sched
from sched_helpers import (MIN_RESIZE_INTERVAL, OPTIMUS_REPORT, TRAINER,
                           cancel, optimusctl, plan_of, runs, squeezed,
                           submit, wait_progress)
from waiting import wait_for, wait_plans

# The cluster fixture reads the module's CLUSTER_OPTIONS.
CLUSTER_OPTIONS = sched.CLUSTER_OPTIONS
# Enough plans for any wrong start or resize (8 s at PlanInterval=2).
SEVERAL_PLANS = 4


def blocker(cluster, nodes=4, seconds=300):
    jid = cluster.sbatch(["-N%d" % nodes, "--exclusive", "-o", "/dev/null"],
                         "#!/bin/sh\nsleep %d\n" % seconds)
    cluster.wait_job_state(jid, {"RUNNING"})
    return jid


def wait_waiting(cluster, jid):
    """Wait until the planner has planned jid as waiting."""
    wait_for(lambda: " waiting: " in cluster.job_fields(jid).get(
        "SystemComment", ""), 30, "a plan for the waiting job %d" % jid)


def state_reason(cluster, jid):
    f = cluster.job_fields(jid)
    return f["JobState"], f["Reason"]


def held_while_room_frees(cluster, tmp_path, name, hold):
    """An optimus job waiting behind a blocker, then held with
    `scontrol HOLD`: its id."""
    jid, _ = submit(cluster, tmp_path, name, "optimus,max_workers=2", 30)
    wait_waiting(cluster, jid)
    cluster.run(["scontrol", hold, str(jid)])
    return jid


def check_held_while_room_frees(cluster, jid, block, reason):
    """The blocker ends: the job stays held, with Slurm's own reason, for
    several plans."""
    cancel(cluster, block)
    wait_plans(cluster, SEVERAL_PLANS)
    assert state_reason(cluster, jid) == ("PENDING", reason)
    assert "release hold on JobId=%d" % jid not in cluster.logs()


def released_and_planned(cluster, jid):
    cluster.run(["scontrol", "release", str(jid)])
    cluster.wait_job_state(jid, {"RUNNING", "COMPLETED"}, timeout=60)
    assert plan_of(cluster.job_fields(jid)), cluster.job_fields(jid)


def test_user_hold_is_kept_until_release(cluster, tmp_path):
    block = blocker(cluster)
    jid = None
    try:
        jid = held_while_room_frees(cluster, tmp_path, "uheld", "uhold")
        check_held_while_room_frees(cluster, jid, block, "JobHeldUser")
        released_and_planned(cluster, jid)
    finally:
        cancel(cluster, block, *([jid] if jid else []))


def test_sbatch_hold_is_kept(cluster, tmp_path):
    out = str(tmp_path / "sbatch-hold.out")
    jid = cluster.sbatch(["--hold", "--scheduler=optimus,workers=1", "-o",
                          out], "#!/bin/sh\nsleep 1\n")
    try:
        wait_plans(cluster, SEVERAL_PLANS)
        assert state_reason(cluster, jid) == ("PENDING", "JobHeldUser")
        released_and_planned(cluster, jid)
    finally:
        cancel(cluster, jid)


def test_hold_of_a_waiting_job_survives_free_room(cluster, tmp_path):
    block = blocker(cluster)
    jid = None
    try:
        jid = held_while_room_frees(cluster, tmp_path, "waiting", "hold")
        check_held_while_room_frees(cluster, jid, block, "JobHeldAdmin")
        # hold -> uhold -> release round trip
        cluster.run(["scontrol", "uhold", str(jid)])
        wait_plans(cluster, 2)
        assert state_reason(cluster, jid) == ("PENDING", "JobHeldUser")
        released_and_planned(cluster, jid)
    finally:
        cancel(cluster, block, *([jid] if jid else []))


def test_dependency_and_begin_time_are_kept(cluster, tmp_path):
    first = cluster.sbatch(["-n1", "-o", "/dev/null"], "#!/bin/sh\nsleep 12\n")
    out = str(tmp_path / "dep.out")
    dep = cluster.sbatch(["--dependency=afterok:%d" % first,
                          "--scheduler=optimus,max_workers=2", "-o", out],
                         "#!/bin/sh\nsleep 1\n")
    begin_at = time.time() + 15     # sbatch reads "now" a little later
    late = cluster.sbatch(["--begin=now+15", "--scheduler=optimus,max_workers=2",
                           "-o", out], "#!/bin/sh\nsleep 1\n")
    try:
        wait_plans(cluster, SEVERAL_PLANS)
        assert state_reason(cluster, dep) == ("PENDING", "Dependency")
        assert cluster.job_fields(late)["JobState"] == "PENDING"
        cluster.wait_job_state(first, {"COMPLETED"}, timeout=60)
        cluster.wait_job_state(dep, {"RUNNING", "COMPLETED"}, timeout=60)
        cluster.wait_job_state(late, {"RUNNING", "COMPLETED"}, timeout=60)
        started = cluster.job_fields(late)["StartTime"]
        assert time.mktime(time.strptime(started, "%Y-%m-%dT%H:%M:%S")) \
            >= int(begin_at)
    finally:
        cancel(cluster, first, dep, late)


def test_top_and_nice_keep_their_meaning(cluster, tmp_path):
    block = blocker(cluster)
    jobs = []
    try:
        for nice in (0, 100):
            jobs.append(cluster.sbatch(
                ["--nice=%d" % nice, "--scheduler=optimus,max_workers=2",
                 "-o", "/dev/null"], "#!/bin/sh\nsleep 1\n"))
        for j in jobs:          # behind optimus' gate, as top finds them
            wait_waiting(cluster, j)
        prio = [int(cluster.job_fields(j)["Priority"]) for j in jobs]
        assert prio[0] > prio[1] > 0, prio
        r = cluster.run(["scontrol", "top", str(jobs[1])], check=False)
        assert r.returncode == 0, r.stderr
    finally:
        cancel(cluster, block, *jobs)


def _corrupt(path, how):
    if how == "deleted":
        os.unlink(path)
    elif how == "directory":
        os.unlink(path)
        os.mkdir(path)
    else:
        data = open(path, "rb").read()
        text = {"garbage": b'{"format": 1, "jobs": [ {"job_id": "x"',
                "truncated": data[:len(data) // 2],
                "empty": b"",
                "binary": bytes(range(256)) * 4}[how]
        with open(path, "wb") as f:
            f.write(text)


@pytest.mark.parametrize("how", ["garbage", "truncated", "empty", "binary",
                                 "directory", "deleted"])
def test_lost_state_file_resizes_nobody(cluster, tmp_path, how):
    path = os.path.join(cluster.state_dir, "optimus_state.json")
    jid, _ = submit(cluster, tmp_path, "adopted-" + how,
                    "optimus,max_ps=2,max_workers=6", 600)
    try:
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
        wait_for(lambda: plan_of(cluster.job_fields(jid)), 15, "a plan")
        nodes = cluster.job_fields(jid)["NodeList"]
        cluster._kill("slurmctld", timeout=30)
        _corrupt(path, how)
        mark = len(cluster.logs("slurmctld"))
        cluster._start_slurmctld(clean=False)
        # plans made once MinResizeInterval has passed since the restart
        wait_plans(cluster, SEVERAL_PLANS,
                   since=time.time() + MIN_RESIZE_INTERVAL)
        log = cluster.logs("slurmctld")[mark:]
        assert not re.search(r"JobId=%d: checkpoint signal" % jid, log), log
        f = cluster.job_fields(jid)
        assert f["JobState"] == "RUNNING" and f["Restarts"] == "0"
        assert f["NodeList"] == nodes
    finally:
        cancel(cluster, jid)
        if how == "directory" and os.path.isdir(path):
            os.rmdir(path)


def test_restart_restores_extreme_but_accepted_values(cluster, tmp_path):
    report = OPTIMUS_REPORT
    # Silent jobs: only the test's reports set their step.
    jobs = [cluster.sbatch(["--scheduler=optimus,max_workers=2", "-o",
                            "/dev/null"], "#!/bin/sh\nsleep 300\n")
            for _ in range(2)]
    try:
        step = 2 ** 50           # the largest step a report accepts
        for jid in jobs:
            cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
            cluster.run([report, "progress", "--job", str(jid), "--step",
                         str(step), "--loss", "0.5"])
        wait_for(lambda: all(optimusctl(cluster, "show", "job", str(j))
                             .get("step") == step for j in jobs), 20,
                 "the reports in the model")
        mark = len(cluster.logs("slurmctld"))
        cluster.restart_slurmctld()
        log = cluster.logs("slurmctld")[mark:]
        assert "cannot parse state file" not in log, log
        assert "recovered model state" in log
        for jid in jobs:
            assert optimusctl(cluster, "show", "job", str(jid))["step"] == step
    finally:
        cancel(cluster, *jobs)


def test_job_without_a_trap_is_never_killed_by_a_resize(cluster, tmp_path):
    # No trap, no reporter: the checkpoint signal would kill its shell.
    plain = cluster.sbatch(["--scheduler=optimus,max_ps=8,max_workers=24",
                            "-o", "/dev/null"], "#!/bin/sh\nsleep 45\n")
    newcomer = None
    try:
        cluster.wait_job_state(plain, {"RUNNING"}, timeout=60)
        newcomer, _ = submit(cluster, tmp_path, "room-please",
                             "optimus,max_ps=2,max_workers=6", 20)
        # plans made once MinResizeInterval has passed
        wait_plans(cluster, SEVERAL_PLANS,
                   since=time.time() + MIN_RESIZE_INTERVAL)
        f = cluster.job_fields(plain)
        assert f["JobState"] == "RUNNING", f
        assert "resizable=no: never confirmed a checkpoint" in \
            f["SystemComment"], f["SystemComment"]
        assert not re.search(r"JobId=%d: checkpoint signal" % plain,
                             cluster.logs())
        cluster.wait_job_state(plain, {"COMPLETED"}, timeout=90)
        assert cluster.job_fields(plain)["ExitCode"] == "0:0"
        cluster.wait_job_state(newcomer, {"RUNNING", "COMPLETED"}, timeout=90)
    finally:
        cancel(cluster, plain, *([newcomer] if newcomer else []))


def restarting_from_zero_script():
    """Declares a checkpoint at start, reports progress, ignores the
    checkpoint signal: every run starts again from step 0."""
    report = OPTIMUS_REPORT
    return ("#!/bin/sh\ntrap '' USR1\n"
            "%s checkpoint --step 0\n"
            "i=0\nwhile [ $i -lt 300 ]; do i=$((i+1));"
            " %s progress --step $((i*10)) --loss 0.5; sleep 1; done\n"
            % (report, report))


def test_job_resuming_below_its_step_is_never_resized_again(cluster,
                                                            tmp_path):
    stubborn = cluster.sbatch(
        ["--scheduler=optimus,max_ps=8,max_workers=24,ckpt_grace=12",
         "--open-mode=append", "-o", str(tmp_path / "stubborn.out")],
        restarting_from_zero_script())
    other = None
    try:
        cluster.wait_job_state(stubborn, {"RUNNING"}, timeout=60)
        wait_progress(cluster, stubborn, 4)             # some progress
        other, _ = submit(cluster, tmp_path, "other",
                          "optimus,max_ps=2,max_workers=6", 30)
        signalled = "JobId=%d: checkpoint signal" % stubborn
        wait_for(lambda: signalled in cluster.logs(), 60, "the signal")
        # Within the grace (12 s): plans made after the signal, none of
        # which may restart a job that never confirmed its checkpoint.
        wait_plans(cluster, 2)
        assert "restarts=0" in cluster.job_fields(stubborn)["SystemComment"]
        wait_for(lambda: cluster.job_fields(stubborn)["Restarts"] == "1",
                 60, "the requeue after the grace period")
        wait_for(lambda: "resizable=no: resumed below" in
                 cluster.job_fields(stubborn)["SystemComment"], 60,
                 "the job marked not resumable")
        f = cluster.job_fields(stubborn)
        assert "restarts=1" in f["SystemComment"], f["SystemComment"]
        mark = len(cluster.logs())
        cancel(cluster, other)
        # room again: plans made once MinResizeInterval has passed
        wait_plans(cluster, SEVERAL_PLANS,
                   since=time.time() + MIN_RESIZE_INTERVAL)
        assert signalled not in cluster.logs()[mark:]
        assert cluster.job_fields(stubborn)["Restarts"] == "1"
    finally:
        cancel(cluster, stubborn, *([other] if other else []))


def _grows_into_idle_room(cluster, tmp_path, hints, name):
    """Start a job of `hints` (1 PS + 1 worker at first) while the cluster is
    full, let it report for a while, free the other nodes: it must restart
    larger, from its checkpoint."""
    blockers = [cluster.sbatch(["-w", "n1", "-n", "6", "-o", "/dev/null"],
                               "#!/bin/sh\nsleep 300\n"),
                cluster.sbatch(["-w", "n[2-4]", "-N3", "--exclusive", "-o",
                                "/dev/null"], "#!/bin/sh\nsleep 300\n")]
    out = str(tmp_path / (name + ".out"))
    jid = None
    try:
        for b in blockers:
            cluster.wait_job_state(b, {"RUNNING"})
        jid = cluster.sbatch(
            ["--scheduler=%s,ckpt_dir=%s" % (hints, tmp_path / "ckpt"),
             "--open-mode=append", "-o", out],
            "#!/bin/sh\nexec /usr/bin/python3 %s 20000 0.01 0.005 0.0002 "
            "0.0002\n" % TRAINER)
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
        first = wait_for(lambda: runs(out), 30, "the first run")[0]
        assert first["ps"] + first["workers"] == 2, first
        wait_progress(cluster, jid, 7)  # reports: a loss curve to fit
        cancel(cluster, *blockers)
        second = wait_for(lambda: runs(out)[1:2], 90, "a grown restart")[0]
        assert second["ps"] + second["workers"] > 2, second
        assert second["resumed_from"] > 0
    finally:
        cancel(cluster, *blockers, *([jid] if jid else []))


def test_idle_room_grows_a_job_past_its_fitted_convergence(cluster,
                                                           tmp_path):
    """A job whose loss looks converged to the fit (a large delta) but
    still runs towards steps= is grown when nodes become idle: it is never
    predicted at 0 remaining steps."""
    _grows_into_idle_room(cluster, tmp_path, "optimus,max_ps=4,max_workers=12,"
                          "steps=20000,delta=0.5", "grow")


def test_idle_room_grows_a_quality_job(cluster, tmp_path):
    """The quality twin of the test above (a quality job
    stayed at one worker, "no better allocation fits", with 13 CPUs free):
    a quality job started while the cluster was full grows into the nodes
    that become idle."""
    _grows_into_idle_room(cluster, tmp_path, "quality,max_ps=4,max_workers=12,"
                          "steps=20000", "qgrow")


def slurm_saved(cluster, job_name):
    """Whether slurmctld's saved job state holds a job of that name."""
    try:
        with open(os.path.join(cluster.state_dir, "job_state"), "rb") as f:
            return job_name.encode() in f.read()
    except FileNotFoundError:
        return False


def optimus_phase(cluster, job_id):
    """The job's phase in sched/optimus' saved state, None if absent."""
    try:
        with open(os.path.join(cluster.state_dir,
                               "optimus_state.json")) as f:
            jobs = json.load(f)["jobs"]
    except (FileNotFoundError, ValueError):
        return None
    return next((j["phase"] for j in jobs if j["job_id"] == job_id), None)


def test_kill_9_during_a_resize_finishes_the_resize(cluster, tmp_path):
    """slurmctld killed (SIGKILL) between the checkpoint signal and the
    requeue: after the restart the resize completes once, from the
    checkpoint, and the job is neither lost nor resized twice."""
    import signal as sig
    # The checkpoint takes 10 s to write, within the 20 s grace: the kill
    # comes before the confirmation and the requeue, whatever the load.
    big, big_out, first, small = squeezed(cluster, tmp_path, "killed", 20,
                                          900, 30, ckpt_seconds=10)
    try:
        signalled = "JobId=%d: checkpoint signal" % big
        wait_for(lambda: signalled in cluster.logs(), 90, "the signal")
        # Killed once both saved what the restart needs: Slurm writes its
        # job state at most every 2 s, so a SIGKILL right after the signal
        # could lose the newcomer itself (seen in CI: "Purged files for
        # defunct batch JobId", and with nobody to make room for, the
        # restarted planner rightly kept the job); sched/optimus writes
        # the resize under way after each plan.
        wait_for(lambda: slurm_saved(cluster, "killed-newcomer"), 30,
                 "Slurm's job state holding the newcomer")
        wait_for(lambda: optimus_phase(cluster, big) == "checkpointing", 30,
                 "sched/optimus' state holding the resize")
        pid = int(open(cluster._pidfile("slurmctld")).read().strip())
        os.kill(pid, sig.SIGKILL)
        wait_for(lambda: not os.path.exists("/proc/%d" % pid), 30,
                 "slurmctld gone")
        mark = len(cluster.logs())
        cluster._start_slurmctld(clean=False)
        second = wait_for(lambda: runs(big_out)[1:2], 120,
                          "the restart of the resize")[0]
        # the kill came between the signal and the confirmation: the
        # restarted planner is the one that received it
        assert re.search(r"JobId=%d: checkpoint of step \d+ confirmed \d+s "
                         r"after the signal" % big, cluster.logs()[mark:])
        # The promise: one restart, from the checkpoint. Its size is the
        # restarted planner's new plan (seen under CI load: the full size
        # again once the newcomer's room was planned otherwise).
        assert second["resumed_from"] > 0
        wait_plans(cluster, SEVERAL_PLANS)
        f = cluster.job_fields(big)
        assert f["Restarts"] == "1", f
        assert "restarts=1" in f["SystemComment"], f["SystemComment"]
    finally:
        cancel(cluster, big, small)


def test_begin_time_update_keeps_the_gate(cluster, tmp_path):
    """`scontrol update StartTime=` (the begin time) on a waiting optimus job is honoured
    and does not open optimus' gate."""
    block = blocker(cluster)
    jid = None
    try:
        jid, _ = submit(cluster, tmp_path, "later", "optimus,max_workers=2",
                        30)
        wait_waiting(cluster, jid)
        begin_at = time.time() + 15
        cluster.run(["scontrol", "update", "JobId=%d" % jid,
                     "StartTime=now+15"])
        cancel(cluster, block)
        wait_plans(cluster, SEVERAL_PLANS)
        assert cluster.job_fields(jid)["JobState"] == "PENDING"
        cluster.wait_job_state(jid, {"RUNNING", "COMPLETED"}, timeout=60)
        f = cluster.job_fields(jid)
        started = time.mktime(time.strptime(f["StartTime"],
                                            "%Y-%m-%dT%H:%M:%S"))
        assert started >= int(begin_at) - 1, f
        # started as planned, on the planned nodes, not by backfill
        ps, workers = plan_of(f)
        assert int(f["NumTasks"]) == ps + workers and ps + workers > 0, f
        assert f["ReqNodeList"] == f["NodeList"], f
    finally:
        cancel(cluster, block, *([jid] if jid else []))

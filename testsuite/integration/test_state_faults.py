# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""State-file faults lose no more than they must.

A state path that became a directory is set aside and saving resumes,
even when an older set-aside copy exists; every set-aside copy is kept
(the newest five); the recent-report history survives a restart. Bad
input: a node the file names that slurm.conf no longer has, a
job whose node vanished, a file cut short mid-save: one clear log line
each, nothing else lost, slurmctld runs on.
"""
import json
import os
import re

import sched_helpers as sched
from sched_helpers import (cancel, optimusctl, plan_of, runs, submit,
                           wait_progress)
from sched_helpers import set_aside, state_path
from waiting import wait_for, wait_plans

# The cluster fixture reads the module's CLUSTER_OPTIONS.
CLUSTER_OPTIONS = sched.CLUSTER_OPTIONS


def clear_set_aside(cluster):
    for p in set_aside(cluster):
        if os.path.isdir(p):
            os.rmdir(p)
        else:
            os.unlink(p)


def saved_job_ids(path):
    try:
        with open(path) as f:
            return {j["job_id"] for j in json.load(f)["jobs"]}
    except (OSError, ValueError, KeyError):
        return set()


def test_directory_state_path_with_an_old_copy_is_recovered(cluster, tmp_path):
    path = state_path(cluster)
    clear_set_aside(cluster)
    jid, _ = submit(cluster, tmp_path, "dirpath",
                    "optimus,max_ps=1,max_workers=2", 600)
    try:
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
        wait_for(lambda: plan_of(cluster.job_fields(jid)), 15, "a plan")
        cluster._kill("slurmctld", timeout=30)
        with open(path + ".corrupt", "wb") as f:
            f.write(b"an older set-aside copy")
        os.unlink(path)
        os.mkdir(path)
        cluster._start_slurmctld(clean=False)
        wait_for(lambda: os.path.isfile(path) and jid in saved_job_ids(path),
                 20, "the state saved again at %s (a directory: %s)"
                 % (path, os.path.isdir(path)))
        with open(path + ".corrupt", "rb") as f:
            assert f.read() == b"an older set-aside copy"
        assert any(os.path.isdir(p) for p in set_aside(cluster)), \
            set_aside(cluster)
        mark = len(cluster.logs("slurmctld"))
        cluster.restart_slurmctld()
        assert "recovered model state of" in cluster.logs("slurmctld")[mark:]
        assert optimusctl(cluster, "show", "job", str(jid))["job_id"] == jid
    finally:
        cancel(cluster, jid)
        clear_set_aside(cluster)


def test_every_set_aside_copy_is_kept_up_to_five(cluster):
    path = state_path(cluster)
    clear_set_aside(cluster)
    cluster.restart_slurmctld()      # a valid file written on shutdown
    try:
        kept = "corrupt state kept as"
        for i in range(7):
            seen = cluster.logs("slurmctld").count(kept)
            cluster._kill("slurmctld", timeout=30)
            with open(path, "w") as f:
                f.write('{"format": 1, "jobs": [ {"fault": %d' % i)
            cluster._start_slurmctld(clean=False)
            # set aside before the next kill; copies made within one
            # second get distinct names that still sort by age
            wait_for(lambda: cluster.logs("slurmctld").count(kept) > seen,
                     30, "fault %d set aside" % i)
        kept = [open(p).read() for p in set_aside(cluster)]
        faults = sorted(int(t.rsplit(" ", 1)[1]) for t in kept)
        print("set-aside copies kept:", set_aside(cluster))
        assert faults == [2, 3, 4, 5, 6], kept
    finally:
        clear_set_aside(cluster)


def test_report_history_survives_restart(cluster, tmp_path):
    jid, _ = submit(cluster, tmp_path, "history",
                    "optimus,max_ps=1,max_workers=2", 600)
    try:
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
        before = wait_for(
            lambda: (lambda j: len(j.get("progress", [])) >= 5 and j)(
                optimusctl(cluster, "show", "job", str(jid))),
            60, "progress points in the history")
        cluster.restart_slurmctld()
        after = optimusctl(cluster, "show", "job", str(jid))
        print("loss points before the restart: %d, after: %d"
              % (len(before["progress"]), len(after.get("progress", []))))
        assert len(after.get("progress", [])) >= len(before["progress"])
        steps = [p["step"] for p in after["progress"]]
        assert steps[:len(before["progress"])] == \
            [p["step"] for p in before["progress"]]
    finally:
        cancel(cluster, jid)


def edit_state(cluster, edit):
    """The saved state (slurmctld stopped) changed by edit(state)."""
    with open(state_path(cluster)) as f:
        state = json.load(f)
    edit(state)
    with open(state_path(cluster), "w") as f:
        json.dump(state, f)


def record_of(state, jid):
    return next(j for j in state["jobs"] if j["job_id"] == jid)


def test_a_saved_node_gone_from_slurm_conf(cluster, tmp_path):
    """The saved state names a node slurm.conf does not have (the job's
    straggler's server, a node removed while slurmctld was down): one log
    line, the rest of the record kept, the job runs on unresized."""
    jid, out = submit(cluster, tmp_path, "gonenode",
                      "optimus,max_ps=1,max_workers=2", 600)
    try:
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
        wait_progress(cluster, jid, 3)
        cluster._kill("slurmctld", timeout=30)     # saves the state
        edit_state(cluster, lambda s: record_of(s, jid).update(
            straggler={"node": "gone9", "slowdown": 2.0}))
        mark = len(cluster.logs())
        cluster._start_slurmctld(clean=False)
        wait_plans(cluster, 3)
        log = cluster.logs()[mark:]
        assert "recovered model state of" in log
        lines = [l for l in log.splitlines() if "gone9" in l]
        assert len(lines) == 1 and "not in slurm.conf" in lines[0], lines
        job = optimusctl(cluster, "show", "job", str(jid))
        assert job["reports"] >= 3 and "straggler" not in job, job
        assert cluster.job_fields(jid)["JobState"] == "RUNNING"
        assert len(runs(out)) == 1, runs(out)
    finally:
        cancel(cluster, jid)


def kill_job_processes(cluster, jid):
    """Every process of job jid (they ran on the node that vanished). Its
    tasks' OPTIMUS_CLUSTER is the cluster's name (spank/optimus): they are
    known by their SLURM_CONF."""
    tags = (("SLURM_CONF=%s" % cluster.conf).encode(),
            ("SLURM_JOB_ID=%d" % jid).encode())
    killed = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                env = f.read().split(b"\0")
            if all(t in env for t in tags):
                os.kill(int(pid), 9)
                killed.append(int(pid))
        except OSError:
            pass
    return killed


def test_a_job_whose_node_vanished(cluster, tmp_path):
    """The node of a running job removed from slurm.conf while slurmctld
    was down (its processes gone with it): Slurm's own handling is kept
    (22.05 ends the job NODE_FAIL; a requeue would be a fault restart);
    the record says so once and counts no resize; the other record and
    job run on."""
    jid, out = submit(cluster, tmp_path, "vanished",
                      "optimus,max_ps=1,max_workers=1,steps=100000,"
                      "delta=0.00001", 100000)
    other, _ = submit(cluster, tmp_path, "bystander",
                      "optimus,max_ps=1,max_workers=1", 600)
    names = cluster._node_names()
    try:
        for j in (jid, other):
            cluster.wait_job_state(j, {"RUNNING"}, timeout=60)
        wait_progress(cluster, jid, 3)
        before = optimusctl(cluster, "show", "job", str(other))["reports"]
        node = cluster.job_fields(jid)["NodeList"]
        assert node in names, node          # one node
        killed = []
        mark = len(cluster.logs())
        cluster.change_nodes([n for n in names if n != node],
                             lambda: killed.extend(
                                 kill_job_processes(cluster, jid)))
        assert killed
        state = cluster.wait_job_state(jid, {"NODE_FAIL", "PENDING",
                                             "RUNNING"}, timeout=30)
        wait_plans(cluster, 3)
        log = cluster.logs()[mark:]
        assert "recovered model state of" in log
        lines = [l for l in log.splitlines()
                 if re.search(r"sched/optimus: JobId=%d (ended|requeued)"
                              % jid, l)]
        print(state, lines)
        job = optimusctl(cluster, "show", "job", str(jid))
        assert job["restarts"] == 0, job
        if state == "NODE_FAIL":
            assert len(lines) == 1 and "NODE_FAIL" in lines[0], lines
            assert job["phase"] == "done", job
        else:
            assert len(lines) == 1 and "not a resize" in lines[0], lines
            assert job["fault_restarts"] == 1, job
        assert cluster.job_fields(other)["JobState"] == "RUNNING"
        assert optimusctl(cluster, "show", "job",
                          str(other))["reports"] > before
    finally:
        cancel(cluster, jid, other)
        cluster.change_nodes(names)
        wait_for(cluster.nodes_idle, 60, "the nodes back")


def test_a_state_file_cut_short_mid_save(cluster, tmp_path):
    """The state file cut short (a controller stopped half-way through a
    save to a StateSaveLocation that does not rename atomically): one log
    line; the previous whole save is recovered (the job's record and its
    history, not a stranger adopted anew); slurmctld runs on."""
    jid, out = submit(cluster, tmp_path, "cutshort",
                      "optimus,max_ps=1,max_workers=2", 600)
    clear_set_aside(cluster)
    try:
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
        before = wait_progress(cluster, jid, 5)
        wait_plans(cluster, 2)              # saved twice with the reports
        cluster._kill("slurmctld", timeout=30)
        path = state_path(cluster)
        text = open(path).read()
        with open(path, "w") as f:
            f.write(text[:len(text) // 2])
        mark = len(cluster.logs())
        cluster._start_slurmctld(clean=False)
        wait_plans(cluster, 2)
        log = cluster.logs()[mark:]
        lines = [l for l in log.splitlines() if "cannot parse state" in l]
        print("\n".join(lines))
        assert len(lines) == 1 and re.search(
            r"corrupt state kept as \S+; recovered model state of \d+ jobs "
            r"from the previous save", lines[0]), lines
        assert log.count("corrupt state kept as") == 1, log
        assert "JobId=%d found running without a record" % jid not in log
        job = optimusctl(cluster, "show", "job", str(jid))
        assert job["progress"][0]["step"] == before["progress"][0]["step"]
        wait_for(lambda: optimusctl(cluster, "show", "job", str(jid))[
            "reports"] > before["reports"], 20, "the count carried on")
        assert len(runs(out)) == 1, runs(out)
    finally:
        cancel(cluster, jid)
        clear_set_aside(cluster)

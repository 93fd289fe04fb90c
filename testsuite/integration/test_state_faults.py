"""State-file faults lose no more than they must (issue 32 item 4).

A state path that became a directory is set aside and saving resumes,
even when an older set-aside copy exists; every set-aside copy is kept
(the newest five); the recent-report history survives a restart.
"""
import glob
import json
import os

import sched_helpers as sched
from sched_helpers import cancel, optimusctl, plan_of, submit
from waiting import wait_for

# The cluster fixture reads the module's CLUSTER_OPTIONS.
CLUSTER_OPTIONS = sched.CLUSTER_OPTIONS


def state_path(cluster):
    return os.path.join(cluster.state_dir, "optimus_state.json")


def set_aside(cluster):
    """The set-aside copies of the state file (any name the plugin uses)."""
    path = state_path(cluster)
    return sorted(p for p in glob.glob(path + ".*") if p != path + ".new")


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

# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""What is said about jobs that ended, on a real cluster: a finished
job's SystemComment, optimusctl's status and show job after Slurm purged
the job, the demo's and the benchmarks' summaries when a job failed or was
killed, and the example optimus.conf's list of policies."""
import json
import os
import re
import subprocess
import sys
import tempfile

import sched_helpers as sched
from sched_helpers import OPTIMUSCTL, TOP, cancel, write_optimus_conf
from waiting import wait_for

# The planner tests' cluster; finished jobs purged after 30 s (Slurm
# purges them every minute or so past that).
CLUSTER_OPTIONS = dict(sched.CLUSTER_OPTIONS, min_job_age=30)

sys.path.insert(0, os.path.join(TOP, "bench"))
import e2e_jct  # noqa: E402


def test_finished_job_system_comment_shows_a_finished_job(cluster, tmp_path):
    """A job that completed showed a prediction of a job still to run
    (`remaining=10000 steps(prior) eta=332s`) beside its jct=; it says
    it completed, with no remaining steps or ETA."""
    jid = cluster.sbatch(["--scheduler=optimus,max_ps=1,max_workers=1",
                          "-D", str(tmp_path), "-o", "/dev/null"],
                         "#!/bin/sh\nsleep 3\n")
    try:
        f = wait_for(lambda: (lambda f: f.get("JobState") == "COMPLETED" and
                              "jct=" in f.get("SystemComment", "") and f)(
            cluster.job_fields(jid)), 90, "the completed job's final summary")
        comment = f["SystemComment"]
        assert "remaining=" not in comment and "eta=" not in comment, comment
        assert " completed " in comment, comment
    finally:
        cancel(cluster, jid)


def _ctl(cluster, *args):
    return cluster.run([OPTIMUSCTL] + list(args), check=False)


def test_show_job_and_status_agree_after_slurm_purged_the_job(
        cluster, tmp_path):
    """`optimusctl status --all` listed a job Slurm had purged while
    `optimusctl show job` answered no_job: both answer for every job
    the scheduler still keeps."""
    jid = cluster.sbatch(["--scheduler=optimus,max_ps=1,max_workers=1",
                          "-D", str(tmp_path), "-o", "/dev/null"],
                         "#!/bin/sh\nsleep 2\n")
    cluster.wait_job_state(jid, {"COMPLETED"}, 90)
    wait_for(lambda: "Invalid job id" in cluster.run(
        ["scontrol", "show", "job", str(jid)], check=False).stderr, 180,
        "Slurm to purge the job")
    status = json.loads(_ctl(cluster, "--json", "status", "--all").stdout)
    listed = {j["job_id"] for j in status["jobs"]}
    shown = _ctl(cluster, "--json", "show", "job", str(jid))
    assert jid in listed, status
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["job_id"] == jid, shown.stdout
    # and a job neither knows is unknown to both
    never = 999999
    assert never not in listed
    gone = _ctl(cluster, "show", "job", str(never))
    assert gone.returncode != 0 and "no_job" in gone.stderr, gone.stderr


def test_example_optimus_conf_names_every_policy(cluster):
    """etc/optimus.conf's Policy= comment names every policy slurmctld
    takes (goodput was missing), and each one it names is taken."""
    example = open(os.path.join(TOP, "etc", "optimus.conf")).read()
    block = re.search(r"((?:#[^\n]*\n)+?)#Policy=", example)
    assert block, "no commented Policy= in etc/optimus.conf"
    text = block.group(1)
    before = len(cluster.logs("slurmctld"))
    with open(os.path.join(cluster.etc, "optimus.conf")) as f:
        conf = f.read()     # the listener's keys too, which clients read
    try:
        write_optimus_conf(cluster, conf + "Policy=nosuchpolicy\n")
        cluster.run(["scontrol", "reconfigure"])
        line = wait_for(lambda: re.search(
            r"Policy=nosuchpolicy: expected ([a-z, ]+)",
            cluster.logs("slurmctld")[before:]), 30, "the refusal")
        taken = re.findall(r"[a-z]+", line.group(1).replace(" or ", ", "))
        assert len(taken) >= 6, taken
        missing = [p for p in taken if not re.search(r"\b%s\b" % p, text)]
        assert not missing, (missing, text)
        for p in taken:
            write_optimus_conf(cluster, conf + "Policy=%s\n" % p)
            cluster.run(["scontrol", "reconfigure"])
            wait_for(lambda: "Policy=%s" % p in _ctl(
                cluster, "show", "config").stdout.splitlines(), 30,
                "Policy=%s in force" % p)
    finally:
        write_optimus_conf(cluster, conf)
        cluster.run(["scontrol", "reconfigure"])


def _job_ids(text):
    m = re.search(r"optimus jobs: (\d+) (\d+) (\d+); ordinary job: (\d+)",
                  text)
    return [int(x) for x in m.groups()] if m else None


def test_demo_workload_counts_a_killed_job_as_a_failure(cluster):
    """contrib/demo-workload.sh on this cluster with one of its jobs
    cancelled while it runs: its summary counts the job as not completed
    and it exits non-zero (it said nothing and exited 0)."""
    work = tempfile.mkdtemp(prefix="demo-", dir=cluster.root)
    log = os.path.join(work, "demo.log")
    env = cluster.env({"DEMO_TIMEOUT": "900"})
    with open(log, "w") as f:
        p = subprocess.Popen([os.path.join(TOP, "contrib", "demo-workload.sh"),
                              os.path.join(work, "jobs")], env=env, stdout=f,
                             stderr=subprocess.STDOUT, text=True)
    try:
        ids = wait_for(lambda: _job_ids(open(log).read()), 120,
                       "the demo's job ids")
        victim = ids[2]
        cluster.wait_job_state(victim, {"RUNNING"}, 300)
        cluster.run(["scancel", str(victim)])
        rc = p.wait(timeout=1200)
    finally:
        if p.poll() is None:
            p.kill()
        cancel(cluster, *_job_ids(open(log).read()) or [])
    out = open(log).read()
    assert rc != 0, out[-3000:]
    m = re.search(r"3 of 4 jobs completed; did not complete: (.*)", out)
    assert m and "%d CANCELLED" % victim in m.group(1), out[-3000:]


def _ended(cluster, jid):
    f = cluster.job_fields(jid)
    return f if f.get("JobState") not in ("PENDING", "RUNNING",
                                          "COMPLETING") else None


def _jobs_ending(cluster, tmp_path, scripts):
    """Each script as a job, waited until it ended: e2e_jct's job records
    (name, state, jct from Slurm's Submit and End)."""
    import time
    ids = [(name, cluster.sbatch(["-D", str(tmp_path), "-o", "/dev/null"],
                                 script)) for name, script in scripts]
    jobs = []
    for name, jid in ids:
        f = wait_for(lambda: _ended(cluster, jid), 90, "job %d to end" % jid)
        t = [time.mktime(time.strptime(f[k], "%Y-%m-%dT%H:%M:%S"))
             for k in ("SubmitTime", "EndTime")]
        jobs.append({"name": name, "id": jid, "state": f["JobState"],
                     "jct": t[1] - t[0], "restarts": 0, "resize_seconds": 0})
    return {"jobs": jobs, "makespan": max(j["jct"] for j in jobs)}


def test_e2e_summary_never_meets_its_target_with_a_failed_job(
        cluster, tmp_path):
    """bench/e2e_jct.py printed `avg JCT optimus/backfill = 0.64 (target
    <= 0.70: met)` with one of three jobs failed and its short JCT
    averaged in: a run with a job that did not complete is counted as a
    failure and meets no target, whatever its ratio."""
    quick = _jobs_ending(cluster, tmp_path, [
        ("ok", "#!/bin/sh\nsleep 1\n"), ("failed", "#!/bin/sh\nexit 3\n"),
        ("killed", "#!/bin/sh\nkill -9 $$\n")])
    slow = _jobs_ending(cluster, tmp_path, [
        ("ok", "#!/bin/sh\nsleep 8\n"), ("ok2", "#!/bin/sh\nsleep 8\n"),
        ("ok3", "#!/bin/sh\nsleep 8\n")])
    states = [j["state"] for j in quick["jobs"]]
    assert states[0] == "COMPLETED" and "COMPLETED" not in states[1:], quick
    opt, bf = e2e_jct.summary(quick), e2e_jct.summary(slow)
    assert opt["completed"] == 1 and len(opt["failed"]) == 2, opt
    assert opt["avg_jct"] == quick["jobs"][0]["jct"], opt
    text, met = e2e_jct.verdict(opt, bf)
    assert not met and "NOT met" in text and "2 of 6" in text, text
    text, met = e2e_jct.verdict(bf, bf)
    assert not met and "NOT met" in text, text   # ratio 1.0

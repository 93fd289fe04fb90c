# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Slurm's limits hold on every size sched/optimus gives a job.

A cluster with accounting and AccountingStorageEnforce=associations,
limits,qos; two ordinary Unix users with associations in account optimus
submit elastic jobs (the synthetic trainer) under QOS normal. Each test
sets the limits it needs on QOS normal or on the partition and clears
them again.
"""
import os
import re
import time

import pytest

import sched_helpers as sched
from report_helpers import open_to_every_user, unix_user
from sched_helpers import cancel, trainer_script
from waiting import poll, wait_for

CLUSTER_OPTIONS = dict(
    sched.CLUSTER_OPTIONS,
    extra_conf="AccountingStorageEnforce=associations,limits,qos\n")

USERS = ("optimus-lim1", "optimus-lim2")
ELASTIC = "optimus,ps=1,min_workers=1,max_workers=16,worker_gpus=1"


@pytest.fixture(scope="module")
def limited(accounting_cluster):
    """The cluster, its two ordinary users with associations, and a folder
    every user may write (outputs, checkpoints)."""
    c = accounting_cluster
    open_to_every_user(c)
    for u in USERS:
        unix_user(u)
        c.run(["sacctmgr", "-i", "add", "user", u, "account=optimus"])
    shared = os.path.join(c.root, "shared")
    os.makedirs(shared, exist_ok=True)
    os.chmod(shared, 0o1777)
    # slurmctld learns the new associations from slurmdbd
    wait_for(lambda: all(
        "UserName=%s(" % u in c.run(["scontrol", "show", "assoc_mgr",
                                     "users=" + u, "flags=users"],
                                    check=False).stdout for u in USERS),
        60, "the users' associations in slurmctld")
    return c, shared


def set_qos(c, **limits):
    """sacctmgr modify qos normal set KEY=VALUE..., then wait for
    slurmctld to have them (slurmdbd pushes them at once: `scontrol show
    assoc_mgr` shows MaxTRESPJ, not the per-user limits, so those get a
    few seconds)."""
    args = ["%s=%s" % kv for kv in limits.items()]
    c.run(["sacctmgr", "-i", "modify", "qos", "normal", "set"] + args)
    pj = limits.get("MaxTRESPerJob")
    if pj:
        want = "" if pj.endswith("=-1") else pj
        wait_for(lambda: re.search(
            r"MaxTRESPJ=%s\s" % re.escape(want),
            c.run(["scontrol", "show", "assoc_mgr", "qos=normal",
                   "flags=qos"], check=False).stdout), 60,
            "QOS normal MaxTRESPJ=%s in slurmctld" % want)
    time.sleep(3)


def clear_qos(c):
    set_qos(c, MaxTRESPerUser="cpu=-1,gres/gpu=-1", MaxTRESPerJob="node=-1")


def sbatch_as(c, user, shared, name, args, script):
    """sbatch as `user`, the script in the shared folder: the job id."""
    path = os.path.join(shared, name + ".sh")
    with open(path, "w") as f:
        f.write(script)
    os.chmod(path, 0o755)
    r = c.run(["runuser", "-u", user, "--", "sbatch", "--parsable",
               "-J", name, "-D", shared, "-o",
               os.path.join(shared, name + ".out"),
               "--open-mode=append"] + args + [path])
    return int(r.stdout.strip().split(";")[0])


def elastic_as(c, user, shared, name, hints=ELASTIC, args=(), steps=600):
    hints += ",ckpt_dir=%s" % os.path.join(shared, "ckpt-" + name)
    return sbatch_as(c, user, shared, name,
                     ["--scheduler=" + hints] + list(args),
                     trainer_script(steps))


def plain_as(c, user, shared, name, cpus):
    return sbatch_as(c, user, shared, name, ["-n", str(cpus), "-t", "10"],
                     "#!/bin/sh\nsleep 300\n")


def alloc_tres(c, jid):
    """A running job's allocated TRES as {name: count} ({} when not
    running)."""
    f = c.job_fields(jid)
    if f.get("JobState") != "RUNNING":
        return {}
    out = {}
    # scontrol names a running job's allocation TRES= (sacct: AllocTRES)
    for item in f.get("TRES", f.get("AllocTRES", "")).split(","):
        if "=" in item:
            k, v = item.split("=", 1)
            m = re.match(r"(\d+)", v)
            out[k] = int(m.group(1)) if m else 0
    return out


def held(c, user):
    """What `user`'s running jobs hold in all: {TRES: count}."""
    r = c.run(["squeue", "-h", "-u", user, "-t", "RUNNING", "-o", "%i"],
              check=False)
    total = {}
    for jid in r.stdout.split():
        for k, v in alloc_tres(c, int(jid)).items():
            total[k] = total.get(k, 0) + v
    return total


def watch(c, user, seconds, jobs):
    """Sample what `user` holds every second for `seconds`: the most of
    each TRES seen, and the jobs of `jobs` seen running."""
    most, ran = {}, set()
    end = time.time() + seconds
    while time.time() < end:
        for k, v in held(c, user).items():
            most[k] = max(most.get(k, 0), v)
        for j in jobs:
            if c.job_fields(j).get("JobState") == "RUNNING":
                ran.add(j)
        time.sleep(1)
    return most, ran


def sacct_most_cpus(c, jid):
    """The most CPUs any run of jid was given, as sacct recorded it."""
    r = c.run(["sacct", "-n", "-P", "-D", "-X", "-j", str(jid), "-o",
               "AllocTRES"], check=False)
    cpus = [int(m) for m in re.findall(r"cpu=(\d+)", r.stdout)]
    return max(cpus) if cpus else 0


def test_qos_max_cpus_per_user_holds_on_elastic_job(limited):
    """QOS MaxTRESPerUser=cpu=4: Slurm holds a plain second 4-CPU job, and
    the same user's elastic job runs without the user ever holding more
    than 4 CPUs (the plan's sizes are checked as the user's own)."""
    c, shared = limited
    user = USERS[0]
    set_qos(c, MaxTRESPerUser="cpu=4")
    jobs = []
    try:
        a = plain_as(c, user, shared, "plain-a", 4)
        b = plain_as(c, user, shared, "plain-b", 4)
        jobs += [a, b]
        c.wait_job_state(a, {"RUNNING"}, timeout=60)
        wait_for(lambda: c.job_fields(b).get("Reason") ==
                 "QOSMaxCpuPerUserLimit", 60,
                 "the second plain job held by QOSMaxCpuPerUserLimit")
        cancel(c, a, b)
        jid = elastic_as(c, user, shared, "elastic-cpu")
        jobs.append(jid)
        c.wait_job_state(jid, {"RUNNING"}, timeout=90)
        most, _ = watch(c, user, 40, [jid])
        print("\nFIGURE QOS MaxTRESPerUser=cpu=4: most CPUs the user held "
              "with an elastic job (ps=1, max_workers=16): %d "
              "(AllocTRES seen: %s)" % (most.get("cpu", 0), most))
        assert 1 <= most.get("cpu", 0) <= 4, most
        assert sacct_most_cpus(c, jid) <= 4
    finally:
        cancel(c, *jobs)
        clear_qos(c)


def test_two_elastic_jobs_of_one_user_stay_within_the_user_limit(limited):
    """Two elastic jobs of one user planned together: Slurm's own check of
    the user's limit holds the second (it runs with the owner's rights),
    and the user never holds more than 4 CPUs."""
    c, shared = limited
    user = USERS[0]
    set_qos(c, MaxTRESPerUser="cpu=4")
    jobs = []
    try:
        jobs = [elastic_as(c, user, shared, "pair-%d" % i) for i in (1, 2)]
        wait_for(lambda: any(c.job_fields(j).get("JobState") == "RUNNING"
                             for j in jobs), 90, "one of the pair running")
        most, ran = watch(c, user, 40, jobs)
        print("\nFIGURE two elastic jobs, QOS MaxTRESPerUser=cpu=4: most "
              "CPUs the user held: %d; jobs seen running: %d"
              % (most.get("cpu", 0), len(ran)))
        assert most.get("cpu", 0) <= 4, most
        # The one left waiting says why, once the plan has seen the
        # other's run (its own release is held by Slurm meanwhile).
        waiting = [j for j in jobs
                   if c.job_fields(j).get("JobState") == "PENDING"]
        assert len(waiting) == 1, [c.job_fields(j) for j in jobs]
        wait_for(lambda: "waiting: QOS normal MaxTRESPerUser cpu=4 leaves 0"
                 in c.job_fields(waiting[0]).get("SystemComment", ""), 120,
                 "the limit in the waiting job's SystemComment")
    finally:
        cancel(c, *jobs)
        clear_qos(c)


def test_job_whose_minimum_is_over_the_limit_says_why(limited):
    """The user's plain job holds the 4 CPUs QOS normal allows per user:
    the elastic job's minimum (1 PS + 1 worker) is over what is left, and
    it waits saying which limit, while another user's runs."""
    c, shared = limited
    set_qos(c, MaxTRESPerUser="cpu=4")
    jobs = []
    try:
        plain = plain_as(c, USERS[0], shared, "holder", 4)
        jobs.append(plain)
        c.wait_job_state(plain, {"RUNNING"}, timeout=60)
        mine = elastic_as(c, USERS[0], shared, "starved")
        theirs = elastic_as(c, USERS[1], shared, "other-user")
        jobs += [mine, theirs]
        wait_for(lambda: "waiting: QOS normal MaxTRESPerUser cpu=4 leaves 0"
                 in c.job_fields(mine).get("SystemComment", ""), 60,
                 "the limit in the SystemComment")
        # The limit is per user: the other user's job runs, within it.
        c.wait_job_state(theirs, {"RUNNING"}, timeout=90)
        assert 1 <= held(c, USERS[1]).get("cpu", 0) <= 4
        assert c.job_fields(mine)["JobState"] == "PENDING"
    finally:
        cancel(c, *jobs)
        clear_qos(c)


def _runs_within(c, jid, what, timeout=90):
    """jid reaches RUNNING within timeout; else the reasons it pended
    with (Slurm's and the plan's), for the failure message."""
    reasons = set()

    def running():
        f = c.job_fields(jid)
        reasons.add((f.get("Reason"), f.get("SystemComment", "")[-80:]))
        return f.get("JobState") == "RUNNING" and f
    f = poll(running, timeout)
    assert f, "%s: job %d never ran in %ds; reasons seen: %s" % (
        what, jid, timeout, sorted(reasons, key=str))
    return f


def _runs_on_one_node(c, shared, name, what):
    """An elastic job of the first user runs (within 90 s) on one node."""
    jid = elastic_as(c, USERS[0], shared, name)
    try:
        f = _runs_within(c, jid, what)
        assert int(f["NumNodes"]) == 1
    finally:
        cancel(c, jid)


def test_partition_max_nodes_job_runs_on_one_node(limited):
    """Partition MaxNodes=1: the plan sizes the job to one node (Slurm
    held it PartitionNodeLimit when the plan asked for more)."""
    c, shared = limited
    c.run(["scontrol", "update", "partitionname=debug", "maxnodes=1"])
    try:
        _runs_on_one_node(c, shared, "one-node", "partition MaxNodes=1")
    finally:
        c.run(["scontrol", "update", "partitionname=debug",
               "maxnodes=unlimited"])


def test_qos_max_nodes_per_job_job_runs_on_one_node(limited):
    """QOS MaxTRESPerJob=node=1 (Slurm: QOSMaxNodePerJobLimit)."""
    c, shared = limited
    set_qos(c, MaxTRESPerJob="node=1")
    try:
        _runs_on_one_node(c, shared, "qos-one-node",
                          "QOS MaxTRESPerJob=node=1")
    finally:
        clear_qos(c)


def test_qos_max_gpus_per_user_job_runs_within(limited):
    """QOS MaxTRESPerUser=gres/gpu=4 (Slurm: QOSMaxGRESPerUser)."""
    c, shared = limited
    set_qos(c, MaxTRESPerUser="gres/gpu=4")
    jid = None
    try:
        jid = elastic_as(c, USERS[1], shared, "qos-gpus")
        _runs_within(c, jid, "QOS MaxTRESPerUser=gres/gpu=4")
        most, _ = watch(c, USERS[1], 20, [jid])
        print("\nFIGURE QOS MaxTRESPerUser=gres/gpu=4: most GPUs the user "
              "held: %d" % most.get("gres/gpu", 0))
        assert 1 <= most.get("gres/gpu", 0) <= 4, most
    finally:
        if jid:
            cancel(c, jid)
        clear_qos(c)


def test_ordinary_users_uneven_split_starts_as_planned(limited):
    """The owner's update cannot set tasks per node (an operator's field in
    job_mgr.c): it is set alone as SlurmUser, the rest as the owner. An
    ordinary user's 2 PS + 3 workers of 2 CPUs, split 3 + 2 over two
    8-CPU nodes, starts with the planned topology and task count."""
    c, shared = limited
    script = ("#!/bin/sh\n"
              "echo topology=$SLURM_SPANK_OPTIMUS_TOPOLOGY "
              "ntasks=$SLURM_NTASKS\n"
              "srun sh -c 'echo role=$OPTIMUS_ROLE'\n")
    jid = sbatch_as(c, USERS[1], shared, "uneven",
                    ["--scheduler=optimus,min_ps=2,max_ps=2,min_workers=3,"
                     "max_workers=3,ps_cpus=2,worker_cpus=2,ckpt_dir=%s"
                     % os.path.join(shared, "ckpt-uneven")], script)
    try:
        c.wait_job_state(jid, {"COMPLETED"}, timeout=90)
        f = c.job_fields(jid)
        assert int(f["NumNodes"]) == 2
        assert f["NtasksPerN:B:S:C"].startswith("3:"), f["NtasksPerN:B:S:C"]
        text = open(os.path.join(shared, "uneven.out")).read()
        assert "topology=ps=2,workers=3 ntasks=5" in text, text
        roles = sorted(re.findall(r"(?m)^role=(\w+)", text))
        assert roles == ["ps"] * 2 + ["worker"] * 3, text
        assert "update as its owner" not in c.logs("slurmctld")
    finally:
        cancel(c, jid)

# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""The backup controller takes over, and gives control back, on a real
localhost cluster with two controllers: SlurmctldHost ctl1(127.0.0.1) and
ctl2(127.0.0.2), one StateSaveLocation, each slurmctld in UTS and mount
namespaces of its own (testsuite/cluster: Cluster(backup=True)). The report
listener binds the controller's own address (ReportAddress=0.0.0.0 with
NoCtldInAddrAny), so a client must find the dead primary's address and try
the backup's."""
import re
import time

import sched_helpers as sched
from sched_helpers import cancel, optimusctl, runs, submit, wait_progress
from waiting import wait_for, wait_plans

CLUSTER_OPTIONS = dict(
    sched.CLUSTER_OPTIONS, backup=True, nodes=2,
    optimus_conf=sched.CLUSTER_OPTIONS["optimus_conf"] +
    "ReportAddress=0.0.0.0\n")
SEVERAL_PLANS = 4


def listening(cluster, log, addr, since):
    return "report listener on %s:%d" % (addr, cluster.ports["report"]) \
        in cluster.logs(log)[since:]


def recovered(cluster, log, since):
    """sched/optimus of controller `log` read the state file (after its
    listener started)."""
    return re.search(r"recovered model state of \d+ jobs",
                     cluster.logs(log)[since:])


def refused(out):
    """Reports the trainer gave up on (after the client's retries)."""
    try:
        return open(out).read().count("report refused")
    except OSError:
        return 0


def test_backup_takes_over_and_gives_control_back(cluster, tmp_path):
    """The primary stops: the backup's sched/optimus reads the same state
    file (the job's record and history, not adopted anew), plans, resizes
    nobody; the trainer's Python client and optimusctl (the C client) find
    the primary's address dead and reach the backup; the primary back, the
    same the other way. Reports lost: only those given up on during a
    switch."""
    jid, out = submit(cluster, tmp_path, "failover",
                      "optimus,max_ps=1,max_workers=1,steps=100000,"
                      "delta=0.00001", 100000)
    try:
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
        wait_for(lambda: runs(out), 30, "the first run")
        before = wait_progress(cluster, jid, 5)
        assert listening(cluster, "slurmctld", "127.0.0.1", 0)
        # the primary stops (SIGTERM: its state saved); the backup takes
        # over after SlurmctldTimeout. Not SIGKILL: Slurm 22.05's own saved
        # job state then still has the job pending (job_state not written
        # in the 30 s after its start), and the backup's Slurm starts it a
        # second time while it runs (Slurm's window: sched_optimus(8))
        mark2 = len(cluster.logs("slurmctld2"))
        t0 = time.time()
        cluster._kill("slurmctld", timeout=30)
        wait_for(lambda: listening(cluster, "slurmctld2", "127.0.0.2",
                                   mark2), 60, "the backup's listener")
        took = time.time() - t0
        wait_for(lambda: recovered(cluster, "slurmctld2", mark2), 10,
                 "the backup's sched/optimus reading the state")
        log2 = cluster.logs("slurmctld2")[mark2:]
        assert "taking over" in log2
        assert "JobId=%d found running without a record" % jid not in log2
        # optimusctl: 127.0.0.1 refuses, 127.0.0.2 answers
        taken = optimusctl(cluster, "show", "job", str(jid))
        assert taken["progress"][0]["step"] == before["progress"][0]["step"]
        assert taken["reports"] >= before["reports"], (taken, before)
        # the trainer's reports reach the backup
        wait_for(lambda: optimusctl(cluster, "show", "job", str(jid))[
            "reports"] >= taken["reports"] + 3, 30, "reports at the backup")
        lost_over = refused(out)
        wait_plans(cluster, SEVERAL_PLANS, log="slurmctld2")
        log2 = cluster.logs("slurmctld2")[mark2:]
        assert not re.search(r"JobId=%d: checkpoint signal" % jid, log2)

        # the primary back: it asks the backup for control
        mark1 = len(cluster.logs())
        t1 = time.time()
        cluster._start_slurmctld(clean=False)
        wait_for(lambda: listening(cluster, "slurmctld", "127.0.0.1",
                                   mark1), 60, "the primary's listener")
        took_back = time.time() - t1
        # the backup gave up control: its sched/optimus stopped
        assert "sched/optimus: unloaded" in cluster.logs("slurmctld2")[mark2:]
        wait_for(lambda: recovered(cluster, "slurmctld", mark1), 10,
                 "the primary's sched/optimus reading the state")
        log1 = cluster.logs()[mark1:]
        assert "JobId=%d found running without a record" % jid not in log1
        at = optimusctl(cluster, "show", "job", str(jid))["reports"]
        wait_for(lambda: optimusctl(cluster, "show", "job", str(jid))[
            "reports"] >= at + 3, 30, "reports at the primary again")
        wait_plans(cluster, SEVERAL_PLANS)
        lost_back = refused(out) - lost_over
        f = cluster.job_fields(jid)
        assert (f["JobState"], f["Restarts"]) == ("RUNNING", "0"), f
        assert len(runs(out)) == 1, runs(out)
        assert not re.search(r"JobId=%d: checkpoint signal" % jid,
                             cluster.logs()[mark1:])
        job = optimusctl(cluster, "show", "job", str(jid))
        assert (job["restarts"], job.get("fault_restarts", 0)) == (0, 0), job
        print("takeover %.1fs, %d reports given up; back to the primary "
              "%.1fs, %d given up" % (took, lost_over, took_back, lost_back))
        # a report is sent once a second: none lost beyond the switch
        assert lost_over <= took + 1 and lost_back <= took_back + 1
    finally:
        cancel(cluster, jid)

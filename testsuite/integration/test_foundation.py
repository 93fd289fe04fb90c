# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""The three plugins load in the real daemons; ordinary jobs keep backfill."""
from cluster import TASK_PORTS, ephemeral_ports
from waiting import wait_for


def test_sched_plugin_loaded_and_delegates_to_backfill(cluster):
    log = cluster.logs("slurmctld")
    assert "sched/optimus: loaded" in log
    assert "sched/optimus: delegating ordinary jobs to sched/backfill" in log
    assert "Backfill scheduler plugin loaded" in log
    r = cluster.run(["scontrol", "show", "config"])
    assert "sched/optimus" in r.stdout


def test_job_submit_plugin_loaded(cluster):
    assert "job_submit/optimus: loaded" in cluster.logs("slurmctld")
    r = cluster.run(["scontrol", "show", "config"])
    line = [l for l in r.stdout.splitlines() if l.startswith("JobSubmitPlugins")]
    assert line and "optimus" in line[0]


def test_spank_option_in_sbatch_help(cluster):
    r = cluster.run(["sbatch", "--help"])
    assert "--scheduler=" in r.stdout
    r = cluster.run(["srun", "--help"])
    assert "--scheduler=" in r.stdout


def test_spank_option_reaches_job_submit(cluster):
    jid = cluster.sbatch(["--scheduler=optimus", "-o", "/dev/null", "-t", "1"])
    wait_for(lambda: "job_submit/optimus: job from uid 0 with "
             "--scheduler=optimus" in cluster.logs("slurmctld"), 20,
             "job_submit/optimus to log the job's --scheduler", interval=0.2)
    cluster.wait_job_state(jid, {"COMPLETED"}, timeout=60)


def test_ordinary_job_backfills(cluster):
    """A short 1-node job starts ahead of a blocked 4-node job.

    The long job holds one node; the whole-cluster job waits for it and
    gets a reservation; the main scheduler stops at that blocked job, so
    only backfill can start the short job behind it.
    """
    long_job = cluster.sbatch(["-N1", "--exclusive", "-t", "3", "-o", "/dev/null"],
                              "#!/bin/sh\nsleep 60\n")
    cluster.wait_job_state(long_job, {"RUNNING"})
    big = cluster.sbatch(["-N4", "--exclusive", "-t", "2", "-o", "/dev/null"],
                         "#!/bin/sh\nsleep 1\n")
    short = cluster.sbatch(["-N1", "--exclusive", "-t", "1", "-o", "/dev/null"],
                           "#!/bin/sh\nsleep 5\n")
    try:
        cluster.wait_job_state(short, {"RUNNING", "COMPLETED"}, timeout=60)
        assert cluster.job_fields(big)["JobState"] == "PENDING"
        log = cluster.logs("slurmctld")
        assert "backfill" in log and ("JobId=%d" % short) in log
        starts = [l for l in log.splitlines()
                  if "JobId=%d" % short in l and "Started" in l]
        assert starts and "backfill" in starts[0], starts
        print(starts[0])
    finally:
        cluster.run(["scancel", str(long_job), str(big), str(short)], check=False)


def test_daemon_ports_clash_with_nothing(cluster):
    """The harness's daemon ports lie outside the kernel's ephemeral range,
    where any outgoing connection may take a port between the harness's
    check and the daemon's bind (seen in CI: slurmd "Unable to bind listen
    port (37046)" while the other lane's report attacker dialled 1,000
    connections), and outside every cluster's task ports; this cluster's
    task ports (MpiParams=ports=, slurm.conf) outside the ephemeral range
    too, and its slot's."""
    ephemeral = ephemeral_ports()
    tasks = range(TASK_PORTS[0], TASK_PORTS[1])
    # one slurmd port per node from ports["slurmd"]
    used = set(cluster.ports.values()) | {
        cluster.ports["slurmd"] + i for i in range(cluster.nodes)}
    for port in sorted(used):
        assert port not in ephemeral, (port, ephemeral)
        assert port not in tasks, port
    first, last = cluster.task_ports
    assert first not in ephemeral and last not in ephemeral
    assert TASK_PORTS[0] <= first < last < TASK_PORTS[1]
    conf = open(cluster.conf).read()
    assert "\nMpiParams=ports=%d-%d\n" % (first, last) in conf, conf

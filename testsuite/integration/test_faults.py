# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""The faults a production cluster has, with optimus jobs: a
node that dies under a job (item 1), the configuration changed on a live
system (item 3: optimus.conf, nodes drained, nodes removed from and added
to slurm.conf). Each scenario on a real localhost cluster."""
import os
import re
import time

import sched_helpers as sched
from cluster import slurm_version
from sched_helpers import (cancel, optimusctl, runs, submit, wait_progress,
                           write_optimus_conf)
from waiting import wait_for, wait_plans

CLUSTER_OPTIONS = sched.CLUSTER_OPTIONS
SEVERAL_PLANS = 4


def node_state(cluster, node):
    r = cluster.run(["sinfo", "-h", "-n", node, "-N", "-o", "%T"])
    return r.stdout.strip()


def kill_node(cluster, node, reason):
    """The node dies (its slurmd, slurmstepd and tasks: Cluster.kill_node),
    then is marked DOWN as an admin would."""
    cluster.kill_node(node)
    cluster.run(["scontrol", "update", "nodename=" + node, "state=down",
                 "reason=" + reason])


def first_run_pids(cluster, jid):
    """The processes of job jid's first run still alive anywhere: its
    tasks carry SLURM_JOB_ID and SLURM_RESTART_COUNT 0 or none (Slurm
    sets it from the second run on, spank/optimus always)."""
    want = [("SLURM_JOB_ID=%d" % jid).encode(),
            ("SLURM_CONF=%s" % cluster.conf).encode()]
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        restart = [e for e in env if e.startswith(b"SLURM_RESTART_COUNT=")]
        if all(w in env for w in want) and \
                restart in ([], [b"SLURM_RESTART_COUNT=0"]):
            pids.append(int(pid))
    return pids


def first_run_started(cluster, jid, out, reports):
    """Job jid running, its first run started and `reports` progress
    reports in its record: the node of its batch step."""
    cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
    wait_for(lambda: runs(out), 30, "the first run")
    wait_progress(cluster, jid, reports)
    return cluster.job_fields(jid)["BatchHost"]


def cut_off(cluster, node, reason):
    """The node taken for dead while its machine lives: its slurmd only
    killed (its jobs' processes run on), the node set DOWN."""
    cluster._kill("slurmd-" + node)
    cluster.run(["scontrol", "update", "nodename=" + node, "state=down",
                 "reason=" + reason])


def revive_node(cluster, node):
    cluster._start_slurmd(node)
    # ReturnToService=2 may have returned it already at registration:
    # Slurm then refuses the resume of a node that is not down.
    cluster.run(["scontrol", "update", "nodename=" + node, "state=resume"],
                check=False)
    # The controller's own state (scontrol), not sinfo's: sinfo derives
    # "mixed" from the select plugin's CPU counts, and after a node cut off
    # from a live run comes back it printed "mixed" for minutes while
    # scontrol showed State=IDLE, CPUAlloc=0 and no job on the node.
    wait_for(lambda: controller_node_state(cluster, node) == "IDLE", 90,
             "%s idle again" % node)


def controller_node_state(cluster, node):
    """The node's State= as slurmctld gives it (scontrol show node)."""
    out = cluster.run(["scontrol", "show", "node", node]).stdout
    m = re.search(r"\bState=(\S+)", out)
    return m.group(1) if m else ""


def planned_nodes(cluster, since):
    """The nodes of every start the planner applied after log offset
    `since` ("JobId=N planned: ... on HOSTLIST (...)")."""
    nodes = set()
    for hl in re.findall(r"JobId=\d+ planned: \S+ on (\S+) \(",
                         cluster.logs()[since:]):
        nodes |= set(cluster.run(["scontrol", "show", "hostnames",
                                  hl]).stdout.split())
    return nodes


def test_node_death_requeues_from_the_checkpoint_not_as_a_resize(
        cluster, tmp_path):
    """slurmd of the job's node killed and the node set DOWN: Slurm
    requeues the job (JobRequeue=1); it runs again elsewhere from its last
    confirmed checkpoint; the planner counts no resize and charges no
    resize time; no plan places anything on the dead node; back, it is
    usable again."""
    jid, out = submit(cluster, tmp_path, "dies",
                      "optimus,max_ps=1,max_workers=1,steps=100000,"
                      "delta=0.00001", 100000)
    node = None
    try:
        node = first_run_started(cluster, jid, out, 5)
        first = runs(out)[0]
        mark = len(cluster.logs())
        kill_node(cluster, node, "fault-test")
        second = wait_for(lambda: runs(out)[1:2], 120,
                          "the run after the node failed")[0]
        # A dead node's processes died with it; the first run's tasks on
        # the nodes that live, Slurm ends at the requeue.
        wait_for(lambda: not first_run_pids(cluster, jid), 30,
                 "the first run's processes gone")
        f = cluster.job_fields(jid)
        # Slurm's own handling: the job was requeued, away from the node
        assert f["Restarts"] == "1", f
        assert node not in cluster.run(
            ["scontrol", "show", "hostnames", f["NodeList"]]).stdout.split()
        # from its last confirmed checkpoint (declared at start: step 0)
        assert second["resumed_from"] == first["resumed_from"] == 0
        wait_progress(cluster, jid, 12)
        wait_plans(cluster, SEVERAL_PLANS)
        job = optimusctl(cluster, "show", "job", str(jid))
        assert job["restarts"] == 0, job
        assert job["resize_seconds"] == 0, job
        assert job["fault_restarts"] == 1, job
        # the loss is the fault's, not the job's failure to resume
        assert job["resizable"], job.get("not_resizable_because")
        assert "faults=1" in cluster.job_fields(jid)["SystemComment"]
        assert re.search(r"JobId=%d requeued by Slurm \(restart \d+, not a "
                         r"resize\)" % jid, cluster.logs())
        # The plan placed its restart, and nothing else, off the DOWN node.
        placed = planned_nodes(cluster, mark)
        assert placed and node not in placed, placed
    finally:
        if node:
            revive_node(cluster, node)
        cancel(cluster, jid)


def test_node_death_while_checkpointing_for_a_resize(cluster, tmp_path):
    """The node dies between the checkpoint signal and the requeue: Slurm
    requeues the job once, the planner abandons the resize (no second
    requeue), counts a fault restart and no resize restart."""
    # The checkpoint takes 30 s to write, longer than any node kill here.
    big, big_out, first, small = sched.squeezed(
        cluster, tmp_path, "ckdies", 60, 900, 30, ckpt_seconds=30)
    node = None
    try:
        signalled = "JobId=%d: checkpoint signal" % big
        wait_for(lambda: signalled in cluster.logs(), 90, "the signal")
        node = cluster.job_fields(big)["BatchHost"]
        kill_node(cluster, node, "fault-test-ckpt")
        # what Slurm and the planner did meanwhile, and the job's output,
        # should the run not come (CI keeps no cluster)
        wait_for(lambda: runs(big_out)[1:2], 120, "the run after the fault",
                 detail=lambda: "%s\nits output, last lines:\n%s" % (
                     cluster.job_story(big),
                     "\n".join(open(big_out).read().splitlines()[-15:])))
        wait_plans(cluster, SEVERAL_PLANS)
        f = cluster.job_fields(big)
        assert f["Restarts"] == "1", f     # requeued once, by Slurm
        job = optimusctl(cluster, "show", "job", str(big))
        assert (job["restarts"], job["resize_seconds"],
                job.get("fault_restarts")) == (0, 0, 1), job
        assert "abandoned" in cluster.logs()
        assert len(re.findall(r"JobId=%d requeued \(held\) for a resize" % big,
                              cluster.logs())) == 0
    finally:
        if node:
            revive_node(cluster, node)
        cancel(cluster, big, small)


def late_report_line(jid):
    """The line naming a report of run 0 once the job's current run is 1:
    the listener's refusal to its sender (the planner saw the new run), or
    the planner's drop (the listener took it before)."""
    return (r"\(uid \d+, job %d\): rejected: report of run 0: the job's "
            r"current run is 1|JobId=%d: (progress|worker) report of run 0 "
            r"dropped: the job's current run is 1" % (jid, jid))


def test_a_run_over_still_reporting_is_named_not_refused(cluster, tmp_path):
    """A node Slurm takes for dead while its processes live (its slurmd
    crashed and an admin set it DOWN, or it was cut off): Slurm requeues
    the job and the first run reports on until its node returns. Its
    worker reports are late, not bad input: one line says so, never "report
    refused by the model (kind 4, rc -22)": they are
    refused, or dropped, as another run's (they name theirs). Held, the
    requeued job waits, so that the first run's reports meet no second."""
    out = str(tmp_path / "alive.out")
    # A slow node that is none of the job's: worker reports, no slowdown.
    script = ("#!/bin/sh\nOPTIMUS_TEST_SLOW_NODE=nowhere exec "
              "/usr/bin/python3 %s 100000\n" % sched.TRAINER)
    jid = cluster.sbatch([
        "--scheduler=optimus,max_ps=1,max_workers=1,steps=100000,"
        "delta=0.00001,ckpt_dir=%s" % (tmp_path / "ckpt-alive"),
        "-J", "alive", "--open-mode=append", "-D", str(tmp_path),
        "-o", out], script)
    node = None
    try:
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
        wait_progress(cluster, jid, 3)
        node = cluster.job_fields(jid)["BatchHost"]
        mark = len(cluster.logs())
        cluster.run(["scontrol", "hold", str(jid)])
        cut_off(cluster, node, "fault-test-alive")
        # The trainer's reports name their run (SLURM_RESTART_COUNT 0);
        # Slurm counted the requeue as the job's restart 1. One line a
        # second, of whichever kind came first in it.
        late = late_report_line(jid)
        wait_for(lambda: re.search(late, cluster.logs()[mark:]), 60,
                 "the first run's late reports named")
        assert "JobId=%d: report refused" % jid not in cluster.logs()[mark:]
        assert cluster.job_fields(jid)["JobState"] == "PENDING"
    finally:
        if node:
            revive_node(cluster, node)
        cancel(cluster, jid)


def test_a_run_over_reports_nothing_into_the_next_run(cluster, tmp_path):
    """The node of a job is taken for dead while its machine lives (only
    its slurmd killed, the node set DOWN): Slurm requeues the job and
    starts it on another node while the first run reports on, its own
    steps and, here, a progress report of step 900000 every second once
    the test says. Each names its run (SLURM_RESTART_COUNT): none reaches
    the second run's record, and a line says why each is refused or
    dropped."""
    out = str(tmp_path / "twice.out")
    mark_file = tmp_path / "report-late"
    script = ("#!/bin/sh\n"
              "if [ \"${SLURM_RESTART_COUNT:-0}\" = 0 ]; then\n"
              "  (while sleep 1; do [ -e %s ] && %s progress --step 900000 "
              "--loss 0.5; done) &\n"
              "fi\n"
              "exec /usr/bin/python3 %s 100000\n"
              % (mark_file, sched.OPTIMUS_REPORT, sched.TRAINER))
    jid = cluster.sbatch([
        "--scheduler=optimus,max_ps=1,max_workers=1,steps=100000,"
        "delta=0.00001", "-J", "twice", "--open-mode=append",
        "-D", str(tmp_path), "-o", out], script)
    node = None
    try:
        node = first_run_started(cluster, jid, out, 3)
        mark = len(cluster.logs())
        cut_off(cluster, node, "fault-test-twice")
        wait_for(lambda: runs(out)[1:2], 120, "the run after the node died")
        assert first_run_pids(cluster, jid), "the first run died"
        mark_file.touch()
        # The second run reports some 10 times while the first one's
        # late reports come, every second.
        since = optimusctl(cluster, "show", "job", str(jid))["reports"]
        wait_progress(cluster, jid, since + 10, timeout=120)
        job = optimusctl(cluster, "show", "job", str(jid))
        assert job["step"] < 900000, job["step"]
        assert all(p["step"] < 900000 for p in job.get("progress", [])), \
            [p for p in job["progress"] if p["step"] >= 900000]
        assert "step=900000" not in cluster.job_fields(jid)["SystemComment"]
        late = late_report_line(jid)
        wait_for(lambda: re.search(late, cluster.logs()[mark:]), 30,
                 "the first run's late report named")
        assert "report refused" not in cluster.logs()[mark:]
    finally:
        for pid in first_run_pids(cluster, jid):
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        if node:
            revive_node(cluster, node)
        cancel(cluster, jid)


def config_in_force(cluster, port):
    """optimusctl show config, asked at the port the listener runs on."""
    return optimusctl(cluster, "--addr", "127.0.0.1:%d" % port,
                      "show", "config")


# Slurm 23.11 and later restart slurmctld for `scontrol reconfigure`.
RECONFIGURE_RESTARTS = slurm_version() >= (23, 11)


def config_in_force_or_none(cluster, port):
    """config_in_force, or None while the listener is not up (a restart)."""
    try:
        return config_in_force(cluster, port)
    except Exception:
        return None


def test_reconfigure_applies_the_planner_keys_and_names_the_listener_ones(
        cluster, tmp_path):
    """optimus.conf edited, `scontrol reconfigure`: Policy, PlanInterval
    and the thresholds are in force at once; a new ReportPort is logged as
    needing a restart and the port in force stays (and is what show config
    says); the running job is not resized by the change. Slurm 23.11 and
    later run `scontrol reconfigure` as a restart of slurmctld: there every
    key is read anew, the listener's too, and the new port is in force."""
    port = cluster.ports["report"]
    path = os.path.join(cluster.etc, "optimus.conf")
    before = open(path).read()
    jid, out = submit(cluster, tmp_path, "reconf",
                      "optimus,max_ps=2,max_workers=4,steps=100000,"
                      "delta=0.00001", 100000)
    try:
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
        wait_progress(cluster, jid, 5)
        mark = len(cluster.logs())
        write_optimus_conf(cluster,
                           "ReportPort=%d\nPlanInterval=3\nPolicy=drf\n"
                           "ResizeThreshold=0.3\nMinResizeInterval=3600\n"
                           "RestartCost=2\n" % (port + 1))
        cluster.run(["scontrol", "reconfigure"])
        if RECONFIGURE_RESTARTS:
            in_force = port + 1
            wait_for(lambda: "report listener on 127.0.0.1:%d" % in_force
                     in cluster.logs()[mark:], 30, "the restarted listener")
        else:
            in_force = port
            wait_for(lambda: "needs a restart" in cluster.logs()[mark:], 30,
                     "the reconfigure logged")
            log = cluster.logs()[mark:]
            assert "ReportPort=%d needs a restart of slurmctld; %d stays " \
                "in force" % (port + 1, port) in log, log[-2000:]
        conf = config_in_force(cluster, in_force)
        assert conf["PlanInterval"] == "3", conf
        assert conf["Policy"] == "drf", conf
        assert conf["ResizeThreshold"] == "0.3", conf
        assert conf["MinResizeInterval"] == "3600", conf
        assert conf["ReportPort"] == str(in_force), conf
        wait_plans(cluster, SEVERAL_PLANS)
        assert len(runs(out)) == 1, runs(out)
        assert not re.search(r"JobId=%d: checkpoint signal" % jid,
                             cluster.logs()[mark:])
    finally:
        write_optimus_conf(cluster, before)
        cluster.run(["scontrol", "reconfigure"], check=False)
        cancel(cluster, jid)


def test_drained_node_gets_no_job(cluster, tmp_path):
    """A node set DRAIN: no plan places a job there; the jobs start on the
    other nodes."""
    node = "n1"
    mark = len(cluster.logs())
    cluster.run(["scontrol", "update", "nodename=" + node, "state=drain",
                 "reason=fault-test"])
    jids = []
    try:
        # One job per node of the cluster.
        for k in range(cluster.nodes):
            jids.append(submit(cluster, tmp_path, "drain%d" % k,
                               "optimus,max_ps=1,max_workers=1,"
                               "steps=100000", 100000)[0])
        # They all fit on the three other nodes, and run there.
        for j in jids:
            cluster.wait_job_state(j, {"RUNNING"}, timeout=90)
        wait_plans(cluster, SEVERAL_PLANS)
        placed = planned_nodes(cluster, mark)
        assert placed and node not in placed, placed
        for j in jids:
            f = cluster.job_fields(j)
            assert node not in cluster.run(
                ["scontrol", "show", "hostnames",
                 f["NodeList"]]).stdout.split(), f
    finally:
        cancel(cluster, *jids)
        cluster.run(["scontrol", "update", "nodename=" + node,
                     "state=resume"])


def set_partition(cluster, state):
    cluster.run(["scontrol", "update", "partitionname=debug",
                 "state=" + state])


def test_partition_down_plans_nothing_drain_keeps_the_queue(cluster,
                                                           tmp_path):
    """A partition DOWN starts none of its queued jobs (Slurm's rule): the
    planner does not plan them (no start reserved for nothing) until it is
    UP again. DRAIN (Slurm: no new submission, the queue still runs):
    sbatch is refused, the queued job starts."""
    jids = []
    set_partition(cluster, "down")
    try:
        mark = len(cluster.logs())
        jids.append(submit(cluster, tmp_path, "partdown",
                           "optimus,max_ps=1,max_workers=1,steps=100000",
                           100000)[0])
        wait_plans(cluster, SEVERAL_PLANS)
        assert not planned_nodes(cluster, mark), cluster.logs()[mark:]
        assert cluster.job_fields(jids[0])["JobState"] == "PENDING"
        set_partition(cluster, "drain")
        r = cluster.run(["sbatch", "--wrap", "true"], check=False)
        assert r.returncode != 0, r.stdout
        cluster.wait_job_state(jids[0], {"RUNNING"}, timeout=90)
        assert planned_nodes(cluster, mark)
    finally:
        set_partition(cluster, "up")
        cancel(cluster, *jids)


def test_a_node_back_in_service_is_room_to_grow_into(cluster, tmp_path):
    """n4 dead and DOWN, the other nodes nearly full: the job starts at
    1 PS + 1 worker; once n4 is back, the job grows into it (from its
    checkpoint)."""
    node = "n4"
    kill_node(cluster, node, "fault-test-grow")
    blockers = [cluster.sbatch(["-w", "n1", "-n", "6", "-o", "/dev/null"],
                               "#!/bin/sh\nsleep 300\n"),
                cluster.sbatch(["-w", "n[2-3]", "-N2", "--exclusive", "-o",
                                "/dev/null"], "#!/bin/sh\nsleep 300\n")]
    out = str(tmp_path / "back.out")
    jid = None
    revived = False
    try:
        for b in blockers:
            cluster.wait_job_state(b, {"RUNNING"})
        jid = cluster.sbatch(
            ["--scheduler=optimus,max_ps=4,max_workers=12,steps=20000,"
             "delta=0.5,ckpt_dir=%s" % (tmp_path / "ckpt-back"),
             "--open-mode=append", "-o", out],
            "#!/bin/sh\nexec /usr/bin/python3 %s 20000 0.01 0.005 0.0002 "
            "0.0002\n" % sched.TRAINER)
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
        first = wait_for(lambda: runs(out), 30, "the first run")[0]
        assert first["ps"] + first["workers"] == 2, first
        wait_progress(cluster, jid, 7)
        revive_node(cluster, node)
        revived = True
        second = wait_for(lambda: runs(out)[1:2], 90, "a grown restart")[0]
        assert second["ps"] + second["workers"] > 2, second
        assert node in cluster.run(
            ["scontrol", "show", "hostnames",
             cluster.job_fields(jid)["NodeList"]]).stdout.split()
    finally:
        if not revived:
            revive_node(cluster, node)
        cancel(cluster, *blockers, *([jid] if jid else []))


def test_reconfigure_with_a_bad_value_keeps_the_values_in_force(cluster):
    """A value out of range in the edited optimus.conf: the re-read is
    refused with the key named, and the values in force stay (not the
    defaults: a typo must not turn a live scheduler's PlanInterval=2 into
    600). On Slurm 23.11 and later the reconfigure restarts slurmctld: the
    configuration last in force, kept in StateSaveLocation, is used (before:
    the defaults, and the listener moved to the default port)."""
    port = cluster.ports["report"]
    path = os.path.join(cluster.etc, "optimus.conf")
    before = open(path).read()
    try:
        mark = len(cluster.logs())
        write_optimus_conf(cluster, "ReportPort=%d\nPlanInterval=0\n"
                           "Policy=drf\n" % port)
        cluster.run(["scontrol", "reconfigure"])
        wait_for(lambda: "PlanInterval=0: expected" in cluster.logs()[mark:],
                 30, "the refusal logged")
        if RECONFIGURE_RESTARTS:
            wait_for(lambda: "the configuration last in force (kept in" in
                     cluster.logs()[mark:], 30, "the kept configuration used")
        conf = wait_for(lambda: config_in_force_or_none(cluster, port), 30,
                        "the listener after the reconfigure")
        assert conf["PlanInterval"] == "2", conf
        assert conf["Policy"] == "optimus", conf
        assert conf["MinResizeInterval"] == str(sched.MIN_RESIZE_INTERVAL)
    finally:
        write_optimus_conf(cluster, before)
        cluster.run(["scontrol", "reconfigure"], check=False)


def test_draining_a_running_jobs_node_resizes_nobody(cluster, tmp_path):
    """The node a running job holds is set DRAIN: Slurm lets the job run
    on (DRAINING); the planner, which no longer counts the node's room,
    neither signals nor requeues the job for it."""
    jid, out = submit(cluster, tmp_path, "draining",
                      "optimus,max_ps=1,max_workers=2,steps=100000,"
                      "delta=0.00001", 100000)
    node = None
    try:
        node = first_run_started(cluster, jid, out, 5)
        mark = len(cluster.logs())
        cluster.run(["scontrol", "update", "nodename=" + node,
                     "state=drain", "reason=fault-test-draining"])
        wait_plans(cluster, SEVERAL_PLANS + 4)
        assert cluster.job_fields(jid)["JobState"] == "RUNNING"
        assert len(runs(out)) == 1, runs(out)
        assert not re.search(r"JobId=%d: checkpoint signal" % jid,
                             cluster.logs()[mark:])
    finally:
        cancel(cluster, jid)
        if node:
            cluster.run(["scontrol", "update", "nodename=" + node,
                         "state=resume"], check=False)


def set_nodes(cluster, nodes, state):
    cluster.run(["scontrol", "update", "nodename=" + ",".join(nodes),
                 "state=" + state] + (["reason=fault-test"]
                                      if state == "drain" else []))


def test_a_node_removed_from_and_added_to_slurm_conf(cluster, tmp_path):
    """A node removed from slurm.conf on a live cluster, then added back
    (every daemon restarted, as Slurm requires): plans never place a job on
    it while it is out (the other nodes drained, a new job waits), and do
    once it is back; the running job is resized by neither change."""
    names = cluster._node_names()
    jid, out = submit(cluster, tmp_path, "nodeset",
                      "optimus,max_ps=1,max_workers=1,steps=100000,"
                      "delta=0.00001", 100000)
    newcomer = None
    others = []
    try:
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
        wait_for(lambda: runs(out), 30, "the first run")
        wait_progress(cluster, jid, 3)
        held = cluster.run(["scontrol", "show", "hostnames",
                            cluster.job_fields(jid)["NodeList"]]).stdout
        gone = [n for n in names if n not in held.split()][-1]
        others = [n for n in names if n != gone]
        mark = len(cluster.logs())
        cluster.change_nodes(others)
        assert gone not in cluster.run(["sinfo", "-h", "-N", "-o",
                                        "%N"]).stdout.split()
        set_nodes(cluster, others, "drain")
        newcomer = submit(cluster, tmp_path, "newcomer",
                          "optimus,max_ps=1,max_workers=1", 600)[0]
        wait_plans(cluster, SEVERAL_PLANS)
        assert cluster.job_fields(newcomer)["JobState"] == "PENDING"
        assert gone not in planned_nodes(cluster, mark)
        back = len(cluster.logs())
        cluster.change_nodes(names)
        cluster.wait_job_state(newcomer, {"RUNNING"}, timeout=60)
        assert planned_nodes(cluster, back) == {gone}
        assert cluster.job_fields(newcomer)["NodeList"] == gone
        f = cluster.job_fields(jid)
        assert (f["JobState"], f["Restarts"]) == ("RUNNING", "0"), f
        assert len(runs(out)) == 1, runs(out)
        assert not re.search(r"JobId=%d: checkpoint signal" % jid,
                             cluster.logs()[mark:])
        assert optimusctl(cluster, "show", "job", str(jid))["restarts"] == 0
    finally:
        if cluster._node_names() != names:
            cluster.change_nodes(names)
        if others:
            set_nodes(cluster, others, "resume")
        cancel(cluster, jid, *([newcomer] if newcomer else []))

# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""sched/optimus on a real cluster: sizing, placement, resizes, state, JCT.

The jobs run testsuite/integration/workloads/synthetic_trainer.py, a real
batch job whose speed f(p, w) and loss curve are known, which reports
through the real munge-authenticated channel and checkpoints on SIGUSR1.
"""
import json
import os
import re
import time

import pytest

import sched_helpers as sched
from cluster import gpu_tres
from sched_helpers import (OPTIMUSCTL, TOP, cancel, optimusctl, plan_of, runs,
                           squeezed, submit)
from waiting import plans_since, wait_for

# The cluster fixture reads the module's CLUSTER_OPTIONS.
CLUSTER_OPTIONS = sched.CLUSTER_OPTIONS


def test_pending_job_is_sized_and_placed_as_planned(cluster, tmp_path):
    jid, out = submit(cluster, tmp_path, "sized",
                      "optimus,max_ps=2,max_workers=6", 40)
    try:
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
        f = cluster.job_fields(jid)
        ps, workers = plan_of(f)
        assert int(f["NumTasks"]) == ps + workers
        assert 1 <= ps <= 2 and 1 <= workers <= 6
        # Pinned to the placement's nodes, the fewest that hold the job.
        assert f["ReqNodeList"] == f["NodeList"]
        assert int(f["NumNodes"]) == 1     # 8 tasks fit one 8-CPU node
        # The job's tasks see the planned topology.
        first = wait_for(lambda: runs(out), 30, "the trainer to start")[0]
        assert (first["ps"], first["workers"]) == (ps, workers)
        # The SystemComment follows at the next plan.
        wait_for(lambda: "optimus: ps=%d workers=%d" % (ps, workers) in
                 cluster.job_fields(jid)["SystemComment"], 15,
                 "the running topology in SystemComment")
    finally:
        cancel(cluster, jid)


def test_uneven_split_runs_the_planned_tasks(cluster, tmp_path):
    # 2 PS + 3 workers of 2 CPUs need two 8-CPU nodes, split 3 + 2 tasks:
    # Slurm allocates 3 task slots on both (ntasks-per-node), and the batch
    # script must still run the 5 planned tasks with the planned roles.
    out = str(tmp_path / "uneven.out")
    script = ("#!/bin/sh\n"
              "echo topology=$SLURM_SPANK_OPTIMUS_TOPOLOGY "
              "source=$OPTIMUS_TOPOLOGY_SOURCE ntasks=$SLURM_NTASKS\n"
              "srun sh -c 'echo role=$OPTIMUS_ROLE'\n")
    jid = cluster.sbatch(["--scheduler=optimus,min_ps=2,max_ps=2,"
                          "min_workers=3,max_workers=3,ps_cpus=2,"
                          "worker_cpus=2", "-o", out], script)
    try:
        cluster.wait_job_state(jid, {"COMPLETED"}, timeout=90)
        f = cluster.job_fields(jid)
        assert int(f["NumNodes"]) == 2
        text = open(out).read()
        assert "topology=ps=2,workers=3 source=scheduler ntasks=5" in text, text
        roles = sorted(re.findall(r"(?m)^role=(\w+)", text))
        assert roles == ["ps"] * 2 + ["worker"] * 3, text
    finally:
        cancel(cluster, jid)


def test_job_spread_over_nodes_with_little_room_starts(cluster, tmp_path):
    # Submitted as 1 PS + 2 workers on one node (3 CPUs per node), planned
    # as 2 + 2 over the two nodes that have 2 free CPUs each: Slurm must
    # not keep the submitted per-node minimum (it would need 6 CPUs).
    blockers = [cluster.sbatch(["-w", node, "-n", str(n), "-o", "/dev/null"],
                               "#!/bin/sh\nsleep 300\n")
                for node, n in (("n1", 6), ("n2", 6), ("n3", 8), ("n4", 8))]
    jid = None
    try:
        for b in blockers:
            cluster.wait_job_state(b, {"RUNNING"}, timeout=60)
        jid = cluster.sbatch(["--scheduler=optimus,min_ps=1,max_ps=2,"
                              "min_workers=2,max_workers=2",
                              "-o", str(tmp_path / "spread.out")],
                             "#!/bin/sh\nsleep 5\n")
        cluster.wait_job_state(jid, {"RUNNING", "COMPLETED"}, timeout=60)
        f = cluster.job_fields(jid)
        assert f["NodeList"] == "n[1-2]" and f["NumCPUs"] == "4", f
    finally:
        cancel(cluster, *blockers, *([jid] if jid else []))


def test_gpu_job_started_as_planned(cluster, tmp_path):
    """The plan's start asks Slurm for the GPUs per node in the syntax of
    the running release (gres:gpu:N on 22.05, gres/gpu:N on 24.11, which
    refuses the former as an invalid TRES) and the job runs."""
    jid, _ = submit(cluster, tmp_path, "gpus",
                    "optimus,max_ps=1,max_workers=2,worker_gpus=1", 40)
    try:
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
        f = cluster.job_fields(jid)
        ps, workers = plan_of(f) or wait_for(
            lambda: plan_of(cluster.job_fields(jid)), 15, "the plan")
        per_node = -(-workers // int(f["NumNodes"]))   # ceil
        assert f["TresPerNode"] == gpu_tres(per_node), f
    finally:
        cancel(cluster, jid)


def test_job_left_out_waits_with_a_reason(cluster, tmp_path):
    blocker = cluster.sbatch(["-N4", "--exclusive", "-o", "/dev/null"],
                             "#!/bin/sh\nsleep 300\n")
    jid = None
    try:
        cluster.wait_job_state(blocker, {"RUNNING"})
        jid, _ = submit(cluster, tmp_path, "waits", "optimus", 20)

        # Slurm shows Reason=BeginTime at optimus' gate: the
        # planner's reason is in the SystemComment.
        def reason():
            f = cluster.job_fields(jid)
            m = re.search(r" waiting: (.*)", f.get("SystemComment", ""))
            return f["JobState"] == "PENDING" and m and m.group(1)
        why = wait_for(reason, 30, "an optimus reason")
        assert "room" in why
        cancel(cluster, blocker)
        cluster.wait_job_state(jid, {"RUNNING", "COMPLETED"}, timeout=60)
    finally:
        cancel(cluster, blocker, *( [jid] if jid else []))


def test_running_job_shrinks_and_grows_through_requeue(cluster, tmp_path):
    big, big_out, first, small = squeezed(cluster, tmp_path, "elastic", 5,
                                          700, 60)
    try:
        assert first["ps"] + first["workers"] == 32   # the whole cluster

        # Shrink: checkpoint signal, requeue, restart smaller, resume.
        second = wait_for(lambda: runs(big_out)[1:2], 120, "a restart")[0]
        assert second["restart"] == 1
        assert second["ps"] + second["workers"] < 32
        assert second["resumed_from"] > 0
        f = cluster.job_fields(big)
        assert f["Restarts"] == "1"
        # restarts= counts restarts that happened: the planner
        # sees this one at its next look, the comment at the next plan.
        wait_for(lambda: "restarts=1" in
                 cluster.job_fields(big)["SystemComment"], 15,
                 "restarts=1 in the SystemComment")

        # Grow back once the newcomer is done.
        cluster.wait_job_state(small, {"COMPLETED"}, timeout=180)
        third = wait_for(lambda: runs(big_out)[2:3], 120, "a second restart")[0]
        assert third["ps"] + third["workers"] > second["ps"] + second["workers"]
        assert third["resumed_from"] >= second["resumed_from"]
        log = cluster.logs("slurmctld")
        assert re.search(r"JobId=%d resized to .* in \d+s" % big, log)
    finally:
        cancel(cluster, big, small)


def assert_restart_timed(cluster, big, big_out, delay):
    """Job big's one restart (its processes waiting `delay` s before their
    first step) is in its record as at least the signal-to-start time
    slurmctld.log gives plus that delay (the trainer's own start-up adds
    to it, never takes from it)."""
    wait_for(lambda: runs(big_out)[1:2], 120, "a restart")
    started = re.search(r"JobId=%d resized to .* in (\d+)s" % big,
                        cluster.logs("slurmctld"))
    assert started, "no resize line"
    to_start = int(started.group(1))
    job = wait_for(lambda: (lambda j: j if j["resize_seconds"] > 0
                            else None)(
        optimusctl(cluster, "show", "job", str(big))), 30,
        "the restart's cost in the record")
    assert job["restarts"] == 1, job
    assert job["resize_seconds"] >= to_start + delay - 1, \
        (job["resize_seconds"], to_start, delay)


def test_restart_cost_runs_to_the_first_step(cluster, tmp_path):
    """A restart costs the job until its first step, not until Slurm starts
    it: the plan weighs every resize and re-batch against the restarts it
    measured, and a cost taken at the start would make re-batches that do
    not pay (3.3 s measured where 8 s are lost). The resized job's
    processes take 8 s after the restart before their first step."""
    delay = 8
    big, big_out, first, small = squeezed(cluster, tmp_path, "slowstart", 5,
                                          700, 60, restart_delay=delay)
    try:
        assert_restart_timed(cluster, big, big_out, delay)
    finally:
        cancel(cluster, big, small)


def test_restart_cost_counts_the_steps_of_the_new_run_only(cluster, tmp_path):
    """The steps a job made after its last report and before its
    checkpoint are the old run's, not time the new run saved: a job that
    reports 5 times, then trains on silently for 6 s before it is resized,
    checkpoints about 6 s of steps past its last report, and its restart
    (new processes that wait 4 s before their first step) must still cost
    the signal-to-start time plus those 4 s (a run's first report carries
    no speed, so no steps are taken off; preempted restarts are
    test_preemption's test_preempted_restart_is_not_a_free_restart)."""
    delay = 4
    big, big_out = submit(cluster, tmp_path, "quiet",
                          "optimus,max_ps=8,max_workers=24,ckpt_grace=5,"
                          "steps=700,delta=0.00001", 700,
                          restart_delay=delay, run0_reports=5)
    small = None
    try:
        cluster.wait_job_state(big, {"RUNNING"}, timeout=60)
        sched.wait_progress(cluster, big, 5)
        time.sleep(6)       # silent steps, past the last report
        small, _ = submit(cluster, tmp_path, "quiet-newcomer",
                          "optimus,max_ps=2,max_workers=6", 60)
        assert_restart_timed(cluster, big, big_out, delay)
    finally:
        cancel(cluster, big, *([small] if small else []))


def test_job_ignoring_the_signal_is_requeued_after_grace(cluster, tmp_path):
    stubborn, _ = submit(cluster, tmp_path, "stubborn",
                         "optimus,max_ps=8,max_workers=24,ckpt_grace=4",
                         600, ignore_signal=True)
    other = None
    try:
        cluster.wait_job_state(stubborn, {"RUNNING"}, timeout=60)
        other, _ = submit(cluster, tmp_path, "other",
                          "optimus,max_ps=2,max_workers=6", 30)

        def requeued():
            return "JobId=%d requeued (held) for a resize" % stubborn \
                in cluster.logs("slurmctld")
        wait_for(requeued, 90, "the requeue after the grace period")
        log = cluster.logs("slurmctld")
        signalled = re.search(r"\[([^\]]+)\] sched/optimus: JobId=%d: checkpoint "
                              r"signal" % stubborn, log)
        assert signalled
        wait_for(lambda: cluster.job_fields(stubborn)["Restarts"] == "1", 30,
                 "the restart count")
    finally:
        cancel(cluster, stubborn, *([other] if other else []))


def test_confirmed_checkpoint_ends_the_grace_early(cluster, tmp_path):
    # A grace far longer than the test waits: only the trainer's checkpoint
    # report can let the requeue happen in time.
    big, big_out, _, small = squeezed(cluster, tmp_path, "confirms", 600,
                                      900, 30)
    try:
        second = wait_for(lambda: runs(big_out)[1:2], 90,
                          "a restart long before the grace ends")[0]
        assert second["restart"] == 1 and second["resumed_from"] > 0
        log = cluster.logs("slurmctld")
        assert re.search(r"JobId=%d: checkpoint of step \d+ confirmed" % big,
                         log)
        assert "JobId=%d requeued (held) for a resize" % big in log
    finally:
        cancel(cluster, big, small)


def test_model_state_survives_slurmctld_restart(cluster, tmp_path):
    jid, _ = submit(cluster, tmp_path, "persist",
                    "optimus,max_ps=1,max_workers=2", 300)
    try:
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
        before = wait_for(
            lambda: (lambda j: j.get("step", 0) >= 5 and j)(
                optimusctl(cluster, "show", "job", str(jid))),
            60, "progress in the model")
        cluster.restart_slurmctld()
        assert "recovered model state" in cluster.logs("slurmctld")
        after = optimusctl(cluster, "show", "job", str(jid))
        assert after["first_submit"] == before["first_submit"]
        assert after["step"] >= before["step"]
        assert after["reports"] >= before["reports"]
    finally:
        cancel(cluster, jid)


def test_plan_reports_its_lock_holds(cluster, tmp_path):
    """The longest hold of each lock since the previous
    plan is logged and in the plan's JSON (optimusctl --json plan)."""
    jid, _ = submit(cluster, tmp_path, "locks",
                    "optimus,max_ps=1,max_workers=2", 300)
    try:
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
        holds = wait_for(lambda: optimusctl(cluster, "plan").get(
            "lock_holds"), 30, "lock_holds in the plan")
        assert set(holds) == {"snapshot", "apply", "registry"}
        for site in holds.values():
            assert 0 <= site["last_ms"] <= site["max_ms"] < 60000
        assert holds["apply"]["max_ms"] > 0   # the start was applied
        assert re.search(r"lock holds: longest since the last plan: "
                         r"slurmctld snapshot [0-9.]+ ms, slurmctld apply "
                         r"[0-9.]+ ms, registry [0-9.]+ ms",
                         cluster.logs("slurmctld"))
    finally:
        cancel(cluster, jid)


def test_corrupt_state_file_is_reported_and_set_aside(cluster):
    path = os.path.join(cluster.state_dir, "optimus_state.json")
    cluster.restart_slurmctld()      # writes a valid file on shutdown first
    cluster._kill("slurmctld", timeout=30)
    with open(path, "w") as f:
        f.write('{"format": 1, "jobs": [ {"job_id": "garbage"')
    cluster._start_slurmctld(clean=False)
    assert cluster.run(["scontrol", "ping"]).stdout.find("UP") >= 0
    log = cluster.logs("slurmctld")
    assert "cannot parse state file" in log
    # Set aside under a name of its own: .corrupt.<UTC time>
    assert re.search(r"corrupt state kept as %s\.corrupt\.\d{8}T\d{6}Z"
                     % re.escape(path), log), log


def test_sacct_reports_true_jct(accounting_cluster, tmp_path):
    c = accounting_cluster
    jid, _ = submit(c, tmp_path, "accounted", "optimus,max_workers=2", 10)
    c.wait_job_state(jid, {"COMPLETED"}, timeout=120)

    def comment():
        r = c.run(["sacct", "-n", "-X", "-j", str(jid), "-o",
                   "JobID,SystemComment%400"], check=False)
        return "jct=" in r.stdout and r.stdout
    line = wait_for(comment, 60, "SystemComment with jct= in sacct")
    jct = int(re.search(r"jct=(\d+)s", line).group(1))
    f = c.job_fields(jid)
    assert jct >= 1
    assert "jct=%ds" % jct in f["SystemComment"]


def test_quality_jobs_share_the_cluster(cluster, tmp_path):
    """--scheduler=quality jobs are planned by the loss-reduction policy:
    one plan gives units to both jobs, within the 32 CPUs. The sizes are
    read from one plan (optimusctl plan): each job's SystemComment shows
    the plan that last changed it, and two comments read one after the
    other can come from two plans (1+16 and 1+6, then 1+15 and 1+15: 33
    units read across the two)."""
    jobs = [submit(cluster, tmp_path, "q%d" % i,
                   "quality,max_workers=16,steps=100", 100)[0]
            for i in range(2)]
    try:
        for jid in jobs:
            cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
        assert all((lambda p: p and p[1] >= 1)(plan_of(
            cluster.job_fields(j))) for j in jobs)

        def both_decided():
            d = {x["job_id"]: x for x in
                 optimusctl(cluster, "plan").get("decisions", [])}
            return all(j in d for j in jobs) and [d[j] for j in jobs]
        decided = wait_for(both_decided, 30, "one plan deciding both jobs")
        assert all(x["workers"] >= 1 for x in decided), decided
        assert sum(x["ps"] + x["workers"] for x in decided) <= 32, decided
        assert "optimus: JobId=%d planned" % jobs[0] in cluster.logs("slurmctld")
    finally:
        cancel(cluster, *jobs)


HET_ROLES = ("#!/bin/sh\n"
             "srun -n $OPTIMUS_NUM_PS sh -c 'env > %(d)s/ps.$SLURM_PROCID' "
             ": -n $OPTIMUS_NUM_WORKERS "
             "sh -c 'env > %(d)s/worker.$SLURM_PROCID'\n")


def _env(path):
    return dict(line.split("=", 1) for line in open(path).read().splitlines()
                if "=" in line)


def test_separate_layout_placed_on_disjoint_nodes(cluster, tmp_path):
    """layout=separate: the planner places the PS and the workers on nodes
    of their own, so that a heterogeneous step (component 0 the PS, 1 the
    workers, each on its own node) runs."""
    d = tmp_path / "het"
    d.mkdir()
    jid = cluster.sbatch(["--scheduler=optimus,layout=separate,ps=1,"
                          "workers=3,ckpt_dir=%s" % (tmp_path / "ck"),
                          "-o", str(tmp_path / "het.out")],
                         HET_ROLES % {"d": d})
    try:
        state = cluster.wait_job_state(
            jid, {"COMPLETED", "FAILED", "CANCELLED"}, timeout=90)
        out = open(tmp_path / "het.out").read() if os.path.exists(
            tmp_path / "het.out") else ""
        assert state == "COMPLETED", out + cluster.logs("slurmctld")[-2000:]
        files = sorted(os.listdir(d))
        assert files == ["ps.0", "worker.1", "worker.2", "worker.3"], files
        envs = {f: _env(os.path.join(d, f)) for f in files}
        ps_nodes = {envs["ps.0"]["SLURMD_NODENAME"]}
        wk_nodes = {e["SLURMD_NODENAME"] for f, e in envs.items()
                    if f.startswith("worker")}
        assert not ps_nodes & wk_nodes, (ps_nodes, wk_nodes)
        for f, e in envs.items():
            assert e["OPTIMUS_ROLE"] == f.split(".")[0]
            assert e["OPTIMUS_TOPOLOGY"] == "ps=1,workers=3"
        assert cluster.job_fields(jid)["NumNodes"] == "2"
    finally:
        cancel(cluster, jid)


def test_failed_job_says_why_in_its_system_comment(cluster, tmp_path):
    """A job that failed shows in its SystemComment how it ended (state
    and exit code, as sacct words them), not a finished prediction
    (`remaining=0 steps eta=0s`)."""
    jid = cluster.sbatch(["--scheduler=optimus,max_ps=1,max_workers=1",
                          "-D", str(tmp_path), "-o", str(tmp_path / "f.out")],
                         "#!/bin/sh\nsleep 3\nexit 3\n")
    try:
        # done: the final summary carries the true completion time
        f = wait_for(lambda: (lambda f: f.get("JobState") == "FAILED" and
                              "jct=" in f["SystemComment"] and f)(
            cluster.job_fields(jid)), 90, "the failed job's final summary")
        assert "failed: FAILED exit=3:0" in f["SystemComment"], f
        assert "eta=" not in f["SystemComment"], f
    finally:
        cancel(cluster, jid)


def test_show_job_text_names_the_job(cluster, tmp_path):
    """`optimusctl show job N` prints the tracked job's id and uid (the
    model's JSON says job_id and uid), never `Job 0: uid 0`."""
    jid, _ = submit(cluster, tmp_path, "named",
                    "optimus,max_ps=1,max_workers=1", 300)
    try:
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
        j = wait_for(lambda: (lambda j: j.get("reports", 0) >= 1 and j)(
            optimusctl(cluster, "show", "job", str(jid))), 60, "a report")
        out = cluster.run([OPTIMUSCTL, "show", "job", str(jid)]).stdout
        first = out.splitlines()[0]
        assert first.startswith("Job %d: uid %d, " % (jid, j["uid"])), out
    finally:
        cancel(cluster, jid)


def test_epoch_target_from_whole_epoch_reports(cluster, tmp_path):
    """A job that gives epochs= but not epoch_steps= and reports its epoch
    as a `for epoch in range(3)` loop does (the epoch in progress: 0, 1,
    2) runs to 3 epochs of 200 steps. Its target, as optimusctl shows it,
    must be 600 steps within what its reports tell (one every 20 steps:
    the epoch began between two of them, 3 x 10 steps either way).
    step / epoch took the epoch index for epochs done: 3 x 340 / 1 = 1020
    steps at step 340, in epoch 1 (the replay bench's NCF jobs: with 24 s
    predicted left and 9 s left they would re-batch for nothing)."""
    lines = ["#!/bin/sh"]
    for step in range(20, 341, 20):
        lines.append("%s progress --step %d --loss %g --epoch %d || exit 3"
                     % (sched.OPTIMUS_REPORT, step, 10.0 / step,
                        (step - 1) // 200))
    lines.append("sleep 300")
    jid = cluster.sbatch(["--scheduler=optimus,max_workers=1,epochs=3",
                          "-D", str(tmp_path), "-o", "/dev/null"],
                         script="\n".join(lines) + "\n")
    try:
        j = wait_for(lambda: (lambda j: j.get("step") == 340 and j)(
            optimusctl(cluster, "show", "job", str(jid))), 90,
            "the report of step 340")
        assert abs(j["target_steps"] - 600) <= 30, j["target_steps"]
    finally:
        cancel(cluster, jid)


def test_gate_date_in_the_man_page_is_the_gate(cluster, tmp_path):
    """sched_optimus(8) names the gate's date as the code sets it,
    2097-08-05T09:04:00 UTC. The date the man page gives is the begin
    time a waiting optimus job shows."""
    import calendar
    man = open(os.path.join(TOP, "doc", "man", "sched_optimus.8")).read()
    m = re.search(r"\((2097-\d\d-\d\d(?:T[\d:]+)?)", man)
    assert m, "no gate date in sched_optimus.8"
    text = m.group(1) if "T" in m.group(1) else m.group(1) + "T00:00:00"
    documented = calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%S"))
    jid = cluster.sbatch(["--hold", "--scheduler=optimus,max_workers=1",
                          "-D", str(tmp_path), "-o", "/dev/null"])
    try:
        f = cluster.job_fields(jid)
        shown = time.mktime(time.strptime(f["StartTime"], "%Y-%m-%dT%H:%M:%S"))
        assert shown == documented, (f["StartTime"], m.group(1))
    finally:
        cancel(cluster, jid)


def test_optimusctl_shows_the_settings_in_force(cluster):
    """`optimusctl show config` shows the values sched/optimus runs with
    (optimus.conf's and the defaults), and `scontrol reconfigure` logs what
    it re-read."""
    r = cluster.run([OPTIMUSCTL, "show", "config"], check=False)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    # this cluster's optimus.conf, then defaults it leaves out
    for kv in ("PlanInterval=2", "MinResizeInterval=5", "RestartCost=2",
               "Damping=0.95", "ResizeThreshold=0.1", "Policy=optimus"):
        assert kv in lines, (kv, r.stdout)
    j = json.loads(cluster.run([OPTIMUSCTL, "--json", "show", "config"]).stdout)
    assert j["MinResizeInterval"] == "5" and j["LargeJobTasks"] == "16", j
    before = len(cluster.logs("slurmctld"))
    cluster.run(["scontrol", "reconfigure"])
    wait_for(lambda: re.search(r"sched/optimus: read \S+optimus\.conf: .*"
                               r"MinResizeInterval=5 RestartCost=2",
                               cluster.logs("slurmctld")[before:]),
             30, "the re-read settings in slurmctld.log")


def test_waiting_job_reason_in_squeue_is_stable(cluster, tmp_path):
    """squeue's reason for a waiting optimus job does not flip between
    BeginTime and optimus' own reason (set at each plan, cleared by Slurm's
    scheduler). It stays BeginTime; the planner's reason is in the
    SystemComment."""
    blocker = cluster.sbatch(["-N4", "--exclusive", "-o", "/dev/null"],
                             "#!/bin/sh\nsleep 300\n")
    jid = None
    try:
        cluster.wait_job_state(blocker, {"RUNNING"})
        jid, _ = submit(cluster, tmp_path, "stable", "optimus", 20)
        wait_for(lambda: " waiting: " in cluster.job_fields(jid).get(
            "SystemComment", ""), 30, "a plan for the waiting job")
        seen = []
        start = time.time()
        # squeue sampled across six plans, each of which could have set
        # the reason again; the pause only spaces the samples out.
        while plans_since(cluster, start) < 6:
            seen.append(cluster.run(["squeue", "-h", "-j", str(jid), "-o",
                                     "%R"]).stdout.strip())
            time.sleep(0.2)
        assert set(seen) == {"(BeginTime)"}, seen
    finally:
        cancel(cluster, blocker, *([jid] if jid else []))


def test_a_run_no_plan_saw_is_in_the_record(cluster, tmp_path):
    """A job that starts and ends between two of the planner's looks at
    Slurm (a run of a few hundred ms; the planner looks about once a
    second) has run: its record says so, with the run's size and start as
    Slurm has them. Before, such a run was never recorded: the record went
    from pending to done with no run (found with the last-moment
    statistics test: runs [], so no batch_now). Short jobs one after the
    other, each with its run checked, until one ended unseen (the
    planner's line); the test fails if none of 10 did, so that it never
    passes without the case. A job cancelled while pending did not run
    (Slurm gives it a start time, its cancel's): its record has no run."""
    held = cluster.sbatch(["-H", "--scheduler=optimus,mode=allreduce,"
                           "min_workers=1,max_workers=1", "-J", "never",
                           "-D", str(tmp_path)], "#!/bin/sh\ntrue\n")
    wait_for(lambda: "tracking JobId=%d " % held in
             cluster.logs("slurmctld"), 20, "the held job tracked")
    cluster.run(["scancel", str(held)])
    m = wait_for(lambda: (lambda j: j.get("phase") == "done" and j)(
        optimusctl(cluster, "show", "job", str(held))), 20,
        "the cancelled job done in its record")
    assert m["runs"] == [], m
    seen = []
    for k in range(10):
        job = cluster.sbatch(
            ["--scheduler=optimus,mode=allreduce,min_workers=1,"
             "max_workers=1", "-J", "short%d" % k, "-D", str(tmp_path),
             "-o", str(tmp_path / ("short-%d.out" % k))], "#!/bin/sh\ntrue\n")
        wait_for(lambda: cluster.job_fields(job).get("JobState") ==
                 "COMPLETED", 90, "job %d to complete" % job)
        m = wait_for(lambda: (lambda j: j.get("phase") == "done" and j)(
            optimusctl(cluster, "show", "job", str(job))), 20,
            "job %d done in its record" % job)
        assert len(m["runs"]) == 1, (job, m)
        run = m["runs"][0]
        assert (run["workers"], run["nodes"]) == (1, 1), (job, run)
        started = cluster.job_fields(job)["StartTime"]
        assert time.strftime("%Y-%m-%dT%H:%M:%S",
                             time.localtime(run["start"])) == started, \
            (job, run, started)
        if ("JobId=%d ran and ended between two plans" % job in
                cluster.logs("slurmctld")):
            return
        seen.append(job)
    pytest.fail("every job (%s) was seen running: the case was not tested"
                % seen)

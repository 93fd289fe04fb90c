# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Requeue, the status query and the state file hold against users, on a
real cluster, each attack made by an ordinary Unix user:

- the owner's `scontrol requeue` of a finished optimus job, and
  `scontrol requeuehold` then `release` of a running one, go back through
  the plan (a `planned` line before the job runs again; the gate closed
  while it is held), the record takes the new run as a new pending run
  (no resize counted) and a report of the old run is refused;
- `status` and `plan` answer an ordinary user with their own jobs only,
  `status` at most
  ReportStatusMaxJobs records with a `truncated` marker; 250 connections of
  another user asking `status` every 2 s for 60 s without ever reading
  their replies do not keep a job's 20 reports from landing, and
  slurmctld's memory (RSS) comes back within 10% of before;
- a job's own reports cannot make its record unloadable (the largest step
  accepted, then smaller ones), and a record holding a value out of its
  bound loads with that field refused, the rest kept, nothing set aside.
"""
import json
import os
import subprocess
import time

import sched_helpers as sched
from attack_helpers import GENUINE, genuine_reports, wait_landed
from report_helpers import (as_user, client_env, open_to_every_user,
                            unix_user)
from sched_helpers import OPTIMUS_REPORT, cancel, optimusctl
from sched_helpers import set_aside, state_path
from waiting import wait_for, wait_plans

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# The planner tests' cluster, and a small cap on status replies so that a
# handful of jobs exceeds it.
STATUS_MAX_JOBS = 5
CLUSTER_OPTIONS = dict(sched.CLUSTER_OPTIONS)
CLUSTER_OPTIONS["optimus_conf"] = (sched.CLUSTER_OPTIONS["optimus_conf"] +
                                   "ReportStatusMaxJobs=%d\n" % STATUS_MAX_JOBS)

OWNER = "optimus-owner"
READER = "optimus-reader"
SILENT = "#!/bin/sh\nsleep 600\n"

READERS = 250
HELD_JOBS = 3000
READ_PERIOD_S = 2
ATTACK_S = 60
# Source addresses of the readers (loopback only), so that all 250 are
# held at once under ReportMaxPeerConnections (64 per address).
READER_ADDRS = ["127.0.1.%d" % i for i in range(1, 5)]


def user_sbatch_script(cluster, user, hints, script):
    env = cluster.env()
    r = subprocess.run(["runuser", "-u", user, "--", "sbatch", "--parsable",
                        "--scheduler=" + hints, "-o", "/dev/null",
                        "--chdir=/tmp"], input=script, env=env,
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.strip().split(";")[0])


def record(cluster, jid):
    return optimusctl(cluster, "show", "job", str(jid))


def planned_lines(log, jid):
    return log.count("sched/optimus: JobId=%d planned:" % jid)


def setup_users(cluster):
    client_env(cluster)
    open_to_every_user(cluster)
    unix_user(OWNER)
    unix_user(READER)


def old_run_report(cluster, user, jid, run, step):
    """optimus-report progress naming run `run` of jid, as `user` (the
    environment of a task of that run): its exit code and stderr."""
    env = dict(cluster.env(), SLURM_JOB_ID=str(jid),
               SLURM_RESTART_COUNT=str(run))
    env.pop("OPTIMUS_REPORT_ADDR", None)
    r = as_user(user, [OPTIMUS_REPORT, "progress", "--job", str(jid),
                       "--step", str(step), "--loss", "0.5"], env)
    return r.returncode, r.stderr


# ---------------------------------------------------------------- item 6

def test_owner_requeue_of_a_finished_job_goes_through_the_plan(cluster):
    setup_users(cluster)
    jid = user_sbatch_script(cluster, OWNER, "optimus,max_workers=2",
                             "#!/bin/sh\nsleep 3\n")
    try:
        cluster.wait_job_state(jid, {"COMPLETED"}, timeout=90)
        wait_for(lambda: record(cluster, jid).get("phase") == "done", 30,
                 "the record done")
        mark = len(cluster.logs())
        r = as_user(OWNER, ["scontrol", "requeue", str(jid)], cluster.env())
        assert r.returncode == 0, r.stderr
        # The gate holds it until a plan releases it: a `planned` line.
        wait_for(lambda: planned_lines(cluster.logs()[mark:], jid) >= 1, 40,
                 "a planned line for the requeued JobId=%d (log: %s)"
                 % (jid, cluster.logs()[mark:][-3000:]))
        rec = record(cluster, jid)
        assert rec["phase"] in ("pending", "running", "done"), rec
        # A report of the run that ended (run 0) is refused.
        rc, err = old_run_report(cluster, OWNER, jid, 0, 777)
        assert rc != 0 and "run" in err, (rc, err)
        cluster.wait_job_state(jid, {"COMPLETED"}, timeout=90)
        rec = wait_for(lambda: (lambda j: j.get("phase") == "done" and j)(
            record(cluster, jid)), 30, "the record done again")
        # Two runs, neither a resize nor a restart of one.
        assert len(rec["runs"]) == 2, rec["runs"]
        assert rec["restarts"] == 0 and rec["resizes"] == 0, rec
        assert rec["fault_restarts"] == 0, rec
        assert rec["step"] != 777, rec
        log = cluster.logs()[mark:]
        assert "JobId=%d done:" % jid in log
        assert "JobId=%d done: completion time" % jid in log
        assert "0 resizes" in log.split("JobId=%d done:" % jid)[-1] \
            .splitlines()[0], log
    finally:
        cancel(cluster, jid)


def test_owner_requeuehold_of_a_running_job_waits_at_the_gate(cluster):
    setup_users(cluster)
    jid = user_sbatch_script(cluster, OWNER, "optimus,max_workers=2", SILENT)
    try:
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=90)
        r = as_user(OWNER, ["scontrol", "requeuehold", str(jid)],
                    cluster.env())
        assert r.returncode == 0, r.stderr
        cluster.wait_job_state(jid, {"PENDING"}, timeout=60)
        # Longer than Slurm's own delay after a requeue (cred_expire + 1)
        wait_plans(cluster, 3, since=time.time() + 7)
        f = cluster.job_fields(jid)
        # Held by its owner, and at optimus' gate (2097-08-05) as well.
        assert f["Reason"] in ("JobHeldUser", "job_requeued_in_held_state") \
            or "held" in f["Reason"], f
        assert f["EligibleTime"].startswith("2097") or \
            f.get("BeginTime", "").startswith("2097"), f
        mark = len(cluster.logs())
        r = as_user(OWNER, ["scontrol", "release", str(jid)], cluster.env())
        assert r.returncode == 0, r.stderr
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=90)
        assert planned_lines(cluster.logs()[mark:], jid) >= 1, \
            cluster.logs()[mark:][-3000:]
        rec = record(cluster, jid)
        assert rec["resizes"] == 0 and rec["restarts"] == 0, rec
    finally:
        cancel(cluster, jid)


def test_owner_requeue_of_a_running_job_goes_through_the_plan(cluster):
    """A running job requeued by its owner (not held): planned again
    before it runs again, never counted as a resize (Slurm's requeue of a
    run is a fault restart, resuming from the last checkpoint:
    sched_optimus(8) FAULTS)."""
    setup_users(cluster)
    jid = user_sbatch_script(cluster, OWNER, "optimus,max_workers=2", SILENT)
    try:
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=90)
        wait_for(lambda: record(cluster, jid).get("phase") == "running", 30,
                 "the record running")
        mark = len(cluster.logs())
        r = as_user(OWNER, ["scontrol", "requeue", str(jid)], cluster.env())
        assert r.returncode == 0, r.stderr
        wait_for(lambda: planned_lines(cluster.logs()[mark:], jid) >= 1, 40,
                 "a planned line for the requeued JobId=%d" % jid)
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=90)
        rec = wait_for(lambda: (lambda j: len(j.get("runs", [])) == 2 and j)(
            record(cluster, jid)), 30, "the second run recorded")
        assert rec["resizes"] == 0 and rec["restarts"] == 0, rec
        rc, err = old_run_report(cluster, OWNER, jid, 0, 777)
        assert rc != 0 and "old_run" in err, (rc, err)
    finally:
        cancel(cluster, jid)


# ---------------------------------------------------------------- item 7

# The readers: n connections (spread over the given source addresses)
# that each send a signed `status` query every `period` seconds for
# `seconds` and never read a byte; one the listener dropped is opened
# again, as an attacker would. Prints the queries sent, the sends that
# would have blocked, and the connections opened.
READER_SCRIPT = r"""
import os, socket, sys, time
import optimus_report as o
port, n, period, seconds = map(int, sys.argv[1:5])
addrs = sys.argv[5].split(",")
def dial(i):
    s = socket.socket()
    s.bind((addrs[i % len(addrs)], 0))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    s.setblocking(False)
    return s
socks = [None] * n
sent = blocked = opened = 0
end = time.time() + seconds
while time.time() < end:
    t0 = time.time()
    for i in range(n):
        if time.time() >= end:
            break
        try:
            if socks[i] is None:
                socks[i] = dial(i)
                opened += 1
            p = o.message("query", query="status")
            data = o.frame(p, o.sign(p.encode(), os.environ["MUNGE_SOCKET"]))
            socks[i].send(data)
            sent += 1
        except BlockingIOError:
            blocked += 1
        except OSError:
            if socks[i] is not None:
                socks[i].close()
            socks[i] = None
    time.sleep(max(0.0, period - (time.time() - t0)))
print(sent, blocked, opened, flush=True)
"""


def rss_kb(cluster):
    pid = int(open(cluster._pidfile("slurmctld")).read().strip())
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS for slurmctld %d" % pid)


def query_as(cluster, user, query):
    """`optimusctl --json QUERY` run as `user`, its answer."""
    env = dict(cluster.env())
    env.pop("OPTIMUS_REPORT_ADDR", None)
    r = as_user(user, [sched.OPTIMUSCTL, "--json", query], env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def status_as(cluster, user):
    return query_as(cluster, user, "status")


def test_status_shows_a_user_their_own_jobs_bounded(cluster):
    setup_users(cluster)
    mine = [user_sbatch_script(cluster, READER, "optimus,max_workers=1",
                               SILENT) for _ in range(2)]
    others = [user_sbatch_script(cluster, OWNER, "optimus,max_workers=1",
                                 SILENT) for _ in range(STATUS_MAX_JOBS + 2)]
    try:
        # Every job tracked (the planner learns new jobs at its next
        # interval), not only as many as one reply shows.
        wait_for(lambda: status_as(cluster, "root").get("jobs_total", 0) >=
                 len(mine) + len(others), 60, "the jobs tracked")
        seen = status_as(cluster, READER)
        ids = {j["job_id"] for j in seen["jobs"]}
        assert ids == set(mine), (ids, mine)
        assert not seen.get("truncated"), seen
        assert all(r.get("job") in mine for r in seen.get("reporting", [])), \
            seen
        root = status_as(cluster, "root")
        assert len(root["jobs"]) == STATUS_MAX_JOBS, len(root["jobs"])
        assert root.get("truncated") is True, root.keys()
        assert root.get("jobs_total", 0) >= len(mine) + len(others), root
    finally:
        cancel(cluster, *(mine + others))


def plan_as(cluster, user):
    return query_as(cluster, user, "plan")


def test_plan_shows_a_user_the_decisions_of_their_own_jobs(cluster):
    """`optimusctl plan` follows the rule `status` follows: an ordinary
    user sees the decisions about their own jobs only (the plan's counts
    stay: they name no job); root sees every decision."""
    setup_users(cluster)
    mine = [user_sbatch_script(cluster, READER, "optimus,max_workers=1",
                               SILENT)]
    others = [user_sbatch_script(cluster, OWNER, "optimus,max_workers=1",
                                 SILENT) for _ in range(2)]
    try:
        def decided():
            ids = {d["job_id"] for d in plan_as(cluster, "root")
                   .get("decisions", [])}
            return set(mine + others) <= ids
        wait_for(decided, 90, "a plan deciding about every job")
        seen = plan_as(cluster, READER)
        ids = {d["job_id"] for d in seen.get("decisions", [])}
        assert ids == set(mine), (ids, mine)
        assert "nstart" in seen, seen.keys()
    finally:
        cancel(cluster, *(mine + others))


def held_jobs(cluster, n, threads=4):
    """n held optimus jobs of root (no CPU taken: held, never planned),
    submitted by a few sbatch at once."""
    from concurrent.futures import ThreadPoolExecutor
    args = ["-H", "--scheduler=optimus,max_workers=1", "-o", "/dev/null"]
    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(lambda _: cluster.sbatch(args, SILENT),
                             range(n)))


def test_readers_that_never_read_hold_neither_memory_nor_the_listener(
        cluster):
    env = client_env(cluster)
    setup_users(cluster)
    # The registry the tester attacked held many records: HELD_JOBS of
    # another user.
    jobs = []
    genuine = cluster.sbatch(["--scheduler=optimus,max_workers=1", "-o",
                              "/dev/null"], SILENT)
    try:
        jobs = held_jobs(cluster, HELD_JOBS)
        cluster.wait_job_state(genuine, {"RUNNING"}, timeout=90)
        wait_for(lambda: status_as(cluster, "root").get(
            "jobs_total", len(status_as(cluster, "root")["jobs"])) >=
            HELD_JOBS + 1, 120, "the %d jobs tracked" % (HELD_JOBS + 1))
        wait_plans(cluster, 3)
        before = rss_settled(cluster)
        e = dict(env, PYTHONPATH=os.path.join(TOP, "python"))
        readers = subprocess.Popen(
            ["runuser", "-u", READER, "--", "/usr/bin/python3", "-c",
             READER_SCRIPT, str(cluster.ports["report"]), str(READERS),
             str(READ_PERIOD_S), str(ATTACK_S), ",".join(READER_ADDRS)],
            env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            peak = max(rss_kb(cluster) for _ in range(ATTACK_S // 6)
                       if time.sleep(1) is None)
            t0 = time.time()
            failures = genuine_reports(genuine, 1000)
            genuine_s = time.time() - t0
            peak = max(peak, rss_kb(cluster))
            out, err = readers.communicate(timeout=ATTACK_S * 3)
        finally:
            if readers.poll() is None:
                readers.kill()
                readers.wait()
        steps = set(range(1000, 1000 + GENUINE))
        missing = wait_landed(genuine, steps, timeout=30)
        # The readers are gone: slurmctld gives their memory back.
        after = wait_for_rss(cluster, before)
        print("\nstatus readers: %d jobs tracked; %d connections x status "
              "every %ds for %ds (queries sent, sends that would block, "
              "connections opened: %s); genuine reports %d/%d accepted "
              "(in %.1fs), %d/%d landed; slurmctld RSS before %d kB, "
              "peak %d kB, after %d kB (%+.1f%%)"
              % (HELD_JOBS + 1, READERS, READ_PERIOD_S, ATTACK_S,
                 out.strip(), GENUINE - len(failures), GENUINE, genuine_s,
                 GENUINE - len(missing), GENUINE, before, peak, after,
                 100.0 * (after - before) / before))
        assert readers.returncode == 0, err
        assert not failures, failures
        assert not missing, missing
        assert after <= before * 1.10, (before, peak, after)
    finally:
        cancel(cluster, genuine)
        cancel_held(cluster, jobs)


def cancel_held(cluster, jobs):
    """scancel the held jobs and wait until Slurm has none of them
    pending (held jobs hold no nodes: one squeue, not one per job)."""
    for k in range(0, len(jobs), 500):
        cluster.run(["scancel"] + [str(j) for j in jobs[k:k + 500]],
                    check=False)
    wait_for(lambda: not cluster.run(["squeue", "-h", "-t", "PD", "-o",
                                      "%i"], check=False).stdout.strip(),
             120, "the held jobs cancelled")


def rss_settled(cluster, window=10, tolerance=0.02, timeout=180):
    """slurmctld's RSS once it stopped growing: no reading over `window`
    seconds more than `tolerance` above the window's first. With thousands
    of jobs just submitted slurmctld keeps growing for a while (state saves,
    the planner's records): on a loaded CI lane a reading taken at once was
    90 MB where the same cluster settles at 135 MB, and the growth that
    followed was counted against the readers."""
    deadline = time.time() + timeout
    while True:
        first = rss_kb(cluster)
        readings = [first]
        for _ in range(window):
            time.sleep(1)
            readings.append(rss_kb(cluster))
        if max(readings) <= first * (1 + tolerance) or time.time() > deadline:
            return max(readings)


def wait_for_rss(cluster, before, timeout=30):
    deadline = time.time() + timeout
    while True:
        now = rss_kb(cluster)
        if now <= before * 1.10 or time.time() > deadline:
            return now
        time.sleep(1)


# ---------------------------------------------------------------- item 8

def max_step():
    """The largest step a report may carry (report/protocol.h)."""
    import re
    text = open(os.path.join(TOP, "src", "common", "report",
                             "protocol.h")).read()
    m = re.search(r"#define PROTOCOL_MAX_STEP \(INT64_C\(1\) << (\d+)\)",
                  text)
    assert m, "no PROTOCOL_MAX_STEP in protocol.h"
    return 2 ** int(m.group(1))


def saved_reports(cluster, jid):
    """The reports of jid's record in the state file, None while the file
    holds no record of it yet (the planner saves it at its next save)."""
    with open(state_path(cluster)) as f:
        return next((j["reports"] for j in json.load(f)["jobs"]
                     if j["job_id"] == jid), None)


def test_reports_never_make_their_record_unloadable(cluster):
    setup_users(cluster)
    jid = user_sbatch_script(cluster, OWNER, "optimus,max_workers=2", SILENT)
    env = dict(cluster.env())
    env.pop("OPTIMUS_REPORT_ADDR", None)
    try:
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=90)
        aside = set_aside(cluster)
        top = max_step()
        for step in (top, 400, 410, 420):
            r = as_user(OWNER, [OPTIMUS_REPORT, "progress", "--job",
                                str(jid), "--step", str(step), "--loss",
                                "0.5"], env)
            assert r.returncode == 0, r.stderr
        wait_for(lambda: record(cluster, jid).get("reports") == 4, 30,
                 "the 4 reports in the record")
        wait_for(lambda: saved_reports(cluster, jid) == 4, 30,
                 "the record saved")
        mark = len(cluster.logs())
        cluster.restart_slurmctld()
        wait_plans(cluster, 1)
        log = cluster.logs()[mark:]
        assert "job record" not in log and "refused" not in log, log
        rec = record(cluster, jid)
        assert rec["reports"] == 4 and rec["step"] == 420, rec
        assert rec["runs"][-1]["steps_done"] <= top, rec["runs"]
        assert set_aside(cluster) == aside, set_aside(cluster)
    finally:
        cancel(cluster, jid)


def test_a_field_out_of_bound_loses_only_that_field(cluster):
    setup_users(cluster)
    jid = user_sbatch_script(cluster, OWNER, "optimus,max_workers=2", SILENT)
    env = dict(cluster.env())
    env.pop("OPTIMUS_REPORT_ADDR", None)
    try:
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=90)
        for step in (10, 20, 30):
            r = as_user(OWNER, [OPTIMUS_REPORT, "progress", "--job",
                                str(jid), "--step", str(step), "--loss",
                                "0.5"], env)
            assert r.returncode == 0, r.stderr
        wait_for(lambda: saved_reports(cluster, jid) == 3, 30,
                 "the record saved")
        # Five older set-aside copies (of other faults) must all stay.
        path = state_path(cluster)
        for i in range(5):
            with open("%s.corrupt.20200101T00000%dZ" % (path, i), "w") as f:
                f.write("an older fault's copy %d" % i)
        aside = set_aside(cluster)
        for restart in range(2):
            cluster._kill("slurmctld", timeout=30)
            with open(path) as f:
                state = json.load(f)
            for j in state["jobs"]:
                if j["job_id"] == jid:
                    j["runs"][-1]["steps_done"] = 2.0 ** 60
                    j["loss"] = -1
            with open(path, "w") as f:
                json.dump(state, f)
            mark = len(cluster.logs())
            cluster._start_slurmctld(clean=False)
            wait_plans(cluster, 1)
            log = cluster.logs()[mark:]
            assert "JobId=%d" % jid in log and "steps_done" in log, log
            assert "job record 0 ignored" not in log, log
            rec = record(cluster, jid)
            assert rec["reports"] == 3 and rec["step"] == 30, rec
            assert rec["runs"], rec
            assert "found running without a record" not in log, log
            assert set_aside(cluster) == aside, (set_aside(cluster), aside)
    finally:
        cancel(cluster, jid)

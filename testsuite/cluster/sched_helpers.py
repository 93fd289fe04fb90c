# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Helpers shared by the planner tests (test_sched.py, test_promises.py,
test_stragglers.py, test_state_faults.py, test_mass_cancel.py): the
synthetic trainer as a batch job, its runs, the plan in its SystemComment,
cancelling jobs until they hold no nodes, optimus.conf rewritten."""
import glob
import json
import os
import re

from cluster import ClusterError
from waiting import log_time, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
TRAINER = os.path.join(TOP, "testsuite", "integration", "workloads",
                       "synthetic_trainer.py")
OPTIMUSCTL = os.path.join(TOP, "src", "tools", "optimusctl")
OPTIMUS_REPORT = os.path.join(TOP, "src", "tools", "optimus-report")

# The cluster of the planner tests (a test module sets its CLUSTER_OPTIONS
# to it): plans every 2 s, resizes allowed 5 s after a start.
CLUSTER_OPTIONS = {
    "cred_expire": 5,
    "optimus_conf": "PlanInterval=2\nMinResizeInterval=5\nRestartCost=2\n",
}
MIN_RESIZE_INTERVAL = 5


def trainer_script(steps, ignore_signal=False, ckpt_seconds=0,
                   restart_delay=0, run0_reports=0, handler_delay=0):
    if ignore_signal:
        # A job that says it can checkpoint (else it is never
        # resized) but ignores the signal: the shell and its child.
        return ("#!/bin/sh\ntrap '' USR1\n"
                "/usr/bin/python3 -c 'import signal,sys,time\n"
                "sys.path.insert(0, \"%s\")\n"
                "import optimus_report\n"
                "signal.signal(signal.SIGUSR1, signal.SIG_IGN)\n"
                "optimus_report.Reporter().checkpoint(0)\n"
                "time.sleep(%d)'\n" % (os.path.join(TOP, "python"), steps))
    # restart_delay: a run after a requeue takes that long before its first
    # step (processes that start slowly, a checkpoint that loads slowly).
    delay = ('[ "${SLURM_RESTART_COUNT:-0}" -gt 0 ] && sleep %d\n' %
             restart_delay) if restart_delay else ""
    # run0_reports: the first run reports that many times, then goes quiet.
    # handler_delay: every run's process takes that long before it
    # installs its checkpoint handler and declares; the signal kills it
    # until then (exec: no shell traps it for the process).
    return ("#!/bin/sh\n%sOPTIMUS_TEST_CKPT_SECONDS=%g "
            "OPTIMUS_TEST_RUN0_REPORTS=%d OPTIMUS_TEST_HANDLER_DELAY=%g "
            "exec /usr/bin/python3 %s %d\n"
            % (delay, ckpt_seconds, run0_reports, handler_delay, TRAINER,
               steps))


def submit(cluster, tmp_path, name, hints, steps, open_mode="append",
           **kw):
    """The synthetic trainer as job `name`: (job id, its output file).
    open_mode None: sbatch is given no --open-mode (job_submit/optimus
    chooses)."""
    out = str(tmp_path / ("%s.out" % name))
    # Own checkpoint folder: job ids repeat across test clusters.
    hints += ",ckpt_dir=%s" % (tmp_path / ("ckpt-" + name))
    mode = ["--open-mode=" + open_mode] if open_mode else []
    jid = cluster.sbatch(["--scheduler=" + hints, "-J", name] + mode +
                         ["-D", str(tmp_path), "-o", out],
                         trainer_script(steps, **kw))
    return jid, out


def plan_of(fields):
    m = re.search(r"plan=(\d+)/(\d+)", fields.get("SystemComment", ""))
    return (int(m.group(1)), int(m.group(2))) if m else None


def runs(out):
    """The trainer's start lines: one per run (restart, ps, workers, step)."""
    try:
        lines = open(out).read().splitlines()
    except OSError:
        return []
    return [json.loads(l) for l in lines if l.startswith('{"restart"')]


ENDED = {"CANCELLED", "COMPLETED", "FAILED", "TIMEOUT", "NODE_FAIL",
         "PREEMPTED", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"}


def cancel(cluster, *jobs):
    """scancel, and wait until the jobs hold no nodes: scancel returns at
    once and a cancelled job keeps its resources while it completes, so the
    next test (which may need the whole cluster) would find them taken."""
    cluster.run(["scancel"] + [str(j) for j in jobs], check=False)
    for j in jobs:
        try:
            cluster.wait_job_state(j, ENDED, timeout=60)
        except ClusterError:
            pass    # already purged, or reported by the test that follows


def write_optimus_conf(cluster, text):
    """Replace the cluster's optimus.conf (a test then runs `scontrol
    reconfigure`)."""
    with open(os.path.join(cluster.etc, "optimus.conf"), "w") as f:
        f.write(text)



def state_path(cluster):
    """sched/optimus's state file in the cluster's StateSaveLocation."""
    return os.path.join(cluster.state_dir, "optimus_state.json")


def set_aside(cluster):
    """The set-aside copies of the state file (any name the plugin uses)."""
    path = state_path(cluster)
    return sorted(p for p in glob.glob(path + ".*")
                  if p not in (path + ".new", path + ".prev"))


def optimusctl(cluster, *args):
    r = cluster.run([OPTIMUSCTL, "--json"] + list(args))
    return json.loads(r.stdout)


def wait_progress(cluster, jid, n, timeout=60):
    """Wait until the planner's record of jid holds n progress reports
    (the synthetic trainer sends one a second): "some progress" made and
    seen, whatever the machine's load. Returns the record."""
    return wait_for(lambda: (lambda j: j.get("reports", 0) >= n and j)(
        optimusctl(cluster, "show", "job", str(jid))), timeout,
        "%d progress reports of job %d" % (n, jid))


def squeezed(cluster, tmp_path, name, grace, steps, newcomer_steps, **kw):
    """An elastic job (trainer_script's `kw`) that takes the whole cluster,
    then a newcomer it must make room for: (job, its output, its first run,
    the newcomer)."""
    # steps= caps the remaining work the model predicts; the small delta
    # keeps the fitted curve from calling the job converged early.
    big, big_out = submit(cluster, tmp_path, name,
                          "optimus,max_ps=8,max_workers=24,ckpt_grace=%d,"
                          "steps=%d,delta=0.00001" % (grace, steps), steps,
                          **kw)
    try:
        cluster.wait_job_state(big, {"RUNNING"}, timeout=60)
        first = wait_for(lambda: runs(big_out), 30, "the first run")[0]
        wait_progress(cluster, big, 5)             # some progress
        small, _ = submit(cluster, tmp_path, name + "-newcomer",
                          "optimus,max_ps=2,max_workers=6", newcomer_steps)
    except Exception:
        cancel(cluster, big)
        raise
    return big, big_out, first, small


def trainer_lines(out):
    """Every line the synthetic trainer printed (start, declared,
    checkpoint, done), in order."""
    try:
        lines = open(out).read().splitlines()
    except OSError:
        return []
    return [json.loads(l) for l in lines if l.startswith("{")]


# slurmctld's line for each checkpoint signal it sent (apply.c act_signal).
_SIGNAL_SENT = r"^\[([0-9T:.-]+)\] sched/optimus: JobId=%d: checkpoint signal"


def signals_unanswered(cluster, jid, out):
    """The checkpoint signals slurmctld sent job jid (the synthetic
    trainer) that found no run ready for them. Each signal is matched with
    the run its output shows in progress then (the last start before it):
    it was answered if that run had declared before it and wrote a
    checkpoint after it. A signal that came before the run's declaration
    (the process not yet started, or its handler not yet in place) kills
    the process and is never answered. Returns (signals sent, [(time, why)
    of each unanswered one])."""
    sent = [log_time(m.group(1)) for m in
            re.finditer(_SIGNAL_SENT % jid, cluster.logs(), re.M)]
    lines = trainer_lines(out)
    bad = []
    for t in sent:
        run = [i for i, l in enumerate(lines) if "restart" in l and
               l["at"] <= t]
        if not run:
            bad.append((t, "before any run started"))
            continue
        start = run[-1]
        after = lines[start + 1:]
        end = next((i for i, l in enumerate(after) if "restart" in l),
                   len(after))
        declared = [l["at"] for l in after[:end] if "declared" in l]
        answered = [l["at"] for l in after[:end]
                    if "checkpoint" in l and l["at"] >= t]
        if not declared or declared[0] > t:
            bad.append((t, "run %d had not declared" %
                        lines[start]["restart"]))
        elif not answered:
            bad.append((t, "run %d wrote no checkpoint after it" %
                        lines[start]["restart"]))
    return len(sent), bad


def run_start(out, restart):
    """The start line of run `restart` in the trainer's output, or None."""
    return next((r for r in runs(out) if r["restart"] == restart), None)


def run_declared(out, restart):
    """The line of run `restart`'s declaration, or None."""
    lines = trainer_lines(out)
    start = next((i for i, l in enumerate(lines)
                  if l.get("restart") == restart), None)
    if start is None:
        return None
    return next((l for l in lines[start + 1:] if "declared" in l), None)

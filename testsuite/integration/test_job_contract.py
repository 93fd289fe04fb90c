# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""The job's side of a resize on a real cluster: what sched/optimus
promises the job it stops.

- A run is signalled only once THAT run has declared its checkpoint, the
  first run and every run after a requeue alike: a trainer whose process
  takes 40 s to install its handler (importing torch, loading data) is
  shrunk for a newcomer and grown back when the newcomer is cancelled,
  and no signal reaches a run before its declaration (one would kill it:
  the job FAILED with exit 0:10).
- A requeued job's output keeps its earlier runs' lines without the user
  passing --open-mode=append.
- A shrunk job's owner sees for which job and under which rule, in its
  SystemComment and `optimusctl show job`, while it waits and after.

The jobs run the synthetic trainer (sched_helpers); cluster: the planner
tests' (plans every 2 s, MinResizeInterval 5 s).
"""
import re

import sched_helpers as sched
from sched_helpers import (OPTIMUSCTL, cancel, optimusctl, run_declared,
                           run_start, runs, signals_unanswered, squeezed,
                           submit, wait_progress)
from waiting import poll, wait_for

CLUSTER_OPTIONS = sched.CLUSTER_OPTIONS

# The trainer's processes sleep this long before their handler is in
# place: twice the 20 s the planner once waited for a new run instead of
# its declaration.
HANDLER_DELAY = 40
# Takes the whole cluster (4 nodes x 8 CPUs: 32 tasks), then makes room.
BIG = ("optimus,max_ps=8,max_workers=24,ckpt_grace=30,steps=100000,"
       "delta=0.00001")
NEWCOMER = "optimus,max_ps=2,max_workers=6"


def test_slow_starting_job_is_resized_only_after_its_run_declares(
        cluster, tmp_path):
    big, out = submit(cluster, tmp_path, "slow", BIG, 100000,
                      handler_delay=HANDLER_DELAY)
    small = None
    try:
        cluster.wait_job_state(big, {"RUNNING"}, timeout=60)
        wait_for(lambda: run_declared(out, 0), 3 * HANDLER_DELAY,
                 "the first run's declaration")
        wait_progress(cluster, big, 3)
        small, _ = submit(cluster, tmp_path, "slow-newcomer", NEWCOMER,
                          100000)
        # shrunk for the newcomer: the second run starts smaller
        second = wait_for(lambda: run_start(out, 1), 180, "the shrunk run")
        # the newcomer goes at once: the plan would grow the job back
        # now, and must wait for the second run's declaration
        cancel(cluster, small)
        small = None
        third = poll(lambda: run_start(out, 2) or
                     cluster.job_fields(big)["JobState"] not in
                     ("RUNNING", "PENDING", "REQUEUED", "COMPLETING"),
                     4 * HANDLER_DELAY + 120)
        f = cluster.job_fields(big)
        sent, bad = signals_unanswered(cluster, big, out)
        assert f["JobState"] in ("RUNNING", "PENDING"), \
            (f["JobState"], f.get("ExitCode"), bad)
        assert bad == [], bad
        assert isinstance(third, dict), "not grown back: %s" % f
        assert third["ps"] + third["workers"] > \
            second["ps"] + second["workers"], (second, third)
        assert sent >= 2, sent
        # the growth's signal came after the second run's declaration
        assert run_declared(out, 1)["at"] < third["at"]
    finally:
        cancel(cluster, big, *([small] if small else []))


def test_requeued_job_keeps_its_earlier_runs_output(cluster, tmp_path):
    """No --open-mode: job_submit/optimus makes an optimus job's output
    appended, so its first run's lines are still there after a resize's
    requeue (Slurm truncates it by default)."""
    big, out, first, small = squeezed(cluster, tmp_path, "output", 5, 700,
                                      100000, open_mode=None)
    try:
        wait_for(lambda: cluster.job_fields(big)["Restarts"] == "1", 120,
                 "the resize's requeue")
        wait_for(lambda: run_start(out, 1), 120,
                 "the second run's start in the output")
        starts = [r["restart"] for r in runs(out)]
        assert starts[:2] == [0, 1], starts
        assert cluster.job_fields(big)["StdOut"] == out
    finally:
        cancel(cluster, big, small)


def test_shrunk_job_says_for_which_job_and_rule(cluster, tmp_path):
    big, out, first, small = squeezed(cluster, tmp_path, "why", 5, 700,
                                      100000)
    try:
        wait_for(lambda: cluster.job_fields(big)["Restarts"] == "1", 120,
                 "the resize's requeue")
        why = re.compile(r"last stop: shrinks to \d+ PS \+ \d+ workers for "
                         r"JobId=%d \(shrink for pending jobs" % small)
        # said while it waits for its new run, and after it started
        comment = wait_for(lambda: (lambda c: why.search(c) and c)(
            cluster.job_fields(big)["SystemComment"]), 30,
            "the stop's reason in the SystemComment")
        wait_for(lambda: run_start(out, 1), 120, "the shrunk run")
        wait_for(lambda: why.search(
            cluster.job_fields(big)["SystemComment"]), 30,
            "the stop's reason in the running job's SystemComment")
        shown = cluster.run([OPTIMUSCTL, "show", "job", str(big)]).stdout
        assert why.search(shown), shown
        rec = optimusctl(cluster, "show", "job", str(big))
        assert rec["stopped_for"] == small, (rec.get("stopped_for"), comment)
    finally:
        cancel(cluster, big, small)

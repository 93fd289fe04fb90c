# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Waiting helpers shared by the integration tests: a condition, or the
planner's own plans, instead of a guessed time."""
import re
import time

# Logged once per plan, after its decisions were applied (planner.c,
# planner_report_holds; SlurmctldDebug=debug in the test clusters).
_PLAN_LINE = re.compile(r"^\[([0-9T:.-]+)\] debug:\s+sched/optimus: lock "
                        r"holds: longest since the last plan", re.M)


def wait_for(predicate, timeout, what, interval=0.5, detail=None):
    """The first truthy value of predicate() within timeout seconds. On a
    timeout, the error says what was waited for and detail() (what the
    cluster said meanwhile: a failure in CI leaves no cluster to read)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("timed out waiting for " + what +
                         ("\n" + detail() if detail else ""))


def poll(predicate, timeout, interval=0.5):
    """predicate()'s first truthy value within timeout seconds, else its
    last value: for a test that reports what it got rather than failing
    at the wait."""
    deadline = time.time() + timeout
    while True:
        value = predicate()
        if value or time.time() >= deadline:
            return value
        time.sleep(interval)


def log_time(stamp):
    """A slurmctld log stamp (local time, ms) as seconds since the epoch."""
    whole, _, frac = stamp.partition(".")
    return (time.mktime(time.strptime(whole, "%Y-%m-%dT%H:%M:%S")) +
            float("0." + (frac or "0")))


def plans_since(cluster, since, log="slurmctld"):
    """How many plans sched/optimus finished at or after `since`
    (time.time()), in the log of controller `log` (slurmctld2: the
    backup)."""
    return sum(1 for m in _PLAN_LINE.finditer(cluster.logs(log))
               if log_time(m.group(1)) >= since)


def wait_plans(cluster, n, since=None, timeout=60, log="slurmctld"):
    """Wait until sched/optimus has finished n plans from `since` (default:
    now; a time ahead waits for it first): a test that checks that the
    planner did NOT do something waits for the plans that could have done
    it, not for a time that holds them only on an idle machine. The first
    plan counted may have read the cluster just before `since`: ask for
    one more than the plans that must have seen it."""
    since = time.time() if since is None else since
    wait_for(lambda: plans_since(cluster, since, log) >= n,
             max(0.0, since - time.time()) + timeout,
             "%d plans of sched/optimus" % n)

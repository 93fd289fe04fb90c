#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""job_outcome.py - the one rule of the summaries the benchmarks and the
demo print: a job that did not complete (failed, cancelled, killed, timed
out, lost with its node, or never seen to end) is a failure. It is named
and counted, no average takes it in, and no target is met beside one.

As a module (bench/*.py): failed(jobs), completed(jobs), outcome_line(jobs),
target_verdict(what, ratio, target, jobs).

As a command (contrib/demo-workload.sh): waits until the given jobs ended,
remembering the state each ended in (squeue shows a finished job only
until Slurm purges it, MinJobAge), prints the outcome line and exits 0
when every job completed, 1 when one did not, 2 when some were still
running at the timeout:

    job_outcome.py [--timeout SECONDS] NAME=JOBID ...
"""
import argparse
import subprocess
import sys
import time

COMPLETED = "COMPLETED"
# Slurm's states of a job that has not ended yet.
UNDERWAY = {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED",
            "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "RESIZING",
            "SIGNALING", "STAGE_OUT", "STOPPED", "RESV_DEL_HOLD"}
# A job that left squeue before it was seen to end.
UNSEEN = "UNKNOWN(purged before its end was seen)"


def completed(jobs, key="state"):
    """The jobs that completed."""
    return [j for j in jobs if j.get(key) == COMPLETED]


def failed(jobs, key="state"):
    """The jobs that did not complete, whatever the reason."""
    return [j for j in jobs if j.get(key) != COMPLETED]


def outcome_line(jobs, key="state"):
    """'all N jobs completed', or 'K of N jobs completed; did not
    complete: NAME ID STATE, ...'."""
    bad = failed(jobs, key)
    if not bad:
        return "all %d jobs completed" % len(jobs)
    return "%d of %d jobs completed; did not complete: %s" % (
        len(jobs) - len(bad), len(jobs), ", ".join(
            "%s %s %s" % (j.get("name", "?"), j.get("id", "?"), j.get(key))
            for j in bad))


def target_verdict(what, ratio, target, jobs, key="state"):
    """(text, met) of a ratio against its target (lower is better): never
    met when a job of the runs compared did not complete."""
    bad = failed(jobs, key)
    text = "%s = %.2f (target <= %.2f: " % (what, ratio, target)
    if bad:
        return text + "NOT met: %d of %d jobs did not complete)" % (
            len(bad), len(jobs)), False
    met = ratio <= target
    return text + ("met)" if met else "NOT met)"), met


def _run(argv):
    return subprocess.run(argv, capture_output=True, text=True, timeout=60)


def _states(ids, run):
    """{job id: state} of the jobs squeue still shows."""
    r = run(["squeue", "-h", "--states=all", "-o", "%i %T", "-j",
             ",".join(map(str, ids))])
    out = {}
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit():
            out[int(parts[0])] = parts[1]
    return out


def wait(jobs, timeout, interval=2.0, run=_run):
    """Poll until every job ended; each job's "state" is the last one
    seen. True when all ended within timeout. run(argv) runs a Slurm
    command against the cluster (a Cluster's run, check=False)."""
    deadline = time.time() + timeout
    while True:
        seen = _states([j["id"] for j in jobs], run)
        for j in jobs:
            if j["id"] in seen:
                j["state"] = seen[j["id"]]
            elif j.get("state") is None or j["state"] in UNDERWAY:
                j["state"] = UNSEEN
        if all(j["state"] not in UNDERWAY for j in jobs):
            return True
        if time.time() >= deadline:
            return False
        time.sleep(interval)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("jobs", nargs="+", metavar="NAME=JOBID")
    a = ap.parse_args(argv)
    jobs = []
    for item in a.jobs:
        name, _, jid = item.rpartition("=")
        if not jid.isdigit():
            ap.error("%s: expected NAME=JOBID" % item)
        jobs.append({"name": name or jid, "id": int(jid), "state": None})
    if not wait(jobs, a.timeout):
        print("jobs still running after %.0f s: %s" % (a.timeout, ", ".join(
            "%s %d %s" % (j["name"], j["id"], j["state"]) for j in jobs
            if j["state"] in UNDERWAY)))
        return 2
    print(outcome_line(jobs))
    return 1 if failed(jobs) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

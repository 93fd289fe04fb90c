#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""What a user's reports can take from another user's job, measured in one
run (doc/design/reports.md "Claims and fair shares").

Starts one real localhost cluster of 16 GPUs (4 nodes x 4 GPUs,
testsuite/cluster, the planner tests' optimus.conf) and two ordinary
users (testsuite/cluster/fair_helpers.py), then:

  honest   one job of each user (the synthetic trainer, all-reduce, up to
           16 one-GPU workers), submitted held and released at once;
           the GPU-seconds each holds over --seconds from the moment both
           run, and the fewest and most GPUs each held;
  gaming   the same, the second user's job sending fabricated speeds (slow
           and perfectly scalable: 160 while held, 160 more at 4 a second
           while it runs);
  poison   the second user's held model=sharednet job sends 800 flat
           speeds and is cancelled; then the first user's model=sharednet
           job starts alone on the empty cluster, beside the size a job
           of a model name nobody used starts with.

Prints each figure; nothing is asserted (test_fair_share.py asserts).

    make && /usr/bin/python3 bench/report_gaming.py [--seconds 60]
        [--json out.json]
"""
import argparse
import json
import os
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "testsuite", "cluster"))
from cluster import Cluster  # noqa: E402
import fair_helpers as fh  # noqa: E402
from waiting import wait_plans  # noqa: E402


def first_size(c, user, name, hints):
    jid = fh.sbatch_as(c, user, name, hints)
    try:
        fh.wait_running(c, [jid])
        row = fh.records(c)[jid]
        return row["workers"], row["summary"]
    finally:
        fh.cancel_all(c, jid)


def poison(c):
    honest, gamer = fh.users()
    alone, _ = first_size(c, honest, "control", fh.JOB + ",model=unusednet")
    bad = fh.sbatch_as(c, gamer, "poison", fh.JOB + ",model=sharednet",
                       held=True)
    try:
        answers = fh.fabricate(c, gamer, bad, 800, flat=1.0)
    finally:
        fh.cancel_all(c, bad)
    wait_plans(c, 2)
    victim, summary = first_size(c, honest, "victim",
                                 fh.JOB + ",model=sharednet")
    return {"unused_name_workers": alone, "victim_workers": victim,
            "victim_summary": summary, "answers": answers}


def show(name, r):
    h, g = r["honest"], r["gaming"]
    print("%-7s first user's job: %6.0f GPU-s, %s..%s GPUs;  second "
          "user's job: %6.0f GPU-s, %s..%s GPUs" % (
              name, h["gpu_s"], h["min"], h["max"], g["gpu_s"], g["min"],
              g["max"]), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0,
                    help="measurement after both jobs run (default 60)")
    ap.add_argument("--json", help="write the figures there")
    a = ap.parse_args()
    c = Cluster(tempfile.mkdtemp(prefix="optimus-gaming-"),
                **fh.CLUSTER_OPTIONS)
    c.start()
    out = {"gpus": fh.GPUS, "seconds": a.seconds}
    try:
        out["honest"] = fh.gaming_run(c, a.seconds, gaming=False,
                                      log=lambda s: None)
        show("honest", out["honest"])
        out["gaming"] = fh.gaming_run(c, a.seconds, gaming=True)
        show("gaming", out["gaming"])
        out["poison"] = poison(c)
        p = out["poison"]
        print("poison  first user's model=sharednet job starts with %d "
              "workers (a model name nobody used: %d); %s"
              % (p["victim_workers"], p["unused_name_workers"],
                 p["victim_summary"]), flush=True)
    finally:
        c.stop(keep=False)
    for k in ("honest", "gaming"):
        for j in ("honest", "gaming"):
            out[k][j].pop("samples", None)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

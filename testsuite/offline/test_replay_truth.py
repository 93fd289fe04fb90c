# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""`optimus-sim truth` and the replay trainer by hand:
the truth is the measured data where the data has a point, the trainer's
steps follow it to the epoch count, and what is outside the measured
domain or mistyped is refused. Needs no cluster."""
import csv
import json
import os
import re
import subprocess
import sys

import pytest

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SIM = os.path.join(TOP, "src", "tools", "optimus-sim", "optimus-sim")
TRAINER = os.path.join(TOP, "examples", "replay_trainer.py")
TRACES = os.path.join(TOP, "testsuite", "data", "pollux-osdi21", "traces")

pytestmark = pytest.mark.skipif(not os.access(SIM, os.X_OK),
                                reason="optimus-sim not built")


def truth(*args):
    return subprocess.run([SIM, "truth"] + list(args), capture_output=True,
                          text=True, timeout=120)


def measured(app, placement, local_bsz):
    with open(os.path.join(TRACES, app, "placements.csv")) as f:
        for row in csv.DictReader(f):
            if row["placement"] == placement and \
                    float(row["local_bsz"]) == local_bsz:
                return float(row["step_time"]), float(row["sync_time"])
    raise AssertionError("no measured row %s %s" % (placement, local_bsz))


@pytest.mark.parametrize("place,digits", [("4", "4"), ("2,2", "22")])
def test_a_measured_placement_is_its_row(place, digits):
    """cifar10 at batch 256: 64 per GPU on 4 GPUs, a measured point."""
    r = truth("--app", "cifar10", "--gpus-per-node", place, "--batch", "256")
    assert r.returncode == 0, r.stderr
    t = json.loads(r.stdout)
    step, sync = measured("cifar10", digits, 64)
    assert (t["local_batch"], t["accum_steps"], t["replicas"]) == (64, 0, 4)
    assert t["step_seconds"] == pytest.approx(step, rel=1e-9)
    assert t["sync_seconds"] == pytest.approx(sync, rel=1e-9)
    assert t["iteration_seconds"] == pytest.approx(step, rel=1e-9)
    assert t["max_epochs"] == 100 and len(t["epochs"]) == 100
    ends = [e["progress_end"] for e in t["epochs"]]
    assert ends == sorted(ends) and all(e["efficiency"] >= 1
                                        for e in t["epochs"])


def test_refusals():
    r = truth("--app", "cifar10", "--gpus-per-node", "4,4", "--batch", "128")
    assert r.returncode == 1 and "no step time measured" in r.stderr
    r = truth("--app", "nope", "--gpus-per-node", "1", "--batch", "128")
    assert r.returncode == 1 and "unknown application" in r.stderr
    for bad in ("5", "0", "2,,1", "x"):
        r = truth("--app", "cifar10", "--gpus-per-node", bad,
                  "--batch", "128")
        assert r.returncode == 2, (bad, r.stderr)


def test_trainer_by_hand_ends_at_its_epochs_in_the_measured_steps():
    """At the smallest validated batch one step is one step of progress:
    the replay's steps are the measured iterations of validation-128.csv
    (cumulative, per epoch), one more per epoch at most (its last step
    is partial)."""
    r = subprocess.run([sys.executable, TRAINER, "--app", "cifar10",
                        "--batch", "128", "--gpus-per-node", "1",
                        "--epochs", "2", "--compression", "1e6",
                        "--no-report", "--optimus-sim", SIM],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    with open(os.path.join(TRACES, "cifar10", "validation-128.csv")) as f:
        want = int(float(list(csv.DictReader(f))[1]["iteration"]))
    done = [l for l in r.stderr.splitlines() if "done at step" in l]
    assert done, r.stderr
    # "replay: done at step S epoch E, at=<wall clock>"
    step, epoch = map(int, re.search(r"done at step (\d+) epoch (\d+)",
                                     done[0]).groups())
    assert epoch == 2 and want <= step <= want + 2, (done, want)


def test_truth_statistics_give_its_efficiency():
    """Each epoch's gradient statistics at the run's batch (what the
    trainer reports) are those its efficiency comes from: with s the
    run's batch over var_batch, (var + sqr) / (var / s + sqr)."""
    r = truth("--app", "cifar10", "--gpus-per-node", "4", "--batch", "1024")
    assert r.returncode == 0, r.stderr
    t = json.loads(r.stdout)
    s = t["run_batch"] / t["var_batch"]
    assert s > 1
    for ep in t["epochs"][:5]:
        sqr, var = ep["grad_sqr"], ep["grad_var"]
        assert sqr > 0 and var > 0
        assert ep["efficiency"] == pytest.approx(
            (var + sqr) / (var / s + sqr), rel=1e-9)
    ad = t["adaptive"]
    assert ad["min_batch"] <= t["batch"] <= ad["max_batch"]
    assert ad["max_replicas"] >= t["max_replicas"]


def test_trainer_runs_at_the_batch_its_scheduler_gives():
    """A start under sched/optimus with a batch (OPTIMUS_GLOBAL_BATCH)
    replays that batch, not --batch: an adaptive job's batch reaches the
    truth it runs by."""
    env = dict(os.environ, OPTIMUS_GLOBAL_BATCH="1024",
               OPTIMUS_LOCAL_BATCH="256", OPTIMUS_ACCUM_STEPS="0")
    r = subprocess.run([sys.executable, TRAINER, "--app", "cifar10",
                        "--batch", "128", "--gpus-per-node", "4",
                        "--epochs", "1", "--compression", "1e6",
                        "--no-report", "--optimus-sim", SIM],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    start = [l for l in r.stderr.splitlines() if "starting at step" in l]
    assert "cifar10 batch 1024 on 4 GPUs" in start[0], start
    assert "BatchPlan(global=1024, local=256, accum=0)" in start[0], start

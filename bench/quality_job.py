#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""One real scikit-learn training job for bench/quality_fair.py.

Trains one of the recorded runs of contrib/record_quality_curves.py (the
same code, data and seed, so its losses are the recorded curve's) and,
after every iteration, stands for the data-parallel part of a larger data
set spread over the job's units: it sleeps --work-s / units, units being
the job's workers (OPTIMUS_NUM_WORKERS, from spank/optimus). A sleep is
used, as in examples/ps_trainer.py (--work-ms-per-sample), because the
test cluster declares more CPUs than the machine has: compute on the two
real cores would not grow with the allocation.

Every iteration it prints `qlog t=<unix s> it=<k> loss=<l> units=<u>`,
l = 0.2 (L - Lmin) / (L0 - Lmin) the normalised loss of optimus-sim's
quality experiment (Lmin the loss the run's family reaches on its data,
from testsuite/data/quality-curves/curves.csv: recorded_min),
and reports (step k, loss l) and its speed to sched/optimus with the
Python reporter. On the checkpoint signal it saves the iteration reached,
confirms it and waits for the requeue; a resumed run replays the
deterministic training up to that iteration without the sleeps.
"""
import argparse
import csv
import importlib.util
import json
import os
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "examples"))
from trainer_util import BackgroundReporter, CkptSignal  # noqa: E402


def recorder():
    spec = importlib.util.spec_from_file_location(
        "record_quality_curves",
        os.path.join(TOP, "contrib", "record_quality_curves.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def recorded_min(name):
    """The loss the run's family reaches on its data: the lowest of the
    recorded runs of the same family and data size from the same
    untrained model (the same loss at iteration 0), as optimus-sim
    normalises (sim_curves.h)."""
    runs = {}
    with open(os.path.join(TOP, "testsuite", "data", "quality-curves",
                           "curves.csv")) as f:
        for r in csv.DictReader(f):
            runs.setdefault(r["curve"], []).append(r)
    if name not in runs:
        sys.exit("quality_job.py: no recorded curve %s" % name)

    def key(rs):
        return (rs[0]["family"], float(rs[0]["data_size"]),
                float(rs[0]["loss"]))
    return min(float(r["loss"]) for rs in runs.values()
               if key(rs) == key(runs[name]) for r in rs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--family", required=True)
    ap.add_argument("--size", type=int, required=True)
    ap.add_argument("--step", type=float, required=True)
    ap.add_argument("--work-s", type=float, required=True,
                    help="seconds of one iteration's parallel part on one unit")
    ap.add_argument("--ckpt-dir", required=True)
    a = ap.parse_args()
    rec = recorder()
    name = "%s-%d-%g" % (a.family, a.size, a.step)
    # k-means' "step" is its cluster count.
    step = int(a.step) if a.family == "kmeans" else a.step
    lmin = recorded_min(name)
    units = int(os.environ.get("OPTIMUS_NUM_WORKERS") or
                max(int(os.environ.get("SLURM_NTASKS", "2")) - 1, 1))
    os.makedirs(a.ckpt_dir, exist_ok=True)
    ck = os.path.join(a.ckpt_dir, "iteration.json")
    done = json.load(open(ck))["it"] if os.path.exists(ck) else -1
    rep = BackgroundReporter()
    state = {"it": done}

    def save():
        with open(ck + ".tmp", "w") as f:
            json.dump({"it": state["it"]}, f)
        os.replace(ck + ".tmp", ck)
        rep.checkpoint(max(state["it"], 0))
        rep.flush()

    sig = CkptSignal(on_signal=save)
    print("run: %s, %d units, resuming after iteration %d" % (name, units,
                                                              done),
          flush=True)
    l0 = None
    t_prev = time.time()
    for it, loss, cpu, size in rec.curve_iter(
            a.family, a.size, step, rec.curve_seed(a.family, a.size, step)):
        if l0 is None:
            l0 = loss
        norm = 0.2 * (loss - lmin) / (l0 - lmin) if l0 > lmin else 0.0
        if it <= done:
            continue            # replay up to the checkpoint
        if it > 0:
            time.sleep(a.work_s / units)
        now = time.time()
        state["it"] = it
        print("qlog t=%.3f it=%d loss=%.6f units=%d" % (now, it, norm,
                                                         units), flush=True)
        rep.progress(it, norm, 1.0 / max(now - t_prev, 1e-3), None)
        if it > 0:
            rep.speed(1, units, 1.0 / max(now - t_prev, 1e-3))
        t_prev = now
        if sig.pending:
            sig.wait_if_paused()
    rep.flush()
    print("done: %s after iteration %d" % (name, state["it"]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""bench/pollux_replay.py --quick as a smoke test: three replayed Pollux
jobs, one epoch each, under sched/optimus (Policy=optimus and
Policy=goodput, every job adaptive) and plain sched/backfill on the bench's
own localhost clusters with accounting, and the simulator's prediction of
the same slice beside them.

No figure is asserted (the bench's figures are doc/results.md's, measured by
hand): the bench runs end to end, every job COMPLETED under both
schedulers, and each job and each scheduler has a real JCT and a
simulated one. Under Policy=goodput the batch the scheduler chose reaches
the trainer's tasks (OPTIMUS_GLOBAL_BATCH, the batch it replays) and the
gradient statistics it reports from the measured truth reach the job's
model (optimusctl show job: its batch_now's grad_reports)."""
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "..", "bench", "pollux_replay.py")


def test_quick_slice_runs_on_both_schedulers(tmp_path):
    out = tmp_path / "quick.json"
    p = subprocess.run([sys.executable, BENCH, "--quick", "--json",
                        str(out)], capture_output=True, text=True,
                       timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    r = json.loads(out.read_text())
    assert r["first"] == 0 and r["jobs"] == 3 and r["epochs"] == 1
    assert sorted(r["real"]) == ["backfill", "goodput", "optimus"]
    for policy, real in r["real"].items():
        assert real["not_completed"] == 0, policy
        assert math.isfinite(real["avg_jct"]) and real["avg_jct"] > 0
        sim = r["simulator"][policy]
        assert len(sim["jobs"]) == 3 and sim["done"] == 3
    for run in r["runs"]:
        assert [j["state"] for j in run["jobs"]] == ["COMPLETED"] * 3
        for j in run["jobs"]:
            if run["policy"] == "goodput":
                # every run of the job at the scheduler's batch, each
                # reporting the truth's statistics the model kept
                assert len(j["run_batches"]) == j["runs"] >= 1, j
                assert all(b >= 1 for b in j["run_batches"]), j
                assert j["gradients"] >= 1, j
                assert j["model_batch"]["adaptive"] is True, j
                assert j["model_batch"]["grad_reports"] >= 1, j
            else:
                # no batch= hint: the submitted batch; nobody listens
                # under plain backfill
                assert j["run_batches"] == [], j
                assert (j["gradients"] == 0) == (run["policy"] ==
                                                 "backfill"), j
    assert "ranking by avg JCT: real" in p.stdout

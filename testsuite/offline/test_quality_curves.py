# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""The recorded quality curves and the bench jobs that train them again
(no cluster): contrib/record_quality_curves.py reproduces the shipped
losses, and bench/quality_job.py logs the normalised curve and resumes
after its checkpoint."""
import csv
import importlib.util
import json
import os
import re
import subprocess

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
CURVES = os.path.join(TOP, "testsuite", "data", "quality-curves",
                      "curves.csv")
PYTHON = "/usr/bin/python3"


def recorded():
    runs = {}
    with open(CURVES) as f:
        for r in csv.DictReader(f):
            runs.setdefault(r["curve"], []).append(r)
    return runs


def recorder():
    spec = importlib.util.spec_from_file_location(
        "rqc", os.path.join(TOP, "contrib", "record_quality_curves.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_shipped_curves_cover_the_families():
    runs = recorded()
    assert len(runs) >= 80
    fams = {rs[0]["family"] for rs in runs.values()}
    assert fams == {"svm", "logreg", "linreg", "mlp", "gbt", "kmeans",
                    "lda"}
    for name, rs in runs.items():
        assert [int(r["iteration"]) for r in rs] == list(range(len(rs)))
        assert all(float(r["cpu_s"]) > 0 for r in rs[1:]), name
        assert min(float(r["loss"]) for r in rs) < float(rs[0]["loss"]), name


def test_recording_is_reproducible():
    rec, runs = recorder(), recorded()
    for fam, n, step in (("svm", 2000, 0.03), ("kmeans", 3000, 10),
                         ("gbt", 1000, 0.5), ("linreg", 2000, 0.1)):
        name = "%s-%d-%g" % (fam, n, step)
        got = [loss for _, loss, _, _ in
               rec.curve_iter(fam, n, step, rec.curve_seed(fam, n, step))]
        want = [float(r["loss"]) for r in runs[name]]
        assert len(got) == len(want)
        for a, b in zip(got, want):
            assert abs(a - b) <= 1e-5 * max(abs(b), 1e-3), name


def run_job(tmp_path, env_extra=None):
    env = dict(os.environ)
    env.pop("SLURM_JOB_ID", None)      # no reports outside Slurm
    env["OPTIMUS_NUM_WORKERS"] = "2"
    env.update(env_extra or {})
    p = subprocess.run([PYTHON, os.path.join(TOP, "bench", "quality_job.py"),
                        "--family", "svm", "--size", "2000", "--step",
                        "0.03", "--work-s", "0", "--ckpt-dir",
                        str(tmp_path / "ck")], capture_output=True,
                       text=True, timeout=120, env=env)
    assert p.returncode == 0, p.stderr
    return [(int(k), float(l), int(u)) for k, l, u in re.findall(
        r"qlog t=[0-9.]+ it=(\d+) loss=([0-9.e+-]+) units=(\d+)",
        p.stdout)]


def test_bench_job_logs_the_normalised_curve_and_resumes(tmp_path):
    every = recorded()
    runs = every["svm-2000-0.03"]
    raw = [float(r["loss"]) for r in runs]
    # The loss its family reaches on the same data (the runs of svm on
    # 2,000 examples from the zero model), not the run's own best.
    lmin = min(float(r["loss"]) for name, rs in every.items()
               if name.startswith("svm-2000-") for r in rs)
    assert lmin < min(raw)
    points = run_job(tmp_path)
    assert [k for k, _, _ in points] == list(range(len(raw)))
    assert all(u == 2 for _, _, u in points)
    for (k, loss, _), r in zip(points, raw):
        assert abs(loss - 0.2 * (r - lmin) / (raw[0] - lmin)) < 1e-4
    # A requeued run starts after its checkpoint.
    with open(tmp_path / "ck" / "iteration.json", "w") as f:
        json.dump({"it": 30}, f)
    again = run_job(tmp_path)
    assert [k for k, _, _ in again] == list(range(31, len(raw)))
    assert [l for _, l, _ in again] == [l for _, l, _ in points[31:]]

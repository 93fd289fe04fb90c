"""optimus-sim: every experiment in quick mode, its output structure, and
that Optimus beats DRF on average JCT. Needs no cluster."""
import json
import os
import subprocess

import pytest

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SIM = os.path.join(TOP, "src", "tools", "optimus-sim", "optimus-sim")
EXPERIMENTS = ["optimus-vs-drf", "oracle-gap", "ablation", "damping",
               "quality-vs-fair"]

pytestmark = pytest.mark.skipif(not os.access(SIM, os.X_OK),
                                reason="optimus-sim not built")


def run(*args, **kw):
    return subprocess.run([SIM] + list(args), check=True,
                          capture_output=True, text=True, timeout=600, **kw)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = {}
    svg = tmp_path_factory.mktemp("svg")
    for name in EXPERIMENTS:
        p = run("experiment", name, "--quick", "--json", "-", "--svg",
                str(svg))
        out[name] = json.loads(p.stdout)
    out["_svg"] = svg
    return out


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_structure(results, name):
    r = results[name]
    assert r["experiment"] == name and r["quick"] is True
    assert len(r["runs"]) >= 2
    for run_ in r["runs"]:
        for key in ("label", "avg_jct", "makespan", "cpu_util",
                    "resize_share", "loss_series", "jobs_done"):
            assert key in run_
        assert run_["jobs_done"] == run_["jobs"]
    assert r["comparisons"]
    for c in r["comparisons"]:
        assert set(c) >= {"name", "simulated", "paper", "note"}
        assert c["simulated"] is not None
    svg = results["_svg"] / ("%s-jct.svg" % name)
    assert svg.read_text().startswith("<svg")


def test_optimus_beats_drf(results):
    runs = {r["label"]: r for r in results["optimus-vs-drf"]["runs"]}
    assert runs["optimus"]["avg_jct"] < runs["drf"]["avg_jct"]


def test_same_seed_same_output():
    a = run("experiment", "damping", "--quick", "--seed", "3").stdout
    b = run("experiment", "damping", "--quick", "--seed", "3").stdout
    assert a == b


def test_trace_and_errors(tmp_path):
    trace = os.path.join(TOP, "examples", "traces", "sample.csv")
    p = run("run", "--trace", trace, "--policy", "optimus,fifo,oracle",
            "--json", "-")
    labels = [r["label"] for r in json.loads(p.stdout)["runs"]]
    assert labels == ["optimus", "fifo", "oracle"]
    bad = tmp_path / "bad.csv"
    bad.write_text("0,resnet-50,sync,1\n10,nosuchnet,sync,1\n")
    p = subprocess.run([SIM, "run", "--trace", str(bad)],
                       capture_output=True, text=True)
    assert p.returncode != 0 and "bad.csv:2: unknown model" in p.stderr

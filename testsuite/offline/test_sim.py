# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""optimus-sim: every experiment in quick mode, its output structure, and
that Optimus beats DRF on average JCT. Needs no cluster."""
import json
import os
import subprocess

import pytest

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SIM = os.path.join(TOP, "src", "tools", "optimus-sim", "optimus-sim")
EXPERIMENTS = ["optimus-vs-drf", "oracle-gap", "ablation", "damping",
               "quality-vs-fair", "quality-vs-fair-synthetic",
               "stragglers"]

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
                    "restart_share", "loss_series", "jobs_done"):
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


def test_stragglers_cost_and_replacement(results):
    r = results["stragglers"]
    runs = {x["label"]: x for x in r["runs"]}
    cmp = {c["name"]: c["simulated"] for c in r["comparisons"]}
    # Slow servers cost time; replacement with draining recovers some.
    assert runs["stragglers kept"]["avg_jct"] > runs["no slow server"]["avg_jct"]
    assert runs["replaced + drained"]["avg_jct"] < runs["stragglers kept"]["avg_jct"]
    assert runs["stragglers replaced"]["restarts"] >= 1
    # Detection works, and a drained server takes no new victims.
    assert cmp["stragglers found, replaced"] >= 1
    assert cmp["stragglers found, drained"] <= cmp["stragglers found, replaced"]


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


def test_baselines_keep_the_submitted_size(tmp_path):
    """DRF runs a job at the size of its trace line (2 PS + 2 workers:
    2 x 2 + 2 x 4 CPUs) and never resizes it; with --elastic-baselines
    it may grow the job and ends it sooner."""
    trace = tmp_path / "sized.csv"
    trace.write_text("arrival_s,model,mode,size,weight,ps,workers\n"
                     "0,resnet-50,sync,0.3,1,2,2\n")
    fixed = json.loads(run("run", "--trace", str(trace), "--policy", "drf",
                           "--json", "-", "--detail").stdout)["runs"][0]
    job = fixed["job_results"][0]
    assert fixed["restarts"] == 0
    assert job["cpu_seconds"] == pytest.approx(
        12 * (job["end"] - job["start"]), rel=1e-6)
    elastic = json.loads(run("run", "--trace", str(trace), "--policy",
                             "drf", "--elastic-baselines", "--json",
                             "-").stdout)["runs"][0]
    assert elastic["avg_jct"] < fixed["avg_jct"]
    bad = tmp_path / "bad.csv"
    bad.write_text("0,cnn-rand,sync,1,1,2,99\n")
    p = subprocess.run([SIM, "run", "--trace", str(bad)],
                       capture_output=True, text=True)
    assert p.returncode != 0 and "bad.csv:1: workers must be" in p.stderr


def test_quality_detail_has_the_window():
    """--detail gives each job's loss and CPU at 14 minutes; their mean
    over the jobs submitted by then is the printed figure."""
    p = run("experiment", "quality-vs-fair", "--quick", "--detail",
            "--json", "-")
    r = json.loads(p.stdout)
    quality = next(x for x in r["runs"] if x["label"] == "quality")
    jobs = [j for j in quality["job_results"] if j["arrival"] <= 840]
    assert jobs
    for j in jobs:
        assert 0 <= j["window_loss"] <= j["loss0"] + 1e-12
        assert j["window_cpu_seconds"] >= 0
    mean = sum(j["window_loss"] for j in jobs) / len(jobs)
    printed = next(c["simulated"] for c in r["comparisons"]
                   if c["name"] == "mean loss at 14 min, quality")
    assert abs(mean - printed) < 1e-9
    # The CPUs a job holds in its first plan interval (120 s).
    for j in jobs:
        if j["arrival"] <= 840 - 120:
            assert 0 < j["first_interval_cpu_seconds"] <= \
                j["window_cpu_seconds"] + 1e-9
    young = sum(j["first_interval_cpu_seconds"] / 120 for j in jobs) / \
        len(jobs)
    printed = next(c["simulated"] for c in r["comparisons"]
                   if c["name"] == "CPUs of a young job, quality")
    assert abs(young - printed) < 1e-9
    # The Optimus experiments have no window: no window fields.
    p = run("experiment", "damping", "--quick", "--detail", "--json", "-")
    job = json.loads(p.stdout)["runs"][0]["job_results"][0]
    assert "window_loss" not in job


def test_quality_figures_on_recorded_curves(tmp_path):
    """quality-vs-fair prints the paper's Figures 2-4 and the predicted
    against realised drops, as JSON and SVG; bad curves are refused."""
    p = run("experiment", "quality-vs-fair", "--quick", "--json", "-",
            "--svg", str(tmp_path))
    names = [c["name"] for c in json.loads(p.stdout)["comparisons"]]
    for want in ("fig2 loss at 14 min, quality",
                 "fig3 s to 95% reduction, quality",
                 "fig4 CPU to top 20%, quality",
                 "fig4 CPU to bottom 50%, quality",
                 "drop 0-14 min realised, quality",
                 "drop 0-14 min realised, fair",
                 "curves: run to 80% reduction"):
        assert want in names, want
    for svg in ("loss", "levels", "cpu-share"):
        assert (tmp_path / ("quality-vs-fair-%s.svg" % svg)).stat().st_size
    bad = tmp_path / "bad.csv"
    bad.write_text("a,svm,1,1,0,oops,0\n")
    p = subprocess.run([SIM, "experiment", "quality-vs-fair", "--quick"],
                       capture_output=True, text=True,
                       env=dict(os.environ, OPTIMUS_SIM_CURVES=str(bad)))
    assert p.returncode != 0 and "bad.csv:1: expected curve," in p.stderr


# ---- experiment pollux: the measured workloads ----

POLICIES = ["peer-optimus-oracle", "tiresias", "optimus", "optimus-rate",
            "goodput", "goodput-nopreempt",
            "optimus-oracle", "quality", "drf", "fifo", "slurm-backfill",
            "first-fit"]
# What each policy reads from the truth for free, said beside its figures
# (quality: its loss is the true share of its work left).
ORACLES = {"peer-optimus-oracle", "optimus-oracle", "quality"}


@pytest.fixture(scope="module")
def pollux(tmp_path_factory):
    svg = tmp_path_factory.mktemp("pollux-svg")
    p = run("experiment", "pollux", "--load", "all", "--json", "-",
            "--svg", str(svg))
    return json.loads(p.stdout), svg


def test_pollux_structure(pollux):
    r, svg = pollux
    assert r["experiment"] == "pollux" and r["workloads"] == [6]
    labels = [x["label"] for x in r["runs"]]
    assert labels == POLICIES * 4
    for x in r["runs"]:
        for key in ("label", "load", "avg_jct", "median_jct", "p99_jct",
                    "makespan", "gpu_util", "restarts"):
            assert x[key] is not None, key
        assert x["done"] == x["jobs"]
        assert (x["oracle"] is not None) == (x["label"] in ORACLES), x
    assert r["prerun"] == "none"
    assert r["cpu_s"] > 0 and r["wall_s"] > 0
    assert set(r["published"]) == {"pollux", "optimus", "tiresias"}
    assert r["published"]["optimus"]["1.0"] == pytest.approx(5301.875)
    for name in ("pollux-jct-cdf.svg", "pollux-jct-load.svg"):
        text = (svg / name).read_text()
        assert text.startswith("<svg")
        # The legend says which rows read the truth.
        assert "quality (oracle)" in text and "optimus-oracle (oracle)" in text
        assert "goodput (oracle)" not in text


def test_pollux_peer_baselines_within_5_percent(pollux):
    """The peer's rules reproduce their published figures on workload 6
    at every load (each load's own published figure)."""
    r, _ = pollux
    pub = {"peer-optimus-oracle": "optimus", "tiresias": "tiresias"}
    for x in r["runs"]:
        if x["label"] in pub:
            want = r["published"][pub[x["label"]]]["%.1f" % x["load"]]
            assert abs(x["avg_jct"] / want - 1) < 0.05, x


@pytest.mark.parametrize("rebatch", [None, 12])
def test_pollux_rebatch_in_place_costs_the_rebatch(rebatch):
    """Our goodput policy re-batches kept jobs in place on the measured
    workloads (the jobs take a batch change in the running job, as
    examples/torch_trainer.py does): each costs the set-up's re-batch
    (--rebatch; RebatchCost's 5 s by default), not a restart's 30 s.
    Every job's seconds without progress are exactly its start, its
    restarts and its re-batches in place, each at its own cost."""
    extra = [] if rebatch is None else ["--rebatch", str(rebatch)]
    r = json.loads(run("experiment", "pollux", "--policy", "goodput",
                       "--detail", "--json", "-", *extra).stdout)
    c = r["cluster"]
    assert c["rebatch_s"] == (5 if rebatch is None else rebatch)
    assert c["restart_s"] == 30 and c["start_s"] == 30
    x = r["runs"][0]
    assert x["done"] == len(x["jobs"]) == 160    # --detail: each job
    assert x["rebatches"] > 0
    assert sum(j["rebatches"] for j in x["jobs"]) == x["rebatches"]
    for j in x["jobs"]:
        assert j["lost_s"] == pytest.approx(
            c["start_s"] + c["restart_s"] * j["restarts"] +
            c["rebatch_s"] * j["rebatches"]), j


def test_pollux_table_and_errors(tmp_path):
    out = run("experiment", "pollux", "--policy", "tiresias,fifo").stdout
    assert "published avg JCT" in out and "vs their Tiresias" in out
    assert "wall time" in out
    for bad in (["--load", "3"], ["--workload", "9"],
                ["--policy", "nope"], ["--realistic", "--load", "2"]):
        p = subprocess.run([SIM, "experiment", "pollux"] + bad,
                           capture_output=True, text=True)
        assert p.returncode == 2 and "optimus-sim:" in p.stderr, bad
    # Bad data: a clear error naming the file, exit 1.
    data = tmp_path / "data"
    (data / "workloads").mkdir(parents=True)
    src = os.path.join(TOP, "testsuite", "data", "pollux-osdi21")
    os.symlink(os.path.join(src, "traces"), data / "traces")
    (data / "workloads" / "workload-6.csv").write_text(
        "name,time,application,num_replicas,batch_size\n"
        "a,0,cifar10,1,128\nb,10,alexnet,1,128\n")
    p = subprocess.run([SIM, "experiment", "pollux", "--data", str(data)],
                       capture_output=True, text=True)
    assert p.returncode == 1
    assert "workload-6.csv: row 2" in p.stderr
    assert "unknown application 'alexnet'" in p.stderr


def test_pollux_print_hints():
    """bench/pollux_replay.py's jobs with the hints their simulated
    records get (--print-hints): elastic under our elastic policies, the
    submitted size under drf, goodput's batch range from the submitted
    batch (--bench-hints); the peer's policies have none."""
    slice_ = ["experiment", "pollux", "--workload", "1", "--first", "3",
              "--jobs", "4", "--epochs", "3", "--nodes", "4",
              "--realistic", "--bench-hints", "--print-hints"]
    j = json.loads(run(*slice_, "--policy",
                       "optimus,goodput,drf,tiresias").stdout)
    assert [x["name"] for x in j["jobs"]] == [
        "deepspeech2-3", "cifar10-4", "ncf-5", "ncf-6"]
    for x in j["jobs"]:
        h = {p: dict(kv.split("=", 1) for kv in t.split(",")[1:])
             for p, t in x["hints"].items()}
        assert set(h) == {"optimus", "goodput", "drf"}
        n = str(x["num_replicas"])
        assert h["drf"]["min_workers"] == h["drf"]["max_workers"] == n
        assert h["optimus"]["min_workers"] == "1"
        assert int(h["optimus"]["max_workers"]) <= 16
        assert all(v["epochs"] == "3" and "epoch_steps" not in v
                   for v in h.values())
        assert h["goodput"]["batch"] == "%d" % x["batch_size"]
        # a fixed batch is the job's own: not said
        assert "batch" not in h["optimus"] and "batch" not in h["drf"]
    assert any(x["hints"]["goodput"].endswith(",layout=colocated") and
               "adaptive_batch=yes" in x["hints"]["goodput"]
               for x in j["jobs"])


def test_pollux_jobs_say_what_the_plugin_takes():
    """Every simulated job says at submission what job_submit/optimus
    would take (hints_validate), test and validation sets alike: a job
    whose batch one GPU cannot hold (an ImageNet job at 6400, 200 a GPU
    and 16 micro-steps at most) says the fewest workers that hold it, as
    the plugin's refusal tells its user to, instead of hints the plugin
    refuses (and a plan that ran it on 1 GPU)."""
    for wl in ("all", "validation"):
        args = ["experiment", "pollux", "--load", "all", "--print-hints",
                "--policy", "goodput,optimus"]
        args += (["--workload-set", "validation", "--workload", "all"]
                 if wl == "validation" else ["--workload", "all"])
        p = subprocess.run([SIM] + args, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        for x in json.loads(p.stdout)["jobs"]:
            h = dict(kv.split("=", 1) for kv in
                     x["hints"]["goodput"].split(",")[1:])
            cap = int(h["max_local_batch"]) * (int(h["max_accum"]) + 1)
            need = max(1, -(-int(h["batch"]) // cap))
            assert int(h["min_workers"]) == need, (x["name"], h)


def test_pollux_adaptive_jobs_submit_the_artifacts_start_batch():
    """A goodput job submits the batch the artifact starts its elastic
    jobs at, not its row's (chosen for the GPUs its user asked for): its
    application's smallest validated batch B0 (CIFAR-10 128, DeepSpeech2
    20), NCF the 32768 the artifact fixes; the fixed-batch policies run
    the row's. With --bench-hints, the row's (bench/pollux_replay.py)."""
    p = subprocess.run([SIM, "experiment", "pollux", "--workload", "all",
                        "--load", "1", "--print-hints", "--policy",
                        "goodput"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    by_app = {}
    for x in json.loads(p.stdout)["jobs"]:
        h = dict(kv.split("=", 1) for kv in
                 x["hints"]["goodput"].split(",")[1:])
        by_app.setdefault(x["application"], set()).add(int(h["batch"]))
    assert by_app["cifar10"] == {128} and by_app["deepspeech2"] == {20}
    assert by_app["ncf"] == {32768}
    assert all(len(v) == 1 for v in by_app.values()), by_app
    rows = json.loads(run("experiment", "pollux", "--workload", "1",
                          "--print-hints", "--bench-hints", "--policy",
                          "goodput").stdout)["jobs"]
    assert any(x["batch_size"] != 128 for x in rows
               if x["application"] == "cifar10")
    for x in rows:
        h = dict(kv.split("=", 1) for kv in
                 x["hints"]["goodput"].split(",")[1:])
        assert int(h["batch"]) == x["batch_size"], x


def test_pollux_oracle_prerun_labelled(tmp_path):
    """The free pre-run is an oracle and says so wherever its
    figures appear: label, JSON, table."""
    pols = "optimus,optimus-rate,quality,drf"
    j = json.loads(run("experiment", "pollux", "--policy", pols,
                       "--oracle-prerun", "--json", "-").stdout)
    assert j["prerun"] == "oracle"
    labels = [x["label"] for x in j["runs"]]
    assert labels == ["optimus+oracle-prerun", "optimus-rate+oracle-prerun",
                      "quality+oracle-prerun", "drf"]
    for x in j["runs"]:
        assert ("oracle" in x["label"]) == (x["oracle"] is not None), x
    out = run("experiment", "pollux", "--policy", pols,
              "--oracle-prerun").stdout
    assert "oracle: optimus-rate+oracle-prerun: true step times" in out
    honest = json.loads(run("experiment", "pollux", "--policy", pols,
                            "--json", "-").stdout)
    assert [x["label"] for x in honest["runs"]] == pols.split(",")
    # quality's loss is an oracle whatever the pre-run; nothing else is.
    assert all((x["oracle"] is None) == (x["label"] != "quality")
               for x in honest["runs"])
    out = run("experiment", "pollux", "--policy", pols).stdout
    assert " oracle: quality: its loss, the true share" in out
    assert " oracle: optimus" not in out
    # A charged pre-run is no oracle, and says which pre-run it is.
    c = json.loads(run("experiment", "pollux", "--policy", pols,
                       "--charged-prerun", "--json", "-").stdout)
    assert c["prerun"] == "charged"
    assert [x["label"] for x in c["runs"]] == [
        "optimus+charged-prerun", "optimus-rate+charged-prerun",
        "quality+charged-prerun", "drf"]
    assert all((x["oracle"] is None) == (x["label"] != "quality+charged-"
                                                        "prerun")
               for x in c["runs"])
    p = subprocess.run([SIM, "experiment", "pollux", "--charged-prerun",
                        "--oracle-prerun"], capture_output=True, text=True)
    assert p.returncode == 2 and "exclude each other" in p.stderr


def test_large_trace_size_refused(tmp_path):
    """A size beyond the truth model no longer finishes at once."""
    t = tmp_path / "t.csv"
    t.write_text("0,resnext-110,sync,4\n0,resnext-110,sync,10\n")
    p = subprocess.run([SIM, "run", "--trace", str(t)],
                       capture_output=True, text=True)
    assert p.returncode == 1
    assert "t.csv:2: size beyond" in p.stderr


def test_pollux_detail():
    p = run("experiment", "pollux", "--policy", "slurm-backfill",
            "--detail", "--json", "-")
    r = json.loads(p.stdout)["runs"][0]
    assert len(r["jobs"]) == 160 and len(r["jcts_sorted"]) == 160
    names = {j["name"] for j in r["jobs"]}
    assert "cifar10-0" in names
    assert all(j["jct"] > 0 and j["workload"] == 6 for j in r["jobs"])
    assert sum(j["jct"] for j in r["jobs"]) / 160 == pytest.approx(
        r["avg_jct"])


# ---- every option works or is refused ----

def figure(report, name):
    return next(c for c in report["comparisons"] if c["name"] == name)


def test_experiment_workload_options_take_effect():
    """--gap, --jobs, --servers and --interval change an experiment's
    output (they were accepted and ignored)."""
    base = run("experiment", "quality-vs-fair", "--quick").stdout
    for opt in (["--gap", "40"], ["--jobs", "12"], ["--servers", "4"],
                ["--interval", "60"]):
        out = run("experiment", "quality-vs-fair", "--quick", *opt).stdout
        assert out != base, opt
    base = run("experiment", "damping", "--quick").stdout
    out = run("experiment", "damping", "--quick", "--jobs", "12").stdout
    assert out != base


@pytest.mark.parametrize("bad", [["--policy", "drf"], ["--damping", "0.5"],
                                 ["--elastic-baselines"], ["--ticks-only"],
                                 ["--family", "dl"], ["--no-paa"]])
def test_experiment_refuses_an_option_it_does_not_use(bad):
    p = subprocess.run([SIM, "experiment", "quality-vs-fair", "--quick"] +
                       bad, capture_output=True, text=True)
    assert p.returncode == 2
    assert "does not use " + bad[0] in p.stderr, p.stderr


def test_run_refuses_quick():
    p = subprocess.run([SIM, "run", "--quick"], capture_output=True,
                       text=True)
    assert p.returncode == 2 and "does not use --quick" in p.stderr


def test_seed_figures_are_means_over_the_seeds():
    """With --seeds 3 the 14-minute figure is the mean of the three
    one-seed figures, and its spread (sample s.d.) is printed."""
    name = "mean loss at 14 min, quality"
    one = [figure(json.loads(run("experiment", "quality-vs-fair", "--quick",
                                 "--seed", str(s), "--seeds", "1",
                                 "--json", "-").stdout), name)["simulated"]
           for s in (1, 2, 3)]
    assert len(set(one)) > 1
    three = figure(json.loads(run("experiment", "quality-vs-fair", "--quick",
                                  "--seed", "1", "--seeds", "3", "--json",
                                  "-").stdout), name)
    mean = sum(one) / 3
    sd = (sum((x - mean) ** 2 for x in one) / 2) ** 0.5
    assert three["simulated"] == pytest.approx(mean, rel=1e-9)
    assert three["sd"] == pytest.approx(sd, rel=1e-6)
    assert three["seeds"] == 3


def test_mllib_run_needs_no_extra_flag():
    """The fixed-size DRF baseline runs MLlib jobs (it failed with
    "invalid hints": a batch of 1 below the 4 submitted workers)."""
    p = run("run", "--family", "mllib", "--policy", "quality,drf",
            "--jobs", "10", "--json", "-")
    runs = {r["label"]: r for r in json.loads(p.stdout)["runs"]}
    assert runs["drf"]["jobs_done"] == 10 and runs["drf"]["restarts"] == 0
    assert runs["quality"]["jobs_done"] == 10


def test_quality_sweep(tmp_path):
    """quality-sweep: quality/fair over load, job length and plan
    interval, one point per line, one SVG per axis; the point of
    quality-vs-fair's own set-up is the same run on every axis."""
    p = run("experiment", "quality-sweep", "--quick", "--json", "-",
            "--svg", str(tmp_path))
    r = json.loads(p.stdout)
    axes = {}
    for pt in r["sweep"]:
        axes.setdefault(pt["axis"], []).append(pt)
        assert pt["ratio"] > 0 and pt["fair"] > 0 and pt["quality"] > 0
        assert pt["fair_length_intervals"] > 0
    assert sorted(axes) == ["interval", "length", "load"]
    assert all(len(v) == 5 for v in axes.values())
    faithful = [c for c in r["comparisons"] if c["paper"] == 0.5]
    assert len(faithful) == 3
    assert len({c["simulated"] for c in faithful}) == 1
    for axis in axes:
        svg = tmp_path / ("quality-sweep-%s.svg" % axis)
        assert svg.read_text().startswith("<svg")
    p = subprocess.run([SIM, "experiment", "quality-sweep", "--gap", "5"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "does not use --gap" in p.stderr


def bench_setup(tmp_path, jobs, **kw):
    setup = dict({"nodes": 2, "cpus": 4, "max_workers": 3, "interval": 20,
                  "restart": 8, "cost_scale": 600.0,
                  "times": [30, 60, 90, 120]}, **kw)
    setup["jobs"] = [{"arrival": a, "curve": c} for a, c in jobs]
    path = tmp_path / "setup.json"
    path.write_text(json.dumps(setup))
    return str(path)


def test_quality_bench_predicts_the_bench_run(tmp_path):
    """quality-bench runs the bench's own jobs on its cluster: one job
    alone gets the same workers under both policies (equal losses); more
    jobs than the cluster runs at once make them differ; a slower
    iteration (cost) leaves a higher loss."""
    def series(path):
        r = json.loads(run("quality-bench", path, "--json", "-").stdout)
        assert [x["label"] for x in r["runs"]] == ["quality", "fair (drf)"]
        return [dict((round(t), l) for t, l in x["loss_series"])
                for x in r["runs"]]
    alone = series(bench_setup(tmp_path, [(0, "gbt-8000-0.03")]))
    assert all(alone[0][t] == alone[1][t] for t in (30, 60, 90, 120))
    slow = series(bench_setup(tmp_path, [(0, "gbt-8000-0.03")],
                              cost_scale=2400.0))
    assert slow[0][120] > alone[0][120]
    many = [(5 * i, c) for i, c in enumerate(
        ["gbt-8000-0.03", "lda-1000-250", "mlp-1000-0.1", "gbt-1000-0.5",
         "gbt-1000-0.03", "mlp-1000-0.003"])]
    crowd = series(bench_setup(tmp_path, many))
    assert any(crowd[0][t] != crowd[1][t] for t in (30, 60, 90, 120))


def test_quality_bench_errors(tmp_path):
    p = subprocess.run([SIM, "quality-bench", bench_setup(
        tmp_path, [(0, "no-such-curve")])], capture_output=True, text=True)
    assert p.returncode == 1 and "unknown curve" in p.stderr
    p = subprocess.run([SIM, "quality-bench", bench_setup(
        tmp_path, [(0, "gbt-8000-0.03")]), "--jobs", "3"],
        capture_output=True, text=True)
    assert p.returncode == 2 and "takes its set-up from the file" in p.stderr


# ---- a slice on another cluster (bench/pollux_replay.py) --

SLICE = ["experiment", "pollux", "--realistic", "--workload", "1",
         "--jobs", "5", "--epochs", "1", "--nodes", "4", "--round", "20",
         "--restart", "120", "--min-resize", "600", "--limit-unit", "1200",
         "--policy", "optimus,slurm-backfill", "--detail", "--json", "-"]


def slice_runs(*extra):
    r = json.loads(run(*(SLICE + list(extra))).stdout)
    return r, {x["label"]: x for x in r["runs"]}


def test_pollux_slice_runs_the_first_jobs_on_the_given_cluster():
    r, runs = slice_runs("--start", "40")
    assert r["cluster"] == {"nodes": 4, "gpus_per_node": 4, "round_s": 20,
                            "start_s": 40, "start_queued_s": 0,
                            "restart_s": 120, "rebatch_s": 5,
                            "min_resize_s": 600, "limit_unit_s": 1200,
                            "limit_start_s": 40,
                            "explore_scaling": True, "first": 0, "jobs": 5,
                            "epochs": 1}
    # No published figure is for a slice.
    assert all(v["1.0"] is None for v in r["published"].values())
    for x in runs.values():
        assert len(x["jobs"]) == 5 and x["done"] == 5  # --detail: each job
        assert [j["name"] for j in x["jobs"]] == [
            "cifar10-0", "deepspeech2-1", "ncf-2", "deepspeech2-3",
            "cifar10-4"]
        assert all(j["epochs"] == 1 for j in x["jobs"])
    for j in runs["slurm-backfill"]["jobs"]:
        # twice its run alone (its 40 s start included), whole units
        assert j["time_limit"] % 1200 == 0, j
        assert j["time_limit"] >= 2 * (j["jct"] - j["wait"]), j
    assert all("time_limit" not in j for j in runs["optimus"]["jobs"])
    # The first start costs --start: the first job, alone, ends 40 s later
    # than with a free start.
    _, free = slice_runs("--start", "0")
    a, b = runs["slurm-backfill"]["jobs"][0], free["slurm-backfill"]["jobs"][0]
    assert a["jct"] - b["jct"] == pytest.approx(40)


def test_pollux_slice_from_a_later_job():
    """--first K: the slice's jobs are the K-th onwards, arriving at their
    own times; the same jobs as in the slice from the start."""
    _, whole = slice_runs()
    r, later = slice_runs("--first", "2", "--jobs", "3")
    assert r["cluster"]["first"] == 2 and r["cluster"]["jobs"] == 3
    got = later["slurm-backfill"]["jobs"]
    assert [j["name"] for j in got] == ["ncf-2", "deepspeech2-3",
                                        "cifar10-4"]
    assert [j["submit"] for j in got] == [
        j["submit"] for j in whole["slurm-backfill"]["jobs"][2:]]


def test_pollux_set_up_rules():
    """The measured set-up: ExploreScaling on unless --explore-scaling no;
    the stability interval 10 x the restart cost unless --min-resize."""
    base = [x for x in SLICE if x not in ("--min-resize", "600")]
    r = json.loads(run(*base).stdout)["cluster"]
    assert r["restart_s"] == 120 and r["min_resize_s"] == 1200
    assert r["explore_scaling"] is True
    r = json.loads(run(*(base + ["--explore-scaling", "no"])).stdout)
    assert r["cluster"]["explore_scaling"] is False
    p = run("experiment", "pollux", "--help")
    assert "--explore-scaling" in p.stdout


def test_pollux_goodput_objective():
    """--goodput-objective: goodput's allocation by Pollux's objective
    (alloc/fair_speedup.c), with or without its restart weighting,
    recorded in the JSON only when set; the default is the completion
    rate, and `rate` prints what no option prints."""
    bench = ["experiment", "pollux", "--realistic", "--workload", "4",
             "--first", "10", "--jobs", "30", "--epochs", "3", "--nodes",
             "4", "--round", "20", "--policy", "goodput", "--json", "-"]
    plain = json.loads(run(*bench).stdout)
    rate = json.loads(run(*(bench + ["--goodput-objective", "rate"])).stdout)
    assert "goodput_objective" not in plain["cluster"]
    assert rate["runs"] == plain["runs"]
    for o in ("speedup", "speedup-restart"):
        r = json.loads(run(*(bench + ["--goodput-objective", o])).stdout)
        assert r["cluster"]["goodput_objective"] == o
        assert r["runs"][0]["done"] == r["runs"][0]["jobs"] == 30
    assert "--goodput-objective" in run("experiment", "pollux",
                                        "--help").stdout


def test_pollux_bench_hints():
    """--bench-hints: the jobs as bench/pollux_replay.py submits them (no
    epoch_steps=, goodput's batch range from the submitted batch), recorded
    in the JSON; on the bench's slice it changes goodput's plan (the
    replay bench's imagenet-13 ran 3x longer than the simulator said with
    the artifact's hints: doc/design/simulator.md "The epoch length")."""
    bench = ["experiment", "pollux", "--realistic", "--workload", "4",
             "--first", "10", "--jobs", "30", "--epochs", "3", "--nodes",
             "4", "--round", "20", "--restart", "160", "--min-resize", "600",
             "--explore-scaling", "no", "--policy", "goodput", "--json", "-"]
    plain = json.loads(run(*bench).stdout)
    hinted = json.loads(run(*(bench + ["--bench-hints"])).stdout)
    assert "bench_hints" not in plain["cluster"]
    assert hinted["cluster"]["bench_hints"] is True
    assert hinted["runs"][0]["avg_jct"] != plain["runs"][0]["avg_jct"]
    assert "--bench-hints" in run("experiment", "pollux", "--help").stdout


def test_pollux_hints_stated_and_taking_effect():
    """What the users say of their jobs' length is stated beside every
    figure (JSON, table) and changes our policies' plans: noisy epoch
    counts by default, exact ones and none on request; the bench's jobs
    are submitted with their exact count."""
    base = ["experiment", "pollux", "--policy", "goodput,tiresias",
            "--json", "-"]
    runs = {h: json.loads(run(*(base + ["--hints", h])).stdout)
            for h in ("noisy", "exact", "none")}
    default = json.loads(run(*base).stdout)
    assert default["hints"] == runs["noisy"]["hints"]
    assert runs["noisy"]["hints"]["rule"] == "noisy"
    assert runs["noisy"]["hints"]["sigma"] == 0.25
    assert runs["noisy"]["hints"]["epoch_steps"] is False
    assert runs["exact"]["hints"]["epoch_steps"] is True
    assert runs["none"]["hints"]["epochs"] == "none"
    goodput = {h: r["runs"][0]["avg_jct"] for h, r in runs.items()}
    assert len(set(goodput.values())) == 3, goodput
    # Tiresias reads no hint: the same figure under every rule.
    assert len({r["runs"][1]["avg_jct"] for r in runs.values()}) == 1
    assert "users' hints noisy" in run("experiment", "pollux", "--policy",
                                       "tiresias").stdout
    bench = json.loads(run(*(SLICE + ["--bench-hints"])).stdout)
    assert bench["hints"]["rule"] == "exact"
    assert bench["hints"]["epoch_steps"] is False
    p = subprocess.run([SIM, "experiment", "pollux", "--hints", "roughly"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "--hints: noisy, exact or none" in p.stderr


def test_pollux_validation_set():
    """--workload-set validation: the artifact's generator's seeds 9-24,
    no published figure, and every policy against Tiresias workload by
    workload (table and JSON)."""
    r = json.loads(run("experiment", "pollux", "--workload-set",
                       "validation", "--load", "0.5", "--policy",
                       "tiresias,goodput", "--json", "-").stdout)
    assert r["workload_set"] == "validation"
    assert r["workloads"] == list(range(9, 25))
    assert all(v["0.5"] is None for v in r["published"].values())
    vs = r["runs"][1]["vs_tiresias_per_workload"]
    assert sorted(vs) == sorted("workload-%d" % w for w in range(9, 25))
    per = r["runs"][1]["avg_jct_per_workload"]
    tir = r["runs"][0]["avg_jct_per_workload"]
    assert all(vs[k] == pytest.approx(per[k] / tir[k]) for k in vs)
    assert "vs_tiresias_per_workload" not in r["runs"][0]
    out = run("experiment", "pollux", "--workload-set", "validation",
              "--workload", "9", "--policy", "tiresias").stdout
    assert "workload 9 (validation set)" in out
    out = run("experiment", "pollux", "--workload", "1",
              "--policy", "tiresias").stdout
    assert "against tiresias, workload by workload" not in out
    for bad, msg in ((["--workload-set", "validation", "--workload", "3"],
                      "9..24 or all (the validation set)"),
                     (["--workload", "9"], "1..8 or all (the test set)"),
                     (["--workload-set", "train"], "test or validation"),
                     (["--workload-set", "validation", "--realistic"],
                      "tuned sizes only")):
        p = subprocess.run([SIM, "experiment", "pollux"] + bad,
                           capture_output=True, text=True)
        assert p.returncode == 2 and msg in p.stderr, (bad, p.stderr)


def test_pollux_slice_errors():
    p = subprocess.run([SIM, "experiment", "pollux", "--workload", "1",
                        "--jobs", "12", "--nodes", "4"],
                       capture_output=True, text=True)
    assert p.returncode == 1
    assert "imagenet-11: 32 GPUs asked, the cluster has 16" in p.stderr
    p = subprocess.run([SIM, "experiment", "pollux", "--first", "160"],
                       capture_output=True, text=True)
    assert p.returncode == 1 and "--first 160: the workload has 160 jobs" \
        in p.stderr
    for bad in (["--nodes", "17"], ["--nodes", "2.5"], ["--epochs", "0"],
                ["--jobs", "x"], ["--round", "0"], ["--restart", "-1"],
                ["--explore-scaling", "maybe"], ["--first", "-1"],
                ["--goodput-objective", "fair"]):
        p = subprocess.run([SIM, "experiment", "pollux"] + bad,
                           capture_output=True, text=True)
        assert p.returncode == 2 and "optimus-sim: --" in p.stderr, bad

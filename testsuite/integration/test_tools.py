# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""What optimusctl and optimus-report print, on a real
cluster: strict JSON (a parser refusing NaN/Infinity), the scheduler's own
fitted curve in `show job`, a status table with real figures and a state
column (finished jobs only with --all), a plan table, and one line naming
a bad argument. TOOLS_DIR (default src/tools) selects the binaries, so the
same test can be run against an older build."""
import json
import os
import re
import subprocess
import sys
import time

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "python"))
import optimus_report as opr  # noqa: E402
from report_helpers import client_env, strict_json  # noqa: E402
from waiting import wait_plans  # noqa: E402

TOOLS = os.environ.get("TOOLS_DIR", os.path.join(TOP, "src", "tools"))
CTL = os.path.join(TOOLS, "optimusctl")
REPORT = os.path.join(TOOLS, "optimus-report")
BLOCK = "#!/bin/sh\nsleep 600\n"


@pytest.fixture(scope="module")
def env(cluster):
    return client_env(cluster)


def run(env, *argv):
    return subprocess.run(list(argv), env=env, capture_output=True,
                          text=True, timeout=60)


@pytest.fixture(scope="module")
def jobs(cluster, env):
    """A running job with 12 progress reports and a speed sample, a plain
    job with a speed sample, a job that waits (the whole cluster is
    taken), and a finished one."""
    running = cluster.sbatch(["--scheduler=optimus,workers=1", "-o",
                              "/dev/null", "-t", "20"], BLOCK)
    cluster.wait_job_state(running, {"RUNNING"}, timeout=60)
    with opr.Reporter(job_id=running) as r:
        for i in range(1, 13):
            # Two progress reports of a run at least a second apart give
            # the scheduler a measured speed (planner_reports.c): made
            # certain here, not left to the machine's load.
            # The time between them is what is measured, not a wait.
            if i == 12:
                time.sleep(1.5)
            r.progress(100 * i, 2.0 / (1 + 0.3 * i) + 0.1,
                       samples_per_sec=64.0)
        r.speed(ps=1, workers=1, steps_per_sec=3.5)
    # A plain job (no planner record): the table shows its last sample.
    plain = cluster.sbatch(["-o", "/dev/null", "-t", "20"], BLOCK)
    with opr.Reporter(job_id=plain) as r:
        r.speed(ps=2, workers=3, steps_per_sec=3.5)
    done = cluster.sbatch(["--scheduler=optimus,workers=1", "-o",
                           "/dev/null"], "#!/bin/sh\ntrue\n")
    cluster.wait_job_state(done, {"COMPLETED"}, timeout=60)
    blocker = cluster.sbatch(["-N4", "--exclusive", "-o", "/dev/null"], BLOCK)
    waiting = cluster.sbatch(["--scheduler=optimus,workers=2", "-o",
                              "/dev/null"], BLOCK)
    wait_plans(cluster, 3)      # a few plans: each job planned
    yield {"running": running, "waiting": waiting, "done": done,
           "plain": plain}
    cluster.run(["scancel", str(running), str(waiting), str(blocker),
                 str(plain)], check=False)


@pytest.mark.parametrize("argv", [["status"], ["status", "--all"], ["plan"],
                                  ["show", "job", "running"],
                                  ["show", "job", "waiting"]])
def test_json_is_strict(env, jobs, argv):
    argv = [str(jobs[a]) if a in jobs else a for a in argv]
    r = run(env, CTL, "--json", *argv)
    assert r.returncode == 0, r.stderr
    strict_json(r.stdout)
    if argv[0] == "show":
        # the Python client's answer is strict too
        strict_json(json.dumps(opr.query("job", int(argv[2])),
                               allow_nan=False))


def test_show_job_plots_the_schedulers_fit(env, jobs):
    jid = jobs["running"]
    res = strict_json(run(env, CTL, "--json", "show", "job", str(jid)).stdout)
    fit = res["convergence"]["fit"]
    assert fit, "the scheduler has no fit after 12 points"
    text = run(env, CTL, "show", "job", str(jid)).stdout
    assert "Fit (scheduler): %s " % fit["form"] in text, text
    assert "c0=%.6g" % fit["c"][0] in text, text


def row(text, jid):
    for line in text.splitlines():
        if line.split()[:1] == [str(jid)]:
            return line.split()
    return None


def test_status_shows_real_figures_and_state(env, jobs):
    r = run(env, CTL, "status")
    assert r.returncode == 0, r.stderr
    head = r.stdout.splitlines()[1].split()
    assert head[:4] == ["JOBID", "STATE", "UID", "REPORTS"], r.stdout
    cols = row(r.stdout, jobs["running"])
    assert cols and cols[1] == "running", r.stdout
    assert int(cols[3]) == 12, r.stdout          # progress reports
    assert float(cols[6]) == 64.0, r.stdout       # samples/s
    # the scheduler's speed of the run, measured between the last two
    # progress reports (100 steps in 1.5 s and a little more)
    speed = strict_json(run(env, CTL, "--json", "status").stdout)
    sps = [j["steps_per_sec"] for j in speed["jobs"]
           if j["job_id"] == jobs["running"]]
    assert sps and 30 < sps[0] <= 100 / 1.5, speed
    assert cols[7] == "1,1,%.4g" % sps[0], r.stdout
    # a job the planner does not track: its last measured sample
    cols = row(r.stdout, jobs["plain"])
    assert cols and cols[1] == "reported" and cols[7] == "2,3,3.5", r.stdout
    assert row(r.stdout, jobs["waiting"])[1] == "pending", r.stdout
    assert row(r.stdout, jobs["done"]) is None, r.stdout
    assert "finished job" in r.stdout
    r = run(env, CTL, "status", "--all")
    assert row(r.stdout, jobs["done"])[1] == "done", r.stdout


def test_plan_is_a_table(env, jobs):
    r = run(env, CTL, "plan")
    assert r.returncode == 0, r.stderr
    assert not r.stdout.lstrip().startswith("{"), r.stdout
    assert re.search(r"(?m)^JOBID\s+ACTION\s+PS\s+WORKERS", r.stdout), r.stdout
    assert row(r.stdout, jobs["waiting"]), r.stdout


@pytest.mark.parametrize("argv,needle", [
    ([CTL, "show", "job", "abc"], "'abc'"),
    ([CTL, "show", "job", "-5"], "'-5'"),
    ([CTL, "frobnicate"], "'frobnicate'"),
    ([CTL, "--timeout", "x", "status"], "--timeout 'x'"),
    ([REPORT, "progress", "--job", "5", "--step", "1", "--loss", "nan"],
     "--loss 'nan'"),
    ([REPORT, "progress", "--job", "5", "--step", "x", "--loss", "1"],
     "--step 'x'"),
])
def test_bad_argument_one_line(env, argv, needle):
    r = run(env, *argv)
    assert r.returncode == 2
    assert needle in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr

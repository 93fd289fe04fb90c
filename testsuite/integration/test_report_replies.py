# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Any reply can be read, on a real cluster: one job
with 100,000 progress reports (sent by bench/load_reports, the C client),
then `optimusctl show job` (text and --json), `--points N` and the Python
client all read the scheduler's answer (doc/design/reports.md, "Replies")."""
import json
import os
import subprocess
import sys
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "python"))
import optimus_report as opr  # noqa: E402
from report_helpers import client_env, strict_json  # noqa: E402
from waiting import poll, wait_for  # noqa: E402

CTL = os.path.join(os.environ.get("TOOLS_DIR", os.path.join(TOP, "src",
                                                            "tools")),
                   "optimusctl")
LOADER = os.path.join(TOP, "bench", "load_reports")
REPORTS = 100000


def test_reply_of_a_job_with_100000_reports(cluster):
    env = client_env(cluster)
    assert os.access(LOADER, os.X_OK), "run make first"
    jid = cluster.sbatch(["-o", "/dev/null", "-t", "30"],
                         script="#!/bin/sh\nsleep 1200\n")
    cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
    # The loader does not retry: the reports refused "busy" (the planner's
    # queue is full until its next drain) are sent again in the next run,
    # a second later if the last run landed none (the drain had not come).
    accepted = 0
    deadline = time.time() + 300
    while accepted < REPORTS and time.time() < deadline:
        r = subprocess.run([LOADER, "-j", str(jid), "-t", "2", "-s", "120",
                            "-m", str(REPORTS - accepted)], env=env,
                           capture_output=True, text=True, timeout=200)
        print(r.stdout.strip(), r.stderr.strip())
        assert r.returncode == 0, r.stderr
        landed = int(r.stdout.split("accepted")[1].split()[0])
        accepted += landed
        if not landed:     # the queue full: wait for the planner's drain
            counted = opr.query("job", jid, points=1)["reports"]
            poll(lambda: opr.query("job", jid, points=1)["reports"] >
                 counted, 10)
    assert accepted == REPORTS
    # and 600 speed samples, as a job measuring each configuration would
    with opr.Reporter(job_id=jid) as rep:
        for i in range(600):
            rep.speed(ps=1 + i % 4, workers=1 + i % 8, steps_per_sec=1.0 + i)
    wait_for(lambda: opr.query("job", jid, points=1)["reports"] >= REPORTS,
             60, "the planner to count them all", interval=1)
    r = subprocess.run([CTL, "--json", "show", "job", str(jid)], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    res = strict_json(r.stdout)
    n_full = len(res.get("progress", []))
    print("reply: %d bytes on the wire, %d progress points, %d speed "
          "samples" % (len(json.dumps(opr.query("job", jid),
                                      separators=(",", ":"))),
                       n_full, len(res.get("speed_samples", []))))
    assert res["reports"] >= REPORTS
    r = subprocess.run([CTL, "show", "job", str(jid)], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "Loss points:" in r.stdout
    r = subprocess.run([CTL, "--json", "show", "job", str(jid), "--points",
                        "50"], env=env, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert 0 < len(strict_json(r.stdout)["progress"]) <= 50
    res = opr.query("job", jid)
    assert res["reports"] >= REPORTS
    cluster.run(["scancel", str(jid)])

"""bench/pollux_replay.py --quick as a smoke test (issue 29): three
replayed Pollux jobs, one epoch each, under sched/optimus and plain
sched/backfill on the bench's own localhost clusters with accounting,
and the simulator's prediction of the same slice beside them.

No figure is asserted (the bench's figures are doc/e2e.md's, measured by
hand): the bench runs end to end, every job COMPLETED under both
schedulers, and each job and each scheduler has a real JCT and a
simulated one."""
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
    assert sorted(r["real"]) == ["backfill", "optimus"]
    for policy, real in r["real"].items():
        assert real["not_completed"] == 0, policy
        assert math.isfinite(real["avg_jct"]) and real["avg_jct"] > 0
        sim = r["simulator"][policy]
        assert len(sim["jobs"]) == 3 and sim["done"] == 3
    for run in r["runs"]:
        assert [j["state"] for j in run["jobs"]] == ["COMPLETED"] * 3
    assert "ranking by avg JCT: real" in p.stdout

# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""The two libFuzzer targets (testsuite/fuzz/run.sh: the report service on
every byte a peer sends; report sequences through the whole model path)
still build against the core as it is and run a few thousand inputs
clean under ASan and UBSan: a harness nobody builds stops building
(as these had, when the report service's callbacks and the core's
folders changed). Long runs are doc/results.md's "Fuzzing". Needs clang
and libclang-rt-dev (contrib/install-deps.sh installs them)."""
import os
import shutil
import subprocess

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUNS = 2000


@pytest.mark.skipif(shutil.which("clang") is None,
                    reason="clang not installed (contrib/install-deps.sh)")
@pytest.mark.parametrize("target", ["protocol", "models"])
def test_fuzz_target_builds_and_runs_clean(tmp_path, target):
    env = dict(os.environ, RUNS=str(RUNS), OUT=str(tmp_path))
    p = subprocess.run(["sh", os.path.join(TOP, "testsuite", "fuzz",
                                           "run.sh"), "0", target],
                       env=env, capture_output=True, text=True,
                       timeout=600)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out[-3000:]
    assert "Done %d runs" % RUNS in out, out[-3000:]

# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""The run a report names: the Python module's reports carry
the sender's SLURM_RESTART_COUNT when it belongs to the reported job, and
no run otherwise (the scheduler then takes the report as any run's).
Needs no cluster."""
import json
import os
import sys

import pytest

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(TOP, "python"))
import optimus_report as opr  # noqa: E402


@pytest.mark.parametrize("env, want", [
    ({"SLURM_JOB_ID": "7", "SLURM_RESTART_COUNT": "0"}, 0),
    ({"SLURM_JOB_ID": "7", "SLURM_RESTART_COUNT": "3"}, 3),
    ({"SLURM_JOB_ID": "7", "SLURM_RESTART_COUNT": "65535"}, 65535),
    ({"SLURM_JOB_ID": "7", "SLURM_RESTART_COUNT": "65536"}, None),
    ({"SLURM_JOB_ID": "7", "SLURM_RESTART_COUNT": "-1"}, None),
    ({"SLURM_JOB_ID": "7", "SLURM_RESTART_COUNT": "\u0661"}, None),
    ({"SLURM_JOB_ID": "7"}, None),                    # Slurm's first run
    ({"SLURM_JOB_ID": "8", "SLURM_RESTART_COUNT": "1"}, None),  # another job
    ({"SLURM_RESTART_COUNT": "1"}, None),             # outside any job
])
def test_run_of(env, want):
    assert opr.run_of(7, env) == want


def test_reports_name_their_run_queries_none(monkeypatch):
    monkeypatch.setenv("SLURM_JOB_ID", "7")
    monkeypatch.setenv("SLURM_RESTART_COUNT", "2")
    msg = json.loads(opr.message("progress", job=7, step=1, loss=1.0, sps=0))
    assert msg["run"] == 2
    assert "run" not in json.loads(opr.message("progress", job=9, step=1,
                                               loss=1.0, sps=0))
    assert "run" not in json.loads(opr.message("query", query="status"))
    monkeypatch.delenv("SLURM_RESTART_COUNT")
    assert "run" not in json.loads(opr.message("worker", job=7, rank=0,
                                               node="n1", step_time=0.1))

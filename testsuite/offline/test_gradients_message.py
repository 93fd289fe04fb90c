# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""What the Python module's gradients report says: a run of equal
estimates in one report names how many (`estimates`), a single one says
nothing more than before, so a listener that predates the key still takes
it. Needs no cluster."""
import json
import os
import sys

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(TOP, "python"))
import optimus_report as opr  # noqa: E402


def _sent(monkeypatch, **kw):
    """The payload Reporter.gradients builds, instead of sending it."""
    rep = opr.Reporter(job_id=7)
    sent = []
    monkeypatch.setattr(rep, "request", lambda fn: sent.append(
        json.loads(fn())))
    rep.gradients(2.0, 3.0, 8, **kw)
    return sent[0]


def test_one_estimate_says_no_count(monkeypatch):
    msg = _sent(monkeypatch)
    assert msg["type"] == "gradients" and msg["job"] == 7
    assert (msg["grad_sqr"], msg["grad_var"], msg["var_batch"]) == \
        (2.0, 3.0, 8.0)
    assert "estimates" not in msg


def test_a_run_of_estimates_says_how_many(monkeypatch):
    assert _sent(monkeypatch, estimates=40)["estimates"] == 40

# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""The Python client's side of a batch change in place (doc/design/reports.md
"Re-batch in place"): a progress report says the batch it runs at, a
reply's "rebatch" is read strictly and kept until the trainer takes it.
Needs no cluster (the end to end: testsuite/integration/
test_adaptive_batch.py)."""
import json
import math
import os
import sys

import pytest

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(TOP, "python"))
import optimus_report as opr  # noqa: E402

GOOD = {"batch": 1536, "local_batch": 192, "accum": 1, "lr_scale": 2.5}


def test_rebatch_from_reply():
    r = opr.Rebatch.from_reply({"rebatch": dict(GOOD)})
    assert (r.global_batch, r.local_batch, r.accum_steps, r.lr_scale) == \
        (1536, 192, 1, 2.5)
    assert r.micro_steps == 2
    assert r.fits(4) and not r.fits(3)
    assert opr.Rebatch.from_reply(None) is None
    assert opr.Rebatch.from_reply({"other": 1}) is None


@pytest.mark.parametrize("bad", [
    dict(GOOD, batch=True), dict(GOOD, batch=1536.0), dict(GOOD, batch=0),
    dict(GOOD, local_batch="192"), dict(GOOD, accum=65),
    dict(GOOD, lr_scale=0), dict(GOOD, lr_scale=math.nan),
    dict(GOOD, lr_scale=False), {k: v for k, v in GOOD.items()
                                 if k != "accum"}, [1536]])
def test_rebatch_malformed_refused(bad):
    with pytest.raises(opr.ReportError) as e:
        opr.Rebatch.from_reply({"rebatch": bad})
    assert e.value.code == "bad_reply" and "rebatch" in e.value.message


def test_reporter_keeps_the_latest_change_until_taken(monkeypatch):
    monkeypatch.setenv("SLURM_CONF", "/nonexistent/slurm.conf")
    rep = opr.Reporter(job_id=7)
    assert rep.take_rebatch() is None
    rep._note_rebatch({"rebatch": dict(GOOD)})
    rep._note_rebatch(None)             # a reply without one keeps it
    rep._note_rebatch({"rebatch": dict(GOOD, batch=768, local_batch=96)})
    change = rep.take_rebatch()
    assert change.global_batch == 768
    assert rep.take_rebatch() is None


def test_progress_says_its_batch(monkeypatch):
    monkeypatch.setenv("SLURM_CONF", "/nonexistent/slurm.conf")
    rep = opr.Reporter(job_id=7)
    sent = []
    monkeypatch.setattr(rep, "request", lambda p: sent.append(
        json.loads(p() if callable(p) else p)))
    rep.progress(10, 0.5, batch=256, rebatch_seconds=0.125)
    rep.progress(11, 0.5, batch=256)
    rep.progress(12, 0.5)
    rep.progress(13, 0.5, rebatch_seconds=1.0)   # no batch: no time
    assert (sent[0]["batch"], sent[0]["rebatch_seconds"]) == (256, 0.125)
    assert sent[1]["batch"] == 256 and "rebatch_seconds" not in sent[1]
    for s in sent[2:]:
        assert "batch" not in s and "rebatch_seconds" not in s

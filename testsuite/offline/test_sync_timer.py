# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""optimus_report.SyncTimer: the all-reduce part of a step is the time
from the backward pass's last gradient to the synced pass's end. A
stand-in all-reduce (a wait after the last gradient, as DDP's backward
waits for its last bucket) is measured as that wait; a pass without it
as next to nothing; another wait of the step (waited()) adds to it;
take() averages per synced pass since the last take(). Needs
python3-torch, no cluster."""
import importlib.util
import os
import sys
import time

import pytest

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(TOP, "python"))
import optimus_report as opr  # noqa: E402

HAVE_TORCH = importlib.util.find_spec("torch") is not None


@pytest.mark.skipif(not HAVE_TORCH, reason="python3-torch is not installed")
def test_sync_timer_measures_the_wait_after_the_last_gradient():
    import torch
    torch.manual_seed(1)
    net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(),
                              torch.nn.Linear(16, 2))
    timer = opr.SyncTimer(net)
    x = torch.randn(32, 8)
    assert timer.take() is None         # nothing timed yet

    def synced_pass(wait):
        net.zero_grad()
        net(x).sum().backward()
        time.sleep(wait)                # the all-reduce the step waits for
        timer.synced()

    synced_pass(0.2)
    synced_pass(0.1)
    mean = timer.take()
    assert 0.14 <= mean < 0.25, mean
    assert timer.take() is None         # taken
    synced_pass(0.0)
    assert 0.0 <= timer.take() < 0.05
    # a pass under no_sync stamps, and synced() is not called after it:
    # it adds nothing; the synced pass after it counts from its own
    # last gradient
    net(x).sum().backward()
    time.sleep(0.1)
    synced_pass(0.0)
    assert timer.take() < 0.05
    # another wait of the step (a flag all-reduce) adds to its part;
    # a wait with no synced pass since is dropped with the take
    synced_pass(0.0)
    timer.waited(0.2)
    assert 0.2 <= timer.take() < 0.25
    timer.waited(0.2)
    assert timer.take() is None
    synced_pass(0.0)
    assert timer.take() < 0.05

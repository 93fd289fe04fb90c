# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""The test clusters' port slots (testsuite/cluster/cluster.py): a slot a
starting cluster has claimed is never handed to another, even before the
first cluster's daemons have bound a port, and even from another process
(CI's two lanes run in two chroots on one network). The claims here have
names of their own, so that clusters running beside them lose nothing."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cluster"))

import cluster  # noqa: E402

CLAIM = "slurm-optimus-offline-test-slot-%d-" + str(os.getpid())


@pytest.fixture
def own_claims(monkeypatch):
    monkeypatch.setattr(cluster, "SLOT_CLAIM", CLAIM)


def test_a_claimed_slot_is_not_claimed_again(own_claims):
    first = cluster._slot_claim(7)
    try:
        assert first is not None
        assert cluster._slot_claim(7) is None
    finally:
        first.close()
    again = cluster._slot_claim(7)
    assert again is not None
    again.close()


def test_free_slot_passes_over_slots_another_process_claims(own_claims,
                                                            monkeypatch):
    """Every slot but one claimed by another process, none of their ports
    bound (as while its clusters start): _free_slot returns the one left,
    every time."""
    left = 5
    monkeypatch.setattr(cluster, "_port_free", lambda port: True)
    monkeypatch.setattr(cluster, "ephemeral_ports", lambda: range(0))
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; sys.path.insert(0, %r); import cluster; "
         "cluster.SLOT_CLAIM = %r; "
         "held = [cluster._slot_claim(k) for k in range(cluster.SLOTS) "
         "if k != %d]; "
         "print(sum(h is not None for h in held), flush=True); "
         "time.sleep(60)" % (os.path.join(HERE, "..", "cluster"), CLAIM,
                             left)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert int(holder.stdout.readline()) == cluster.SLOTS - 1
        for _ in range(5):
            slot, base, claim = cluster._free_slot(8)
            claim.close()
            assert slot == left
            assert base == cluster.DAEMON_PORTS[0] + left * \
                cluster.DAEMON_STRIDE
    finally:
        holder.kill()
        holder.wait()

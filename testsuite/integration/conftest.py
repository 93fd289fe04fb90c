# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""pytest fixtures: a real Slurm cluster on localhost (testsuite/cluster)."""
import os
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "cluster"))
from cluster import Cluster  # noqa: E402

# Jobs and tasks inherit this environment. A developer's PYTHONUNBUFFERED
# makes every Python task write stderr unbuffered, which hides faults a
# job meets by default (a signal handler that prints inside a buffered
# print: signal_storm.py); CI has no such variable, so neither do tests.
os.environ.pop("PYTHONUNBUFFERED", None)


def _start(request, tmp_root, **kw):
    c = Cluster(tmp_root, **kw)
    try:
        c.start()
    except Exception:
        print("cluster logs kept in", c.log, file=sys.stderr)
        raise
    return c


def _finish(request, c):
    # Keep the folder (and its logs) when a test of the module failed.
    failed = getattr(request.node, "_optimus_failed", False)
    c.stop(keep=failed)
    if failed:
        print("\ncluster logs kept in %s" % c.log, file=sys.stderr)


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.failed:
        item.module._optimus_failed = True
        parent = item.parent
        while parent is not None:
            parent._optimus_failed = True
            parent = parent.parent


@pytest.fixture(scope="module")
def cluster(request):
    """A 4-node cluster (8 CPUs, 16 GB, 4 GPUs each) with sched/optimus."""
    root = tempfile.mkdtemp(prefix="optimus-test-")
    kw = getattr(request.module, "CLUSTER_OPTIONS", {})
    c = _start(request, root, **kw)
    yield c
    _finish(request, c)


@pytest.fixture(scope="module")
def accounting_cluster(request):
    """Like `cluster`, with MariaDB and slurmdbd for sacct."""
    root = tempfile.mkdtemp(prefix="optimus-test-acct-")
    kw = dict(getattr(request.module, "CLUSTER_OPTIONS", {}))
    kw["accounting"] = True
    c = _start(request, root, **kw)
    yield c
    _finish(request, c)

# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""One ordinary user cannot take the report channel's shared resources from
the others (doc/reports.md "Fair shares"), on a real cluster.
The attacks run as a second Unix user created here; meanwhile a real job
of another user sends genuine reports, which must all land.

The tables are made small (ReportReplayCapacity=1024: full at 768 live
nonces) so that two thousand requests fill them, as ~196k did with the
default size."""
import os
import subprocess
import sys
import time

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "python"))
import optimus_report as opr  # noqa: E402
from attack_helpers import (GENUINE, genuine_reports,  # noqa: E402
                            run_attack, wait_landed)
from report_helpers import (client_env, job_of, open_to_every_user,
                            unix_user)  # noqa: E402

REPORT = os.path.join(TOP, "src", "tools", "optimus-report")
OTHER = "optimus-attacker"
REPLAY_CAPACITY = 1024
MAX_CONNS = 24
MAX_PEER = 8
CLUSTER_OPTIONS = {"optimus_conf": "ReportReplayCapacity=%d\n"
                   "ReportMaxConnections=%d\nReportMaxPeerConnections=%d\n"
                   % (REPLAY_CAPACITY, MAX_CONNS, MAX_PEER)}

# The connection holder: keeps `per` connections from each source address
# in argv[2:] authenticated (a signed status query each, again every
# second, well within ReportTimeout) and reopens every one the listener
# closes; prints how many it holds every second.
HOLDER = r"""
import os, socket, sys, time
import optimus_report as o
port, per, addrs = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
sock = os.environ["MUNGE_SOCKET"]
conns = {}
def ask(s):
    p = o.message("query", query="status")
    s.sendall(o.frame(p, o.sign(p.encode(), sock)))
    o.read_reply(s)
while True:
    for a in addrs:
        for k in range(per):
            s = conns.get((a, k))
            try:
                if s is None:
                    s = socket.create_connection(("127.0.0.1", port),
                                                 timeout=2,
                                                 source_address=(a, 0))
                    conns[(a, k)] = s
                ask(s)
            except o.ReportError as e:
                # a refusal (its replay share used up: busy) still leaves
                # the connection open and authenticated
                if e.code == "unavailable":
                    s.close()
                    conns.pop((a, k), None)
            except OSError:
                if s is not None:
                    s.close()
                conns.pop((a, k), None)
    print(len(conns), flush=True)
    time.sleep(1)       # the holder's pace, by design (above)
"""


@pytest.fixture(scope="module")
def attacker_user():
    """A second ordinary Unix user (created if missing)."""
    return unix_user(OTHER)


@pytest.fixture(scope="module")
def env(cluster):
    """Every user's reporters must reach optimus.conf and munged's socket,
    as on a real cluster (the cluster's folder is private by default)."""
    open_to_every_user(cluster)
    assert os.access(REPORT, os.X_OK), "run make first"
    return client_env(cluster)


def test_no_job_requests_take_no_replay_slot(cluster, env, attacker_user):
    """Item 2: requests for a job that does not exist are refused before
    their nonce is stored, so they cannot fill the table."""
    jid = cluster.sbatch(["-o", "/dev/null", "-t", "10"],
                         script="#!/bin/sh\nsleep 300\n")
    # more requests than the whole table holds, then genuine reports
    # while the attack goes on
    run_attack(cluster, env, OTHER, 999999, jid, 1, 2 * REPLAY_CAPACITY)
    cluster.run(["scancel", str(jid)])


def test_one_user_cannot_fill_the_replay_cache(cluster, env, attacker_user):
    """Item 2: valid reports of the attacker for its own job take replay
    slots, but only the attacker's own: past the table's size the user
    holding the most slots gives one up, never a user below its share."""
    own = job_of(OTHER, env)
    jid = cluster.sbatch(["-o", "/dev/null", "-t", "10"],
                         script="#!/bin/sh\nsleep 300\n")
    run_attack(cluster, env, OTHER, own, jid, 101, 2 * REPLAY_CAPACITY)
    cluster.run(["scancel", str(jid), str(own)])


def hold_connections(cluster, env, addrs, per):
    e = dict(env, PYTHONPATH=os.path.join(TOP, "python"),
             PYTHONUNBUFFERED="1")
    return subprocess.Popen(
        ["runuser", "-u", OTHER, "--", "/usr/bin/python3", "-c", HOLDER,
         str(cluster.ports["report"]), str(per)] + addrs,
        env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def run_holder(cluster, env, addrs, per, want, first_step):
    jid = cluster.sbatch(["-o", "/dev/null", "-t", "10"],
                         script="#!/bin/sh\nsleep 300\n")
    holder = hold_connections(cluster, env, addrs, per)
    try:
        held = 0
        deadline = time.time() + 60
        while held < want and time.time() < deadline:
            line = holder.stdout.readline()
            assert line, holder.stderr.read()
            held = int(line)
        assert held >= want, "the holder got only %d connections" % held
        failures = genuine_reports(jid, first_step)
        ctl = subprocess.run([os.path.join(TOP, "src", "tools",
                                           "optimusctl"), "status"],
                             env=env, capture_output=True, text=True,
                             timeout=120)
    finally:
        holder.kill()
        holder.wait()
    assert not failures, "%d/%d genuine reports refused, first: %s" % (
        len(failures), GENUINE, failures[0])
    assert ctl.returncode == 0, ctl.stderr
    assert not wait_landed(jid, set(range(first_step, first_step + GENUINE)))
    cluster.run(["scancel", str(jid)])


def test_connections_held_from_one_address(cluster, env, attacker_user):
    """Item 1: one user holding every connection its address may have,
    each authenticated and refreshed, gives one up to another user."""
    run_holder(cluster, env, ["127.0.0.1"], MAX_PEER, MAX_PEER, 201)


def test_connections_held_from_many_addresses(cluster, env, attacker_user):
    """Item 1: ... and every connection of the listener (from 127.0.0.2-6,
    MAX_PEER from each, more than ReportMaxConnections in all)."""
    addrs = ["127.0.0.%d" % i for i in range(2, 7)]
    run_holder(cluster, env, addrs, MAX_PEER, MAX_CONNS, 301)

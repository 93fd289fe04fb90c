# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""The test clusters' pid files (testsuite/cluster/cluster.py): a cluster's
stop kills the processes its pid files name only if they are the
cluster's. A pid file outlives a daemon killed with SIGKILL, and its pid
may name another process by the time the cluster stops (pids come round
again): that process, another cluster's daemon in CI, lives on."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cluster"))

import cluster  # noqa: E402


def _sleeper(env=None):
    return subprocess.Popen(["sleep", "60"], env=env,
                            start_new_session=True)


def _name_in_pid_file(c, name, pid):
    os.makedirs(c.run_dir, exist_ok=True)
    with open(c._pidfile(name), "w") as f:
        f.write("%d\n" % pid)


def test_a_pid_file_naming_another_process_kills_nothing(tmp_path):
    c = cluster.Cluster(str(tmp_path / "c"))
    other = _sleeper()
    try:
        _name_in_pid_file(c, "slurmctld", other.pid)
        assert not c._daemon_alive("slurmctld")
        c._kill_all(["slurmctld"], timeout=1)
        assert other.poll() is None, "another cluster's process was killed"
    finally:
        other.kill()
        other.wait()


def test_a_pid_file_naming_the_clusters_own_daemon_stops_it(tmp_path):
    """The same stop, the process the cluster's own (started with its
    environment, as every daemon is): it is told to end."""
    c = cluster.Cluster(str(tmp_path / "c"))
    own = _sleeper(env=c.env())
    try:
        _name_in_pid_file(c, "slurmd-n1", own.pid)
        assert c._daemon_alive("slurmd-n1")
        c._kill_all(["slurmd-n1"], timeout=5)
        assert own.wait(timeout=5) is not None
    finally:
        own.kill()
        own.wait()


def test_a_daemon_known_by_a_path_of_the_cluster(tmp_path):
    """munged is started without the cluster's environment: its command
    line, which names the cluster's files, says whose it is."""
    c = cluster.Cluster(str(tmp_path / "c"))
    os.makedirs(c.run_dir, exist_ok=True)
    own = subprocess.Popen(["sh", "-c", "sleep 60", "sh",
                            "--pid-file=" + c._pidfile("munged")],
                           start_new_session=True)
    try:
        assert cluster._process_of(own.pid, c.root)
        assert not cluster._process_of(own.pid, c.root + "2")
    finally:
        own.kill()
        own.wait()

# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Which processes are a test cluster's (testsuite/cluster/cluster.py): a
cluster's stop kills only its own. A pid file outlives a daemon killed
with SIGKILL, and its pid may name another process by the time the
cluster stops (pids come round again): that process lives on. A process
under another root directory (CI's other lane, in a chroot of its own,
whose clusters may have the same paths) is never the cluster's."""
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cluster"))

import cluster  # noqa: E402


def _exec_done(proc):
    """proc, once its program runs: Popen returns when the exec closes
    its pipe, before the kernel has set the new program's command line
    and environment, which /proc shows empty until then (under load, long
    enough for a test reading them at once to see nothing)."""
    deadline = time.time() + 10
    while time.time() < deadline:
        with open("/proc/%d/cmdline" % proc.pid, "rb") as f:
            if f.read():
                return proc
        time.sleep(0.01)
    raise AssertionError("pid %d: no command line after 10 s" % proc.pid)


def _sleeper(env=None):
    return _exec_done(subprocess.Popen(["sleep", "60"], env=env,
                                       start_new_session=True))


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
    # (sh -c would exec sleep and lose the argument)
    own = _exec_done(subprocess.Popen([sys.executable, "-c", "import time; "
                                       "time.sleep(60)",
                                       "--pid-file=" + c._pidfile("munged")],
                                      start_new_session=True))
    try:
        assert cluster._process_of(own.pid, c.root)
        assert not cluster._process_of(own.pid, c.root + "2")
    finally:
        own.kill()
        own.wait()


def _other_root(tmp_path):
    """A root directory of its own holding `sleep` and the libraries it
    loads (as the other CI lane's chroot holds its own system)."""
    root = tmp_path / "other-root"
    sleep = shutil.which("sleep")
    libs = re.findall(r"(/\S+\.so[.\d]*)", subprocess.run(
        ["ldd", sleep], capture_output=True, text=True).stdout)
    for path in [sleep] + libs:
        dest = root / path.lstrip("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(os.path.realpath(path), dest)
    return str(root), sleep


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("chroot"),
                    reason="chroot needs root")
def test_a_process_of_another_root_is_never_the_clusters(tmp_path):
    """CI's two lanes run in two chroots with one /proc, and a test's
    tmp_path is the same string in both: a process of the other lane's
    cluster has this cluster's environment, its pid may be in this
    cluster's pid file, and none of this cluster's stops kills it."""
    c = cluster.Cluster(str(tmp_path / "c"))
    root, sleep = _other_root(tmp_path)
    other = subprocess.Popen(["chroot", root, sleep, "60"], env=c.env(),
                             start_new_session=True)
    try:
        deadline = time.time() + 10
        while time.time() < deadline and \
                os.path.realpath("/proc/%d/exe" % other.pid) != \
                os.path.join(root, sleep.lstrip("/")):
            time.sleep(0.05)    # chroot has exec'd sleep
        assert other.poll() is None
        assert not cluster._process_of(other.pid, c.root)
        _name_in_pid_file(c, "slurmctld", other.pid)
        c._kill_all(["slurmctld"], timeout=1)
        c._kill_leftovers()
        assert other.poll() is None, "the other root's process was killed"
    finally:
        other.kill()
        other.wait()

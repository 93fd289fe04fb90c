# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Helpers shared by the report-channel tests (test_report*.py,
test_tools.py)."""
import json
import os
import subprocess


def client_env(cluster):
    """The environment of a reporter of this cluster (SLURM_CONF,
    MUNGE_SOCKET, no OPTIMUS_REPORT_ADDR), also set in this process so the
    in-process Python client resolves the listener like a job would."""
    e = cluster.env()
    e.pop("OPTIMUS_REPORT_ADDR", None)
    for key in ("SLURM_CONF", "MUNGE_SOCKET"):
        os.environ[key] = e[key]
    os.environ.pop("OPTIMUS_REPORT_ADDR", None)
    return e


def strict_json(text):
    """json.loads refusing NaN and Infinity, which RFC 8259 has not."""
    def refuse(name):
        raise ValueError("not strict JSON: %s" % name)
    return json.loads(text, parse_constant=refuse)


def unix_user(name):
    """An ordinary local Unix user for attacks and other-user checks,
    created (no home, no shell) if missing; its pwd entry."""
    import pwd
    import subprocess
    try:
        return pwd.getpwnam(name)
    except KeyError:
        subprocess.run(["useradd", "-M", "-s", "/usr/sbin/nologin", name],
                       check=True)
        return pwd.getpwnam(name)


def as_user(user, argv, env, check=False):
    """argv run as Unix user `user` (runuser), its output captured."""
    import subprocess
    return subprocess.run(["runuser", "-u", user, "--"] + argv, env=env,
                          capture_output=True, text=True, timeout=30,
                          check=check)


def open_to_every_user(cluster):
    """The cluster's folder is private by default; reporters of every user
    must reach optimus.conf and munged's socket, as on a real cluster."""
    for d in (cluster.root, cluster.etc, cluster.run_dir):
        os.chmod(d, 0o755)


def job_of(user, env):
    """A job of another Unix user `user` (sleeping 300 s): its id."""
    r = subprocess.run(["runuser", "-u", user, "--", "sbatch", "--parsable",
                        "-o", "/dev/null", "--chdir=/tmp", "-t", "10"],
                       input="#!/bin/sh\nsleep 300\n", env=env,
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.strip().split(";")[0])

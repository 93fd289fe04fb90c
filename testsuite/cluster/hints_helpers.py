# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Helpers shared by test_hints.py and test_roles.py.

Client-side plugin stacks: sbatch reads PlugStackConfig from the slurm.conf
it is given, so a copy of the cluster's slurm.conf that names another
plugstack.conf changes what the submitting client loads, and nothing else.
Used to (a) submit hints without spank/optimus's early check, so that
job_submit/optimus is the one refusing them, and (b) put OPTIMUS_TOPOLOGY
in a job's SPANK environment the way sched/optimus does.
"""
import os
import re
import shutil
import subprocess

from waiting import wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
SPANK_SO = os.path.join(TOP, "src/plugins/spank/optimus/.libs/spank_optimus.so")

SET_TOPOLOGY_C = r"""
#include <stdlib.h>
#include <slurm/spank.h>
SPANK_PLUGIN(optimus_test_topology, 1);
/* Stands in for sched/optimus: writes OPTIMUS_TOPOLOGY into the job's
 * SPANK environment (job_ptr->spank_job_env), from the submitter's env. */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
    const char *t = getenv("TEST_OPTIMUS_TOPOLOGY");
    if (t && spank_context() == S_CTX_ALLOCATOR)
        spank_job_control_setenv(sp, "OPTIMUS_TOPOLOGY", t, 1);
    return 0;
}
"""


def client_conf(cluster, name, plugstack_lines):
    """A slurm.conf for clients only, loading `plugstack_lines`."""
    stack = os.path.join(cluster.etc, "plugstack-%s.conf" % name)
    with open(stack, "w") as f:
        f.write("\n".join(plugstack_lines) + "\n")
    conf = os.path.join(cluster.etc, "slurm-%s.conf" % name)
    with open(cluster.conf) as f:
        text = f.read()
    text = re.sub(r"(?m)^PlugStackConfig=.*$", "PlugStackConfig=" + stack, text)
    with open(conf, "w") as f:
        f.write(text)
    return conf


def nocheck_conf(cluster):
    """Clients whose spank/optimus leaves every check to job_submit."""
    return client_conf(cluster, "nocheck",
                       ["required %s submit_check=0" % SPANK_SO])


def topology_conf(cluster, workdir):
    """Clients that also load a stand-in for the scheduler's topology."""
    if not shutil.which("gcc"):
        return None
    src = os.path.join(workdir, "settopo.c")
    so = os.path.join(workdir, "settopo.so")
    with open(src, "w") as f:
        f.write(SET_TOPOLOGY_C)
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", so, src], check=True)
    return client_conf(cluster, "topology",
                       ["required %s" % SPANK_SO, "required %s" % so])


def sbatch(cluster, args, script, conf=None, env=None, check=True):
    """sbatch --parsable; returns the CompletedProcess (job id in stdout)."""
    extra = dict(env or {})
    if conf:
        extra["SLURM_CONF"] = conf
    return cluster.run(["sbatch", "--parsable"] + list(args), input=script,
                       env=extra, check=check)


def job_id(result):
    return int(result.stdout.strip().split(";")[0])


def wait_files(paths, timeout=60):
    """Wait until every file of paths exists and is not empty."""
    wait_for(lambda: all(os.path.exists(p) and os.path.getsize(p) > 0
                         for p in paths), timeout,
             "the files %s" % ", ".join(paths), interval=0.25)
    return True

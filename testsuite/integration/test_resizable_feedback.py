# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Feedback to a job that asks to be elastic but cannot be resized.

A job is resized only once it has confirmed a checkpoint (declared at
start, confirmed after each signal), and only if its batch script survives
the checkpoint signal. A trainer written from the README ran its whole life
with `resizable=no: never confirmed a checkpoint` and nothing said why. At
submission sbatch warns when the elastic job's batch script cannot survive
the signal, and SystemComment says from the job's first plan why it is not
resizable and what makes it so.
"""
import pytest

from waiting import wait_for

CLUSTER_OPTIONS = {"nodes": 2, "cpus": 4}
ELASTIC = "--scheduler=optimus,min_workers=1,max_workers=4"


def submit(cluster, hints, script):
    r = cluster.run(["sbatch", "--parsable", "-o", "/dev/null", hints],
                    input=script)
    return int(r.stdout.strip().split(";")[0]), r.stderr


def comment(cluster, job):
    return cluster.job_fields(job).get("SystemComment", "")


def test_elastic_job_that_cannot_checkpoint_is_told(cluster):
    job, err = submit(cluster, ELASTIC, "#!/bin/sh\nsleep 120\n")
    try:
        # sbatch's own output, at once
        assert "not resizable" in err and "trap" in err and \
            "optimus-report checkpoint" in err, err
        # scontrol show job, from the first plan on (before it runs long)
        text = wait_for(lambda: (lambda c: "resizable=no" in c and c)(
            comment(cluster, job)), 30, "job %d's SystemComment" % job)
        assert "resizable=no: never confirmed a checkpoint" in text, text
        assert "declare" in text and "optimus-report checkpoint" in text, text
    finally:
        cluster.run(["scancel", str(job)], check=False)


@pytest.mark.parametrize("script", [
    "#!/bin/sh\ntrap 'echo checkpoint >&2' USR1\nsrun sleep 120\n",
    "#!/bin/bash\ntrap 'echo ck' SIGUSR1 TERM\nsrun sleep 120 & wait\n",
    "#!/bin/sh\nexec srun sleep 120\n",
])
def test_script_that_survives_the_signal_is_not_warned(cluster, script):
    job, err = submit(cluster, ELASTIC, script)
    cluster.run(["scancel", str(job)], check=False)
    assert "not resizable" not in err, (script, err)


def test_fixed_size_job_is_not_warned(cluster):
    job, err = submit(cluster, "--scheduler=optimus,workers=2",
                      "#!/bin/sh\nsleep 120\n")
    cluster.run(["scancel", str(job)], check=False)
    assert "not resizable" not in err, err


def test_report_help_shows_the_whole_contract():
    import os
    import subprocess
    top = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    r = subprocess.run([os.path.join(top, "src/tools/optimus-report"),
                        "--help"], capture_output=True, text=True, timeout=10)
    text = r.stdout + r.stderr
    for step in ("declare at every start", "trap 'echo checkpoint >&2' USR1",
                 "write a checkpoint and confirm it",
                 "resume from $OPTIMUS_CHECKPOINT_DIR"):
        assert step in text, (step, text)

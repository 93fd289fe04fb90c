# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Helpers shared by the tests of the example trainers (test_examples.py,
test_ddp.py): their paths, what their chief logs, and their jobs."""
import importlib.util
import os
import re
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
EXAMPLES = os.path.join(TOP, "examples")
PYTHON = "/usr/bin/python3"
HAVE_TORCH = importlib.util.find_spec("torch") is not None

STEP_RE = re.compile(r"step (\d+) loss ([0-9.]+) epoch")
START_RE = re.compile(r"starting at step (\d+): worker 0 of \((\d+) PS, "
                      r"(\d+) workers\)")
CKPT_RE = re.compile(r"checkpoint of step (\d+) written")


def curve(text):
    """[(step, loss)] the chief logged."""
    return [(int(s), float(l)) for s, l in STEP_RE.findall(text)]


def submit(c, workdir, hints, args, sbatch_args=(), example="ps_trainer.sbatch"):
    """sbatch the example script with these hints (the command line's
    --scheduler overrides the script's); checkpoints in a fresh folder."""
    ck = tempfile.mkdtemp(prefix="ck-", dir=workdir)
    r = c.run(["sbatch", "--parsable", "-D", workdir, "--open-mode=append",
               "-o", os.path.join(workdir, "job-%j.out"),
               "--export=ALL,OPTIMUS_EXAMPLES=%s,PYTHON=%s" % (EXAMPLES, PYTHON),
               "--scheduler=%s,ckpt_dir=%s" % (hints, ck)]
              + list(sbatch_args)
              + [os.path.join(EXAMPLES, example)] + list(args))
    return int(r.stdout.strip().split(";")[0])


def output(workdir, job):
    try:
        return open(os.path.join(workdir, "job-%d.out" % job)).read()
    except OSError:
        return ""


def wait_done(c, workdir, job, timeout=300):
    state = c.wait_job_state(job, ("COMPLETED", "FAILED", "CANCELLED",
                                   "TIMEOUT", "NODE_FAIL"), timeout=timeout)
    out = output(workdir, job)
    assert state == "COMPLETED", out + c.logs("slurmctld")[-3000:]
    return out

# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""A checkpoint is resumed only by the job that wrote it.

Job ids start again at FirstJobId on a new cluster (and wrap at MaxJobId on
any cluster). Two clusters, one after the other, each fresh (same
ClusterName, same FirstJobId, so the same job ids), and one submit folder:
the example trainer (examples/ps_trainer.sbatch, ps_trainer.py, as a new
user runs them) trains on the first cluster and leaves its final
checkpoint; the job with the same id on the second cluster must start from
step 0, both with the default checkpoint folder (which must differ) and
with a folder both jobs were given (ckpt_dir=), where the trainer must
refuse the checkpoint and say why.
"""
import os
import re
import subprocess
import sys
import tempfile

from cluster import Cluster

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
EXAMPLES = os.path.join(TOP, "examples")
PYTHON = "/usr/bin/python3"

START_RE = re.compile(r"starting at step (\d+): worker 0")
DIR_RE = re.compile(r"checkpoints in (\S+)")
CKPT_RE = re.compile(r"checkpoint of step (\d+) written to (\S+)")
HINTS = "optimus,mode=async,ps=1,workers=1"


def sbatch(c, submit_dir, tag, hints, args):
    """sbatch run from submit_dir, as a user would: SLURM_SUBMIT_DIR is
    sbatch's working folder (not -D's)."""
    r = subprocess.run(
        ["sbatch", "--parsable",
         "-o", os.path.join(submit_dir, "%s-%%j.out" % tag),
         "--export=ALL,OPTIMUS_EXAMPLES=%s,PYTHON=%s" % (EXAMPLES, PYTHON),
         "--scheduler=" + hints,
         os.path.join(EXAMPLES, "ps_trainer.sbatch")] + list(args),
        cwd=submit_dir, env=c.env(), capture_output=True, text=True,
        timeout=60, check=True)
    return int(r.stdout.strip().split(";")[0])


def run_on_fresh_cluster(submit_dir, tag, shared, args):
    """Start a fresh cluster, run one job with the default checkpoint
    folder and one with ckpt_dir=shared, stop the cluster. {kind: (job id,
    its output)}."""
    c = Cluster(tempfile.mkdtemp(prefix="optimus-test-ckid-"), nodes=2, cpus=2)
    c.start()
    ok = False
    try:
        jobs = {}
        for kind, hints in (("default", HINTS),
                            ("shared", HINTS + ",ckpt_dir=" + shared)):
            job = sbatch(c, submit_dir, tag, hints, args)
            state = c.wait_job_state(job, ("COMPLETED", "FAILED", "CANCELLED",
                                           "TIMEOUT", "NODE_FAIL"), timeout=240)
            out = open(os.path.join(submit_dir, "%s-%d.out" % (tag, job))).read()
            assert state == "COMPLETED", out + c.logs("slurmctld")[-3000:]
            jobs[kind] = (job, out)
        ok = True
        return jobs
    finally:
        c.stop(keep=not ok)
        if not ok:
            print("cluster logs kept in", c.log, file=sys.stderr)


def test_same_job_id_on_a_new_cluster_does_not_resume():
    submit_dir = tempfile.mkdtemp(prefix="optimus-submit-")
    os.chmod(submit_dir, 0o777)
    shared = os.path.join(submit_dir, "shared-ckpt")
    first = run_on_fresh_cluster(submit_dir, "a", shared,
                                 ["--max-steps", "200", "--target-loss", "0"])
    second = run_on_fresh_cluster(submit_dir, "b", shared,
                                  ["--max-steps", "400", "--target-loss", "0"])
    for kind in ("default", "shared"):
        (job_a, out_a), (job_b, out_b) = first[kind], second[kind]
        # two jobs of the same id and the same submit folder
        assert job_a == job_b, (kind, job_a, job_b)
        assert START_RE.search(out_a).group(1) == "0", out_a
        # the first job left a checkpoint where the second one looks
        saved = CKPT_RE.findall(out_a)
        assert saved and int(saved[-1][0]) >= 200, out_a
        start_b = START_RE.search(out_b)
        assert start_b, out_b
        assert start_b.group(1) == "0", (
            "%s folder: job %d of the second cluster resumed job %d's "
            "checkpoint of the first cluster (step %s):\n%s"
            % (kind, job_b, job_a, start_b.group(1), out_b))
    # the default folder is the job's own: under the submit folder, and not
    # the folder of the earlier job with the same id
    dir_a = DIR_RE.search(first["default"][1]).group(1)
    dir_b = DIR_RE.search(second["default"][1]).group(1)
    root = os.path.join(submit_dir, "optimus-checkpoints") + "/"
    assert dir_a.startswith(root) and dir_b.startswith(root), (dir_a, dir_b)
    assert dir_a != dir_b, dir_a
    # a folder both were given: the trainer says why it starts afresh
    out_b = second["shared"][1]
    job = second["shared"][0]
    assert re.search(r"not resuming from %s/\S+: written by job %d of "
                     r"cluster optimus submitted at \S+, this is job %d of "
                     r"cluster optimus submitted at \S+" % (
                         re.escape(shared), job, job), out_b), out_b

# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""A measured job of the Pollux artifact replayed on the real cluster
(examples/replay_trainer.py).

Cluster: 2 nodes of 4 GPUs. One replayed job (cifar10 at batch 512, its
first EPOCHS epochs, COMPRESSION measured seconds per wall-clock second)
runs under sched/optimus as an all-reduce job of 1..4 workers of one GPU.
The step time the scheduler measures from its progress reports
(`optimusctl --json show job`: steps_per_sec) is the truth's
(`optimus-sim truth`) for the GPUs per node Slurm gave it, divided by the
compression, within TOLERANCE; a newcomer that needs more GPUs than are
free makes the planner shrink it (checkpoint signal, requeue); it resumes
at the step its checkpoint holds, at the truth's step time of its new
placement, and ends at its epoch count.

TOLERANCE: the scheduler's rate is the steps between two progress reports
over their arrival times (whole report intervals of REPORT_EVERY s on a
loaded 2-core machine, where a report may wait for the listener); 15% is
chosen before any run, not fitted to one.
"""
import json
import os
import re
import subprocess

import examples_helpers as ex
from sched_helpers import cancel, optimusctl
from waiting import wait_for

CLUSTER_OPTIONS = {
    "nodes": 2, "gpus": 4, "cred_expire": 5,
    "optimus_conf": "PlanInterval=2\nMinResizeInterval=5\nRestartCost=2\n",
}

APP, BATCH, EPOCHS, COMPRESSION = "cifar10", 512, 4, 4.0
REPORT_EVERY = 2.0
TOLERANCE = 0.15
SIM = os.path.join(ex.TOP, "src", "tools", "optimus-sim", "optimus-sim")

START_RE = re.compile(r"replay: starting at step (\d+) epoch (\d+): \S+ batch "
                      r"\S+ on ([\d,]+) GPUs per node")
CKPT_RE = re.compile(r"replay: checkpoint of step (\d+) written")
DONE_RE = re.compile(r"replay: done at step (\d+) epoch (\d+)")
STEP_RE = re.compile(r"replay: step (\d+) loss")


def _truth(place):
    r = subprocess.run([SIM, "truth", "--app", APP, "--gpus-per-node",
                        ",".join(map(str, place)), "--batch", str(BATCH)],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def _starts(out):
    """[(step, epoch, [GPUs per node])] of the replay's runs, in order."""
    return [(int(s), int(e), [int(g) for g in p.split(",")])
            for s, e, p in START_RE.findall(out)]


def _replay(cluster, workdir):
    return ex.submit(cluster, workdir,
                     "optimus,mode=allreduce,min_workers=1,max_workers=4,"
                     "worker_gpus=1,worker_mem=256M,ckpt_grace=20,"
                     "steps=1000,delta=0.00001",
                     ["--app", APP, "--batch", str(BATCH),
                      "--epochs", str(EPOCHS), "--compression",
                      str(COMPRESSION), "--report-every", str(REPORT_EVERY),
                      # the build tree's, not an installed one from PATH
                      # (CI's lanes install the packages; theirs was built
                      # in a folder that is gone, with its default data)
                      "--optimus-sim", SIM],
                     example="replay_trainer.sbatch")


def _newcomer(cluster, tmp_path, workers):
    """A job of `workers` GPUs, no fewer: the planner must shrink the
    replayed job to start it. It outlasts the replay (cancelled at the
    end), which keeps its shrunk size to the end."""
    return cluster.sbatch(["--scheduler=optimus,mode=allreduce,"
                           "min_workers=%d,max_workers=%d,worker_gpus=1,"
                           "worker_mem=256M" % (workers, workers),
                           "-J", "newcomer", "-D", str(tmp_path),
                           "-o", str(tmp_path / "newcomer.out")],
                          "#!/bin/sh\nsleep 300\n")


def _observed_step(cluster, job, place, after_reports=0):
    """The scheduler's step time of `job` once it records this run's size
    and two reports of it (a rate needs two) after `after_reports`."""
    m = wait_for(lambda: (lambda j: j["cur_workers"] == sum(place) and
                          j["reports"] >= after_reports + 2 and
                          j["steps_per_sec"] > 0 and j)(
        optimusctl(cluster, "show", "job", str(job))), 90,
        "the scheduler's speed of job %d on %s" % (job, place))
    return 1.0 / m["steps_per_sec"], m


def _assert_step_matches(observed, place, what):
    want = _truth(place)["iteration_seconds"] / COMPRESSION
    print("%s on %s GPUs per node: scheduler %.4f s per step, truth / "
          "compression %.4f s (ratio %.3f)" % (what, place, observed, want,
                                               observed / want))
    assert abs(observed - want) <= TOLERANCE * want, \
        "%s on %s GPUs per node: scheduler saw %.4f s per step, truth / " \
        "compression %.4f s" % (what, place, observed, want)


def test_replayed_job_runs_resizes_and_ends_at_its_epochs(cluster,
                                                          tmp_path):
    workdir = str(tmp_path)
    os.chmod(workdir, 0o777)
    job = _replay(cluster, workdir)
    newcomer = None
    try:
        first = wait_for(lambda: _starts(ex.output(workdir, job))[:1], 120,
                         "the replay's first run")[0]
        assert first[:2] == (0, 0), first
        place = first[2]
        f = cluster.job_fields(job)
        assert int(f["NumTasks"]) == sum(place), (f, first)
        observed, m = _observed_step(cluster, job, place)
        _assert_step_matches(observed, place, "first run")
        # a newcomer that needs one GPU more than are free
        newcomer = _newcomer(cluster, tmp_path,
                             2 * 4 - sum(place) + 1)
        second = wait_for(lambda: _starts(ex.output(workdir, job))[1:2],
                          180, "the shrunk run")[0]
        out = ex.output(workdir, job)
        ckpts = [int(s) for s in CKPT_RE.findall(out)]
        assert ckpts and second[0] == ckpts[-1] > 0, (second, ckpts, out)
        assert sum(second[2]) < sum(place), (first, second)
        reports = optimusctl(cluster, "show", "job", str(job))["reports"]
        observed, _ = _observed_step(cluster, job, second[2], reports)
        _assert_step_matches(observed, second[2], "shrunk run")
        out = ex.wait_done(cluster, workdir, job, timeout=300)
        done = [(int(s), int(e)) for s, e in DONE_RE.findall(out)]
        assert len(done) == 1 and done[0][1] == EPOCHS, (done, out)
        steps = [int(s) for s in STEP_RE.findall(out)]
        # progress never went back: the run resumed where it stopped
        assert steps == sorted(steps), steps
        assert "JobId=%d resized to 0 PS" % job in cluster.logs("slurmctld")
    finally:
        cancel(cluster, job, *([newcomer] if newcomer else []))

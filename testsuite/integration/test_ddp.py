# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""The DDP example (examples/torch_trainer.py) as an all-reduce job under
sched/optimus on a real cluster: shrunk for a newcomer, grown back when it
is gone, its loss going on from the checkpoint at every restart.

Cluster: 2 nodes of 4 CPUs. The all-reduce job (mode=allreduce, 1..8
workers of 1 CPU) starts on the fewest nodes the planner's speed model
favours; a PS job of 2 PS + 4 workers (6 CPUs: both nodes) arrives, so
the planner shrinks the running job to make room (checkpoint signal,
requeue, restart smaller), and grows it back when the PS job is done.
Each worker sleeps `--work-ms-per-sample` per sample (standing for the
compute of a larger model), so speed grows with workers as on real
hardware; the training itself is real.

Also without a cluster: the ResumableSampler re-shards an epoch exactly
when the world size changes.
"""
import json
import os
import re
import sys
import time

import pytest

import examples_helpers as ex
from sched_helpers import cancel
from waiting import wait_for, wait_plans

CLUSTER_OPTIONS = {
    "nodes": 2, "cpus": 4, "cred_expire": 5,
    "optimus_conf": "PlanInterval=2\nMinResizeInterval=5\nRestartCost=2\n",
}

pytestmark = pytest.mark.skipif(not ex.HAVE_TORCH,
                                reason="python3-torch is not installed")


def test_sampler_reshards_an_epoch_exactly():
    """W=2 for 5 steps of 3 samples each, then W=3 from that position: the
    epoch's samples are seen once each."""
    sys.path.insert(0, ex.EXAMPLES)
    import torch
    from torch_trainer import ResumableSampler, batches
    data = torch.utils.data.TensorDataset(torch.arange(50))
    seen, pos = [], 0
    feeds = [batches(ResumableSampler(data, 2, r, 7), 3, 0, 0)
             for r in range(2)]
    for _ in range(5):
        for f in feeds:
            _, pos, idx = next(f)
            seen += idx
    assert pos == 30
    feeds = [batches(ResumableSampler(data, 3, r, 7), 4, 0, pos)
             for r in range(3)]
    while True:
        out = [next(f) for f in feeds]
        if any(e > 0 for e, _, _ in out):
            break
        for _, _, idx in out:
            seen += idx
    # DistributedSampler pads an epoch to a multiple of W: at most W - 1
    # samples twice, none missed
    assert set(seen) == set(range(50)), sorted(seen)
    assert len(seen) - 50 < 3


def _starts(out):
    """[(step, ps, workers)] of the chief's start lines, in order."""
    return [tuple(int(x) for x in m) for m in ex.START_RE.findall(out)]


def _ddp(cluster, workdir, steps=4000):
    return ex.submit(cluster, workdir,
                     "optimus,mode=allreduce,min_workers=1,max_workers=8,"
                     "worker_mem=256M,batch=32,ckpt_grace=20,steps=%d,"
                     "delta=0.00001" % steps,
                     ["--target-loss", "0", "--max-steps", str(steps),
                      "--work-ms-per-sample", "8", "--report-every", "0.5"],
                     example="torch_trainer.sbatch")


def _newcomer(cluster, workdir):
    """A PS job that needs room: the planner shrinks the all-reduce job."""
    return ex.submit(cluster, workdir,
                     "optimus,mode=sync,ps=2,workers=4,ps_mem=256M,"
                     "worker_mem=256M",
                     ["--target-loss", "0.5", "--batch", "64",
                      "--work-ms-per-sample", "2"])


def test_ddp_job_shrinks_and_grows_with_its_loss(cluster, tmp_path):
    workdir = str(tmp_path)
    os.chmod(workdir, 0o777)
    ddp = _ddp(cluster, workdir)
    newcomer = None
    try:
        wait_for(lambda: len(ex.curve(ex.output(workdir, ddp))) >= 6, 180,
                 "progress of the all-reduce job")
        first = _starts(ex.output(workdir, ddp))[0]
        assert first[0] == 0 and first[1] == 0, first
        newcomer = _newcomer(cluster, workdir)
        # shrink: a second run with fewer workers, from the checkpoint
        second = wait_for(lambda: _starts(ex.output(workdir, ddp))[1:2],
                          240, "the shrunk run")[0]
        out = ex.output(workdir, ddp)
        ckpts = [int(s) for s in ex.CKPT_RE.findall(out)]
        assert second[1] == 0 and second[2] < first[2], (first, second, out)
        assert second[0] == ckpts[0] > 0, (second, ckpts)
        ex.wait_done(cluster, workdir, newcomer, timeout=300)
        # grow: a third run with more workers than the second
        third = wait_for(lambda: _starts(ex.output(workdir, ddp))[2:3],
                         240, "the grown run")[0]
        assert third[2] > second[2], (second, third)
        wait_for(lambda: len(ex.CKPT_RE.findall(ex.output(workdir, ddp))) >= 2
                 and [p for p in ex.curve(ex.output(workdir, ddp))
                      if p[0] > third[0]], 120, "progress after the grow")
        out = ex.output(workdir, ddp)
        ckpts = [int(s) for s in ex.CKPT_RE.findall(out)]
        assert third[0] == ckpts[1] >= second[0], (third, ckpts)
        assert "run 1: 0 PS + %d workers" % second[2] in out, out
        assert "run 2: 0 PS + %d workers" % third[2] in out, out
        # the loss goes on from the checkpoint at every restart: the first
        # point of a run is near the last one before it, and nearer to it
        # than to the untrained loss (~2.3) it would restart from. (How far
        # the loss fell before the first resize depends on the machine's
        # load: a fixed distance from 2.3 failed when the shrink came at
        # step 28, loss 1.47.)
        pts = ex.curve(out)
        assert pts[0][1] > 1.5, pts
        for run in (second, third):
            before = [p for p in pts if p[0] <= run[0]]
            after = [p for p in pts if p[0] > run[0]]
            assert before and after, (run, pts)
            assert after[0][1] < before[-1][1] + 0.2, (run, before, after)
            assert after[0][1] < (pts[0][1] + before[-1][1]) / 2, (run, pts)
        log = cluster.logs("slurmctld")
        assert "JobId=%d resized to 0 PS" % ddp in log
    finally:
        cancel(cluster, ddp, *([newcomer] if newcomer else []))


def _model(cluster, job):
    r = cluster.run([os.path.join(ex.TOP, "src", "tools", "optimusctl"),
                     "--json", "show", "job", str(job)])
    return json.loads(r.stdout)


def test_ddp_job_started_by_the_planner_is_not_adopted(cluster, tmp_path):
    """An all-reduce job the planner released (plan 0 PS + W workers) is
    not taken for a stranger when it starts ('found running without a
    record: adopted', which would count as a resize and block its resizes
    for MinResizeInterval). Its first run is a start like any other: no
    adoption, no resize time, the size its tasks run."""
    workdir = str(tmp_path)
    os.chmod(workdir, 0o777)
    ddp = _ddp(cluster, workdir)
    try:
        wait_for(lambda: len(ex.curve(ex.output(workdir, ddp))) >= 3, 180,
                 "progress of the all-reduce job")
        first = _starts(ex.output(workdir, ddp))[0]
        log = cluster.logs("slurmctld")
        assert "JobId=%d found running without a record" % ddp not in log, \
            [l for l in log.splitlines() if "JobId=%d " % ddp in l]
        m = _model(cluster, ddp)
        assert m["last_resize"] == 0 and m["restarts"] == 0, m
        assert (m["cur_ps"], m["cur_workers"]) == (0, first[2]), (m, first)
    finally:
        cancel(cluster, ddp)


def test_resized_ddp_job_recorded_at_the_size_slurm_started(cluster,
                                                            tmp_path):
    """After a resize an all-reduce job is recorded at the size Slurm
    started, not at min_workers (the plan's 0 PS read as 'no plan', which
    would refuse its worker reports: rank >= workers). The recorded size (optimusctl, SystemComment) is what the tasks run
    (the chief's start line) and what Slurm started (NumTasks)."""
    workdir = str(tmp_path)
    os.chmod(workdir, 0o777)
    ddp = _ddp(cluster, workdir)
    newcomer = None
    try:
        wait_for(lambda: len(ex.curve(ex.output(workdir, ddp))) >= 6, 180,
                 "progress of the all-reduce job")
        newcomer = _newcomer(cluster, workdir)
        second = wait_for(lambda: _starts(ex.output(workdir, ddp))[1:2],
                          240, "the shrunk run")[0]
        m = wait_for(lambda: (lambda j: j["restarts"] >= 1 and
                              j["cur_workers"] and j)(_model(cluster, ddp)),
                     60, "the model of the shrunk run")
        f = cluster.job_fields(ddp)
        assert (m["cur_ps"], m["cur_workers"]) == (0, second[2]), (m, second)
        assert int(f["NumTasks"]) == second[2], f
        assert "ps=0 workers=%d " % second[2] in f["SystemComment"], \
            f["SystemComment"]
        log = cluster.logs("slurmctld")
        assert "JobId=%d resized to 0 PS + %d workers" % (ddp, second[2]) \
            in log, [l for l in log.splitlines() if "JobId=%d " % ddp in l]
        # the shrunk run's reports taken in (the planner feeds them at
        # every tick, before its plan): none refused
        n = len(ex.curve(ex.output(workdir, ddp)))
        wait_for(lambda: len(ex.curve(ex.output(workdir, ddp))) >= n + 2, 60,
                 "progress of the shrunk run")
        wait_plans(cluster, 2)
        assert "JobId=%d: report refused" % ddp not in \
            cluster.logs("slurmctld")
    finally:
        cancel(cluster, ddp, *([newcomer] if newcomer else []))


def test_ddp_remaining_time_moves_smoothly_past_its_fit(cluster, tmp_path):
    """A DDP job with the example's own hints (no steps= target: the loss
    fit alone predicts its end) must not show remaining times of 11 s, 7 s,
    5 s, 2 s, then 983 s a second later (once the fitted curve's end has
    passed while the job runs on, a prediction falling back to the
    10,000-step prior). Sampled every half second at one size, the
    predicted time may fall fast (a fit replacing the prior) but never
    rise more than fivefold and a minute at once."""
    workdir = str(tmp_path)
    os.chmod(workdir, 0o777)
    job = ex.submit(cluster, workdir,
                    "optimus,mode=allreduce,min_workers=1,max_workers=8,"
                    "worker_mem=256M,batch=32,ckpt_signal=USR1,"
                    "ckpt_grace=20,form=inverse",
                    ["--work-ms-per-sample", "8", "--report-every", "0.5",
                     "--target-loss", "0.15"],
                    example="torch_trainer.sbatch")
    samples = []
    try:
        deadline = time.time() + 300
        while time.time() < deadline:
            f = cluster.job_fields(job)
            if f.get("JobState") != "RUNNING":
                if f.get("JobState") in ("COMPLETED", "FAILED", "CANCELLED"):
                    break
            m = re.search(r"workers=(\d+) .*remaining=(\S+) steps(\S*) "
                          r"eta=(\d+)s fit=(\S+) restarts=(\d+)",
                          f.get("SystemComment", ""))
            if f.get("JobState") == "RUNNING" and m and \
                    not m.group(5).startswith("none"):
                samples.append((time.time(), m.group(1), m.group(6),
                                int(m.group(4)), m.group(2) + m.group(3)))
            time.sleep(0.5)     # the sampling period itself
        assert len(samples) >= 10, (samples, f)
        for a, b in zip(samples, samples[1:]):
            if (a[1], a[2]) != (b[1], b[2]):
                continue        # another size or run: another prediction
            assert b[3] <= max(5 * a[3], a[3] + 60), \
                ("remaining time jumped", a, b, samples)
    finally:
        cancel(cluster, job)

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""One measured job of the Pollux artifact, replayed on a real cluster.

It behaves like a job of testsuite/data/pollux-osdi21: an application
(bert, cifar10, deepspeech2, imagenet, ncf, yolov3) at a global batch
size, data-parallel, one replica per GPU. Its iteration time is the one
measured for its application on the GPUs per node Slurm gave it, at its
batch; each iteration advances its progress by the batch's measured
statistical efficiency in the current epoch; it ends after its epochs.
All of that truth comes from `optimus-sim truth` (the simulator's own code,
src/tools/optimus-sim/measured/app.c), asked once per run for the run's
placement: nothing of it is computed here.

Time compression: the trainer runs `--compression C` measured seconds per
wall-clock second, so an iteration measured at t seconds takes t / C
seconds of wall clock (the pace is kept against the clock: iterations done
= floor(elapsed * C / t), whatever the sleeps' granularity). Restarts,
scheduling and Slurm are not compressed. doc/design/simulator.md, "Replayed jobs".

Placement: the step's tasks per node (SLURM_STEP_TASKS_PER_NODE), one GPU
per worker task: submit with worker_gpus=1 (replay_trainer.sbatch). Only worker 0 replays the job (the
others exit at once; Slurm holds their GPUs for the job all the same).

The batch: the one sched/optimus gives this run (OPTIMUS_GLOBAL_BATCH,
read at every start: with adaptive_batch=yes the scheduler chooses it,
Policy=goodput), else --batch. The truth is asked at that global batch
and splits it as the simulator does (px_app_split_job); the scheduler's
OPTIMUS_LOCAL_BATCH and OPTIMUS_ACCUM_STEPS are logged beside it.

Reports go through python/optimus_report.py: progress (step = iterations,
loss = the share of the slice's measured progress still to go, epoch,
the all-reduce part of its steps in wall seconds),
one speed report per run, the gradient statistics of the artifact at the
run's batch as an estimate every ESTIMATE_STEPS iterations, a run of
equal ones in one report (`estimates`) with each progress report (as the
simulator's jobs make and report them, measured/engine.c job_ran),
and checkpoints on the scheduler's signal
(Reporter.handle_checkpoints): the checkpoint is a small JSON file in
OPTIMUS_CHECKPOINT_DIR with the iterations, epoch and progress reached,
from which the next run resumes.

    replay_trainer.py --app cifar10 --batch 128 --compression 20 --epochs 1
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
import optimus_report  # noqa: E402

CKPT_NAME = "replay.json"


def log(msg):
    print("replay: %s" % msg, file=sys.stderr, flush=True)


def optimus_sim(given):
    """The simulator's binary: --optimus-sim, $OPTIMUS_SIM, PATH, or the
    build tree beside this folder."""
    for cand in (given, os.environ.get("OPTIMUS_SIM"),
                 shutil.which("optimus-sim"),
                 os.path.join(os.path.dirname(HERE), "src", "tools",
                              "optimus-sim", "optimus-sim")):
        if cand and os.access(cand, os.X_OK):
            return cand
    raise SystemExit("replay: optimus-sim not found (give --optimus-sim)")


def truth(sim, app, gpus_per_node, batch, data=None):
    """optimus-sim truth's JSON for this placement and batch."""
    cmd = [sim, "truth", "--app", app, "--gpus-per-node",
           ",".join(str(g) for g in gpus_per_node), "--batch", str(batch)]
    if data:
        cmd += ["--data", data]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode:
        raise SystemExit("replay: %s: %s" % (" ".join(cmd), r.stderr.strip()))
    return json.loads(r.stdout)


def placement_from_env(env=None):
    """GPUs per node as Slurm laid out the step, one GPU per worker task:
    SLURM_STEP_TASKS_PER_NODE ("2(x3),1": 2 on each of three nodes, then
    1), else the job's SLURM_TASKS_PER_NODE. (OPTIMUS_WORKER_HOSTS names
    the nodes' addresses, one for all the nodes of a localhost cluster.)"""
    env = os.environ if env is None else env
    text = env.get("SLURM_STEP_TASKS_PER_NODE") or \
        env.get("SLURM_TASKS_PER_NODE")
    if not text:
        raise SystemExit("replay: no SLURM_STEP_TASKS_PER_NODE: run as a "
                         "Slurm step or give --gpus-per-node")
    counts = []
    for item in text.split(","):
        n, _, rep = item.partition("(x")
        counts += [int(n)] * (int(rep.rstrip(")")) if rep else 1)
    return [c for c in counts if c > 0]


def ckpt_load(ckpt_dir):
    """The state the last run checkpointed, or None (none, or another
    job's: optimus_report.resume_refusal)."""
    if not ckpt_dir:
        return None
    path = os.path.join(ckpt_dir, CKPT_NAME)
    try:
        with open(path) as f:
            state = json.load(f)
    except FileNotFoundError:
        return None
    why = optimus_report.resume_refusal(state.get("identity"))
    if why:
        log("not resuming from %s: %s" % (path, why))
        return None
    return state


def ckpt_save(ckpt_dir, state):
    """Write the state atomically (tmp + fsync + rename)."""
    os.makedirs(ckpt_dir, exist_ok=True)
    final = os.path.join(ckpt_dir, CKPT_NAME)
    tmp = "%s.tmp.%d" % (final, os.getpid())
    with open(tmp, "w") as f:
        json.dump(dict(state, identity=optimus_report.job_identity()), f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, final)


def report(call, *args, **kw):
    """One report; a refusal or an unreachable listener is logged, not
    fatal (under plain sched/backfill nobody listens). True if sent."""
    try:
        call(*args, **kw)
        return True
    except (optimus_report.ReportError, OSError) as e:
        log("report failed: %s" % e)
        return False


# Iterations per gradient estimate: the DDP example's --stats-every
# default, as the simulator's jobs (measured/engine.h PX_ESTIMATE_STEPS).
ESTIMATE_STEPS = 10


class Replay:
    """The job's state: iterations run, epoch, progress within the
    measured progress scale; advanced one iteration at a time."""

    def __init__(self, t, last_epoch, state=None):
        self.t = t
        self.last_epoch = last_epoch
        state = state or {}
        self.iterations = int(state.get("iterations", 0))
        self.epoch = int(state.get("epoch", 0))
        self.progress = float(state.get("progress", 0.0))
        self.goal = t["epochs"][last_epoch - 1]["progress_end"]

    @property
    def done(self):
        return self.epoch >= self.last_epoch

    def step(self):
        """One iteration: progress by the epoch's efficiency; at the
        epoch's end the next epoch starts from its boundary (as the
        simulator, measured/engine.c job_run)."""
        ep = self.t["epochs"][self.epoch]
        self.iterations += 1
        self.progress += ep["efficiency"]
        if self.progress >= ep["progress_end"]:
            self.progress = ep["progress_end"]
            self.epoch += 1

    def loss(self):
        return max(0.0, 1.0 - self.progress / self.goal)

    def state(self):
        return {"iterations": self.iterations, "epoch": self.epoch,
                "progress": self.progress}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--app", required=True)
    ap.add_argument("--batch", type=float, required=True,
                    help="global batch size (the workload's batch_size)")
    ap.add_argument("--compression", type=float, default=1.0,
                    help="measured seconds per wall-clock second")
    ap.add_argument("--epochs", type=int, default=0,
                    help="stop after this many epochs (a slice of the "
                    "application; default: its full count)")
    ap.add_argument("--gpus-per-node", default=None,
                    help="placement for a run by hand, e.g. 2,1 "
                    "(default: from spank/optimus's environment)")
    ap.add_argument("--report-every", type=float, default=2.0,
                    help="wall-clock seconds between progress reports")
    ap.add_argument("--resume-after", type=float, default=180.0,
                    help="after a checkpoint, seconds to wait for the "
                    "requeue before going on")
    ap.add_argument("--optimus-sim", default=None)
    ap.add_argument("--data", default=None,
                    help="the Pollux data folder (optimus-sim's default)")
    ap.add_argument("--no-report", action="store_true")
    a = ap.parse_args(argv)
    if not a.compression > 0:
        ap.error("--compression must be > 0")

    if os.environ.get("OPTIMUS_ROLE", "worker") != "worker" or \
            int(os.environ.get("OPTIMUS_RANK", "0")) != 0:
        # Only the chief replays; the job holds the others' GPUs.
        return 0
    place = ([int(x) for x in a.gpus_per_node.split(",")]
             if a.gpus_per_node else placement_from_env())
    plan = optimus_report.batch_env()
    batch = plan.global_batch if plan else a.batch
    t = truth(optimus_sim(a.optimus_sim), a.app, place, batch, a.data)
    last = min(a.epochs, t["max_epochs"]) if a.epochs > 0 else t["max_epochs"]
    ckpt_dir = os.environ.get("OPTIMUS_CHECKPOINT_DIR")
    job = Replay(t, last, ckpt_load(ckpt_dir))
    it_wall = t["iteration_seconds"] / a.compression
    # The wall-clock stamps (at=) of this line, a checkpoint's and the
    # end's let bench/pollux_replay.py measure what a start and a resize
    # cost on the cluster (time without progress).
    log("starting at step %d epoch %d: %s batch %g on %s GPUs per node, "
        "iteration %.6f s measured, %.6f s wall (compression %g), "
        "%d epochs, scheduler's batch %s, at=%.3f"
        % (job.iterations, job.epoch, a.app, t["run_batch"],
           ",".join(map(str, place)), t["iteration_seconds"], it_wall,
           a.compression, last, plan, time.time()))

    rep = None
    if not a.no_report:
        try:
            rep = optimus_report.Reporter()
        except (optimus_report.ReportError, OSError) as e:
            log("no report channel: %s" % e)
    paused = {"at": None}

    def save():
        ckpt_save(ckpt_dir, job.state())
        log("checkpoint of step %d written (epoch %d), at=%.3f"
            % (job.iterations, job.epoch, time.time()))
        paused["at"] = time.monotonic()
        return job.iterations

    if rep is not None and ckpt_dir and \
            not report(rep.handle_checkpoints, save,
                       resumed_step=job.iterations):
        log("not reporting (no sched/optimus listening)")
        rep = None
    start_it, t0 = job.iterations, time.monotonic()
    last_report, spoke = t0, False
    # estimates made since the last report: [epoch, how many] runs; the
    # iterations since the last estimate (a restart counts afresh)
    estimates, since_estimate = [], 0
    while not job.done:
        time.sleep(min(0.2, max(it_wall, 0.01)))
        if rep is not None:
            report(rep.confirm_checkpoints)
        now = time.monotonic()
        if paused["at"] is not None:
            # The job is about to be requeued: no work after the checkpoint.
            if now - paused["at"] < a.resume_after:
                continue
            log("no requeue within %gs: going on" % a.resume_after)
            t0 += now - paused["at"]
            paused["at"] = None
        target = start_it + math.floor((now - t0) / it_wall)
        while job.iterations < target and not job.done:
            epoch = job.epoch
            job.step()
            since_estimate += 1
            if since_estimate == ESTIMATE_STEPS:
                since_estimate = 0
                if estimates and estimates[-1][0] == epoch:
                    estimates[-1][1] += 1
                else:
                    estimates.append([epoch, 1])
        if now - last_report >= a.report_every or job.done:
            sps = (job.iterations - start_it) / max(now - t0, 1e-9)
            log("step %d loss %.6f epoch %d" % (job.iterations, job.loss(),
                                                 job.epoch))
            if rep is not None:
                # the all-reduce part of its steps, as a DDP trainer
                # times it (the simulator's jobs say the same)
                report(rep.progress, job.iterations, job.loss(),
                       samples_per_sec=sps * t["run_batch"], epoch=job.epoch,
                       sync_seconds=t["sync_seconds"] / a.compression)
                if not spoke and job.iterations > start_it:
                    spoke = report(rep.speed, 0, t["replicas"], sps)
                for epoch, n in estimates:
                    ep = t["epochs"][min(epoch, last - 1)]
                    if report(rep.gradients, ep["grad_sqr"], ep["grad_var"],
                              t["var_batch"], estimates=n):
                        log("gradients of epoch %d at batch %g: grad_sqr %g "
                            "grad_var %g, %d estimates"
                            % (epoch, t["run_batch"], ep["grad_sqr"],
                               ep["grad_var"], n))
            estimates = []
            last_report = now
    log("done at step %d epoch %d, at=%.3f" % (job.iterations, job.epoch,
                                                time.time()))
    if rep is not None:
        rep.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

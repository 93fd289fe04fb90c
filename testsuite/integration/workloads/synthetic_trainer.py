#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""A training job with a known speed function and convergence curve.

Scheduler tests need jobs whose behaviour is known in advance: this one
advances `step` at f(p, w) steps per second (the Optimus async speed
function with fixed coefficients) for the topology the scheduler gave it,
follows the loss curve l(k) = 1/(b0*k + b1) + b2, reports both through the
real report channel, checkpoints its step on the checkpoint signal (and
confirms it with a checkpoint report, so the requeue need not wait for the
grace period) and resumes from it after a requeue. It is the batch script itself (one task).

usage: synthetic_trainer.py STEPS [THETA0 THETA1 THETA2 THETA3]

Test-only environment (never read by the product):
  OPTIMUS_TEST_CKPT_SECONDS=S  a checkpoint takes S seconds to write (a
      large model's), so the confirmation comes S seconds after the signal;
  OPTIMUS_TEST_SLOW_NODE=NODE|@first  the workers on that node (@first: the
      first node of the job's first run, remembered in the checkpoint) take
      OPTIMUS_TEST_SLOWDOWN (default 3) times longer per step, and since the
      job is synchronous the whole job advances that much slower while it
      runs there;
  OPTIMUS_TEST_WORKER_REPORTS=0  do not send per-worker step times (the job
      runs without straggler detection);
  OPTIMUS_TEST_RUN0_REPORTS=N  the first run sends its first N progress
      reports only, then trains on silently, still checkpointing on the
      signal (a job that logs rarely: its checkpoint holds more steps than
      it reported);
  OPTIMUS_TEST_HANDLER_DELAY=S  every run sleeps S seconds before it
      installs its checkpoint handler and declares (a trainer importing
      torch, loading its data): until then the checkpoint signal kills it.
Each line it prints carries "at", the time.time() it was written (the
declaration's: just before it was sent).
Worker w of W on the job's k nodes is on node w*k//W (a block split).
"""
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "python"))
import optimus_report  # noqa: E402


def topology():
    text = os.environ.get("SLURM_SPANK_OPTIMUS_TOPOLOGY", "ps=1,workers=1")
    kv = dict(item.split("=", 1) for item in text.split(",") if "=" in item)
    return int(kv.get("ps", 1)), int(kv.get("workers", 1))


def speed(p, w, theta):
    """f(p, w); an all-reduce job (mode=allreduce, no PS: p = 0) as if
    its gradients went through one PS."""
    t0, t1, t2, t3 = theta
    p = max(p, 1)
    return w / (t0 + t1 * w / p + t2 * w + t3 * p)


def job_nodes():
    text = subprocess.run(["scontrol", "show", "hostnames",
                           os.environ.get("SLURM_JOB_NODELIST", "")],
                          capture_output=True, text=True).stdout
    return text.split() or [os.environ.get("SLURMD_NODENAME", "localhost")]


class Straggler:
    """Per-worker step times, slower on the test's slow node."""

    def __init__(self, saved, workers):
        self.nodes = job_nodes()
        want = os.environ.get("OPTIMUS_TEST_SLOW_NODE", "")
        self.slow_node = saved.get("slow_node") or (
            self.nodes[0] if want == "@first" else want)
        self.factor = float(os.environ.get("OPTIMUS_TEST_SLOWDOWN", "3"))
        self.report = os.environ.get("OPTIMUS_TEST_WORKER_REPORTS", "1") != "0"
        self.workers = workers

    def node_of(self, rank):
        return self.nodes[rank * len(self.nodes) // self.workers]

    def job_slowdown(self):
        return self.factor if self.slow_node in self.nodes else 1.0

    def send(self, rep, rate):
        if not self.report or not self.slow_node:
            return
        for rank in range(self.workers):
            node = self.node_of(rank)
            t = (1.0 / rate) * (self.factor if node == self.slow_node else 1.0)
            rep.worker(t, rank=rank, node=node)


def loss(k):
    return 1.0 / (0.002 * k + 1.0) + 0.05


def main():
    total = float(sys.argv[1])
    theta = [float(x) for x in sys.argv[2:6]] or [1.0, 0.5, 0.02, 0.02]
    ckpt_dir = os.environ.get("OPTIMUS_CHECKPOINT_DIR") or os.getcwd()
    os.makedirs(ckpt_dir, exist_ok=True)
    ckpt = os.path.join(ckpt_dir, "synthetic-%s.json" % os.environ["SLURM_JOB_ID"])
    step = 0.0
    saved_state = {}
    if os.path.exists(ckpt):
        saved_state = json.load(open(ckpt))
        step = saved_state["step"]
    p, w = topology()
    strag = Straggler(saved_state, w)
    log = {"restart": int(os.environ.get("SLURM_RESTART_COUNT", "0")),
           "ps": p, "workers": w, "resumed_from": step,
           "nodes": strag.nodes, "at": time.time()}
    print(json.dumps(log), flush=True)

    def checkpoint():
        time.sleep(float(os.environ.get("OPTIMUS_TEST_CKPT_SECONDS", "0")))
        tmp = ckpt + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"step": step, "slow_node": strag.slow_node}, f)
        os.rename(tmp, ckpt)
        print(json.dumps({"checkpoint": step, "at": time.time()}),
              flush=True)
        return step

    rep = optimus_report.Reporter()
    # Until here SIGUSR1 has its default action: it ends the process.
    time.sleep(float(os.environ.get("OPTIMUS_TEST_HANDLER_DELAY", "0")))
    # The reporter installs the checkpoint handler and declares that this
    # run can checkpoint (it resumed from `step`): the scheduler may resize.
    # Stamped before the call: slurmctld may act on the declaration before
    # its reply is back here.
    declaring = time.time()
    rep.handle_checkpoints(checkpoint, int(step))
    print(json.dumps({"declared": step, "at": declaring}), flush=True)
    base = speed(p, w, theta)
    rate = base / strag.job_slowdown()
    quiet_after = int(os.environ.get("OPTIMUS_TEST_RUN0_REPORTS", "0")) \
        if log["restart"] == 0 else 0
    sent = 0
    while step < total:
        time.sleep(1.0)
        step = min(total, step + rate)
        if quiet_after and sent >= quiet_after:
            # silent, but the checkpoint the signal asks for is written
            rep.confirm_checkpoints()
            continue
        sent += 1
        try:
            rep.progress(int(step), loss(step), samples_per_sec=32 * rate)
            strag.send(rep, base)
        except optimus_report.ReportError as e:
            print("report refused:", e, file=sys.stderr, flush=True)
    print(json.dumps({"done": step, "at": time.time()}), flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""A parameter-server trainer (numpy + TCP sockets) for sched/optimus.

Every task of one step runs this script and takes its role from the
environment spank/optimus sets (see optimus_task.py): parameter servers
hold contiguous slices of the model's flat parameter vector; workers
compute gradients on their shard of the digits data set and push them to
every server, which send back their updated slices.

  sync:  each server averages one gradient from every worker per step
         (a barrier), so a step is one global batch of --batch samples
         split among the workers;
  async: each server applies every gradient as it comes (Hogwild-style
         parameter server); a step is one worker's batch of --batch.

Worker 0 (the chief) evaluates the training loss on the whole data set
about every --report-every seconds, reports progress and speed to the
scheduler, stops everyone once the loss reaches --target-loss (or the step
count reaches --max-steps), and writes the checkpoint when the checkpoint
signal comes (OPTIMUS_CKPT_SIGNAL, SIGUSR1 by default). Servers resume
from that checkpoint with whatever (p, w) the next run has.

Without Slurm: `ps_trainer.py --local P,W [options]` runs P servers and W
workers on this machine.

--work-ms-per-sample makes each worker sleep that long per sample of its
batch: it stands for the compute of a larger model on an accelerator, so
that a test cluster declaring more CPUs than the machine has still shows
how speed grows with workers (the sleeping tasks use no CPU).
"""

import argparse
import json
import os
import signal
import socket
import struct
import sys
import tempfile
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import optimus_task  # noqa: E402
from trainer_util import (MLP, BackgroundReporter, CkptSignal,  # noqa: E402
                          ckpt_load, ckpt_save, load_digits, log, shard,
                          slices)

HEADER = struct.Struct(">II")
CONNECT_TIMEOUT = 120


# ---------------------------------------------------------------- protocol
def send_msg(sock, header, array=None):
    hb = json.dumps(header).encode()
    pb = b"" if array is None else np.ascontiguousarray(array, "<f8").tobytes()
    sock.sendall(HEADER.pack(len(hb), len(pb)) + hb + pb)


def _recv_exact(sock, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("peer closed the connection")
        buf += chunk
    return bytes(buf)


def recv_msg(sock):
    hn, pn = HEADER.unpack(_recv_exact(sock, HEADER.size))
    header = json.loads(_recv_exact(sock, hn))
    array = np.frombuffer(_recv_exact(sock, pn), "<f8") if pn else None
    return header, array


# ------------------------------------------------------------ the server
class ParameterServer:
    """One slice [lo, hi) of the flat parameters, updated by the workers."""

    def __init__(self, task, args, model):
        self.task, self.args = task, args
        self.lo, self.hi = slices(model.size, task.num_ps)[task.rank]
        ck = ckpt_load(task.ckpt_dir)
        if ck is not None and ck[0].size == model.size:
            theta, self.step = ck[0], ck[1]
            log("resuming from the checkpoint of step %d (%s)"
                % (self.step, task.describe()))
        else:
            theta, self.step = model.init(args.seed), 0
        self.params = theta[self.lo:self.hi].copy()
        self.acc = np.zeros_like(self.params)
        self.pushed = 0
        # Sync mode: when each worker's gradient arrives after the
        # previous step's release (its own step time, as this PS sees it),
        # reported per worker by the first PS for straggler detection.
        self.released_at = time.time()
        self.pace_rep = BackgroundReporter(
            args.mode == "sync" and task.rank == 0 and not args.no_report)
        self.pace = {}
        self.stopping = False
        self.cond = threading.Condition()
        self.clients = 0

    def _reply(self, sock):
        send_msg(sock, {"step": self.step, "stop": self.stopping,
                        "lo": self.lo, "hi": self.hi}, self.params)

    def push(self, grad, rank=None, node=""):
        """Apply (async) or accumulate until all workers pushed (sync)."""
        with self.cond:
            if self.args.mode == "async":
                self.params -= self.args.lr * grad
                self.step += 1
                return
            if rank is not None and node:
                self.pace_rep.pace(time.time() - self.released_at, rank,
                                   node=node, key=rank)
            self.acc += grad
            self.pushed += 1
            step = self.step
            if self.pushed == self.task.num_workers:
                self.params -= self.args.lr * self.acc / self.pushed
                self.acc[:] = 0
                self.pushed = 0
                self.step += 1
                self.released_at = time.time()
                self.cond.notify_all()
            while self.step == step and not self.stopping:
                self.cond.wait(1.0)

    def stop(self):
        with self.cond:
            self.stopping = True
            self.cond.notify_all()

    def serve_client(self, sock):
        with self.cond:
            self.clients += 1
        try:
            while True:
                header, array = recv_msg(sock)
                op = header.get("op")
                if op == "push" and not self.stopping:
                    self.push(array, header.get("rank"), header.get("node", ""))
                elif op == "stop":
                    self.stop()
                self._reply(sock)
        except (ConnectionError, OSError):
            pass
        finally:
            sock.close()
            with self.cond:
                self.clients -= 1
                self.cond.notify_all()

    def run(self):
        bind = self.task.ps_binds[self.task.rank]
        srv = socket.socket()
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            srv.bind(bind)
        except OSError as e:
            # A PS that cannot serve must fail its step (srun
            # --kill-on-bad-exit), never let the workers train wrongly.
            log("PS %d cannot listen on %s:%d: %s: failing the step"
                % ((self.task.rank,) + tuple(bind) + (e,)))
            sys.exit(3)
        srv.listen(64)
        srv.settimeout(0.5)
        log("serving parameters [%d, %d) on %s:%d"
            % ((self.lo, self.hi) + tuple(bind)))
        while not self.stopping:
            try:
                sock, _ = srv.accept()
            except socket.timeout:
                continue
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self.serve_client, args=(sock,),
                             daemon=True).start()
        srv.close()
        # let the workers read their last reply before leaving
        deadline = time.time() + 15
        with self.cond:
            while self.clients and time.time() < deadline:
                self.cond.wait(0.5)
        log("stopped at step %d" % self.step)
        return 0


# ------------------------------------------------------------ the worker
class Worker:
    def __init__(self, task, args, model):
        self.task, self.args, self.model = task, args, model
        X, y = load_digits()
        self.X_all, self.y_all = X, y
        self.X, self.y = shard(X, y, task.shard_index, task.shard_count)
        self.batch = (max(1, args.batch // task.num_workers)
                      if args.mode == "sync" else args.batch)
        self.rng = np.random.RandomState(1000 * task.restart + task.rank)
        self.socks = [self._connect(a) for a in task.ps_addrs]
        self.snapshot = None     # (step, theta): the last consistent pull
        self.reporter = BackgroundReporter(task.is_chief and not args.no_report)
        self.ckpt = CkptSignal(task.ckpt_signal, self._checkpoint_asked,
                               args.resume_after or 3 * task.ckpt_grace)

    def _connect(self, addr):
        deadline = time.time() + CONNECT_TIMEOUT
        while True:
            try:
                s = socket.create_connection(addr, timeout=5)
                s.settimeout(None)
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                return s
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.2)

    def _exchange(self, op, grad=None):
        """Send op (with each server's gradient slice) to every server."""
        for s, (lo, hi) in zip(self.socks, self.bounds):
            send_msg(s, {"op": op, "rank": self.task.rank,
                         "node": os.environ.get("SLURMD_NODENAME", "")},
                     None if grad is None else grad[lo:hi])
        replies = [recv_msg(s) for s in self.socks]
        self.bounds = [(h["lo"], h["hi"]) for h, _ in replies]
        theta = np.concatenate([a for _, a in replies])
        step = replies[0][0]["step"]
        self.snapshot = (step, theta)
        return step, theta, any(h["stop"] for h, _ in replies)

    def _checkpoint_asked(self):
        """The scheduler's signal: write the checkpoint and confirm it."""
        step = self._checkpoint()
        if step is not None:
            self.reporter.checkpoint(step)

    def _checkpoint(self):
        """Write the last consistent parameters; the step they hold."""
        if not self.task.is_chief or self.snapshot is None:
            return None
        step, theta = self.snapshot
        path = ckpt_save(self._ckpt_dir(), theta, step, mode=self.args.mode,
                         num_ps=self.task.num_ps,
                         num_workers=self.task.num_workers,
                         restart=self.task.restart)
        log("checkpoint of step %d written to %s" % (step, path))
        return step

    def _ckpt_dir(self):
        if not self.task.ckpt_dir:
            raise RuntimeError("no OPTIMUS_CHECKPOINT_DIR")
        return self.task.ckpt_dir

    def run(self):
        a = self.args
        self.bounds = [(0, 0)] * len(self.socks)
        step, theta, stop = self._exchange("pull")
        start_step = step
        if self.task.is_chief:
            log("starting at step %d: %s, %s mode, batch %d per worker"
                % (step, self.task.describe(), a.mode, self.batch))
            # This trainer checkpoints on the signal: say so, with the
            # step it resumed from (sched/optimus resizes only a job that
            # confirmed a checkpoint).
            if self.task.ckpt_dir:
                self.reporter.checkpoint(step)
        win_t, win_step, next_report = time.time(), step, 0.0
        while not stop:
            if self.ckpt.wait_if_paused():
                step, theta, stop = self._exchange("pull")
                continue
            idx = self.rng.randint(0, len(self.y), self.batch)
            _, grad = self.model.loss_grad(theta, self.X[idx], self.y[idx])
            if a.work_ms_per_sample:
                time.sleep(a.work_ms_per_sample * self.batch / 1000.0)
            step, theta, stop = self._exchange("push", grad)
            if self.task.is_chief and time.time() >= next_report:
                next_report = time.time() + a.report_every
                done = self._report(step, theta, win_t, win_step)
                win_t, win_step = time.time(), step
                if done:
                    self._exchange("stop")
                    stop = True
        if self.task.is_chief and self.task.ckpt_dir:
            self._checkpoint()
        self.reporter.flush()
        log("done: steps %d..%d" % (start_step, step))
        return 0

    def _report(self, step, theta, win_t, win_step):
        """Evaluate, report, and tell whether training has converged."""
        a, t = self.args, self.task
        loss = self.model.loss(theta, self.X_all, self.y_all)
        dt = max(time.time() - win_t, 1e-6)
        steps_per_sec = (step - win_step) / dt
        per_step = a.batch if a.mode == "sync" else self.batch
        sps = steps_per_sec * per_step
        epoch = int(step * per_step // len(self.y_all))
        if step > win_step:
            self.reporter.progress(step, loss, sps, epoch)
            self.reporter.speed(t.num_ps, t.num_workers, steps_per_sec)
        log("step %d loss %.4f epoch %d %.1f samples/s" % (step, loss, epoch, sps))
        return loss <= a.target_loss or step >= a.max_steps


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--mode", choices=("sync", "async"),
                    default=os.environ.get("OPTIMUS_MODE") or "async",
                    help="default: $OPTIMUS_MODE, else async")
    ap.add_argument("--batch", type=int, default=32,
                    help="global batch (sync) or per-worker batch (async)")
    ap.add_argument("--lr", type=float, default=0.2)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--target-loss", type=float, default=0.1)
    ap.add_argument("--max-steps", type=int, default=100000)
    ap.add_argument("--report-every", type=float, default=1.0, help="seconds")
    ap.add_argument("--work-ms-per-sample", type=float, default=0.0)
    ap.add_argument("--resume-after", type=float, default=0,
                    help="seconds paused after a checkpoint before training "
                    "on (default: 3 x OPTIMUS_CKPT_GRACE)")
    ap.add_argument("--no-report", action="store_true")
    ap.add_argument("--ckpt-dir", help="--local only (default: a new temp dir)")
    ap.add_argument("--local", metavar="P,W",
                    help="run P servers and W workers on this machine")
    return ap.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    # until the task knows what to do with it, the checkpoint signal must
    # not kill it (SIGUSR1's default action)
    signal.signal(int(os.environ.get("OPTIMUS_CKPT_SIGNAL") or signal.SIGUSR1),
                  lambda s, f: None)
    if args.local:
        p, w = (int(x) for x in args.local.split(","))
        ckpt = args.ckpt_dir or tempfile.mkdtemp(prefix="ps-trainer-")
        return optimus_task.launch_local(
            __file__, argv, optimus_task.local_envs(p, w, ckpt, args.mode))
    try:
        task = optimus_task.Task()
    except optimus_task.TaskError as e:
        log("ps_trainer: %s" % e)
        return 2
    model = MLP(hidden=args.hidden)
    if task.role == "ps":
        # the checkpoint signal reaches every task: servers just keep serving
        signal.signal(task.ckpt_signal, lambda s, f: None)
        return ParameterServer(task, args, model).run()
    return Worker(task, args, model).run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

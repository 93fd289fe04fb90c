#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Data-parallel PyTorch training (DDP, CPU, gloo) for sched/optimus.

The same MLP on the same digits data as ps_trainer.py, trained the way most
jobs train today: every task is a worker holding the whole model, wrapped
in torch.nn.parallel.DistributedDataParallel, which averages the gradients
with a ring all-reduce. Submit it with `--scheduler=optimus,mode=allreduce`
(no parameter server); in a PS-mode job its PS tasks idle and exit.

- Rendezvous: torch.distributed's env:// method from what spank/optimus
  sets among the workers (MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK,
  LOCAL_RANK), as torchrun would; MASTER_ADDR is a Slurm node name, turned
  into an address as optimus_task.py does.
- Data: a DistributedSampler over the digits. Each epoch is a permutation
  of the samples (of `--epoch-passes` copies of them: a larger dataset's
  epoch), rank r of W taking positions r, r+W, ...; so after a
  step, the samples used so far in the epoch are exactly the first `pos`
  positions of the permutation, whatever W was. The checkpoint stores
  (epoch, pos); a run resumed with another W re-shards the same permutation
  and each rank skips the positions before pos (ResumableSampler): no
  sample is seen twice or missed in the epoch.
- Batch and learning rate: under sched/optimus with a batch= hint, each
  run's batch is in the environment (OPTIMUS_GLOBAL_BATCH, _LOCAL_BATCH,
  _ACCUM_STEPS; optimus_report.batch_env()): each worker takes LOCAL
  samples per forward/backward pass, ACCUM_STEPS + 1 passes per update
  (the gradients of all but the last accumulate without an all-reduce,
  DDP's no_sync), GLOBAL in all. With adaptive_batch=yes the scheduler
  chooses it with the workers at every restart (and changes it in place
  between them, below), and the LR tuned at
  `--batch` (the submitted batch) is scaled by `--lr-rule` (default
  adascale: AdaScale's gain from the measured gradient statistics,
  optimus_report.lr_scale; sqrt; linear). Without the environment,
  `--batch B` is the global batch, kept whatever W (each worker takes
  ceil(B/W) samples, LR unchanged), so a resized job follows the same
  optimisation path. With `--scale-lr`, B is the batch of each worker
  instead: the global batch is B*W and the LR is scaled by W (the linear
  scaling rule of Goyal et al., 2017).
- Batch changes in place: worker 0 says the global batch it trains at in
  every progress report; a change of batch at the job's GPUs then comes
  in the reply to a report (optimus_report.Rebatch) instead of a
  checkpoint-requeue-restart. Worker 0 passes it to all workers with the
  per-step flags below, and at that step every worker takes the new
  local batch and micro-steps (the loader goes on from the same position
  of the epoch) and the LR the new batch implies (`--lr-rule`, as at a
  restart); the next progress report says the new batch and how long the
  change took. `--rebatch-in-place no` never says the batch (a trainer
  written before this: every batch change is a restart), `ignore` says
  it but takes no change (the scheduler restarts it after RebatchTimeout).
- Gradient statistics: optimus_report.GradientStats measures the gradient
  noise across the workers (a DDP communication hook, one tiny all-reduce
  per `--stats-every` steps) and worker 0 reports it (the scheduler's
  efficiency model); the estimates are kept in the checkpoint so that the
  LR rule has them at the next start. `--profile-batches 0.5,2` times a
  few steps (forward, backward, all-reduce; no update) at those multiples
  of the local batch at the start of every run and reports them as speeds
  at those batches once the run's progress reports span PROFILE_AFTER
  seconds (sched/optimus checks a speed against the steps the run
  reported over their wall time, and refuses one it cannot check yet):
  the scheduler fits its step-time model of any batch from the first,
  and samples at more per-GPU batches tell the per-example compute from
  the per-step constant sooner.
- Checkpoint signal (SIGUSR1 unless ckpt_signal=): a worker blocked in an
  all-reduce cannot run its Python signal handler, so every step begins
  with a tiny all-reduce of (checkpoint wanted, stop, batch change) flags
  and all workers act at the same step: worker 0 writes the parameters, step, epoch and pos
  (trainer_util.ckpt_save: atomic), confirms it with a checkpoint report,
  then all pause until the scheduler requeues the job.
- Reports: worker 0 sends progress(step, loss on all data, samples/s,
  epoch) and speed(p, w, steps/s) through python/optimus_report.py from a
  background thread.

Needs Debian's python3-torch. Without Slurm: `torch_trainer.py --local W`
runs W workers on this machine.
"""

import argparse
import contextlib
import datetime
import math
import os
import signal
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import optimus_task  # noqa: E402
from trainer_util import _import_reporter  # noqa: E402
from trainer_util import (MLP, BackgroundReporter, CkptSignal,  # noqa: E402
                          ckpt_load, ckpt_save, load_digits, log)

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch.nn.parallel import DistributedDataParallel  # noqa: E402
from torch.utils.data import DistributedSampler, TensorDataset  # noqa: E402

opr = _import_reporter()


class Net(torch.nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.fc1 = torch.nn.Linear(64, hidden)
        self.fc2 = torch.nn.Linear(hidden, 10)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))

    # The flat layout of trainer_util.MLP: W1 (in x hidden), b1, W2, b2.
    def flat(self):
        parts = [self.fc1.weight.t(), self.fc1.bias, self.fc2.weight.t(),
                 self.fc2.bias]
        return np.concatenate([p.detach().numpy().ravel() for p in parts])

    def load_flat(self, theta, mlp):
        W1, b1, W2, b2 = (torch.from_numpy(np.array(a, np.float32))
                          for a in mlp.unpack(theta))
        with torch.no_grad():
            self.fc1.weight.copy_(W1.t())
            self.fc1.bias.copy_(b1)
            self.fc2.weight.copy_(W2.t())
            self.fc2.bias.copy_(b2)


class ResumableSampler(DistributedSampler):
    """DistributedSampler that starts an epoch at global position `start`:
    rank r skips its positions r, r+W, ... below start."""

    def __init__(self, dataset, num_replicas, rank, seed):
        super().__init__(dataset, num_replicas=num_replicas, rank=rank,
                         shuffle=True, seed=seed, drop_last=False)
        self.start = 0

    def __iter__(self):
        idx = list(super().__iter__())
        skip = max(0, math.ceil((self.start - self.rank) / self.num_replicas))
        return iter(idx[skip:])


def init_group(task):
    """gloo process group among the workers, by env:// like torchrun."""
    # Debian's PyTorch 2.6 (Debian 13) is built without libuv, yet its
    # TCPStore asks for libuv by default: use the classic store.
    os.environ.setdefault("USE_LIBUV", "0")
    addr = task.worker_addrs[0][0]
    os.environ["MASTER_ADDR"] = addr
    os.environ["WORLD_SIZE"] = str(task.num_workers)
    os.environ["RANK"] = str(task.rank)
    if addr.startswith("127."):
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    dist.init_process_group("gloo", init_method="env://",
                            timeout=datetime.timedelta(seconds=300))


def batches(sampler, per_worker, epoch, pos):
    """Yield (epoch, pos after the batch, indices) forever; pos counts the
    epoch's positions used by all workers together."""
    while True:
        sampler.set_epoch(epoch)
        sampler.start = pos
        it = iter(sampler)
        while True:
            idx = [i for _, i in zip(range(per_worker), it)]
            if not idx:
                break
            pos += len(idx) * sampler.num_replicas
            yield epoch, pos, idx
        epoch, pos = epoch + 1, 0


def run_batch(args, W):
    """(global, local, accum, base batch) of this run: the environment's
    (sched/optimus), else --batch over W workers (or per worker with
    --scale-lr)."""
    plan = opr.batch_env()
    if plan is not None and not args.scale_lr:
        return plan.global_batch, plan.local_batch, plan.accum_steps, \
            args.batch
    if args.scale_lr:
        return args.batch * W, args.batch, 0, args.batch
    local = max(1, math.ceil(args.batch / W))
    return local * W, local, 0, local * W


# Seconds of the run's own progress reports before its profiled step
# times are sent: sched/optimus checks a speed against the steps the run
# reported over at least 3 s of wall time (JOB_CLAIM_WINDOW), to the
# whole second.
PROFILE_AFTER = 5.0


def profile_batches(ddp, X_t, y_t, sampler, local, factors, task, stats,
                    work_ms, sync):
    """Time `steps` forward/backward passes (with DDP's all-reduce, no
    update) at each multiple of the local batch: [(per-worker batch,
    seconds per step, all-reduce seconds of it)] on worker 0 (sent later:
    train), [] on the others. Every worker runs it (the all-reduce needs
    all)."""
    timed = []
    for f in factors:
        b = max(1, int(round(local * f)))
        if b == local:
            continue
        idx = list(sampler)[:b] or [0]
        t0 = None
        for i in range(4):              # the first one warms up
            if i == 1:
                t0 = time.time()
                sync.take()
            ddp.zero_grad()
            loss = torch.nn.functional.cross_entropy(ddp(X_t[idx]), y_t[idx])
            loss.backward()
            sync.synced()
            if work_ms:
                time.sleep(work_ms * len(idx) / 1000.0)
            stats.step(len(idx))
        dt = (time.time() - t0) / 3
        ddp.zero_grad()
        if task.is_chief:
            timed.append((b, dt, sync.take()))
            log("profile: batch %d per worker: %.4f s per step" % (b, dt))
    return timed


def train(task, args):
    torch.manual_seed(args.seed)
    mlp = MLP(hidden=args.hidden)
    net = Net(args.hidden)
    ck = ckpt_load(task.ckpt_dir)
    step, epoch, pos = 0, 0, 0
    net.load_flat(ck[0] if ck else mlp.init(args.seed), mlp)
    grad = (None, None)
    if ck:
        step = ck[1]
        epoch, pos = int(ck[2].get("epoch", 0)), int(ck[2].get("pos", 0))
        if "grad_sqr" in ck[2]:
            grad = (float(ck[2]["grad_sqr"]), float(ck[2]["grad_trace"]))
    init_group(task)
    ddp = DistributedDataParallel(net)
    X_all, y_all = load_digits()
    X_t = torch.tensor(X_all, dtype=torch.float32)
    y_t = torch.tensor(y_all)
    # An epoch of --epoch-passes passes over the digits: the epoch
    # length of a larger dataset (the loss is still on the digits).
    data = TensorDataset(X_t.repeat(args.epoch_passes, 1),
                         y_t.repeat(args.epoch_passes))
    X_train, y_train = data.tensors
    W = task.num_workers
    glob, per_worker, accum, base = run_batch(args, W)
    scale = lr_scale_for(args, glob, base, *grad)
    lr = args.lr * (W if args.scale_lr else scale)
    sampler = ResumableSampler(data, W, task.rank, args.seed)
    opt = torch.optim.SGD(ddp.parameters(), lr=lr)
    ckpt = CkptSignal(task.ckpt_signal, None,
                      args.resume_after or 3 * task.ckpt_grace)
    reporter = BackgroundReporter(task.is_chief and not args.no_report)
    # Every worker reports its own pace (stragglers, sched_optimus(8)).
    pace = reporter if task.is_chief else BackgroundReporter(not args.no_report)
    # Gradient noise across the workers; worker 0 reports it.
    stats = opr.GradientStats(ddp, reporter if task.is_chief else None,
                              every=args.stats_every)
    # The all-reduce part of the steps, said with the progress (the
    # scheduler's goodput model fits compute and all-reduce apart).
    sync = opr.SyncTimer(net)
    if grad[0] is not None:
        stats.grad_sqr, stats.trace = grad
    if task.is_chief:
        log("starting at step %d: %s, epoch %d position %d, batch %d per "
            "worker x %d micro-steps (global %d), lr %g"
            % (step, task.describe(), epoch, pos, per_worker, accum + 1,
               glob, lr))
        # Checkpoints on the signal: declared with the step it resumed
        # from (sched/optimus resizes only a job that confirmed one).
        if task.ckpt_dir:
            reporter.checkpoint(step)
    profiled = profile_batches(
        ddp, X_train, y_train, sampler, per_worker,
        [float(f) for f in args.profile_batches.split(",")], task, stats,
        args.work_ms_per_sample, sync) if args.profile_batches else []

    def meta():
        extra = {} if stats.grad_sqr is None else dict(
            grad_sqr=stats.grad_sqr, grad_trace=stats.trace)
        return dict(mode="allreduce", num_workers=W, epoch=epoch, pos=pos,
                    global_batch=glob, **extra)
    stop, start = False, step
    win_t, win_step, next_report = time.time(), step, 0.0
    first_report = None
    feed = batches(sampler, per_worker, epoch, pos)
    # The batch said in progress reports (a batch of the scheduler's) and
    # how long the last change in place took, said once.
    say_batch = args.rebatch_in_place != "no" and not args.scale_lr and \
        opr.batch_env() is not None
    switch_seconds = None
    while True:
        change = take_change(reporter, args, task, say_batch, glob, W)
        flags = torch.tensor([float(ckpt.pending), float(stop)] + change,
                             dtype=torch.float64)
        t_flags = time.perf_counter()
        dist.all_reduce(flags, op=dist.ReduceOp.MAX)
        sync.waited(time.perf_counter() - t_flags)
        if flags[2] > 0:
            # every worker at the same step: the loader goes on from the
            # epoch's position with the new per-worker batch
            t_switch = time.time()
            old = glob
            glob, per_worker, accum = (int(x) for x in flags[2:5])
            feed = batches(sampler, per_worker, epoch, pos)
            lr = args.lr * lr_scale_for(args, glob, base, stats.grad_sqr,
                                        stats.trace)
            for g in opt.param_groups:
                g["lr"] = lr
            switch_seconds = time.time() - t_switch
            sync.take()     # the old batch's all-reduce: not this one's
            win_t, win_step = time.time(), step
            if task.is_chief:
                log("batch changed in place at step %d: %d -> %d (%d per "
                    "worker x %d micro-steps), lr %g"
                    % (step, old, glob, per_worker, accum + 1, lr))
        if flags[0] > 0:
            ckpt.acknowledge()
            if task.is_chief:
                path = ckpt_save(task.ckpt_dir, net.flat(), step, **meta())
                log("checkpoint of step %d written to %s" % (step, path))
                reporter.checkpoint(step)
            ckpt.pause()
            ckpt.wait_if_paused()
            continue
        if flags[1] > 0:
            break
        t_compute = time.time()
        opt.zero_grad()
        own, n = 0.0, 0
        for micro in range(accum + 1):
            epoch_next, pos_next, idx = next(feed)
            n += len(idx)
            last = micro == accum
            # the gradients of all but the last micro-step accumulate
            # locally; DDP all-reduces (averages) them with the last
            with contextlib.nullcontext() if last else ddp.no_sync():
                loss = torch.nn.functional.cross_entropy(
                    ddp(X_train[idx]), y_train[idx]) / (accum + 1)
                # This worker's own pace (stragglers): data and forward
                # pass, and the stand-in compute; not the all-reduce.
                own += time.time() - t_compute
                loss.backward()
            if last:
                sync.synced()
            if args.work_ms_per_sample:
                time.sleep(args.work_ms_per_sample * len(idx) / 1000.0)
                own += args.work_ms_per_sample * len(idx) / 1000.0
            t_compute = time.time()
        pace.pace(own, task.rank)
        opt.step()
        if stats.step(n) and args.lr_rule == "adascale" and \
                not args.scale_lr:
            # AdaScale: the gain follows the measured noise
            for g in opt.param_groups:
                g["lr"] = args.lr * lr_scale_for(args, glob, base,
                                                 stats.grad_sqr, stats.trace)
        step, epoch, pos = step + 1, epoch_next, pos_next
        if task.is_chief and time.time() >= next_report:
            next_report = time.time() + args.report_every
            with torch.no_grad():
                full = float(torch.nn.functional.cross_entropy(net(X_t), y_t))
            rate = (step - win_step) / max(time.time() - win_t, 1e-6)
            if step > win_step:
                reporter.progress(step, full, rate * glob, epoch,
                                  batch=glob if say_batch else None,
                                  rebatch_seconds=switch_seconds,
                                  sync_seconds=sync.take())
                switch_seconds = None
                reporter.speed(task.num_ps, W, rate)
                first_report = first_report or time.time()
            if profiled and first_report and \
                    time.time() - first_report >= PROFILE_AFTER:
                for b, dt, dt_sync in profiled:
                    reporter.speed(task.num_ps, W, 1.0 / dt, local_batch=b,
                                   accum=0, sync_seconds=dt_sync
                                   if dt_sync is not None and dt_sync < dt
                                   else None)
                profiled = []
            log("step %d loss %.4f epoch %d %.1f samples/s"
                % (step, full, epoch, rate * glob))
            win_t, win_step = time.time(), step
            stop = full <= args.target_loss or step >= args.max_steps
    if task.is_chief:
        ckpt_save(task.ckpt_dir, net.flat(), step, **meta())
    reporter.flush()
    dist.destroy_process_group()
    log("done: steps %d..%d" % (start, step))
    return 0


def take_change(reporter, args, task, say_batch, glob, workers):
    """[global, local, accum] of the batch change a reply brought, for
    the per-step flags (worker 0's; [0, 0, 0]: none). A change that is not
    a whole split of this run's workers is not taken: the scheduler then
    restarts the job after RebatchTimeout."""
    if not (task.is_chief and say_batch and args.rebatch_in_place == "yes"):
        return [0.0, 0.0, 0.0]
    change = reporter.take_rebatch()
    if change is None or change.global_batch == glob:
        return [0.0, 0.0, 0.0]
    if not change.fits(workers):
        log("batch change %r not taken: not a split of %d workers"
            % (change, workers))
        return [0.0, 0.0, 0.0]
    return [float(change.global_batch), float(change.local_batch),
            float(change.accum_steps)]


def lr_scale_for(args, batch, base, grad_sqr=None, trace=None):
    """The LR factor of this run's batch over the submitted one."""
    if batch == base:
        return 1.0
    return opr.lr_scale(batch, base, args.lr_rule, grad_sqr, trace)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--batch", type=int, default=32,
                    help="global batch (per worker with --scale-lr)")
    ap.add_argument("--scale-lr", action="store_true",
                    help="keep the per-worker batch and scale the LR by W")
    ap.add_argument("--lr", type=float, default=0.2,
                    help="learning rate at --batch")
    ap.add_argument("--lr-rule", choices=("adascale", "sqrt", "linear"),
                    default="adascale",
                    help="LR scaling when the scheduler changes the batch")
    ap.add_argument("--stats-every", type=int, default=10,
                    help="steps per gradient-statistics estimate")
    ap.add_argument("--profile-batches", default="",
                    help="time these multiples of the local batch at start")
    ap.add_argument("--rebatch-in-place", choices=("yes", "no", "ignore"),
                    default="yes",
                    help="take batch changes in place (no: never say the "
                    "batch, every change a restart; ignore: say it, take "
                    "none)")
    ap.add_argument("--epoch-passes", type=int, default=1,
                    help="passes over the data in one epoch (the epoch "
                    "of a larger dataset)")
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--target-loss", type=float, default=0.1)
    ap.add_argument("--max-steps", type=int, default=100000)
    ap.add_argument("--report-every", type=float, default=1.0)
    ap.add_argument("--work-ms-per-sample", type=float, default=0.0)
    ap.add_argument("--resume-after", type=float, default=0)
    ap.add_argument("--no-report", action="store_true")
    ap.add_argument("--ckpt-dir", help="--local only")
    ap.add_argument("--local", type=int, metavar="W",
                    help="run W all-reduce workers on this machine")
    signal.signal(int(os.environ.get("OPTIMUS_CKPT_SIGNAL") or signal.SIGUSR1),
                  lambda s, f: None)
    args = ap.parse_args(argv)
    if args.local:
        ckpt = args.ckpt_dir or tempfile.mkdtemp(prefix="torch-trainer-")
        return optimus_task.launch_local(
            __file__, argv, optimus_task.local_envs(0, args.local, ckpt,
                                                    mode="allreduce"))
    try:
        task = optimus_task.Task()
    except optimus_task.TaskError as e:
        log("torch_trainer: %s" % e)
        return 2
    if task.role == "ps":
        log("PyTorch all-reduce needs no parameter server: PS %d idle"
            % task.rank)
        return 0
    if not task.ckpt_dir:
        log("torch_trainer: no OPTIMUS_CHECKPOINT_DIR")
        return 2
    return train(task, args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

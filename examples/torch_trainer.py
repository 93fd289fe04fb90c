#!/usr/bin/python3
"""Synchronous data-parallel PyTorch training (CPU, gloo) for sched/optimus.

The PyTorch version of ps_trainer.py: the same MLP on the same digits data,
but the workers average their gradients with all-reduce (gloo) instead of
going through parameter servers. Workers read MASTER_ADDR, MASTER_PORT,
WORLD_SIZE and RANK (set by spank/optimus among the workers) and their data
shard from OPTIMUS_SHARD_INDEX/COUNT; PS tasks (a job has at least one)
have nothing to do and exit at once.

The checkpoint signal may reach the workers at different steps, and a
worker blocked in an all-reduce cannot run its Python signal handler; so
every step begins with a tiny all-reduce of (checkpoint wanted, stop) flags
and all workers act on them at the same step: worker 0 writes the
checkpoint (the same flat-vector format as ps_trainer.py), then all pause
until the job is requeued. A resized run loads the checkpoint and goes on
from its step with the new number of workers.

Needs Debian's python3-torch. Without Slurm: `torch_trainer.py --local W`.
"""

import argparse
import datetime
import os
import signal
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import optimus_task  # noqa: E402
from trainer_util import (MLP, BackgroundReporter, CkptSignal,  # noqa: E402
                          ckpt_load, ckpt_save, load_digits, log, shard)

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402


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


def init_group(task):
    """gloo process group among the workers."""
    addr = task.worker_addrs[0][0]
    if addr.startswith("127."):
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    store = dist.TCPStore(addr, int(os.environ["MASTER_PORT"]),
                          task.num_workers, task.rank == 0,
                          timeout=datetime.timedelta(seconds=120))
    dist.init_process_group("gloo", store=store, rank=task.rank,
                            world_size=task.num_workers,
                            timeout=datetime.timedelta(seconds=300))


def train(task, args):
    torch.manual_seed(args.seed)
    mlp = MLP(hidden=args.hidden)
    net = Net(args.hidden)
    ck = ckpt_load(task.ckpt_dir)
    step = 0
    net.load_flat(ck[0] if ck else mlp.init(args.seed), mlp)
    if ck:
        step = ck[1]
    init_group(task)
    X_all, y_all = load_digits()
    X, y = shard(X_all, y_all, task.shard_index, task.shard_count)
    X, y = torch.tensor(X, dtype=torch.float32), torch.tensor(y)
    X_all_t = torch.tensor(X_all, dtype=torch.float32)
    y_all_t = torch.tensor(y_all)
    batch = max(1, args.batch // task.num_workers)
    opt = torch.optim.SGD(net.parameters(), lr=args.lr)
    rng = np.random.RandomState(1000 * task.restart + task.rank)
    ckpt = CkptSignal(task.ckpt_signal, None,
                      args.resume_after or 3 * task.ckpt_grace)
    reporter = BackgroundReporter(task.is_chief and not args.no_report)
    # Every worker reports its own pace (stragglers, sched_optimus(8)).
    pace = reporter if task.is_chief else BackgroundReporter(not args.no_report)
    if task.is_chief:
        log("starting at step %d: %s, batch %d per worker"
            % (step, task.describe(), batch))
    stop, start = False, step
    win_t, win_step, next_report = time.time(), step, 0.0
    while True:
        flags = torch.tensor([float(ckpt.pending), float(stop)])
        dist.all_reduce(flags, op=dist.ReduceOp.MAX)
        if flags[0] > 0:
            if task.is_chief:
                path = ckpt_save(task.ckpt_dir, net.flat(), step,
                                 mode="sync", num_workers=task.num_workers)
                log("checkpoint of step %d written to %s" % (step, path))
                reporter.checkpoint(step)
            ckpt.pause()
            ckpt.wait_if_paused()
            continue
        if flags[1] > 0:
            break
        t_compute = time.time()
        idx = torch.from_numpy(rng.randint(0, len(y), batch))
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(net(X[idx]), y[idx])
        loss.backward()
        if args.work_ms_per_sample:
            time.sleep(args.work_ms_per_sample * batch / 1000.0)
        pace.pace(time.time() - t_compute, task.rank)
        for p in net.parameters():
            dist.all_reduce(p.grad)
            p.grad /= task.num_workers
        opt.step()
        step += 1
        if task.is_chief and time.time() >= next_report:
            next_report = time.time() + args.report_every
            with torch.no_grad():
                full = float(torch.nn.functional.cross_entropy(
                    net(X_all_t), y_all_t))
            rate = (step - win_step) / max(time.time() - win_t, 1e-6)
            epoch = int(step * args.batch // len(y_all))
            if step > win_step:
                reporter.progress(step, full, rate * args.batch, epoch)
                reporter.speed(task.num_ps, task.num_workers, rate)
            log("step %d loss %.4f epoch %d %.1f samples/s"
                % (step, full, epoch, rate * args.batch))
            win_t, win_step = time.time(), step
            stop = full <= args.target_loss or step >= args.max_steps
    if task.is_chief:
        ckpt_save(task.ckpt_dir, net.flat(), step, mode="sync",
                  num_workers=task.num_workers)
    reporter.flush()
    dist.destroy_process_group()
    log("done: steps %d..%d" % (start, step))
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--batch", type=int, default=32, help="global batch")
    ap.add_argument("--lr", type=float, default=0.2)
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
                    help="run W workers (and one idle PS) on this machine")
    signal.signal(int(os.environ.get("OPTIMUS_CKPT_SIGNAL") or signal.SIGUSR1),
                  lambda s, f: None)
    args = ap.parse_args(argv)
    if args.local:
        ckpt = args.ckpt_dir or tempfile.mkdtemp(prefix="torch-trainer-")
        return optimus_task.launch_local(
            __file__, argv, optimus_task.local_envs(1, args.local, ckpt))
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

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""The cost of measuring gradient statistics in a PyTorch DDP job (it should
be negligible): per-step wall time of a small DDP training loop with and
without optimus_report.GradientStats, in the same run.

Two replicas (torch.multiprocessing, spawn) on this machine, CPU, gloo,
rendezvous on a port the OS gives free. Each replica builds the model of
the DDP example (examples/torch_trainer.py: 64 -> hidden (tanh) -> 10 on
the digits data) three times from the same seed, each in its own
DistributedDataParallel with its own SGD optimiser:

- plain: DDP as it comes (its built-in C++ all-reduce), the baseline;
- hook:  DDP with PyTorch's own Python all-reduce communication hook
         (ddp_comm_hooks.default_hooks.allreduce_hook): what any Python
         hook costs before it does anything more;
- stats: DDP with GradientStats(ddp, reporter, every=--stats-every), used
         as the example uses it: registered before the first step,
         stats.step(examples) after every update; rank 0's reporter is a
         stub that only keeps the reports (the example's reporter queues
         them for a background thread: no socket in the step either).

One step, the same for all three (the example's update without its
checkpoint-flag all-reduce and its loss reports, which only add the same
time to every variant): zero_grad, --accum micro-steps under ddp.no_sync()
then one with the all-reduce, each forward + cross-entropy + backward on
the replica's --batch / 2 examples, SGD step (and stats.step for stats).
Every variant trains on the same sequence of batches.

Interleaved blocks: after one untimed warm-up block of each, --rounds
rounds each run one block of --steps steps of every variant, the order
rotating from round to round (machine noise and any drift fall on all
three alike). Both replicas start each block together (a barrier); rank
0's clock times it. Per block: its mean step time (block wall time /
steps: it includes stats' every-`every`-steps all-reduce, which a median
of single steps would hide). Printed: the parameters, every block, the
median over rounds of the block means per variant, the median single
step, and the overhead ratios stats/plain and hook/plain: the median over
rounds of each round's paired ratio (the figure), and the ratio of the
medians beside it. No timing is asserted: the figures are printed.

Parameters decided before the measured run (doc/design/reports.md gives the
figures): the example's defaults, hidden 32 (2,410 parameters), global
batch 32 (16 per replica), no accumulation, stats every 10 steps; 5
rounds x 2000 steps; one thread per replica (2 replicas on the 2 cores).
Two more runs: `--hidden 4096 --steps 300` (307,210 parameters: how the
cost grows with the gradient's size) and `--accum 3 --steps 1000` (the
example's largest accumulation, max_accum=3 in torch_trainer.sbatch: the
hook runs once per update, not per micro-step). Each run takes under a
minute on 2 cores. A fourth, `--hidden 4096 --batch 1024 --steps 100`
(the same gradient, 32 times the examples: the statistics' cost against
a step that computes for ~0.14 s, as a GPU training step does), takes
4 minutes.

    /usr/bin/python3 bench/gradient_stats_cost.py [--hidden 4096] [--json]
"""
import argparse
import gc
import json
import os
import platform
import statistics
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "python"))
sys.path.insert(0, os.path.join(TOP, "examples"))
from optimus_task import _free_ports  # noqa: E402

VARIANTS = ("plain", "hook", "stats")


class StubReporter:
    """Keeps the reports rank 0's GradientStats sends (no socket)."""

    def __init__(self):
        self.sent = []

    def gradients(self, *a):
        self.sent.append(a)


def replica(rank, world, port, args, out):
    try:
        out.put((rank, "ok", replica_run(rank, world, port, args)))
    except BaseException:
        import traceback
        out.put((rank, "failed", traceback.format_exc()))
        raise


def replica_run(rank, world, port, args):
    import numpy as np
    import torch
    import torch.distributed as dist
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from torch.nn.parallel import DistributedDataParallel
    import optimus_report as opr
    from trainer_util import load_digits

    torch.set_num_threads(args.threads)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                      USE_LIBUV="0", GLOO_SOCKET_IFNAME="lo")
    dist.init_process_group("gloo", rank=rank, world_size=world)

    from torch_trainer import Net   # the DDP example's model itself

    X, y = load_digits()
    X_t = torch.tensor(X, dtype=torch.float32)
    y_t = torch.tensor(y)
    local = max(1, -(-args.batch // world))
    micro = args.accum + 1
    # The same batches for every variant: this replica's share of one
    # permutation, as a DistributedSampler gives it.
    perm = np.random.RandomState(args.seed).permutation(len(y))[rank::world]
    need = max(args.steps, args.warmup) * micro
    idx = [perm[(i * local + np.arange(local)) % len(perm)].tolist()
           for i in range(need)]

    runs = {}
    for v in VARIANTS:
        torch.manual_seed(args.seed)
        net = Net(args.hidden)
        ddp = DistributedDataParallel(net)
        stats = None
        if v == "hook":
            ddp.register_comm_hook(None, default_hooks.allreduce_hook)
        elif v == "stats":
            stats = opr.GradientStats(
                ddp, StubReporter() if rank == 0 else None,
                every=args.stats_every)
        opt = torch.optim.SGD(ddp.parameters(), lr=args.lr)
        runs[v] = (ddp, opt, stats)
    nparams = sum(p.numel() for p in runs["plain"][0].parameters())

    def block(v, steps, times):
        ddp, opt, stats = runs[v]
        dist.barrier()
        clock = time.perf_counter
        t_block = clock()
        for s in range(steps):
            t0 = clock()
            opt.zero_grad()
            n = 0
            for m in range(micro):
                b = idx[s * micro + m]
                n += len(b)
                if m < micro - 1:
                    with ddp.no_sync():
                        (torch.nn.functional.cross_entropy(
                            ddp(X_t[b]), y_t[b]) / micro).backward()
                else:
                    (torch.nn.functional.cross_entropy(
                        ddp(X_t[b]), y_t[b]) / micro).backward()
            opt.step()
            if stats is not None:
                stats.step(n)
            if times is not None:
                times.append(clock() - t0)
        return (clock() - t_block) / steps

    for v in VARIANTS:
        block(v, args.warmup, None)
    blocks = {v: [] for v in VARIANTS}
    steps = {v: [] for v in VARIANTS}
    for r in range(args.rounds):
        k = r % len(VARIANTS)
        for v in VARIANTS[k:] + VARIANTS[:k]:
            blocks[v].append(block(v, args.steps, steps[v]))
    stats = runs["stats"][2]
    res = dict(blocks=blocks, step_median={
        v: statistics.median(t) for v, t in steps.items()},
        nparams=nparams, local_batch=local,
        estimates=len(stats.reporter.sent) if stats.reporter else None,
        grad_sqr=stats.grad_sqr, trace=stats.trace)
    # The DDP objects go first: else (torch 1.13) the last reference to
    # the gloo group may go with a reducer, whose destructor holds the GIL
    # while the group's waits for a worker that needs it (a deadlock after
    # a run whose last step was stats' all-reduce: --rounds 1).
    del runs, stats
    gc.collect()
    dist.destroy_process_group()
    return res


def main(argv):
    ap = argparse.ArgumentParser(
        description="Per-step cost of optimus_report.GradientStats in a "
        "2-replica PyTorch DDP loop (CPU, gloo), against plain DDP in the "
        "same run.", epilog="See the module docstring for the method.")
    ap.add_argument("--hidden", type=int, default=32,
                    help="hidden units of the example's MLP (default 32, "
                    "the example's)")
    ap.add_argument("--batch", type=int, default=32,
                    help="global batch per micro-step (default 32)")
    ap.add_argument("--accum", type=int, default=0,
                    help="extra micro-steps under no_sync (default 0)")
    ap.add_argument("--stats-every", type=int, default=10,
                    help="GradientStats' every (default 10, the example's)")
    ap.add_argument("--rounds", type=int, default=5,
                    help="interleaved rounds (default 5)")
    ap.add_argument("--steps", type=int, default=2000,
                    help="steps per block (default 2000)")
    ap.add_argument("--warmup", type=int, default=50,
                    help="untimed steps of each variant first (default 50)")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads per replica (default 1)")
    ap.add_argument("--lr", type=float, default=0.2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true",
                    help="also print the result as one JSON line")
    args = ap.parse_args(argv)
    if min(args.rounds, args.steps, args.threads) < 1 or args.accum < 0 \
            or args.warmup < 0:
        ap.error("rounds, steps, threads >= 1; accum, warmup >= 0")

    import torch
    import torch.multiprocessing as mp
    world = 2
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    # The OS's free port: other clusters and tests run on this host.
    port = _free_ports(1)[0]
    started = time.time()
    procs = [ctx.Process(target=replica, args=(r, world, port, args, out))
             for r in range(world)]
    for p in procs:
        p.start()
    res = {}
    try:
        while len(res) < world:
            rank, status, val = out.get(timeout=600)
            if status == "failed":
                print("replica %d failed:\n%s" % (rank, val),
                      file=sys.stderr)
                return 1
            res[rank] = val
    finally:
        for p in procs:
            p.join(30)
            if p.is_alive():
                p.terminate()
    wall = time.time() - started
    r0 = res[0]
    blocks = r0["blocks"]
    med = {v: statistics.median(b) for v, b in blocks.items()}
    paired = {v: statistics.median(
        w / p for w, p in zip(blocks[v], blocks["plain"]))
        for v in ("hook", "stats")}

    print("gradient_stats_cost: %s, %s, Python %s, torch %s, %d CPUs, "
          "load average %.2f at the end, %s"
          % (platform.node(), platform.machine(),
             platform.python_version(), torch.__version__,
             os.cpu_count(), os.getloadavg()[0],
             time.strftime("%Y-%m-%d %H:%M %Z")))
    print("parameters: 2 replicas (gloo, CPU), MLP 64-%d-10 (%d parameters),"
          " global batch %d (%d per replica) x %d micro-step(s), "
          "stats every %d steps, %d rounds x %d steps per variant "
          "(+%d warm-up), %d thread(s) per replica"
          % (args.hidden, r0["nparams"], r0["local_batch"] * world,
             r0["local_batch"], args.accum + 1, args.stats_every,
             args.rounds, args.steps, args.warmup, args.threads))
    print("block mean step time (ms), rank 0, by round:")
    for v in VARIANTS:
        print("  %-5s %s" % (v, " ".join("%.4f" % (1e3 * t)
                                         for t in blocks[v])))
    print("median over rounds (ms): plain %.4f, hook %.4f, stats %.4f"
          % tuple(1e3 * med[v] for v in VARIANTS))
    print("median single step (ms): plain %.4f, hook %.4f, stats %.4f"
          % tuple(1e3 * r0["step_median"][v] for v in VARIANTS))
    print("overhead stats/plain: %.3f (median of paired rounds; ratio of "
          "medians %.3f)" % (paired["stats"], med["stats"] / med["plain"]))
    print("overhead hook/plain:  %.3f (median of paired rounds; ratio of "
          "medians %.3f)" % (paired["hook"], med["hook"] / med["plain"]))
    print("stats/hook: %.3f (ratio of medians: the statistics beyond a "
          "Python hook)" % (med["stats"] / med["hook"]))
    print("estimates reported by rank 0: %s (last grad_sqr %s, trace %s); "
          "wall %.1f s" % (r0["estimates"], r0["grad_sqr"], r0["trace"],
                           wall))
    if args.json:
        print(json.dumps(dict(
            params=vars(args), nparams=r0["nparams"], blocks=blocks,
            median=med, step_median=r0["step_median"],
            ratio_stats=paired["stats"], ratio_hook=paired["hook"],
            estimates=r0["estimates"], wall=wall)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

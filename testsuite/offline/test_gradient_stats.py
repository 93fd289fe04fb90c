# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""The Python module's gradient statistics: the
estimator recovers |G|^2 and tr(Sigma) from gradients of two batch sizes,
GradientStats measures across the replicas of a real DDP group (gloo, 2
processes on this machine) exactly what each replica's own gradient and
the all-reduced one say, and lr_scale is AdaScale's gain. Needs no
cluster; the DDP part needs python3-torch."""
import importlib.util
import math
import os
import random
import sys

import pytest

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(TOP, "python"))
sys.path.insert(0, os.path.join(TOP, "examples"))
import optimus_report as opr  # noqa: E402
from optimus_task import _free_ports  # noqa: E402

HAVE_TORCH = importlib.util.find_spec("torch") is not None


def test_estimator_recovers_known_statistics():
    """Gradients drawn as G + noise of covariance s^2 I / b: the estimates
    over many draws approach |G|^2 and tr(Sigma) = d s^2."""
    rng = random.Random(7)
    d, s, b, w = 20, 3.0, 8, 4
    G = [rng.uniform(-1, 1) for _ in range(d)]
    small = big = 0.0
    n = 4000
    for _ in range(n):
        reps = [[g + rng.gauss(0, s / math.sqrt(b)) for g in G]
                for _ in range(w)]
        small += sum(sum(x * x for x in r) for r in reps) / w
        avg = [sum(r[i] for r in reps) / w for i in range(d)]
        big += sum(x * x for x in avg)
    sqr, trace = opr.gradient_estimates(small / n, big / n, b, b * w)
    true_sqr = sum(g * g for g in G)
    assert abs(sqr - true_sqr) < 0.1 * true_sqr + 0.5, (sqr, true_sqr)
    assert abs(trace - d * s * s) < 0.05 * d * s * s, (trace, d * s * s)
    with pytest.raises(ValueError):
        opr.gradient_estimates(1.0, 1.0, 8, 8)
    # a noisy window: never a negative estimate
    assert opr.gradient_estimates(1.0, 2.0, 4, 8)[1] == 0.0


def test_lr_scale_rules():
    assert opr.lr_scale(64, 32, "linear") == 2.0
    assert opr.lr_scale(128, 32, "sqrt") == 2.0
    # no statistics yet: the square-root rule
    assert opr.lr_scale(128, 32) == 2.0
    # AdaScale: all noise -> s, no noise -> 1, var = sqr at B0 -> 2s/(s+1)
    assert opr.lr_scale(128, 32, "adascale", 0.0, 32.0) == pytest.approx(4)
    assert opr.lr_scale(128, 32, "adascale", 1.0, 0.0) == pytest.approx(1)
    assert opr.lr_scale(128, 32, "adascale", 1.0, 32.0) == \
        pytest.approx(8 / 5)
    with pytest.raises(ValueError):
        opr.lr_scale(64, 32, "cubic", 1.0, 1.0)


def test_batch_env():
    assert opr.batch_env({}) is None
    p = opr.batch_env({"OPTIMUS_GLOBAL_BATCH": "96",
                       "OPTIMUS_LOCAL_BATCH": "12",
                       "OPTIMUS_ACCUM_STEPS": "1"})
    assert (p.global_batch, p.local_batch, p.accum_steps, p.micro_steps) \
        == (96, 12, 1, 2)


def _replica(run, rank, world, port, out):
    """One spawned replica: (rank, "ok", run(rank, world, port)) on the
    queue. A replica that fails says why, (rank, "failed", traceback):
    else the test only sees its queue stay empty for two minutes (CI run
    14, debian12 lane)."""
    try:
        out.put((rank, "ok", run(rank, world, port)))
    except BaseException:
        import traceback
        out.put((rank, "failed", traceback.format_exc()))
        raise


def _destroy_process_group():
    """destroy_process_group once the caller has dropped its
    DistributedDataParallel objects. Else (torch 1.13) the last reference
    to the gloo process group may go with a DDP's reducer, whose
    destructor holds the GIL while the group's waits for its worker
    threads, and a worker dropping the tensor of a finished collective
    that Python code touched (a hook's bucket, a stats all-reduce) waits
    for the GIL: a deadlock, 1 run in 6 here (gdb: ~Reducer ->
    ~ProcessGroupGloo on the main thread, runLoop -> ~TensorImpl ->
    PyEval_AcquireThread on a worker)."""
    import gc
    import torch.distributed as dist
    gc.collect()
    dist.destroy_process_group()


def _stats_against_own_gradients(rank, world, port):
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                      USE_LIBUV="0", GLOO_SOCKET_IFNAME="lo")
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    net = torch.nn.Linear(6, 3)
    ddp = DistributedDataParallel(net)
    sent = []

    class Rep:
        def gradients(self, *a):
            sent.append(a)
    stats = opr.GradientStats(ddp, Rep(), every=3)
    gen = torch.Generator().manual_seed(100 + rank)
    small = big = 0.0
    for _ in range(3):
        x = torch.randn(5, 6, generator=gen)
        y = torch.randint(0, 3, (5,), generator=gen)
        # this replica's own gradient, computed apart
        net.zero_grad()
        torch.nn.functional.cross_entropy(net(x), y).backward()
        own = sum(float(p.grad.double().pow(2).sum())
                  for p in net.parameters())
        ddp.zero_grad()
        torch.nn.functional.cross_entropy(ddp(x), y).backward()
        big += sum(float(p.grad.double().pow(2).sum())
                   for p in net.parameters())
        t = torch.tensor([own], dtype=torch.float64)
        dist.all_reduce(t)
        small += float(t[0]) / world
        stats.step(5)
    del ddp
    _destroy_process_group()
    return stats.grad_sqr, stats.trace, stats.var_batch, small / 3, \
        big / 3, sent


def _run_replicas(run, timeout):
    """run(rank, 2, port) in 2 spawned processes on a free port (run: a
    module-level function, spawn pickles it): (rank, "ok", its result),
    sorted by rank; a replica that fails stops both (the
    other may wait for it for ever) and fails the test with its
    traceback."""
    import torch.multiprocessing as mp
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    # The OS's free port, not one derived from the pid: another lane's
    # test clusters run on this host at the same time.
    port = _free_ports(1)[0]
    procs = [ctx.Process(target=_replica, args=(run, r, 2, port, out))
             for r in range(2)]
    for p in procs:
        p.start()
    res = []
    while len(res) < len(procs):
        r = out.get(timeout=timeout)
        if r[1] == "failed":
            for p in procs:
                p.terminate()
            pytest.fail("replica %d failed:\n%s" % (r[0], r[2]))
        res.append(r)
    res.sort()
    for p in procs:
        p.join(60)
    return res


@pytest.mark.skipif(not HAVE_TORCH, reason="python3-torch is not installed")
def test_ddp_stats_match_the_replicas_gradients():
    res = _run_replicas(_stats_against_own_gradients, 120)
    for rank, _, (sqr, trace, vb, small, big, sent) in res:
        want = opr.gradient_estimates(small, big, 5, 10)
        assert sqr == pytest.approx(want[0], rel=1e-6, abs=1e-12)
        assert trace == pytest.approx(want[1], rel=1e-6, abs=1e-12)
        assert vb == 10
        # rank 0 reports grad_var = tr(Sigma) / var_batch, once
        if rank == 0:
            assert sent == [(sqr, trace / 10, 10)]
        else:
            assert sent == []


class _Float64CopyStats:
    """GradientStats' estimator as first written (commit af868f3): each
    bucket's sum of squares from a float64 copy of it, before and after
    the all-reduce, summed on the host after every update. What it
    estimates is the specification; how cheaply is GradientStats' own."""

    def __init__(self, ddp, every):
        import torch.distributed as dist
        self._dist = dist
        self.world = dist.get_world_size()
        self.every = every
        self.estimates = []
        self._small = self._big = self._examples = 0.0
        self._steps = 0
        self._local, self._reduced = [], []
        self.buckets = set()    # (index, size) of the buckets seen
        ddp.register_comm_hook(None, self._hook)

    def _hook(self, state, bucket):
        buf = bucket.buffer()
        self.buckets.add((bucket.index(), buf.numel()))
        self._local.append(buf.detach().double().pow(2).sum())
        buf.div_(self.world)
        fut = self._dist.all_reduce(buf, async_op=True).get_future()

        def done(f):
            out = f.value()[0]
            self._reduced.append(out.detach().double().pow(2).sum())
            return out
        return fut.then(done)

    def step(self, examples):
        import torch
        if self._local:
            self._small += float(sum(self._local))
            self._big += float(sum(self._reduced))
            self._examples += float(examples)
            self._steps += 1
        self._local, self._reduced = [], []
        if self._steps < self.every:
            return False
        sums = torch.tensor([self._small, self._examples],
                            dtype=torch.float64)
        self._dist.all_reduce(sums)
        n = self._steps
        small = float(sums[0]) / self.world / n
        b = float(sums[1]) / self.world / n
        big = self._big / n
        self._small = self._big = self._examples = 0.0
        self._steps = 0
        sqr, trace = opr.gradient_estimates(small, big, b, b * self.world)
        self.estimates.append((sqr, trace / (b * self.world),
                               b * self.world))
        return True


def _same_as_float64_copies(rank, world, port):
    """Two copies of one model from one seed, trained in lockstep on the
    same batches: one measured by GradientStats, one by _Float64CopyStats.
    The model (64-4096-64-10) in 1 MB buckets: two buckets of over
    262,144 values each, more than a chunk GradientStats may cut a
    bucket into (the first test has a bucket of 21). One micro-step
    under no_sync before each all-reduced one, a batch size that changes
    from update to update, 3 windows of 3 updates."""
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                      USE_LIBUV="0", GLOO_SOCKET_IFNAME="lo")
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.set_num_threads(1)

    def model():
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(64, 4096),
                                  torch.nn.Tanh(),
                                  torch.nn.Linear(4096, 64),
                                  torch.nn.Tanh(),
                                  torch.nn.Linear(64, 10))
        ddp = DistributedDataParallel(net, bucket_cap_mb=1)
        return ddp, torch.optim.SGD(ddp.parameters(), lr=0.1)

    sent = []

    class Rep:
        def gradients(self, *a):
            sent.append(a)
    new_ddp, new_opt = model()
    new = opr.GradientStats(new_ddp, Rep() if rank == 0 else None, every=3)
    old_ddp, old_opt = model()
    old = _Float64CopyStats(old_ddp, every=3)
    gen = torch.Generator().manual_seed(100 + rank)
    got = []
    for step in range(9):
        b = 4 + step % 3
        batches = [(torch.randn(b, 64, generator=gen),
                    torch.randint(0, 10, (b,), generator=gen))
                   for _ in range(2)]
        for ddp, opt, stats in ((new_ddp, new_opt, new),
                                (old_ddp, old_opt, old)):
            opt.zero_grad()
            for i, (x, y) in enumerate(batches):
                loss = torch.nn.functional.cross_entropy(ddp(x), y) / 2
                if i == 0:
                    with ddp.no_sync():
                        loss.backward()
                else:
                    loss.backward()
            opt.step()
            if stats.step(2 * b) and stats is new:
                got.append((new.grad_sqr, new.trace / new.var_batch,
                            new.var_batch))
    del new_ddp, old_ddp
    _destroy_process_group()
    return got, old.estimates, sent, sorted(old.buckets)


@pytest.mark.skipif(not HAVE_TORCH, reason="python3-torch is not installed")
def test_ddp_stats_same_as_float64_copies():
    """GradientStats estimates what it first did (float64 copies of every
    bucket, summed on the host every update) to 1e-12 (it differs by
    ~2e-15): squared and summed in float64 (float32 squares summed in
    float64 differ by 2e-10, a float32 torch.dot by 1e-4), every bucket,
    every window, the micro-steps under no_sync left out."""
    res = _run_replicas(_same_as_float64_copies, 180)
    for rank, _, (got, want, sent, buckets) in res:
        assert len(buckets) >= 2 and min(n for _, n in buckets) > 1 << 16
        assert len(got) == len(want) == 3
        for g, w in zip(got, want):
            assert g[0] == pytest.approx(w[0], rel=1e-12, abs=1e-15)
            assert g[1] == pytest.approx(w[1], rel=1e-12, abs=1e-15)
            assert g[2] == w[2]
            assert w[0] > 0 and w[1] > 0
        assert sent == (got if rank == 0 else [])


@pytest.mark.skipif(not HAVE_TORCH, reason="python3-torch is not installed")
def test_sqr_sum_in_float64_by_chunks():
    """_sqr_sum, through a scratch (CPU) or a temporary per chunk (other
    devices, taken here on a CPU), is the sum of the float64 squares
    whatever the size against the chunk: one short, exact, one over,
    several, none."""
    import torch
    gen = torch.Generator().manual_seed(3)
    scratch = torch.empty(7, dtype=torch.float64)
    for n in (0, 1, 6, 7, 8, 23, 1000):
        buf = torch.randn(n, generator=gen) * 1e3
        want = buf.double().pow(2).sum()
        for got in (opr._sqr_sum(buf, 7, scratch), opr._sqr_sum(buf, 7),
                    opr._sqr_sum(buf)):
            assert got.dtype == torch.float64 and got.dim() == 0
            assert float(got) == pytest.approx(float(want), rel=1e-14,
                                               abs=0)
    # the bucket is left as it was
    buf = torch.arange(10, dtype=torch.float32)
    opr._sqr_sum(buf, 4, scratch)
    assert buf.tolist() == list(range(10))
    assert float(opr._sqr_sum(buf, 4, scratch)) == 285.0

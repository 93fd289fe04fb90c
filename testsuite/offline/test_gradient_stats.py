"""The Python module's gradient statistics (issue 28 item 4): the
estimator recovers |G|^2 and tr(Sigma) from gradients of two batch sizes,
GradientStats measures across the replicas of a real DDP group (gloo, 2
processes on this machine) exactly what each replica's own gradient and
the all-reduced one say, and lr_scale is AdaScale's gain. Needs no
cluster; the DDP part needs python3-torch."""
import importlib.util
import math
import os
import random
import socket
import sys

import pytest

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(TOP, "python"))
import optimus_report as opr  # noqa: E402

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


def _replica(rank, world, port, out):
    # A replica that fails says why: else the test only sees its queue
    # stay empty for two minutes (CI run 14, debian12 lane).
    try:
        _replica_run(rank, world, port, out)
    except BaseException:
        import traceback
        out.put((rank, "failed", traceback.format_exc()))
        raise


def _free_port():
    # The OS's free port, not one derived from the pid: another lane's
    # test clusters run on this host at the same time.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _replica_run(rank, world, port, out):
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
    out.put((rank, stats.grad_sqr, stats.trace, stats.var_batch,
             small / 3, big / 3, sent))
    dist.destroy_process_group()


@pytest.mark.skipif(not HAVE_TORCH, reason="python3-torch is not installed")
def test_ddp_stats_match_the_replicas_gradients():
    import torch.multiprocessing as mp
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    port = _free_port()
    procs = [ctx.Process(target=_replica, args=(r, 2, port, out))
             for r in range(2)]
    for p in procs:
        p.start()
    res = []
    while len(res) < len(procs):
        r = out.get(timeout=120)
        if r[1] == "failed":
            # The other replica may wait for it for ever: stop both.
            for p in procs:
                p.terminate()
            pytest.fail("replica %d failed:\n%s" % (r[0], r[2]))
        res.append(r)
    res.sort()
    for p in procs:
        p.join(60)
    for rank, sqr, trace, vb, small, big, sent in res:
        want = opr.gradient_estimates(small, big, 5, 10)
        assert sqr == pytest.approx(want[0], rel=1e-6, abs=1e-12)
        assert trace == pytest.approx(want[1], rel=1e-6, abs=1e-12)
        assert vb == 10
        # rank 0 reports grad_var = tr(Sigma) / var_batch, once
        if rank == 0:
            assert sent == [(sqr, trace / 10, 10)]
        else:
            assert sent == []

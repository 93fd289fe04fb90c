# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""What the example trainers share: data, model, checkpoints, reports.

- The data: scikit-learn's handwritten digits (1797 8x8 images, 10
  classes, shipped inside Debian's python3-sklearn), shuffled once with a
  fixed seed; worker i of w trains on samples i, i+w, i+2w, ...
- The model: a one-hidden-layer MLP (64 -> H tanh -> 10 softmax) whose
  parameters are one flat float64 vector, so that parameter servers hold
  contiguous slices of it and any number of them can share it.
- Checkpoints: the flat vector and the global step in one .npz file,
  written to a temporary name and renamed, so a reader sees the old
  checkpoint or the new one, never half of one.
- Reports: progress and speed go to sched/optimus through
  python/optimus_report.py from a background thread; a slow or missing
  listener delays nothing and its errors never stop training.
"""

import json
import os
import queue
import signal
import sys
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CKPT_NAME = "model.npz"


def log(msg):
    print("[%s %s] %s" % (time.strftime("%H:%M:%S"),
                          os.environ.get("OPTIMUS_ROLE", "-") + os.environ.get(
                              "OPTIMUS_RANK", ""), msg),
          file=sys.stderr, flush=True)


# ------------------------------------------------------------------- data
def _digits_raw():
    """scikit-learn's digits as (data, target), read from the file that
    sklearn.datasets.load_digits() reads (importing sklearn.datasets alone
    takes seconds, and every task of every run pays it)."""
    import importlib.util
    spec = importlib.util.find_spec("sklearn")
    if spec and spec.submodule_search_locations:
        path = os.path.join(list(spec.submodule_search_locations)[0],
                            "datasets", "data", "digits.csv.gz")
        if os.path.isfile(path):
            raw = np.loadtxt(path, delimiter=",")
            return raw[:, :-1], raw[:, -1]
    from sklearn.datasets import load_digits as sk_digits
    d = sk_digits()
    return d.data, d.target


def load_digits():
    """(X, y): features scaled to [0, 1], in a fixed shuffled order."""
    data, target = _digits_raw()
    order = np.random.RandomState(1234).permutation(len(target))
    return data[order] / 16.0, target[order].astype(np.int64)


def shard(X, y, index, count):
    """Worker `index` of `count`: every count-th sample from index."""
    if not 0 <= index < count:
        raise ValueError("shard %d of %d" % (index, count))
    return X[index::count], y[index::count]


# ------------------------------------------------------------------ model
class MLP:
    """64 -> hidden (tanh) -> 10 (softmax), parameters as one flat vector."""

    def __init__(self, n_in=64, hidden=32, n_out=10):
        self.shapes = [(n_in, hidden), (hidden,), (hidden, n_out), (n_out,)]
        self.size = sum(int(np.prod(s)) for s in self.shapes)
        self.hidden = hidden

    def init(self, seed=0):
        rng = np.random.RandomState(seed)
        parts = []
        for s in self.shapes:
            scale = 1.0 / np.sqrt(s[0]) if len(s) == 2 else 0.0
            parts.append((rng.randn(*s) * scale).ravel())
        return np.concatenate(parts)

    def unpack(self, theta):
        out, at = [], 0
        for s in self.shapes:
            n = int(np.prod(s))
            out.append(theta[at:at + n].reshape(s))
            at += n
        return out

    def loss(self, theta, X, y):
        return self.loss_grad(theta, X, y, want_grad=False)[0]

    def loss_grad(self, theta, X, y, want_grad=True):
        """Mean cross-entropy on (X, y) and its gradient (flat)."""
        W1, b1, W2, b2 = self.unpack(theta)
        h = np.tanh(X @ W1 + b1)
        z = h @ W2 + b2
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        n = len(y)
        loss = float(-np.log(p[np.arange(n), y] + 1e-12).mean())
        if not want_grad:
            return loss, None
        dz = p
        dz[np.arange(n), y] -= 1.0
        dz /= n
        gW2 = h.T @ dz
        gb2 = dz.sum(axis=0)
        dh = (dz @ W2.T) * (1.0 - h * h)
        gW1 = X.T @ dh
        gb1 = dh.sum(axis=0)
        return loss, np.concatenate([g.ravel() for g in (gW1, gb1, gW2, gb2)])


def slices(size, parts):
    """[(lo, hi)] of `parts` contiguous, nearly equal slices of range(size)."""
    bounds = np.linspace(0, size, parts + 1).round().astype(int)
    return [(int(bounds[i]), int(bounds[i + 1])) for i in range(parts)]


# ------------------------------------------------------------ checkpoints
def ckpt_path(ckpt_dir):
    return os.path.join(ckpt_dir, CKPT_NAME)


def ckpt_save(ckpt_dir, theta, step, **meta):
    """Write theta and step atomically (tmp + fsync + rename), with the
    identity of the job writing it (optimus_report.job_identity())."""
    os.makedirs(ckpt_dir, exist_ok=True)
    final = ckpt_path(ckpt_dir)
    tmp = "%s.tmp.%d" % (final, os.getpid())
    ident = _import_reporter().job_identity()
    if ident is not None:
        meta["identity"] = json.dumps(ident, sort_keys=True)
    with open(tmp, "wb") as f:
        np.savez(f, theta=theta, step=np.int64(step),
                 saved=np.float64(time.time()),
                 **{k: np.asarray(v) for k, v in meta.items()})
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, final)
    return final


def ckpt_load(ckpt_dir):
    """(theta, step, meta dict) of the checkpoint, or None when there is
    none, or when this job did not write it: a job id repeats on a new
    cluster (and wraps), so a checkpoint of another job can sit where this
    one looks (optimus_report.resume_refusal says why, and it is logged)."""
    if not ckpt_dir:
        return None
    path = ckpt_path(ckpt_dir)
    try:
        with np.load(path) as z:
            meta = {k: z[k].item() for k in z.files if k not in ("theta", "step")}
            theta, step = z["theta"].copy(), int(z["step"])
    except FileNotFoundError:
        return None
    try:
        recorded = json.loads(meta.pop("identity"))
    except (KeyError, ValueError):
        recorded = None
    why = _import_reporter().resume_refusal(recorded)
    if why:
        log("not resuming from %s: %s; starting from step 0" % (path, why))
        return None
    return theta, step, meta


# ------------------------------------------------------- checkpoint signal
class CkptSignal:
    """The scheduler's checkpoint signal: call `on_signal` and then pause.

    After a checkpoint the job is about to be requeued with a new size, so
    the task waits to be killed instead of training on (work after the
    checkpoint would be lost) or exiting (the job would complete). If no
    kill comes within `resume_after` seconds, training goes on.

    The handler only counts: a Python handler can run inside a print()
    (the flush of sys.stderr checks for signals), where printing again
    raises "reentrant call inside BufferedWriter" and kills the task, and
    in the middle of an update, where a checkpoint would save half of it.
    The training loop logs and saves in acknowledge(), between two steps.
    """

    def __init__(self, signum=signal.SIGUSR1, on_signal=None, resume_after=180):
        self.signum = signum
        self.on_signal = on_signal
        self.resume_after = resume_after
        self.paused_at = None
        self.count = 0          # signals received (the handler's only write)
        self.acknowledged = 0   # of those, the ones the loop has handled
        signal.signal(signum, self._handler)

    def _handler(self, signum, frame):
        self.count += 1
        self.paused_at = time.time()

    @property
    def pending(self):
        return self.paused_at is not None

    def acknowledge(self):
        """In the training loop: log the signals that came and call
        `on_signal` once for them. True if there were any."""
        count = self.count
        if count == self.acknowledged:
            return False
        log("checkpoint signal %d received%s" % (
            self.signum, "" if count - self.acknowledged == 1
            else " (%d times)" % (count - self.acknowledged)))
        self.acknowledged = count
        if self.on_signal:
            try:
                self.on_signal()
            except Exception as e:  # a failed save must not kill the task
                log("checkpoint failed: %s" % e)
        return True

    def pause(self):
        """Pause as if the signal had come (another task received it)."""
        if self.paused_at is None:
            self.paused_at = time.time()

    def wait_if_paused(self):
        """Acknowledge the signals, then block while paused; True if we
        paused (and then resumed)."""
        self.acknowledge()
        if self.paused_at is None:
            return False
        log("paused after the checkpoint, waiting to be requeued")
        while time.time() - self.paused_at < self.resume_after:
            time.sleep(0.2)
        log("no requeue within %ds: training on" % self.resume_after)
        self.paused_at = None
        return True


# ------------------------------------------------------------------ reports
def _import_reporter():
    for d in (os.environ.get("OPTIMUS_PYTHONPATH"),
              os.path.join(os.path.dirname(HERE), "python")):
        if d and d not in sys.path and os.path.isfile(
                os.path.join(d, "optimus_report.py")):
            sys.path.insert(0, d)
    import optimus_report
    return optimus_report


class BackgroundReporter:
    """Sends progress/speed reports from a thread; drops them when behind."""

    def __init__(self, enabled=True):
        self.sent = self.failed = self.dropped = 0
        # The batch change the latest reply brought and the training
        # loop has not taken (optimus_report.Rebatch), or None.
        self.rebatch = None
        self._q = queue.Queue(maxsize=32)
        self._enabled = enabled and os.environ.get("SLURM_JOB_ID") is not None
        self._last_error = 0.0
        if self._enabled:
            threading.Thread(target=self._run, daemon=True).start()

    def progress(self, step, loss, samples_per_sec, epoch, batch=None,
                 rebatch_seconds=None, sync_seconds=None):
        """batch: the global batch the run trains at, said by a trainer
        that takes batch changes in place (take_rebatch); sync_seconds:
        the all-reduce part of its steps (optimus_report.SyncTimer)."""
        self._put(("progress", (step, loss), dict(
            samples_per_sec=samples_per_sec, epoch=epoch, batch=batch,
            rebatch_seconds=rebatch_seconds, sync_seconds=sync_seconds)))

    def take_rebatch(self):
        """The batch change a reply brought, not taken yet, or None."""
        change, self.rebatch = self.rebatch, None
        return change

    def speed(self, ps, workers, steps_per_sec, local_batch=None, accum=None,
              sync_seconds=None):
        self._put(("speed", (ps, workers, steps_per_sec),
                   dict(local_batch=local_batch, accum=accum,
                        sync_seconds=sync_seconds)))

    def checkpoint(self, step):
        """Confirm the checkpoint the signal asked for: the scheduler can
        requeue the job at once instead of waiting out the grace period."""
        self._put(("checkpoint", (step,), {}))

    def gradients(self, grad_sqr, grad_var, var_batch):
        """Gradient statistics (optimus_report.GradientStats sends them
        here from rank 0)."""
        self._put(("gradients", (grad_sqr, grad_var, var_batch), {}))

    def pace(self, seconds, rank, every=10.0, node=None, key=None):
        """A worker's own time for one step (compute only, without the
        wait for the others; or, from a PS, the time its gradient took to
        arrive), for straggler detection: the mean since the last report
        goes out at most every `every` seconds (per key: a PS keeps one
        per worker)."""
        paces = self.__dict__.setdefault("_pace", {})
        acc = paces.setdefault(key, [0.0, 0, time.time()])
        acc[0] += seconds
        acc[1] += 1
        if time.time() - acc[2] >= every:
            self._put(("worker", (acc[0] / acc[1],),
                       dict(rank=rank, node=node or None)))
            acc[:] = [0.0, 0, time.time()]

    def _put(self, item):
        if not self._enabled:
            return
        try:
            self._q.put_nowait(item)
        except queue.Full:
            self.dropped += 1

    def flush(self, timeout=5.0):
        """Wait (at most timeout s) until the queued reports are sent: the
        last point matters to the scheduler, and the thread dies with us."""
        deadline = time.time() + timeout
        while self._enabled and self._q.unfinished_tasks and \
                time.time() < deadline:
            time.sleep(0.05)

    def _run(self):
        rep = None
        while True:
            kind, args, kw = self._q.get()
            rep = self._send(rep, kind, args, kw)
            self._q.task_done()

    def _send(self, rep, kind, args, kw):
        """Send one report; the reporter to use next (None after an error)."""
        try:
            if rep is None:
                rep = _import_reporter().Reporter()
            getattr(rep, kind)(*args, **kw)
            self.sent += 1
            change = rep.take_rebatch()
            if change is not None:
                self.rebatch = change   # one assignment: the loop reads it
            return rep
        except Exception as e:  # never let reporting stop training
            self.failed += 1
            if rep is not None:
                rep.close()
            if time.time() - self._last_error > 30:
                self._last_error = time.time()
                log("report failed (training goes on): %s" % e)
            return None

"""Report training progress and speed to the sched/optimus scheduler.

Standard library only, plus libmunge (libmunge.so.2, Debian package
libmunge2) through ctypes for the credential. Use from a training loop:

    import optimus_report as opr
    rep = opr.Reporter()              # job id from $SLURM_JOB_ID
    for step, loss in train():
        if step % 100 == 0:
            rep.progress(step, loss, samples_per_sec=sps, epoch=epoch)
    rep.speed(ps=1, workers=4, steps_per_sec=3.2)

Errors raise ReportError (code, message); a reporter that must never stop
training should catch it. See doc/reports.md for the protocol: a frame is a
4-byte big-endian length and JSON {"payload": <message text>, "cred":
<munge credential of exactly that text>}.

Install: copy this file into a folder on sys.path (`make install` puts it
in $(pythondir)), or set PYTHONPATH to the source tree's python/ folder.
"""

import ctypes
import ctypes.util
import json
import os
import socket
import struct
import time

__all__ = ["Reporter", "ReportError", "WorkerPace", "query", "endpoint", "sign", "frame"]

MAX_FRAME = 64 * 1024
DEFAULT_PORT = 6830
DEFAULT_ADDRESS = "127.0.0.1"
_MUNGE_OPT_SOCKET = 8


class ReportError(Exception):
    """The listener refused a request, or could not be reached."""

    def __init__(self, code, message):
        super().__init__("%s: %s" % (code, message))
        self.code = code
        self.message = message


def _conf_lookup(path, key):
    """Value of KEY=VALUE in a Slurm-style file (case-insensitive key)."""
    value = None
    try:
        with open(path) as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                k, sep, v = line.partition("=")
                if sep and k.strip().lower() == key.lower():
                    value = v.strip().split()[0] if v.strip() else ""
    except OSError:
        return None
    return value


def _slurm_conf():
    return os.environ.get("SLURM_CONF") or "/etc/slurm/slurm.conf"


def endpoint():
    """(host, port, munge_socket or None), resolved like the C client."""
    sock = os.environ.get("MUNGE_SOCKET") or None
    if not sock:
        info = _conf_lookup(_slurm_conf(), "AuthInfo") or ""
        for opt in info.split(","):
            if opt.lower().startswith("socket="):
                sock = opt[7:]
    addr = os.environ.get("OPTIMUS_REPORT_ADDR")
    if addr:
        host, _, port = addr.rpartition(":")
        return host.strip("[]"), int(port), sock
    conf = os.path.join(os.path.dirname(_slurm_conf()), "optimus.conf")
    host = _conf_lookup(conf, "ReportAddress") or DEFAULT_ADDRESS
    if host in ("0.0.0.0", "::"):
        # Bound to every address: reach it at slurmctld's host,
        # SlurmctldHost=name(addr), which is right on compute nodes too.
        ctl = _conf_lookup(_slurm_conf(), "SlurmctldHost") or DEFAULT_ADDRESS
        host = ctl.split("(", 1)[1].rstrip(")") if "(" in ctl else ctl
    port = int(_conf_lookup(conf, "ReportPort") or DEFAULT_PORT)
    return host, port, sock


_libmunge = None


def _munge():
    global _libmunge
    if _libmunge is None:
        lib = ctypes.CDLL(ctypes.util.find_library("munge") or "libmunge.so.2")
        lib.munge_ctx_create.restype = ctypes.c_void_p
        lib.munge_ctx_destroy.argtypes = [ctypes.c_void_p]
        lib.munge_ctx_strerror.restype = ctypes.c_char_p
        lib.munge_ctx_strerror.argtypes = [ctypes.c_void_p]
        lib.munge_encode.argtypes = [ctypes.POINTER(ctypes.c_char_p),
                                     ctypes.c_void_p, ctypes.c_char_p,
                                     ctypes.c_int]
        _libmunge = lib
    return _libmunge


def sign(data, munge_socket=None):
    """A munge credential (str) whose payload is `data` (bytes)."""
    lib = _munge()
    libc = ctypes.CDLL(None)
    ctx = lib.munge_ctx_create()
    if not ctx:
        raise ReportError("unavailable", "munge_ctx_create failed")
    try:
        if munge_socket and lib.munge_ctx_set(
                ctypes.c_void_p(ctx), ctypes.c_int(_MUNGE_OPT_SOCKET),
                ctypes.c_char_p(munge_socket.encode())) != 0:
            raise ReportError("unavailable", "munge socket %s: %s" % (
                munge_socket, lib.munge_ctx_strerror(ctx).decode()))
        cred = ctypes.c_char_p()
        if lib.munge_encode(ctypes.byref(cred), ctx, data, len(data)) != 0:
            raise ReportError("unavailable", "munge_encode: %s"
                              % lib.munge_ctx_strerror(ctx).decode())
        value = cred.value.decode()
        libc.free(ctypes.cast(cred, ctypes.c_void_p))
        return value
    finally:
        lib.munge_ctx_destroy(ctx)


def message(kind, **fields):
    """The payload text of a message (a fresh nonce and the current time)."""
    msg = {"v": 1, "type": kind, "nonce": os.urandom(8).hex(),
           "time": int(time.time())}
    msg.update({k: v for k, v in fields.items() if v is not None})
    return json.dumps(msg, separators=(",", ":"))


def frame(payload, cred):
    """The frame bytes (header + envelope) for a payload and credential."""
    body = json.dumps({"payload": payload, "cred": cred},
                      separators=(",", ":")).encode()
    return struct.pack(">I", len(body)) + body


def _recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ReportError("unavailable", "listener closed the connection")
        buf += chunk
    return buf


def read_reply(sock):
    """The parsed reply; raises ReportError when it says ok: false."""
    (n,) = struct.unpack(">I", _recv_exact(sock, 4))
    if n == 0 or n > MAX_FRAME:
        raise ReportError("bad_reply", "reply of %d bytes" % n)
    reply = json.loads(_recv_exact(sock, n))
    if not reply.get("ok"):
        raise ReportError(reply.get("code", "error"), reply.get("error", ""))
    return reply.get("result")


class Reporter:
    """A connection to the listener, reused across reports."""

    def __init__(self, job_id=None, timeout=5.0):
        job = job_id if job_id is not None else os.environ.get("SLURM_JOB_ID")
        self.job_id = int(job) if job is not None else None
        self.timeout = timeout
        self.host, self.port, self.munge_socket = endpoint()
        self._sock = None

    def _connect(self):
        if self._sock is None:
            try:
                self._sock = socket.create_connection(
                    (self.host, self.port), timeout=self.timeout)
            except OSError as e:
                raise ReportError("unavailable", "cannot connect to %s:%d: %s"
                                  % (self.host, self.port, e))
        return self._sock

    def request(self, payload):
        """Sign and send one payload text; returns the reply's result."""
        data = frame(payload, sign(payload.encode(), self.munge_socket))
        for attempt in (0, 1):  # one reconnect if the listener dropped us
            sock = self._connect()
            try:
                sock.sendall(data)
                return read_reply(sock)
            except (OSError, ReportError) as e:
                if isinstance(e, ReportError) and e.code != "unavailable":
                    raise
                self.close()
                if attempt:
                    raise ReportError("unavailable", str(e))

    def _job(self, job_id):
        job = job_id if job_id is not None else self.job_id
        if job is None:
            raise ReportError("usage", "no job id: pass job_id or set SLURM_JOB_ID")
        return int(job)

    def progress(self, step, loss, samples_per_sec=0.0, epoch=None, job_id=None):
        """Report the training loss at a step."""
        return self.request(message("progress", job=self._job(job_id),
                                    step=int(step), loss=float(loss),
                                    sps=float(samples_per_sec),
                                    epoch=None if epoch is None else int(epoch)))

    def speed(self, ps, workers, steps_per_sec, job_id=None):
        """Report a training speed measured with ps servers and workers."""
        return self.request(message("speed", job=self._job(job_id),
                                    ps=int(ps), workers=int(workers),
                                    steps_per_sec=float(steps_per_sec)))

    def checkpoint(self, step, job_id=None):
        """Confirm that the checkpoint the checkpoint signal asked for is
        written (it holds this step): the scheduler may stop the job now."""
        return self.request(message("checkpoint", job=self._job(job_id),
                                    step=int(step)))

    def worker(self, step_time, rank=None, node=None, lag=None, job_id=None):
        """Report this worker's own seconds per step (for a synchronous job:
        the compute part, before it waits for the others) for straggler
        detection. rank defaults to $OPTIMUS_RANK (a worker's rank among
        the workers), node to $SLURMD_NODENAME. A parameter server may
        report, for a worker's rank and node, the lag with which that
        worker's gradients arrive. Prefer WorkerPace, which rate-limits."""
        rank = int(rank if rank is not None else os.environ.get("OPTIMUS_RANK", 0))
        node = node or os.environ.get("SLURMD_NODENAME") or socket.gethostname()
        return self.request(message("worker", job=self._job(job_id),
                                    rank=rank, node=node,
                                    step_time=float(step_time),
                                    lag=None if lag is None else float(lag)))

    def query(self, what="status", job_id=None):
        """Ask 'status', 'plan' or 'job' (with job_id)."""
        fields = {"query": what}
        if what == "job":
            fields["job"] = self._job(job_id)
        return self.request(message("query", **fields))

    def close(self):
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class WorkerPace:
    """Rate-limited straggler reports from one worker: call step(seconds)
    after every training step with the time that step took; at most one
    report per `interval` seconds (default $OPTIMUS_WORKER_REPORT_INTERVAL,
    else 10 s) carries the mean step time since the previous one. Reports
    that cannot be sent are dropped: training never waits for them."""

    def __init__(self, reporter=None, interval=None, rank=None, node=None):
        self.reporter = reporter or Reporter()
        env = os.environ.get("OPTIMUS_WORKER_REPORT_INTERVAL")
        self.interval = float(interval if interval is not None else env or 10.0)
        self.rank, self.node = rank, node
        self._sum, self._n = 0.0, 0
        self._last = time.monotonic()

    def step(self, seconds):
        self._sum += float(seconds)
        self._n += 1
        now = time.monotonic()
        if now - self._last < self.interval or self._n == 0:
            return False
        mean = self._sum / self._n
        self._sum, self._n, self._last = 0.0, 0, now
        try:
            self.reporter.worker(mean, rank=self.rank, node=self.node)
        except ReportError:
            return False
        return True


def query(what="status", job_id=None):
    """One-shot query: 'status', 'plan' or 'job' (with job_id)."""
    with Reporter(job_id=job_id) as r:
        return r.query(what, job_id)

# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Report training progress and speed to the sched/optimus scheduler.

Standard library only, plus libmunge (libmunge.so.2, Debian package
libmunge2) through ctypes for the credential. Use from a training loop:

    import optimus_report as opr
    rep = opr.Reporter()              # job id from $SLURM_JOB_ID
    for step, loss in train():
        if step % 100 == 0:
            rep.progress(step, loss, samples_per_sec=sps, epoch=epoch)
    rep.speed(ps=1, workers=4, steps_per_sec=3.2)

An adaptive_batch=yes trainer that takes batch changes in place says
its batch in every progress report and applies the change a reply
brings at its next step (examples/torch_trainer.py):

    rep.progress(step, loss, batch=plan.global_batch)
    change = rep.take_rebatch()       # a Rebatch, or None
    if change and change.fits(workers):
        plan = change                 # loader, micro-steps; LR x lr_scale

Errors raise ReportError (code, message); a reporter that must never stop
training should catch it. See doc/design/reports.md for the protocol: a frame is a
4-byte big-endian length and JSON {"payload": <message text>, "cred":
<munge credential of exactly that text>}.

Install: `make install` puts this file and optimus_report_consts.py (the
C client's constants, which the build writes from its headers) in
$(pythondir); or, after `make`, set PYTHONPATH to the build tree's python/
folder. The rules this module shares with the C client (where the listener
is, Slurm's configuration grammar, the run a report names, a reply's batch
change, the retries) are held to the C client's answers by
testsuite/offline/test_client_rules.py.
"""

import ctypes
import ctypes.util
import json
import math
import os
import signal
import random
import re
import socket
import struct
import threading
import time

from optimus_report_consts import (
    CONF_MAX_DEPTH, DEFAULT_ADDRESS, DEFAULT_PORT, DEFAULT_SLURM_CONF,
    HOST_MAX, LR_SCALE_MAX, LR_SCALE_MIN, MAX_ACCUM, MAX_COUNT, MAX_FRAME,
    MAX_HOSTS, MAX_REPLY, MAX_RUN, MUNGE_OPT_SOCKET, RETRY_ATTEMPTS,
    RETRY_BASE, RETRY_MAX, TIMEOUT)

__all__ = ["Reporter", "ReportError", "ConfError", "WorkerPace", "query", "endpoint",
           "endpoints", "conf_read", "conf_get", "sign", "frame",
           "job_identity", "resume_refusal", "BatchPlan", "batch_env",
           "Rebatch", "GradientStats", "SyncTimer", "gradient_estimates",
           "lr_scale"]


class ReportError(Exception):
    """The listener refused a request, or could not be reached."""

    def __init__(self, code, message):
        super().__init__("%s: %s" % (code, message))
        self.code = code
        self.message = message


# Slurm's configuration grammar, as src/common/util/conf_file.c reads it
# (both pass testsuite/data/conf_cases.json).
_KEY = re.compile(r"[A-Za-z0-9_.]+")


class ConfError(ReportError):
    """optimus.conf or slurm.conf cannot be parsed."""

    def __init__(self, message):
        super().__init__("bad_config", message)


def _strip_comment(line):
    bs = 0
    for i, c in enumerate(line):
        if c == "#" and bs % 2 == 0:
            return line[:i]
        bs = bs + 1 if c == "\\" else 0
    return line


def _continuation(line):
    """The line without its continuation backslash, or None."""
    end = len(line.rstrip())
    bs = 0
    while end > bs and line[end - 1 - bs] == "\\":
        bs += 1
    return line[:end - 1] if bs % 2 else None


def _strip_escapes(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            i += 1
        out.append(s[i])
        i += 1
    return "".join(out)


def _logical_lines(f):
    """(first line number, logical line) with comments and joins done."""
    buf, start, lineno = "", None, 0
    for raw in f:
        lineno += 1
        if start is None:
            start = lineno
        line = _strip_comment(raw)
        kept = _continuation(line)
        buf += line if kept is None else kept
        if kept is None:
            yield start, _strip_escapes(buf)
            buf, start = "", None
    if start is not None:
        yield start, _strip_escapes(buf)


def _parse_pairs(line, where):
    pairs, i, n = [], 0, len(line)
    while True:
        while i < n and line[i].isspace():
            i += 1
        if i >= n:
            return pairs
        m = _KEY.match(line, i)
        bad = ConfError("%s: parse error at \"%s\" (expected Key=Value)"
                        % (where, line[i:i + 40].rstrip("\n")))
        if not m:
            raise bad
        key, i = m.group(0), m.end()
        while i < n and line[i].isspace():
            i += 1
        if i + 1 < n and line[i] in "-*+/" and line[i + 1] == "=":
            i += 1
        if i >= n or line[i] != "=":
            raise bad
        i += 1
        while i < n and line[i].isspace():
            i += 1
        if i < n and line[i] == '"':
            end = line.find('"', i + 1)
            if end < 0:
                raise bad
            value, i = line[i + 1:end], end + 1
        else:
            start = i
            while i < n and not line[i].isspace():
                i += 1
            if i == start:
                raise bad
            value = line[start:i]
        if i < n and not line[i].isspace():
            raise bad
        pairs.append((key, value))


def conf_read(path, _state=None, _depth=0):
    """Every (key, value) of a Slurm-style file, includes read in place.
    A missing top file gives []; anything unparsable raises ConfError."""
    state = _state if _state is not None else {"cluster": ""}
    if _depth > CONF_MAX_DEPTH:
        raise ConfError("%s: Include nested more than %d deep"
                        % (path, CONF_MAX_DEPTH))
    try:
        f = open(path)
    except FileNotFoundError:
        if _depth:
            raise
        return []
    except OSError as e:
        raise ConfError("%s: %s" % (path, e.strerror))
    out = []
    with f:
        for lineno, line in _logical_lines(f):
            where = "%s line %d" % (path, lineno)
            if line[:7].lower() == "include" and line[7:8].isspace():
                words = line[7:].split()
                if len(words) != 1:
                    raise ConfError("%s: Include takes one file name" % where)
                name = words[0]
                if "%c" in name and not state["cluster"]:
                    raise ConfError("%s: Include %s needs ClusterName"
                                    % (where, name))
                name = name.replace("%c", state["cluster"].lower())
                if not name.startswith("/") and "/" in path:
                    name = os.path.join(os.path.dirname(path), name)
                try:
                    out += conf_read(name, state, _depth + 1)
                except FileNotFoundError:
                    raise ConfError("%s: Include %s: no such file"
                                    % (where, name))
                continue
            for key, value in _parse_pairs(line, where):
                if key.lower() == "clustername":
                    state["cluster"] = value
                out.append((key, value))
    return out


def conf_get(path, key):
    """The last value of key (any case) in path, or None."""
    value = None
    for k, v in conf_read(path):
        if k.lower() == key.lower():
            value = v
    return value


def _slurm_conf():
    return os.environ.get("SLURM_CONF") or DEFAULT_SLURM_CONF


def _controllers():
    """slurmctld's hosts, SlurmctldHost=name(addr), the primary first (the
    first MAX_HOSTS lines)."""
    hosts = []
    for k, v in conf_read(_slurm_conf()):
        if k.lower() in ("slurmctldhost", "controlmachine"):
            inner = re.match(r"[^(]*\(([^)]*)\)", v)
            hosts.append(inner.group(1) if inner else v)
    return hosts[:MAX_HOSTS] or [DEFAULT_ADDRESS]


def _port(text):
    """A port number 0..65535 as report_conf_port reads one (strtol: spaces
    and a sign before the digits), or None."""
    m = re.fullmatch(r"[ \t\n\v\f\r]*([+-]?[0-9]+)", text, re.ASCII)
    if not m or not 0 <= int(m.group(1)) <= 65535:
        return None
    return int(m.group(1))


def _report_addr(text):
    """(host, port) of OPTIMUS_REPORT_ADDR ("host:port", "[v6]:port"),
    as the C client reads it; ConfError when it is not one."""
    raw, _, port = text.rpartition(":")
    host = raw[1:-1] if len(raw) > 1 and raw[0] == "[" and raw[-1] == "]" \
        else raw
    number = _port(port)
    if not raw or not number or len(host.encode()) >= HOST_MAX:
        raise ConfError("OPTIMUS_REPORT_ADDR=%s is not host:port" % text)
    return host, number


def endpoints():
    """([host, ...], port, munge_socket or None), resolved like the C
    client: the hosts are tried in order."""
    sock = os.environ.get("MUNGE_SOCKET") or None
    if not sock:
        info = conf_get(_slurm_conf(), "AuthInfo") or ""
        for opt in info.split(","):
            if opt.lower().startswith("socket="):
                sock = opt[7:]
    addr = os.environ.get("OPTIMUS_REPORT_ADDR")
    if addr:
        host, port = _report_addr(addr)
        return [host], port, sock
    conf = os.path.join(os.path.dirname(_slurm_conf()), "optimus.conf")
    host = conf_get(conf, "ReportAddress")
    if host is None:
        host = DEFAULT_ADDRESS
    port = conf_get(conf, "ReportPort")
    number = DEFAULT_PORT if port is None else _port(port)
    if number is None:
        raise ConfError("%s: ReportPort=%s is not a port" % (conf, port))
    if not number:
        raise ConfError("%s: ReportPort=0 is not a port" % conf)
    # Bound to every address: reach it at slurmctld's hosts, which is
    # right on compute nodes too.
    hosts = _controllers() if host in ("0.0.0.0", "::") else [host]
    return hosts, number, sock


def endpoint():
    """(host, port, munge_socket or None): the first of endpoints()."""
    hosts, port, sock = endpoints()
    return hosts[0], port, sock


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
                ctypes.c_void_p(ctx), ctypes.c_int(MUNGE_OPT_SOCKET),
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


def run_of(job, env=None):
    """The run a report of job `job` names: this process's
    SLURM_RESTART_COUNT when it belongs to that job, else None (no run
    named; the scheduler then takes the report as any run's). The
    scheduler drops a report of a run that is not the job's current one:
    the first run of a job whose node was taken for dead reports on
    (doc/design/reports.md)."""
    env = os.environ if env is None else env
    count = env.get("SLURM_RESTART_COUNT", "")
    if env.get("SLURM_JOB_ID") != str(job) or not count.isdigit() or \
            not count.isascii() or int(count) > MAX_RUN:
        return None
    return int(count)


def message(kind, **fields):
    """The payload text of a message (a fresh nonce and the current time);
    a report names its run when the environment says (run_of)."""
    msg = {"v": 1, "type": kind, "nonce": os.urandom(8).hex(),
           "time": int(time.time())}
    if kind != "query" and "run" not in fields and "job" in fields:
        fields["run"] = run_of(fields["job"])
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
    if n == 0 or n > MAX_REPLY:
        raise ReportError("bad_reply", "reply of %d bytes" % n)
    body = _recv_exact(sock, n)
    # The reply is strict UTF-8 JSON (doc/design/reports.md); anything else is the
    # listener's fault, told as this client's own error, never as a
    # UnicodeDecodeError or JSONDecodeError from deep inside json.
    try:
        reply = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ReportError("bad_reply", "reply is not UTF-8 JSON: %s" % e)
    if not isinstance(reply, dict):
        raise ReportError("bad_reply", "reply is not a JSON object")
    if not reply.get("ok"):
        raise ReportError(reply.get("code", "error"), reply.get("error", ""))
    return reply.get("result")


class Reporter:
    """A connection to the listener, reused across reports."""

    def __init__(self, job_id=None, timeout=TIMEOUT):
        job = job_id if job_id is not None else os.environ.get("SLURM_JOB_ID")
        self.job_id = int(job) if job is not None else None
        self.timeout = timeout
        self.hosts, self.port, self.munge_socket = endpoints()
        self.host = self.hosts[0]
        self._sock = None
        self._save = None       # handle_checkpoints' save()
        self._signals = 0       # checkpoint signals received
        self._saved_for = 0     # the _signals count the last save() served
        self._unconfirmed = None  # the step of a save() not yet confirmed
        # The batch change the last reply carried (Rebatch), or None.
        self.rebatch = None

    def _connect(self):
        """A connection to the first host that answers (primary first)."""
        if self._sock is None:
            err = None
            for host in self.hosts:
                try:
                    self._sock = socket.create_connection(
                        (host, self.port), timeout=self.timeout)
                    self.host = host
                    break
                except OSError as e:
                    err = "cannot connect to %s:%d: %s" % (host, self.port, e)
            else:
                raise ReportError("unavailable", err)
        return self._sock

    def request(self, payload_or_fn):
        """Sign and send one payload; returns the reply's result. A request
        that was not delivered, or met "busy", is sent again (a fresh
        nonce when given a function building the payload) after a bounded
        backoff; other refusals raise at once."""
        delay = RETRY_BASE
        for attempt in range(RETRY_ATTEMPTS):
            payload = payload_or_fn() if callable(payload_or_fn) \
                else payload_or_fn
            data = frame(payload, sign(payload.encode(), self.munge_socket))
            try:
                sock = self._connect()
                sock.sendall(data)
                result = read_reply(sock)
                self._note_rebatch(result)
                return result
            except (OSError, ReportError) as e:
                if isinstance(e, ReportError) and \
                        e.code not in ("unavailable", "busy"):
                    raise
                self.close()
                last = e
            if attempt + 1 < RETRY_ATTEMPTS:
                time.sleep(random.uniform(delay / 2, delay))
                delay = min(2 * delay, RETRY_MAX)
        if isinstance(last, ReportError):
            raise last
        raise ReportError("unavailable", str(last))

    def _note_rebatch(self, result):
        """Keep the batch change a report's reply carries (Rebatch): the
        latest replaces any earlier one not taken yet."""
        change = Rebatch.from_reply(result)
        if change is not None:
            self.rebatch = change

    def take_rebatch(self):
        """The batch change the scheduler sent and this trainer has not
        taken yet (a Rebatch), or None; it is taken: the next call says
        None until a reply brings one again. Apply it at the next step
        (Rebatch's docstring) and say its batch in the next progress()."""
        change, self.rebatch = self.rebatch, None
        return change

    def _job(self, job_id):
        job = job_id if job_id is not None else self.job_id
        if job is None:
            raise ReportError("usage", "no job id: pass job_id or set SLURM_JOB_ID")
        return int(job)

    def handle_checkpoints(self, save, resumed_step=0):
        """Install the handler of the job's checkpoint signal
        (OPTIMUS_CKPT_SIGNAL, default SIGUSR1) for the training script.

        save() writes a checkpoint and returns the step it holds. It runs
        in the training loop, at the next progress() or
        confirm_checkpoints() after the signal, never inside the handler:
        a handler runs wherever the loop happens to be, in the middle of
        an update (the checkpoint would hold half of it) or of a print()
        (printing again there raises "reentrant call inside
        BufferedWriter" and kills the task). Signals that come before the
        loop gets there share one save(). Once the handler is in place,
        declares that this run can checkpoint, with a checkpoint report of
        resumed_step: sched/optimus signals a run (to resize or preempt
        it) only after that run's own declaration, never before, however
        long its start takes, and never again a job that resumed below the
        step it had reached. Call it at every start of the trainer: a run
        after a requeue is new processes, with no handler until then."""
        signum = int(os.environ.get("OPTIMUS_CKPT_SIGNAL", signal.SIGUSR1))
        self._save = save

        def handler(sig, frame):
            self._signals += 1   # the only thing a handler may safely do
        signal.signal(signum, handler)
        return self.checkpoint(resumed_step)

    def confirm_checkpoints(self):
        """Write the checkpoint the signal asked for (save() of
        handle_checkpoints), if one came since the last call, and confirm
        it to the scheduler (again at the next call if the report fails)."""
        signals = self._signals
        if signals != self._saved_for and self._save is not None:
            self._saved_for = signals
            self._unconfirmed = int(self._save())
        if self._unconfirmed is not None:
            self.checkpoint(self._unconfirmed)
            self._unconfirmed = None

    def progress(self, step, loss, samples_per_sec=0.0, epoch=None,
                 job_id=None, batch=None, rebatch_seconds=None,
                 sync_seconds=None):
        """Report the training loss at a step (after writing and
        confirming the checkpoint the signal asked for, if any).

        batch: the global batch the run trains at now. Say it only from
        a trainer that takes batch changes in place (take_rebatch): the
        scheduler then sends a change of batch at the job's GPUs in the
        reply to its reports instead of restarting the job, and reads
        from the batch said that the change was taken. rebatch_seconds:
        how long the change to this batch took (in the first report at
        it). sync_seconds: the all-reduce part of the run's steps as the
        trainer timed it (a step less its compute, SyncTimer); with it the
        scheduler's goodput model (adaptive_batch=yes) tells compute from
        all-reduce and predicts other GPU counts better."""
        self.confirm_checkpoints()
        job = self._job(job_id)
        return self.request(lambda: message(
            "progress", job=job, step=int(step), loss=float(loss),
            sps=float(samples_per_sec),
            epoch=None if epoch is None else int(epoch),
            batch=None if batch is None else int(batch),
            rebatch_seconds=None if batch is None or rebatch_seconds is None
            else float(rebatch_seconds),
            sync_seconds=float(sync_seconds) if sync_seconds else None))

    def speed(self, ps, workers, steps_per_sec, job_id=None,
              local_batch=None, accum=None, sync_seconds=None):
        """Report a training speed measured with ps servers and workers;
        with local_batch (and accum), measured at that per-worker batch
        and extra micro-steps instead of the run's own batch (a step time
        for the scheduler's goodput model, adaptive_batch=yes), and with
        sync_seconds the all-reduce part of that step."""
        job = self._job(job_id)
        return self.request(lambda: message(
            "speed", job=job, ps=int(ps), workers=int(workers),
            steps_per_sec=float(steps_per_sec),
            local_batch=None if local_batch is None else int(local_batch),
            accum=None if local_batch is None else int(accum or 0),
            sync_seconds=float(sync_seconds)
            if local_batch is not None and sync_seconds else None))

    def checkpoint(self, step, job_id=None):
        """Confirm that the checkpoint the checkpoint signal asked for is
        written (it holds this step): the scheduler may stop the job now.
        At a run's start, once the handler is in place, the same report
        with the step resumed from declares that the run can checkpoint
        (handle_checkpoints does it)."""
        job = self._job(job_id)
        return self.request(lambda: message("checkpoint", job=job,
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

    def gradients(self, grad_sqr, grad_var, var_batch, job_id=None,
                  estimates=1):
        """Report the job's gradient statistics: the squared norm of its
        gradient, the variance of a gradient averaged over var_batch
        examples (GradientStats measures both in a DDP job); `estimates`:
        how many estimates of these same values the report stands for (a
        trainer that estimates every few steps may send a run of equal
        ones at once). The listener refuses a value out of range
        (doc/design/reports.md) with the reason."""
        job = self._job(job_id)
        extra = {} if estimates == 1 else {"estimates": int(estimates)}
        return self.request(lambda: message(
            "gradients", job=job, grad_sqr=float(grad_sqr),
            grad_var=float(grad_var), var_batch=float(var_batch), **extra))

    def query(self, what="status", job_id=None, points=None):
        """Ask 'status', 'plan', 'metrics' (Prometheus text as
        {"lines": [...]}, doc/metrics.md) or 'job' (with job_id; points:
        only the last N points of each series)."""
        fields = {"query": what}
        if what == "job":
            fields["job"] = self._job(job_id)
            if points is not None:
                fields["points"] = int(points)
        return self.request(lambda: message("query", **fields))

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
    else 10 s) carries the mean step time since the previous one. A report
    that is refused or cannot be sent is not raised (training never waits
    for one): step() returns False and `last_error` holds the ReportError
    (its code and the scheduler's reason, e.g. "rejected: worker rank 2 is
    none of the run's 2 workers")."""

    def __init__(self, reporter=None, interval=None, rank=None, node=None):
        self.reporter = reporter or Reporter()
        env = os.environ.get("OPTIMUS_WORKER_REPORT_INTERVAL")
        self.interval = float(interval if interval is not None else env or 10.0)
        self.rank, self.node = rank, node
        self._sum, self._n = 0.0, 0
        self._last = time.monotonic()
        self.last_error = None

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
        except ReportError as e:
            self.last_error = e
            return False
        return True


def query(what="status", job_id=None, points=None):
    """One-shot query: 'status', 'plan', 'metrics' or 'job' (with job_id,
    points)."""
    with Reporter(job_id=job_id) as r:
        return r.query(what, job_id, points)


# ------------------------------------------------- whose checkpoint is it
# A job id alone does not name a job: ids start again at FirstJobId on a
# new cluster and wrap at MaxJobId, and a new job once resumed an older
# job's checkpoint found under the same id. The identity adds
# the cluster and the submission stamp spank/optimus gives the job in
# sbatch, which, unlike Slurm's SubmitTime (reset by a requeue) and
# SLURM_JOB_START_TIME (new each run), stays the same across the requeues
# of a resize: a resized job finds its own checkpoint, no other job does.
_IDENTITY_KEYS = ("cluster", "job_id", "submit_time")


def job_identity(env=None):
    """The running job's identity, {"cluster", "job_id", "submit_time"}
    (strings; submit_time: seconds since the epoch, None if the job has
    no stamp), or None outside a Slurm job. Record it in every checkpoint
    and pass the recorded one to resume_refusal() before resuming."""
    env = os.environ if env is None else env
    job = env.get("OPTIMUS_JOB_ID") or env.get("SLURM_JOB_ID")
    if not job:
        return None
    return {"cluster": env.get("OPTIMUS_CLUSTER") or
            env.get("SLURM_CLUSTER_NAME") or None,
            "job_id": str(job),
            "submit_time": env.get("OPTIMUS_SUBMIT_TIME") or
            env.get("SLURM_SPANK_OPTIMUS_SUBMIT_TIME") or None}


def _describe_identity(ident):
    stamp = ident.get("submit_time")
    try:
        when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(stamp)))
    except (TypeError, ValueError):
        when = "(unknown)"
    return "job %s of cluster %s submitted at %s" % (
        ident.get("job_id"), ident.get("cluster") or "(unknown)", when)


def resume_refusal(recorded, env=None):
    """Why this job must not resume from a checkpoint whose recorded
    identity (job_identity() of the job that wrote it) is `recorded`, or
    None if it may: only the job that wrote a checkpoint resumes from it.
    Outside a Slurm job (a trainer run by hand) nothing is refused."""
    mine = job_identity(env)
    if mine is None:
        return None
    if not isinstance(recorded, dict):
        return ("the checkpoint does not say which job wrote it, this is %s"
                % _describe_identity(mine))
    theirs = {k: None if recorded.get(k) is None else str(recorded.get(k))
              for k in _IDENTITY_KEYS}
    if theirs != mine:
        return "written by %s, this is %s" % (_describe_identity(theirs),
                                              _describe_identity(mine))
    return None


# ------------------------------------------------------- the batch of a run
# sched/optimus gives every task of a job submitted with batch= its batch
# for this run (optimus_hints(5)): the global batch, the batch of each
# worker in one forward/backward pass and the extra micro-steps whose
# gradients it accumulates, global = local * workers * (accum + 1). With
# adaptive_batch=yes the scheduler chooses it with the workers (it may
# differ at every restart, and, for a trainer that says its batch in its
# progress reports, change in the running job: Rebatch); otherwise it is
# the submitted batch split over this run's workers.
class BatchPlan:
    """The batch of this run: global_batch, local_batch, accum_steps."""

    def __init__(self, global_batch, local_batch, accum_steps=0):
        self.global_batch = int(global_batch)
        self.local_batch = int(local_batch)
        self.accum_steps = int(accum_steps)

    @property
    def micro_steps(self):
        """Forward/backward passes per update: accum_steps + 1."""
        return self.accum_steps + 1

    def __repr__(self):
        return "BatchPlan(global=%d, local=%d, accum=%d)" % (
            self.global_batch, self.local_batch, self.accum_steps)


class Rebatch(BatchPlan):
    """A batch change the scheduler sent in the reply to one of the job's
    reports (doc/design/reports.md "Re-batch in place"): at the job's GPUs, from
    the next step train at global_batch = local_batch x workers x
    micro_steps, the learning rate tuned at the submitted batch times
    lr_scale (the scheduler's AdaScale gain of this batch over the
    submitted one from the statistics it holds: lr_scale(global_batch,
    submitted, "adascale", grad_sqr, trace) with the job's own estimates
    is the same rule), and say global_batch in the next progress report
    (Reporter.progress(..., batch=...)). A job that does not within
    RebatchTimeout (optimus.conf(5)) is re-batched by a restart."""

    def __init__(self, global_batch, local_batch, accum_steps, lr_scale):
        super().__init__(global_batch, local_batch, accum_steps)
        self.lr_scale = float(lr_scale)

    def fits(self, workers):
        """Is it a whole split over `workers` (the job's)? A change that
        is not is not taken: the scheduler then restarts the job."""
        return self.global_batch == \
            self.local_batch * int(workers) * self.micro_steps

    # The bounds of each field, as protocol_reply_rebatch checks them.
    _INT_BOUNDS = {"batch": (1, MAX_COUNT), "local_batch": (1, 2**32 - 1),
                   "accum": (0, MAX_ACCUM)}

    @classmethod
    def from_reply(cls, result):
        """The "rebatch" of a reply's result, None when it has none;
        ReportError("bad_reply") when it is malformed: the C client's rule
        (report/protocol.c, protocol_reply_rebatch)."""
        if not isinstance(result, dict) or "rebatch" not in result:
            return None
        r = result["rebatch"]
        ints = isinstance(r, dict) and all(
            isinstance(r.get(k), int) and not isinstance(r.get(k), bool)
            and lo <= r[k] <= hi for k, (lo, hi) in cls._INT_BOUNDS.items())
        scale = r.get("lr_scale") if isinstance(r, dict) else None
        if not ints or not isinstance(scale, (int, float)) or \
                isinstance(scale, bool) or not math.isfinite(scale) or \
                not LR_SCALE_MIN <= scale <= LR_SCALE_MAX or \
                r["batch"] % (r["local_batch"] * (r["accum"] + 1)):
            raise ReportError("bad_reply", "malformed \"rebatch\" in the "
                              "reply: %r" % (r,))
        return cls(r["batch"], r["local_batch"], r["accum"], float(scale))

    def __repr__(self):
        return "Rebatch(global=%d, local=%d, accum=%d, lr_scale=%.4g)" % (
            self.global_batch, self.local_batch, self.accum_steps,
            self.lr_scale)


def batch_env(env=None):
    """The BatchPlan of this run from OPTIMUS_GLOBAL_BATCH,
    OPTIMUS_LOCAL_BATCH and OPTIMUS_ACCUM_STEPS, or None when the job has
    none (no batch= hint, or not under sched/optimus)."""
    env = os.environ if env is None else env
    try:
        return BatchPlan(env["OPTIMUS_GLOBAL_BATCH"],
                         env["OPTIMUS_LOCAL_BATCH"],
                         env.get("OPTIMUS_ACCUM_STEPS", 0))
    except (KeyError, ValueError):
        return None


# ---------------------------------------------------- gradient statistics
def gradient_estimates(small_sqr, big_sqr, small_batch, big_batch):
    """Unbiased estimates of |G|^2 and tr(Sigma) from the mean squared
    norm of gradients over small_batch examples (each replica's own,
    before the all-reduce) and the squared norm of a gradient over
    big_batch examples (the all-reduced one): E|g_b|^2 = |G|^2 +
    tr(Sigma)/b, solved for the two batches (McCandlish, Kaplan, Amodei
    et al., "An Empirical Model of Large-Batch Training", 2018, App. A.1).
    Returns (grad_sqr, trace), each at least 0 (a noisy window may make an
    estimate negative: 0 is the value it stands for)."""
    if not big_batch > small_batch > 0:
        raise ValueError("needs 0 < small_batch < big_batch")
    sqr = (big_batch * big_sqr - small_batch * small_sqr) / \
        (big_batch - small_batch)
    trace = (small_sqr - big_sqr) / (1.0 / small_batch - 1.0 / big_batch)
    return max(sqr, 0.0), max(trace, 0.0)


# Float64 values in the scratch each CPU thread squares a bucket through:
# a bucket of any size costs no allocation of its size (a float64 copy of
# a 307,210-value bucket and its squares took 2.5-11 ms on a CPU: 1,168
# fresh pages faulted in per call, the memory given back each time) and
# 512 KB stays near the cache.
_SQR_CHUNK = 1 << 16
# On a GPU the caching allocator makes temporaries cheap and a kernel
# launch per chunk is what costs: larger pieces (32 MB in float64).
_SQR_CHUNK_DEVICE = 1 << 22
_sqr_scratch = threading.local()


def _sqr_sum(buf, chunk=None, scratch=None):
    """The sum of the squares of a float tensor's values, each squared and
    summed in float64 (a float32 value's square is exact there), as a 0-d
    float64 tensor on its device, left there (no host sync); chunk by
    chunk, none of the tensor's size in float64. On a CPU through this
    thread's scratch (a DDP hook and the callbacks of its all-reduces run
    on different threads); elsewhere through a temporary per chunk, not a
    scratch: the hook and its callbacks run on different CUDA streams.
    (chunk, scratch: the test's, to take either way on a CPU.)"""
    import torch
    cpu = buf.device.type == "cpu"
    if chunk is None:
        chunk = _SQR_CHUNK if cpu else _SQR_CHUNK_DEVICE
    if scratch is None and cpu:
        scratch = getattr(_sqr_scratch, "t", None)
        if scratch is None:
            scratch = _sqr_scratch.t = torch.empty(_SQR_CHUNK,
                                                   dtype=torch.float64)
    total = None
    for part in buf.reshape(-1).split(chunk):
        if scratch is not None:
            t = scratch[:part.numel()]
            t.copy_(part)
            sq = t.mul_(t).sum()
        else:
            sq = part.double().pow_(2).sum()
        total = sq if total is None else total.add_(sq)
    if total is None:                   # an empty bucket
        total = buf.new_zeros((), dtype=torch.float64)
    return total


class SyncTimer:
    """The all-reduce part of a PyTorch DistributedDataParallel step, in
    seconds, for progress and speed reports (sync_seconds).

        timer = SyncTimer(net)                  # the module DDP wraps
        ...  loss.backward()  ...               # the step's synced pass
        timer.synced()                          # right after it
        timer.waited(seconds)                   # any other wait of the step
        reporter.progress(..., sync_seconds=timer.take())

    How: a hook on every parameter's gradient stamps when the backward
    pass computed it; DDP's backward returns once the all-reduce of the
    last bucket is done, so the time from the last gradient to that return
    is the all-reduce the step waited for. A collective of the trainer's
    own in the step (a flag all-reduce, statistics) is a wait for the
    other workers too: waited() adds it. Together they are what more GPUs
    or more nodes add to a step, which the scheduler's goodput model fits
    apart from the compute; whatever is left of the step is compute, and
    a wait missed there makes the compute look as if it depended on the
    GPUs. A micro-step under no_sync() stamps but is not a synced pass:
    do not call synced() after it. take() is the mean per synced pass
    since the last take(), None before any."""

    def __init__(self, module):
        self._last = None
        self._sum = 0.0
        self._count = 0
        for p in module.parameters():
            if p.requires_grad:
                p.register_hook(self._stamp)

    def _stamp(self, grad):
        self._last = time.perf_counter()
        return grad

    def synced(self):
        """After the backward pass of a step's synced micro-step."""
        if self._last is not None:
            self._sum += max(0.0, time.perf_counter() - self._last)
            self._count += 1
            self._last = None

    def waited(self, seconds):
        """Another wait for the other workers in the current step."""
        self._sum += max(0.0, float(seconds))

    def take(self):
        """The mean all-reduce seconds since the last take(); None when no
        synced pass was timed."""
        if not self._count:
            self._sum = 0.0
            return None
        mean = self._sum / self._count
        self._sum, self._count = 0.0, 0
        return mean


class GradientStats:
    """Gradient statistics of a PyTorch DistributedDataParallel job,
    measured across its replicas and reported to the scheduler.

        ddp = DistributedDataParallel(net)
        stats = GradientStats(ddp, reporter)      # before the first step
        ...  loss.backward()  ...                 # DDP all-reduces
        stats.step(examples)                      # after every update

    How: a DDP communication hook (the default all-reduce, plus one sum of
    squares of each gradient bucket before and after it) gives each
    replica's own squared gradient norm and the all-reduced one: a few
    vector operations per bucket, no extra pass over the data, no copy of
    a bucket (_sqr_sum). The sums stay on the gradients' device until
    every `every` steps (the same step on all replicas) one all-reduce of
    two numbers averages them across the replicas and brings them to the
    host, once: no host sync in between (on a GPU a float() per step
    would wait for the step's kernels). Rank 0 reports the estimates over
    those steps (gradient_estimates: replica gradients of `examples` each
    against their average over workers x examples): grad_sqr = |G|^2,
    grad_var = tr(Sigma) / var_batch with var_batch the global batch.
    `examples` is what each replica's gradient averages over in one update
    (local batch x micro-steps). A job of one worker has no second
    gradient to compare with: it measures nothing (no hook: its scheduler
    then sees no gain in a larger batch).

    grad_sqr, trace and var_batch hold the last estimates (None before);
    `last_error` the ReportError of the last report that was refused or not
    sent (its code and reason), None while none was."""

    def __init__(self, ddp, reporter=None, every=10, process_group=None):
        import torch.distributed as dist
        self._dist = dist
        self._group = process_group
        self.world = dist.get_world_size(process_group)
        self.rank = dist.get_rank(process_group)
        self.reporter = reporter
        self.every = max(1, int(every))
        self.grad_sqr = self.trace = self.var_batch = None
        self.reports = 0
        self.last_error = None
        self._steps = 0
        self._examples = 0.0
        # Per bucket and update since the last estimate, 0-d float64
        # tensors on the gradients' device: this replica's |g_i|^2 (hook)
        # and |mean g|^2 (all-reduce callbacks; list.append is atomic).
        self._own = []
        self._avg = []
        self._counted = 0   # len(self._own) at the last counted update
        if self.world > 1:
            ddp.register_comm_hook(None, self._hook)

    def _hook(self, state, bucket):
        buf = bucket.buffer()
        self._own.append(_sqr_sum(buf))
        buf.div_(self.world)
        fut = self._dist.all_reduce(buf, group=self._group,
                                    async_op=True).get_future()

        def done(f):
            out = f.value()[0]
            self._avg.append(_sqr_sum(out))
            return out
        return fut.then(done)

    def step(self, examples):
        """After an update whose gradient averaged `examples` examples on
        each replica. Every `every` calls (all replicas at once): the
        estimates, reported by rank 0. Returns True when it estimated.
        Between those, Python arithmetic only (an update under no_sync
        all the way ran no hook: it counts for nothing)."""
        if len(self._own) > self._counted:
            self._counted = len(self._own)
            self._examples += float(examples)
            self._steps += 1
        if self._steps < self.every or self.world < 2:
            return False
        import torch
        own = torch.stack(self._own).sum()
        sums = torch.stack((own, own.new_tensor(self._examples)))
        self._dist.all_reduce(sums, group=self._group)
        # the host's one look at the device in `every` steps
        own, examples, avg = torch.cat(
            (sums, torch.stack(self._avg).sum().view(1))).tolist()
        n = self._steps
        small = own / self.world / n
        b = examples / self.world / n
        big = avg / n
        self._own, self._avg = [], []
        self._counted = self._steps = 0
        self._examples = 0.0
        self.grad_sqr, self.trace = gradient_estimates(
            small, big, b, b * self.world)
        self.var_batch = b * self.world
        if self.rank == 0 and self.reporter is not None:
            try:
                self.reporter.gradients(self.grad_sqr,
                                        self.trace / self.var_batch,
                                        self.var_batch)
                self.reports += 1
            except ReportError as e:
                # training never stops for a report; why it was not
                # taken is kept
                self.last_error = e
        return True

    def gain(self, batch, base_batch):
        """AdaScale's gain of `batch` over `base_batch` from the last
        estimates (lr_scale), or None before any."""
        if self.grad_sqr is None:
            return None
        return lr_scale(batch, base_batch, "adascale", self.grad_sqr,
                        self.trace)


def lr_scale(batch, base_batch, rule="adascale", grad_sqr=None, trace=None):
    """The factor for a learning rate tuned at base_batch when training at
    batch (s = batch / base_batch):

    - "adascale" (default; Johnson et al., "AdaScale SGD", ICML 2020):
      the gain r = (var + sqr) / (var / s + sqr), with sqr = |G|^2 and
      var = tr(Sigma) / base_batch the variance of a base-batch gradient:
      one step at batch is worth r steps at base_batch, r between 1 (no
      noise: a larger batch adds nothing) and s (all noise). The same
      gain the scheduler plans with (models/efficiency.h). Without
      statistics yet (grad_sqr None), the square-root rule.
    - "sqrt": sqrt(s) (Krizhevsky 2014; Hoffer et al. 2017; for Adam);
    - "linear": s (Goyal et al. 2017, SGD with warm-up).
    """
    s = float(batch) / float(base_batch)
    if rule == "linear":
        return s
    if rule == "sqrt" or (rule == "adascale" and grad_sqr is None):
        return math.sqrt(s)
    if rule != "adascale":
        raise ValueError("rule is adascale, sqrt or linear")
    var = float(trace) / float(base_batch)
    if var + grad_sqr <= 0:
        return 1.0
    return (var + grad_sqr) / (var / s + grad_sqr)

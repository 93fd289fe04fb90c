# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Where a training task stands: its role and topology, from its environment.

spank/optimus sets, in every task of a step of an optimus job (see
src/common/roles/roles.h): OPTIMUS_ROLE (ps|worker), OPTIMUS_RANK (among its
role), OPTIMUS_NUM_PS, OPTIMUS_NUM_WORKERS, OPTIMUS_PS_HOSTS and
OPTIMUS_WORKER_HOSTS (host:port lists in rank order), OPTIMUS_SHARD_INDEX
(workers) and OPTIMUS_SHARD_COUNT, OPTIMUS_CHECKPOINT_DIR, OPTIMUS_MODE,
OPTIMUS_CKPT_SIGNAL, OPTIMUS_CKPT_GRACE and SLURM_RESTART_COUNT, plus the
framework variables (MASTER_ADDR/MASTER_PORT/WORLD_SIZE/RANK, DMLC_*,
TF_CONFIG). `local_envs()` builds the same variables for p + w processes on
this machine, so that the trainers also run without Slurm.

Host names in the lists are Slurm node names. On a real cluster they
resolve (or `scontrol show node` gives their NodeAddr). On a localhost test
cluster every node is 127.0.0.1 and two tasks with the same node-local id
get the same port, so each node is given its own loopback address
(127.0.0.1, 127.0.0.2, ... in sorted name order), which Linux routes to lo.
"""

import os
import signal
import socket
import subprocess
import sys
import time

ENV_KEYS = ("OPTIMUS_ROLE", "OPTIMUS_RANK", "OPTIMUS_NUM_PS",
            "OPTIMUS_NUM_WORKERS", "OPTIMUS_PS_HOSTS", "OPTIMUS_WORKER_HOSTS")


class TaskError(RuntimeError):
    pass


def _split_hosts(text):
    out = []
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        host, sep, port = item.rpartition(":")
        if not sep or not port.isdigit():
            raise TaskError("bad host:port %r" % item)
        out.append((host, int(port)))
    return out


def _node_addr(name):
    """NodeAddr of a Slurm node that does not resolve, or None."""
    try:
        r = subprocess.run(["scontrol", "-o", "show", "node", name],
                           capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    for tok in r.stdout.split():
        if tok.startswith("NodeAddr="):
            return tok.split("=", 1)[1]
    return None


def _resolve(name):
    try:
        return socket.getaddrinfo(name, None, socket.AF_INET)[0][4][0]
    except OSError:
        return _node_addr(name)


def address_map(hosts):
    """{node name: (connect address, bind address)} for the given names."""
    names = sorted(set(hosts))
    addrs = {n: _resolve(n) for n in names}
    missing = [n for n, a in addrs.items() if a is None]
    if missing:
        raise TaskError("cannot resolve %s" % ", ".join(missing))
    if len(names) > 1 and all(a.startswith("127.") for a in addrs.values()):
        # several "nodes" on one machine: one loopback address each
        return {n: ("127.0.0.%d" % (i + 1),) * 2 for i, n in enumerate(names)}
    return {n: (a, "0.0.0.0" if len(names) > 1 else a)
            for n, a in addrs.items()}


class Task:
    """This task's role and the job's topology."""

    def __init__(self, env=None):
        env = os.environ if env is None else env
        missing = [k for k in ENV_KEYS if k not in env]
        if missing:
            raise TaskError("not an optimus task (missing %s): submit with "
                            "--scheduler=optimus,... or use --local"
                            % ", ".join(missing))
        self.role = env["OPTIMUS_ROLE"]
        if self.role not in ("ps", "worker"):
            raise TaskError("OPTIMUS_ROLE=%s" % self.role)
        self.rank = int(env["OPTIMUS_RANK"])
        self.num_ps = int(env["OPTIMUS_NUM_PS"])
        self.num_workers = int(env["OPTIMUS_NUM_WORKERS"])
        ps = _split_hosts(env["OPTIMUS_PS_HOSTS"])
        wk = _split_hosts(env["OPTIMUS_WORKER_HOSTS"])
        if len(ps) != self.num_ps or len(wk) != self.num_workers:
            raise TaskError("host lists (%d PS, %d workers) disagree with "
                            "OPTIMUS_NUM_PS=%d, OPTIMUS_NUM_WORKERS=%d"
                            % (len(ps), len(wk), self.num_ps, self.num_workers))
        amap = address_map([h for h, _ in ps + wk])
        self.ps_addrs = [(amap[h][0], p) for h, p in ps]
        self.ps_binds = [(amap[h][1], p) for h, p in ps]
        self.worker_addrs = [(amap[h][0], p) for h, p in wk]
        self.shard_index = int(env.get("OPTIMUS_SHARD_INDEX",
                                       self.rank if self.role == "worker" else 0))
        self.shard_count = int(env.get("OPTIMUS_SHARD_COUNT", self.num_workers))
        self.ckpt_dir = env.get("OPTIMUS_CHECKPOINT_DIR") or None
        self.mode = env.get("OPTIMUS_MODE") or None
        self.ckpt_signal = int(env.get("OPTIMUS_CKPT_SIGNAL") or signal.SIGUSR1)
        self.ckpt_grace = int(env.get("OPTIMUS_CKPT_GRACE") or 60)
        self.restart = int(env.get("SLURM_RESTART_COUNT") or 0)
        self.job_id = env.get("SLURM_JOB_ID")

    @property
    def is_chief(self):
        """Worker 0: reports, decides convergence, writes checkpoints."""
        return self.role == "worker" and self.rank == 0

    def describe(self):
        return ("%s %d of (%d PS, %d workers), shard %d/%d, restart %d"
                % (self.role, self.rank, self.num_ps, self.num_workers,
                   self.shard_index, self.shard_count, self.restart))


def _free_ports(n):
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


def local_envs(num_ps, num_workers, ckpt_dir, mode=None, restart=0):
    """The environment of each of p + w tasks on localhost (PS first)."""
    ports = _free_ports(num_ps + num_workers)
    ps_hosts = ",".join("127.0.0.1:%d" % p for p in ports[:num_ps])
    wk_hosts = ",".join("127.0.0.1:%d" % p for p in ports[num_ps:])
    envs = []
    for i in range(num_ps + num_workers):
        worker = i >= num_ps
        env = {
            "OPTIMUS_ROLE": "worker" if worker else "ps",
            "OPTIMUS_RANK": str(i - num_ps if worker else i),
            "OPTIMUS_NUM_PS": str(num_ps),
            "OPTIMUS_NUM_WORKERS": str(num_workers),
            "OPTIMUS_PS_HOSTS": ps_hosts,
            "OPTIMUS_WORKER_HOSTS": wk_hosts,
            "OPTIMUS_SHARD_COUNT": str(num_workers),
            "OPTIMUS_CHECKPOINT_DIR": ckpt_dir,
            "SLURM_RESTART_COUNT": str(restart),
            # PyTorch's variables, among workers as spank/optimus sets them
            "MASTER_ADDR": "127.0.0.1",
            "MASTER_PORT": str(ports[num_ps] if num_workers else 0),
            "WORLD_SIZE": str(num_workers),
        }
        if worker:
            env["OPTIMUS_SHARD_INDEX"] = env["RANK"] = env["OPTIMUS_RANK"]
            env["LOCAL_RANK"] = env["RANK"]
        if mode:
            env["OPTIMUS_MODE"] = mode
        envs.append(env)
    return envs


def without_option(argv, name):
    """argv without `name VALUE` and `name=VALUE`."""
    out, skip = [], False
    for x in argv:
        if skip:
            skip = False
        elif x == name:
            skip = True
        elif not x.startswith(name + "="):
            out.append(x)
    return out


def launch_local(script, argv, envs):
    """Run `script argv` once per environment (the --local modes); forward
    SIGUSR1/SIGTERM to them; stop the others when one fails. Returns the
    first failure's exit status, or 0."""
    argv = without_option(argv, "--local")
    procs = [subprocess.Popen([sys.executable, os.path.abspath(script)] + argv,
                              env=dict(os.environ, **env)) for env in envs]

    def forward(signum, frame):
        for pr in procs:
            if pr.poll() is None:
                pr.send_signal(signum)
    signal.signal(signal.SIGUSR1, forward)
    signal.signal(signal.SIGTERM, forward)
    rc = 0
    while any(pr.poll() is None for pr in procs):
        bad = [pr.returncode for pr in procs if pr.returncode not in (None, 0)]
        if bad and not rc:
            rc = bad[0]
            forward(signal.SIGTERM, None)
        time.sleep(0.1)
    return rc or next((pr.returncode for pr in procs if pr.returncode), 0)

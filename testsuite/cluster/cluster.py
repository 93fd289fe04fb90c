# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""A real Slurm cluster on localhost, for tests and for people.

One folder holds everything: its own munged (own key, socket and pid file),
slurmctld, N slurmd started as `slurmd -N nX` (Debian builds Slurm with
--enable-multiple-slurmd), and optionally slurmdbd with its own MariaDB
server. Daemons are stopped by their pid files, never by name, so several
clusters (and a system Slurm) can coexist on one machine.

Use from Python:

    c = Cluster("/tmp/c1", nodes=4)
    c.start()
    c.run(["sbatch", "--wrap", "true"])
    c.stop()

or from a shell: see `optimus-cluster --help`.
"""

import os
import re
import random
import shutil
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
DEBIAN_PLUGINDIR = "/usr/lib/x86_64-linux-gnu/slurm-wlm"
PLUGIN_BUILD_DIRS = [
    os.path.join(TOP, "src/plugins/sched/optimus/.libs"),
    os.path.join(TOP, "src/plugins/job_submit/optimus/.libs"),
    os.path.join(TOP, "src/plugins/spank/optimus/.libs"),
]


# What a build tree's optimus-sim reads instead of the installed copy of
# its data (src/tools/optimus-sim/sim_data.h: an installed binary never
# looks in its build folder): the source tree's, through the environment.
# The test suites and the benchmarks set it (use_build_tree_data),
# `optimus-cluster env` prints it.
BUILD_TREE_DATA = {
    "OPTIMUS_POLLUX_DATA": os.path.join(TOP, "testsuite", "data",
                                        "pollux-osdi21"),
    "OPTIMUS_SIM_CURVES": os.path.join(TOP, "testsuite", "data",
                                       "quality-curves", "curves.csv"),
}


def use_build_tree_data():
    """This process and its children (jobs submitted with its environment
    too) run the build tree's optimus-sim on the source tree's data,
    unless the environment already names other data."""
    for name, path in BUILD_TREE_DATA.items():
        os.environ.setdefault(name, path)


# Cluster(backup=True): a primary and a backup slurmctld on this machine,
# each at its own loopback address (all of 127/8 is the loopback here),
# "name" of the pid file in CONTROLLERS for each.
BACKUP = (("ctl1", "127.0.0.1"), ("ctl2", "127.0.0.2"))
CONTROLLERS = {"slurmctld": "ctl1", "slurmctld2": "ctl2"}
# The backup takes over after the primary has not answered this long (s).
BACKUP_TIMEOUT = 5


class ClusterError(RuntimeError):
    pass


_SLURM_VERSION = None


def slurm_version():
    """The installed slurmctld's version as a tuple, e.g. (24, 11, 5)."""
    global _SLURM_VERSION
    if _SLURM_VERSION is None:
        out = subprocess.run(["slurmctld", "-V"], capture_output=True,
                             text=True, check=True).stdout
        _SLURM_VERSION = tuple(int(x) for x in out.split()[1].split(".")[:3])
    return _SLURM_VERSION


def _tres_named():
    """Whether the installed Slurm writes GPU requests by their TRES name
    (gres/gpu): 24.11 does, 22.05 does not; 23.02 taken as the cut."""
    return slurm_version() >= (23, 2)


def gpu_tres(n):
    """A request of n GPUs per node as the installed Slurm writes it in
    TresPerNode: 22.05 says gres:gpu:N, 24.11 the TRES name gres/gpu:N."""
    return ("gres/gpu:%d" if _tres_named() else "gres:gpu:%d") % n


def gpu_tres_bind(n):
    """SLURMD_TRES_BIND of a task bound to n GPUs (srun --gpus-per-task):
    22.05 says gpu:per_task:N, 24.11 names the TRES, gres/gpu:per_task:N
    (the releases in between not checked: the same cut as gpu_tres)."""
    return ("gres/gpu:per_task:%d" if _tres_named()
            else "gpu:per_task:%d") % n


# Ports. Each cluster takes one of SLOTS slots: slot k gives its daemons
# the ports from DAEMON_PORTS[0] + k * DAEMON_STRIDE (slurmctld's first),
# and its jobs' tasks the range TASK_PORTS[0] + k * TASK_BLOCK, TASK_BLOCK
# long, which slurm.conf's MpiParams=ports= hands to slurmctld: Slurm
# reserves each step's ports there, never one port of a node to two steps
# (doc/hints.md, "Ports"). A slot is free while its daemon ports are: a
# running cluster holds its slot through its daemons' bound ports, so two
# clusters on one host (CI's lanes, engineers side by side) never share a
# task range, whatever their job ids. (Only while every daemon of a
# cluster is down at once, change_nodes() for a moment, may another
# cluster take its slot.) Nodes of one cluster share the host's ports:
# Slurm reserves per node, so two steps on two of its nodes may get the
# same port only after its allocator has gone round the whole range while
# the first still runs. All of it lies outside the kernel's ephemeral
# ports, where any outgoing connection can take a port between the check
# below and the daemon's bind (CI: slurmd "Unable to bind listen port"
# while the other lane's report attacker dialled 1,000 connections).
SLOTS = 20
DAEMON_PORTS = (4000, 12000)
DAEMON_STRIDE = (DAEMON_PORTS[1] - DAEMON_PORTS[0]) // SLOTS
TASK_PORTS = (12000, 12000 + SLOTS * 1024)
TASK_BLOCK = (TASK_PORTS[1] - TASK_PORTS[0]) // SLOTS


def ephemeral_ports():
    """The kernel's ephemeral port range (ports of outgoing connections)."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            lo, hi = map(int, f.read().split())
        return range(lo, hi + 1)
    except (OSError, ValueError):
        return range(32768, 61000)


def task_ports(slot):
    """The range (first, last) of slot's tasks' ports."""
    first = TASK_PORTS[0] + slot * TASK_BLOCK
    return first, first + TASK_BLOCK - 1


# The abstract socket name of a slot's claim (_slot_claim).
SLOT_CLAIM = "slurm-optimus-test-slot-%d"


def _slot_claim(slot):
    """An abstract Unix socket named after the slot, bound: the claim of a
    cluster that is starting, before any of its daemons has bound a port
    (mariadb and slurmdbd take seconds), released when the socket is
    closed or its process ends. Abstract names belong to the network
    namespace, which CI's chroot lanes share with each other; a second
    claim of a slot fails. None if the slot is claimed already. (Without
    the claim, two clusters that see a slot's ports free at once both take
    it: mariadb, slurmdbd and slurmctld then fail with "Address already in
    use".)"""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.bind("\0" + SLOT_CLAIM % slot)
    except OSError:
        s.close()
        return None
    return s


def _free_slot(count):
    """A free slot (see SLOTS) whose daemon ports base..base+count-1 are
    all free on localhost and that no starting cluster claims: (slot,
    base, claim), the claim (_slot_claim) to keep while the cluster
    lives."""
    ephemeral = ephemeral_ports()
    if count > DAEMON_STRIDE:
        raise ClusterError("%d daemon ports do not fit a slot of %d"
                           % (count, DAEMON_STRIDE))
    for slot in random.sample(range(SLOTS), SLOTS):
        base = DAEMON_PORTS[0] + slot * DAEMON_STRIDE
        first, last = task_ports(slot)
        if any(p in ephemeral for p in range(base, base + count)) or \
                first in ephemeral or last in ephemeral:
            continue
        claim = _slot_claim(slot)
        if claim is None:
            continue
        if all(_port_free(p) for p in range(base, base + count)):
            return slot, base, claim
        claim.close()
    raise ClusterError("no free slot of %d daemon ports in %d-%d (every "
                       "slot's ports taken: other clusters run on this host)"
                       % (count, DAEMON_PORTS[0], DAEMON_PORTS[1] - 1))


def _port_free(port):
    """Free at every address: a backup cluster's second controller listens
    at 127.0.0.2 (BACKUP), which a probe of 127.0.0.1 alone would miss."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


def _pid_alive(pid):
    """True while pid runs. MariaDB is this process's own child (started
    without daemonizing): once it exits it stays a zombie, which kill(0)
    takes for alive (every stop of an accounting cluster waited the whole
    30 s of its timeout), so a child of ours is asked with waitpid, which
    also reaps it. The daemons are not our children. (Their zombie state
    in /proc is no sign of their end: a multi-threaded daemon's main
    thread shows Z while its other threads still run; a slurmd 'killed'
    that way answered its slurmctld seconds later, in CI.)"""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done != pid
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _in_our_root(pid):
    """True if process pid sees the same root directory as this process.
    CI runs its two lanes in two chroots that share one /proc: a test's
    tmp_path is the same string in both (/tmp/pytest-of-root/pytest-17/
    <test>/...: each lane numbers its pytest sessions alike), so a
    cluster's paths and environment may name a process of the other
    lane's cluster too, which a stop here must not kill (CI: a Debian 12
    slurmctld of test_install told to terminate 1 s after its start; a
    cluster's stop in one lane's chroot stopped the slurmctld of a
    cluster at the same path in the other's, until this check)."""
    try:
        theirs = os.stat("/proc/%d/root" % pid)
        ours = os.stat("/")
    except OSError:
        return False
    return (theirs.st_dev, theirs.st_ino) == (ours.st_dev, ours.st_ino)


def _process_of(pid, root):
    """True if process pid belongs to the cluster living in root: one of
    its threads has the cluster in its environment (OPTIMUS_CLUSTER, what
    Cluster.env() gives every daemon it starts) or a path of the cluster
    in its command line (munged's and mariadbd's files). A pid file
    outlives a daemon killed with SIGKILL (the fault tests) and pids come
    round again (pid_max 32768, a CI run starts far more processes): the
    pid a stale file names may be another cluster's daemon by then, which
    this cluster's stop would kill. A process of another root (the other
    CI lane's chroot) is never the cluster's (_in_our_root). Every thread
    is asked: a daemon whose main thread has exited shows nothing in its
    own files while its other threads run."""
    env_tag = ("OPTIMUS_CLUSTER=%s" % root).encode()
    path_tag = (root.rstrip("/") + "/").encode()
    if not _in_our_root(pid):
        return False
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return False
    for tid in tids:
        for name in ("environ", "cmdline"):
            try:
                with open("/proc/%d/task/%s/%s" % (pid, tid, name),
                          "rb") as f:
                    items = f.read().split(b"\0")
            except OSError:
                continue
            if env_tag in items if name == "environ" else \
                    any(path_tag in a for a in items):
                return True
    return False


class Cluster:
    """A localhost Slurm cluster living entirely in `root`."""

    def __init__(self, root, nodes=4, cpus=8, memory=16000, gpus=4,
                 accounting=False, scheduler="sched/optimus",
                 plugin_dirs=None, cred_expire=10, extra_conf="",
                 optimus_conf="", node_gres=None, backup=False,
                 min_job_age=300):
        self.root = os.path.abspath(root)
        self.nodes = nodes
        self.cpus = cpus
        self.memory = memory
        self.gpus = gpus
        # Gres= of the NodeName line; default "gpu:<gpus>" ("gpu" alone is
        # one GPU to Slurm)
        self.node_gres = node_gres
        # A backup controller (see BACKUP below): two SlurmctldHost lines,
        # one StateSaveLocation.
        self.backup = backup
        self.accounting = accounting
        self.scheduler = scheduler
        self.plugin_dirs = plugin_dirs if plugin_dirs is not None else PLUGIN_BUILD_DIRS
        self.cred_expire = cred_expire
        self.extra_conf = extra_conf
        self.optimus_conf = optimus_conf
        # Seconds slurmctld keeps a finished job before purging it.
        self.min_job_age = min_job_age
        self.etc = os.path.join(self.root, "etc")
        self.log = os.path.join(self.root, "log")
        self.run_dir = os.path.join(self.root, "run")
        self.state_dir = os.path.join(self.root, "state")  # StateSaveLocation
        self.conf = os.path.join(self.etc, "slurm.conf")
        self.munge_socket = os.path.join(self.run_dir, "munge.socket.2")
        self.ports = None
        # (first, last) of the tasks' ports (MpiParams=ports=), its slot's.
        self.task_ports = None
        # The claim of its slot while it lives (_slot_claim).
        self._slot_claim = None
        # Where the job ids start. Ports do not depend on them (SLOTS); a
        # developer may number a cluster's jobs apart from another's, so
        # that two clusters' logs are told apart at a glance.
        self.first_job_id = int(os.environ.get("OPTIMUS_TEST_FIRST_JOB_ID",
                                               "1"))
        # The nodes in slurm.conf when change_nodes() changed them (None:
        # n1..n<nodes>, on one NodeName line).
        self.node_set = None

    # ------------------------------------------------------------------ env
    def env(self, extra=None):
        """Environment for Slurm commands talking to this cluster."""
        env = dict(os.environ)
        env["SLURM_CONF"] = self.conf
        env["OPTIMUS_CLUSTER"] = self.root
        env["MUNGE_SOCKET"] = self.munge_socket
        if extra:
            env.update(extra)
        return env

    def run(self, argv, check=True, timeout=60, input=None, env=None):
        """Run a command against this cluster; returns CompletedProcess."""
        r = subprocess.run(argv, env=self.env(env), capture_output=True,
                           text=True, timeout=timeout, input=input)
        if check and r.returncode != 0:
            raise ClusterError("%s failed (%d): %s%s" % (
                " ".join(argv), r.returncode, r.stdout, r.stderr))
        return r

    # ---------------------------------------------------------------- files
    def _pidfile(self, name):
        if self.backup and name in CONTROLLERS:
            return os.path.join(self.root, CONTROLLERS[name], "slurmctld.pid")
        return os.path.join(self.run_dir, name + ".pid")

    def _controllers_conf(self):
        """slurm.conf's controller lines: one host, or BACKUP's two."""
        if not self.backup:
            return ("SlurmctldHost=localhost\n"
                    "SlurmctldPidFile=%s\nSlurmctldLogFile=%s/slurmctld.log\n"
                    "SlurmctldTimeout=30\n"
                    % (self._pidfile("slurmctld"), self.log))
        # Each controller's own pid and log file: the same path in slurm.conf,
        # its own folder mounted there in its namespace (_start_slurmctld).
        ctld = os.path.join(self.root, "ctld")
        return ("".join("SlurmctldHost=%s(%s)\n" % h for h in BACKUP) +
                "CommunicationParameters=NoCtldInAddrAny\n"
                "SlurmctldPidFile=%s/slurmctld.pid\n"
                "SlurmctldLogFile=%s/slurmctld.log\n"
                "SlurmctldTimeout=%d\n" % (ctld, ctld, BACKUP_TIMEOUT))

    def _write(self, path, text, mode=0o644):
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)

    def _nodelist(self):
        return "n[1-%d]" % self.nodes if self.nodes > 1 else "n1"

    def _node_names(self):
        if self.node_set is not None:
            return list(self.node_set)
        return ["n%d" % i for i in range(1, self.nodes + 1)]

    def _node_lines(self, gres):
        """slurm.conf's NodeName lines. Node nK listens on slurmd's port
        + K - 1 whatever nodes the file has (change_nodes)."""
        p = self.ports
        common = ("NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=%d "
                  "RealMemory=%d %s" % (self.cpus, self.memory, gres))
        if self.node_set is None:
            return "NodeName=%s %sPort=%d-%d State=UNKNOWN" % (
                self._nodelist(), common, p["slurmd"],
                p["slurmd"] + self.nodes - 1)
        return "\n".join("NodeName=%s %sPort=%d State=UNKNOWN" % (
            n, common, p["slurmd"] + int(n[1:]) - 1) for n in self.node_set)

    def _layout(self):
        for d in (self.etc, self.log, self.run_dir, self.state_dir,
                  os.path.join(self.root, "checkpoints")):
            os.makedirs(d, exist_ok=True)
        for n in self._node_names():
            os.makedirs(os.path.join(self.root, "spool", n), exist_ok=True)
        os.chmod(os.path.join(self.root, "checkpoints"), 0o1777)

    def _slurm_conf(self):
        p = self.ports
        plugindir = ":".join(list(self.plugin_dirs) + [DEBIAN_PLUGINDIR])
        gres = "Gres=%s " % (self.node_gres or "gpu:%d" % self.gpus) \
            if self.gpus else ""
        acct = ""
        if self.accounting:
            acct = ("AccountingStorageType=accounting_storage/slurmdbd\n"
                    "AccountingStorageHost=localhost\n"
                    "AccountingStoragePort=%d\n"
                    # the munge socket slurmctld signs slurmdbd messages with
                    "AccountingStoragePass=%s\n"
                    "AccountingStorageTRES=gres/gpu\n"
                    "JobAcctGatherType=jobacct_gather/linux\n"
                    "JobAcctGatherFrequency=5\n" % (p["slurmdbd"], self.munge_socket))
        return f"""# Generated by testsuite/cluster/cluster.py
ClusterName=optimus
{self._controllers_conf()}SlurmctldPort={p["slurmctld"]}
SlurmdPort={p["slurmd"]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={self.munge_socket},cred_expire={self.cred_expire}
PluginDir={plugindir}
PlugStackConfig={self.etc}/plugstack.conf
StateSaveLocation={self.state_dir}
SlurmdSpoolDir={self.root}/spool/%n
SlurmdPidFile={self.run_dir}/slurmd-%n.pid
SlurmdLogFile={self.log}/slurmd-%n.log
SlurmctldDebug=debug
SlurmdDebug=debug
SchedulerType={self.scheduler}
SchedulerParameters=bf_interval=2,sched_interval=2
# Named, not left to the default: 22.05 defaults to priority/basic, 24.11 to
# priority/multifactor, whose zero weights give every job priority 1 (so
# --nice would change nothing on 24.11 and tests could not see it).
PriorityType=priority/basic
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobSubmitPlugins=optimus
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
# Each srun step's task ports (spank/optimus: SLURM_STEP_RESV_PORTS), from
# this cluster's own range (SLOTS).
MpiParams=ports={self.task_ports[0]}-{self.task_ports[1]}
MailProg=/bin/true
GresTypes=gpu
JobRequeue=1
DefMemPerCPU=500
KillWait=5
MinJobAge={self.min_job_age}
FirstJobId={self.first_job_id}
InactiveLimit=0
Waittime=0
SlurmdTimeout=60
{acct}
{self._node_lines(gres)}
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
{self.extra_conf}
"""

    def _write_config(self):
        self._write(self.conf, self._slurm_conf())
        gres = ""
        if self.gpus:
            # Slurm drops file-less GPUs: give each a stand-in device file.
            dev = os.path.join(self.root, "dev")
            os.makedirs(dev, exist_ok=True)
            for i in range(self.gpus):
                open(os.path.join(dev, "gpu%d" % i), "a").close()
            files = dev + "/gpu[0-%d]" % (self.gpus - 1) if self.gpus > 1 else dev + "/gpu0"
            gres = "NodeName=%s Name=gpu File=%s\n" % (self._nodelist(), files)
        self._write(os.path.join(self.etc, "gres.conf"), gres)
        self._write(os.path.join(self.etc, "cgroup.conf"), "CgroupPlugin=cgroup/v1\n")
        # The spank plugin of the first plugin folder that has one (the build
        # tree's by default); else Slurm finds it in its PluginDir (an
        # installed package's, for test_install).
        spank = next((os.path.join(d, "spank_optimus.so")
                      for d in self.plugin_dirs
                      if os.path.exists(os.path.join(d, "spank_optimus.so"))),
                     "spank_optimus.so")
        self._write(os.path.join(self.etc, "plugstack.conf"),
                    "required %s\n" % spank)
        # A test cluster plans every 2 s unless optimus_conf says otherwise
        # (later keys win in Slurm's parser).
        self._write(os.path.join(self.etc, "optimus.conf"),
                    "# Generated by testsuite/cluster/cluster.py\n"
                    "ReportPort=%d\n%s%s\n"
                    % (self.ports["report"],
                       "" if "PlanInterval" in self.optimus_conf
                       else "PlanInterval=2\n", self.optimus_conf))

    # --------------------------------------------------------------- munged
    def _start_munged(self):
        key = os.path.join(self.etc, "munge.key")
        if not os.path.exists(key):
            with open(key, "wb") as f:
                f.write(os.urandom(1024))
            os.chmod(key, 0o600)
        os.chmod(self.run_dir, 0o755)
        subprocess.run(
            ["munged", "--force", "--socket=" + self.munge_socket,
             "--key-file=" + key, "--pid-file=" + self._pidfile("munged"),
             "--log-file=" + os.path.join(self.log, "munged.log"),
             "--seed-file=" + os.path.join(self.run_dir, "munged.seed")],
            check=True, capture_output=True)
        self._wait(lambda: os.path.exists(self.munge_socket), 10, "munged socket")

    # -------------------------------------------------------------- mariadb
    def _start_mariadb(self):
        datadir = os.path.join(self.root, "mysql")
        # Its own folder for temporary tables: in a shared /tmp another
        # cluster's server (CI runs three, and a second lane) can meet
        # the same name, and mariadb-install-db then failed ("Could not
        # remove temporary table '/tmp/#sql-temptable-...'").
        tmpdir = os.path.join(self.root, "mysql-tmp")
        os.makedirs(tmpdir, exist_ok=True)
        if not os.path.isdir(os.path.join(datadir, "mysql")):
            r = subprocess.run(
                ["mariadb-install-db", "--no-defaults", "--user=root",
                 "--datadir=" + datadir, "--tmpdir=" + tmpdir,
                 "--auth-root-authentication-method=normal",
                 "--skip-test-db"], capture_output=True, text=True)
            if r.returncode != 0:
                raise ClusterError("mariadb-install-db failed: " + r.stdout + r.stderr)
        log = open(os.path.join(self.log, "mariadb.log"), "a")
        subprocess.Popen(
            ["mariadbd", "--no-defaults", "--user=root", "--datadir=" + datadir,
             "--tmpdir=" + tmpdir,
             "--bind-address=127.0.0.1", "--port=%d" % self.ports["mysql"],
             "--socket=" + os.path.join(self.run_dir, "mysql.sock"),
             "--pid-file=" + self._pidfile("mariadb"),
             "--innodb-buffer-pool-size=64M", "--skip-name-resolve"],
            stdout=log, stderr=log, start_new_session=True)
        self._wait(lambda: self._mysql_ok(), 60, "MariaDB")

    def _mysql_ok(self):
        r = subprocess.run(["mariadb", "--no-defaults", "-uroot", "-h127.0.0.1",
                            "-P%d" % self.ports["mysql"], "-e", "select 1"],
                           capture_output=True)
        return r.returncode == 0

    def _start_slurmdbd(self):
        dbd = os.path.join(self.etc, "slurmdbd.conf")
        self._write(dbd, f"""AuthType=auth/munge
AuthInfo=socket={self.munge_socket}
DbdHost=localhost
DbdPort={self.ports["slurmdbd"]}
SlurmUser=root
PidFile={self._pidfile("slurmdbd")}
LogFile={self.log}/slurmdbd.log
DebugLevel=info
PluginDir={DEBIAN_PLUGINDIR}
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort={self.ports["mysql"]}
StorageUser=root
StorageLoc=slurm_acct_db
""", mode=0o600)
        # The database exists before slurmdbd first connects. Otherwise
        # slurmdbd (mysql_common.c:mysql_db_get_db_connection) creates it
        # after an "Unknown database" (1049) and calls mysql_real_connect()
        # again on the same MYSQL handle; with Debian 13's libmariadb3
        # (Connector/C 3.4.10) that handle's first query then fails with
        # client error 5027 ("Number of columns in result (=1) set exceeds
        # maximum allowed number of columns (=0)"), the connection drops
        # (2006), and slurmdbd 24.11 dies in _check_mysql_concat_is_sane
        # ("null result from query"). Sites create the database and its
        # grants beforehand as Slurm's accounting guide says; so do we.
        r = subprocess.run(["mariadb", "--no-defaults", "-uroot", "-h127.0.0.1",
                            "-P%d" % self.ports["mysql"], "-e",
                            "CREATE DATABASE IF NOT EXISTS slurm_acct_db"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise ClusterError("cannot create slurm_acct_db: " + r.stderr)
        # slurmdbd has no -f: it reads slurmdbd.conf beside $SLURM_CONF
        subprocess.run(["slurmdbd"], check=True, env=self.env(),
                       capture_output=True)
        self._wait(lambda: self._port_open(self.ports["slurmdbd"]), 60, "slurmdbd")

    def _register_cluster(self):
        self.run(["sacctmgr", "-i", "add", "cluster", "optimus"], check=False)
        user = "root"
        self.run(["sacctmgr", "-i", "add", "account", "optimus"], check=False)
        self.run(["sacctmgr", "-i", "add", "user", user, "account=optimus"], check=False)

    # ---------------------------------------------------------------- slurm
    def _start_slurmctld(self, clean=True, name="slurmctld"):
        argv = ["slurmctld", "-f", self.conf] + (["-i"] if clean else [])
        if self.backup:
            argv = self._in_namespace(name, argv)
        # A pid file left by a killed slurmctld (kill -9 tests) names a dead
        # process until the new daemon rewrites it, which 24.11 does later
        # than 22.05: _daemon_alive would take the new one for dead.
        try:
            pid = int(open(self._pidfile(name)).read())
            if not (_pid_alive(pid) and _process_of(pid, self.root)):
                os.unlink(self._pidfile(name))
        except (OSError, ValueError):
            pass
        subprocess.run(argv, check=True, env=self.env(), capture_output=True)
        self._wait(lambda: self._slurmctld_up(name), 60, name)

    def _in_namespace(self, name, argv):
        """argv run as controller `name` of BACKUP: in UTS and mount
        namespaces of its own, with its host name, a hosts file naming
        both controllers' addresses (slurmctld binds its port to its host
        name's address: NoCtldInAddrAny), and its own folder on the
        pid and log files' path. Two controllers on one machine."""
        host, addr = BACKUP[list(CONTROLLERS).index(name)]
        own = os.path.join(self.root, CONTROLLERS[name])
        ctld = os.path.join(self.root, "ctld")
        hosts = os.path.join(self.etc, "hosts")
        for d in (own, ctld):
            os.makedirs(d, exist_ok=True)
        self._write(hosts, "".join("%s %s\n" % (a, h) for h, a in BACKUP) +
                    "127.0.0.1 localhost\n")
        script = ("hostname %s && mount --bind %s %s && "
                  "mount --bind %s /etc/hosts && exec \"$@\"" % (
                      host, own, ctld, hosts))
        return ["unshare", "--uts", "--mount", "sh", "-c", script,
                "sh"] + argv

    def _slurmctld_up(self, name="slurmctld"):
        if not self._daemon_alive(name):
            tail = self.logs(name).splitlines()[-5:]
            raise ClusterError("%s exited:\n%s" % (name, "\n".join(tail)))
        r = self.run(["scontrol", "ping"], check=False, timeout=10)
        if not self.backup:
            return "UP" in r.stdout
        host = BACKUP[list(CONTROLLERS).index(name)][0]
        return "at %s is UP" % host in r.stdout

    def _daemon_alive(self, name):
        """False only once the daemon wrote its pid file and then died (its
        pid gone, or another's by now: _process_of)."""
        try:
            pid = int(open(self._pidfile(name)).read().strip())
        except (OSError, ValueError):
            return True     # not written yet
        return _pid_alive(pid) and _process_of(pid, self.root)

    def _start_slurmd(self, node):
        subprocess.run(["slurmd", "-N", node, "-f", self.conf], check=True,
                       env=self.env(), capture_output=True)

    def nodes_idle(self):
        r = self.run(["sinfo", "-h", "-N", "-o", "%N %T"], check=False, timeout=10)
        states = [l.split()[1] for l in r.stdout.splitlines() if l.strip()]
        return len(states) == self.nodes and all(s == "idle" for s in states)

    # ------------------------------------------------------------ lifecycle
    def start(self):
        """Start every daemon and wait until all nodes are idle."""
        self._layout()
        self.ports = {"slurmctld": 0}
        slot, base, self._slot_claim = _free_slot(self.nodes + 5)
        self.ports = {"slurmctld": base, "slurmdbd": base + 1, "mysql": base + 2,
                      "report": base + 3, "slurmd": base + 5}
        self.task_ports = task_ports(slot)
        self._write(os.path.join(self.root, "ports"),
                    "".join("%s=%d\n" % kv for kv in sorted(self.ports.items()))
                    + "tasks=%d-%d\n" % self.task_ports)
        self._write_config()
        try:
            self._start_munged()
            if self.accounting:
                self._start_mariadb()
                self._start_slurmdbd()
                self._register_cluster()
            self._start_slurmctld()
            if self.backup:
                self._start_slurmctld(clean=False, name="slurmctld2")
            for n in self._node_names():
                self._start_slurmd(n)
            self._wait(self.nodes_idle, 90, "all nodes idle")
        except Exception:
            self.stop(keep=True)
            raise
        return self

    def restart_slurmctld(self):
        """Stop slurmctld by its pid file and start it again (state kept)."""
        self._kill("slurmctld", timeout=30)
        self._start_slurmctld(clean=False)

    def change_nodes(self, names, after_slurmctld_stop=None):
        """Nodes added to or removed from slurm.conf on a live cluster, as
        Slurm (22.05 to 24.11) requires: every slurmd and slurmctld
        restarted with the new file. Running jobs keep running (their
        slurmstepd outlive slurmd); names are nK within the first
        `nodes` (their ports). after_slurmctld_stop() runs while every
        daemon is down."""
        self._kill_all(["slurmd-" + n for n in self._node_names()])
        self._kill("slurmctld", timeout=30)
        if after_slurmctld_stop:
            after_slurmctld_stop()
        self.node_set = sorted(names, key=lambda n: int(n[1:]))
        self.nodes = len(self.node_set)
        self._write(self.conf, self._slurm_conf())
        self._start_slurmctld(clean=False)
        for n in self._node_names():
            self._start_slurmd(n)

    def set_next_job_id(self, job_id):
        """The next job submitted gets job_id (above every id given so
        far): FirstJobId raised in slurm.conf, which slurmctld applies on
        reconfigure (its sequence is the larger of the two)."""
        self.first_job_id = job_id
        self._write(self.conf, self._slurm_conf())
        self.run(["scontrol", "reconfigure"])

    def stop(self, keep=True):
        """Stop every daemon by its pid file; remove the folder unless keep."""
        if self.ports and self._daemon_alive("slurmctld"):
            # Jobs' processes outlive slurmd: end them through Slurm first
            # (those it misses carry OPTIMUS_CLUSTER: _kill_leftovers).
            # Pending jobs have no processes: the daemons' end is theirs.
            try:
                self.run(["scancel", "--full", "--state=RUNNING"],
                         check=False, timeout=10)
            except subprocess.TimeoutExpired:
                pass    # a slurmctld that does not answer: killed below
        # Every daemon takes about 2 s to exit on SIGTERM, so the daemons
        # of one kind are told at once (one after the other, a stop took
        # 12 s: ~4 minutes of each CI lane). The order stays: slurmctld
        # told with its slurmds waits for the jobs it just cancelled until
        # it is killed (30 s, measured); munged last, the others need it.
        self._kill_all(["slurmd-" + n for n in self._node_names()])
        self._kill_all(["slurmctld"] + (["slurmctld2"] if self.backup else [])
                       + ["slurmdbd", "mariadb"], timeout=30)
        self._kill_all(["munged"])
        self._kill_leftovers()
        if self._slot_claim is not None:
            self._slot_claim.close()
            self._slot_claim = None
        if not keep:
            shutil.rmtree(self.root, ignore_errors=True)

    def _kill_leftovers(self):
        """Kill processes still running with this cluster's environment
        (slurmstepd inherits OPTIMUS_CLUSTER from slurmd; the tasks of an
        optimus job have the cluster's name there, set by spank/optimus,
        and are known by their SLURM_CONF)."""
        tags = (("OPTIMUS_CLUSTER=%s" % self.root).encode(),
                ("SLURM_CONF=%s" % self.conf).encode())
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == os.getpid():
                continue
            try:
                with open("/proc/%s/environ" % pid, "rb") as f:
                    env = f.read().split(b"\0")
            except OSError:
                continue
            if any(t in env for t in tags) and _in_our_root(int(pid)):
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except OSError:
                    pass

    def _kill(self, name, timeout=15):
        self._kill_all([name], timeout)

    def _daemon_pids(self, name):
        """The pids of a daemon: its pid file's, and for slurmd (and the
        one slurmctld of a cluster without a backup) every process running
        it with this cluster's slurm.conf. Slurm 23.11+ answers scontrol
        reconfigure with a new process that takes over from the old one,
        whose exit can remove the pid file the new one wrote (CI, Debian
        13: a slurmd 'stopped' by its pid file kept running and registered
        a node that was no longer in slurm.conf)."""
        pids = set()
        try:
            pid = int(open(self._pidfile(name)).read().strip())
            if _process_of(pid, self.root):
                pids.add(pid)
        except (OSError, ValueError):
            pass
        if name.startswith("slurmd-"):
            want = ["slurmd", "-N", name[len("slurmd-"):]]
        elif name == "slurmctld" and not self.backup:
            want = ["slurmctld"]
        else:
            return pids
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    argv = f.read().decode(errors="replace").split("\0")
            except OSError:
                continue
            if argv and os.path.basename(argv[0]) == want[0] and \
                    self.conf in argv and \
                    all(w in argv for w in want[1:]) and \
                    _in_our_root(int(pid)):
                pids.add(int(pid))
        return pids

    def _node_pids(self, node):
        """Every process of node `node` on this machine: its slurmd, the
        slurmstepd its slurmd started, and their descendants (the jobs'
        tasks). A slurmstepd is the node's by the socket it listens on in
        the node's own SlurmdSpoolDir (spool/<node>/<node>_<job>.<step>,
        as Slurm's own stepd_available finds them); its environ cannot
        tell, the node name is set there after it started. A task that
        left its slurmstepd's tree is the node's by SLURMD_NODENAME with
        this cluster's SLURM_CONF in its environment."""
        spool = os.path.join(self.root, "spool", node) + "/"
        inodes = set()
        try:
            with open("/proc/net/unix") as f:
                for line in f.readlines()[1:]:
                    cols = line.split()
                    if len(cols) >= 8 and cols[7].startswith(spool):
                        inodes.add("socket:[%s]" % cols[6])
        except OSError:
            pass
        tags = (("SLURMD_NODENAME=%s" % node).encode(),
                ("SLURM_CONF=%s" % self.conf).encode())
        roots = set(self._daemon_pids("slurmd-" + node))
        parent = {}
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == os.getpid():
                continue
            try:
                with open("/proc/%s/stat" % pid) as f:
                    # "pid (comm) state ppid ...": comm may hold spaces
                    parent[int(pid)] = int(f.read().rsplit(")", 1)[1].split()[1])
                if not _in_our_root(int(pid)):
                    continue
                with open("/proc/%s/environ" % pid, "rb") as f:
                    env = f.read().split(b"\0")
                if all(t in env for t in tags):
                    roots.add(int(pid))
                    continue
                fds = "/proc/%s/fd" % pid
                if inodes and any(os.readlink(os.path.join(fds, fd)) in inodes
                                  for fd in os.listdir(fds)):
                    roots.add(int(pid))
            except (OSError, ValueError, IndexError):
                continue
        pids, grown = set(roots), True
        while grown:
            more = {p for p, pp in parent.items() if pp in pids} - pids
            pids |= more
            grown = bool(more)
        return pids

    def kill_node(self, node):
        """A node's death, as a machine that dies takes its processes with
        it: its slurmd, its slurmstepd and their tasks SIGKILLed, nothing
        saved, nothing told. (Killing slurmd alone leaves the node's steps
        running: back, its slurmd reports them and Slurm kills the job it
        has requeued meanwhile.) Looked for again until none is left: a
        slurmstepd may fork a task while the others die."""
        killed = set()
        for _ in range(10):
            # The killed stay in /proc until reaped: only new ones count.
            pids = self._node_pids(node) - killed
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            killed |= pids
            time.sleep(0.2)
        # Gone before the caller starts the node again (its slurmd's port).
        deadline = time.time() + 10
        while time.time() < deadline and any(_pid_alive(p) for p in killed):
            time.sleep(0.1)
        try:
            os.unlink(self._pidfile("slurmd-" + node))
        except OSError:
            pass
        return killed

    def _kill_all(self, names, timeout=15):
        """SIGTERM the daemons named (by pid file) at once, wait for all of
        them up to `timeout` s, SIGKILL those still alive."""
        pids = []
        for name in names:
            for pid in self._daemon_pids(name):
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
                pids.append(pid)
            try:
                os.unlink(self._pidfile(name))
            except OSError:
                pass
        deadline = time.time() + timeout
        while time.time() < deadline and any(_pid_alive(p) for p in pids):
            time.sleep(0.1)
        for pid in pids:
            if _pid_alive(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    # -------------------------------------------------------------- helpers
    def _port_open(self, port):
        with socket.socket() as s:
            s.settimeout(0.5)
            return s.connect_ex(("127.0.0.1", port)) == 0

    def _wait(self, predicate, timeout, what):
        """Wait for predicate(). `what` names the wait; a callable is
        called at the timeout, so the error can say what the cluster said
        by then (CI keeps no cluster to read afterwards)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                if predicate():
                    return
            except (subprocess.SubprocessError, OSError):
                pass
            time.sleep(0.25)
        raise ClusterError("timed out after %ds waiting for %s; logs in %s"
                           % (timeout, what() if callable(what) else what,
                              self.log))

    def job_story(self, job_id, lines=40):
        """What Slurm said of job_id, for a failed wait's message:
        `scontrol show job` (or that slurmctld did not answer), whether
        slurmctld still runs, the last slurmctld log lines that name the
        job and the log's last lines (a controller that stopped
        answering says why there, if anywhere)."""
        try:
            r = self.run(["scontrol", "-o", "show", "job", str(job_id)],
                         check=False, timeout=10)
            said_scontrol = r.stdout.strip() or r.stderr.strip()
        except subprocess.TimeoutExpired:
            said_scontrol = "no answer in 10 s"
        alive = []
        for pid in os.listdir("/proc"):
            try:
                with open("/proc/%s/comm" % pid) as f:
                    if pid.isdigit() and f.read().strip() == "slurmctld" \
                            and _in_our_root(int(pid)):
                        alive.append(pid)
            except OSError:
                pass
        named = re.compile(r"JobId=%s\b|job_id=%s\b|JobID=%s\b"
                           % ((job_id,) * 3))
        log = self.logs("slurmctld").splitlines()
        said = [l for l in log if named.search(l)]
        return ("\nscontrol: " + said_scontrol +
                "\nslurmctld processes: " + (" ".join(alive) or "none") +
                "\nslurmctld on the job:\n  " + "\n  ".join(said[-lines:]) +
                "\nslurmctld's last lines:\n  " + "\n  ".join(log[-lines:]))

    def logs(self, name="slurmctld"):
        path = os.path.join(self.log, name + ".log")
        if self.backup and name in CONTROLLERS:
            path = os.path.join(self.root, CONTROLLERS[name], "slurmctld.log")
        try:
            return open(path).read()
        except OSError:
            return ""

    def wait_job_state(self, job_id, states, timeout=60):
        """Wait until job_id is in one of `states`; returns the state."""
        found = [None]

        def check():
            r = self.run(["scontrol", "-o", "show", "job", str(job_id)],
                         check=False, timeout=10)
            for tok in r.stdout.split():
                if tok.startswith("JobState="):
                    found[0] = tok.split("=", 1)[1]
            return found[0] in states
        self._wait(check, timeout, lambda: "job %s in %s (last %s)%s" % (
            job_id, states, found[0], self.job_story(job_id)))
        return found[0]

    def job_fields(self, job_id):
        """`scontrol show job` as a dict of its KEY=VALUE fields.

        Comments may hold spaces and '=': scontrol prints each of them
        alone on its line, which is taken whole.
        """
        r = self.run(["scontrol", "show", "job", str(job_id)])
        fields = {}
        for line in r.stdout.splitlines():
            key = line.strip().split("=", 1)[0]
            if key in WHOLE_LINE_FIELDS:
                fields[key] = line.strip().split("=", 1)[1]
            else:
                fields.update(_parse_fields(line))
        return fields

    def sbatch(self, args, script="#!/bin/sh\nsleep 1\n"):
        """Submit a batch job; returns its id."""
        r = self.run(["sbatch", "--parsable"] + list(args), input=script)
        return int(r.stdout.strip().split(";")[0])


WHOLE_LINE_FIELDS = ("Comment", "AdminComment", "SystemComment", "Command",
                     "WorkDir", "StdOut", "StdErr", "StdIn")


def _parse_fields(line):
    """Parse KEY=VALUE tokens; a value runs until the next ' KEY=' token."""
    fields = {}
    key = None
    for tok in line.strip().split(" "):
        if "=" in tok and tok.split("=", 1)[0].replace("/", "").replace(":", "").isalnum():
            key, value = tok.split("=", 1)
            fields[key] = value
        elif key is not None:
            fields[key] += " " + tok
    return fields

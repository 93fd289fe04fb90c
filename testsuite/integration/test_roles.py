# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Per-task roles on a real cluster: what each task of an optimus job sees.

Each job runs one srun step whose tasks write their environment to files;
the tests check the roles, ranks, host lists, ports, data shards and the
MXNet / TensorFlow / PyTorch variables against each other and against
Theorem 1's even split, for several topologies: derived from the job's
size, decided by "the scheduler" (a client-side stand-in plugin puts
OPTIMUS_TOPOLOGY in the job's SPANK environment as sched/optimus does),
a separate layout through a heterogeneous step, and a job requeued and
resized, whose second run sees the new topology.

The cluster runs sched/backfill so that these tests do not depend on the
scheduler plugin's progress: only the topology's source differs.
"""
import json
import os
import tempfile
import time

import pytest

# conftest puts testsuite/cluster (the harness and its helpers) on the path
import hints_helpers as hh  # noqa: E402
from cluster import gpu_tres, gpu_tres_bind  # noqa: E402

CLUSTER_OPTIONS = {"scheduler": "sched/backfill"}


def _ports(text):
    """Slurm's reserved ports, "12000-12003,12007", as a list."""
    out = []
    for item in text.split(","):
        lo, _, hi = item.partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    return out


def check_ports(tasks, cluster_ports=None, het=False):
    """Every task's ports are ports Slurm reserved for its step on its node
    (SLURM_STEP_RESV_PORTS), within the cluster's MpiParams=ports= range:
    on each host the first is the step's rendezvous (DMLC's root on PS 0's,
    PyTorch's master on worker 0's), then one per task of the host, none
    twice. A heterogeneous step's tasks see the union of its components'
    reservations (srun's): there the rendezvous ports are reserved ones
    that no task of their host takes."""
    by_host, rendezvous = {}, {}
    for t in tasks:
        resv = _ports(t["SLURM_STEP_RESV_PORTS"])
        port = int(t["OPTIMUS_PORT"])
        assert port in resv[1:], (port, resv)
        by_host.setdefault(_addr(t), []).append(port)
        if cluster_ports:
            assert cluster_ports[0] <= min(resv) <= max(resv) <= \
                cluster_ports[1], (resv, cluster_ports)
        for key in ("DMLC_PS_ROOT_PORT", "MASTER_PORT"):
            if key in t:
                assert int(t[key]) in resv, (key, t[key], resv)
                assert het or int(t[key]) == resv[0], (key, t[key], resv)
                rendezvous[key] = int(t[key])
    for host, ports in by_host.items():
        assert len(set(ports)) == len(ports), (host, ports)
    for t in tasks:
        for key, root in (("DMLC_PS_ROOT_PORT", "DMLC_PS_ROOT_URI"),
                          ("MASTER_PORT", "MASTER_ADDR")):
            if key in t:
                assert rendezvous[key] not in by_host.get(t[root], []), \
                    (key, t[key], by_host)

DUMP = ("#!/bin/sh\n"
        "env > {d}/batch.$SLURM_RESTART_COUNT\n"
        "srun sh -c 'env > {d}/task.$SLURM_RESTART_COUNT.$SLURM_PROCID'\n")


def _read_env(path):
    env = {}
    for line in open(path).read().split("\n"):
        if "=" in line:
            k, v = line.split("=", 1)
            env[k] = v
    return env


def _run(cluster, hints, args, script=DUMP, conf=None, env=None, ntasks=None):
    d = tempfile.mkdtemp(prefix="roles-", dir=cluster.root)
    r = hh.sbatch(cluster, ["-o", os.path.join(d, "out"), "-t", "2",
                            "--scheduler=" + hints] + list(args),
                  script.format(d=d), conf=conf, env=env)
    jid = hh.job_id(r)
    cluster.wait_job_state(jid, {"COMPLETED", "FAILED", "CANCELLED"}, 90)
    assert cluster.job_fields(jid)["JobState"] == "COMPLETED", \
        open(os.path.join(d, "out")).read()
    n = ntasks or int(cluster.job_fields(jid)["NumTasks"])
    tasks = [_read_env(os.path.join(d, "task.0.%d" % i)) for i in range(n)]
    return jid, _read_env(os.path.join(d, "batch.0")), tasks, d


def _by_role(tasks, role):
    out = [t for t in tasks if t["OPTIMUS_ROLE"] == role]
    return sorted(out, key=lambda t: int(t["OPTIMUS_RANK"]))


def _share_front(n, k, i):
    return n // k + (1 if i < n % k else 0)


def _share_back(n, k, i):
    return n // k + (1 if i >= k - n % k else 0)


# NodeAddr of each node (host lists hold the address Slurm
# connects to, never a node name that need not resolve).
NODE_ADDR = {}


@pytest.fixture(autouse=True)
def node_addrs(cluster):
    if not NODE_ADDR:
        r = cluster.run(["scontrol", "-o", "show", "node"])
        for line in r.stdout.splitlines():
            f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
            NODE_ADDR[f["NodeName"]] = f["NodeAddr"]
    return NODE_ADDR


def _addr(t):
    return NODE_ADDR[t["SLURMD_NODENAME"]]


def check_roles(jid, tasks, p, w, mode="async", layout="colocated",
                source="derived", het=False):
    """Every cross-consistency rule of the task environment."""
    ps, workers = _by_role(tasks, "ps"), _by_role(tasks, "worker")
    assert len(ps) == p and len(workers) == w
    assert [int(t["OPTIMUS_RANK"]) for t in ps] == list(range(p))
    assert [int(t["OPTIMUS_RANK"]) for t in workers] == list(range(w))
    check_ports(tasks, het=het)
    for t in tasks:
        assert t["OPTIMUS_JOB_ID"] == str(jid)
        # the default checkpoint folder is the job's own, not its id's:
        # cluster, id and the submission stamp from sbatch
        assert t["OPTIMUS_CLUSTER"] == "optimus"
        assert t["OPTIMUS_SUBMIT_TIME"].isdigit()
        assert abs(int(t["OPTIMUS_SUBMIT_TIME"]) - time.time()) < 600
        ckpt = os.path.join(os.getcwd(), "optimus-checkpoints",
                            "optimus-%d-%s" % (jid, t["OPTIMUS_SUBMIT_TIME"]))
        assert t["OPTIMUS_NUM_PS"] == str(p)
        assert t["OPTIMUS_NUM_WORKERS"] == str(w)
        assert t["OPTIMUS_TOPOLOGY"] == "ps=%d,workers=%d" % (p, w)
        assert t["OPTIMUS_TOPOLOGY_SOURCE"] == source
        assert t["OPTIMUS_MODE"] == mode
        assert t["OPTIMUS_CHECKPOINT_DIR"] == ckpt
        assert t["SLURM_RESTART_COUNT"] == "0"
        assert t["OPTIMUS_SHARD_COUNT"] == str(w)
    # host lists: rank order, each entry the task's own host:port
    ps_hosts = ["%s:%s" % (_addr(t), t["OPTIMUS_PORT"]) for t in ps]
    wk_hosts = ["%s:%s" % (_addr(t), t["OPTIMUS_PORT"]) for t in workers]
    assert len(set(ps_hosts + wk_hosts)) == p + w, "a port is used twice"
    for t in tasks:
        assert t["OPTIMUS_PS_HOSTS"] == ",".join(ps_hosts)
        assert t["OPTIMUS_WORKER_HOSTS"] == ",".join(wk_hosts)
        tf = json.loads(t["TF_CONFIG"])
        assert tf["cluster"]["ps"] == ps_hosts
        assert tf["cluster"]["worker"] == wk_hosts
        assert tf["task"] == {"type": t["OPTIMUS_ROLE"],
                              "index": int(t["OPTIMUS_RANK"])}
        assert t["DMLC_ROLE"] == {"ps": "server", "worker": "worker"}[
            t["OPTIMUS_ROLE"]]
        assert t["DMLC_PS_ROOT_URI"] == _addr(ps[0])
        assert t["DMLC_PS_ROOT_PORT"] == ps[0]["DMLC_PS_ROOT_PORT"]
        assert t["DMLC_NUM_SERVER"] == str(p)
        assert t["DMLC_NUM_WORKER"] == str(w)
    for t in ps:
        assert "RANK" not in t and "OPTIMUS_SHARD_INDEX" not in t
    check_torch(workers)
    return _per_node(tasks)


def check_torch(workers):
    """What torch.distributed and torchrun read, among the workers."""
    w = len(workers)
    local = {}
    for t in workers:
        assert t["OPTIMUS_SHARD_INDEX"] == t["OPTIMUS_RANK"]
        assert t["RANK"] == t["OPTIMUS_RANK"]
        assert t["WORLD_SIZE"] == str(w)
        assert t["MASTER_ADDR"] == _addr(workers[0])
        assert t["MASTER_PORT"] == workers[0]["MASTER_PORT"]
        local.setdefault(t["SLURMD_NODENAME"], []).append(int(t["LOCAL_RANK"]))
    nodes = sorted(local, key=lambda n: int(n[1:]))
    for node, ranks in local.items():
        assert sorted(ranks) == list(range(len(ranks))), node
    first = 0
    for i, node in enumerate(nodes):
        mine = [t for t in workers if t["SLURMD_NODENAME"] == node]
        for t in mine:
            assert t["LOCAL_WORLD_SIZE"] == str(len(mine))
            assert t["NODE_RANK"] == t["GROUP_RANK"] == str(i)
            # ranks contiguous node by node, as torchrun gives them
            assert int(t["RANK"]) == first + int(t["LOCAL_RANK"])
        first += len(mine)


def _per_node(tasks):
    """{node: (PS, workers)} in node order."""
    out = {}
    for t in tasks:
        n = out.setdefault(t["SLURMD_NODENAME"], [0, 0])
        n[0 if t["OPTIMUS_ROLE"] == "ps" else 1] += 1
    return {k: tuple(v) for k, v in sorted(out.items(),
                                           key=lambda kv: int(kv[0][1:]))}


def check_theorem1(per_node, p, w):
    k = len(per_node)
    for i, (ps, wk) in enumerate(per_node.values()):
        assert (ps, wk) == (_share_front(p, k, i), _share_back(w, k, i)), \
            per_node


@pytest.mark.parametrize("hints,args,p,w,mode,nodes", [
    ("optimus,ps=1,workers=1", [], 1, 1, "async", 1),
    ("optimus,ps=2,workers=2", ["-N2"], 2, 2, "async", 2),
    ("optimus,mode=sync,ps=4,workers=4,batch=64", ["-N4"], 4, 4, "sync", 4),
    ("optimus,ps=1,workers=3", ["-N2"], 1, 3, "async", 2),
    ("quality,mode=sync,min_ps=2,max_ps=3,workers=6,worker_cpus=2", [],
     2, 6, "sync", 2),
], ids=["1node-1+1", "2nodes-2+2", "4nodes-4+4-sync", "2nodes-1+3",
        "quality-2+6-fit"])
def test_colocated_roles(cluster, hints, args, p, w, mode, nodes):
    jid, batch, tasks, _ = _run(cluster, hints, args)
    per_node = check_roles(jid, tasks, p, w, mode)
    assert len(per_node) == nodes
    check_theorem1(per_node, p, w)
    # the batch script sees the job-level variables, no role
    assert batch["OPTIMUS_NUM_PS"] == str(p)
    assert batch["OPTIMUS_NUM_WORKERS"] == str(w)
    assert batch["OPTIMUS_TOPOLOGY_SOURCE"] == "derived"
    assert "OPTIMUS_ROLE" not in batch and "SLURM_SPANK_OPTIMUS_TOPOLOGY" \
        not in batch


def check_allreduce(jid, tasks, w):
    """mode=allreduce: every task a worker, no PS, torch's variables."""
    assert len(tasks) == w
    check_ports(tasks)
    assert all(t["OPTIMUS_ROLE"] == "worker" for t in tasks)
    workers = _by_role(tasks, "worker")
    assert [int(t["RANK"]) for t in workers] == list(range(w))
    for t in tasks:
        assert t["OPTIMUS_JOB_ID"] == str(jid)
        assert t["OPTIMUS_MODE"] == "allreduce"
        assert t["OPTIMUS_NUM_PS"] == "0"
        assert t["OPTIMUS_NUM_WORKERS"] == str(w)
        assert t["OPTIMUS_TOPOLOGY"] == "ps=0,workers=%d" % w
        assert t["OPTIMUS_PS_HOSTS"] == ""
        assert "DMLC_ROLE" not in t and "DMLC_PS_ROOT_URI" not in t
        assert "ps" not in json.loads(t["TF_CONFIG"])["cluster"]
        assert t["OPTIMUS_SHARD_INDEX"] == t["RANK"]
        assert t["MASTER_ADDR"] == _addr(workers[0])
    check_torch(workers)
    return _per_node(tasks)


@pytest.mark.parametrize("hints,args,w,nodes", [
    ("optimus,mode=allreduce,workers=1", [], 1, 1),
    ("optimus,mode=allreduce,workers=4", ["-N2"], 4, 2),
    # 6 workers of 2 CPUs: 2 nodes of 3 (fewest nodes, even split)
    ("optimus,mode=allreduce,ps=0,workers=6,worker_cpus=2", [], 6, 2),
    ("quality,mode=allreduce,workers=5,batch=50", ["-N2"], 5, 2),
], ids=["1worker", "2nodes-4", "fit-6", "quality-2nodes-5"])
def test_allreduce_roles(cluster, hints, args, w, nodes):
    jid, batch, tasks, _ = _run(cluster, hints, args)
    per_node = check_allreduce(jid, tasks, w)
    assert len(per_node) == nodes
    # an even split (no PS to front-load: either end may hold the extra)
    counts = [wk for _, wk in per_node.values()]
    assert max(counts) - min(counts) <= 1, per_node
    assert batch["OPTIMUS_NUM_PS"] == "0"
    assert batch["OPTIMUS_MODE"] == "allreduce"
    assert "RANK" not in batch


GPU_DUMP = ("#!/bin/sh\n"
            "env > {d}/batch.$SLURM_RESTART_COUNT\n"
            "srun --gpus-per-task=1 sh -c "
            "'env > {d}/task.$SLURM_RESTART_COUNT.$SLURM_PROCID'\n")


def test_allreduce_task_per_gpu(cluster):
    """worker_gpus=1: the job gets a GPU per worker on each node, and a
    step with one task per GPU (srun --gpus-per-task=1) is bound by Slurm
    one GPU per task; the plugin sets no device variable itself. (The
    test nodes' GPUs are stand-in files, for which Slurm sets no
    CUDA_VISIBLE_DEVICES: the binding Slurm applies is what is checked.)"""
    jid, _, tasks, _ = _run(cluster, "optimus,mode=allreduce,workers=4,"
                            "worker_gpus=1", ["-N2"], script=GPU_DUMP)
    assert cluster.job_fields(jid)["TresPerNode"] == gpu_tres(2)
    check_allreduce(jid, tasks, 4)
    for t in tasks:
        assert t["SLURM_GPUS_ON_NODE"] == "2"
        assert t["SLURMD_TRES_BIND"] == gpu_tres_bind(1)
        assert t["LOCAL_WORLD_SIZE"] == "2"


def test_scheduler_topology(cluster, tmp_path):
    """OPTIMUS_TOPOLOGY in the job's SPANK env wins over the derived one."""
    conf = hh.topology_conf(cluster, str(tmp_path))
    if not conf:
        pytest.skip("gcc is needed to build the stand-in plugin")
    # 4 tasks: derived would be 1 PS + 3 workers; the scheduler says 2 + 2
    jid, batch, tasks, _ = _run(
        cluster, "optimus,min_ps=1,max_ps=3,workers=3", ["-N2"], conf=conf,
        env={"TEST_OPTIMUS_TOPOLOGY": "ps=2,workers=2"})
    assert batch["OPTIMUS_TOPOLOGY_SOURCE"] == "scheduler"
    assert batch["SLURM_SPANK_OPTIMUS_TOPOLOGY"] == "ps=2,workers=2"
    per_node = check_roles(jid, tasks, 2, 2, source="scheduler")
    check_theorem1(per_node, 2, 2)


def test_scheduler_topology_of_other_size_ignored(cluster, tmp_path):
    """A topology that does not add up to the step's tasks is not used."""
    conf = hh.topology_conf(cluster, str(tmp_path))
    if not conf:
        pytest.skip("gcc is needed to build the stand-in plugin")
    jid, batch, tasks, _ = _run(
        cluster, "optimus,ps=1,workers=1", [], conf=conf,
        env={"TEST_OPTIMUS_TOPOLOGY": "ps=3,workers=5"})
    assert batch["OPTIMUS_TOPOLOGY_SOURCE"] == "derived"
    check_roles(jid, tasks, 1, 1)


HET = ("#!/bin/sh\n"
       "srun -N1 -n $OPTIMUS_NUM_PS sh -c 'env > {d}/ps.$SLURM_PROCID' : "
       "-N1 -n $OPTIMUS_NUM_WORKERS sh -c 'env > {d}/worker.$SLURM_PROCID'\n")


# Slurm 24.11's cons_tres gives a job with a task count only the CPUs of
# the tasks it places on each node (dist_tasks.c), so 1 PS + 2 workers asked
# as 3 tasks got 2 + 1 CPUs and the worker component (-n 2) did not fit on
# its node ("More processors requested than permitted"). A separate-layout
# job now asks for the fullest node's task slots on every node
# (hints_request_t.task_slots) and runs on 22.05 and 24.11 alike.
def test_separate_layout_het_step(cluster):
    """srun -n P ps : -n W worker: component 0 on its own node = the PS."""
    d = tempfile.mkdtemp(prefix="het-", dir=cluster.root)
    r = hh.sbatch(cluster, ["-o", os.path.join(d, "out"), "-t", "2",
                            "--scheduler=optimus,layout=separate,ps=1,workers=2"],
                  HET.format(d=d))
    jid = hh.job_id(r)
    cluster.wait_job_state(jid, {"COMPLETED", "FAILED"}, 90)
    files = sorted(f for f in os.listdir(d) if f != "out")
    assert files == ["ps.0", "worker.1", "worker.2"], files
    tasks = []
    for f in files:
        t = _read_env(os.path.join(d, f))
        assert t["OPTIMUS_ROLE"] == f.split(".")[0]
        tasks.append(t)
    per_node = check_roles(jid, tasks, 1, 2, layout="separate", het=True)
    assert sorted(per_node.values()) == [(0, 2), (1, 0)]


REQUEUE = ("#!/bin/sh\n"
           "srun sh -c 'env > {d}/task.$SLURM_RESTART_COUNT.$SLURM_PROCID'\n"
           "[ \"$SLURM_RESTART_COUNT\" = 0 ] && sleep 300\n"
           "exit 0\n")


def test_requeued_job_sees_new_topology(cluster):
    """Requeue, resize from 1 node / 2 tasks to 2 nodes / 4 tasks: run 2
    sees 1 PS + 3 workers on 2 nodes, its restart count and the same
    checkpoint folder (the job id is kept)."""
    d = tempfile.mkdtemp(prefix="requeue-", dir=cluster.root)
    r = hh.sbatch(cluster, ["-o", os.path.join(d, "out"), "-t", "10",
                            "--scheduler=optimus,min_ps=1,max_ps=2,"
                            "min_workers=1,max_workers=4"],
                  REQUEUE.format(d=d))
    jid = hh.job_id(r)
    first = [os.path.join(d, "task.0.%d" % i) for i in range(2)]
    assert hh.wait_files(first), os.listdir(d)
    run1 = [_read_env(f) for f in first]
    check_roles(jid, run1, 1, 1)
    cluster.run(["scontrol", "requeue", str(jid)])
    cluster.wait_job_state(jid, {"PENDING"}, 60)
    cluster.run(["scontrol", "update", "jobid=%d" % jid, "numnodes=2-2",
                 "numtasks=4"])
    # requeue sets begin_time = now + cred_expire + 1 (10 s here)
    cluster.wait_job_state(jid, {"COMPLETED"}, 120)
    run2 = [_read_env(os.path.join(d, "task.1.%d" % i)) for i in range(4)]
    for t in run2:
        assert t["SLURM_RESTART_COUNT"] == "1"
        t["SLURM_RESTART_COUNT"] = "0"  # check_roles expects a first run
    per_node = check_roles(jid, run2, 1, 3)
    assert len(per_node) == 2
    check_theorem1(per_node, 1, 3)
    assert run2[0]["OPTIMUS_CHECKPOINT_DIR"] == run1[0]["OPTIMUS_CHECKPOINT_DIR"]


SIDE_BY_SIDE = ("#!/bin/sh\n"
                "srun sh -c 'env > {d}/task.$SLURM_RESTART_COUNT.$SLURM_PROCID;"
                " sleep 10'\n")


def test_ports_differ_between_jobs_on_a_node(cluster):
    """Two jobs' steps running at once on one node: Slurm reserved them
    different ports (MpiParams=ports=, within this cluster's range)."""
    d = tempfile.mkdtemp(prefix="side-", dir=cluster.root)
    ids = []
    for x in ("a", "b"):
        os.makedirs(os.path.join(d, x))
        ids.append(hh.job_id(hh.sbatch(
            cluster, ["-o", "/dev/null", "-t", "2", "-w", "n1",
                      "--scheduler=optimus,ps=1,workers=1"],
            SIDE_BY_SIDE.format(d=os.path.join(d, x)))))
    for jid in ids:
        cluster.wait_job_state(jid, {"COMPLETED"}, 90)
    ta = [_read_env(os.path.join(d, "a", "task.0.%d" % i)) for i in range(2)]
    tb = [_read_env(os.path.join(d, "b", "task.0.%d" % i)) for i in range(2)]
    check_ports(ta, cluster.task_ports)
    check_ports(tb, cluster.task_ports)
    ports_a = set(_ports(ta[0]["SLURM_STEP_RESV_PORTS"]))
    ports_b = set(_ports(tb[0]["SLURM_STEP_RESV_PORTS"]))
    assert not ports_a & ports_b, (ports_a, ports_b)


def test_plain_job_untouched(cluster):
    """A job without --scheduler gets none of the variables."""
    d = tempfile.mkdtemp(prefix="plain-", dir=cluster.root)
    jid = cluster.sbatch(["-o", "/dev/null", "-n2"], DUMP.format(d=d))
    cluster.wait_job_state(jid, {"COMPLETED"}, 60)
    t = _read_env(os.path.join(d, "task..0"))
    for k in ("OPTIMUS_ROLE", "OPTIMUS_RANK", "OPTIMUS_JOB_ID",
              "OPTIMUS_TOPOLOGY", "DMLC_ROLE", "TF_CONFIG", "MASTER_ADDR"):
        assert k not in t, k

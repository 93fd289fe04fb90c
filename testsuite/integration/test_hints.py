# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""--scheduler hints on a real cluster: accepted, refused, and sized.

Every hint documented in optimus_hints(5) is submitted through sbatch: good
ones are accepted and give the job its initial size (held jobs, so that
nothing runs); bad ones are refused twice over, by spank/optimus inside
sbatch itself and, with that early check turned off on the client
(submit_check=0), by job_submit/optimus in slurmctld. Either way sbatch
exits non-zero and prints a message naming the key and its accepted range.

The cluster runs sched/backfill: hints and sizing do not depend on the
scheduler, and only sched/backfill lets a heterogeneous job reach
job_submit/optimus (slurmctld refuses them earlier otherwise).
"""
import os
import tempfile

import pytest

# conftest puts testsuite/cluster (the harness and its helpers) on the path
import hints_helpers as hh  # noqa: E402
from waiting import wait_for  # noqa: E402
from cluster import Cluster, gpu_tres  # noqa: E402

CLUSTER_OPTIONS = {"scheduler": "sched/backfill"}
SCRIPT = "#!/bin/sh\ntrue\n"

# (hints, fields of `scontrol show job` the initial request must have)
ACCEPTED = [
    ("optimus", {"NumNodes": "1-1", "NumTasks": "2", "CPUs/Task": "1",
                 "MinMemoryNode": "2G"}),
    ("quality", {"NumTasks": "2"}),
    ("optimus,ps=2,workers=2", {"NumNodes": "1-1", "NumTasks": "4",
                                "MinMemoryNode": "4G"}),
    ("optimus,mode=sync,workers=4,batch=128", {"NumTasks": "5"}),
    ("optimus,mode=async,min_ps=1,max_ps=4,min_workers=2,max_workers=8",
     {"NumTasks": "3"}),
    # 1 PS + 4 workers of 2 CPUs do not fit 8 CPUs: 2 nodes (3 + 2 tasks)
    ("optimus,workers=4,worker_cpus=2,worker_gpus=1,ps_mem=2G",
     {"NumNodes": "2-2", "NumTasks": "5", "CPUs/Task": "2",
      "MinMemoryNode": "4G", "TresPerNode": gpu_tres(2)}),
    ("optimus,ps_cpus=3,ps_mem=512M,ps_gpus=0,worker_mem=1536",
     {"CPUs/Task": "3", "MinMemoryNode": "2G"}),
    ("optimus,delta=0.0005,model=resnet-50,form=inverse", {"NumTasks": "2"}),
    ("quality,form=power,weight=2.5", {"NumTasks": "2"}),
    ("optimus,form=exp,steps=100000,epochs=90,epoch_steps=5000",
     {"NumTasks": "2"}),
    ("optimus,ckpt_signal=SIGUSR2,ckpt_grace=120,ckpt_dir=/tmp/ckpt",
     {"NumTasks": "2"}),
    ("optimus,ckpt_signal=10", {"NumTasks": "2"}),
    # 1 PS node + 1 worker node (2 workers), each with the fullest
    # node's 2 task slots: the batch script runs 3 (spank/optimus)
    ("optimus,layout=separate,ps=1,workers=2",
     {"NumNodes": "2-2", "NumTasks": "4"}),
    ("optimus,layout=colocated", {"NumTasks": "2"}),
    # all-reduce: one task per worker, no PS task
    ("optimus,mode=allreduce,workers=4",
     {"NumNodes": "1-1", "NumTasks": "4", "CPUs/Task": "1",
      "MinMemoryNode": "4G"}),
    # 6 workers of 2 CPUs do not fit 8 CPUs: 2 nodes of 3, GPUs per worker
    ("optimus,mode=allreduce,ps=0,workers=6,worker_cpus=2,worker_gpus=1",
     {"NumNodes": "2-2", "NumTasks": "6", "CPUs/Task": "2",
      "MinMemoryNode": "3G", "TresPerNode": gpu_tres(3)}),
    ("quality,mode=allreduce,min_workers=2,max_workers=8,batch=64",
     {"NumTasks": "2"}),
]

# (hints, text the message must contain)
REFUSED = [
    ("fifo", "optimus or quality"),
    ("optimus,colour=red", "unknown --scheduler key 'colour'"),
    ("optimus,ps", "expected KEY=VALUE"),
    ("optimus,ps=0", "ps must be an integer from 1 to 256"),
    ("optimus,workers=5000", "workers must be an integer from 1 to 4096"),
    ("optimus,min_ps=3,max_ps=2", "1 <= min_ps <= max_ps <= 256"),
    ("optimus,min_workers=4,max_workers=2", "min_workers <= max_workers"),
    ("optimus,ps=2,ps=3", "'ps' given twice"),
    ("optimus,ps=2,max_ps=3", "give either ps=N or min_ps/max_ps"),
    ("optimus,mode=fast", "mode must be one of: async, sync"),
    ("optimus,ps_cpus=0", "ps_cpus must be an integer from 1 to 1024"),
    ("optimus,worker_cpus=2000", "worker_cpus must be an integer from 1 to 1024"),
    ("optimus,ps_mem=0", "ps_mem must be a size from 1M to 16T"),
    ("optimus,worker_mem=lots", "worker_mem must be a size from 1M to 16T"),
    ("optimus,worker_gpus=65", "worker_gpus must be an integer from 0 to 64"),
    ("optimus,ps_gpus=x", "ps_gpus must be an integer from 0 to 64"),
    ("optimus,batch=64", "use it with mode=sync"),
    ("optimus,mode=sync,workers=8,batch=4", "smaller than min_workers=8"),
    ("optimus,delta=0", "delta must be a number greater than 0 and at most 1"),
    ("optimus,delta=2", "delta must be a number greater than 0 and at most 1"),
    ("optimus,model=a/b", "model must be 1 to 63 characters"),
    ("optimus,form=linear", "form must be one of: inverse, power, exp"),
    ("optimus,steps=0", "steps must be an integer from 1"),
    ("optimus,epochs=-1", "epochs must be an integer from 1"),
    ("optimus,epoch_steps=1.5", "epoch_steps must be an integer from 1"),
    ("optimus,ckpt_signal=KILLME", "ckpt_signal must be a signal name"),
    # one rule for names and numbers: uncatchable both ways
    ("optimus,ckpt_signal=KILL", "ckpt_signal must be a signal name"),
    ("optimus,ckpt_signal=9", "ckpt_signal must be a signal name"),
    ("optimus,ckpt_signal=19", "ckpt_signal must be a signal name"),
    # log injection: no control character in any value
    ("optimus,ckpt_dir=/tmp/x\n[2026-12-03T06:00:00.000] error: FORGED",
     "control character \\n in the value of ckpt_dir"),
    ("optimus,ckpt_grace=7200", "ckpt_grace must be an integer from 0 to 3600"),
    ("optimus,ckpt_dir=relative", "ckpt_dir must be an absolute path"),
    ("optimus,layout=mixed", "layout must be one of: colocated, separate"),
    ("optimus,weight=2", "weight= applies only to the quality policy"),
    ("quality,weight=0", "weight must be a number greater than 0"),
    ("optimus,mode=sync,ps=0", "ps=0, no parameter server, is for "
     "mode=allreduce"),
    ("optimus,mode=allreduce,ps=2", "mode=allreduce has no parameter "
     "servers: leave ps out or give ps=0"),
    ("optimus,mode=allreduce,ps_gpus=1", "ps_cpus, ps_mem and ps_gpus "
     "describe parameter servers"),
    ("optimus,mode=allreduce,layout=separate", "layout=separate puts "
     "parameter servers apart from workers"),
]


def _fields(cluster, jid):
    return cluster.job_fields(jid)


@pytest.mark.parametrize("hints,want", ACCEPTED, ids=[a for a, _ in ACCEPTED])
def test_accepted_and_sized(cluster, hints, want):
    r = hh.sbatch(cluster, ["-H", "-o", "/dev/null", "--scheduler=" + hints],
                  SCRIPT, check=False)
    assert r.returncode == 0, r.stderr
    jid = hh.job_id(r)
    try:
        f = _fields(cluster, jid)
        for key, value in want.items():
            assert f.get(key) == value, (key, f.get(key), f)
    finally:
        cluster.run(["scancel", str(jid)], check=False)


def test_uneven_split_is_not_pinned_at_submit(cluster):
    """1 PS + 4 workers of 2 CPUs on 2 nodes (3 + 2 tasks): at submit the
    fullest node's 6 CPUs on every node, so that either node can take the
    larger share, but no tasks per node: this cluster has no sched/optimus
    to set the batch script's task count, and with 3 per node Slurm would
    count 6 (src/plugins/common/sized_request.c)."""
    r = hh.sbatch(cluster, ["-H", "-o", "/dev/null",
                            "--scheduler=optimus,workers=4,worker_cpus=2"],
                  SCRIPT)
    jid = hh.job_id(r)
    try:
        f = _fields(cluster, jid)
        assert (f["NumNodes"], f["NumTasks"]) == ("2-2", "5"), f
        assert f["NtasksPerN:B:S:C"].split(":")[0] in ("0", "*"), f
        assert f["MinCPUsNode"] == "6", f
    finally:
        cluster.run(["scancel", str(jid)], check=False)


def _assert_refused(r, needle):
    assert r.returncode != 0
    assert needle in r.stderr, r.stderr
    assert not r.stdout.strip(), "a job id was printed: %s" % r.stdout


def test_no_forged_log_line(cluster):
    """A hint holding a newline is refused by slurmctld too, and the log
    shows it escaped: no line of slurmctld.log starts with the forgery."""
    forged = "[2026-12-03T06:00:00.000] error: FORGED"
    conf = hh.nocheck_conf(cluster)
    mark = len(cluster.logs("slurmctld"))
    r = hh.sbatch(cluster, ["-o", "/dev/null",
                            "--scheduler=optimus,ckpt_dir=/tmp/x\n" + forged],
                  SCRIPT, conf=conf, check=False)
    _assert_refused(r, "control character")
    # job_submit/optimus logged the job's hints (escaped) and its refusal
    wait_for(lambda: "job_submit/optimus: refused job from uid" in
             cluster.logs("slurmctld")[mark:], 20,
             "the refusal in slurmctld.log")
    lines = cluster.logs("slurmctld").splitlines()
    assert not [ln for ln in lines if ln.startswith(forged)]


@pytest.mark.parametrize("hints,needle", REFUSED,
                         ids=[a.replace("\n", "\\n") for a, _ in REFUSED])
def test_refused_by_sbatch(cluster, hints, needle):
    r = hh.sbatch(cluster, ["-o", "/dev/null", "--scheduler=" + hints],
                  SCRIPT, check=False)
    _assert_refused(r, needle)
    assert "Invalid --scheduler argument" in r.stderr


@pytest.mark.parametrize("hints,needle", REFUSED,
                         ids=[a.replace("\n", "\\n") for a, _ in REFUSED])
def test_refused_by_job_submit(cluster, hints, needle):
    conf = hh.nocheck_conf(cluster)
    r = hh.sbatch(cluster, ["-o", "/dev/null", "--scheduler=" + hints],
                  SCRIPT, conf=conf, check=False)
    _assert_refused(r, needle)
    # slurmctld, not sbatch, refused it
    assert "Batch job submission failed" in r.stderr
    assert "Invalid --scheduler argument" not in r.stderr


def test_unfit_refused_by_job_submit(cluster):
    """Valid hints whose tasks fit no node: refused with the needs."""
    r = hh.sbatch(cluster, ["-o", "/dev/null",
                            "--scheduler=optimus,worker_gpus=5"], SCRIPT,
                  check=False)
    _assert_refused(r, "do not fit on up to 2 node(s) of 8 CPUs, 16000 MB "
                       "and 4 GPUs")
    r = hh.sbatch(cluster, ["-N", "3", "-o", "/dev/null",
                            "--scheduler=optimus,ps=1,workers=1"], SCRIPT,
                  check=False)
    _assert_refused(r, "do not fit on 3 node(s)")
    r = hh.sbatch(cluster, ["-o", "/dev/null", "--scheduler=optimus,"
                            "mode=allreduce,workers=2,worker_gpus=5"],
                  SCRIPT, check=False)
    _assert_refused(r, "2 all-reduce workers (1 CPUs, 1024 MB, 5 GPUs "
                       "each) do not fit on up to 2 node(s)")


def test_bare_gpu_gres_is_one_gpu():
    """A node declared `Gres=gpu` (no count) has one GPU, as Slurm counts
    it: job_submit/optimus sizes against slurmctld's GRES count (a parser
    of its own could read "gpu" as 0 GPUs where sched/optimus's reads 1)."""
    c = Cluster(tempfile.mkdtemp(prefix="optimus-test-gres-"), nodes=1,
                gpus=1, node_gres="gpu", scheduler="sched/backfill")
    c.start()
    try:
        r = hh.sbatch(c, ["-H", "-o", "/dev/null",
                          "--scheduler=optimus,worker_gpus=1"], SCRIPT,
                      check=False)
        assert r.returncode == 0, r.stderr
        jid = hh.job_id(r)
        assert c.job_fields(jid)["TresPerNode"] == gpu_tres(1)
        c.run(["scancel", str(jid)], check=False)
        # a worker of 2 GPUs fits no node (read as 0 GPUs, "unknown", it
        # would have been let through)
        r = hh.sbatch(c, ["-o", "/dev/null",
                          "--scheduler=optimus,worker_gpus=2"],
                      SCRIPT, check=False)
        _assert_refused(r, "node(s) of 8 CPUs, 16000 MB and 1 GPUs")
    finally:
        c.stop()


def test_user_node_count_kept(cluster):
    r = hh.sbatch(cluster, ["-H", "-N", "2", "-o", "/dev/null",
                            "--scheduler=optimus,ps=2,workers=2"], SCRIPT)
    jid = hh.job_id(r)
    try:
        f = _fields(cluster, jid)
        assert f["NumNodes"] == "2-2"
        assert f["NumTasks"] == "4"
        assert f["MinMemoryNode"] == "2G"
    finally:
        cluster.run(["scancel", str(jid)], check=False)


HET = ["--scheduler=optimus,ps=1", "-n1", "-o", "/dev/null", ":", "-n1"]


def test_het_job_refused_by_sbatch(cluster):
    r = hh.sbatch(cluster, HET, SCRIPT, check=False)
    _assert_refused(r, "--scheduler cannot be used with a heterogeneous job")


def test_het_job_refused_by_job_submit(cluster):
    conf = hh.nocheck_conf(cluster)
    r = hh.sbatch(cluster, HET, SCRIPT, conf=conf, check=False)
    _assert_refused(r, "--scheduler cannot be used with a heterogeneous job")
    assert "Batch job submission failed" in r.stderr


def test_job_submit_logs_refusal(cluster):
    conf = hh.nocheck_conf(cluster)
    hh.sbatch(cluster, ["-o", "/dev/null", "--scheduler=optimus,delta=7"],
              SCRIPT, conf=conf, check=False)
    assert "job_submit/optimus: refused job from uid 0: invalid --scheduler " \
        "value delta=7" in cluster.logs("slurmctld")


def test_help_lists_keys(cluster):
    r = cluster.run(["sbatch", "--help"])
    text = " ".join(r.stdout.split())
    for key in ("mode=sync|async", "min_workers", "worker_gpus", "ckpt_grace",
                "layout=colocated|separate", "optimus_hints(5)"):
        assert key in text, key


def test_man_page_documents_every_key():
    man = os.path.join(hh.TOP, "doc/man/optimus_hints.5")
    text = open(man).read()
    keys = ["mode", "ps", "min_ps", "max_ps", "workers", "min_workers",
            "max_workers", "ps_cpus", "ps_mem", "ps_gpus", "worker_cpus",
            "worker_mem", "worker_gpus", "batch", "delta", "model", "form",
            "steps", "epochs", "epoch_steps", "ckpt_signal", "ckpt_grace",
            "ckpt_dir", "layout", "weight"]
    for k in keys:
        assert "\\fB%s\\fR=" % k in text or ".B %s=" % k in text \
            or "\\fB%s=" % k in text, k


@pytest.mark.parametrize("example", sorted(
    f for f in os.listdir(os.path.join(hh.TOP, "etc/examples"))
    if f.endswith(".sbatch")))
def test_examples_accepted(cluster, example):
    """Every example script's #SBATCH --scheduler line is accepted."""
    script = open(os.path.join(hh.TOP, "etc/examples", example)).read()
    r = hh.sbatch(cluster, ["-H", "-o", "/dev/null"], script, check=False)
    assert r.returncode == 0, r.stderr
    cluster.run(["scancel", str(hh.job_id(r))], check=False)

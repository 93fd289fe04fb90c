#!/usr/bin/python3
"""Adaptive batch against a fixed batch on a real localhost cluster (issue
28): the DDP example (examples/torch_trainer.py) trained to a target loss
once with adaptive_batch=yes (the scheduler chooses its batch with its
workers: Policy=goodput) and once at its submitted batch, the same job
otherwise, each on a fresh cluster (testsuite/cluster/cluster.py: 2 nodes
of 4 CPUs, Policy=goodput, plans every 2 s). Mid-run (MIDRUN_S after the
submission) a PS job of 6 tasks arrives, which the planner may make room
for by resizing the DDP job (checkpoint, requeue, restart at another
size, and for the adaptive job another batch); the adaptive job may also
be re-batched at its size. The runs printed say what happened (measured
here: the adaptive job re-batched to 80-132 on 3-4 workers, the fixed
one never resized). Printed: the seconds from submission
until the job reached its target loss (its completion: the trainer stops
there), its runs and their batches, and the ratio fixed / adaptive.

Parameters, chosen before any run and the same for both: target loss
0.05, submitted batch 32 (range 32..512, at most 256 per worker),
--work-ms-per-sample 0.5 (a sleep standing for the compute of a larger
model: the test cluster declares more CPUs than the machine has), LR 0.2
at batch 32 scaled by AdaScale's gain (--lr-rule adascale),
--profile-batches 0.5,2,4 for the adaptive job only (its start-up
timing of other batches, charged to its own run), MIDRUN_S = 15.
A single run of each on a shared machine: the figure moves with the
machine's load; --repeat N runs each N times, alternating.

Not part of the default test run: `/usr/bin/python3 bench/adaptive_ddp.py`
(as root, built tree, python3-torch).
"""
import argparse
import os
import re
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "testsuite", "cluster"))
sys.path.insert(0, os.path.join(TOP, "testsuite", "integration"))
from cluster import Cluster  # noqa: E402
import examples_helpers as ex  # noqa: E402

TARGET = 0.05
MIDRUN_S = 15
HINTS = ("optimus,mode=allreduce,min_workers=1,max_workers=4,"
         "worker_mem=256M,batch=32,ckpt_grace=20,steps=3000,delta=0.00001")
ADAPTIVE = ",max_batch=512,max_local_batch=256,adaptive_batch=yes"
ARGS = ["--target-loss", str(TARGET), "--max-steps", "100000",
        "--work-ms-per-sample", "0.5", "--report-every", "1.2",
        "--stats-every", "5", "--lr-rule", "adascale"]
RUN_RE = re.compile(r"run (\d+): 0 PS \+ (\d+) workers on \S+, batch (\d+)")


def log(msg):
    print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), flush=True)


def run_once(adaptive, timeout):
    root = tempfile.mkdtemp(prefix="optimus-adaptive-")
    workdir = os.path.join(root, "jobs")
    os.makedirs(workdir)
    os.chmod(workdir, 0o777)
    c = Cluster(os.path.join(root, "cluster"), nodes=2, cpus=4, gpus=0,
                cred_expire=5,
                optimus_conf="Policy=goodput\nPlanInterval=2\n"
                             "MinResizeInterval=5\nRestartCost=2\n")
    c.start()
    try:
        t0 = time.time()
        job = ex.submit(c, workdir, HINTS + (ADAPTIVE if adaptive else ""),
                        ARGS + (["--profile-batches", "0.5,2,4"]
                                if adaptive else []),
                        example="torch_trainer.sbatch")
        time.sleep(max(0.0, t0 + MIDRUN_S - time.time()))
        other = ex.submit(c, workdir, "optimus,mode=sync,ps=2,workers=4,"
                          "ps_mem=256M,worker_mem=256M",
                          ["--target-loss", "0.5", "--batch", "64",
                           "--work-ms-per-sample", "2"])
        state = c.wait_job_state(job, ("COMPLETED", "FAILED", "CANCELLED",
                                       "TIMEOUT"), timeout=timeout)
        took = time.time() - t0
        out = ex.output(workdir, job)
        c.run(["scancel", str(other)], check=False)
        runs = [tuple(int(x) for x in m) for m in RUN_RE.findall(out)]
        return state, took, runs
    finally:
        c.stop(keep=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=600)
    a = ap.parse_args()
    times = {True: [], False: []}
    for i in range(a.repeat):
        for adaptive in (True, False):
            name = "adaptive" if adaptive else "fixed"
            state, took, runs = run_once(adaptive, a.timeout)
            log("%s: %s in %.1f s to loss %.2f; runs (run, workers, global "
                "batch): %s" % (name, state, took, TARGET, runs))
            if state == "COMPLETED":
                times[adaptive].append(took)
    if times[True] and times[False]:
        ad = sum(times[True]) / len(times[True])
        fx = sum(times[False]) / len(times[False])
        print("time to loss %.2f, a PS job arriving mid-run: adaptive %.1f "
              "s, fixed "
              "batch %.1f s, fixed/adaptive %.2f (%d run(s) each; the "
              "runs above say which were resized)"
              % (TARGET, ad, fx, fx / ad, len(times[True])))
    else:
        print("no comparison: a job did not complete")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

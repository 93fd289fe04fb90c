#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""What an idle-socket flood of the report port costs slurmctld, as ratios
measured in one run.

Starts one real localhost cluster (testsuite/cluster) and alternates
ROUNDS idle phases and ROUNDS flood phases of PHASE seconds each (so the
machine's other load falls on both alike). In a flood phase a separate
process keeps CONNS idle connections to the report port and reopens at
once every one the listener closes (3,000 sockets can give ~25k
accepts and evictions a second). In every phase squeue and
`sbatch --hold` are timed back to back, and slurmctld's CPU time
(utime+stime from /proc) is read at both ends.

Prints, per kind of phase: slurmctld CPU seconds per 20 s, squeue and
sbatch p50/p95; then the flood/idle ratios beside doc/design/reports.md's bound
(1.2x for the latencies). Nothing is asserted: a benchmark.

The attacker of the threat model dials from another machine; here it
shares slurmctld's two cores, and its own CPU (a Python loop reopening
~25k sockets a second) would be counted as slurmctld's cost. So by default
(--pin, on a machine of two CPUs or more) the flooder runs on the last CPU
and slurmctld (every thread), squeue and sbatch on the others, in both
kinds of phase alike; --no-pin measures them all on every CPU.

    make && /usr/bin/python3 bench/flood_cost.py [--conns 3000]
        [--rounds 3] [--phase 10] [--no-pin]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "testsuite", "cluster"))
from cluster import Cluster  # noqa: E402

BOUND = 1.2     # doc/design/reports.md, "Admission"

# The flooder: CONNS non-blocking idle connections, each one the listener
# closes (EOF or a reply) reopened at once; stopped with SIGSTOP between
# flood phases (its connections then expire at ReportAuthTimeout).
FLOODER = r"""
import resource, select, socket, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_NOFILE, (n + 256, n + 256))
ep = select.epoll()
socks = {}
def dial():
    s = socket.socket()
    s.setblocking(False)
    s.connect_ex(("127.0.0.1", port))
    socks[s.fileno()] = s
    ep.register(s.fileno(), select.EPOLLIN | select.EPOLLRDHUP)
for _ in range(n):
    dial()
while True:
    for fd, ev in ep.poll(1.0):
        s = socks.pop(fd)
        ep.unregister(fd)
        s.close()
        dial()
"""


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pin_slurmctld(pid, cpus):
    """Every thread of slurmctld, and this process (so the squeue and
    sbatch it runs), on `cpus`."""
    for tid in os.listdir("/proc/%d/task" % pid):
        os.sched_setaffinity(int(tid), cpus)
    os.sched_setaffinity(0, cpus)


def pct(xs, q):
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, int(round(q * len(s))) - 1))]


def timed(c, argv, **kw):
    t0 = time.perf_counter()
    c.run(argv, check=False, **kw)
    return time.perf_counter() - t0


def phase(c, pid, seconds, lat):
    c0, end = cpu_seconds(pid), time.time() + seconds
    while time.time() < end:
        lat["squeue"].append(timed(c, ["squeue", "-h"]))
        lat["sbatch"].append(timed(c, ["sbatch", "--hold", "-o", "/dev/null",
                                       "--wrap", "true"]))
    return cpu_seconds(pid) - c0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--conns", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--phase", type=float, default=10)
    ap.add_argument("--pin", action=argparse.BooleanOptionalAction,
                    default=len(os.sched_getaffinity(0)) >= 2,
                    help="flooder on the last CPU, slurmctld and the timed "
                    "commands on the others (default with 2+ CPUs)")
    a = ap.parse_args()
    cpus = sorted(os.sched_getaffinity(0))
    flooder_cpus = {cpus[-1]} if a.pin else set(cpus)
    ctld_cpus = set(cpus[:-1]) if a.pin else set(cpus)
    c = Cluster(tempfile.mkdtemp(prefix="optimus-flood-"),
                optimus_conf="ReportAuthTimeout=2\n")
    flooder = None
    try:
        c.start()
        with open(c._pidfile("slurmctld")) as f:
            pid = int(f.read())
        pin_slurmctld(pid, ctld_cpus)
        print("slurmctld, squeue, sbatch on CPUs %s; flooder on CPUs %s"
              % (sorted(ctld_cpus), sorted(flooder_cpus)))
        flooder = subprocess.Popen([sys.executable, "-c", FLOODER,
                                    str(c.ports["report"]), str(a.conns)],
                                   preexec_fn=lambda: os.sched_setaffinity(
                                       0, flooder_cpus))
        flooder.send_signal(19)            # SIGSTOP: idle first
        lat = {k: {"squeue": [], "sbatch": []} for k in ("idle", "flood")}
        cpu = {"idle": 0.0, "flood": 0.0}
        for _ in range(a.rounds):
            time.sleep(3)                  # the strangers expire
            cpu["idle"] += phase(c, pid, a.phase, lat["idle"])
            flooder.send_signal(18)        # SIGCONT
            time.sleep(1)
            cpu["flood"] += phase(c, pid, a.phase, lat["flood"])
            flooder.send_signal(19)
        span = a.rounds * a.phase
        for k in ("idle", "flood"):
            print("%-5s slurmctld CPU %.2f s per 20 s; squeue p50 %.1f ms "
                  "p95 %.1f ms (n %d); sbatch p50 %.1f ms p95 %.1f ms (n %d)"
                  % (k, cpu[k] * 20 / span,
                     1e3 * pct(lat[k]["squeue"], .5),
                     1e3 * pct(lat[k]["squeue"], .95), len(lat[k]["squeue"]),
                     1e3 * pct(lat[k]["sbatch"], .5),
                     1e3 * pct(lat[k]["sbatch"], .95), len(lat[k]["sbatch"])))
        print("ratio flood/idle: slurmctld CPU %.1fx" % (
            cpu["flood"] / max(cpu["idle"], 1e-3)))
        for cmd in ("squeue", "sbatch"):
            for q in (.5, .95):
                r = pct(lat["flood"][cmd], q) / pct(lat["idle"][cmd], q)
                print("ratio flood/idle: %s p%d %.2f (bound %.1f)%s" % (
                    cmd, int(q * 100), r, BOUND,
                    "" if r <= BOUND else "  ABOVE"))
    finally:
        if flooder:
            flooder.kill()
            flooder.wait()
        c.stop(keep=False)


if __name__ == "__main__":
    main()

# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""The report-channel attacker of the fairness tests: a second
Unix user flooding the listener with its own signed reports while the
owner of a real job sends genuine ones, which must all land."""
import os
import subprocess
import sys
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "python"))
import optimus_report as opr  # noqa: E402
from waiting import poll  # noqa: E402

GENUINE = 20

# The attacker: signs (as itself) `progress` reports for job argv[2] and
# sends them as fast as it can, a fresh connection each, until killed;
# prints the number sent and the reply codes seen every 50 requests.
ATTACKER = r"""
import collections, os, socket, sys
import optimus_report as o
port, job = int(sys.argv[1]), int(sys.argv[2])
codes = collections.Counter()
n = 0
while True:
    p = o.message("progress", job=job, step=n + 1, loss=1.0, sps=0.0)
    data = o.frame(p, o.sign(p.encode(), os.environ["MUNGE_SOCKET"]))
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(data)
            r = o.read_reply(s)
            codes["ok"] += 1
    except o.ReportError as e:
        codes[e.code] += 1
    except OSError:
        codes["oserror"] += 1
    n += 1
    if n % 50 == 0:
        print(n, dict(codes), flush=True)
"""



class Attacker:
    """The attacker's process, run as `user`, sending until stop()."""

    def __init__(self, cluster, env, user, job):
        e = dict(env, PYTHONPATH=os.path.join(TOP, "python"),
                 PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            ["runuser", "-u", user, "--", "/usr/bin/python3", "-c", ATTACKER,
             str(cluster.ports["report"]), str(job)],
            env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.last = ""

    def wait_sent(self, n, timeout=120):
        """Block until the attacker has sent n requests."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self.last = line.strip()
            if int(self.last.split()[0]) >= n:
                return self.last
        raise AssertionError("attacker stalled: %s %s" % (
            self.last, self.proc.stderr.read() if self.proc.poll() is not None
            else ""))

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def genuine_reports(jid, first_step):
    """GENUINE reports from the job's owner, one connection each (the
    Python client retries `busy` with its bounded backoff); returns the
    failures."""
    failures = []
    for i in range(GENUINE):
        try:
            with opr.Reporter(job_id=jid) as rep:
                rep.progress(first_step + i, 1.0 / (i + 1), samples_per_sec=5)
        except opr.ReportError as e:
            failures.append("step %d: %s" % (first_step + i, e))
    return failures


def landed(jid):
    return {p["step"] for p in opr.query("job", jid).get("progress", [])}


def wait_landed(jid, steps, timeout=15):
    """The steps of `steps` not landed in jid's record within timeout."""
    poll(lambda: steps <= landed(jid), timeout, interval=0.3)
    return steps - landed(jid)


def run_attack(cluster, env, user, attack_job, genuine_job, first_step,
               warmup, attackers=1):
    """`attackers` processes of `user` flood reports for attack_job; once
    the first has sent `warmup` requests, GENUINE reports of genuine_job's
    owner must all be accepted and land."""
    extra = [Attacker(cluster, env, user, attack_job)
             for _ in range(attackers - 1)]
    att = Attacker(cluster, env, user, attack_job)
    try:
        seen = att.wait_sent(warmup)
        failures = genuine_reports(genuine_job, first_step)
        seen = att.last or seen
    finally:
        for a in extra + [att]:
            a.stop()
    print("attacker: %s" % seen)
    steps = set(range(first_step, first_step + GENUINE))
    assert not failures, "%d/%d genuine reports refused, first: %s " \
        "(attacker: %s)" % (len(failures), GENUINE, failures[0], seen)
    assert not wait_landed(genuine_job, steps)




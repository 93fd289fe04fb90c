# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Reports and queries over the munge-authenticated channel, on a real
cluster: ownership, forged/replayed/stale/oversized/malformed requests,
load shedding, and slurmctld staying up throughout (doc/design/reports.md)."""
import json
import os
import socket
import struct
import subprocess
import sys
import time

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "python"))
import optimus_report as opr  # noqa: E402
from report_helpers import (as_user, client_env, job_of,  # noqa: E402
                            open_to_every_user, unix_user)
from signal_storm import run_storm  # noqa: E402
from waiting import poll  # noqa: E402

REPORT = os.path.join(TOP, "src", "tools", "optimus-report")
CTL = os.path.join(TOP, "src", "tools", "optimusctl")
OTHER = "optimus-other"
MAX_CONNS = 8
CLUSTER_OPTIONS = {"optimus_conf": "ReportMaxConnections=%d\nReportTimeout=3\n"
                   "ReportAuthTimeout=2\n" % MAX_CONNS}


@pytest.fixture(scope="module")
def other_user():
    """A second Unix user (created if missing)."""
    return unix_user(OTHER)


@pytest.fixture(scope="module")
def env(cluster):
    """The cluster's folder is private by default; reporters of every user
    must reach optimus.conf and munged's socket, as on a real cluster."""
    open_to_every_user(cluster)
    for tool in (REPORT, CTL):
        assert os.access(tool, os.X_OK), "run make first: %s" % tool
    return client_env(cluster)


def send_raw(cluster, data, read=True, timeout=5):
    """Send raw bytes; return the parsed reply (dict) or None if closed."""
    with socket.create_connection(("127.0.0.1", cluster.ports["report"]),
                                  timeout=timeout) as s:
        s.sendall(data)
        if not read:
            return None
        try:
            hdr = opr._recv_exact(s, 4)
            (n,) = struct.unpack(">I", hdr)
            return json.loads(opr._recv_exact(s, n))
        except opr.ReportError:
            return None


def signed(cluster, kind, **fields):
    payload = opr.message(kind, **fields)
    return payload, opr.sign(payload.encode(), cluster.munge_socket)


def wait_log(cluster, text, timeout=10):
    return bool(poll(lambda: text in cluster.logs("slurmctld"), timeout,
                     interval=0.2))


def wait_answer(jid, ok, timeout=10):
    """The job's query answer once ok(answer): reports reach the registry,
    their one home, when the planner drains them (every second)."""
    got = []

    def answered():
        got.append(opr.query("job", jid))
        return ok(got[-1])
    poll(answered, timeout, interval=0.2)
    return got[-1]


def wait_points(jid, n, timeout=10):
    return wait_answer(jid, lambda r: len(r.get("progress", [])) >= n,
                       timeout)


def ping_ok(cluster):
    return "UP" in cluster.run(["scontrol", "ping"], check=False).stdout


def test_listener_started(cluster, env):
    assert wait_log(cluster, "report listener on 127.0.0.1:%d"
                    % cluster.ports["report"])


def test_owner_reports_and_reads_back(cluster, env):
    jid = cluster.sbatch(["-o", "/dev/null", "-t", "10"],
                         script="#!/bin/sh\nsleep 300\n")
    for step, loss in ((100, 2.0), (200, 1.2), (400, 0.8), (800, 0.55)):
        r = subprocess.run([REPORT, "progress", "--job", str(jid), "--step",
                            str(step), "--loss", str(loss), "--sps", "64",
                            "--epoch", "1"], env=env, capture_output=True,
                           text=True, timeout=30)
        assert r.returncode == 0, r.stderr
    with opr.Reporter(job_id=jid) as rep:
        rep.speed(ps=1, workers=2, steps_per_sec=3.5)
        rep.progress(1600, 0.41, samples_per_sec=70)
    wait_points(jid, 5)
    r = subprocess.run([CTL, "--json", "show", "job", str(jid)], env=env,
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    steps = [p["step"] for p in res["progress"]]
    assert steps == [100, 200, 400, 800, 1600]
    assert res["speed_samples"][0]["workers"] == 2
    # A checkpoint confirmation is kept apart from the loss points.
    r = subprocess.run([REPORT, "checkpoint", "--job", str(jid), "--step",
                        "1600"], env=env, capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([REPORT, "checkpoint", "--job", str(jid)], env=env,
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "--step" in r.stderr
    wait_answer(jid, lambda r: "last_checkpoint" in r)
    res = json.loads(subprocess.run(
        [CTL, "--json", "show", "job", str(jid)], env=env, capture_output=True,
        text=True, timeout=30).stdout)
    assert res["last_checkpoint"]["step"] == 1600
    assert [p["step"] for p in res["progress"]] == steps
    text = subprocess.run([CTL, "show", "job", str(jid)], env=env,
                          capture_output=True, text=True, timeout=30).stdout
    assert "Loss points: 5" in text and "*" in text and "Fit" in text
    status = subprocess.run([CTL, "status"], env=env, capture_output=True,
                            text=True, timeout=30)
    assert status.returncode == 0 and str(jid) in status.stdout
    cluster.run(["scancel", str(jid)])


def test_other_user_cannot_report_or_query(cluster, env, other_user):
    jid = cluster.sbatch(["-o", "/dev/null", "-t", "10"],
                         script="#!/bin/sh\nsleep 300\n")
    r = as_user(OTHER, [REPORT, "progress", "--job", str(jid), "--step", "1",
                        "--loss", "1"], env)
    assert r.returncode == 1 and "forbidden" in r.stderr, r.stderr
    r = as_user(OTHER, [CTL, "show", "job", str(jid)], env)
    assert r.returncode == 1 and "forbidden" in r.stderr, r.stderr
    # the Python client, as the other user, is refused the same way
    code = ("import optimus_report as o\n"
            "try:\n o.Reporter(job_id=%d).progress(1, 1.0)\n"
            "except o.ReportError as e:\n print(e.code)\n" % jid)
    r = as_user(OTHER, ["env", "PYTHONPATH=" + os.path.join(TOP, "python"),
                        "/usr/bin/python3", "-c", code], env)
    assert r.stdout.strip() == "forbidden", r.stdout + r.stderr
    assert wait_log(cluster, "(uid %d, job %d): forbidden"
                    % (other_user.pw_uid, jid))
    # ... but may report for its own job, which root may then read
    own = job_of(OTHER, env)
    r = as_user(OTHER, [REPORT, "progress", "--job", str(own), "--step", "5",
                        "--loss", "0.5"], env)
    assert r.returncode == 0, r.stderr
    res = wait_points(own, 1)
    assert res["progress"][0]["uid"] == other_user.pw_uid
    cluster.run(["scancel", str(jid), str(own)])


def test_unknown_job_refused(cluster, env):
    r = subprocess.run([REPORT, "progress", "--job", "999999", "--step", "1",
                        "--loss", "1"], env=env, capture_output=True, text=True)
    assert r.returncode == 1 and "no_job" in r.stderr


def test_forged_credentials_refused_and_logged(cluster, env):
    jid = cluster.sbatch(["-o", "/dev/null", "-t", "10"],
                         script="#!/bin/sh\nsleep 300\n")
    payload, cred = signed(cluster, "progress", job=jid, step=1, loss=1.0, sps=0.0)
    # garbled credential
    bad = cred[:20] + ("A" if cred[20] != "A" else "B") + cred[21:]
    rep = send_raw(cluster, opr.frame(payload, bad))
    assert rep["ok"] is False and rep["code"] == "invalid"
    # not a credential at all
    rep = send_raw(cluster, opr.frame(payload, "MUNGE:not-a-credential:"))
    assert rep["ok"] is False and rep["code"] == "invalid"
    # a valid credential for another payload (loss changed after signing)
    other = payload.replace('"loss":1.0', '"loss":0.001')
    assert other != payload
    rep = send_raw(cluster, opr.frame(other, cred))
    assert rep["ok"] is False and rep["code"] == "invalid"
    assert "does not match" in rep["error"]
    assert wait_log(cluster, "payload does not match its credential")
    assert wait_log(cluster, "invalid: credential invalid")
    assert ping_ok(cluster)
    cluster.run(["scancel", str(jid)])


def test_replayed_frames_refused(cluster, env):
    jid = cluster.sbatch(["-o", "/dev/null", "-t", "10"],
                         script="#!/bin/sh\nsleep 300\n")
    payload, cred = signed(cluster, "progress", job=jid, step=7, loss=0.7, sps=0.0)
    data = opr.frame(payload, cred)
    assert send_raw(cluster, data)["ok"] is True
    rep = send_raw(cluster, data)          # the exact same frame again
    assert rep["ok"] is False and rep["code"] == "replayed"
    # a fresh credential for the same message (same nonce): our own check
    cred2 = opr.sign(payload.encode(), cluster.munge_socket)
    rep = send_raw(cluster, opr.frame(payload, cred2))
    assert rep["ok"] is False and rep["code"] == "replayed"
    assert "seen before" in rep["error"]
    # a message signed now but dated an hour ago is stale
    old = json.loads(opr.message("progress", job=jid, step=8, loss=0.6, sps=0.0))
    old["time"] -= 3600
    old = json.dumps(old, separators=(",", ":"))
    rep = send_raw(cluster, opr.frame(old, opr.sign(old.encode(),
                                                    cluster.munge_socket)))
    assert rep["ok"] is False and rep["code"] == "stale"
    assert wait_log(cluster, ": replayed: ")
    assert wait_log(cluster, ": stale: ")
    steps = [p["step"] for p in wait_points(jid, 1)["progress"]]
    assert steps == [7]
    cluster.run(["scancel", str(jid)])


def test_oversized_frames_refused(cluster):
    rep = send_raw(cluster, struct.pack(">I", 64 * 1024 + 1) + b"{")
    assert rep["ok"] is False and rep["code"] == "too_large"
    rep = send_raw(cluster, struct.pack(">I", 0xFFFFFFFF))
    assert rep["ok"] is False and rep["code"] == "too_large"
    # a real 70 KB body is refused before it is read
    body = b'{"payload":"' + b"x" * 70000 + b'","cred":"x"}'
    rep = send_raw(cluster, struct.pack(">I", len(body)) + body)
    assert rep["ok"] is False and rep["code"] == "too_large"
    assert wait_log(cluster, "too_large: frame of 65537 bytes refused")
    assert ping_ok(cluster)


MALFORMED = [
    b"{not json",
    b"[1,2,3]",
    b"null",
    b'{"payload":"x"}',
    b'{"payload":1,"cred":2}',
    b'{"payload":"{\\"v\\":1}","cred":"MUNGE:"}',
    b"\x00\x01\x02\xff\xfe",
    b'{"payload":"' + b"[" * 5000 + b'","cred":"x"}',
    b"{" * 4000,
]


def test_malformed_input_never_crashes_slurmctld(cluster, env):
    for body in MALFORMED:
        rep = send_raw(cluster, struct.pack(">I", len(body)) + body)
        assert rep is not None and rep["ok"] is False, body[:40]
        assert rep["code"] in ("bad_request", "invalid"), rep
    # well-signed but invalid messages
    for fields in ({"job": 1, "step": -1, "loss": 1.0, "sps": 0.0},
                   {"job": "1", "step": 1, "loss": 1.0, "sps": 0.0},
                   {"job": 1, "step": 1, "loss": -5.0, "sps": 0.0}):
        payload, cred = signed(cluster, "progress", **fields)
        rep = send_raw(cluster, opr.frame(payload, cred))
        assert rep["ok"] is False and rep["code"] == "bad_request", rep
    # truncated frames, zero-length frame, abrupt closes
    send_raw(cluster, struct.pack(">I", 100) + b'{"payl', read=False)
    send_raw(cluster, b"\x00\x00", read=False)
    rep = send_raw(cluster, struct.pack(">I", 0))
    assert rep["ok"] is False
    assert ping_ok(cluster)
    jid = cluster.sbatch(["-o", "/dev/null", "-t", "10"],
                         script="#!/bin/sh\nsleep 300\n")
    with opr.Reporter(job_id=jid) as rep:
        rep.progress(1, 1.0)
    cluster.run(["scancel", str(jid)])


def test_slow_and_excess_connections(cluster, env):
    """Strangers (no valid credential yet) never keep a genuine request
    out: past ReportMaxConnections the oldest stranger makes room, and one
    that has not authenticated within ReportAuthTimeout is closed, however
    slowly it trickles bytes (doc/design/reports.md, "Admission")."""
    jid = cluster.sbatch(["-o", "/dev/null", "-t", "10"],
                         script="#!/bin/sh\nsleep 300\n")
    idle = [socket.create_connection(("127.0.0.1", cluster.ports["report"]))
            for _ in range(MAX_CONNS)]
    try:
        # No wait for the listener to take them in: it accepts in the
        # order of connection, so the query below comes after them.
        rep = send_raw(cluster, opr.frame(*signed(cluster, "query",
                                                  query="status")))
        assert rep["ok"] is True, rep
        # ReportAuthTimeout=2: the strangers are closed, byte or no byte
        for s in idle[1::2]:
            s.sendall(b"\x00")
        # each closed (end of stream) as soon as it is; all within 4.5 s
        # (the 2 s deadline and the listener's rounds)
        deadline = time.time() + 4.5
        for s in idle[1:]:
            s.settimeout(max(0.1, deadline - time.time()))
            assert s.recv(16) == b""
        with opr.Reporter(job_id=jid) as r:
            r.progress(3, 0.3)
    finally:
        for s in idle:
            s.close()
    assert ping_ok(cluster)
    cluster.run(["scancel", str(jid)])


def test_reporters_inside_a_job_find_the_listener(cluster, env):
    """A batch job inherits SLURM_CONF and MUNGE_SOCKET from sbatch and its
    tasks report with $SLURM_JOB_ID, from the shell and from Python."""
    script = ("#!/bin/sh\n"
              "%s progress --step 10 --loss 0.9 --sps 5 || exit 1\n"
              "PYTHONPATH=%s /usr/bin/python3 -c 'import optimus_report as o; "
              "o.Reporter().progress(20, 0.7, samples_per_sec=6)' || exit 2\n"
              % (REPORT, os.path.join(TOP, "python")))
    jid = cluster.sbatch(["-o", os.path.join(cluster.root, "job-%j.out"),
                          "-t", "5"], script=script)
    state = cluster.wait_job_state(jid, {"COMPLETED", "FAILED"}, timeout=60)
    out = open(os.path.join(cluster.root, "job-%d.out" % jid)).read()
    assert state == "COMPLETED", out
    steps = [p["step"] for p in wait_points(jid, 2)["progress"]]
    assert steps == [10, 20]


# A training loop with Reporter.handle_checkpoints whose save() prints, as
# a trainer's does; sys.argv: the python/ folder, the job id.
CHECKPOINT_STORM = """
import sys, time
sys.path.insert(0, sys.argv[1])
import optimus_report
state = {"step": 0, "saves": 0}

def save():
    state["saves"] += 1
    print("checkpoint of step %d" % state["step"], file=sys.stderr, flush=True)
    return state["step"]

rep = optimus_report.Reporter(job_id=int(sys.argv[2]))
rep.handle_checkpoints(save, 0)
print("ready", flush=True)
end = time.time() + 4
while time.time() < end:
    state["step"] += 1
    print("step %d " % state["step"] + "x" * 2000, file=sys.stderr, flush=True)
    if state["step"] % 50 == 0:
        rep.progress(state["step"], 1.0 / state["step"])
rep.confirm_checkpoints()
print("saves %d last %d" % (state["saves"], state["step"]), flush=True)
"""


def test_checkpoint_handler_survives_signals_while_printing(cluster, env):
    """handle_checkpoints: a storm of checkpoint signals while the loop
    and save() print kills nothing, and the checkpoints reach the
    scheduler (signal_storm.py says how a handler that prints can kill its
    task)."""
    jid = cluster.sbatch(["-o", "/dev/null", "-t", "10"],
                         script="#!/bin/sh\nsleep 300\n")
    rc, sent, out, err = run_storm(CHECKPOINT_STORM,
                                   [os.path.join(TOP, "python"), str(jid)],
                                   env=env)
    assert rc == 0, err[-3000:]
    assert sent >= 20, sent
    saves = [int(x) for x in out.split()[1::2]]
    assert saves[0] >= 1, out
    wait_answer(jid, lambda r: (r.get("last_checkpoint") or {}).get(
        "step", 0) > 0)
    res = json.loads(subprocess.run(
        [CTL, "--json", "show", "job", str(jid)], env=env,
        capture_output=True, text=True, timeout=30).stdout)
    assert 0 < res["last_checkpoint"]["step"] <= saves[1], res
    cluster.run(["scancel", str(jid)])


# The small C API of report/client.h (optimus_report_worker), as training
# code links it: argv job, rank; prints the return code and the reason.
C_WORKER = r"""
#include <stdio.h>
#include <stdlib.h>
#include "report/client.h"
int main(int argc, char **argv)
{
	int rc = optimus_report_worker((uint32_t)atol(argv[1]),
				       (uint32_t)atol(argv[2]), "n1", 0.5, 0);
	printf("%d %s\n", rc, rc ? optimus_report_error() : "");
	return rc ? 1 : 0;
}
"""


def c_worker_client(tmp_path):
    """C_WORKER built against the tree's core library, or None without
    gcc."""
    import shutil
    lib = os.path.join(TOP, "src", "common", ".libs", "liboptimus_core.a")
    if not shutil.which("gcc") or not os.path.exists(lib):
        return None
    src, exe = str(tmp_path / "worker.c"), str(tmp_path / "worker")
    with open(src, "w") as f:
        f.write(C_WORKER)
    subprocess.run(["gcc", "-o", exe, "-I", os.path.join(TOP, "src", "common"),
                    src, lib, "-ljson-c", "-lmunge", "-lgsl", "-lgslcblas",
                    "-lm", "-lpthread"], check=True)
    return exe


def running_workers(jid, n, timeout=60):
    """The planner's record of job jid once it runs n workers."""
    return wait_answer(jid, lambda r: r.get("phase_name") == "running" and
                       r.get("cur_workers") == n, timeout)


def test_report_the_job_record_refuses_is_refused_with_its_reason(
        cluster, env, tmp_path):
    """A worker report naming a rank the run does not have is refused to
    its sender with the reason, by every client (the CLI's exit status and
    stderr, the Python client's ReportError, the C API's return code and
    optimus_report_error()), not accepted and dropped later by the
    planner; a rank the run has is taken."""
    jid = cluster.sbatch(["-o", "/dev/null", "-t", "10",
                          "--scheduler=optimus,ps=1,workers=2"],
                         script="#!/bin/sh\nsleep 300\n")
    rec = running_workers(jid, 2)
    assert rec.get("cur_workers") == 2, rec
    r = subprocess.run([REPORT, "worker", "--job", str(jid), "--rank", "99",
                        "--node", "n1", "--step-time", "0.5"], env=env,
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert "rank 99" in r.stderr and "2 workers" in r.stderr, r.stderr
    with pytest.raises(opr.ReportError) as e:
        with opr.Reporter(job_id=jid) as rep:
            rep.worker(0.5, rank=2, node="n1")
    assert e.value.code == "rejected" and "rank 2" in str(e.value), e.value
    # the rate-limited helper raises nothing, but keeps the reason
    with opr.Reporter(job_id=jid) as rep:
        pace = opr.WorkerPace(rep, interval=0, rank=5, node="n1")
        assert pace.step(0.5) is False
        assert pace.last_error.code == "rejected", pace.last_error
        assert "rank 5" in pace.last_error.message
    exe = c_worker_client(tmp_path)
    if exe:
        r = subprocess.run([exe, str(jid), "7"], env=env, capture_output=True,
                           text=True, timeout=30)
        assert r.returncode == 1 and "rank 7" in r.stdout, r.stdout + r.stderr
        r = subprocess.run([exe, str(jid), "1"], env=env, capture_output=True,
                           text=True, timeout=30)
        assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run([REPORT, "worker", "--job", str(jid), "--rank", "0",
                        "--node", "n1", "--step-time", "0.5"], env=env,
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert wait_log(cluster, "(uid 0, job %d): rejected" % jid)
    assert "refused by the model" not in cluster.logs("slurmctld")
    cluster.run(["scancel", str(jid)])


def test_unknown_keys_refused_with_their_name(cluster, env):
    """A message with a key its type does not have ("lsos" for "loss",
    or raw bytes as a key) is refused with the key's name, never accepted
    with the key dropped; the same in the envelope."""
    jid = cluster.sbatch(["-o", "/dev/null", "-t", "10"],
                         script="#!/bin/sh\nsleep 300\n")
    with opr.Reporter(job_id=jid) as rep:
        for key, shown in (("lsos", "lsos"), ("\u0001\u00ffx", "\\x01")):
            payload = opr.message("progress", job=jid, step=1, loss=1.0,
                                  sps=0.0, **{key: 3})
            with pytest.raises(opr.ReportError) as e:
                rep.request(payload)
            assert e.value.code == "bad_request", e.value
            assert "unknown key" in str(e.value) and shown in str(e.value), \
                str(e.value)
        # a query's unknown key too
        with pytest.raises(opr.ReportError) as e:
            rep.request(opr.message("query", query="status", verbose=1))
        assert "verbose" in str(e.value)
        rep.progress(2, 0.5)    # the same report without the key is taken
    payload, cred = signed(cluster, "progress", job=jid, step=3, loss=0.4,
                           sps=0.0)
    body = json.dumps({"payload": payload, "cred": cred, "extra": 1}).encode()
    reply = send_raw(cluster, struct.pack(">I", len(body)) + body)
    assert reply and not reply["ok"] and "extra" in reply["error"], reply
    assert [p["step"] for p in wait_points(jid, 1)["progress"]] == [2]
    cluster.run(["scancel", str(jid)])

# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Bytes that leak, on a real cluster.

One rule for user text (src/common/util/escape.h): hints in UTF-8 letters
work and reach slurmctld.log, the state file and `optimusctl show job
--json` as valid UTF-8; control characters (C0, C1 such as the CSI 0x9b),
bidi overrides, U+2028/2029 and bytes that are not UTF-8 are refused at
submit with a message naming the key (doc/hints.md). A worker report whose
node holds NUL is refused; a report for a finished job is refused
("finished") and leaves the job's final record as it was."""
import json
import os
import socket
import struct
import subprocess
import sys
import threading

import pytest

import hints_helpers as hh  # noqa: E402

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "python"))
import optimus_report as opr  # noqa: E402
from report_helpers import client_env  # noqa: E402
from waiting import wait_for, wait_plans  # noqa: E402

CTL = os.path.join(os.environ.get("TOOLS_DIR", os.path.join(TOP, "src",
                                                            "tools")),
                   "optimusctl")
SCRIPT = "#!/bin/sh\nsleep 600\n"


def strict_utf8_json(data):
    """Parse bytes as RFC 8259 JSON: UTF-8 only, no NaN/Infinity."""
    def refuse(name):
        raise ValueError("not strict JSON: %s" % name)
    return json.loads(data.decode("utf-8"), parse_constant=refuse)


def sbatch_bytes(cluster, hints, conf=None):
    """sbatch with raw bytes in --scheduler; output kept as bytes."""
    env = cluster.env({"SLURM_CONF": conf} if conf else None)
    return subprocess.run([b"sbatch", b"--parsable", b"-o", b"/dev/null",
                           b"--scheduler=" + hints], input=SCRIPT.encode(),
                          env=env, capture_output=True, timeout=60)


def ctld_log(cluster):
    with open(os.path.join(cluster.log, "slurmctld.log"), "rb") as f:
        return f.read()


UNSAFE = [
    (b"/tmp/a\xc2\x9b31mC1", "control character \\u009b in the value of "
     "ckpt_dir"),                                   # C1 CSI, valid UTF-8
    (b"/tmp/a\x9b31mC1", "invalid UTF-8 byte \\x9b in the value of "
     "ckpt_dir"),                                   # raw CSI byte
    (b"/tmp/\xe2\x80\xaegpj.exe", "control character \\u202e in the value "
     "of ckpt_dir"),                                # RIGHT-TO-LEFT OVERRIDE
    (b"/tmp/a\xe2\x80\xa8b", "control character \\u2028 in the value of "
     "ckpt_dir"),                                   # LINE SEPARATOR
    (b"/tmp/\xff\xfe", "invalid UTF-8 byte \\xff in the value of ckpt_dir"),
]


@pytest.mark.parametrize("value,needle", UNSAFE,
                         ids=["c1", "raw9b", "u202e", "u2028", "fffe"])
@pytest.mark.parametrize("by", ["sbatch", "job_submit"])
def test_unsafe_hint_refused_naming_the_key(cluster, value, needle, by):
    conf = hh.nocheck_conf(cluster) if by == "job_submit" else None
    r = sbatch_bytes(cluster, b"optimus,ckpt_dir=" + value, conf)
    out = r.stdout.decode("utf-8", "replace").strip()
    try:
        wait_plans(cluster, 2)         # tracked by now if accepted
        log = ctld_log(cluster)
        raw = [ln for ln in log.splitlines() if value in ln]
        assert not raw, "raw in slurmctld.log: %r" % raw
        log.decode("utf-8")            # slurmctld.log stays valid UTF-8
        assert r.returncode != 0, "accepted as job %s" % out
        # our line is UTF-8 (sbatch's own "Invalid --scheduler argument:
        # <arg>" repeats the argument as given: Slurm's, not ours)
        ours = [ln.decode("utf-8") for ln in r.stderr.splitlines()
                if b"invalid --scheduler:" in ln]
        assert [ln for ln in ours if needle in ln], r.stderr
    finally:
        if r.returncode == 0 and out:
            cluster.run(["scancel", out.split(";")[0]], check=False)


def test_utf8_letters_in_hints_work_and_stay_utf8(cluster):
    """A ckpt_dir in one's own language is accepted; every place showing
    it (slurmctld.log, the state file, optimusctl --json, the Python
    client) is strict UTF-8 JSON/text holding it unchanged."""
    env = client_env(cluster)
    path = "/tmp/\u00e9t\u00e9_\u0434\u0430\u043d\u043d\u044b\u0435_\u6a21\u578b"
    r = sbatch_bytes(cluster, ("optimus,ckpt_dir=" + path).encode())
    assert r.returncode == 0, r.stderr
    jid = int(r.stdout.split(b";")[0])
    try:
        wait_for(lambda: ("tracking JobId=%d " % jid).encode()
                 in ctld_log(cluster), 30, "the planner did not track it")
        line = [ln for ln in ctld_log(cluster).splitlines()
                if ("tracking JobId=%d " % jid).encode() in ln][0]
        assert line.decode("utf-8").endswith("(optimus,ckpt_dir=%s)" % path)
        state = os.path.join(cluster.state_dir, "optimus_state.json")
        wait_for(lambda: os.path.exists(state) and
                 str(jid).encode() in open(state, "rb").read(), 60,
                 "the job never reached the state file")
        with open(state, "rb") as f:
            strict_utf8_json(f.read())
        r = subprocess.run([CTL, "--json", "show", "job", str(jid)], env=env,
                           capture_output=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert path in json.dumps(strict_utf8_json(r.stdout),
                                  ensure_ascii=False)
        assert path in json.dumps(opr.query("job", jid), ensure_ascii=False)
    finally:
        cluster.run(["scancel", str(jid)], check=False)


def test_python_client_raises_its_own_error_on_undecodable_reply():
    """A reply that is not UTF-8 is opr.ReportError("bad_reply"), not a
    UnicodeDecodeError from inside json."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)

    def serve():
        c, _ = srv.accept()
        body = b'{"ok":true,"result":{"hints":"/tmp/a\x9b31m"}}'
        c.sendall(struct.pack(">I", len(body)) + body)
        c.close()
    t = threading.Thread(target=serve)
    t.start()
    s = socket.create_connection(srv.getsockname())
    try:
        with pytest.raises(opr.ReportError) as e:
            opr.read_reply(s)
        assert e.value.code == "bad_reply"
    finally:
        s.close()
        t.join()
        srv.close()


def test_worker_node_with_nul_refused(cluster):
    client_env(cluster)
    jid = cluster.sbatch(["--scheduler=optimus,workers=1", "-o", "/dev/null",
                          "-t", "10"], SCRIPT)
    try:
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
        with opr.Reporter(job_id=jid) as rep:
            with pytest.raises(opr.ReportError) as e:
                rep.worker(0.5, rank=0, node="n1\x00evil")
            assert e.value.code == "bad_request", (e.value.code, str(e.value))
            assert "printable characters" in str(e.value)
            rep.worker(0.5, rank=0, node="n1")    # a real name lands
    finally:
        cluster.run(["scancel", str(jid)], check=False)


def test_report_for_a_finished_job_refused_record_unchanged(cluster):
    env = client_env(cluster)
    jid = cluster.sbatch(["--scheduler=optimus,workers=1", "-o", "/dev/null",
                          "-t", "10"], SCRIPT)
    cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
    with opr.Reporter(job_id=jid) as rep:
        rep.progress(100, 1.5)
    wait_for(lambda: opr.query("job", jid).get("step") == 100, 30,
             "the report did not reach the record")
    cluster.run(["scancel", str(jid)])
    cluster.wait_job_state(jid, {"CANCELLED"}, timeout=60)
    wait_for(lambda: opr.query("job", jid).get("phase_name") == "done", 30,
             "the planner did not close the record")
    before = opr.query("job", jid)
    code = msg = None
    with opr.Reporter(job_id=jid) as rep:
        try:
            rep.progress(99999, 0.01)
        except opr.ReportError as e:
            code, msg = e.code, str(e)
    # the planner feeds queued reports at every tick, before its plan: one
    # queued would have landed by now
    wait_plans(cluster, 2)
    r = subprocess.run([CTL, "--json", "show", "job", str(jid)], env=env,
                       capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    after = strict_utf8_json(r.stdout)
    assert (after["step"], after["loss"]) == (before["step"], before["loss"])
    assert after["step"] == 100
    assert code == "finished", (code, msg)
    assert "has finished" in msg, msg

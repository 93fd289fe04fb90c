# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""The Python client (python/optimus_report.py) against the C client: the
same constants (written from the C headers by the build) and the same
answers, case by case, from the very C functions the C client and the
scheduler run (testsuite/offline/client_rules, built by `make check`):
where the listener is, the run a report names, Slurm's configuration
grammar, a reply's batch change, and AdaScale's gain (lr_scale against
models/efficiency.c's efficiency_gain). Needs no cluster."""
import itertools
import json
import os
import random
import subprocess
import sys

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "python"))
import optimus_report as opr  # noqa: E402
import optimus_report_consts as consts  # noqa: E402

PROBE = os.path.join(TOP, "testsuite", "offline", "client_rules")
GENERATOR = os.path.join(TOP, "src", "tools", "report_consts_py")


@pytest.fixture(scope="module")
def c_client():
    """ask(request) -> the C client's answer (a dict)."""
    assert os.access(PROBE, os.X_OK), \
        "%s is not built: run make" % PROBE
    p = subprocess.Popen([PROBE], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)

    def ask(request):
        p.stdin.write(json.dumps(request) + "\n")
        p.stdin.flush()
        line = p.stdout.readline()
        assert line, "client_rules stopped (exit %s)" % p.poll()
        return json.loads(line)
    yield ask
    p.stdin.close()
    assert p.wait(timeout=10) == 0


# ------------------------------------------------------------- constants
def test_constants_are_the_headers_of_this_build():
    """The module the Python client imports is what the generator writes
    from the headers now (a stale copy fails), and the client uses it."""
    want = subprocess.run([GENERATOR], capture_output=True, text=True,
                          check=True).stdout
    with open(consts.__file__) as f:
        assert f.read() == want, "%s is stale: run make" % consts.__file__
    for name in ("RETRY_ATTEMPTS", "RETRY_BASE", "RETRY_MAX", "DEFAULT_PORT",
                 "DEFAULT_ADDRESS", "MAX_FRAME", "MAX_REPLY", "MAX_RUN",
                 "CONF_MAX_DEPTH"):
        assert getattr(opr, name) is getattr(consts, name), name


# -------------------------------------------------------------- endpoint
CTL12 = "".join("SlurmctldHost=c%d(10.0.0.%d)\n" % (i, i) for i in range(12))
# (slurm.conf, optimus.conf or None, environment)
ENDPOINT_CASES = [
    ("SlurmctldHost=ctl(10.1.2.3)\n"
     "AuthInfo=socket=/run/x/munge.sock,cred_expire=10\n",
     "ReportAddress=0.0.0.0\nReportPort=7001\n", {}),
    ("SlurmctldHost=ctl\n", "ReportAddress=192.0.2.7\n",
     {"MUNGE_SOCKET": "/tmp/m.sock"}),
    ("SlurmctldHost=primary(10.0.0.1)\n"
     "SlurmctldHost = backup(10.0.0.2) # the backup\n"
     "SlurmctldHost=backup2\n"
     "AuthInfo = \"socket=/run/m.sock,cred_expire=10\"\n",
     "reportaddress = 0.0.0.0\nReportPort = 7000\n", {}),
    (CTL12, "ReportAddress=::\n", {}),
    ("ControlMachine=old\nSlurmctldHost=a(b\nSlurmctldHost=x(y)z\n",
     "ReportAddress=0.0.0.0\n", {}),
    ("", "ReportAddress=0.0.0.0\n", {}),
    ("", None, {}),
    ("", "ReportAddress=\"\"\n", {}),
    ("", "ReportPort=0\n", {}),
    ("", "ReportPort=abc\n", {}),
    ("", "ReportPort=+7000\n", {}),
    ("", "ReportPort=65535\n", {}),
    ("", "ReportPort=65536\n", {}),
    ("", "ReportPort 7000\n", {}),
    ("AuthInfo=Socket=/a,socket=/b,,cred_expire=3\n", None, {}),
    ("AuthInfo=cred_expire=3\n", None, {"MUNGE_SOCKET": ""}),
    ("this is not slurm.conf\n", "ReportAddress=10.9.9.9\n",
     {"MUNGE_SOCKET": "/m"}),
    ("this is not slurm.conf\n", "ReportAddress=10.9.9.9\n", {}),
    ("this is not slurm.conf\n", "ReportAddress=0.0.0.0\n",
     {"MUNGE_SOCKET": "/m"}),
] + [("SlurmctldHost=ctl\n", "ReportPort=7001\n",
      {"OPTIMUS_REPORT_ADDR": addr}) for addr in (
    "example:6999", "[::1]:7000", "::1:7000", ":80", "host:", "host:0",
    "host:+80", "host: 80", "host:80x", "[]:80", "a:b:90", "host:65536",
    "host:-0", "[x:80", "x]:80", "h" * 300 + ":80", "")]


def py_endpoint(monkeypatch, env):
    for name in ("SLURM_CONF", "OPTIMUS_REPORT_ADDR", "MUNGE_SOCKET"):
        if name in env:
            monkeypatch.setenv(name, env[name])
        else:
            monkeypatch.delenv(name, raising=False)
    try:
        hosts, port, sock = opr.endpoints()
    except opr.ConfError as e:
        return {"error": str(e)}
    return {"hosts": hosts, "port": port, "socket": sock}


@pytest.mark.parametrize("slurm, optimus, env", ENDPOINT_CASES)
def test_endpoint_as_the_c_client(tmp_path, monkeypatch, c_client, slurm,
                                  optimus, env):
    (tmp_path / "slurm.conf").write_text(slurm)
    if optimus is not None:
        (tmp_path / "optimus.conf").write_text(optimus)
    env = dict(env, SLURM_CONF=str(tmp_path / "slurm.conf"))
    c = c_client({"op": "endpoint", "env": env})
    py = py_endpoint(monkeypatch, env)
    assert ("error" in py) == ("error" in c), (py, c)
    if "error" not in c:
        assert py == c


def test_endpoint_without_slurm_conf(tmp_path, monkeypatch, c_client):
    env = {"SLURM_CONF": str(tmp_path / "none" / "slurm.conf")}
    c = c_client({"op": "endpoint", "env": env})
    assert py_endpoint(monkeypatch, env) == c == {
        "hosts": [consts.DEFAULT_ADDRESS], "port": consts.DEFAULT_PORT,
        "socket": None}


# ------------------------------------------------------------- the run
RUN_TEXTS = [None, "", "0", "3", "00", "65535", "65536", "-1", "+1", " 1",
             "1 ", "\u0661", "1e3", "0x10", "99999999999999999999999"]


@pytest.mark.parametrize("text", RUN_TEXTS)
def test_run_as_the_c_client(c_client, text):
    env = {"SLURM_JOB_ID": "7"}
    if text is not None:
        env["SLURM_RESTART_COUNT"] = text
    assert opr.run_of(7, env) == c_client({"op": "run", "text": text})["run"]


# ------------------------------------------------- configuration grammar
with open(os.path.join(TOP, "testsuite", "data", "conf_cases.json")) as _f:
    CONF_CASES = json.load(_f)["cases"]


def agree_on_conf(tmp_path, c_client, files, keys):
    for name, text in files.items():
        (tmp_path / name).write_bytes(text.encode())
    path = str(tmp_path / "main.conf")
    for key in keys:
        c = c_client({"op": "conf", "path": path, "key": key})
        try:
            py = {"value": opr.conf_get(path, key)}
        except opr.ConfError as e:
            py = {"error": str(e)}
        assert ("error" in py) == ("error" in c), (files, key, py, c)
        if "error" not in c:
            assert py == c, (files, key)


@pytest.mark.parametrize("case", CONF_CASES,
                         ids=[c["name"] for c in CONF_CASES])
def test_conf_table_as_the_c_client(tmp_path, c_client, case):
    agree_on_conf(tmp_path, c_client, case["files"],
                  list(case.get("get", {})) + ["ReportPort", "Missing"])


# Lines built from the grammar's hard parts: escapes, comments, quotes,
# continuations, operators, several pairs, Include.
PIECES = ["Key=v", "key=w", "A.b_c=1", " ", "\t", "=", "+=", "\\", "\\\\",
          "#", "\\#", "\"q s\"", "\"", "x", "Include other.conf",
          "include  other.conf", "\n", "\\\n", "Key = \"a#b\"", "K2=\\#x"]


def test_conf_grammar_random_files_as_the_c_client(tmp_path, c_client):
    rng = random.Random(44)
    for i in range(400):
        d = tmp_path / str(i)
        d.mkdir()
        main = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 12)))
        other = "Key=from_other\nK2=o2\n"
        agree_on_conf(d, c_client, {"main.conf": main, "other.conf": other},
                      ["Key", "key", "A.b_c", "K2"])


# ------------------------------------------------- a reply's batch change
GOOD = {"batch": 512, "local_batch": 64, "accum": 1, "lr_scale": 1.5}
REBATCH_RESULTS = [None, [], {}, {"other": 1}, {"rebatch": None},
                   {"rebatch": []}, {"rebatch": GOOD}] + [
    {"rebatch": dict(GOOD, **change)} for change in (
        {"batch": 500}, {"batch": 0}, {"batch": 2**53}, {"batch": 2**53 + 2},
        {"batch": 512.0}, {"batch": True}, {"batch": "512"},
        {"local_batch": 0}, {"local_batch": 2**32}, {"local_batch": 256},
        {"accum": -1}, {"accum": 64, "batch": 64 * 65},
        {"accum": 65, "batch": 64 * 66}, {"lr_scale": 0}, {"lr_scale": 2},
        {"lr_scale": 1e-12}, {"lr_scale": 1e-13}, {"lr_scale": 1e12},
        {"lr_scale": 1.1e12}, {"lr_scale": False}, {"lr_scale": None})] + [
    {"rebatch": {k: v for k, v in GOOD.items() if k != gone}}
    for gone in GOOD]


@pytest.mark.parametrize("result", REBATCH_RESULTS)
def test_rebatch_reply_as_the_c_client(c_client, result):
    c = c_client({"op": "rebatch", "result": result})
    try:
        change = opr.Rebatch.from_reply(result)
        py = {"rebatch": None if change is None else {
            "batch": change.global_batch, "local_batch": change.local_batch,
            "accum": change.accum_steps, "lr_scale": change.lr_scale}}
    except opr.ReportError as e:
        assert e.code == "bad_reply"
        py = {"error": str(e)}
    assert ("error" in py) == ("error" in c), (py, c)
    if "error" not in c:
        assert py == c


# ------------------------------------------------------ lr_scale and gain
GRID = list(itertools.product(
    (1, 32, 1000),                                  # the submitted batch
    (0.25, 0.5, 1, 2, 3.5, 8, 64),                  # batch / submitted
    (0.0, 1e-6, 0.01, 1.0, 100.0),                  # |G|^2
    (0.0, 1e-3, 1.0, 50.0, 1e4)))                   # tr(Sigma)


@pytest.mark.parametrize("base, s, sqr, trace", GRID)
def test_lr_scale_is_efficiency_gain(c_client, base, s, sqr, trace):
    """lr_scale(batch, base) with the job's |G|^2 and tr(Sigma) is the
    scheduler's efficiency_gain of batch against base, and the ratio of the
    gains of batch and base against any other initial batch (the rule a
    batch change's lr_scale is sent with)."""
    batch = base * s
    want = c_client({"op": "gain", "batch": batch, "base": base,
                     "grad_sqr": sqr, "trace": trace})["gain"]
    got = opr.lr_scale(batch, base, "adascale", sqr, trace)
    assert got == pytest.approx(want, rel=1e-12, abs=0), (got, want)
    b0 = base * 3
    g = c_client({"op": "gain", "batch": batch, "base": b0,
                  "grad_sqr": sqr, "trace": trace})["gain"]
    g0 = c_client({"op": "gain", "batch": base, "base": b0,
                   "grad_sqr": sqr, "trace": trace})["gain"]
    assert got == pytest.approx(g / g0, rel=1e-12, abs=0)

# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""python/optimus_report.py finds the listener the way the C client does."""
import json
import os
import sys
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
import optimus_report  # noqa: E402


def write_confs(tmp_path, slurm, optimus):
    (tmp_path / "slurm.conf").write_text(slurm)
    (tmp_path / "optimus.conf").write_text(optimus)
    return str(tmp_path / "slurm.conf")


def test_wildcard_address_means_the_controller(tmp_path, monkeypatch):
    conf = write_confs(tmp_path,
                       "SlurmctldHost=ctl(10.1.2.3)\n"
                       "AuthInfo=socket=/run/x/munge.sock,cred_expire=10\n",
                       "ReportAddress=0.0.0.0\nReportPort=7001\n")
    monkeypatch.setenv("SLURM_CONF", conf)
    monkeypatch.delenv("OPTIMUS_REPORT_ADDR", raising=False)
    monkeypatch.delenv("MUNGE_SOCKET", raising=False)
    assert optimus_report.endpoint() == ("10.1.2.3", 7001, "/run/x/munge.sock")


def test_explicit_address_and_environment(tmp_path, monkeypatch):
    conf = write_confs(tmp_path, "SlurmctldHost=ctl\n",
                       "ReportAddress=192.0.2.7\n")
    monkeypatch.setenv("SLURM_CONF", conf)
    monkeypatch.delenv("OPTIMUS_REPORT_ADDR", raising=False)
    monkeypatch.setenv("MUNGE_SOCKET", "/tmp/m.sock")
    assert optimus_report.endpoint() == ("192.0.2.7", 6830, "/tmp/m.sock")
    monkeypatch.setenv("OPTIMUS_REPORT_ADDR", "example:6999")
    assert optimus_report.endpoint()[:2] == ("example", 6999)


# The table the C reader (testsuite/unit/test_conf_file) passes too.
TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
with open(os.path.join(TOP, "testsuite", "data", "conf_cases.json")) as _f:
    CONF_CASES = json.load(_f)["cases"]


@pytest.mark.parametrize("case", CONF_CASES, ids=[c["name"] for c in CONF_CASES])
def test_conf_grammar_table(tmp_path, case):
    for name, text in case["files"].items():
        (tmp_path / name).write_bytes(text.encode())
    path = str(tmp_path / "main.conf")
    if "error" in case:
        with pytest.raises(optimus_report.ConfError) as e:
            optimus_report.conf_get(path, "ReportPort")
        assert case["error"] in str(e.value)
    else:
        for key, want in case["get"].items():
            assert optimus_report.conf_get(path, key) == want, key


def test_primary_controller_first_and_spaces(tmp_path, monkeypatch):
    conf = write_confs(tmp_path,
                       "SlurmctldHost=primary(10.0.0.1)\n"
                       "SlurmctldHost = backup(10.0.0.2) # the backup\n"
                       "SlurmctldHost=backup2\n"
                       "AuthInfo = \"socket=/run/m.sock,cred_expire=10\"\n",
                       "reportaddress = 0.0.0.0\nReportPort = 7000\n")
    monkeypatch.setenv("SLURM_CONF", conf)
    monkeypatch.delenv("OPTIMUS_REPORT_ADDR", raising=False)
    monkeypatch.delenv("MUNGE_SOCKET", raising=False)
    assert optimus_report.endpoints() == (
        ["10.0.0.1", "10.0.0.2", "backup2"], 7000, "/run/m.sock")
    assert optimus_report.endpoint() == ("10.0.0.1", 7000, "/run/m.sock")
    (tmp_path / "optimus.conf").write_text("ReportPort 7000\n")
    with pytest.raises(optimus_report.ConfError) as e:
        optimus_report.endpoints()
    assert "optimus.conf line 1" in str(e.value)

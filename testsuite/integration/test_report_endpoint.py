"""python/optimus_report.py finds the listener the way the C client does."""
import os
import sys

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

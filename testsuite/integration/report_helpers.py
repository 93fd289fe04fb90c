"""Helpers shared by the report-channel tests (test_report*.py,
test_tools.py)."""
import json
import os


def client_env(cluster):
    """The environment of a reporter of this cluster (SLURM_CONF,
    MUNGE_SOCKET, no OPTIMUS_REPORT_ADDR), also set in this process so the
    in-process Python client resolves the listener like a job would."""
    e = cluster.env()
    e.pop("OPTIMUS_REPORT_ADDR", None)
    for key in ("SLURM_CONF", "MUNGE_SOCKET"):
        os.environ[key] = e[key]
    os.environ.pop("OPTIMUS_REPORT_ADDR", None)
    return e


def strict_json(text):
    """json.loads refusing NaN and Infinity, which RFC 8259 has not."""
    def refuse(name):
        raise ValueError("not strict JSON: %s" % name)
    return json.loads(text, parse_constant=refuse)

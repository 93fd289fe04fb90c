# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""The scheduler's metrics and a job's plan history on a real cluster
(doc/metrics.md): `optimusctl metrics` as root and as a
second Unix user, parsed by prometheus_client's own parser (Debian's
python3-prometheus-client), and `optimusctl plan-history N --svg FILE`
read back as XML. The job is resized for real: an elastic job takes the
whole cluster, then a newcomer makes it shrink (sched_helpers' squeezed).
The per-job series exist only with MetricsPerJob=yes and end with their
job: by default no label names a job or carries a user's text."""
import os
import re
import subprocess
import time
import xml.etree.ElementTree as ET

from prometheus_client.parser import text_string_to_metric_families

from report_helpers import (as_user, client_env, open_to_every_user,
                            strict_json, unix_user)
from sched_helpers import CLUSTER_OPTIONS as SCHED_OPTIONS
from sched_helpers import cancel, runs, squeezed, submit, write_optimus_conf
from waiting import wait_for, wait_plans

# The planner tests' cluster, with the per-job series asked for (they are
# left out by default: doc/metrics.md, "Cardinality").
CLUSTER_OPTIONS = dict(SCHED_OPTIONS, optimus_conf=SCHED_OPTIONS[
    "optimus_conf"] + "MetricsPerJob=yes\n")

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CTL = os.path.join(TOP, "src", "tools", "optimusctl")
DOC = os.path.join(TOP, "doc", "metrics.md")
OTHER = "optimus-metrics"


def ctl(env, *argv, user=None):
    if user:
        return as_user(user, [CTL] + list(argv), env)
    return subprocess.run([CTL] + list(argv), env=env, capture_output=True,
                          text=True, timeout=30)


def scrape(env, user=None):
    """The families of `optimusctl metrics` by name, and the text."""
    r = ctl(env, "metrics", user=user)
    assert r.returncode == 0, r.stderr
    fams = {f.name: f for f in text_string_to_metric_families(r.stdout)}
    return fams, r.stdout


def value(fams, family, sample, **labels):
    """The value of the sample named `sample` with these labels, or None."""
    f = fams.get(family)
    for s in f.samples if f else ():
        if s.name == sample and all(s.labels.get(k) == v
                                    for k, v in labels.items()):
            return s.value
    return None


def job_series(fams, job):
    return [s for f in fams.values() for s in f.samples
            if s.labels.get("job_id") == str(job)]


def test_metrics_and_plan_history_of_a_resized_job(cluster, tmp_path):
    env = client_env(cluster)
    open_to_every_user(cluster)
    other = unix_user(OTHER).pw_name
    before, _ = scrape(env)
    progress0 = value(before, "optimus_reports_accepted",
                      "optimus_reports_accepted_total", type="progress")
    assert progress0 is not None, "no report counter by message type"

    big, big_out, first, small = squeezed(cluster, tmp_path, "metrics", 5,
                                          700, 60)
    try:
        second = wait_for(lambda: runs(big_out)[1:2], 120, "a restart")[0]

        def resized():
            fams, _ = scrape(env)
            done = value(fams, "optimus_job_restarts",
                         "optimus_job_restarts_total", job_id=str(big))
            # A restart's cost is known at the run's first step (its first
            # report), after the restart itself.
            lost = value(fams, "optimus_job_resize_seconds",
                         "optimus_job_resize_seconds_total", job_id=str(big))
            return fams if done and done >= 1 and lost else None
        fams = wait_for(resized, 30, "the restart in the metrics")
        job = strict_json(ctl(env, "--json", "show", "job", str(big)).stdout)

        # Every family has its HELP and TYPE; every name in the text is
        # documented in doc/metrics.md.
        doc = open(DOC).read()
        for f in fams.values():
            assert f.type in ("counter", "gauge"), (f.name, f.type)
            assert f.documentation, f.name
            name = f.name + ("_total" if f.type == "counter" else "")
            assert "`%s`" % name in doc, "%s not in doc/metrics.md" % name

        # The job's series: the figures of `show job` (one source of truth)
        g = lambda fam, sample=None: value(fams, fam, sample or fam,  # noqa
                                           job_id=str(big))
        assert g("optimus_job_info") == 1
        assert g("optimus_job_resizes", "optimus_job_resizes_total") == \
            job["resizes"] >= 1
        assert g("optimus_job_restarts", "optimus_job_restarts_total") == \
            job["restarts"] >= 1
        assert g("optimus_job_resize_seconds",
                 "optimus_job_resize_seconds_total") == \
            job["resize_seconds"] > 0
        assert g("optimus_job_reports", "optimus_job_reports_total") > 0
        if job["phase_name"] == "running":
            assert g("optimus_job_ps") == job["cur_ps"]
            assert g("optimus_job_workers") == job["cur_workers"]
            assert g("optimus_job_gpus") == 0        # no gpus= asked
            assert g("optimus_job_predicted_remaining_seconds") > 0
        assert g("optimus_job_speed_steps_per_second") > 0
        assert value(fams, "optimus_job_phase", "optimus_job_phase",
                     job_id=str(big), phase=job["phase_name"]) == 1

        # Scheduler-wide counters moved with the reports and the resize.
        assert value(fams, "optimus_reports_accepted",
                     "optimus_reports_accepted_total",
                     type="progress") > progress0
        assert value(fams, "optimus_plans", "optimus_plans_total") >= 1
        assert value(fams, "optimus_plan_last_run_timestamp_seconds",
                     "optimus_plan_last_run_timestamp_seconds") > \
            time.time() - 30
        waits = sum(s.value for s in
                    fams["optimus_checkpoint_waits"].samples
                    if s.name == "optimus_checkpoint_waits_total")
        assert waits >= 1
        assert value(fams, "optimus_state_file_saves",
                     "optimus_state_file_saves_total", result="ok") >= 1
        assert value(fams, "optimus_jobs", "optimus_jobs",
                     phase="running") >= 1

        # Another user sees the scheduler's figures, none of root's jobs.
        theirs, text = scrape(env, user=other)
        assert value(theirs, "optimus_plans", "optimus_plans_total") >= 1
        assert "optimus_job_ps" in theirs       # declared, no sample
        assert job_series(theirs, big) == [] and \
            job_series(theirs, small) == [], text
        assert not re.search(r'^optimus_job_\w+\{', text, re.M), text

        # The plan history: well-formed SVG with the resize marked.
        svg = tmp_path / "history.svg"
        r = ctl(env, "plan-history", str(big), "--svg", str(svg))
        assert r.returncode == 0, r.stderr
        root = ET.parse(str(svg)).getroot()
        ns = "{http://www.w3.org/2000/svg}"
        assert root.tag == ns + "svg"
        marks = [l for l in root.iter(ns + "line")
                 if l.get("class") == "mark"]
        titles = [l.find(ns + "title").text for l in marks]
        want = "resize 1: %d PS + %d workers" % (second["ps"],
                                                 second["workers"])
        assert any(t == want for t in titles), titles
        texts = "".join(t.text or "" for t in root.iter(ns + "text"))
        assert "Job %d" % big in texts and "loss" in texts
        # ... and only for whom may see the job
        r = ctl(env, "plan-history", str(big), "--svg", "-", user=other)
        assert r.returncode == 1 and "forbidden" in r.stderr, r.stderr
    finally:
        cancel(cluster, big, small)


def test_metrics_output_replaces_the_file_whole(cluster, tmp_path):
    """--output: the textfile collector's file is replaced by a rename
    (no temporary file left, mode 0644 for node_exporter's user), and kept
    as it was when the scheduler cannot be reached."""
    env = client_env(cluster)
    out = tmp_path / "optimus.prom"
    out.write_text("# old\n")
    r = ctl(env, "metrics", "--output", str(out))
    assert r.returncode == 0 and r.stdout == "", r.stderr
    assert os.stat(out).st_mode & 0o777 == 0o644
    assert os.listdir(tmp_path) == ["optimus.prom"]
    fams = {f.name for f in text_string_to_metric_families(out.read_text())}
    assert "optimus_plans" in fams, fams
    text = out.read_text()
    r = ctl(env, "--addr", "127.0.0.1:1", "--timeout", "200", "metrics",
            "--output", str(out))
    assert r.returncode == 1, r.stderr
    assert out.read_text() == text and os.listdir(tmp_path) == \
        ["optimus.prom"]


def per_job_samples(fams):
    """Every sample that names one job or carries the user's model= text:
    what makes a scrape's series grow with the jobs ever run."""
    return [(f.name, s.labels) for f in fams.values() for s in f.samples
            if "job_id" in s.labels or "model" in s.labels]


def per_job_metrics(cluster, on):
    """optimus.conf's MetricsPerJob set (the cluster's other keys, its
    report port among them, kept) and re-read (`scontrol reconfigure`;
    Slurm 23.11 and later restart slurmctld for it), then two plans run."""
    path = os.path.join(cluster.etc, "optimus.conf")
    text = "".join(line for line in open(path).readlines()
                   if not line.startswith("MetricsPerJob="))
    mark = len(cluster.logs())
    write_optimus_conf(cluster, text + ("MetricsPerJob=yes\n" if on else ""))
    cluster.run(["scontrol", "reconfigure"])
    wait_for(lambda: re.search(r"sched/optimus: read \S+optimus\.conf: ",
                               cluster.logs()[mark:]), 60,
             "optimus.conf read again")
    wait_plans(cluster, 2)


def test_by_default_no_series_names_a_job(cluster, tmp_path):
    """Without MetricsPerJob=yes a scrape's size does not grow with the
    jobs: no job_id label and no user-chosen model= label on any sample
    (prometheus-slurm-exporter has neither), while the scheduler-wide
    figures still count the job."""
    env = client_env(cluster)
    per_job_metrics(cluster, False)
    jid, _ = submit(cluster, tmp_path, "cardinality",
                    "optimus,max_ps=1,max_workers=2,model=user-text-%d"
                    % time.time_ns(), 100000)
    try:
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
        wait_for(lambda: value(scrape(env)[0], "optimus_jobs",
                               "optimus_jobs", phase="running"), 30,
                 "the running job counted")
        fams, text = scrape(env)
        assert per_job_samples(fams) == [], text
        assert not [f for f in fams if f.startswith("optimus_job_")], text
        assert value(fams, "optimus_plans", "optimus_plans_total") >= 1
    finally:
        cancel(cluster, jid)
        per_job_metrics(cluster, True)


def test_a_jobs_series_end_with_the_job(cluster, tmp_path):
    """MetricsPerJob=yes: a running job has its series; once it has ended
    (phase done, the record still kept) every series naming it is gone,
    and optimus_jobs counts it as done."""
    env = client_env(cluster)
    jid, _ = submit(cluster, tmp_path, "ends", "optimus,max_ps=1,"
                    "max_workers=2,model=ends", 5)
    try:
        cluster.wait_job_state(jid, {"RUNNING"}, timeout=60)
        wait_for(lambda: value(scrape(env)[0], "optimus_job_info",
                               "optimus_job_info", job_id=str(jid)), 30,
                 "the job's series")
        cluster.wait_job_state(jid, {"COMPLETED"}, timeout=120)
        wait_for(lambda: strict_json(ctl(env, "--json", "show", "job",
                                         str(jid)).stdout)["phase_name"]
                 == "done", 30, "the record's phase done")
        fams, text = scrape(env)
        assert job_series(fams, jid) == [], text
        assert value(fams, "optimus_jobs", "optimus_jobs",
                     phase="done") >= 1, text
    finally:
        cancel(cluster, jid)

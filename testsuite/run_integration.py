#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""run_integration.py - run the integration modules on several workers.

Usage: testsuite/run_integration.py [pytest arguments, e.g. -k name]

The integration tests mostly wait: for daemons, for plan intervals, for
jobs to checkpoint and requeue (a lane's load average stays under 1 on 2
cores). One after the other they take most of CI's 45 minutes in each
lane, so the modules are run by OPTIMUS_TEST_WORKERS (default 2; CI's
lanes 3) workers at once, each module in its own pytest process with its own
module-scoped cluster (testsuite/integration/conftest.py). Two clusters
never disturb each other (testsuite/cluster/cluster.py: a free slot of
ports, for its daemons and for its tasks, Slurm's MpiParams=ports=, its
own folder, kills only its own processes), whatever their job ids.

A worker takes the next module from one queue, the long ones first (the
list below, from CI's --durations: ordering only, a module missing from
it just runs later), so that neither worker is left with a long module
at the end. Each module's output is printed whole when it ends, then the
wall time of every module and one pytest-style summary line for all of
them, which .ci/run reads. Exit status 0 only if every module passed
(a module whose tests all were deselected by -k counts as passed).

The modules in ALONE assert on timings they compare within their own run
(sbatch latency under attack against the same cluster idle): they run
after all the others, with no other module of this run beside them.
OPTIMUS_TEST_ALONE chooses: "with" (the default) runs them so at the
end; "skip" leaves them out; "only" runs just them. CI's two lanes run
at once on the same 2 cores, so .ci/run gives its lanes "skip" and then
runs each lane's ALONE modules with "only", one lane after the other,
when nothing else runs: beside its lane's other workers and the other
lane's, test_report_admission measured an sbatch p99 ratio (attacked
over idle) of 1.69 where the same test alone measured 0.94 and 0.99.
"""
import glob
import os
import queue
import re
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
INTEGRATION = os.path.join(HERE, "integration")

# The modules that take longest (CI lane logs, --durations), longest first.
LONG_FIRST = [
    "test_promises.py", "test_user_bounds.py", "test_sched.py",
    "test_faults.py", "test_preemption.py", "test_limits.py",
    "test_fair_share.py", "test_stragglers.py", "test_job_contract.py",
    "test_ddp.py", "test_examples.py", "test_summaries.py",
    "test_state_faults.py", "test_ports.py", "test_pollux_replay.py",
    "test_mass_cancel.py", "test_adaptive_batch.py",
    "test_report_replies.py", "test_text_bytes.py",
    "test_fair_share_accounting.py", "test_metrics.py",
    "test_replay_trainer.py", "test_roles.py", "test_failover.py",
    "test_install.py", "test_checkpoint_identity.py",
]

# Modules run with no other module beside them (see above).
ALONE = ["test_report_admission.py"]
ALONE_CHOICES = ("with", "skip", "only")

# pytest's exit status when -k deselected every test of a module.
PYTEST_NO_TESTS = 5

COUNT_RE = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|"
                      r"xpassed|deselected|warnings?)")
SUMMARY_RE = re.compile(r"^=+ .* in [0-9.]+s.* =+$")


def modules_ordered():
    found = sorted(os.path.basename(p) for p in
                   glob.glob(os.path.join(INTEGRATION, "test_*.py")))
    first = [m for m in LONG_FIRST if m in found]
    return first + [m for m in found if m not in first]


def modules_split(alone_choice):
    """(the modules run on the workers at once, the ALONE ones run after
    them one at a time) under OPTIMUS_TEST_ALONE's choice."""
    ordered = modules_ordered()
    together = [m for m in ordered if m not in ALONE]
    alone = [m for m in ordered if m in ALONE]
    if alone_choice == "skip":
        return together, []
    if alone_choice == "only":
        return [], alone
    return together, alone


def module_counts(output):
    """The counts of the module's pytest summary line, {} if none."""
    counts = {}
    lines = [l for l in output.splitlines() if SUMMARY_RE.match(l)]
    if lines:
        for n, what in COUNT_RE.findall(lines[-1]):
            what = {"error": "errors", "warning": "warnings"}.get(what, what)
            counts[what] = counts.get(what, 0) + int(n)
    return counts


def run_module(module, worker, args, logdir):
    env = dict(os.environ)
    log = os.path.join(logdir, module + ".log")
    t0 = time.monotonic()
    with open(log, "w") as out:
        rc = subprocess.call(
            [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider",
             "--durations=5", os.path.join(INTEGRATION, module)] + args,
            stdout=out, stderr=subprocess.STDOUT, env=env, cwd=os.path.dirname(HERE))
    with open(log) as f:
        output = f.read()
    return rc, time.monotonic() - t0, output


def main():
    args = sys.argv[1:]
    nworkers = max(1, int(os.environ.get("OPTIMUS_TEST_WORKERS", "2")))
    alone_choice = os.environ.get("OPTIMUS_TEST_ALONE", "with")
    if alone_choice not in ALONE_CHOICES:
        print("run_integration.py: OPTIMUS_TEST_ALONE=%s: expected one of %s"
              % (alone_choice, ", ".join(ALONE_CHOICES)), file=sys.stderr)
        return 2
    together, alone = modules_split(alone_choice)
    todo = queue.Queue()
    for m in together:
        todo.put(m)
    results = {}
    lock = threading.Lock()
    logdir = tempfile.mkdtemp(prefix="optimus-integration-")

    def worker(w):
        while True:
            try:
                module = todo.get_nowait()
            except queue.Empty:
                return
            rc, secs, output = run_module(module, w, args, logdir)
            with lock:
                results[module] = (rc, secs, module_counts(output))
                if rc != PYTEST_NO_TESTS:
                    sys.stdout.write(output)
                print("== %s: exit %d after %.0f s (worker %d)"
                      % (module, rc, secs, w), flush=True)

    t0 = time.monotonic()
    threads = [threading.Thread(target=worker, args=(w,))
               for w in range(nworkers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # The ALONE modules, one at a time on worker 0's job ids, now that no
    # other module of this run is left
    for m in alone:
        todo.put(m)
    worker(0)
    if alone_choice == "skip":
        print("== left out (OPTIMUS_TEST_ALONE=skip): %s"
              % " ".join(m for m in modules_ordered() if m in ALONE))
    wall = time.monotonic() - t0

    total, failed_modules = {}, []
    print("== integration modules by wall time (%d workers)" % nworkers)
    for module, (rc, secs, counts) in sorted(results.items(),
                                             key=lambda r: -r[1][1]):
        print("%8.0f s  %s%s" % (secs, module,
                                 "" if rc in (0, PYTEST_NO_TESTS)
                                 else "  (exit %d)" % rc))
        if rc not in (0, PYTEST_NO_TESTS):
            failed_modules.append(module)
        for what, n in counts.items():
            total[what] = total.get(what, 0) + n
    order = ["failed", "passed", "errors", "skipped", "deselected",
             "xfailed", "xpassed", "warnings"]
    words = ["%d %s" % (total[w], w) for w in order if total.get(w)]
    if failed_modules and not total.get("failed") and not total.get("errors"):
        words.insert(0, "%d modules failed" % len(failed_modules))
    print("%s %s in %.2fs (%d modules on %d workers) %s"
          % ("=" * 18, ", ".join(words) or "no tests ran", wall,
             len(results), nworkers, "=" * 18))
    if failed_modules:
        print("failed modules: " + " ".join(failed_modules))
    return 1 if failed_modules else 0


if __name__ == "__main__":
    sys.exit(main())

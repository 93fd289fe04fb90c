# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Checkpoint signals sent to a Python task while it logs: the test of
every checkpoint handler (test_examples.py, test_report.py).

A Python signal handler runs between two bytecodes of the main thread,
and also inside C code that checks for signals, such as the flush of
sys.stderr's buffer after each write. A handler that prints there
re-enters the buffer and the task dies with "RuntimeError: reentrant call
inside <_io.BufferedWriter name='<stderr>'>" (seen in CI: torch_trainer.py,
rank 0). The task runs as a job's task would: stderr buffered (conftest.py
drops PYTHONUNBUFFERED, which hides the fault) and read by a reader slower
than the task, so that its writes block and the signals land inside them."""
import signal
import subprocess
import threading
import time

PYTHON = "/usr/bin/python3"


def run_storm(code, args=(), env=None, signals=300, every=0.005):
    """Run `python3 -c code args...`; once it prints "ready" on stdout,
    send it `signals` SIGUSR1s, `every` seconds apart. Returns (exit
    status, signals sent, stdout after "ready", stderr)."""
    pr = subprocess.Popen([PYTHON, "-c", code] + list(args), env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    err = []

    def slow_reader():
        chunks = []
        while True:
            chunk = pr.stderr.read(1024)
            if not chunk:
                break
            chunks.append(chunk)
            time.sleep(0.01)    # a slow reader is part of the storm
        err.append("".join(chunks))
    drain = threading.Thread(target=slow_reader)
    drain.start()
    first = pr.stdout.readline().strip()
    assert first == "ready", first
    sent = 0
    while sent < signals and pr.poll() is None:
        pr.send_signal(signal.SIGUSR1)
        sent += 1
        time.sleep(every)       # the storm's pace: the thing under test
    out = pr.stdout.read()
    pr.wait(timeout=120)
    drain.join()
    return pr.returncode, sent, out, err[0]

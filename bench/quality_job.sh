#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# One quality job of bench/quality_fair.py: bench/quality_job.py in the
# batch step (exec: the checkpoint signal reaches the trainer itself, and
# the shell cannot end the job on it). Options are passed through.
: "${PYTHON:=/usr/bin/python3}"
exec "$PYTHON" "$OPTIMUS_BENCH/quality_job.py" "$@"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# demo.sh - the README's first command: install what is needed, build,
# start a 4-node Slurm cluster on this machine with the plugins (its own
# munged, slurmctld, four slurmd, MariaDB and slurmdbd), and run a short
# demonstration workload: three real training jobs scheduled by
# sched/optimus beside an ordinary job kept on Slurm's backfill; then a
# short version of the end-to-end benchmark (bench/e2e_jct.py --quick).
# Run as root on Debian. The cluster keeps running afterwards; stop it with
#   testsuite/cluster/optimus-cluster stop --dir /tmp/optimus-demo
# Exit status 0 only when every job of both parts completed (a failed,
# cancelled or killed job is a failure: bench/job_outcome.py).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
dir=${OPTIMUS_DEMO_DIR:-/tmp/optimus-demo}

contrib/install-deps.sh
contrib/build.sh
testsuite/cluster/optimus-cluster stop --dir "$dir" --remove 2>/dev/null || true
echo "== starting a 4-node cluster in $dir"
testsuite/cluster/optimus-cluster start --dir "$dir" --accounting >/dev/null
SLURM_CONF="$dir/etc/slurm.conf"
MUNGE_SOCKET="$dir/run/munge.socket.2"
export SLURM_CONF MUNGE_SOCKET
sinfo
failed=""
contrib/demo-workload.sh "$dir/work" || failed="the demonstration workload"
# The end-to-end comparison (doc/results.md) in short: three training jobs on
# two fresh clusters, one with sched/optimus and one with sched/backfill.
if [ "${OPTIMUS_DEMO_COMPARE:-1}" != 0 ]; then
	echo "== a short end-to-end comparison: bench/e2e_jct.py --quick (a few minutes;"
	echo "   OPTIMUS_DEMO_COMPARE=0 skips it)"
	/usr/bin/python3 bench/e2e_jct.py --quick ||
		failed="${failed:+$failed and }the end-to-end comparison"
fi
cat <<EOT

The cluster is still up. Try:
  export SLURM_CONF=$SLURM_CONF MUNGE_SOCKET=$MUNGE_SOCKET
  sbatch --scheduler=optimus,max_workers=4 examples/ps_trainer.sbatch
  src/tools/optimusctl status
Stop it with: testsuite/cluster/optimus-cluster stop --dir $dir
EOT
if [ -n "$failed" ]; then
	echo "demo.sh: a job of $failed did not complete (see its outcome line above)" >&2
	exit 1
fi

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# demo-workload.sh - a short real workload on a running cluster: three
# training jobs (examples/ps_trainer.py on the digits data) scheduled by
# sched/optimus and one ordinary job; waits for them and shows what the
# scheduler did (squeue, SystemComment, optimusctl status, sacct), then the
# outcome: how many jobs completed and which did not (bench/job_outcome.py:
# a failed, cancelled or killed job is a failure).
#
#   SLURM_CONF=/path/to/slurm.conf contrib/demo-workload.sh [WORKDIR]
#
# Run as the user whose jobs they should be (root on a test cluster). The
# jobs' output and checkpoints go to WORKDIR (default: a new folder in /tmp).
# sacct is shown only when the cluster has accounting. Exit status 0 when
# every job completed, 1 otherwise.
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
: "${SLURM_CONF:?set SLURM_CONF to the slurm.conf of the cluster}"
export SLURM_CONF
PYTHON=${PYTHON:-/usr/bin/python3}
OPTIMUSCTL=${OPTIMUSCTL:-$TOP/src/tools/optimusctl}
[ -x "$OPTIMUSCTL" ] || OPTIMUSCTL=optimusctl
WORKDIR=${1:-$(mktemp -d /tmp/optimus-demo-XXXXXX)}
mkdir -p "$WORKDIR"
TIMEOUT=${DEMO_TIMEOUT:-600}

hints="min_ps=1,max_ps=2,min_workers=1,max_workers=3,ckpt_grace=15"
# submit NAME MODE TRAINER-OPTIONS...: prints the job id
submit() {
	name=$1 mode=$2
	shift 2
	sbatch --parsable -J "$name" -D "$WORKDIR" --open-mode=append \
		-o "$WORKDIR/$name.out" \
		--export="ALL,OPTIMUS_EXAMPLES=$TOP/examples,PYTHON=$PYTHON" \
		--scheduler="optimus,mode=$mode,$hints,ckpt_dir=$WORKDIR/ck-$name" \
		"$TOP/examples/ps_trainer.sbatch" "$@" | cut -d';' -f1
}

echo "== submitting (output in $WORKDIR)"
j1=$(submit digits-async async --target-loss 0.15 --work-ms-per-sample 3)
sleep 5
j2=$(submit digits-sync sync --target-loss 0.2 --batch 64 --work-ms-per-sample 2)
sleep 5
j3=$(submit digits-small async --target-loss 0.3 --work-ms-per-sample 3)
j4=$(sbatch --parsable -J ordinary -D "$WORKDIR" -o "$WORKDIR/ordinary.out" \
	-n 1 --wrap 'echo "an ordinary job on $(hostname)"; sleep 20' | cut -d';' -f1)
jobs="$j1,$j2,$j3,$j4"
echo "optimus jobs: $j1 $j2 $j3; ordinary job: $j4"

sleep 15
echo "== squeue"
squeue -j "$jobs" -o '%.8i %.14j %.9T %.6D %.5C %R'
echo "== optimusctl status"
"$OPTIMUSCTL" status || true

echo "== waiting for the jobs (at most ${TIMEOUT}s)"
# Each job's state as it ends (Slurm forgets a finished job after MinJobAge).
status=0
outcome=$("$PYTHON" "$TOP/bench/job_outcome.py" --timeout "$TIMEOUT" \
	digits-async="$j1" digits-sync="$j2" digits-small="$j3" ordinary="$j4") ||
	status=$?
if [ "$status" = 2 ]; then
	echo "demo-workload.sh: $outcome" >&2
	squeue -j "$jobs"
	exit 1
fi

echo "== SystemComment (sched/optimus's summary of each job)"
for j in $j1 $j2 $j3; do
	printf '%s: ' "$j"
	scontrol show job "$j" 2>/dev/null | sed -n 's/^ *SystemComment=//p' ||
		echo "(gone from slurmctld)"
done
echo "== what the trainers logged (each run's topology, first and last loss)"
for n in digits-async digits-sync digits-small; do
	echo "$n:"
	grep -E '^run [0-9]+:|starting at step|done: steps' "$WORKDIR/$n.out" | sed 's/^/  /'
	grep -E 'step [0-9]+ loss' "$WORKDIR/$n.out" | sed -n '1p;$p' | sed 's/^/  /'
done
echo "== optimusctl status"
"$OPTIMUSCTL" status || true
if sacct -n -j "$j1" >/dev/null 2>&1 && [ -n "$(sacct -n -X -j "$j1" 2>/dev/null)" ]; then
	echo "== sacct"
	sacct -X -j "$jobs" -o JobID,JobName%14,State,Submit,End,NNodes,AllocCPUS,SystemComment%200
fi
echo "== outcome: $outcome"
[ "$status" = 0 ]

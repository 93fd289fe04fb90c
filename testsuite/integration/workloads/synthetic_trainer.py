#!/usr/bin/python3
"""A training job with a known speed function and convergence curve.

Scheduler tests need jobs whose behaviour is known in advance: this one
advances `step` at f(p, w) steps per second (the Optimus async speed
function with fixed coefficients) for the topology the scheduler gave it,
follows the loss curve l(k) = 1/(b0*k + b1) + b2, reports both through the
real report channel, checkpoints its step on the checkpoint signal (and
confirms it with a checkpoint report, so the requeue need not wait for the
grace period) and resumes from it after a requeue. It is the batch script itself (one task).

usage: synthetic_trainer.py STEPS [THETA0 THETA1 THETA2 THETA3]
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "python"))
import optimus_report  # noqa: E402


def topology():
    text = os.environ.get("SLURM_SPANK_OPTIMUS_TOPOLOGY", "ps=1,workers=1")
    kv = dict(item.split("=", 1) for item in text.split(",") if "=" in item)
    return int(kv.get("ps", 1)), int(kv.get("workers", 1))


def speed(p, w, theta):
    t0, t1, t2, t3 = theta
    return w / (t0 + t1 * w / p + t2 * w + t3 * p)


def loss(k):
    return 1.0 / (0.002 * k + 1.0) + 0.05


def main():
    total = float(sys.argv[1])
    theta = [float(x) for x in sys.argv[2:6]] or [1.0, 0.5, 0.02, 0.02]
    ckpt_dir = os.environ.get("OPTIMUS_CHECKPOINT_DIR") or os.getcwd()
    os.makedirs(ckpt_dir, exist_ok=True)
    ckpt = os.path.join(ckpt_dir, "synthetic-%s.json" % os.environ["SLURM_JOB_ID"])
    step = 0.0
    if os.path.exists(ckpt):
        step = json.load(open(ckpt))["step"]
    p, w = topology()
    log = {"restart": int(os.environ.get("SLURM_RESTART_COUNT", "0")),
           "ps": p, "workers": w, "resumed_from": step}
    print(json.dumps(log), flush=True)

    def checkpoint():
        tmp = ckpt + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"step": step}, f)
        os.rename(tmp, ckpt)
        print(json.dumps({"checkpoint": step}), flush=True)
        return step

    rep = optimus_report.Reporter()
    # The reporter installs the checkpoint handler and declares that the
    # job can checkpoint (it resumed from `step`): the scheduler may resize.
    rep.handle_checkpoints(checkpoint, int(step))
    rate = speed(p, w, theta)
    while step < total:
        time.sleep(1.0)
        step = min(total, step + rate)
        try:
            rep.progress(int(step), loss(step), samples_per_sec=32 * rate)
        except optimus_report.ReportError as e:
            print("report refused:", e, file=sys.stderr, flush=True)
    print(json.dumps({"done": step}), flush=True)


if __name__ == "__main__":
    main()

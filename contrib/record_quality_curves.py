#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Record real training curves of the quality-driven paper's seven families.

The quality-driven scheduling paper (and SLAQ before it) trains Spark MLlib
jobs of seven algorithm families and predicts each job's loss per
iteration and its CPU time per iteration, c*S (S: the data an iteration
processes). This script trains the same families with Debian's
scikit-learn (python3-sklearn), on one core, each on several data sizes and
step sizes, and writes every iteration's training loss, the CPU seconds
the iteration took (time.process_time, training only, not the loss
measurement) and S:

    /usr/bin/python3 contrib/record_quality_curves.py testsuite/data/quality-curves

writes curves.csv (sklearn families) and dl.csv (the per-epoch validation
curves of testsuite/data/pollux-osdi21/traces, a DL set), columns

    curve,family,data_size,step_size,iteration,loss,cpu_s

`loss` is the raw training objective of the family (not normalised);
optimus-sim normalises it per job.  Deterministic data and seeds; the CPU
times are measured and differ from machine to machine.  Families, with
what "iteration" and "step size" mean for each:

  svm       MLlib's GradientDescent (SVMWithSGD): iteration = ONE gradient
            step on a random tenth of the data (miniBatchFraction 0.1),
            step size stepSize / sqrt(t), L2 regParam 0.01 (MLlib's
            defaults); step = stepSize; loss = mean hinge loss + L2 term
            on all the data
  logreg    the same (LogisticRegressionWithSGD, regParam 0.01); loss =
            mean log loss + L2 term
  linreg    the same (LinearRegressionWithSGD, no regularisation); loss =
            MSE / 2
  mlp       MLPClassifier(32 tanh units, sgd, momentum 0.9), iteration =
            one epoch (partial_fit on all the data), step =
            learning_rate_init; loss = mean log loss
  gbt       GradientBoostingRegressor(depth 3), iteration = one stage
            (warm_start), step = learning_rate; loss = train MSE (staged)
  kmeans    Lloyd's iterations (assign with sklearn's
            pairwise_distances_argmin_min, then means) from centres drawn
            from the data; iteration = one Lloyd step, step = k (clusters;
            k-means has no step size); loss = objective (inertia) / n;
            also ends when no point changes cluster
  lda       LatentDirichletAllocation(online) on a corpus drawn from a
            known topic model (8 topics, 300 words; no text corpus ships
            in Debian's scikit-learn), iteration = partial_fit on a tenth
            of the documents, step = learning_offset (tau0; kappa 0.7);
            loss = log perplexity (minus the variational bound per word)

Every run trains until the convergence criterion of the plan
(models/convergence.h, CONV_DECREASE, delta 0.001): the loss, normalised
by the untrained model's, fell by no more than delta per iteration over
the last WINDOW iterations (means of WINDOW iterations against the WINDOW
before, so that a mini-batch step's noise does not end a run), or until
the family's cap (CAP).
"""
import os
import sys

# One core: BLAS threads would both load the shared machine and make
# process_time count several threads' time.
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import csv  # noqa: E402
import glob  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
from sklearn.datasets import (make_blobs, make_classification,  # noqa: E402
                              make_friedman1, make_regression)
from sklearn.decomposition import LatentDirichletAllocation  # noqa: E402
from sklearn.ensemble import GradientBoostingRegressor  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.metrics import log_loss  # noqa: E402
from sklearn.metrics import pairwise_distances_argmin_min  # noqa: E402
from sklearn.neural_network import MLPClassifier  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

SIZES = {
    "svm": (2000, 8000, 32000),
    "logreg": (2000, 8000, 32000),
    "linreg": (2000, 8000, 32000),
    "mlp": (1000, 3000, 8000),
    "gbt": (1000, 3000, 8000),
    "kmeans": (3000, 10000, 30000),
    "lda": (300, 1000, 2500),
}
STEPS = {
    "svm": (0.03, 0.1, 0.3, 1.0),
    "logreg": (0.03, 0.1, 0.3, 1.0),
    "linreg": (0.01, 0.03, 0.1, 0.3),
    "mlp": (0.003, 0.01, 0.03, 0.1),
    "gbt": (0.03, 0.1, 0.2, 0.5),
    "kmeans": (5, 10, 20, 40),
    "lda": (2, 10, 50, 250),
}
CAP = {"svm": 3000, "logreg": 3000, "linreg": 3000, "mlp": 400, "gbt": 500,
       "kmeans": 300, "lda": 300}
FRACTION = 10           # SGD and LDA: an iteration sees 1/FRACTION of the data
DELTA = 0.001           # the plan's convergence threshold (CONV_DELTA_DEFAULT)
WINDOW = 10             # iterations averaged by the criterion
REG = {"svm": 0.01, "logreg": 0.01, "linreg": 0.0}     # MLlib's regParam


def converged(losses):
    """The plan's criterion on the losses so far (iteration 0 first):
    the mean of the last WINDOW fell from the WINDOW before by no more
    than DELTA x the initial loss per iteration."""
    if len(losses) < 2 * WINDOW + 1 or losses[0] <= 0:
        return False
    last = sum(losses[-WINDOW:]) / WINDOW
    before = sum(losses[-2 * WINDOW:-WINDOW]) / WINDOW
    return (before - last) / losses[0] <= DELTA * WINDOW


def cpu_of(fn):
    t = time.process_time()
    fn()
    return time.process_time() - t


def sgd_data(family, n, seed):
    if family == "linreg":
        X, y = make_regression(n_samples=n, n_features=20, n_informative=12,
                               noise=20.0, random_state=seed)
        y = y / np.std(y)
    else:
        X, y = make_classification(n_samples=n, n_features=20,
                                   n_informative=8, flip_y=0.05,
                                   class_sep=0.8, random_state=seed)
        y = 2.0 * y - 1.0       # labels -1/+1
    X = StandardScaler().fit_transform(X)
    # MLlib's intercept: a constant feature.
    return np.hstack([X, np.ones((n, 1))]), y


def sgd_loss(family, X, y, w):
    m = X @ w
    reg = 0.5 * REG[family] * float(w[:-1] @ w[:-1])
    if family == "linreg":
        r = m - y
        return 0.5 * float(np.mean(r * r))
    if family == "svm":
        return float(np.mean(np.maximum(0.0, 1.0 - y * m))) + reg
    return float(np.mean(np.logaddexp(0.0, -y * m))) + reg


def sgd_gradient(family, X, y, w):
    m = X @ w
    if family == "linreg":
        g = X.T @ (m - y) / len(y)
    elif family == "svm":
        g = -(X.T @ (y * (y * m < 1.0))) / len(y)
    else:
        g = -(X.T @ (y / (1.0 + np.exp(y * m)))) / len(y)
    reg = REG[family] * w
    reg[-1] = 0.0               # the intercept is not regularised
    return g + reg


def sgd_curve(family, n, step, seed):
    """MLlib's GradientDescent.runMiniBatchSGD: iteration t samples
    miniBatchFraction of the data and takes one step of stepSize /
    sqrt(t) along the mini-batch's gradient (plus the L2 term)."""
    rng = np.random.default_rng(seed)
    X, y = sgd_data(family, n, data_seed(family, n))
    w = np.zeros(X.shape[1])
    batch = n // FRACTION
    losses = [sgd_loss(family, X, y, w)]
    yield (0, losses[0], 0.0, batch)
    for it in range(1, CAP[family] + 1):
        idx = rng.choice(n, batch, replace=False)

        def one_step():
            w[:] = w - step / np.sqrt(it) * sgd_gradient(family, X[idx],
                                                         y[idx], w)
        cpu = cpu_of(one_step)
        losses.append(sgd_loss(family, X, y, w))
        yield (it, losses[-1], cpu, batch)
        if converged(losses):
            break


def mlp_curve(n, step, seed):
    seed = data_seed("mlp", n)  # data, initial weights and batches
    X, y = make_classification(n_samples=n, n_features=20, n_informative=10,
                               n_classes=4, n_clusters_per_class=2,
                               flip_y=0.03, random_state=seed)
    X = StandardScaler().fit_transform(X)
    model = MLPClassifier(hidden_layer_sizes=(32,), activation="tanh",
                          solver="sgd", learning_rate_init=step,
                          momentum=0.9, batch_size=100, random_state=seed)
    # Iteration 0: the same initial weights (same random_state) after a
    # step of negligible size.
    probe = MLPClassifier(hidden_layer_sizes=(32,), activation="tanh",
                          solver="sgd", learning_rate_init=1e-12,
                          momentum=0.0, batch_size=100, random_state=seed)
    probe.partial_fit(X, y, classes=(0, 1, 2, 3))
    losses = [log_loss(y, probe.predict_proba(X), labels=(0, 1, 2, 3))]
    yield (0, losses[0], 0.0, n)
    for it in range(1, CAP["mlp"] + 1):
        cpu = cpu_of(lambda: model.partial_fit(X, y, classes=(0, 1, 2, 3)))
        losses.append(log_loss(y, model.predict_proba(X),
                               labels=(0, 1, 2, 3)))
        yield (it, losses[-1], cpu, n)
        if converged(losses):
            break


def gbt_curve(n, step, seed):
    seed = data_seed("gbt", n)
    X, y = make_friedman1(n_samples=n, n_features=10, noise=1.0,
                          random_state=seed)
    model = GradientBoostingRegressor(learning_rate=step, max_depth=3,
                                      n_estimators=0, warm_start=True,
                                      random_state=seed)
    # Iteration 0: the initial estimator, the mean.
    losses = [float(np.var(y))]
    yield (0, losses[0], 0.0, n)
    for it in range(1, CAP["gbt"] + 1):
        model.n_estimators = it
        cpu = cpu_of(lambda: model.fit(X, y))
        losses.append(float(model.train_score_[-1]))
        yield (it, losses[-1], cpu, n)
        if converged(losses):
            break


def kmeans_curve(n, k, seed):
    rng = np.random.default_rng(seed)
    X, _ = make_blobs(n_samples=n, n_features=10, centers=k,
                      cluster_std=3.0, center_box=(-10, 10),
                      random_state=seed)
    centres = X[rng.choice(n, k, replace=False)].copy()
    # Iteration 0: the objective of the initial centres.
    labels, dist = pairwise_distances_argmin_min(X, centres)
    losses = [float(np.mean(dist ** 2))]
    yield (0, losses[0], 0.0, n)
    for it in range(1, CAP["kmeans"] + 1):
        state = {}

        def step():
            for j in range(k):
                members = X[labels == j]
                if len(members):
                    centres[j] = members.mean(axis=0)
            state["lab"], state["dist"] = pairwise_distances_argmin_min(
                X, centres)
        cpu = cpu_of(step)
        losses.append(float(np.mean(state["dist"] ** 2)))
        yield (it, losses[-1], cpu, n)
        if np.array_equal(labels, state["lab"]) or converged(losses):
            break
        labels = state["lab"]


def lda_corpus(ndocs, seed, topics=8, vocab=300, length=60):
    rng = np.random.default_rng(seed)
    beta = rng.dirichlet(np.full(vocab, 0.05), size=topics)
    theta = rng.dirichlet(np.full(topics, 0.3), size=ndocs)
    counts = np.zeros((ndocs, vocab))
    for d in range(ndocs):
        words = rng.choice(vocab, rng.poisson(length) + 1, p=theta[d] @ beta)
        np.add.at(counts[d], words, 1)
    return counts


def lda_curve(n, tau0, seed):
    rng = np.random.default_rng(seed)      # the mini-batches
    seed = data_seed("lda", n)             # corpus and initial topics
    X = lda_corpus(n, seed)
    model = LatentDirichletAllocation(n_components=8, learning_method="online",
                                      learning_decay=0.7, learning_offset=tau0,
                                      total_samples=n, random_state=seed)
    batch = n // FRACTION
    # Iteration 0: the random initial topics (same random_state), after a
    # step of weight (1e12 + 1)^-0.7, i.e. none.
    probe = LatentDirichletAllocation(n_components=8, learning_method="online",
                                      learning_decay=0.7, learning_offset=1e12,
                                      total_samples=n, random_state=seed)
    probe.partial_fit(X[:batch])
    losses = [float(np.log(probe.perplexity(X)))]
    yield (0, losses[0], 0.0, batch)
    for it in range(1, CAP["lda"] + 1):
        idx = rng.choice(n, batch, replace=False)
        cpu = cpu_of(lambda: model.partial_fit(X[idx]))
        losses.append(float(np.log(model.perplexity(X))))
        yield (it, losses[-1], cpu, batch)
        if converged(losses):
            break


def curve_iter(family, n, step, seed):
    """The run's rows (iteration, loss, cpu_s, data_size), one per
    iteration as it trains (bench/quality_job.py trains through this)."""
    if family in ("svm", "logreg", "linreg"):
        return sgd_curve(family, n, step, seed)
    return {"mlp": mlp_curve, "gbt": gbt_curve, "kmeans": kmeans_curve,
            "lda": lda_curve}[family](n, step, seed)


def data_seed(family, n):
    """The seed of the data (and of the untrained model) of every run of
    (family, n): the runs of one family and size differ only in their
    step size, so that the loss the family reaches on that data is the
    lowest of those runs (optimus-sim normalises against it)."""
    return 1000 * list(SIZES).index(family) + 10 * SIZES[family].index(n)


def curve_seed(family, n, step):
    """The seed main() gives the run of (family, n, step): its mini-batch
    draws (k-means: its data and initial centres, k being the model)."""
    fi = list(SIZES).index(family)
    return 1000 * fi + 10 * SIZES[family].index(n) + \
        STEPS[family].index(step) + 1


def record(family, n, step, seed):
    return list(curve_iter(family, n, step, seed))


def dl_epoch_seconds(trace, batch):
    """Seconds of one step at global batch `batch` on one GPU, from the
    measured single-GPU placements (placement "1"): linear in local_bsz,
    extrapolated from the two largest measured sizes when `batch` is
    larger (the whole batch then runs on one GPU by accumulation)."""
    pts = []
    with open(os.path.join(trace, "placements.csv")) as f:
        for r in csv.DictReader(f):
            if r["placement"] == "1":
                pts.append((float(r["local_bsz"]), float(r["step_time"])))
    pts.sort()
    xs = np.array([p[0] for p in pts])
    ys = np.array([p[1] for p in pts])
    if batch <= xs[-1]:
        return float(np.interp(batch, xs, ys))
    if len(xs) < 2:
        return float(ys[-1] * batch / xs[-1])
    slope = (ys[-1] - ys[-2]) / (xs[-1] - xs[-2])
    return float(ys[-1] + slope * (batch - xs[-1]))


def dl_rows(pollux):
    """The per-epoch validation curves of the Pollux traces: a rising
    metric (accuracy-like: it grows over the epochs) becomes 1 - metric;
    cpu_s = the epoch's steps x one step's seconds on one GPU; data_size =
    the examples of the epoch (iterations x batch).  The traces start
    after the first epoch: a DL curve has no iteration 0."""
    out = []
    for path in sorted(glob.glob(os.path.join(pollux, "*",
                                              "validation-*.csv"))):
        trace = os.path.dirname(path)
        model = os.path.basename(trace)
        batch = int(os.path.basename(path)[len("validation-"):-4])
        with open(path) as f:
            rows = list(csv.DictReader(f))
        if len(rows) < 2:
            continue
        metric = [float(r["metric"]) for r in rows]
        rising = metric[-1] > metric[0]
        step_s = dl_epoch_seconds(trace, batch)
        prev_it = 0
        for e, r in enumerate(rows, 1):
            it = int(float(r["iteration"]))
            loss = 1 - float(r["metric"]) if rising else float(r["metric"])
            out.append((f"dl-{model}-{batch}", f"dl-{model}", batch * max(
                it - prev_it, 1), batch, e, loss, step_s * max(it - prev_it, 1)))
            prev_it = it
    return out


def main(out, pollux):
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    os.makedirs(out, exist_ok=True)
    started = time.time()
    cpu0 = time.process_time()
    ncurves = 0
    with open(os.path.join(out, "curves.csv"), "w") as f:
        f.write("curve,family,data_size,step_size,iteration,loss,cpu_s\n")
        for family in SIZES:
            for n in SIZES[family]:
                for step in STEPS[family]:
                    seed = curve_seed(family, n, step)
                    name = f"{family}-{n}-{step:g}"
                    t = time.time()
                    rows = record(family, n, step, seed)
                    for it, loss, cpu, size in rows:
                        f.write(f"{name},{family},{size},{step:g},{it},"
                                f"{loss:.6g},{cpu:.6g}\n")
                    ncurves += 1
                    print(f"{name}: {len(rows)} iterations, "
                          f"loss {rows[0][1]:.4g} -> {rows[-1][1]:.4g}, "
                          f"{time.time() - t:.1f} s", flush=True)
    dl = dl_rows(pollux)
    with open(os.path.join(out, "dl.csv"), "w") as f:
        f.write("curve,family,data_size,step_size,iteration,loss,cpu_s\n")
        for name, family, size, batch, e, loss, cpu in dl:
            f.write(f"{name},{family},{size},{batch},{e},{loss:.6g},"
                    f"{cpu:.6f}\n")
    print(f"{ncurves} sklearn curves, {len({r[0] for r in dl})} DL curves; "
          f"{time.time() - started:.0f} s wall, "
          f"{time.process_time() - cpu0:.0f} s CPU")


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    main(sys.argv[1] if len(sys.argv) > 1 else
         os.path.join(here, "..", "testsuite", "data", "quality-curves"),
         sys.argv[2] if len(sys.argv) > 2 else
         os.path.join(here, "..", "testsuite", "data", "pollux-osdi21",
                      "traces"))

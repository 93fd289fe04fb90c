#!/usr/bin/python3
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

  svm       SGDClassifier(loss=hinge), iteration = partial_fit on a random
            tenth of the data (MLlib's miniBatchFraction), step = eta0
            (constant); loss = mean hinge loss + L2 term on all the data
  logreg    the same with loss=log_loss; loss = mean log loss
  linreg    SGDRegressor(squared_error), the same iteration; loss = MSE / 2
  mlp       MLPClassifier(32 tanh units, sgd, momentum 0.9), iteration =
            one epoch (partial_fit on all the data), step =
            learning_rate_init; loss = mean log loss
  gbt       GradientBoostingRegressor(depth 3), iteration = one stage
            (warm_start), step = learning_rate; loss = train MSE (staged)
  kmeans    Lloyd's iterations (assign with sklearn's
            pairwise_distances_argmin_min, then means) from centres drawn
            from the data; iteration = one Lloyd step, step = k (clusters;
            k-means has no step size); loss = objective (inertia) / n;
            ends when no point changes cluster
  lda       LatentDirichletAllocation(online) on a corpus drawn from a
            known topic model (8 topics, 300 words; no text corpus ships
            in Debian's scikit-learn), iteration = partial_fit on a tenth
            of the documents, step = learning_offset (tau0; kappa 0.7);
            loss = log perplexity (minus the variational bound per word)
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
from sklearn.linear_model import SGDClassifier, SGDRegressor  # noqa: E402
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
    "svm": (0.0003, 0.001, 0.003, 0.01),
    "logreg": (0.0003, 0.001, 0.003, 0.01),
    "linreg": (0.0001, 0.0003, 0.001, 0.003),
    "mlp": (0.003, 0.01, 0.03, 0.1),
    "gbt": (0.03, 0.1, 0.2, 0.5),
    "kmeans": (5, 10, 20, 40),
    "lda": (2, 10, 50, 250),
}
ITERS = {"svm": 50, "logreg": 50, "linreg": 50, "mlp": 40, "gbt": 60,
         "kmeans": 60, "lda": 30}
FRACTION = 10           # SGD and LDA: an iteration sees 1/FRACTION of the data


def cpu_of(fn):
    t = time.process_time()
    fn()
    return time.process_time() - t


def sgd_curve(family, n, step, seed):
    rng = np.random.default_rng(seed)
    if family == "linreg":
        X, y = make_regression(n_samples=n, n_features=20, n_informative=12,
                               noise=20.0, random_state=seed)
        y = y / np.std(y)
        model = SGDRegressor(learning_rate="constant", eta0=step,
                             alpha=1e-4, random_state=seed)
    else:
        X, y = make_classification(n_samples=n, n_features=20,
                                   n_informative=8, flip_y=0.05,
                                   class_sep=0.8, random_state=seed)
        loss = "hinge" if family == "svm" else "log_loss"
        model = SGDClassifier(loss=loss, learning_rate="constant", eta0=step,
                              alpha=1e-4, random_state=seed)
    X = StandardScaler().fit_transform(X)
    batch = n // FRACTION
    # Iteration 0: the zero model SGD starts from.
    if family == "linreg":
        loss0 = 0.5 * np.mean(y * y)
    else:
        loss0 = 1.0 if family == "svm" else np.log(2.0)
    yield (0, loss0, 0.0, batch)
    for it in range(1, ITERS[family] + 1):
        idx = rng.choice(n, batch, replace=False)
        if family == "linreg":
            cpu = cpu_of(lambda: model.partial_fit(X[idx], y[idx]))
            r = X @ model.coef_ + model.intercept_ - y
            loss = 0.5 * np.mean(r * r)
        else:
            cpu = cpu_of(lambda: model.partial_fit(X[idx], y[idx],
                                                   classes=(0, 1)))
            m = X @ model.coef_[0] + model.intercept_[0]
            if family == "svm":
                s = 2 * y - 1
                loss = np.mean(np.maximum(0, 1 - s * m)) + \
                    0.5 * model.alpha * float(model.coef_[0] @ model.coef_[0])
            else:
                loss = log_loss(y, 1 / (1 + np.exp(-m)), labels=(0, 1))
        yield (it, loss, cpu, batch)


def mlp_curve(n, step, seed):
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
    yield (0, log_loss(y, probe.predict_proba(X), labels=(0, 1, 2, 3)),
           0.0, n)
    for it in range(1, ITERS["mlp"] + 1):
        cpu = cpu_of(lambda: model.partial_fit(X, y, classes=(0, 1, 2, 3)))
        yield (it, log_loss(y, model.predict_proba(X), labels=(0, 1, 2, 3)),
               cpu, n)


def gbt_curve(n, step, seed):
    X, y = make_friedman1(n_samples=n, n_features=10, noise=1.0,
                          random_state=seed)
    model = GradientBoostingRegressor(learning_rate=step, max_depth=3,
                                      n_estimators=0, warm_start=True,
                                      random_state=seed)
    # Iteration 0: the initial estimator, the mean.
    yield (0, float(np.var(y)), 0.0, n)
    for it in range(1, ITERS["gbt"] + 1):
        model.n_estimators = it
        cpu = cpu_of(lambda: model.fit(X, y))
        yield (it, float(model.train_score_[-1]), cpu, n)


def kmeans_curve(n, k, seed):
    rng = np.random.default_rng(seed)
    X, _ = make_blobs(n_samples=n, n_features=10, centers=k,
                      cluster_std=3.0, center_box=(-10, 10),
                      random_state=seed)
    centres = X[rng.choice(n, k, replace=False)].copy()
    # Iteration 0: the objective of the initial centres.
    labels, dist = pairwise_distances_argmin_min(X, centres)
    yield (0, float(np.mean(dist ** 2)), 0.0, n)
    for it in range(1, ITERS["kmeans"] + 1):
        state = {}

        def step():
            for j in range(k):
                members = X[labels == j]
                if len(members):
                    centres[j] = members.mean(axis=0)
            state["lab"], state["dist"] = pairwise_distances_argmin_min(
                X, centres)
        cpu = cpu_of(step)
        yield (it, float(np.mean(state["dist"] ** 2)), cpu, n)
        if np.array_equal(labels, state["lab"]):
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
    X = lda_corpus(n, seed)
    rng = np.random.default_rng(seed)
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
    yield (0, float(np.log(probe.perplexity(X))), 0.0, batch)
    for it in range(1, ITERS["lda"] + 1):
        idx = rng.choice(n, batch, replace=False)
        cpu = cpu_of(lambda: model.partial_fit(X[idx]))
        yield (it, float(np.log(model.perplexity(X))), cpu, batch)


def curve_iter(family, n, step, seed):
    """The run's rows (iteration, loss, cpu_s, data_size), one per
    iteration as it trains (bench/quality_job.py trains through this)."""
    if family in ("svm", "logreg", "linreg"):
        return sgd_curve(family, n, step, seed)
    return {"mlp": mlp_curve, "gbt": gbt_curve, "kmeans": kmeans_curve,
            "lda": lda_curve}[family](n, step, seed)


def curve_seed(family, n, step):
    """The seed main() gives the run of (family, n, step)."""
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
                                f"{loss:.6g},{cpu:.6f}\n")
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

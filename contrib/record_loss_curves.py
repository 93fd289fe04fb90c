#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Record real training-loss curves for the model benchmarks.

Trains small models with plain mini-batch SGD in numpy on scikit-learn's
digits data set (1797 8x8 images, 10 classes) and writes one CSV per run to
testsuite/data/ (columns: step,loss; loss = mean cross-entropy over the
whole training set, measured every RECORD_EVERY steps). Deterministic
(fixed seeds). Needs Debian's python3-numpy and python3-sklearn:

    /usr/bin/python3 contrib/record_loss_curves.py testsuite/data
"""
import os
import sys

import numpy as np
from sklearn.datasets import load_digits

BATCH = 32
RECORD_EVERY = 9          # 5 records per epoch of 45 steps


def softmax_xent(logits, y):
    z = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    loss = -np.log(p[np.arange(len(y)), y] + 1e-12).mean()
    g = p
    g[np.arange(len(y)), y] -= 1.0
    return loss, g / len(y)


class Softmax:
    def __init__(self, rng, d, k):
        self.W = rng.normal(0, 0.01, (d, k))
        self.b = np.zeros(k)

    def loss_grad(self, X, y):
        loss, g = softmax_xent(X @ self.W + self.b, y)
        return loss, [(self.W, X.T @ g), (self.b, g.sum(0))]


class MLP:
    def __init__(self, rng, d, h, k):
        self.W1 = rng.normal(0, 1 / np.sqrt(d), (d, h))
        self.b1 = np.zeros(h)
        self.W2 = rng.normal(0, 1 / np.sqrt(h), (h, k))
        self.b2 = np.zeros(k)

    def loss_grad(self, X, y):
        a = np.tanh(X @ self.W1 + self.b1)
        loss, g = softmax_xent(a @ self.W2 + self.b2, y)
        ga = (g @ self.W2.T) * (1 - a * a)
        return loss, [(self.W2, a.T @ g), (self.b2, g.sum(0)),
                      (self.W1, X.T @ ga), (self.b1, ga.sum(0))]


def train(model, X, y, epochs, lr_at, seed):
    rng = np.random.default_rng(seed)
    rows, step = [], 0
    for epoch in range(epochs):
        order = rng.permutation(len(y))
        for i in range(0, len(y) - BATCH + 1, BATCH):
            idx = order[i:i + BATCH]
            _, grads = model.loss_grad(X[idx], y[idx])
            lr = lr_at(epoch)
            for param, grad in grads:
                param -= lr * grad
            step += 1
            if step % RECORD_EVERY == 0:
                rows.append((step, model.loss_grad(X, y)[0]))
    return rows


def main(out):
    digits = load_digits()
    X = digits.data / 16.0
    y = digits.target
    rng = np.random.default_rng(0)
    runs = {
        "softmax_sgd": (Softmax(rng, 64, 10), 100, lambda e: 0.02),
        "mlp_sgd": (MLP(rng, 64, 32, 10), 100, lambda e: 0.01),
        "mlp_stepdecay": (MLP(rng, 64, 32, 10), 100,
                          lambda e: 0.8 if e < 40 else 0.08),
    }
    os.makedirs(out, exist_ok=True)
    for name, (model, epochs, lr_at) in runs.items():
        rows = train(model, X, y, epochs, lr_at, seed=1)
        with open(os.path.join(out, f"loss_{name}.csv"), "w") as f:
            f.write("step,loss\n")
            for step, loss in rows:
                f.write(f"{step},{loss:.6f}\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "testsuite/data")

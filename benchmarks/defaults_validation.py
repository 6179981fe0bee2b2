# SPDX-License-Identifier: BSD-3-Clause
"""Check the estimators' defaults (``regularization="auto"``, intercept, kernel).

Three parts, each printing a Markdown table (results in docs/defaults.md):

* ``adult``: UCI Adult (official split, ``load_adult()`` full features) with
  the default ``DPLinearSVC`` / ``DPLogisticRegression`` at ε ∈ {0.1, 0.5, 1, 2}
  against the old defaults (Λ = 0.01, no intercept); 5 noise draws each.
* ``synthetic``: the a-priori Λ rule on data it was *not* tuned on — a planted
  linear rule (``benchmarks/bench_linear.py``), centred and shifted so that
  the rule needs an intercept — against the best Λ of a grid k/(nε) scored on
  the test rows (an oracle no private fit can use).
* ``kernel``: ``DPKernelSVC`` defaults on Sarwate et al.'s nested balls at ε = 0.1
  (γ = 0.5, the paper's public width) on the test rows of
  ``benchmarks/nested_balls.py``.

Usage::

    python benchmarks/defaults_validation.py                 # all (~4 min)
    python benchmarks/defaults_validation.py --parts adult   # DPSVM_DATA set
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from dpsvm.datasets import load_adult, make_nested_balls
from dpsvm.models import DPKernelSVC, DPLinearSVC, DPLogisticRegression

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_linear import make_planted_linear

EPSILONS = (0.1, 0.5, 1.0, 2.0)
DRAWS = 5


def _mean_sd(fit_score: Callable[[int], float], draws: int = DRAWS) -> str:
    scores = np.array([fit_score(seed) for seed in range(draws)])
    return f"{scores.mean():.4f} ± {scores.std(ddof=1):.4f}"


def adult() -> None:
    """Default estimators on Adult against the old defaults."""
    data = load_adult()
    Xtr, ytr, Xte, yte = data.X_train, data.y_train, data.X_test, data.y_test
    print("| model | ε | old defaults (Λ = 0.01, no intercept) | defaults |")
    print("|---|---:|---:|---:|")
    for cls in (DPLinearSVC, DPLogisticRegression):
        for eps in EPSILONS:

            def old(seed: int, cls=cls, eps=eps) -> float:  # type: ignore[no-untyped-def]
                est = cls(
                    epsilon=eps,
                    regularization=0.01,
                    fit_intercept=False,
                    classes=[-1, 1],
                    random_state=seed,
                )
                return float(est.fit(Xtr, ytr).score(Xte, yte))

            def new(seed: int, cls=cls, eps=eps) -> float:  # type: ignore[no-untyped-def]
                est = cls(epsilon=eps, classes=[-1, 1], random_state=seed)
                return float(est.fit(Xtr, ytr).score(Xte, yte))

            print(f"| {cls.__name__} | {eps:g} | {_mean_sd(old)} | {_mean_sd(new)} |")


def synthetic(n: int = 50_000, d: int = 20) -> None:
    """The Λ rule and the intercept on data the rule was not tuned on."""
    Xtr, ytr, Xte, yte = make_planted_linear(n, 20_000, d, flip=0.1, seed=7)
    # Shift the rows along a fixed direction and move the threshold with them:
    # the rule sign(⟨w*, x⟩ − t) then needs an intercept.
    shift = np.full(d, 0.3 / np.sqrt(d))
    Xtr = (Xtr + shift) / 1.3
    Xte = (Xte + shift) / 1.3
    print(f"planted linear rule, n = {n}, d = {d}, rows shifted (‖x‖ ≤ 1)")
    print("| ε | auto Λ, intercept | auto Λ, no intercept | best k/(nε) on test |")
    print("|---:|---:|---:|---:|")
    for eps in EPSILONS:

        def fit(seed: int, eps=eps, **kw) -> float:  # type: ignore[no-untyped-def]
            est = DPLinearSVC(epsilon=eps, classes=[-1, 1], random_state=seed, **kw)
            return float(est.fit(Xtr, ytr).score(Xte, yte))

        auto = _mean_sd(fit)
        plain = _mean_sd(lambda s, eps=eps: fit(s, eps, fit_intercept=False))
        best, best_k = -1.0, 0.0
        for k in (1, 3, 10, 20, 30, 100, 300):
            lam = max(k / (n * eps), 1.0 / n)
            acc = float(
                np.mean([fit(s, eps, regularization=lam) for s in range(DRAWS)])
            )
            if acc > best:
                best, best_k = acc, k
        print(f"| {eps:g} | {auto} | {plain} | {best:.4f} (k = {best_k:g}) |")


def kernel() -> None:
    """DPKernelSVC defaults on the nested balls (Sarwate et al. Fig. 2(b): 0.1141)."""
    X, y = make_nested_balls(240_000, random_state=0)
    Xtr, ytr, Xte, yte = X[:220_000], y[:220_000], X[220_000:], y[220_000:]
    errors = []
    for fseed in range(10, 15):
        for k in range(2):
            est = DPKernelSVC(
                gamma=0.5,
                epsilon=0.1,
                classes=[-1, 1],
                feature_random_state=fseed,
                random_state=1000 * fseed + k,
            )
            errors.append(1.0 - est.fit(Xtr, ytr).score(Xte, yte))
    err = np.array(errors)
    print(
        f"DPKernelSVC(gamma=0.5, epsilon=0.1) defaults, Λ = {est.regularization_:.3g}:"
        f" test error {err.mean():.4f} ± {err.std(ddof=1):.4f} ({err.size} fits)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the requested parts.

    Parameters
    ----------
    argv : sequence of str, optional
        Command-line arguments.

    Returns
    -------
    int
        Exit status.
    """
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--parts", default="adult,synthetic,kernel")
    args = p.parse_args(argv)
    parts = {"adult": adult, "synthetic": synthetic, "kernel": kernel}
    for name in args.parts.split(","):
        print(f"\n## {name}\n")
        parts[name]()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

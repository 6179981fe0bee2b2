# SPDX-License-Identifier: BSD-3-Clause
"""Accuracy of the interactive prediction mechanisms, in process, with their reach.

(``bench_prediction_utility.py`` runs these too, as its ``interactive`` row, next
to ``dpsvm serve``'s release-once ``model`` measured through HTTP.)

Usage::

    DPSVM_DATA=/path/to/datasets python benchmarks/bench_prediction_interactive.py
    python benchmarks/bench_prediction_interactive.py --synthetic 1000000

Rows (``interactive_rows``, the interactive mechanisms of ``dpsvm.prediction``):
PINP, its sparse-vector variant and per-query Laplace
(:class:`~dpsvm.prediction.PrivateInteractivePredictor`, exact rbf kernel SVM on
``--n-train`` rows, λ = 10⁻³, as in issue 21) and subsample-and-aggregate
(:class:`~dpsvm.prediction.SubsampleAggregatePredictor`, every training row,
default teachers and cut-off, the same λ for each teacher) on UCI Adult
(compact public features, rows in the unit ball), ε = 1, δ = 10⁻⁶. A
mechanism that its public calibration shows to be vacuous is *refused*
(``VacuousCalibrationError``) and reported so, with its one-line reason.
Subsample-and-aggregate stops after its cut-off of charged answers: it is run
``--runs`` times (fresh noise, partition and query order) and its accuracy is
pooled over every answer given; "stated" is the number of answers it
guarantees at start (``answers_guaranteed_``).

``synthetic_subsample_aggregate`` measures the 10⁶-row case of issue 21: rows
uniform in the 10-dimensional unit ball, labelled by a hyperplane through the
origin, rows within 0.05 of it dropped (linearly separable with margin 0.05);
rbf (γ = 1), ε = 1, δ = 10⁻⁸, up to 4000 single-row queries.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from dpsvm.prediction import (
    PrivateInteractivePredictor,
    SubsampleAggregatePredictor,
    VacuousCalibrationError,
)

EPSILON = 1.0
DELTA = 1e-6
LAMBDA_EXACT = 1e-3


def _answer_one_by_one(predictor: Any, X: np.ndarray, y: np.ndarray) -> list[bool]:
    """Ask single-row queries until the predictor stops; correctness per answer."""
    correct: list[bool] = []
    for i in range(X.shape[0]):
        if predictor.budget_exhausted:
            break
        ans = predictor.answer(X[i : i + 1])
        answered = getattr(ans, "answered", np.ones(1, dtype=bool))
        if answered[0]:
            correct.append(bool(ans.labels[0] == y[i]))
    return correct


def interactive_rows(
    Xtr: np.ndarray,
    ytr: np.ndarray,
    Xte: np.ndarray,
    yte: np.ndarray,
    *,
    n_train: int,
    n_queries: int,
    runs: int,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """One row per interactive mechanism: stated/given answers, accuracy, ε spent."""
    rng = np.random.default_rng(seed)
    idx = rng.choice(Xtr.shape[0], n_train, replace=False)
    rows: list[dict[str, Any]] = []
    for mechanism in ("pinp", "sparse-vector", "laplace"):
        t0 = time.perf_counter()
        p = PrivateInteractivePredictor(
            mechanism=mechanism,
            epsilon=EPSILON,
            delta=DELTA,
            n_queries=n_queries,
            kernel="rbf",
            regularization=LAMBDA_EXACT,
            classes=[-1, 1],
        )
        try:
            p.fit(Xtr[idx], ytr[idx])
        except VacuousCalibrationError as exc:
            rows.append({"mechanism": mechanism, "refused": str(exc)})
            continue
        correct = _answer_one_by_one(p, Xte[:n_queries], yte[:n_queries])
        rows.append(
            {
                "mechanism": mechanism,
                "n_train": n_train,
                "stated": n_queries,
                "given": len(correct),
                "accuracy": float(np.mean(correct)),
                "epsilon_spent": p.spent_epsilon,
                "seconds": time.perf_counter() - t0,
            }
        )
    rows.append(
        subsample_aggregate_row(
            Xtr,
            ytr,
            Xte,
            yte,
            n_queries=100,
            runs=runs,
            seed=seed,
            regularization=LAMBDA_EXACT,
        )
    )
    return rows


def subsample_aggregate_row(
    Xtr: np.ndarray,
    ytr: np.ndarray,
    Xte: np.ndarray,
    yte: np.ndarray,
    *,
    n_queries: int,
    runs: int,
    seed: int = 0,
    delta: float = DELTA,
    **params: Any,
) -> dict[str, Any]:
    """Subsample-and-aggregate on every training row, pooled over ``runs`` runs."""
    correct: list[bool] = []
    given: list[int] = []
    stated: list[int] = []
    spent: list[tuple[float, float]] = []
    t0 = time.perf_counter()
    sa = None
    for r in range(runs):
        rng = np.random.default_rng(seed + r)
        order = rng.permutation(Xte.shape[0])
        sa = SubsampleAggregatePredictor(
            epsilon=EPSILON,
            delta=delta,
            n_queries=n_queries,
            kernel="rbf",
            classes=[-1, 1],
            random_state=seed + r,
            **params,
        )
        try:
            sa.fit(Xtr, ytr)
        except VacuousCalibrationError as exc:
            return {"mechanism": "subsample-aggregate", "refused": str(exc)}
        c = _answer_one_by_one(sa, Xte[order], yte[order])
        correct += c
        given.append(len(c))
        stated.append(int(sa.answers_guaranteed_))
        spent.append((sa.spent_epsilon, sa.spent_delta))
    assert sa is not None
    return {
        "mechanism": "subsample-aggregate",
        "n_train": Xtr.shape[0],
        "n_teachers": sa.n_teachers_,
        "max_charged": sa.max_charged_,
        "threshold": sa.threshold_,
        "stated": min(stated),
        "given": f"{min(given)}–{max(given)} (mean {np.mean(given):.1f})",
        "accuracy": float(np.mean(correct)),
        "n_answers_pooled": len(correct),
        "epsilon_spent": max(e for e, _ in spent),
        "delta_spent": max(d for _, d in spent),
        "seconds": time.perf_counter() - t0,
    }


def _separable(n: int, d: int, margin: float, seed: int) -> tuple[Any, Any]:
    rng = np.random.default_rng(seed)
    w = np.ones(d) / np.sqrt(d)
    X = rng.normal(size=(int(n * 1.5), d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    X *= rng.uniform(0, 1, size=(X.shape[0], 1)) ** (1 / d)
    s = X @ w
    keep = np.abs(s) >= margin
    X, y = X[keep][:n], np.where(s[keep] > 0, 1, -1)[:n]
    return X, y


def synthetic_subsample_aggregate(
    n: int, *, d: int = 10, n_queries: int = 4000, seed: int = 0
) -> dict[str, Any]:
    """The 10⁶ × 10 separable case: answers, accuracy, fit and answer times."""
    X, y = _separable(n, d, 0.05, seed)
    Q, yq = _separable(n_queries, d, 0.05, seed + 1)
    t0 = time.perf_counter()
    sa = SubsampleAggregatePredictor(
        epsilon=EPSILON,
        delta=1e-8,
        n_queries=n_queries,
        kernel="rbf",
        classes=[-1, 1],
        random_state=seed,
    ).fit(X, y)
    fit_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    correct = _answer_one_by_one(sa, Q, yq)
    return {
        "n": n,
        "n_teachers": sa.n_teachers_,
        "max_charged": sa.max_charged_,
        "threshold": sa.threshold_,
        "stated": sa.answers_guaranteed_,
        "given": len(correct),
        "charged": sa.n_charged,
        "accuracy": float(np.mean(correct)),
        "epsilon_spent": sa.spent_epsilon,
        "delta_spent": sa.spent_delta,
        "fit_seconds": fit_s,
        "seconds_per_answer": (time.perf_counter() - t0) / max(1, len(correct)),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its rows."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--synthetic", type=int, default=0, metavar="N")
    ap.add_argument("--n-train", type=int, default=4000)
    ap.add_argument("--n-queries", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args(argv)
    if args.synthetic:
        print(synthetic_subsample_aggregate(args.synthetic))
        return 0
    from dpsvm.datasets import load_adult

    Xtr, ytr, Xte, yte = load_adult(feature_set="compact", return_X_y=True)
    for row in interactive_rows(
        Xtr,
        ytr,
        Xte,
        yte,
        n_train=args.n_train,
        n_queries=args.n_queries,
        runs=args.runs,
    ):
        print(row)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

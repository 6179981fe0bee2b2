# SPDX-License-Identifier: BSD-3-Clause
"""Aggregation of the reproduction's job outcomes into the JSON-ready results.

Means and standard deviations over folds × draws per (method, Λ, ε), the best
Λ of each column (test-fold tuning, as in the paper), learning-curve points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._config import ReproductionConfig
from ._jobs import _Outcome
from ._methods import _KERNEL_PRIVATE

FloatArray = NDArray[np.float64]


# ---------------------------------------------------------------------------
# Aggregation
# ---------------------------------------------------------------------------


def _stats(values: FloatArray) -> dict[str, Any]:
    v = np.asarray(values, dtype=np.float64).ravel()
    ok = v[np.isfinite(v)]
    if ok.size == 0:
        return {"mean": None, "std": None, "n": 0}
    return {
        "mean": float(ok.mean()),
        "std": float(ok.std(ddof=1)) if ok.size > 1 else 0.0,
        "n": int(ok.size),
    }


def _method_stats(
    outs_by_lambda: Sequence[Sequence[_Outcome]],
    methods: Sequence[str],
    n_epsilons: int,
) -> dict[str, list[list[dict[str, Any]]]]:
    """Per method, per Λ, per ε: the statistics of all folds' draws."""
    return {
        m: [
            [
                _stats(np.concatenate([o.values[m][e_idx] for o in outs]))
                for e_idx in range(n_epsilons)
            ]
            for outs in outs_by_lambda
        ]
        for m in methods
    }


def _best_cell(
    cells: Sequence[dict[str, Any]], lambdas: Sequence[float]
) -> dict[str, Any]:
    """The cell of the smallest mean error over the Λ grid (test-fold tuning)."""
    i = _argmin([c["mean"] for c in cells])
    if i is None:
        return {"error": None, "std": None, "lambda": None}
    return {"error": cells[i]["mean"], "std": cells[i]["std"], "lambda": lambdas[i]}


def _best_over_lambda(
    references: dict[str, Sequence[dict[str, Any]]],
    per_method: dict[str, list[list[dict[str, Any]]]],
    lambdas: Sequence[float],
    epsilons: Sequence[float],
) -> dict[str, Any]:
    """Best Λ of each non-private reference and of each method at each ε."""
    best: dict[str, Any] = {
        name: _best_cell(cells, lambdas) for name, cells in references.items()
    }
    for m, rows in per_method.items():
        best[m] = {
            _key(eps): _best_cell([row[e_idx] for row in rows], lambdas)
            for e_idx, eps in enumerate(epsilons)
        }
    return best


def _aggregate_grid(
    results: dict[tuple[Any, ...], _Outcome],
    name: str,
    n_folds: int,
    lambdas: tuple[float, ...],
    epsilons: tuple[float, ...],
    methods: tuple[str, ...],
) -> dict[str, Any]:
    outs_by_lambda = [
        [results[("grid", name, f, l_idx)] for f in range(n_folds)]
        for l_idx in range(len(lambdas))
    ]
    huber = [
        _stats(np.array([o.values["huber_svm"] for o in outs]))
        for outs in outs_by_lambda
    ]
    per_method = _method_stats(outs_by_lambda, methods, len(epsilons))
    return {
        "lambdas": list(lambdas),
        "epsilons": list(epsilons),
        "huber_svm": huber,
        "methods": per_method,
        "best": _best_over_lambda({"huber_svm": huber}, per_method, lambdas, epsilons),
    }


def _argmin(values: Sequence[float | None]) -> int | None:
    best, idx = math.inf, None
    for i, v in enumerate(values):
        if v is not None and v < best:
            best, idx = v, i
    return idx


def _key(eps: float) -> str:
    return f"{eps:g}"


def _aggregate_lc(
    results: dict[tuple[Any, ...], _Outcome],
    name: str,
    n_folds: int,
    sizes: tuple[int, ...],
    epsilons: tuple[float, ...],
    methods: tuple[str, ...],
    lambdas: tuple[float, ...],
    kind: str = "lc",
    reference: str = "huber_svm",
) -> dict[str, Any]:
    points = []
    for s_idx in range(len(sizes)):
        outs = [results[(kind, name, f, s_idx)] for f in range(n_folds)]
        ref = np.array([o.values[reference] for o in outs])  # folds × Λ
        ref_means = ref.mean(axis=0)
        i = int(np.argmin(ref_means))
        point: dict[str, Any] = {
            "n_train": int(outs[0].values["n_train"]),
            reference: {**_stats(ref[:, i]), "lambda": lambdas[i]},
        }
        for m in methods:
            point[m] = {
                _key(eps): _stats(np.concatenate([o.values[m][e_idx] for o in outs]))
                for e_idx, eps in enumerate(epsilons)
            }
        points.append(point)
    return {
        "epsilons": list(epsilons),
        "tuning_lambdas": list(lambdas),
        "methods": [reference, *methods],
        "points": points,
    }


def _aggregate_kernel(
    results: dict[tuple[Any, ...], _Outcome], config: ReproductionConfig
) -> dict[str, Any]:
    P = config.nb_projections
    lambdas, epsilons = config.nb_lambdas, config.nb_epsilons
    outs_by_lambda = [
        [results[("kgrid", "nested-balls", p, l_idx)] for p in range(P)]
        for l_idx in range(len(lambdas))
    ]
    rr = [
        _stats(np.array([o.values["rr_svm"] for o in outs])) for outs in outs_by_lambda
    ]
    per = _method_stats(outs_by_lambda, _KERNEL_PRIVATE, len(epsilons))
    svc = [
        {
            **_stats(
                np.array(
                    [results[("svc", "nested-balls", 0, l_idx)].values["kernel_svm"]]
                )
            ),
            "n_train": results[("svc", "nested-balls", 0, l_idx)].values["n_train"],
        }
        for l_idx in range(len(lambdas))
    ]
    return {
        "lambdas": list(lambdas),
        "epsilons": list(epsilons),
        "n_components": config.nb_components,
        "gamma": config.nb_gamma,
        "rr_svm": rr,
        "kernel_svm": svc,
        "methods": per,
        "best": _best_over_lambda(
            {"rr_svm": rr, "kernel_svm": svc}, per, lambdas, epsilons
        ),
    }

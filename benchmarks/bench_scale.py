# SPDX-License-Identifier: BSD-3-Clause
"""Scale benchmark: fit time and extra memory of the private linear estimators.

Side by side in one run, with scikit-learn ``LogisticRegression(lbfgs)`` (the
same bias-free problem, C = 1/(nΛ), its default tolerance) as the yardstick:

* **tall**: n × 100 rows in the unit ball (a planted linear rule, 10% flipped
  labels), float32 and float64, C order; ``DPLogisticRegression`` and
  ``DPLinearSVC`` (Huber), ``mechanism="objective"``;
* **wide**: n = 5,000, d = 20,000, rows of norm 1 with a planted rule, dense
  float64 and sparse CSR (1% non-zeros), at several Λ. dpsvm must certify
  ‖∇J‖₂ ≤ 10⁻¹⁰ (the tolerance charged in its privacy event); scikit-learn stops
  at its default ``tol=1e-4``, so the comparison favours scikit-learn. Like
  for like: both fit an intercept, or neither (``--intercepts``); on sparse
  rows ``DPLinearSVC`` is also compared with scikit-learn's ``LinearSVC``
  (liblinear, ``--linearsvc``).

Fit time is the median over interleaved repeats (scikit-learn, dpsvm, ... in
turn, so that load on a shared machine hits both alike); the ratio is the
median of the per-repeat ratios, with their range; extra memory is the
tracemalloc peak of one separate fit (numpy registers its buffers with
tracemalloc), i.e. the allocations the fit makes on top of the input. One
BLAS thread throughout. Only ``fit`` is measured.

Usage::

    python benchmarks/bench_scale.py                  # full run (~10 min)
    python benchmarks/bench_scale.py --quick          # smoke test
    python benchmarks/bench_scale.py --rows 1000000   # tall problems only at 10⁶
"""

from __future__ import annotations

import argparse
import math
import platform
import statistics
import time
import tracemalloc
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

from dpsvm.models import DPLinearSVC, DPLogisticRegression

__all__ = ["make_tall", "make_wide", "measure", "run"]


def make_tall(
    n: int, d: int, dtype: Any, *, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Rows z/√d (z ~ N(0, I)) scaled into the unit ball; y a planted rule, 10% flipped.

    Generated a block at a time directly in ``dtype`` (no float64 copy of a
    float32 set).
    """
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(d)
    X = np.empty((n, d), dtype=dtype)
    step = 100_000
    for start in range(0, n, step):
        block = rng.standard_normal((min(step, n - start), d)) / math.sqrt(d)
        norms = np.linalg.norm(block, axis=1)
        block *= np.where(norms > 1.0, 0.999999 / norms, 1.0)[:, None]
        X[start : start + step] = block
    y = np.where(X @ w.astype(dtype) >= 0, 1, -1)
    y[rng.random(n) < 0.1] *= -1
    return X, y


def make_wide(
    n: int, d: int, *, density: float | None = None, seed: int = 0
) -> tuple[Any, np.ndarray]:
    """Rows of norm 1 (just under) with a planted rule; dense or CSR."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(d)
    if density is None:
        X: Any = rng.standard_normal((n, d))
        X /= np.linalg.norm(X, axis=1)[:, None] / 0.999999
    else:
        X = scipy.sparse.random(
            n,
            d,
            density=density,
            format="csr",
            random_state=seed,
            data_rvs=rng.standard_normal,
        )
        row_norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        X = scipy.sparse.csr_matrix(
            X.multiply((0.999999 / np.maximum(row_norms, 1e-300))[:, None])
        )
    y = np.where(X @ w >= 0, 1, -1)
    return X, y


def measure(fit: Callable[[], Any], repeats: int) -> tuple[list[float], int]:
    """Fit times of ``repeats`` runs and the tracemalloc peak of one more."""
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fit()
        times.append(time.perf_counter() - t)
    tracemalloc.start()
    fit()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return times, peak


def _estimators(
    n: int, lam: float, intercept: bool | None, linearsvc: bool
) -> dict[str, Callable[[Any, Any], Any]]:
    """The methods of one comparison, the yardstick first.

    ``intercept=None``: dpsvm's defaults (an intercept) against scikit-learn
    without one (the tall comparison as first recorded); ``True``/``False``:
    both fit an intercept, or neither (like for like).
    """
    sk_icpt = bool(intercept)
    dp_kw: dict[str, Any] = {} if intercept is None else {"fit_intercept": intercept}

    def sk(X: Any, y: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return LogisticRegression(C=1.0 / (n * lam), fit_intercept=sk_icpt).fit(
                X, y
            )

    def sk_svc(X: Any, y: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return LinearSVC(C=1.0 / (n * lam), fit_intercept=sk_icpt).fit(X, y)

    def lr(X: Any, y: Any) -> Any:
        return DPLogisticRegression(regularization=lam, classes=[-1, 1], **dp_kw).fit(
            X, y
        )

    def svc(X: Any, y: Any) -> Any:
        return DPLinearSVC(regularization=lam, classes=[-1, 1], **dp_kw).fit(X, y)

    methods = {"sklearn LogisticRegression(lbfgs)": sk}
    if linearsvc:
        methods["sklearn LinearSVC"] = sk_svc
    methods["dpsvm DPLogisticRegression"] = lr
    methods["dpsvm DPLinearSVC (Huber)"] = svc
    return methods


def _iterations(model: Any) -> str:
    if hasattr(model, "solver_info_"):
        return str(model.solver_info_[0]["n_iter"])
    return str(int(np.max(model.n_iter_)))


def _compare(
    label: str,
    X: Any,
    y: Any,
    lam: float,
    repeats: int,
    rows: list[str],
    *,
    intercept: bool | None = None,
    linearsvc: bool = False,
) -> None:
    n = X.shape[0]
    ests = _estimators(n, lam, intercept, linearsvc)
    times: dict[str, list[float]] = {k: [] for k in ests}
    iters: dict[str, list[str]] = {k: [] for k in ests}
    method: dict[str, str] = {}
    for _ in range(repeats):  # interleaved: each repeat fits every method once
        for name, fit in ests.items():
            t = time.perf_counter()
            model = fit(X, y)
            times[name].append(time.perf_counter() - t)
            iters[name].append(_iterations(model))
            if hasattr(model, "solver_info_"):
                method[name] = model.solver_info_[0]["method"]
    names = list(ests)
    ref_name = names[0]
    ref_peak = 1
    for name, fit in ests.items():
        _, peak = measure(lambda fit=fit: fit(X, y), 0)
        if name == ref_name:
            ref_peak = max(peak, 1)
        med = statistics.median(times[name])

        # Ratio per repeat (the yardstick of the same repeat): median and range.
        def ratio(yard: str, name: str = name) -> tuple[float, str]:
            r = [a / b for a, b in zip(times[name], times[yard], strict=True)]
            span = f"{min(r):.2f}–{max(r):.2f}" if len(r) > 1 else ""
            return statistics.median(r), span

        r_med, spread = ratio(ref_name)
        icpt = "" if intercept is None else (", intercept" if intercept else "")
        note = f"{method.get(name, 'lbfgs' if 'Logistic' in name else 'liblinear')}"
        note += f", it. {'/'.join(iters[name])}"
        if "LinearSVC (" in name and linearsvc:
            r_svc, span_svc = ratio("sklearn LinearSVC")
            note += f"; ÷ LinearSVC {r_svc:.2f}×"
            note += f" ({span_svc})" if span_svc else ""
        rows.append(
            f"| {label}{icpt} | Λ = {lam:g} | {name} | {med:.3g} | {r_med:.2f}× "
            f"| {spread} | {peak / 2**20:.0f} | {peak / ref_peak:.2f}× | {note} |"
        )
        print(rows[-1], flush=True)


def run(
    tall_rows: list[int],
    dtypes: list[str],
    lambdas: list[float],
    repeats: int,
    wide: tuple[int, int] | None,
    *,
    kinds: tuple[str, ...] = ("dense", "sparse"),
    intercepts: tuple[bool, ...] = (False, True),
    linearsvc: tuple[str, ...] = (),
    tall_intercepts: tuple[bool | None, ...] = (None,),
) -> list[str]:
    """Run the benchmark and return the Markdown table rows."""
    rows = [
        "| data | Λ | method | median fit (s) | ÷ sklearn (median) | range "
        "| extra memory (MiB) | ÷ sklearn | solver, iterations per repeat |",
        "|---|---|---|---:|---:|---:|---:|---:|---|",
    ]
    print("\n".join(rows), flush=True)
    for n in tall_rows:
        for dt in dtypes:
            X, y = make_tall(n, 100, np.dtype(dt))
            for icpt in tall_intercepts:
                _compare(f"{n:,} × 100 {dt}", X, y, 1e-4, repeats, rows, intercept=icpt)
            del X, y
    if wide is not None:
        n, d = wide
        for kind in kinds:
            X, y = make_wide(n, d, density=None if kind == "dense" else 0.01)
            for icpt in intercepts:
                for lam in lambdas:
                    _compare(
                        f"{n:,} × {d:,} {kind}",
                        X,
                        y,
                        lam,
                        repeats,
                        rows,
                        intercept=icpt,
                        linearsvc=kind in linearsvc,
                    )
            del X, y
    return rows


def main() -> None:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="*", default=[1_000_000, 3_000_000])
    ap.add_argument("--dtypes", nargs="*", default=["float32", "float64"])
    ap.add_argument(
        "--lambdas", type=float, nargs="*", default=[1e-1, 1e-2, 1e-3, 1e-4, 1e-5]
    )
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-wide", action="store_true")
    ap.add_argument(
        "--kinds", nargs="*", default=["dense", "sparse"], help="wide: dense sparse"
    )
    ap.add_argument(
        "--intercepts",
        nargs="*",
        default=["no", "yes"],
        help="wide set, like for like: neither fits an intercept (no), both (yes)",
    )
    ap.add_argument(
        "--tall-intercepts",
        nargs="*",
        choices=["mixed", "no", "yes"],
        default=["mixed"],
        help="tall set: dpsvm's default (an intercept) against scikit-learn without "
        "one (mixed, as first recorded), or like for like: neither (no), both (yes; "
        "both libraries' defaults)",
    )
    ap.add_argument(
        "--linearsvc",
        nargs="*",
        default=["sparse"],
        help="wide kinds where sklearn LinearSVC is the yardstick of DPLinearSVC "
        "(on dense rows liblinear copies X into its own format: 10-35 s a fit)",
    )
    ap.add_argument("--quick", action="store_true", help="tiny sizes (smoke test)")
    args = ap.parse_args()
    wide: tuple[int, int] | None = None if args.no_wide else (5_000, 20_000)
    if args.quick:
        args.rows, args.lambdas, args.repeats = [20_000], [1e-2, 1e-5], 1
        wide = None if args.no_wide else (300, 2_000)
    print(f"{platform.processor() or platform.machine()}, numpy {np.__version__}")
    with threadpool_limits(limits=1):
        run(
            args.rows,
            args.dtypes,
            args.lambdas,
            args.repeats,
            wide,
            kinds=tuple(args.kinds),
            intercepts=tuple(i == "yes" for i in args.intercepts),
            linearsvc=tuple(args.linearsvc),
            tall_intercepts=tuple(
                {"mixed": None, "no": False, "yes": True}[i]
                for i in args.tall_intercepts
            ),
        )


if __name__ == "__main__":
    main()

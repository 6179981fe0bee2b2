# SPDX-License-Identifier: BSD-3-Clause
"""Experiments for the margin learners of Bassily, Mohri & Suresh (2022).

The paper has no experiments; these are ours (docs/margins.md, "Experiments"):

(a) ``highdim`` — d ≫ n: a dense synthetic set with a planted margin γ = 0.2
    (d = 20,000, n = 5,000) and a sparse bag-of-words-like set (same sizes).
    Test error vs ε of the JL learner (Algorithm 2) with its three solvers,
    against objective perturbation (Chaudhuri, Monteleoni & Sarwate 2011), whose
    noise norm grows like d/ε.
(b) ``adult`` — UCI Adult at ε ∈ {0.5, 1, 2}: JL learner, kernel learner
    (Algorithm 3, RBF random features), objective perturbation.
(c) ``labeldp`` — Adult, label DP (Algorithm 4; randomized response + logistic
    regression as the trivial label-DP baseline) against full DP at the same ε.
(d) ``defaults`` — Adult encoded by the public schema (examples/adult_schema.json,
    ``SchemaTransformer``): Algorithm 4 and Algorithm 6 with their defaults,
    ``DPLinearSVC`` and the majority class beside (``--epsilons``, ``--seeds``).

Every hyper-parameter is fixed a priori in ``SETTINGS`` (never tuned on test
data), except the objective-perturbation baseline of (a), reported at the best
of a small regularisation grid *on the test set* — an optimistic baseline. Each
experiment writes ``margins_<name>.csv`` (one row per fit) and
``margins_<name>.png`` into ``--out-dir`` and prints a Markdown table of the
mean ± sd test error over the noise seeds.

Usage::

    python benchmarks/margins_experiments.py --quick            # about a minute
    python benchmarks/margins_experiments.py --experiments highdim,adult,labeldp
    python benchmarks/margins_experiments.py --experiments defaults --seeds 10
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression

sys.path.insert(0, str(Path(__file__).resolve().parent))

from margins_data import make_planted_margin, make_sparse_text

from dpsvm.exceptions import DPSVMConvergenceError
from dpsvm.margins.kernel import KernelMarginClassifier
from dpsvm.margins.label_private import LabelPrivateMarginClassifier
from dpsvm.margins.linear import JLMarginClassifier
from dpsvm.margins.margin_selection import PrivateMarginSelection
from dpsvm.models import DPLogisticRegression

ROOT = Path(__file__).resolve().parents[1]

#: A priori settings. Rows have norm ≤ 1 everywhere (r = 1).
SETTINGS: dict[str, Any] = {
    "delta": 1e-5,  # < 1/n for every training set used (n ≥ 5,000 in full runs)
    "planted_margin": 0.2,  # γ of the synthetic set; ρ = γ, Λ = 1 (w* ∈ B(1))
    "text_margin": 0.1,
    "adult_margin": 0.1,
    "adult_norm_bound": 5.0,
    "op_grid": (0.1, 1.0),  # objective-perturbation Λ grid of (a)
    "adult_op_regularization": 1e-3,  # as benchmarks/bench_linear.py
    "adult_rbf_gamma": 1.0,
    "adult_rff_features": 500,
    "label_rounds": 5,
    "defaults_epsilons": (1.0,),  # --epsilons for the "defaults" experiment
}

JL_SOLVERS = {
    "noisy-gd": "JL + noisy GD, RDP (substitute)",
    "phased-sgd": "JL + phased SGD, 1 run (substitute)",
    "boosted-phased-sgd": "JL + boosted phased SGD (Alg. 2+5)",
}


@dataclass
class Row:
    experiment: str
    dataset: str
    method: str
    guarantee: str
    epsilon: float
    seed: int
    test_error: float
    fit_seconds: float
    note: str = ""


def _error(model: Any, X: Any, y: np.ndarray) -> float:
    return float(np.mean(model.predict(X) != y))


def _run(
    rows: list[Row],
    experiment: str,
    dataset: str,
    method: str,
    guarantee: str,
    eps: float,
    seed: int,
    model: Any,
    data: tuple[Any, np.ndarray, Any, np.ndarray],
) -> None:
    Xtr, ytr, Xte, yte = data
    t0 = time.perf_counter()
    note = ""
    try:
        model.fit(Xtr, ytr)
        err = _error(model, Xte, yte)
    except DPSVMConvergenceError:
        err, note = math.nan, "solver did not converge"
    rows.append(
        Row(
            experiment,
            dataset,
            method,
            guarantee,
            eps,
            seed,
            err,
            time.perf_counter() - t0,
            note,
        )
    )
    print(
        f"  {dataset:10s} {method:40s} eps={eps:<5g} seed={seed} err={err:.4f}",
        flush=True,
    )


def _jl(solver: str, eps: float, seed: int, rho: float, lam: float, **kw: Any) -> Any:
    return JLMarginClassifier(
        epsilon=eps,
        delta=SETTINGS["delta"],
        margin=rho,
        norm_bound=lam,
        data_norm=1.0,
        solver=solver,
        classes=[-1, 1],
        random_state=seed,
        **kw,
    )


def _op(eps: float, seed: int, lam: float) -> Any:
    return DPLogisticRegression(
        epsilon=eps,
        regularization=lam,
        data_norm=1.0,
        classes=[-1, 1],
        random_state=seed,
    )


def _nonprivate(lam: float, n: int) -> Any:
    # The same regularised problem as the private models: C = 1/(nΛ).
    return LogisticRegression(C=1.0 / (n * lam), fit_intercept=False, max_iter=1000)


# ---------------------------------------------------------------- experiments
def experiment_highdim(quick: bool, seeds: Sequence[int]) -> list[Row]:
    n, d, n_test = (600, 1000, 600) if quick else (5000, 20000, 2000)
    epsilons = (1.0, 2.0) if quick else (0.5, 1.0, 2.0, 4.0)
    op_grid = SETTINGS["op_grid"][-1:] if quick else SETTINGS["op_grid"]
    rows: list[Row] = []
    X, y, _ = make_planted_margin(
        n + n_test, d, margin=SETTINGS["planted_margin"], random_state=20220
    )
    Xs, ys = make_sparse_text(n + n_test, d, random_state=20221)
    sets = {
        "planted": ((X[:n], y[:n], X[n:], y[n:]), SETTINGS["planted_margin"]),
        "text": ((Xs[:n], ys[:n], Xs[n:], ys[n:]), SETTINGS["text_margin"]),
    }
    for name, (data, rho) in sets.items():
        Xtr = data[0]
        dense = (
            (data[0].toarray(), data[1], data[2].toarray(), data[3])
            if sp.issparse(Xtr)
            else data
        )
        ref = _nonprivate(1e-4, n).fit(dense[0], dense[1])
        rows.append(
            Row(
                "highdim",
                name,
                "non-private logistic (Λ=1e-4)",
                "none",
                math.inf,
                0,
                _error(ref, dense[2], dense[3]),
                0.0,
            )
        )
        for eps in epsilons:
            for seed in seeds:
                for solver, label in JL_SOLVERS.items():
                    if solver == "boosted-phased-sgd" and eps > math.log(
                        1 / SETTINGS["delta"]
                    ):
                        continue
                    _run(
                        rows,
                        "highdim",
                        name,
                        label,
                        "(ε, δ)-DP",
                        eps,
                        seed,
                        _jl(solver, eps, seed, rho, 1.0),
                        data,
                    )
                for lam in op_grid:
                    _run(
                        rows,
                        "highdim",
                        name,
                        f"objective perturbation (Λ={lam:g})",
                        "ε-DP",
                        eps,
                        seed,
                        _op(eps, 10_000 + seed, lam),
                        dense,
                    )
    return rows


def _adult(quick: bool) -> tuple[Any, np.ndarray, Any, np.ndarray] | None:
    from dpsvm.datasets import load_adult

    try:
        data = load_adult(add_constant=True, feature_set="compact", return_X_y=True)
    except FileNotFoundError:
        print("  Adult not found (set DPSVM_DATA); skipped.")
        return None
    Xtr, ytr, Xte, yte = data
    if quick:
        return Xtr[:6000], ytr[:6000], Xte[:3000], yte[:3000]
    return Xtr, ytr, Xte, yte


def experiment_adult(quick: bool, seeds: Sequence[int]) -> list[Row]:
    data = _adult(quick)
    rows: list[Row] = []
    if data is None:
        return rows
    n = data[0].shape[0]
    rho, lam = SETTINGS["adult_margin"], SETTINGS["adult_norm_bound"]
    ref = _nonprivate(SETTINGS["adult_op_regularization"], n).fit(data[0], data[1])
    rows.append(
        Row(
            "adult",
            "adult",
            "non-private logistic",
            "none",
            math.inf,
            0,
            _error(ref, data[2], data[3]),
            0.0,
        )
    )
    for eps in (0.5, 1.0, 2.0):
        for seed in seeds:
            for solver in ("noisy-gd", "phased-sgd"):
                _run(
                    rows,
                    "adult",
                    "adult",
                    JL_SOLVERS[solver],
                    "(ε, δ)-DP",
                    eps,
                    seed,
                    _jl(solver, eps, seed, rho, lam),
                    data,
                )
            _run(
                rows,
                "adult",
                "adult",
                "kernel RFF + JL + noisy GD (Alg. 3)",
                "(ε, δ)-DP",
                eps,
                seed,
                KernelMarginClassifier(
                    epsilon=eps,
                    delta=SETTINGS["delta"],
                    margin=rho,
                    norm_bound=lam,
                    gamma=SETTINGS["adult_rbf_gamma"],
                    n_random_features=SETTINGS["adult_rff_features"],
                    classes=[-1, 1],
                    random_state=seed,
                ),
                data,
            )
            _run(
                rows,
                "adult",
                "adult",
                "objective perturbation (logistic)",
                "ε-DP",
                eps,
                seed,
                _op(eps, 10_000 + seed, SETTINGS["adult_op_regularization"]),
                data,
            )
    return rows


class _RandomizedResponseLogistic:
    """Label DP baseline: flip each label w.p. 1/(1 + e^ε), then fit non-privately."""

    def __init__(self, eps: float, seed: int, n: int) -> None:
        self.eps, self.seed, self.n = eps, seed, n

    def fit(self, X: Any, y: np.ndarray) -> _RandomizedResponseLogistic:
        rng = np.random.default_rng(self.seed)
        flip = rng.random(y.shape[0]) < 1.0 / (1.0 + math.exp(self.eps))
        self.model = _nonprivate(SETTINGS["adult_op_regularization"], self.n).fit(
            X, np.where(flip, -y, y)
        )
        return self

    def predict(self, X: Any) -> np.ndarray:
        return np.asarray(self.model.predict(X))


def experiment_labeldp(quick: bool, seeds: Sequence[int]) -> list[Row]:
    data = _adult(quick)
    rows: list[Row] = []
    if data is None:
        return rows
    n = data[0].shape[0]
    rho, lam = SETTINGS["adult_margin"], SETTINGS["adult_norm_bound"]
    for eps in (0.5, 1.0, 2.0):
        for seed in seeds:
            for rounds in (1, SETTINGS["label_rounds"]):
                _run(
                    rows,
                    "labeldp",
                    "adult",
                    f"label-DP margin EM (Alg. 4, {rounds} round{'s' * (rounds > 1)})",
                    "ε-label-DP",
                    eps,
                    seed,
                    LabelPrivateMarginClassifier(
                        epsilon=eps,
                        margin=rho,
                        norm_bound=lam,
                        n_directions=data[0].shape[1],
                        n_candidates=2000,
                        n_rounds=rounds,
                        classes=[-1, 1],
                        random_state=seed,
                    ),
                    data,
                )
            _run(
                rows,
                "labeldp",
                "adult",
                "randomized response + logistic",
                "ε-label-DP",
                eps,
                seed,
                _RandomizedResponseLogistic(eps, 10_000 + seed, n),
                data,
            )
            _run(
                rows,
                "labeldp",
                "adult",
                JL_SOLVERS["noisy-gd"],
                "(ε, δ)-DP",
                eps,
                seed,
                _jl("noisy-gd", eps, seed, rho, lam),
                data,
            )
            _run(
                rows,
                "labeldp",
                "adult",
                "objective perturbation (logistic)",
                "ε-DP",
                eps,
                seed,
                _op(eps, 10_000 + seed, SETTINGS["adult_op_regularization"]),
                data,
            )
    return rows


def _adult_schema_encoded() -> tuple[Any, np.ndarray, Any, np.ndarray, float] | None:
    """Adult (official files) encoded by the public schema examples/adult_schema.json.

    ``dpsvm.preprocessing.SchemaTransformer`` (nothing learned from the data);
    returns (X_train, y_train, X_test, y_test, the schema's row-norm bound),
    labels 0/1 (1 = ">50K").
    """
    import os
    import tempfile

    from adult_schema_cli import _encoded, raw_to_csv

    from dpsvm.datasets._paths import resolve_data_dir
    from dpsvm.preprocessing import PublicSchema

    data_dir = resolve_data_dir(None)
    if data_dir is None:
        print("  Adult not found (set DPSVM_DATA); skipped.")
        return None
    schema = ROOT / "examples" / "adult_schema.json"
    with tempfile.TemporaryDirectory() as tmp:
        train, test = os.path.join(tmp, "train.csv"), os.path.join(tmp, "test.csv")
        raw_to_csv(os.path.join(data_dir, "adult", "adult.data.gz"), train)
        raw_to_csv(os.path.join(data_dir, "adult", "adult.test.gz"), test)
        d = _encoded(str(schema), train, test)
    bound = PublicSchema.from_json(schema).row_norm_bound
    return d["X_train"], d["y_train"], d["X_test"], d["y_test"], bound


def experiment_defaults(quick: bool, seeds: Sequence[int]) -> list[Row]:
    """Adult, public schema encoding: the margin learners with their defaults.

    Algorithm 4 (``LabelPrivateMarginClassifier``) and Algorithm 6
    (``PrivateMarginSelection``) are given only ε, the public label set and the
    schema's row-norm bound as ``data_norm``; ``DPLinearSVC`` (full DP, its
    defaults) and the majority class are shown beside them.
    """
    from dpsvm.models import DPLinearSVC

    loaded = _adult_schema_encoded()
    rows: list[Row] = []
    if loaded is None:
        return rows
    Xtr, ytr, Xte, yte, bound = loaded
    if quick:
        Xtr, ytr, Xte, yte = Xtr[:6000], ytr[:6000], Xte[:3000], yte[:3000]
    data = (Xtr, ytr, Xte, yte)
    majority = float(min(np.mean(yte), 1.0 - np.mean(yte)))
    rows.append(
        Row("defaults", "adult-schema", "majority class", "none", math.inf, 0,
            majority, 0.0)
    )  # fmt: skip
    common = {"data_norm": bound, "classes": [0, 1]}
    for eps in SETTINGS["defaults_epsilons"]:
        for seed in seeds:
            for label, guarantee, model in (
                (
                    "Alg. 4 LabelPrivateMarginClassifier (defaults)",
                    "ε-label-DP",
                    LabelPrivateMarginClassifier(
                        epsilon=eps, random_state=seed, **common
                    ),
                ),
                (
                    "Alg. 6 PrivateMarginSelection (defaults)",
                    "(ε, δ)-DP",
                    PrivateMarginSelection(epsilon=eps, random_state=seed, **common),
                ),
                (
                    "DPLinearSVC (defaults)",
                    "ε-DP",
                    DPLinearSVC(epsilon=eps, random_state=seed, **common),
                ),
            ):
                _run(rows, "defaults", "adult-schema", label, guarantee, eps, seed,
                     model, data)  # fmt: skip
    return rows


EXPERIMENTS = {
    "highdim": experiment_highdim,
    "adult": experiment_adult,
    "labeldp": experiment_labeldp,
    "defaults": experiment_defaults,
}


# ------------------------------------------------------------------- reports
def summarise(rows: list[Row]) -> list[dict[str, Any]]:
    """Mean ± sd of the test error per (dataset, method, ε)."""
    groups: dict[tuple[str, str, str, float], list[float]] = {}
    for r in rows:
        groups.setdefault((r.dataset, r.method, r.guarantee, r.epsilon), []).append(
            r.test_error
        )
    out = []
    for (dataset, method, guarantee, eps), errs in groups.items():
        a = np.array(errs)
        ok = a[np.isfinite(a)]
        out.append(
            {
                "dataset": dataset,
                "method": method,
                "guarantee": guarantee,
                "epsilon": eps,
                "runs": a.size,
                "failed": int(a.size - ok.size),
                "mean": float(ok.mean()) if ok.size else math.nan,
                "sd": float(ok.std(ddof=1)) if ok.size > 1 else 0.0,
            }
        )
    return out


def markdown(summary: list[dict[str, Any]]) -> str:
    epsilons = sorted({s["epsilon"] for s in summary if math.isfinite(s["epsilon"])})
    lines = []
    for dataset in dict.fromkeys(s["dataset"] for s in summary):
        sub = [s for s in summary if s["dataset"] == dataset]
        lines.append(f"\n**{dataset}** (test error, mean ± sd over seeds)\n")
        lines.append(
            "| method | guarantee | "
            + " | ".join(f"ε = {e:g}" for e in epsilons)
            + " |"
        )
        lines.append("|---|---|" + "---|" * len(epsilons))
        for method in dict.fromkeys(s["method"] for s in sub):
            cells = []
            guarantee = ""
            for e in epsilons:
                hit = [s for s in sub if s["method"] == method and s["epsilon"] == e]
                if not hit:
                    inf = [s for s in sub if s["method"] == method]
                    cells.append(
                        f"{inf[0]['mean']:.3f}"
                        if inf and not math.isfinite(inf[0]["epsilon"])
                        else "–"
                    )
                    guarantee = inf[0]["guarantee"] if inf else guarantee
                    continue
                s = hit[0]
                guarantee = s["guarantee"]
                if not math.isfinite(s["mean"]):
                    cell = f"– ({s['failed']} of {s['runs']} failed)"
                else:
                    cell = f"{s['mean']:.3f} ± {s['sd']:.3f}"
                    if s["failed"]:
                        cell += f" ({s['failed']} of {s['runs']} failed)"
                cells.append(cell)
            lines.append(f"| {method} | {guarantee} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(summary: list[dict[str, Any]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    datasets = list(dict.fromkeys(s["dataset"] for s in summary))
    fig, axes = plt.subplots(
        1, len(datasets), figsize=(6 * len(datasets), 4.2), squeeze=False
    )
    for ax, dataset in zip(axes[0], datasets, strict=True):
        sub = [s for s in summary if s["dataset"] == dataset]
        for method in dict.fromkeys(s["method"] for s in sub):
            pts = sorted(
                (s["epsilon"], s["mean"], s["sd"]) for s in sub if s["method"] == method
            )
            if len(pts) == 1 and not math.isfinite(pts[0][0]):
                ax.axhline(pts[0][1], color="k", ls=":", label=method)
                continue
            e, mu, sd = (np.array(v) for v in zip(*pts, strict=True))
            ax.errorbar(e, mu, yerr=sd, marker="o", capsize=3, label=method)
        ax.set_xscale("log")
        ax.set_xlabel("ε")
        ax.set_ylabel("test error")
        ax.set_title(f"{title}: {dataset}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, 1 seed")
    parser.add_argument("--experiments", default="highdim,adult,labeldp")
    parser.add_argument("--seeds", type=int, default=None, help="noise seeds")
    parser.add_argument("--out-dir", type=Path, default=ROOT / "docs" / "margins")
    parser.add_argument(
        "--epsilons", default="1", help="ε values of the defaults experiment"
    )
    args = parser.parse_args(argv)
    SETTINGS["defaults_epsilons"] = tuple(float(e) for e in args.epsilons.split(","))
    names = [e.strip() for e in args.experiments.split(",") if e.strip()]
    unknown = [e for e in names if e not in EXPERIMENTS]
    if unknown:
        parser.error(
            f"unknown experiment(s) {unknown}; choose from {list(EXPERIMENTS)}"
        )
    seeds = range(args.seeds if args.seeds is not None else (1 if args.quick else 2))
    args.out_dir.mkdir(parents=True, exist_ok=True)
    warnings.simplefilter("ignore", category=UserWarning)
    for name in names:
        print(f"== {name}", flush=True)
        t0 = time.perf_counter()
        rows = EXPERIMENTS[name](args.quick, list(seeds))
        if not rows:
            continue
        with open(args.out_dir / f"margins_{name}.csv", "w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(Row.__dataclass_fields__)
            for r in rows:
                writer.writerow([getattr(r, f) for f in Row.__dataclass_fields__])
        summary = summarise(rows)
        plot(summary, args.out_dir / f"margins_{name}.png", name)
        print(markdown(summary))
        print(f"({name}: {time.perf_counter() - t0:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

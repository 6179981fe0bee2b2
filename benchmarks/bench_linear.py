# SPDX-License-Identifier: BSD-3-Clause
"""Linear benchmark: dpsvm against scikit-learn and diffprivlib, in one run.

For each data set (UCI Adult, official split, ``feature_set="compact"``; and a
seeded synthetic 10⁶ × 100 problem with a planted linear rule) the script fits

* dpsvm ``DPLinearSVC`` (Huber loss, ``mechanism="objective"``) and
  ``DPLogisticRegression`` (``mechanism="objective"``), private;
* scikit-learn ``LogisticRegression(solver="lbfgs")`` and ``LinearSVC``
  (hinge loss), non-private;
* diffprivlib ``LogisticRegression`` (private), once with C matched to dpsvm's
  Λ and once with diffprivlib's default C = 1, in its own virtual environment
  (``.venv-diffprivlib/``, scikit-learn 1.7.2) through
  ``_diffprivlib_worker.py``,

at every ε, and prints one Markdown table per data set: test accuracy (mean ±
sd over the noise draws), median fit time, and that time divided by the median
fit time of scikit-learn's ``LogisticRegression``.

Every model solves the same bias-free problem, (1/n)Σℓ(yᵢwᵀxᵢ) + (Λ/2)‖w‖², on
rows in the unit ball (``data_norm=1``, no intercept). dpsvm takes Λ directly;
scikit-learn's and diffprivlib's C is 1/(nΛ) for the same problem. Only the
``fit`` call is timed (not data loading, generation or prediction).

Usage::

    python benchmarks/bench_linear.py                   # full run (~15 min)
    python benchmarks/bench_linear.py --quick           # smoke test (seconds)
    python benchmarks/bench_linear.py --no-diffprivlib  # skip the side venv
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import scipy
import sklearn
from numpy.typing import NDArray
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_info, threadpool_limits

import dpsvm
from dpsvm.datasets import load_adult
from dpsvm.exceptions import DPSVMConvergenceError
from dpsvm.models import DPLinearSVC, DPLogisticRegression
from dpsvm.validation import project_rows_to_ball

__all__ = [
    "DatasetSpec",
    "MethodResult",
    "build_parser",
    "ensure_diffprivlib_python",
    "machine_info",
    "main",
    "make_planted_linear",
    "run_benchmark",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORKER = HERE / "_diffprivlib_worker.py"
REQUIREMENTS = HERE / "requirements-diffprivlib.txt"
DEFAULT_VENV = REPO / ".venv-diffprivlib"

#: Λ per data set, fixed before any run (never tuned on a test set):
#: Adult: Λ = 1e-3, the best private setting of Sarwate, Chaudhuri & Monteleoni
#: (arXiv:0912.0071, Fig. 3(a): best Alg. 1 at ε_p = 0.2) on this data set.
#: Synthetic: Λ = 1e-4, so that nΛ = 100 (Adult: nΛ ≈ 30), which keeps the
#: objective-perturbation correction c/(nΛ) small for n = 10⁶.
LAMBDA_ADULT = 1e-3
LAMBDA_SYNTHETIC = 1e-4

EPSILONS = (0.1, 0.5, 1.0, 2.0)

#: Environment variables that cap the thread pools of the worker process.
_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


# -- data ----------------------------------------------------------------------


@dataclass
class DatasetSpec:
    """A train/test split with its regularisation Λ and a description."""

    name: str
    X_train: FloatArray
    y_train: IntArray
    X_test: FloatArray
    y_test: IntArray
    regularization: float
    description: str
    draws: int


def make_planted_linear(
    n_train: int,
    n_test: int,
    n_features: int,
    *,
    flip: float = 0.1,
    seed: int = 0,
) -> tuple[FloatArray, IntArray, FloatArray, IntArray]:
    """Seeded synthetic problem: a planted linear rule with label noise.

    Rows are z/√d with z ~ N(0, I_d), and rows longer than 1 are projected onto
    the unit sphere (so ‖x‖ ≤ 1; about half the rows have norm 1 to one ulp). The
    label is sign(⟨w*, x⟩) for a fixed uniformly random unit vector w*, flipped
    independently with probability ``flip``, so the Bayes accuracy is 1 − flip.

    Parameters
    ----------
    n_train, n_test : int
        Numbers of training and test rows.
    n_features : int
        Dimension d.
    flip : float, default=0.1
        Label-noise probability.
    seed : int, default=0
        Seed of the (non-cryptographic) generator; the data protect no one.

    Returns
    -------
    X_train, y_train, X_test, y_test : ndarray
        Rows (float64) and labels in {−1, +1} (int64).
    """
    rng = np.random.default_rng(seed)
    w_star = rng.standard_normal(n_features)
    w_star /= np.linalg.norm(w_star)

    def draw(n: int) -> tuple[FloatArray, IntArray]:
        X = rng.standard_normal((n, n_features))
        X *= 1.0 / math.sqrt(n_features)
        norms = np.sqrt(np.einsum("ij,ij->i", X, X))
        # One ulp below 1/‖x‖, so that rounding cannot leave ‖x‖ above 1.
        X *= np.where(norms > 1.0, np.nextafter(1.0 / norms, 0.0), 1.0)[:, None]
        over = np.flatnonzero(np.sqrt(np.einsum("ij,ij->i", X, X)) > 1.0)
        if over.size:  # pragma: no cover - rounding safety net
            X[over] = project_rows_to_ball(X[over], 1.0)
        y = np.where(X @ w_star >= 0.0, 1, -1).astype(np.int64)
        y[rng.random(n) < flip] *= -1
        return X, y

    X_train, y_train = draw(n_train)
    X_test, y_test = draw(n_test)
    return X_train, y_train, X_test, y_test


def _load_adult_spec(data_dir: str | None, draws: int) -> DatasetSpec:
    X_train, y_train, X_test, y_test = load_adult(
        data_dir, feature_set="compact", return_X_y=True
    )
    return DatasetSpec(
        name="UCI Adult (official split, compact features)",
        X_train=X_train,
        y_train=y_train,
        X_test=X_test,
        y_test=y_test,
        regularization=LAMBDA_ADULT,
        description=(
            "dpsvm.datasets.load_adult(feature_set='compact'): public per-record "
            "preprocessing, rows scaled to norm 1"
        ),
        draws=draws,
    )


def _synthetic_spec(
    n_train: int, n_test: int, d: int, seed: int, draws: int
) -> DatasetSpec:
    X_train, y_train, X_test, y_test = make_planted_linear(
        n_train, n_test, d, flip=0.1, seed=seed
    )
    return DatasetSpec(
        name=f"Synthetic planted linear rule ({n_train:,} × {d})",
        X_train=X_train,
        y_train=y_train,
        X_test=X_test,
        y_test=y_test,
        regularization=LAMBDA_SYNTHETIC,
        description=(
            f"rows z/√d, z ~ N(0, I), projected onto the unit ball; "
            f"y = sign(⟨w*, x⟩) with 10% of labels flipped (Bayes accuracy 0.9); "
            f"seed {seed}; {n_test:,} test rows from the same distribution"
        ),
        draws=draws,
    )


# -- machine -------------------------------------------------------------------


def machine_info() -> dict[str, Any]:
    """Describe the machine and the software versions of the main environment.

    Returns
    -------
    dict
        CPU model (from ``/proc/cpuinfo``), logical cores, memory, load average,
        and the Python, numpy, scipy, scikit-learn and dpsvm versions.
    """
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem_gib = float("nan")
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem_gib = int(line.split()[1]) / 2**20
                    break
    except OSError:
        pass
    blas = sorted(
        {
            f"{p.get('internal_api')} {p.get('version')} "
            f"({p.get('num_threads')} threads)"
            for p in threadpool_info()
            if p.get("user_api") == "blas"
        }
    )
    load = os.getloadavg() if hasattr(os, "getloadavg") else (math.nan,) * 3
    return {
        "cpu": cpu,
        "logical_cores": os.cpu_count(),
        "memory_gib": round(mem_gib, 1),
        "load_average_at_start": [round(v, 2) for v in load],
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "dpsvm": getattr(dpsvm, "__version__", "unknown"),
        "blas": blas,
    }


# -- fitting -------------------------------------------------------------------


@dataclass
class MethodResult:
    """Per-method measurements on one data set.

    ``accuracy`` and ``fit_seconds`` map an ε (as ``f"{ε:g}"``, or ``"inf"``
    for non-private methods) to one value per fit.
    """

    method: str
    private: bool
    settings: str
    available: bool = True
    accuracy: dict[str, list[float]] = field(default_factory=dict)
    fit_seconds: dict[str, list[float]] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)
    not_converged: int = 0
    n_iter: list[int] = field(default_factory=list)
    note: str = ""

    def all_seconds(self) -> list[float]:
        """Every fit time recorded, over all ε."""
        return [t for ts in self.fit_seconds.values() for t in ts]

    def median_seconds(self) -> float:
        """Median fit time over all fits (``nan`` if none)."""
        ts = self.all_seconds()
        return float(np.median(ts)) if ts else math.nan


def _eps_key(eps: float) -> str:
    return f"{eps:g}"


def _timed_fit(
    make: Callable[[], Any],
    X: FloatArray,
    y: IntArray,
    X_test: FloatArray,
    y_test: IntArray,
) -> tuple[float, float, bool, int]:
    """Fit a fresh estimator; return (seconds, accuracy, converged, n_iter)."""
    est = make()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        est.fit(X, y)
        seconds = time.perf_counter() - t0
    converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    acc = float(np.mean(est.predict(X_test) == y_test))
    n_iter = int(np.max(np.asarray(getattr(est, "n_iter_", [-1]))))
    return seconds, acc, converged, n_iter


def _nonprivate_round(
    res: MethodResult, make: Callable[[], Any], ds: DatasetSpec
) -> None:
    """One timed fit of a non-private estimator, recorded under ``"inf"``."""
    s, a, ok, it = _timed_fit(make, ds.X_train, ds.y_train, ds.X_test, ds.y_test)
    res.accuracy.setdefault("inf", []).append(a)
    res.fit_seconds.setdefault("inf", []).append(s)
    res.not_converged += not ok
    res.n_iter.append(it)


def _dp_factory(cls: Callable[..., Any], lam: float) -> Callable[[float], Any]:
    """Estimator factory ε ↦ cls(epsilon=ε, regularization=Λ, ...)."""

    def make(eps: float) -> Any:
        # Bias-free, like every model of this benchmark (explicit, not a default).
        return cls(
            epsilon=eps,
            regularization=lam,
            fit_intercept=False,
            classes=[-1, 1],
            random_state=None,
        )

    return make


def _dpsvm_round(
    res: MethodResult,
    make: Callable[[float], Any],
    ds: DatasetSpec,
    epsilons: Sequence[float],
) -> None:
    """One noise draw of a dpsvm estimator at every ε."""
    for eps in epsilons:
        key = _eps_key(eps)
        res.accuracy.setdefault(key, [])
        res.fit_seconds.setdefault(key, [])
        res.failures.setdefault(key, 0)
        try:
            s, a, ok, it = _timed_fit(
                partial(make, eps), ds.X_train, ds.y_train, ds.X_test, ds.y_test
            )
        except DPSVMConvergenceError as exc:
            res.failures[key] += 1
            res.note = f"DPSVMConvergenceError: {exc}"
            continue
        res.accuracy[key].append(a)
        res.fit_seconds[key].append(s)
        res.not_converged += not ok
        res.n_iter.append(it)


# -- diffprivlib in its own environment ------------------------------------------


def _probe(python: Path) -> bool:
    try:
        out = subprocess.run(
            [str(python), "-c", "import diffprivlib, sklearn; print('ok')"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and out.stdout.strip() == "ok"


def _create_instructions(venv: Path) -> str:
    return (
        "To create it by hand:\n"
        f"  python3 -m venv {venv}\n"
        f"  {venv}/bin/pip install -r {REQUIREMENTS}"
    )


def ensure_diffprivlib_python(
    venv: Path, *, create: bool, log: Callable[[str], None]
) -> Path | None:
    """Return the interpreter of the diffprivlib environment, creating it if asked.

    Parameters
    ----------
    venv : pathlib.Path
        The virtual environment's directory (default ``.venv-diffprivlib``).
    create : bool
        Create it (``python -m venv`` and ``pip install -r
        requirements-diffprivlib.txt``) when it is missing or broken.
    log : callable
        Progress messages.

    Returns
    -------
    pathlib.Path or None
        The interpreter, or ``None`` (with the manual steps logged) when
        diffprivlib cannot be imported there.
    """
    python = venv / "bin" / "python"
    if python.exists() and _probe(python):
        return python
    if not create:
        log(f"diffprivlib environment {venv} is missing or broken.")
        log(_create_instructions(venv))
        return None
    log(f"Creating the diffprivlib environment in {venv} ...")
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [
                str(python),
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "-q",
                "-r",
                str(REQUIREMENTS),
            ],
            check=True,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        log(f"Could not create it ({exc}).")
        log(_create_instructions(venv))
        return None
    if _probe(python):
        return python
    log("diffprivlib still does not import there.")
    log(_create_instructions(venv))
    return None


def _diffprivlib_configs(n: int, lam: float) -> list[dict[str, Any]]:
    return [
        {"name": "diffprivlib LogisticRegression, C = 1/(nΛ)", "C": 1.0 / (n * lam)},
        {"name": "diffprivlib LogisticRegression, default C = 1", "C": 1.0},
    ]


class _DiffprivlibRunner:
    """Runs ``_diffprivlib_worker.py`` one noise draw (all ε) at a time.

    The data are written once to an uncompressed ``.npz`` in ``workdir``; each
    :meth:`round` starts the worker with the diffprivlib interpreter and merges
    its JSON results into :attr:`rows`.
    """

    def __init__(
        self,
        python: Path | None,
        ds: DatasetSpec,
        epsilons: Sequence[float],
        threads: int,
        reason: str,
        workdir: Path,
    ) -> None:
        n = ds.X_train.shape[0]
        configs = _diffprivlib_configs(n, ds.regularization)
        self.rows = [
            MethodResult(
                c["name"],
                private=True,
                settings=f"C = {c['C']:.4g}, data_norm = 1, fit_intercept = False",
            )
            for c in configs
        ]
        self.versions: dict[str, str] = {}
        self.python = python
        if python is None:
            self._disable(reason)
            return
        self.data_path = workdir / "data.npz"
        self.cfg_path = workdir / "config.json"
        self.out_path = workdir / "out.json"
        np.savez(
            self.data_path,
            X_train=ds.X_train,
            y_train=ds.y_train,
            X_test=ds.X_test,
            y_test=ds.y_test,
        )
        config = {
            "epsilons": list(epsilons),
            "draws": 1,
            "configs": configs,
            "data_norm": 1.0,
            "fit_intercept": False,
            "max_iter": 100,  # diffprivlib's defaults
            "tol": 1e-4,
        }
        self.cfg_path.write_text(json.dumps(config), encoding="utf-8")
        self.env = dict(os.environ)
        if threads > 0:
            for var in _THREAD_VARS:
                self.env[var] = str(threads)

    def _disable(self, reason: str) -> None:
        self.python = None
        for r in self.rows:
            r.available = False
            r.note = f"not available: {reason}"

    def round(self) -> None:
        """Run one noise draw of every configuration at every ε."""
        if self.python is None:
            return
        cmd = [
            str(self.python),
            str(WORKER),
            "--data",
            str(self.data_path),
            "--config",
            str(self.cfg_path),
            "--out",
            str(self.out_path),
        ]
        proc = subprocess.run(
            cmd, capture_output=True, text=True, check=False, env=self.env
        )
        if proc.returncode != 0:
            msg = (proc.stderr.strip().splitlines() or ["(no stderr)"])[-1]
            self._disable(f"worker failed ({msg})")
            return
        out = json.loads(self.out_path.read_text(encoding="utf-8"))
        self.versions = out["versions"]
        by_name = {r.method: r for r in self.rows}
        for item in out["results"]:
            r = by_name[item["name"]]
            key = _eps_key(item["epsilon"])
            r.accuracy.setdefault(key, []).extend(item["accuracy"])
            r.fit_seconds.setdefault(key, []).extend(item["fit_seconds"])
            r.failures.setdefault(key, 0)
            r.not_converged += int(item["n_not_converged"])


# -- reporting -----------------------------------------------------------------


def _finite_or_none(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _fmt_acc(vals: list[float], private: bool) -> str:
    if not vals:
        return "—"
    if not private or len(vals) == 1:
        return f"{np.mean(vals):.4f}"
    return f"{np.mean(vals):.4f} ± {np.std(vals, ddof=1):.4f}"


def _fmt_seconds(t: float) -> str:
    if not math.isfinite(t):
        return "—"
    return f"{t:.3g}"


def format_table(
    results: list[MethodResult], epsilons: Sequence[float], baseline: float
) -> str:
    """One Markdown table: accuracy per ε (∞ = non-private), time, time ratio."""
    eps_cols = [f"ε = {_eps_key(e)}" for e in epsilons]
    header = [
        "method",
        *eps_cols,
        "non-private",
        "median fit (s)",
        "÷ sklearn LR",
        "notes",
    ]
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join(["---"] + ["---:"] * (len(header) - 2) + ["---"]) + "|",
    ]
    for r in results:
        cells = [f"{r.method} ({r.settings})"]
        if not r.available:
            cells += ["n/a"] * (len(eps_cols) + 1) + ["n/a", "n/a", r.note]
            lines.append("| " + " | ".join(cells) + " |")
            continue
        for e in epsilons:
            cells.append(
                _fmt_acc(r.accuracy.get(_eps_key(e), []), r.private)
                if r.private
                else "—"
            )
        cells.append("—" if r.private else _fmt_acc(r.accuracy.get("inf", []), False))
        med = r.median_seconds()
        cells.append(_fmt_seconds(med))
        ratio = med / baseline if baseline > 0 else math.nan
        cells.append(f"{ratio:.2f}×" if math.isfinite(ratio) else "—")
        notes = []
        n_fail = sum(r.failures.values())
        if n_fail:
            notes.append(f"{n_fail} fits failed ({r.note})")
        if r.not_converged:
            notes.append(f"{r.not_converged} fits hit max_iter")
        if r.n_iter:
            notes.append(f"iterations {min(r.n_iter)}–{max(r.n_iter)}")
        cells.append("; ".join(notes))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# -- driver --------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface.

    Returns
    -------
    argparse.ArgumentParser
        The parser of :func:`main`.
    """
    p = argparse.ArgumentParser(
        description="dpsvm linear benchmark (accuracy and fit time).",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="smoke test: small synthetic n, 1 draw, 1 timing repeat",
    )
    p.add_argument(
        "--data-dir",
        default=None,
        help="directory with adult.data/adult.test (default: $DPSVM_DATA, "
        "then ../shared/datasets, as load_adult does)",
    )
    p.add_argument(
        "--datasets",
        default="adult,synthetic",
        help="comma-separated subset of: adult, synthetic",
    )
    p.add_argument(
        "--epsilons",
        default=",".join(_eps_key(e) for e in EPSILONS),
        help="comma-separated privacy budgets",
    )
    p.add_argument(
        "--draws-adult",
        type=int,
        default=5,
        help="noise draws per private method and ε on Adult",
    )
    p.add_argument(
        "--draws-synthetic",
        type=int,
        default=3,
        help="noise draws per private method and ε on the synthetic data",
    )
    p.add_argument(
        "--repeats", type=int, default=3, help="timing repeats of each non-private fit"
    )
    p.add_argument(
        "--n-synthetic", type=int, default=1_000_000, help="synthetic training rows"
    )
    p.add_argument(
        "--n-test-synthetic", type=int, default=100_000, help="synthetic test rows"
    )
    p.add_argument("--d-synthetic", type=int, default=100, help="synthetic dimension")
    p.add_argument("--seed", type=int, default=0, help="seed of the synthetic data")
    p.add_argument(
        "--threads",
        type=int,
        default=1,
        help="BLAS/OpenMP threads for every library, in this process "
        "and in the diffprivlib worker (0: the libraries' "
        "defaults). Default 1: a like-for-like single-core "
        "comparison that does not oversubscribe a shared machine",
    )
    p.add_argument(
        "--no-diffprivlib",
        action="store_true",
        help="skip diffprivlib (its columns read 'not available')",
    )
    p.add_argument(
        "--no-create-venv",
        action="store_true",
        help="do not create .venv-diffprivlib when it is missing",
    )
    p.add_argument(
        "--diffprivlib-venv",
        default=str(DEFAULT_VENV),
        help="the diffprivlib virtual environment",
    )
    p.add_argument("--output", default=None, help="also write the report here")
    p.add_argument("--json", default=None, help="write raw results as JSON here")
    return p


def run_benchmark(
    args: argparse.Namespace, log: Callable[[str], None]
) -> dict[str, Any]:
    """Run every data set and method; return the results and the report.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed arguments of :func:`build_parser`.
    log : callable
        Progress messages.

    Returns
    -------
    dict
        ``machine``, ``settings``, ``diffprivlib_versions``, ``datasets`` (each
        with ``rows`` and ``table``) and ``report`` (Markdown).
    """
    epsilons = [float(e) for e in args.epsilons.split(",") if e.strip()]
    names = [s.strip() for s in args.datasets.split(",") if s.strip()]
    unknown = set(names) - {"adult", "synthetic"}
    if unknown:
        raise SystemExit(f"unknown data set(s): {sorted(unknown)}")
    if args.quick:
        n_syn, n_test_syn, d_syn = 2000, 2000, 20
        draws_adult = draws_syn = 1
        repeats = 1
    else:
        n_syn, n_test_syn = args.n_synthetic, args.n_test_synthetic
        d_syn = args.d_synthetic
        draws_adult, draws_syn = args.draws_adult, args.draws_synthetic
        repeats = args.repeats

    machine = machine_info()
    log(f"Machine: {machine['cpu']}, {machine['logical_cores']} logical cores")

    python: Path | None = None
    reason = "disabled by --no-diffprivlib"
    if not args.no_diffprivlib:
        python = ensure_diffprivlib_python(
            Path(args.diffprivlib_venv), create=not args.no_create_venv, log=log
        )
        if python is None:
            reason = "diffprivlib environment unavailable (see the log)"

    dpl_versions: dict[str, str] = {}
    datasets_out = []
    for name in names:
        if name == "adult":
            try:
                ds = _load_adult_spec(args.data_dir, draws_adult)
            except FileNotFoundError as exc:
                log(f"Skipping Adult: {str(exc).splitlines()[0]}")
                continue
        else:
            t0 = time.perf_counter()
            ds = _synthetic_spec(n_syn, n_test_syn, d_syn, args.seed, draws_syn)
            log(f"Generated synthetic data in {time.perf_counter() - t0:.1f} s")
        n, d = ds.X_train.shape
        lam = ds.regularization
        c_sk = 1.0 / (n * lam)
        log(
            f"{ds.name}: n={n}, d={d}, test={ds.X_test.shape[0]}, Λ={lam:g}, "
            f"C_sk={c_sk:.4g}"
        )
        lr = MethodResult(
            "sklearn LogisticRegression(lbfgs)",
            private=False,
            settings=f"C = 1/(nΛ) = {c_sk:.4g}, defaults tol=1e-4, max_iter=100",
        )
        svc = MethodResult(
            "sklearn LinearSVC (hinge)",
            private=False,
            settings=(
                f"C = 1/(nΛ) = {c_sk:.4g}, dual CD, defaults tol=1e-4, max_iter=1000"
            ),
        )
        # dpsvm at the benchmark's Λ and at Λ = 1/n, the problem diffprivlib's
        # default C = 1 solves, so that each diffprivlib row has a dpsvm row
        # solving the same problem.
        lam_dpl = 1.0 / n
        # Huber h = 2 has the logistic loss's curvature bound c = 1/(2h) = 1/4,
        # so the CMS11 correction costs it as little ε as the logistic loss.
        huber2 = partial(DPLinearSVC, huber_h=2.0)
        dp_rows = [
            (
                MethodResult(
                    f"dpsvm {label} (objective{tag})",
                    private=True,
                    settings=f"Λ = {lm:g}",
                ),
                _dp_factory(cls, lm),
            )
            for lm, tag in ((lam, ""), (lam_dpl, ", Λ = 1/n"))
            for label, cls in (
                ("DPLinearSVC (Huber h=0.5)", DPLinearSVC),
                ("DPLinearSVC (Huber h=2)", huber2),
                ("DPLogisticRegression", DPLogisticRegression),
            )
        ]
        make_lr = partial(
            LogisticRegression, solver="lbfgs", C=c_sk, fit_intercept=False
        )
        make_svc = partial(
            LinearSVC,
            C=c_sk,
            loss="hinge",
            dual=True,
            fit_intercept=False,
            random_state=0,
        )
        with tempfile.TemporaryDirectory(prefix="bench_linear_") as tmp:
            dpl = _DiffprivlibRunner(
                python, ds, epsilons, args.threads, reason, Path(tmp)
            )
            # Rounds interleave the methods, so that a change of load on a
            # shared machine affects all of them alike.
            n_rounds = max(ds.draws, repeats)
            for r in range(n_rounds):
                t_round = time.perf_counter()
                if r < repeats:
                    _nonprivate_round(lr, make_lr, ds)
                    _nonprivate_round(svc, make_svc, ds)
                if r < ds.draws:
                    for res, make in dp_rows:
                        _dpsvm_round(res, make, ds, epsilons)
                    dpl.round()
                log(
                    f"  round {r + 1}/{n_rounds} done in "
                    f"{time.perf_counter() - t_round:.1f} s"
                )
        dpl_versions = dpl.versions or dpl_versions
        rows = [lr, svc, *(res for res, _ in dp_rows), *dpl.rows]
        for row in rows:
            if row.available:
                log(
                    f"  {row.method}: median fit {row.median_seconds():.3g} s, "
                    + ", ".join(
                        f"ε={k}: {np.mean(v):.4f}" for k, v in row.accuracy.items() if v
                    )
                )
        baseline = rows[0].median_seconds()
        table = format_table(rows, epsilons, baseline)
        datasets_out.append(
            {
                "name": ds.name,
                "description": ds.description,
                "n_train": n,
                "n_test": int(ds.X_test.shape[0]),
                "n_features": d,
                "regularization": lam,
                "C_sklearn": c_sk,
                "draws": ds.draws,
                "repeats": repeats,
                "baseline_seconds": baseline,
                "rows": [
                    {
                        **asdict(r),
                        "median_seconds": _finite_or_none(r.median_seconds()),
                        "ratio_to_sklearn_lr": _finite_or_none(
                            r.median_seconds() / baseline
                        ),
                    }
                    for r in rows
                ],
                "table": table,
            }
        )
        del ds

    machine["load_average_at_end"] = [
        round(v, 2)
        for v in (os.getloadavg() if hasattr(os, "getloadavg") else (math.nan,) * 3)
    ]
    settings = {
        "epsilons": epsilons,
        "quick": bool(args.quick),
        "noise_random_state": "None (CSPRNG noise, as in production)",
        "threads": args.threads,
    }
    result: dict[str, Any] = {
        "machine": machine,
        "settings": settings,
        "diffprivlib_versions": dpl_versions,
        "datasets": datasets_out,
    }
    result["report"] = _report(result)
    return result


def _report(result: dict[str, Any]) -> str:
    m = result["machine"]
    out = [
        "## Linear benchmark results",
        "",
        f"Machine: {m['cpu']}, {m['logical_cores']} logical cores, "
        f"{m['memory_gib']} GiB; load average at start {m['load_average_at_start']}, "
        f"at end {m['load_average_at_end']}.",
        f"Main environment: Python {m['python']}, numpy {m['numpy']}, scipy "
        f"{m['scipy']}, scikit-learn {m['scikit-learn']}, dpsvm {m['dpsvm']}; "
        f"BLAS {', '.join(m['blas']) or 'unknown'}.",
        "Threads: "
        + (
            f"{result['settings']['threads']} BLAS/OpenMP thread(s) for every library "
            "(main process and diffprivlib worker)."
            if result["settings"]["threads"] > 0
            else "the libraries' defaults."
        ),
        "Noise: random_state=None everywhere (dpsvm: ChaCha20 CSPRNG; diffprivlib: "
        "its default generator), so accuracies vary between runs.",
    ]
    v = result["diffprivlib_versions"]
    if v:
        out.append(
            f"diffprivlib environment: Python {v['python']}, diffprivlib "
            f"{v['diffprivlib']}, scikit-learn {v['scikit-learn']}, numpy "
            f"{v['numpy']}, scipy {v['scipy']}."
        )
    for ds in result["datasets"]:
        out += [
            "",
            f"### {ds['name']}",
            "",
            f"{ds['description']}. n = {ds['n_train']:,} training rows, "
            f"{ds['n_test']:,} test rows, d = {ds['n_features']}; Λ = "
            f"{ds['regularization']:g} (scikit-learn/diffprivlib C = 1/(nΛ) = "
            f"{ds['C_sklearn']:.4g}); {ds['draws']} noise draws per private "
            f"method and ε (accuracy mean ± sd), {ds['repeats']} timing repeats "
            f"per non-private method; median fit time over all fits of a method. "
            f"÷ sklearn LR: median fit time / that of sklearn "
            f"LogisticRegression(lbfgs) ({ds['baseline_seconds']:.3g} s).",
            "",
            ds["table"],
        ]
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark from the command line.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments (``sys.argv[1:]`` when omitted).

    Returns
    -------
    int
        Exit status.
    """
    args = build_parser().parse_args(None if argv is None else list(argv))

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    if args.threads > 0:
        with threadpool_limits(limits=args.threads):
            result = run_benchmark(args, log)
    else:
        result = run_benchmark(args, log)
    result["wall_seconds"] = time.perf_counter() - t0
    cmd = "python benchmarks/bench_linear.py" + (
        " " + shlex.join(argv if argv is not None else sys.argv[1:])
        if (argv if argv is not None else sys.argv[1:])
        else ""
    )
    result["command"] = cmd
    report = (
        result["report"]
        + f"\nCommand: `{cmd}`; wall time {result['wall_seconds']:.0f} s.\n"
    )
    result["report"] = report
    print(report)
    if args.output:
        Path(args.output).write_text(report, encoding="utf-8")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

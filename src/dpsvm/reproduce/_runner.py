# SPDX-License-Identifier: BSD-3-Clause
"""The experiments of Sarwate, Chaudhuri & Monteleoni (2009), arXiv:0912.0071.

The work is cut into independent jobs (one cross-validation fold × one Λ, one
fold × one training-set size, one random projection × one Λ, ...), each of
which fits every method it concerns and returns error rates. Jobs run in this
process (``n_jobs=1``) or in joblib worker processes, and are aggregated into
the JSON-ready ``results`` dictionary that :mod:`._report` and :mod:`._plots`
render.

Protocol (the paper's Section 6): every linear value is a mean over
cross-validation folds (each training set holds 9/10 of the data) and, for
private methods, over noise draws; the kernel values are means over random
projections × draws on one 9/10 : 1/10 split. Randomness comes from
``numpy.random.SeedSequence(seed, spawn_key=...)`` per job, so results do not
depend on scheduling. Seeded noise is right for a reproduction (it can be
rerun) and wrong for a real release.
"""

from __future__ import annotations

import math
import os
import platform
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TextIO

import numpy as np
from numpy.typing import NDArray
from sklearn.model_selection import KFold
from threadpoolctl import threadpool_limits

from ..accounting import allow_non_private
from ..exceptions import DPSVMConvergenceError
from ..models import DPLinearSVC, DPLogisticRegression, NonPrivateLinearClassifier
from ..perturbation import OutputPerturbation, output_l2_sensitivity
from ..utils._random import lend_generator
from ._cells import kernel_features, objective_errors
from ._config import ReproductionConfig
from ._progress import Progress, format_duration

__all__ = [
    "KERNEL_METHODS",
    "METHODS",
    "Dataset",
    "ReproductionError",
    "load_datasets",
    "output_perturbation_from_solution",
    "run_experiments",
]

FloatArray = NDArray[np.float64]
#: (training rows, training labels, test rows, test labels) of one fit.
_Data = tuple[FloatArray, NDArray[np.int64], FloatArray, NDArray[np.int64]]
#: ``make(method, eps) -> unfitted estimator`` of a private method (no random_state:
#: the caller lends its generator for the fit, dpsvm.utils._random.lend_generator).
_Maker = Callable[[str, float], Any]
_CLASSES = [-1, 1]


class ReproductionError(ValueError):
    """A reproduction that cannot run (missing data, missing matplotlib, ...).

    A :class:`ValueError`, so that the ``dpsvm`` command reports it as one line
    ``dpsvm: error: <message>`` with exit status 1.

    Examples
    --------
    >>> str(ReproductionError("UCI Adult files not found"))
    'UCI Adult files not found'
    """


@dataclass(frozen=True)
class MethodInfo:
    """How a method is labelled in the report.

    Attributes
    ----------
    label : str
        Row label.
    private : bool
        Whether the method is differentially private as run.
    paper_row : str or None
        The method of the paper's tables it corresponds to.
    like_for_like : bool
        Whether it is the implementation that matches what the paper ran (so
        the difference to the paper's number is the reproduction error).
    note : str
        One-line description.
    """

    label: str
    private: bool
    paper_row: str | None
    like_for_like: bool
    note: str


#: Linear methods, in the row order of the report.
METHODS: dict[str, MethodInfo] = {
    "huber_svm": MethodInfo(
        "Non-private SVM (Huber)",
        False,
        "huber_svm",
        True,
        "NonPrivateLinearClassifier(loss='huber'), exact Newton solve; no privacy",
    ),
    "sensitivity": MethodInfo(
        "Sensitivity method",
        True,
        "sensitivity",
        True,
        "output perturbation of the Huber SVM, Δ₂ = 2/(nΛ), Gamma-norm noise "
        "(DPLinearSVC(mechanism='output'), CMS11 Alg. 1); private",
    ),
    "lr_2009": MethodInfo(
        "Logistic regression, CM08 as printed (NOT private)",
        False,
        "lr",
        True,
        "DPLogisticRegression(mechanism='objective-2009'): noise ∝ exp(−(ε/2)‖b‖) "
        "without the ε′ correction, as in CM08 and Sarwate et al. 2009; not "
        "guaranteed DP",
    ),
    "lr": MethodInfo(
        "Logistic regression (private, corrected)",
        True,
        "lr",
        False,
        "DPLogisticRegression(mechanism='objective'): CM08 objective perturbation "
        "with the CMS11 ε′/Δ correction (c = 1/4); private",
    ),
    "alg1_2009": MethodInfo(
        "Algorithm 1, paper reading (NOT private)",
        False,
        "alg1",
        True,
        "DPLinearSVC(mechanism='objective-2009'): Alg. 1 read as its Theorem 1 "
        "proof, (1/n)bᵀf with ‖b‖ ~ Gamma(d, 2/ε); the proof omits the Jacobian, "
        "not guaranteed DP",
    ),
    "alg1": MethodInfo(
        "Algorithm 1, corrected (private)",
        True,
        "alg1",
        False,
        "DPLinearSVC(mechanism='objective'): CMS11 Alg. 2 (ε′ = ε − ln(1 + 2c/(nΛ) "
        "+ c²/(nΛ)²), Δ fallback), c = 1/(2h); private",
    ),
    "diffprivlib_lr": MethodInfo(
        "diffprivlib LogisticRegression",
        True,
        "lr",
        False,
        "diffprivlib.models.LogisticRegression(epsilon, data_norm=1, "
        "fit_intercept=False, C = 1/(nΛ)); private",
    ),
}

#: Kernel (nested balls) methods.
KERNEL_METHODS: dict[str, MethodInfo] = {
    "kernel_svm": MethodInfo(
        "Non-private Gaussian SVM (hinge)",
        False,
        "kernel_svm",
        True,
        "scikit-learn SVC(kernel='rbf', γ, C = 1/(nΛ)) with a bias (libsvm, like "
        "the paper's SVMlight) on a subsample of the training set; no privacy",
    ),
    "rr_svm": MethodInfo(
        "Non-private RR-Gaussian SVM",
        False,
        "rr_svm",
        True,
        "NonPrivateRandomFeatureSVC(loss='huber', cos-phase, √(2/D) features): "
        "the unperturbed problem of Alg. 2; no privacy",
    ),
    "alg2_2009": MethodInfo(
        "Algorithm 2, paper reading (NOT private)",
        False,
        "alg2",
        True,
        "DPKernelSVC(mechanism='objective-2009', norm_handling='paper'): √(2/D) "
        "features of norm up to √2 with noise for norm 1 (Theorem 3 assumes norm "
        "1) and the uncorrected Alg. 1; not guaranteed DP",
    ),
    "alg2": MethodInfo(
        "Algorithm 2, corrected (private)",
        True,
        "alg2",
        False,
        "DPKernelSVC(mechanism='objective', norm_handling='clip'): features "
        "projected onto the unit ball and CMS11 objective perturbation; private",
    ),
}


#: The private (and paper-literal) kernel methods, in their seed order.
_KERNEL_PRIVATE = ("alg2_2009", "alg2")


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


@dataclass
class Dataset:
    """A data set with its evaluated cross-validation folds.

    Attributes
    ----------
    name : str
        ``"adult"``, ``"adult-compact"``, ``"kdd"`` or ``"nested-balls"``.
    X : ndarray of shape (n_samples, n_features)
        Rows (norm ≤ 1 for the linear data sets).
    y : ndarray of shape (n_samples,)
        Labels in {−1, +1}.
    splits : list of (ndarray, ndarray)
        (train, test) row positions of each evaluated fold.
    description : str
        Preprocessing, for the report.
    info : dict
        Public facts for the JSON (sizes, label rate).
    """

    name: str
    X: FloatArray
    y: NDArray[np.int64]
    splits: list[tuple[NDArray[np.intp], NDArray[np.intp]]]
    description: str
    info: dict[str, Any] = field(default_factory=dict)


def _cv_splits(
    n: int, config: ReproductionConfig, key: int
) -> list[tuple[NDArray[np.intp], NDArray[np.intp]]]:
    """The evaluated folds of a shuffled K-fold split (data-independent)."""
    kf = KFold(n_splits=config.n_splits, shuffle=True, random_state=config.seed + key)
    out = []
    for i, (tr, te) in enumerate(kf.split(np.zeros((n, 1)))):
        if i >= config.folds:
            break
        out.append((tr.astype(np.intp), te.astype(np.intp)))
    return out


def _subsample(n: int, size: int, seed: Sequence[int]) -> NDArray[np.intp]:
    rng = np.random.default_rng(np.random.SeedSequence(list(seed)))
    return np.sort(rng.permutation(n)[:size]).astype(np.intp)


def _load_adult(
    data_dir: Path | None, config: ReproductionConfig, compact: bool
) -> tuple[Dataset, list[str]]:
    from ..datasets import load_adult

    with _recorded_warnings() as caught:
        try:
            bunch = load_adult(
                data_dir,
                column_scaling="public" if compact else "data-max",
                feature_set="compact" if compact else "full",
            )
        except FileNotFoundError as exc:
            where = f"--data-dir {data_dir}" if data_dir is not None else "the data"
            raise ReproductionError(
                f"UCI Adult files (adult.data and adult.test, plain or .gz, "
                f"directly or in an 'adult/' subfolder) not found in {where}; the "
                "reproduction needs them. " + str(exc).splitlines()[0]
            ) from None
    X = np.vstack([bunch.X_train, bunch.X_test])
    y = np.concatenate([bunch.y_train, bunch.y_test]).astype(np.int64)
    n_all = y.size
    if config.adult_rows is not None and config.adult_rows < n_all:
        keep = _subsample(n_all, config.adult_rows, (config.seed, 11))
        X, y = X[keep], y[keep]
    name = "adult-compact" if compact else "adult"
    if compact:
        description = (
            f"UCI Adult, train + test ({y.size} rows after dropping rows with '?'), "
            f"compact public features ({X.shape[1]} columns: no fnlwgt, no "
            "education one-hots, one native-country indicator, log-scaled capital "
            "columns, public numeric ranges), each row divided by its norm: a "
            "per-record map, so the private methods are private end to end"
        )
    else:
        description = (
            f"UCI Adult, train + test ({y.size} rows after dropping rows with '?'), "
            f"the paper's preprocessing: {X.shape[1]} columns (6 numeric + 99 "
            "one-hot), every column divided by its maximum over the data "
            "(column_scaling='data-max', as in the paper: it reads every record, "
            "so it is outside any DP guarantee), each row divided by "
            "its L2 norm (‖x‖ = 1; the paper says 'at most 1')"
        )
    notes = sorted({str(w.message).split(";")[0] for w in caught})
    ds = Dataset(
        name=name,
        X=np.ascontiguousarray(X, dtype=np.float64),
        y=y,
        splits=_cv_splits(y.size, config, 1 if compact else 0),
        description=description,
        info={
            "n_samples": int(y.size),
            "n_features": int(X.shape[1]),
            "positive_rate": float(np.mean(y == 1)),
            "files": dict(bunch.files),
        },
    )
    return ds, [f"{name}: {m}" for m in notes]


def _load_kdd(data_dir: Path | None, config: ReproductionConfig) -> Dataset | None:
    """KDD Cup 99 random subset, or None when the files are absent."""
    from ..datasets import load_kddcup99

    try:
        bunch: Any = load_kddcup99(
            data_dir, subset=config.kdd_subset, random_state=config.seed
        )
    except FileNotFoundError:
        return None
    X = np.ascontiguousarray(bunch.X_train, dtype=np.float64)
    y = np.asarray(bunch.y_train, dtype=np.int64)
    return Dataset(
        name="kdd",
        X=X,
        y=y,
        splits=_cv_splits(y.size, config, 2),
        description=(
            f"KDD Cup 99, 10% file, random subset of {y.size} rows (paper: "
            f"60,000), {X.shape[1]} columns (38 numeric scaled by public ranges + "
            "one-hot protocol/service/flag), rows divided by their norm; +1 = "
            "normal connection (the paper's positive class; with no intercept, "
            "flipping the labels changes no error rate). The paper divided columns "
            "by their data maxima; the loader uses public ranges instead"
        ),
        info={
            "n_samples": int(y.size),
            "n_features": int(X.shape[1]),
            "positive_rate": float(np.mean(y == 1)),
            "files": dict(bunch.files),
        },
    )


def _make_nested_balls(config: ReproductionConfig) -> Dataset:
    from ..datasets import make_nested_balls

    X, y = make_nested_balls(config.nb_samples, random_state=config.seed)
    n = y.size
    n_test = max(1, n // 10)
    # One 9/10 : 1/10 split (the paper averages over projections × draws).
    perm = np.random.default_rng(np.random.SeedSequence([config.seed, 21]))
    order = perm.permutation(n).astype(np.intp)
    test, train = np.sort(order[:n_test]), np.sort(order[n_test:])
    return Dataset(
        name="nested-balls",
        X=X,
        y=np.asarray(y, dtype=np.int64),
        splits=[(train, test)],
        description=(
            f"'nested balls' in R^5 (dpsvm.datasets.make_nested_balls), {n} points "
            f"(paper: 240,000), {train.size} train / {test.size} test; Bayes "
            "error 0.05"
        ),
        info={"n_samples": int(n), "n_features": int(X.shape[1])},
    )


def load_datasets(
    data_dir: str | os.PathLike[str] | None, config: ReproductionConfig
) -> tuple[dict[str, Dataset], list[str]]:
    """Load every data set of the run.

    Parameters
    ----------
    data_dir : str or path-like or None
        Directory with the UCI Adult files (and, optionally, the KDD Cup 99
        files); ``None`` uses the loaders' default search.
    config : ReproductionConfig
        The run settings.

    Returns
    -------
    datasets : dict of str to Dataset
        ``"adult"``, optionally ``"adult-compact"`` and ``"kdd"``, and
        ``"nested-balls"``.
    notes : list of str
        Warnings and skipped parts, for the report.

    Raises
    ------
    ReproductionError
        If ``data_dir`` is not a directory or the Adult files are missing.

    Examples
    --------
    >>> from dpsvm.reproduce import make_config
    >>> load_datasets("/nope", make_config("tiny"))
    Traceback (most recent call last):
    ...
    dpsvm.reproduce._runner.ReproductionError: --data-dir /nope: no such directory
    """
    path = None
    if data_dir is not None:
        path = Path(data_dir)
        if not path.is_dir():
            raise ReproductionError(f"--data-dir {data_dir}: no such directory")
    notes: list[str] = []
    datasets: dict[str, Dataset] = {}
    datasets["adult"], n1 = _load_adult(path, config, compact=False)
    notes += n1
    if config.compact:
        datasets["adult-compact"], n2 = _load_adult(path, config, compact=True)
        notes += n2
    kdd = _load_kdd(path, config)
    if kdd is None:
        notes.append(
            "KDD files not found (kddcup.data_10_percent and corrected, plain or "
            ".gz, in the data directory or a 'kddcup99/' subfolder): the KDD "
            "columns of Figure 2(a), Figure 3(b) and Figures 1(b), (d), (e) and "
            "4(b) are skipped"
        )
    else:
        datasets["kdd"] = kdd
    datasets["nested-balls"] = _make_nested_balls(config)
    return datasets, notes


# ---------------------------------------------------------------------------
# Fitting helpers (run in workers)
# ---------------------------------------------------------------------------


def _rng(seed: int, *key: int) -> np.random.Generator:
    return np.random.Generator(
        np.random.PCG64(np.random.SeedSequence(seed, spawn_key=tuple(key)))
    )


def _int_seed(seed: int, *key: int) -> int:
    ss = np.random.SeedSequence(seed, spawn_key=tuple(key))
    return int(ss.generate_state(1, dtype=np.uint32)[0])


def output_perturbation_from_solution(
    coef: FloatArray,
    n_samples: int,
    regularization: float,
    epsilon: float,
    rng: np.random.Generator,
) -> FloatArray:
    """The sensitivity method's release, given the exact non-private solution.

    Adds the noise of ``DPLinearSVC(mechanism="output", data_norm=1,
    fit_intercept=False)`` to an already computed minimiser, so that the 50
    draws of a (fold, Λ) cell share one solve. The calibration and the draw are
    the estimator's own, :class:`dpsvm.perturbation.OutputPerturbation`: L2
    sensitivity Δ = 2L/(nΛ) with L = 1 (Chaudhuri, Monteleoni & Sarwate 2011,
    Corollary 8) plus twice the public solver cap
    ``dpsvm.perturbation.CERTIFICATE_RTOL``·Δ, and ‖b‖ ~ Gamma(d, Δ_eff/ε)
    with a uniform direction (CMS11 Alg. 1). ``tests/reproduce`` checks that
    it equals the estimator's release for the same generator.

    Parameters
    ----------
    coef : ndarray of shape (n_features,)
        Exact minimiser of (1/n)Σℓ + (Λ/2)‖w‖² on rows of norm ≤ 1.
    n_samples : int
        Training-set size n.
    regularization : float
        Λ > 0.
    epsilon : float
        ε > 0.
    rng : numpy.random.Generator
        Noise source (advanced).

    Returns
    -------
    ndarray of shape (n_features,)
        coef + b.

    Notes
    -----
    **Privacy.** Pure ε-DP under replace-one neighbours for a 1-Lipschitz convex
    loss, rows of norm ≤ 1 and Λ > 0, *provided* ``coef`` is the minimiser to
    within the cap (the estimator certifies this; here the Newton solve to
    ‖∇J‖ ≤ 1e-10 gives ‖w − w*‖ ≤ 1e-10/Λ, far below the cap for the Λ of
    the paper's grids). With a seeded generator it is for reproduction only.

    References
    ----------
    .. [1] K. Chaudhuri, C. Monteleoni, A. D. Sarwate, "Differentially private
       empirical risk minimization", JMLR 12:1069–1109, 2011, Algorithm 1,
       Corollary 8.

    Examples
    --------
    >>> w = output_perturbation_from_solution(np.zeros(3), 1000, 0.1, 1.0,
    ...                                       np.random.default_rng(0))
    >>> w.shape
    (3,)
    """
    # The estimator's calibration (dpsvm.perturbation): Δ₂ = 2L/(nΛ) (CMS11
    # Cor. 8) plus twice the public certificate cap, ‖b‖ ~ Gamma(d, Δ_eff/ε).
    plan = OutputPerturbation.calibrate(
        "gamma-norm",
        epsilon=float(epsilon),
        l2_sensitivity=output_l2_sensitivity(int(n_samples), float(regularization)),
        dim=int(np.size(coef)),
    )
    return plan.noise.release(coef, rng)


def _output_error(
    coef: FloatArray, lam: float, data: _Data, eps: float, rng: np.random.Generator
) -> float:
    """Test error of one output-perturbation draw around the shared solution."""
    Xtr, _, Xte, yte = data
    w = output_perturbation_from_solution(coef, Xtr.shape[0], lam, eps, rng)
    pred = np.where(Xte @ w > 0, 1, -1)  # classes_[(score > 0)], as in predict
    return float(np.mean(pred != yte))


def _diffprivlib_available() -> bool:
    try:
        import diffprivlib  # noqa: F401
    except Exception:  # ImportError, or a version clash with scikit-learn
        return False
    return True


def _linear_estimator(lam: float, huber_h: float, method: str, eps: float) -> Any:
    # No random_state: the caller lends its generator for the fit only
    # (dpsvm.utils._random.lend_generator), so no estimator keeps it.
    common: dict[str, Any] = {
        "epsilon": eps,
        "regularization": lam,
        "data_norm": 1.0,
        "fit_intercept": False,  # Sarwate et al. 2009 is bias-free (explicit)
        "classes": _CLASSES,
    }
    if method == "alg1_2009":
        return DPLinearSVC(mechanism="objective-2009", huber_h=huber_h, **common)
    if method == "alg1":
        return DPLinearSVC(mechanism="objective", huber_h=huber_h, **common)
    if method == "sensitivity":
        return DPLinearSVC(mechanism="output", huber_h=huber_h, **common)
    if method == "lr_2009":
        return DPLogisticRegression(mechanism="objective-2009", **common)
    if method == "lr":
        return DPLogisticRegression(mechanism="objective", **common)
    raise ValueError(f"unknown method {method!r}")


def _diffprivlib_error(
    lam: float, data: _Data, eps: float, rng: np.random.Generator
) -> float:
    from diffprivlib.models import LogisticRegression

    Xtr, ytr, Xte, yte = data
    clf = LogisticRegression(
        epsilon=eps,
        data_norm=1.0,
        fit_intercept=False,
        C=1.0 / (ytr.size * lam),
        random_state=int(rng.integers(2**31 - 1)),
    )
    return _test_error(clf.fit(Xtr, ytr), Xte, yte)


@dataclass
class _Outcome:
    """What a job returns (the scheduler files it under the job's key)."""

    values: dict[str, Any]
    n_fits: int
    warnings: list[str]
    failures: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0


@contextmanager
def _recorded_warnings() -> Iterator[list[warnings.WarningMessage]]:
    """Record every warning of a loading step or job (reported in the results)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


def _record(caught: list[warnings.WarningMessage]) -> list[str]:
    return sorted({f"{w.category.__name__}: {w.message}" for w in caught})


def _test_error(model: Any, X: FloatArray, y: NDArray[np.int64]) -> float:
    return float(np.mean(model.predict(X) != y))


def _huber_svm(huber_h: float, lam: float) -> Any:
    """The non-private Huber SVM of the paper's comparisons, regulariser Λ."""
    return NonPrivateLinearClassifier(
        loss="huber", huber_h=huber_h, regularization=lam, classes=_CLASSES
    )


def _baseline_errors(
    make: Callable[[float], Any], lambdas: Sequence[float], data: _Data
) -> FloatArray:
    """Test errors of the non-private baseline ``make(Λ)`` at each Λ of ``lambdas``."""
    Xtr, ytr, Xte, yte = data
    return np.asarray(
        [_test_error(make(lam).fit(Xtr, ytr), Xte, yte) for lam in lambdas]
    )


def _draw_errors(
    error: Callable[[np.random.Generator], float],
    rng: np.random.Generator,
    draws: int,
) -> tuple[FloatArray, int]:
    """``draws`` test errors from one generator, and the number of refused fits.

    A fit whose solver does not certify its tolerance raises
    :class:`~dpsvm.exceptions.DPSVMConvergenceError` and releases nothing; its
    entry stays NaN.
    """
    errs = np.full(draws, np.nan)
    failures = 0
    for r in range(draws):
        try:
            errs[r] = error(rng)
        except DPSVMConvergenceError:
            failures += 1
    return errs, failures


def _fit_error(
    make: _Maker, method: str, data: _Data, eps: float, rng: np.random.Generator
) -> float:
    """Test error of one private fit (training and test rows in ``data``)."""
    Xtr, ytr, Xte, yte = data
    est = make(method, eps)
    with lend_generator(est, rng):  # the stream is not kept on the model
        est.fit(Xtr, ytr)
    return _test_error(est, Xte, yte)


def _tuned_error(
    make: _Maker,
    method: str,
    lambdas: tuple[float, ...],
    data: _Data,
    eps: float,
    rng: np.random.Generator,
) -> float:
    """Test error of a private method tuned over ``lambdas`` by Algorithm 3 at ε."""
    from ..model_selection import PrivateParameterTuning

    Xtr, ytr, Xte, yte = data
    tuner = PrivateParameterTuning(
        make(method, eps), {"regularization": list(lambdas)}, epsilon=eps
    )
    with _tuning_context(method), lend_generator(tuner, rng):
        tuner.fit(Xtr, ytr)
    return _test_error(tuner, Xte, yte)


@dataclass(frozen=True)
class _Fold:
    """The rows and labels of a data set and one split's (train, test) indices."""

    X: FloatArray
    y: NDArray[np.int64]
    train: NDArray[np.intp]
    test: NDArray[np.intp]

    def data(self, size: int | None = None, seed_key: Sequence[int] = ()) -> _Data:
        """Training (optionally a seeded subsample of ``size``) and test rows."""
        tr = self.train
        if size is not None:
            tr = tr[_subsample(tr.size, min(size, tr.size), seed_key)]
        return self.X[tr], self.y[tr], self.X[self.test], self.y[self.test]


@dataclass(frozen=True)
class _Draws:
    """The ε values of a job, the noise draws per ε and the job's seed key."""

    epsilons: tuple[float, ...]
    draws: int
    seed_key: tuple[int, ...]

    def batch(self, data: _Data, *key: int) -> tuple[Any, ...]:
        """The arguments of :func:`._cells.objective_errors` after the maker.

        The same generators as :meth:`errors` (one per ε, serving its draws in
        turn), so a batched cell draws the noise of a loop of ``fit`` calls.
        """
        gens = [_rng(*self.seed_key, *key, e) for e in range(len(self.epsilons))]
        return (self.epsilons, *data, gens, self.draws)

    def errors(
        self, error: Callable[[float, np.random.Generator], float], *key: int
    ) -> tuple[FloatArray, int]:
        """(ε × draw) test errors of ``error(eps, rng)``, and the refused fits.

        The generator of ε number e is ``_rng(*seed_key, *key, e)``.
        """
        errs = np.full((len(self.epsilons), self.draws), np.nan)
        failures = 0
        for e_idx, eps in enumerate(self.epsilons):
            errs[e_idx], failed = _draw_errors(
                partial(error, eps), _rng(*self.seed_key, *key, e_idx), self.draws
            )
            failures += failed
        return errs, failures


def _grid_job(
    fold: _Fold, lam: float, plan: _Draws, methods: tuple[str, ...], huber_h: float
) -> _Outcome:
    """One (fold, Λ) cell: the Huber SVM, then every method × ε × draw."""
    data = fold.data()
    values: dict[str, Any] = {}
    fits = failures = 0
    with _recorded_warnings() as caught:
        ref = _huber_svm(huber_h, lam).fit(data[0], data[1])
        fits += 1
        values["huber_svm"] = _test_error(ref, data[2], data[3])
        make = partial(_linear_estimator, lam, huber_h)
        for m_idx, method in enumerate(methods):
            if method == "sensitivity":  # the draws share one solve
                error = partial(_output_error, ref.coef_.ravel(), lam, data)
                values[method], failed = plan.errors(error, m_idx)
            elif method == "diffprivlib_lr":
                error = partial(_diffprivlib_error, lam, data)
                values[method], failed = plan.errors(error, m_idx)
            else:  # objective perturbation: the draws of each ε solved together
                values[method], failed = objective_errors(
                    partial(make, method), *plan.batch(data, m_idx)
                )
            failures += failed
            if method != "sensitivity":
                fits += values[method].size - failed
    return _Outcome(values, fits, _record(caught), failures)


def _lc_job(
    fold: _Fold,
    size: int,
    plan: _Draws,
    methods: tuple[str, ...],
    lambdas: tuple[float, ...],
    huber_h: float,
) -> _Outcome:
    """One (fold, N) point of a learning curve.

    The Huber SVM takes the best Λ of ``lambdas`` on the test fold (non-private
    tuning); each private method is tuned by Algorithm 3
    (:class:`~dpsvm.model_selection.PrivateParameterTuning`, the m = 7 public
    candidates ``lambdas``) with the same ε.
    """
    data = fold.data(size, (*plan.seed_key, 0))
    values: dict[str, Any] = {}
    fits = failures = 0
    with _recorded_warnings() as caught:
        values["huber_svm"] = _baseline_errors(
            partial(_huber_svm, huber_h), lambdas, data
        )
        fits += len(lambdas)
        make = partial(_linear_estimator, lambdas[0], huber_h)
        for m_idx, method in enumerate(methods):
            error = partial(_tuned_error, make, method, lambdas, data)
            values[method], failed = plan.errors(error, 1 + m_idx)
            failures += failed
            fits += values[method].size * len(lambdas)
    values["n_train"] = int(data[0].shape[0])
    return _Outcome(values, fits, _record(caught), failures)


def _tuning_context(method: str) -> AbstractContextManager[None]:
    """Opt the paper's non-private "2009" methods into private tuning, explicitly.

    The "2009" methods are Sarwate et al. (2009)'s calibration as printed (not
    private);
    tuning them with Algorithm 3 only reproduces the paper's curves. Their
    events stay :class:`~dpsvm.accounting.NonPrivateEvent` and no accountant is
    involved (:func:`~dpsvm.accounting.allow_non_private`).
    """
    if method.endswith("_2009"):
        return allow_non_private(f"reproduce sarwate2009: {method}, paper as printed")
    return nullcontext()


def _kernel_models(
    gamma: float,
    n_components: int,
    huber_h: float,
    lam: float,
    feature_seed: int,
) -> tuple[Any, Callable[[str, float], Any]]:
    from ..models.kernel import DPKernelSVC, NonPrivateRandomFeatureSVC

    # The same random features, loss and λ for the non-private reference and
    # every private method.
    common: dict[str, Any] = {
        "kernel": "rbf",
        "gamma": gamma,
        "n_components": n_components,
        "huber_h": huber_h,
        "regularization": lam,
        "classes": _CLASSES,
        "feature_random_state": feature_seed,
    }
    rr = NonPrivateRandomFeatureSVC(
        feature_map="cos-phase", norm_handling="paper", loss="huber", **common
    )

    def private(method: str, eps: float) -> Any:
        # No random_state: the caller lends its generator for the fit only.
        return DPKernelSVC(
            mechanism="objective-2009" if method == "alg2_2009" else "objective",
            norm_handling="paper" if method == "alg2_2009" else "clip",
            epsilon=eps,
            **common,
        )

    return rr, private


def _kernel_grid_job(
    fold: _Fold, lam: float, plan: _Draws, config: ReproductionConfig, feature_seed: int
) -> _Outcome:
    """One (projection, Λ) cell of the kernel experiment."""
    data = fold.data()
    values: dict[str, Any] = {}
    fits = failures = 0
    with _recorded_warnings() as caught:
        rr, private = _kernel_models(
            config.nb_gamma, config.nb_components, config.huber_h, lam, feature_seed
        )
        values["rr_svm"] = _test_error(rr.fit(data[0], data[1]), data[2], data[3])
        fits += 1
        for m_idx, method in enumerate(_KERNEL_PRIVATE):
            # The features once; the draws of each ε solved together.
            make, Ztr, Zte = kernel_features(
                private(method, plan.epsilons[0]), data[0], data[1], data[2]
            )
            values[method], failed = objective_errors(
                make, *plan.batch((Ztr, data[1], Zte, data[3]), m_idx)
            )
            failures += failed
            fits += values[method].size
    return _Outcome(values, fits, _record(caught), failures)


def _kernel_lc_job(
    fold: _Fold, size: int, plan: _Draws, config: ReproductionConfig, feature_seed: int
) -> _Outcome:
    """One (projection, N) point of the nested-balls learning curve (one ε)."""
    data = fold.data(size, (*plan.seed_key, 0))
    lambdas = config.tuning_lambdas
    shape = (config.nb_gamma, config.nb_components, config.huber_h)
    (eps,) = plan.epsilons
    values: dict[str, Any] = {}
    fits = failures = 0
    with _recorded_warnings() as caught:
        values["rr_svm"] = _baseline_errors(
            lambda lam: _kernel_models(*shape, lam, feature_seed)[0], lambdas, data
        )
        fits += len(lambdas)
        _, private = _kernel_models(*shape, lambdas[0], feature_seed)
        for m_idx, method in enumerate(_KERNEL_PRIVATE):
            # One ε: the generator of method m is _rng(*seed_key, 1 + m).
            error = partial(_tuned_error, private, method, lambdas, data, eps)
            errs, failed = _draw_errors(
                error, _rng(*plan.seed_key, 1 + m_idx), plan.draws
            )
            values[method] = errs.reshape(1, plan.draws)
            failures += failed
            fits += plan.draws * len(lambdas)
    values["n_train"] = int(data[0].shape[0])
    return _Outcome(values, fits, _record(caught), failures)


def _svc_job(fold: _Fold, lam: float, config: ReproductionConfig) -> _Outcome:
    """The exact Gaussian-kernel hinge SVM (libsvm, with bias) on a subsample."""
    from sklearn.svm import SVC

    Xtr, ytr, Xte, yte = fold.data(config.nb_svc_rows, (7,))
    with _recorded_warnings() as caught:
        clf = SVC(kernel="rbf", gamma=config.nb_gamma, C=1.0 / (ytr.size * lam))
        err = _test_error(clf.fit(Xtr, ytr), Xte, yte)
    values = {"kernel_svm": err, "n_train": int(ytr.size)}
    return _Outcome(values, 1, _record(caught))


# ---------------------------------------------------------------------------
# Scheduling
# ---------------------------------------------------------------------------


@dataclass
class _Job:
    kind: str
    key: tuple[Any, ...]
    fn: Callable[..., _Outcome]
    args: tuple[Any, ...]
    n_fits: int
    cost: float  # rows × features of the fits; seconds once calibrated
    cost_kind: str  # "linear" or "kernel": which timing calibrates it
    lam: float | None = None  # Λ of a grid job (its solve time depends on it)


def _tuned_job_size(
    m: int, private_fits: int, rows: int, width: int
) -> tuple[int, float]:
    """(fits, cost) of a learning-curve job: m reference fits, private tuned fits.

    Algorithm 3 trains each of its m candidates on 1/(m + 1) of the rows.
    """
    return m + private_fits, (m + private_fits / (m + 1)) * rows * width


def _build_jobs(
    datasets: dict[str, Dataset], config: ReproductionConfig, methods: tuple[str, ...]
) -> list[_Job]:
    seed, huber_h = config.seed, config.huber_h
    m = len(config.tuning_lambdas)
    jobs: list[_Job] = []
    key: tuple[Any, ...]
    args: tuple[Any, ...]
    # Λ × ε grids (Figures 3(a), 3(b) and the compact Adult column): fold × Λ.
    grid_specs: list[tuple[str, tuple[float, ...], tuple[float, ...]]] = [
        ("adult", config.adult_lambdas, config.adult_epsilons)
    ]
    if "adult-compact" in datasets:
        grid_specs.append(
            ("adult-compact", config.adult_lambdas, config.compact_epsilons)
        )
    if "kdd" in datasets:
        grid_specs.append(("kdd", config.kdd_lambdas, config.kdd_epsilons))
    compact_methods = tuple(x for x in methods if x != "lr_2009")
    for d_idx, (name, lambdas, epsilons) in enumerate(grid_specs):
        ds = datasets[name]
        ms = compact_methods if name == "adult-compact" else methods
        n_fits = 1 + sum(len(epsilons) * config.draws for x in ms if x != "sensitivity")
        for f, (tr, te) in enumerate(ds.splits):
            fold = _Fold(ds.X, ds.y, tr, te)
            for l_idx, lam in enumerate(lambdas):
                key = (name, f, l_idx)
                plan = _Draws(epsilons, config.draws, (seed, 100 + d_idx, *key[1:]))
                args = (fold, lam, plan, ms, huber_h)
                cost = n_fits * tr.size * ds.X.shape[1]
                jobs.append(
                    _Job("grid", key, _grid_job, args, n_fits, cost, "linear", lam)
                )
    # Linear learning curves (Figure 1): fold × training-set size.
    lc_specs: list[tuple[str, tuple[int, ...], tuple[float, ...]]] = [
        ("adult", config.adult_lc_sizes, (config.adult_lc_epsilon,))
    ]
    if "kdd" in datasets:
        lc_specs.append(("kdd", config.kdd_lc_sizes, config.kdd_lc_epsilons))
    for d_idx, (name, sizes, epsilons) in enumerate(lc_specs):
        ds = datasets[name]
        private_fits = len(config.lc_methods) * len(epsilons) * config.lc_draws * m
        for f, (tr, te) in enumerate(ds.splits):
            fold = _Fold(ds.X, ds.y, tr, te)
            for s_idx, size in enumerate(sizes):
                key = (name, f, s_idx)
                plan = _Draws(epsilons, config.lc_draws, (seed, 200 + d_idx, f, s_idx))
                args = (fold, size, plan, config.lc_methods, config.tuning_lambdas)
                n_fits, cost = _tuned_job_size(
                    m, private_fits, min(size, tr.size), ds.X.shape[1]
                )
                jobs.append(
                    _Job("lc", key, _lc_job, (*args, huber_h), n_fits, cost, "linear")
                )
    # Nested balls (Figures 1(c), 1(f), 2(b)): projection × Λ, projection × size.
    nb = datasets["nested-balls"]
    tr, te = nb.splits[0]
    fold = _Fold(nb.X, nb.y, tr, te)
    D = config.nb_components
    for p in range(config.nb_projections):
        feature_seed = _int_seed(seed, 300, p)
        for l_idx, lam in enumerate(config.nb_lambdas):
            n_fits = 1 + 2 * len(config.nb_epsilons) * config.draws
            plan = _Draws(config.nb_epsilons, config.draws, (seed, 301, p, l_idx))
            args = (fold, lam, plan, config, feature_seed)
            key = ("nested-balls", p, l_idx)
            cost = n_fits * tr.size * D
            jobs.append(
                _Job("kgrid", key, _kernel_grid_job, args, n_fits, cost, "kernel")
            )
        for s_idx, size in enumerate(config.nb_lc_sizes):
            plan = _Draws(
                (config.nb_lc_epsilon,), config.lc_draws, (seed, 302, p, s_idx)
            )
            args = (fold, size, plan, config, feature_seed)
            key = ("nested-balls", p, s_idx)
            n_fits, cost = _tuned_job_size(
                m, 2 * config.lc_draws * m, min(size, tr.size), D
            )
            jobs.append(_Job("klc", key, _kernel_lc_job, args, n_fits, cost, "kernel"))
    # libsvm: roughly quadratic in n; scaled to the RFF fit unit.
    n_svc = min(config.nb_svc_rows, tr.size)
    for l_idx, lam in enumerate(config.nb_lambdas):
        key, args = ("nested-balls", 0, l_idx), (fold, lam, config)
        cost = float(n_svc) * n_svc / 50.0
        jobs.append(_Job("svc", key, _svc_job, args, 1, cost, "kernel"))
    return jobs


def _calibrate(
    datasets: dict[str, Dataset], config: ReproductionConfig
) -> dict[str, Any]:
    """Seconds per unit of cost, from timed batched cells.

    At every Λ of the Adult grid, one cell of Algorithm 1 as printed (the
    slowest method: no Δ, so the least strongly convex problem) with
    ``min(draws, 10)`` draws on the first Adult training fold; and one such
    cell of Algorithm 2 as printed on the nested-balls training set. Cells are
    solved as in the run (:func:`._cells.objective_errors`), so the per-fit
    times are those of a batched draw (a cell of 50 draws amortises a little
    more, so the estimate errs long).
    """
    draws = min(config.draws, 10)
    ds = datasets["adult"]
    tr, te = ds.splits[0]
    data = (ds.X[tr], ds.y[tr], ds.X[te], ds.y[te])
    by_lambda: dict[float, float] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for lam in config.adult_lambdas:
            make = partial(_linear_estimator, lam, config.huber_h, "alg1_2009")
            t0 = time.perf_counter()
            objective_errors(make, (0.1,), *data, [_rng(config.seed, 999)], draws)
            by_lambda[lam] = (time.perf_counter() - t0) / draws
        nb = datasets["nested-balls"]
        ntr, nte = nb.splits[0]
        _, private = _kernel_models(
            config.nb_gamma,
            config.nb_components,
            config.huber_h,
            config.nb_lambdas[0],
            _int_seed(config.seed, 998),
        )
        t0 = time.perf_counter()
        make, Ztr, Zte = kernel_features(
            private("alg2_2009", 0.1), nb.X[ntr], nb.y[ntr], nb.X[nte]
        )
        objective_errors(
            make,
            (0.1,),
            Ztr,
            nb.y[ntr],
            Zte,
            nb.y[nte],
            [_rng(config.seed, 998)],
            draws,
        )
        t_ker = (time.perf_counter() - t0) / draws
    size = tr.size * ds.X.shape[1]
    times = list(by_lambda.values())
    return {
        "linear": float(np.mean(times)) / size,
        "linear_by_lambda": {lam: t / size for lam, t in by_lambda.items()},
        "kernel": t_ker / (ntr.size * config.nb_components),
        "calibration_draws": draws,
        "linear_fit_seconds": {f"{lam:g}": t for lam, t in by_lambda.items()},
        "kernel_fit_seconds": t_ker,
    }


def _unit_cost(job: _Job, calib: dict[str, Any]) -> float:
    """Seconds per cost unit of a job (per-Λ for the linear grids)."""
    if job.cost_kind == "linear" and job.lam is not None:
        table = calib["linear_by_lambda"]
        target = math.log10(job.lam)
        near = min(table, key=lambda v: abs(math.log10(v) - target))
        return float(table[near])
    return float(calib[job.cost_kind])


def _run_jobs(
    jobs: list[_Job], n_jobs: int, progress: Progress
) -> dict[tuple[Any, ...], _Outcome]:
    results: dict[tuple[Any, ...], _Outcome] = {}
    if n_jobs == 1:
        for i, job in enumerate(jobs):
            _, out = _call_job(i, job.fn, job.args)
            results[(job.kind, *job.key)] = out
            progress.advance(job.n_fits, job.cost)
        return results
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    # Longest first (estimated), so that no long job starts last.
    order = sorted(range(len(jobs)), key=lambda i: -jobs[i].cost)
    calls = (delayed(_call_job)(i, jobs[i].fn, jobs[i].args) for i in order)
    for i, out in parallel(calls):
        job = jobs[i]
        results[(job.kind, *job.key)] = out
        progress.advance(job.n_fits, job.cost)
    return results


def _call_job(
    i: int, fn: Callable[..., _Outcome], args: tuple[Any, ...]
) -> tuple[int, _Outcome]:
    start, cpu = time.perf_counter(), time.process_time()
    out = fn(*args)
    out.seconds = time.perf_counter() - start
    out.cpu_seconds = time.process_time() - cpu
    return i, out


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


# ---------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------


def _load_average() -> list[float] | None:
    """The 1, 5 and 15-minute load averages (None where the OS has none)."""
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except (AttributeError, OSError):  # pragma: no cover - Windows
        return None


def _environment(n_jobs: int) -> dict[str, Any]:
    import scipy
    import sklearn

    from .. import __version__

    return {
        "dpsvm": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "n_jobs": n_jobs,
    }


def run_experiments(
    datasets: dict[str, Dataset],
    config: ReproductionConfig,
    *,
    n_jobs: int = 1,
    log: TextIO | None = None,
    progress: TextIO | None = None,
) -> dict[str, Any]:
    """Run every experiment and aggregate the error rates.

    Parameters
    ----------
    datasets : dict of str to Dataset
        From :func:`load_datasets`.
    config : ReproductionConfig
        The run settings.
    n_jobs : int, default=1
        Worker processes (joblib); 1 runs in this process.
    log : text stream, optional
        Where the time estimate is printed before the work starts.
    progress : text stream, optional
        Where the progress line goes (None: no progress line).

    Returns
    -------
    dict
        JSON-ready results: ``"grids"`` (per data set), ``"learning_curves"``,
        ``"kernel"``, ``"kernel_learning_curve"``, ``"timing"``,
        ``"warnings"``, ``"failures"``, ``"diffprivlib"``, ``"environment"``.

    Examples
    --------
    >>> from dpsvm.reproduce import make_config
    >>> run_experiments({}, make_config("tiny"))  # doctest: +SKIP
    """
    methods = tuple(
        m for m in config.methods if m != "diffprivlib_lr" or _diffprivlib_available()
    )
    diffprivlib_note = (
        "diffprivlib imported: its LogisticRegression is in the grids"
        if "diffprivlib_lr" in methods
        else "diffprivlib is not installed (import failed): its LogisticRegression "
        "is skipped. It does not import with scikit-learn >= 1.8; "
        "benchmarks/bench_linear.py runs it in a side environment"
    )
    jobs = _build_jobs(datasets, config, methods)
    # Time the calibration fits with the BLAS threads a worker will have
    # (joblib gives each of n_jobs workers cpu_count // n_jobs threads).
    threads = max(1, (os.cpu_count() or 1) // n_jobs) if n_jobs > 1 else None
    with threadpool_limits(limits=threads):
        calib = _calibrate(datasets, config)
    for j in jobs:
        j.cost *= _unit_cost(j, calib)  # now in estimated seconds
    estimate = sum(j.cost for j in jobs) / max(1, n_jobs)
    n_fits = sum(j.n_fits for j in jobs)
    if log is not None:
        lin = list(calib["linear_fit_seconds"].values())
        log.write(
            f"sarwate2009 ({config.mode}): {len(jobs)} jobs, about {n_fits} fits; "
            f"one Adult fit (batched draws) took {min(lin):.3f}-{max(lin):.3f} s over "
            f"the Λ grid and one nested-balls fit "
            f"{calib['kernel_fit_seconds']:.3f} s, so the "
            f"expected time is about {format_duration(estimate)} with "
            f"{n_jobs} worker{'s' * (n_jobs != 1)}.\n"
        )
        log.flush()
    bar = Progress(n_fits, sum(j.cost for j in jobs), progress, label="sarwate2009")
    load_start = _load_average()
    start, cpu_start = time.perf_counter(), time.process_time()
    outcomes = _run_jobs(jobs, n_jobs, bar)
    bar.close()
    elapsed = time.perf_counter() - start
    main_cpu = time.process_time() - cpu_start
    load_end = _load_average()

    grids: dict[str, Any] = {}
    for name, lambdas, epsilons in (
        ("adult", config.adult_lambdas, config.adult_epsilons),
        ("adult-compact", config.adult_lambdas, config.compact_epsilons),
        ("kdd", config.kdd_lambdas, config.kdd_epsilons),
    ):
        if name not in datasets:
            continue
        ms = tuple(
            m for m in methods if not (name == "adult-compact" and m == "lr_2009")
        )
        grids[name] = _aggregate_grid(
            outcomes, name, len(datasets[name].splits), lambdas, epsilons, ms
        )
    curves: dict[str, Any] = {
        "adult": _aggregate_lc(
            outcomes,
            "adult",
            len(datasets["adult"].splits),
            config.adult_lc_sizes,
            (config.adult_lc_epsilon,),
            config.lc_methods,
            config.tuning_lambdas,
        )
    }
    if "kdd" in datasets:
        curves["kdd"] = _aggregate_lc(
            outcomes,
            "kdd",
            len(datasets["kdd"].splits),
            config.kdd_lc_sizes,
            config.kdd_lc_epsilons,
            config.lc_methods,
            config.tuning_lambdas,
        )
    curves["nested-balls"] = _aggregate_lc(
        outcomes,
        "nested-balls",
        config.nb_projections,
        config.nb_lc_sizes,
        (config.nb_lc_epsilon,),
        _KERNEL_PRIVATE,
        config.tuning_lambdas,
        kind="klc",
        reference="rr_svm",
    )
    by_kind: dict[str, float] = {}
    cpu_by_kind: dict[str, float] = {}
    for key, out in outcomes.items():
        by_kind[key[0]] = by_kind.get(key[0], 0.0) + out.seconds
        cpu_by_kind[key[0]] = cpu_by_kind.get(key[0], 0.0) + out.cpu_seconds
    warn_counts: dict[str, int] = {}
    for out in outcomes.values():
        for w in out.warnings:
            warn_counts[w] = warn_counts.get(w, 0) + 1
    return {
        "grids": grids,
        "kernel": _aggregate_kernel(outcomes, config),
        "learning_curves": curves,
        "methods_run": list(methods),
        "diffprivlib": diffprivlib_note,
        "failures": int(sum(o.failures for o in outcomes.values())),
        "warnings": [{"message": k, "jobs": v} for k, v in sorted(warn_counts.items())],
        "timing": {
            "estimated_seconds": estimate,
            "elapsed_seconds": elapsed,
            "n_jobs_run": len(jobs),
            "n_fits": n_fits,
            # Summed job times (worker seconds) per job kind: grid = Λ × ε
            # grids, lc = linear learning curves, kgrid / klc = kernel grid /
            # learning curve, svc = exact kernel SVM.
            "job_seconds_by_kind": by_kind,
            # CPU seconds of the jobs (process time in the worker that ran
            # them) and of this process while they ran (n_jobs = 1: the same).
            "job_cpu_seconds_by_kind": cpu_by_kind,
            "cpu_seconds": float(sum(cpu_by_kind.values()))
            + (0.0 if n_jobs == 1 else main_cpu),
            # Load averages (1, 5, 15 min) before and after the jobs: the
            # machine may be shared, which stretches the wall time.
            "load_average_start": load_start,
            "load_average_end": load_end,
            **calib,
        },
        "environment": _environment(n_jobs),
    }

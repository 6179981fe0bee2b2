# SPDX-License-Identifier: BSD-3-Clause
"""The jobs of the Sarwate et al. (2009) reproduction (run in workers).

A job is one cross-validation fold × one Λ (a grid cell: the non-private
Huber SVM, then every method × ε × noise draw), one fold × one training-set
size (a learning-curve point, Algorithm 3 tuning), one random projection × one
Λ of the kernel experiment, or one exact kernel SVM. Objective-perturbation
draws of a cell are released together (:mod:`._cells`), with the generators a
loop of ``fit`` calls would use.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..accounting import allow_non_private
from ..exceptions import DPSVMConvergenceError
from ..models import DPLinearSVC, DPLogisticRegression, NonPrivateLinearClassifier
from ..perturbation import OutputPerturbation, output_l2_sensitivity
from ..utils._random import lend_generator
from ._cells import kernel_features, objective_errors
from ._config import ReproductionConfig
from ._data import _recorded_warnings, _subsample
from ._methods import _KERNEL_PRIVATE

__all__ = ["output_perturbation_from_solution"]

FloatArray = NDArray[np.float64]
#: (training rows, training labels, test rows, test labels) of one fit.
_Data = tuple[FloatArray, NDArray[np.int64], FloatArray, NDArray[np.int64]]
#: ``make(method, eps) -> unfitted estimator`` of a private method (no random_state:
#: the caller lends its generator for the fit, dpsvm.utils._random.lend_generator).
_Maker = Callable[[str, float], Any]
_CLASSES = [-1, 1]


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

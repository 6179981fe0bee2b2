# SPDX-License-Identifier: BSD-3-Clause
"""The exact bias-free kernel hinge SVM (Rubinstein et al., arXiv:0911.5708, Alg. 1).

:class:`~dpsvm.models.NonPrivateKernelSVC` solves the problem that the private
random-feature models of :mod:`dpsvm.models.kernel` approximate, in the RKHS of
the kernel, through its dual with the box 0 ≤ αᵢ ≤ C/n and **no** equality
constraint (libsvm's ``SVC`` fits a bias and solves a different problem),
certified by its duality gap. It offers no privacy; it is the reference of the
benchmarks and reproductions.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._compat import Interval, StrOptions, _fit_context, validate_data
from ..kernels import EXACT_KERNELS, kernel_matrix
from ..solvers import solve_kernel_hinge_dual
from ..utils._types import FloatArray
from ._random_features import _PublicGammaFitMixin
from .base import ScoreColumnsMixin, one_vs_rest_targets, reference_label_set

__all__ = ["NonPrivateKernelSVC"]


class NonPrivateKernelSVC(
    _PublicGammaFitMixin, ScoreColumnsMixin, ClassifierMixin, BaseEstimator
):
    """Exact bias-free kernel hinge SVM (Rubinstein et al. Alg. 1). No privacy.

    Solves (1/n)Σ max(0, 1 − yᵢf(xᵢ)) + (Λ/2)‖f‖²_H over the RKHS of the kernel, i.e.
    Rubinstein et al.'s ½‖w‖² + (C/n)Σ hinge with C = 1/Λ, through its dual (eq. (5.1)):
    0 ≤ αᵢ ≤ C/n and **no** equality constraint, so that it is the problem the private
    random-feature models approximate. scikit-learn's ``SVC`` (libsvm) always fits a
    bias and therefore solves another problem. The solution is certified by its duality
    gap. Builds the n × n kernel matrix: for n up to a few thousand.

    Parameters
    ----------
    kernel : {"rbf", "gaussian", "laplacian", "cauchy", "linear", "poly"}, \
            default="rbf"
        The kernel (see :func:`~dpsvm.kernels.kernel_matrix`).
    gamma : float, default=1.0
        Width of the translation-invariant kernels.
    degree : int, default=2
        Degree of ``"poly"``, (coef0 + xᵀy)^degree.
    coef0 : float, default=1.0
        Offset of ``"poly"``.
    regularization : float, default=0.01
        Λ > 0 (C = 1/Λ; dual box C/n = 1/(nΛ)).
    classes : array-like or None, default=None
        Label set (``None``: read from y).
    tol : float, default=1e-12
        Target duality gap in the Λ normalisation (J(f) − J(f*) ≤ gap).
    max_iter : int, default=100
        Budget of the dual solver: coordinate-descent epochs, and Newton
        iterations per ridge level (see :func:`solve_kernel_hinge_dual`).

    Attributes
    ----------
    support_ : ndarray of shape (n_support,)
        Indices of the training rows with αᵢ > 0 for some class.
    support_vectors_ : ndarray of shape (n_support, n_features)
        Those rows (**training data: this model is not private**).
    dual_coef_ : ndarray of shape (1, n_support) or (n_classes, n_support)
        αᵢyᵢ, so that f(x) = Σᵢ dual_coef_ᵢ k(x, support_vectors_ᵢ).
    duality_gap_ : ndarray of shape (1,) or (n_classes,)
        Gap of each binary problem in the Λ normalisation (an upper bound on
        J(f) − J(f*)).
    distance_bound_ : ndarray of shape (1,) or (n_classes,)
        Certified ‖f − f*‖_H ≤ √(2·gap/Λ); for a kernel with k(x, x) ≤ 1 it also
        bounds sup_x |f(x) − f*(x)|.
    classes_ : ndarray
        The label set.
    n_iter_ : ndarray
        Solver iterations per binary problem.
    n_features_in_ : int
        Number of input columns.

    Examples
    --------
    >>> from dpsvm.datasets import make_nested_balls
    >>> from dpsvm.models import NonPrivateKernelSVC
    >>> X, y = make_nested_balls(500, random_state=0)
    >>> clf = NonPrivateKernelSVC(gamma=0.5, regularization=1e-3).fit(X, y)
    >>> bool(clf.score(X, y) > 0.85), bool(clf.duality_gap_[0] < 1e-9)
    (True, True)
    """

    _parameter_constraints: dict[str, list[Any]] = {
        "kernel": [StrOptions(set(EXACT_KERNELS))],
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, 0, None, closed="left")],
        "regularization": [Interval(Real, 0, None, closed="neither")],
        "classes": ["array-like", None],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        *,
        kernel: str = "rbf",
        gamma: float = 1.0,
        degree: int = 2,
        coef0: float = 1.0,
        regularization: float = 0.01,
        classes: ArrayLike | None = None,
        tol: float = 1e-12,
        max_iter: int = 100,
    ) -> None:
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.regularization = regularization
        self.classes = classes
        self.tol = tol
        self.max_iter = max_iter

    def _kernel(self, A: FloatArray, B: FloatArray) -> FloatArray:
        return kernel_matrix(
            A,
            B,
            kernel=self.kernel,
            gamma=self.gamma,
            degree=self.degree,
            coef0=self.coef0,
        )

    @_fit_context(prefer_skip_nested_validation=True)
    def _fit(self, X: Any, y: Any) -> NonPrivateKernelSVC:
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        y = np.asarray(y)
        self.classes_ = classes = reference_label_set(self.classes, y)
        targets = one_vs_rest_targets(y, classes)
        n = X.shape[0]
        K = self._kernel(X, X)
        box = 1.0 / (
            n * self.regularization
        )  # C/n with C = 1/Λ (Rubinstein et al. eq. (5.1))
        alphas, gaps, iters = [], [], []
        for t in targets:
            alpha, gap, it = solve_kernel_hinge_dual(
                K, t, box, tol=self.tol, max_iter=self.max_iter
            )
            alphas.append(alpha * t)
            # J = Λ·P_R, so gap_J = Λ·gap_R; ‖w − w*‖ ≤ √(2·gap_R).
            gaps.append(self.regularization * gap)
            iters.append(it)
        A = np.vstack(alphas)
        support = np.flatnonzero(np.any(A != 0.0, axis=0))
        self.support_ = support
        self.support_vectors_ = X[support]
        self.dual_coef_ = A[:, support]
        self.duality_gap_ = np.array(gaps)
        self.distance_bound_ = np.sqrt(2.0 * self.duality_gap_ / self.regularization)
        self.n_iter_ = np.array(iters)
        worst = float(np.max(self.duality_gap_))
        if worst > 1e3 * self.tol:
            warnings.warn(
                f"NonPrivateKernelSVC stopped with duality gap {worst:.3g}; "
                "increase max_iter.",
                ConvergenceWarning,
                stacklevel=3,
            )
        return self

    def _scores(self, X: ArrayLike) -> FloatArray:
        # f(x) = Σᵢ αᵢyᵢ k(x, xᵢ), no bias.
        check_is_fitted(self)
        Xa = np.asarray(validate_data(self, X, dtype=np.float64, reset=False))
        if self.support_vectors_.shape[0] == 0:
            return np.zeros((Xa.shape[0], self.dual_coef_.shape[0]))
        return self._kernel(Xa, self.support_vectors_) @ self.dual_coef_.T

# SPDX-License-Identifier: BSD-3-Clause
"""Shared pieces of the private prediction learners (Jain & Thakurta, ICML 2013).

The three learners fit the exact, certified, bias-free kernel ERM of Jain &
Thakurta eq. (2), (1/n)Σℓ(⟨w, φ(x)⟩; y) + (λ/2)‖w‖², through the Nie–Wang
kernel layer (:mod:`dpsvm.models._nie_wang_kernel`: λ_JT = Λ = ``regularization``)
and keep it private. This module adds user kernels with a declared bound R_φ.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.metrics.pairwise import linear_kernel

from .._compat import Interval, StrOptions, validate_data
from ..models._nie_wang_base import KernelSpec
from ..models._nie_wang_kernel import _NWKernelBase
from ..utils._docs import fill_doc

__all__ = ["CallableKernelSpec", "PredictionBase", "VacuousCalibrationWarning"]

FloatArray = NDArray[np.float64]

JT_REFERENCE = (
    "Jain & Thakurta, 'Differentially private learning with kernels', ICML 2013"
)

#: numpydoc fragments shared by the prediction learners (``%(name)s`` lines).
DOC_FRAGMENTS = {
    "kernel_family": """    K(x, y) = ⟨x, y⟩, exp(−γ‖x − y‖²), (γ⟨x, y⟩ + c₀)^p, or a
    callable ``K(A, B) -> gram`` with ``kernel_bound`` declared.
gamma : float, default=1.0
    γ > 0 (rbf, poly), fixed before seeing the data.
degree : int, default=3
    p (poly).
coef0 : float, default=1.0
    c₀ ≥ 0 (poly).""",
    "kernel_bound": """kernel_bound : float or None, default=None
    R_φ of a callable kernel (required for one, refused otherwise).""",
    "regularization": """regularization : float, default=0.01
    λ > 0 of (λ/2)‖w‖² (public, not tuned on the data).""",
    "public_model_tail": """classes : array-like or None, default=None
    The public label set (two labels); ``None`` reads it from y with a
    :class:`~dpsvm.exceptions.PrivacyLeakWarning`.
random_state : None, int or numpy.random.Generator, default=None
    ``None``: CSPRNG noise (real use). An int: **tests and docs only**.""",
    "model_attributes": """classes_ : ndarray
    The label set.
kappa_ : float
    R_φ on the declared domain.
prediction_sensitivity_ : float
    S = 2LR_φ²/(λn) plus the solver-certificate margin.""",
    "queries_to_array": """Parameters
----------
X : array-like of shape (n_queries, n_features)
    Query points (projected onto the declared domain).

Returns
-------
ndarray of shape (n_queries,)""",
}

prediction_doc = fill_doc(DOC_FRAGMENTS)


class VacuousCalibrationWarning(UserWarning):
    """A calibration is private but cannot be useful.

    Raised when the update threshold σ of the interactive predictor is at least
    C·R_φ, the largest possible |prediction|: no genuine update can then occur
    and every answer is the public state's prediction (Jain & Thakurta Alg. 1
    with its theorem constants is vacuous below very large n).
    """


@dataclass(frozen=True)
class CallableKernelSpec(KernelSpec):
    """A user kernel K(A, B) -> gram matrix with a declared bound R_φ.

    Parameters
    ----------
    kernel : str
        Always ``"callable"``.
    gamma : float
        Unused (kept for the parent's interface).
    degree : int
        Unused.
    coef0 : float
        Unused.
    data_norm : float or None
        Radius of the declared input domain (rows are projected onto it), or
        ``None`` for no projection (the bound must then hold on all inputs).
    func : callable
        ``func(A, B)`` returns the (len(A), len(B)) gram matrix.
    bound : float
        R_φ ≥ sup √K(x, x) over the domain: a public declaration; the privacy
        guarantee depends on it.

    Examples
    --------
    >>> spec = CallableKernelSpec("callable", 1.0, 1, 0.0, 1.0,
    ...                           func=lambda A, B: A @ B.T, bound=1.0)
    >>> spec.kappa, spec.gram(np.eye(2), np.eye(2)).tolist()
    (1.0, [[1.0, 0.0], [0.0, 1.0]])
    """

    func: Callable[[FloatArray, FloatArray], ArrayLike] = field(
        default=linear_kernel, compare=False
    )
    bound: float = 1.0

    @property
    def kappa(self) -> float:
        """The declared R_φ."""
        return float(self.bound)

    def gram(self, A: FloatArray, B: FloatArray) -> FloatArray:
        """K(A, B) on projected rows, checked for shape and finiteness."""
        G = np.asarray(self.func(A, B), dtype=np.float64)
        if G.shape != (A.shape[0], B.shape[0]) or not np.all(np.isfinite(G)):
            raise ValueError(
                "The kernel callable must return a finite gram matrix of shape "
                "(len(A), len(B))."
            )
        return G


class PredictionBase(_NWKernelBase):
    """The certified kernel ERM of the prediction learners (never released)."""

    #: Noisy calls answered since ``fit`` (releases that draw noise after fit).
    _n_noise_calls: int

    _parameter_constraints: dict[str, Any] = {
        **_NWKernelBase._parameter_constraints,
        "kernel": [StrOptions({"linear", "rbf", "poly"}), callable],
        "kernel_bound": [Interval(Real, 0, None, closed="neither"), None],
    }

    def _kernel_spec(self, X: FloatArray) -> KernelSpec:
        if callable(self.kernel):
            if self.kernel_bound is None:
                raise ValueError(
                    "A callable kernel needs kernel_bound, a public bound R_φ on "
                    "sqrt(K(x, x)) over the declared domain."
                )
            return CallableKernelSpec(
                "callable",
                1.0,
                1,
                0.0,
                None if self.data_norm is None else float(self.data_norm),
                func=self.kernel,
                bound=float(self.kernel_bound),
            )
        if self.kernel_bound is not None:
            raise ValueError(
                "kernel_bound is only for a callable kernel; the built-in kernels "
                "compute R_φ from data_norm."
            )
        return super()._kernel_spec(X)

    def _project(self, X: ArrayLike) -> FloatArray:
        """Validate query rows and project them onto the declared domain."""
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._model.spec.project(np.asarray(X, dtype=np.float64))

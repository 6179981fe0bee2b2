# SPDX-License-Identifier: BSD-3-Clause
"""Shared pieces of the private prediction learners (Jain & Thakurta, ICML 2013).

The three learners fit the exact, certified, bias-free kernel ERM of Jain &
Thakurta eq. (2), (1/n)Σℓ(⟨w, φ(x)⟩; y) + (λ/2)‖w‖², through the certified
kernel ERM of the models (:class:`dpsvm.models.kernel_erm.KernelERMBase`:
λ_JT = Λ = ``regularization``) and keep it private. This module adds user
kernels with a declared bound R_φ.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.metrics.pairwise import linear_kernel
from sklearn.utils.validation import check_is_fitted

from .._compat import Interval, StrOptions, validate_data
from ..accounting.events import PrivacyEvent
from ..models.kernel_erm import KernelERMBase, KernelSpec

__all__ = [
    "CallableKernelSpec",
    "InteractiveBudgetMixin",
    "PredictionBase",
    "VacuousCalibrationError",
    "VacuousCalibrationWarning",
]

FloatArray = NDArray[np.float64]

JT_REFERENCE = (
    "Jain & Thakurta, 'Differentially private learning with kernels', ICML 2013"
)


class InteractiveBudgetMixin:
    """The budget read-outs of a predictor that answers queries after ``fit``.

    ``privacy_event_`` is the (ε, δ) of all answers, fixed at fit; ``_spent``
    and ``_n_answers`` are what the answers given so far have charged.
    """

    privacy_event_: PrivacyEvent
    _spent: tuple[float, float]
    _n_answers: int

    @property
    def total_epsilon(self) -> float:
        """Total ε of all answers (fixed at fit)."""
        check_is_fitted(self)
        return self.privacy_event_.epsilon

    @property
    def total_delta(self) -> float:
        """Total δ of all answers (fixed at fit)."""
        check_is_fitted(self)
        return self.privacy_event_.delta

    @property
    def spent_epsilon(self) -> float:
        """ε charged so far."""
        check_is_fitted(self)
        return self._spent[0]

    @property
    def spent_delta(self) -> float:
        """δ charged so far."""
        check_is_fitted(self)
        return self._spent[1]

    @property
    def n_answers(self) -> int:
        """Number of answers given so far."""
        check_is_fitted(self)
        return self._n_answers


class VacuousCalibrationWarning(UserWarning):
    """A calibration is private but cannot be useful.

    Raised when the update threshold σ of the interactive predictor is at least
    C·R_φ, the largest possible |prediction|: no genuine update can then occur
    and every answer is the public state's prediction (Jain & Thakurta Alg. 1
    with its theorem constants is vacuous below very large n).
    """


#: Per-query Laplace is refused as vacuous when even the largest possible score
#: C·R_φ moves the probability of the right label by less than this above 1/2.
LAPLACE_MIN_ADVANTAGE = 0.01


def smallest_useful(
    useful: Any, start: float, *, integer: bool = True, limit: float = 1e15
) -> float | None:
    """Smallest x ≥ ``start`` with ``useful(x)`` (monotone), or None below limit."""
    hi = float(start)
    while not useful(hi):
        hi *= 2.0
        if hi > limit:
            return None
    lo = float(start)
    if hi == lo:
        return lo
    for _ in range(64):
        mid = (lo + hi) / 2.0
        if integer:
            mid = math.floor(mid)
            if mid <= lo:
                break
        if useful(mid):
            hi = mid
        else:
            lo = mid
    return math.ceil(hi) if integer else hi


def refuse_vacuous(on_vacuous: str, message: str) -> None:
    """Raise :class:`VacuousCalibrationError` (``"raise"``) or warn (``"warn"``)."""
    if on_vacuous == "raise":
        raise VacuousCalibrationError(message)
    warnings.warn(message, VacuousCalibrationWarning, stacklevel=4)


class VacuousCalibrationError(ValueError):
    """A public configuration whose answers cannot differ from a constant.

    Raised by ``fit`` (and turned into exit status 2 by ``dpsvm serve``) when,
    from public quantities only (n, ε, δ, λ, T, the kernel bound), no answer
    can depend on the data: the interactive predictor's update threshold σ is
    at least C·R_φ, per-query Laplace noise drowns the largest possible score,
    or the sparse vector of subsample-and-aggregate refuses even a unanimous
    vote. The message names the smallest n, the largest number of queries or
    the ε that would work.
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


class PredictionBase(KernelERMBase):
    """The certified kernel ERM of the prediction learners (never released)."""

    #: Noisy calls answered since ``fit`` (releases that draw noise after fit).
    _n_noise_calls: int
    #: S of Jain & Thakurta eq. (3), plus the solver-certificate margin.
    prediction_sensitivity_: float

    _parameter_constraints: dict[str, Any] = {
        **KernelERMBase._parameter_constraints,
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

    def _prediction_event(
        self,
        mechanism: str,
        epsilon: float,
        delta: float,
        reference: str,
        details: dict[str, Any],
    ) -> PrivacyEvent:
        """The event of a release whose only access to the data is ⟨w*, φ(z)⟩.

        Every prediction learner reads w* only through single predictions,
        whose sup-norm sensitivity is ``prediction_sensitivity_`` = S
        (Jain & Thakurta eq. (3)); the event records it.
        """
        return PrivacyEvent(
            mechanism=mechanism,
            epsilon=epsilon,
            delta=delta,
            sensitivity=self.prediction_sensitivity_,
            sensitivity_norm="sup",
            reference=reference,
            details=details,
        )

    def _labels(self, scores: FloatArray) -> np.ndarray:
        """Labels from released scores; a score of exactly 0 gets a fair coin.

        A zero score carries no sign: mapping it to ``classes_[0]`` biased
        every vacuous answer towards one class (below-majority accuracy). The
        coin is drawn from its own stream (:meth:`_noise_generator`), so it is
        independent of the noise of the scores.
        """
        if self.loss != "hinge":
            return scores
        scores = np.asarray(scores, dtype=np.float64)
        idx = (scores > 0).astype(np.intp)
        ties = scores == 0.0
        if np.any(ties):
            idx[ties] = self._noise_generator().integers(0, 2, size=int(ties.sum()))
        return np.asarray(self.classes_[idx])

    def _project(self, X: ArrayLike) -> FloatArray:
        """Validate query rows and project them onto the declared domain."""
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._model.spec.project(np.asarray(X, dtype=np.float64))

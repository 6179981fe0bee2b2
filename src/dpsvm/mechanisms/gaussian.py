# SPDX-License-Identifier: BSD-3-Clause
"""The Gaussian mechanism with the analytic calibration of Balle & Wang (2018).

Balle & Wang (ICML 2018, arXiv:1805.06530v1), Theorem 8: adding N(0, σ²I) noise
to a function with L2 sensitivity Δ is (ε, δ)-DP **if and only if**

    Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) ≤ δ.

The left side decreases in σ, so the smallest admissible σ is the root of the
equation, which :class:`AnalyticGaussian` finds numerically (their Alg. 1 solves
the same equation after a change of variables). Unlike the classic calibration
σ = √(2 ln(1.25/δ))·Δ/ε (Dwork & Roth 2014, Thm A.1), it is valid for every
ε > 0 and never adds more noise than needed.

Releases (:meth:`AnalyticGaussian.randomise`) are exact over doubles by default
(``method="discrete"``): the value is rounded to a public grid 2^k and exact
discrete Gaussian noise is added (:func:`~dpsvm.mechanisms.gaussian_release`,
Canonne, Kamath & Steinke 2020). Theorem 8 is a statement about the continuous
Gaussian only, so that release is calibrated from the discrete Gaussian's own
zCDP guarantee (CKS20 Thm 14 and Cor. 13), which needs a slightly larger noise
multiplier (about 8 % at ε = 1, δ = 10⁻⁵): :attr:`release_noise_multiplier`.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import brentq
from scipy.special import log_ndtr

from ..utils._random import GeneratorLike
from ..validation import check_delta, check_epsilon, check_positive
from ._discrete_gaussian import gaussian_release, zcdp_noise_multiplier
from .base import Mechanism, ReadOnly

__all__ = ["AnalyticGaussian"]

_REFERENCE = (
    "Balle & Wang (2018), 'Improving the Gaussian mechanism for differential "
    "privacy: analytical calibration and optimal denoising', ICML, "
    "arXiv:1805.06530v1, Thm 8 and Alg. 1 (smallest sigma with "
    "Phi(D/(2s) - e*s/D) - exp(e)*Phi(-D/(2s) - e*s/D) <= delta)."
)

# log(delta(sigma)) is clamped below at this value so that root finding stays
# finite; any target delta is a float >= 5e-324, i.e. log(delta) > -745.
_LOG_DELTA_FLOOR = -1.0e4


def _log_delta(sigma: float, epsilon: float, sensitivity: float) -> float:
    """Return log δ(σ) of Balle & Wang (2018), Thm 8, computed in log space.

    δ(σ) = Φ(a) − e^ε Φ(b) with a = Δ/(2σ) − εσ/Δ and b = −Δ/(2σ) − εσ/Δ.
    Writing r = ε + log Φ(b) − log Φ(a) (< 0), δ = Φ(a)·(−expm1(r)), so
    log δ = log Φ(a) + log(−expm1(r)): no term overflows (e^ε is never formed)
    and the difference loses no precision when the two terms are close.
    """
    ratio = sensitivity / sigma
    inv = sigma / sensitivity
    a = 0.5 * ratio - epsilon * inv
    b = -0.5 * ratio - epsilon * inv
    log_phi_a = float(log_ndtr(a))
    # Balle & Wang (2018), arXiv:1805.06530v1, Thm 8: log of e^eps Phi(b) / Phi(a).
    r = epsilon + float(log_ndtr(b)) - log_phi_a
    if r >= 0.0:  # only reachable through rounding when delta(sigma) ~ 0
        return _LOG_DELTA_FLOOR
    return max(log_phi_a + math.log(-math.expm1(r)), _LOG_DELTA_FLOOR)


def _analytic_sigma(epsilon: float, delta: float, sensitivity: float) -> float:
    """Smallest σ with δ(σ) ≤ δ (Balle & Wang 2018, Thm 8), exact in float64."""
    log_target = math.log(delta)

    def excess(sigma: float) -> float:
        return _log_delta(sigma, epsilon, sensitivity) - log_target

    # Bracket the root: excess > 0 at lo (too little noise), <= 0 at hi. The
    # classic calibration's form sqrt(2 ln(1.25/delta)) * Delta / epsilon is a
    # good starting point; factors of 2 then reach any root in a few steps.
    start = math.sqrt(2.0 * math.log(1.25 / delta)) * sensitivity / epsilon
    if not 0.0 < start < 1e300:
        raise ValueError(
            "The Gaussian noise for these parameters is out of float64 range "
            f"(epsilon={epsilon}, delta={delta}, sensitivity={sensitivity})."
        )
    lo = hi = start
    for _ in range(2200):
        if excess(hi) <= 0.0:
            break
        lo, hi = hi, hi * 2.0
    else:  # pragma: no cover - unreachable for finite positive inputs
        raise ValueError(
            "Could not calibrate the analytic Gaussian sigma for these "
            "parameters in floating point (epsilon or sensitivity too extreme)."
        )
    if lo == hi:
        for _ in range(2200):
            lo = lo / 2.0
            if excess(lo) > 0.0:
                break
            hi = lo
        else:  # pragma: no cover - unreachable for finite positive inputs
            raise ValueError(
                "Could not calibrate the analytic Gaussian sigma for these "
                "parameters in floating point (epsilon or sensitivity too extreme)."
            )
    sigma = float(brentq(excess, lo, hi, xtol=1e-300, rtol=4e-15, maxiter=500))
    # brentq returns a point within its tolerance of the root, on either side.
    # Step up (by relative amounts of a few ulps, then faster) until the
    # condition of Thm 8 holds in floating point, so delta(sigma) <= delta.
    step = 2.0**-52
    while (
        excess(sigma) > 0.0 or math.exp(_log_delta(sigma, epsilon, sensitivity)) > delta
    ):
        sigma *= 1.0 + step
        step *= 2.0
    return sigma


class AnalyticGaussian(Mechanism):
    """(ε, δ)-DP Gaussian mechanism with the analytic calibration of Balle & Wang.

    Adds i.i.d. N(0, σ²) noise to every coordinate, with σ the smallest value
    such that Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) ≤ δ.

    Parameters
    ----------
    epsilon : float
        The privacy-loss bound ε > 0 (finite; ε ≥ 1 is allowed).
    delta : float
        The failure probability δ ∈ (0, 1).
    sensitivity : float
        The L2 sensitivity Δ = max ‖f(D) − f(D′)‖₂ over neighbouring datasets,
        > 0 (finite), a public bound fixed before the data are seen.
    method : {"discrete", "naive"}, default="discrete"
        How :meth:`randomise` releases a value: ``"discrete"`` (rounded to a
        public grid 2^k plus exact discrete Gaussian noise, calibrated by zCDP;
        exact over doubles) or ``"naive"`` (value + numpy's N(0, σ²) draw with
        the analytic σ; private over the reals only, subject to Mironov-type
        attacks; for comparisons and tests).
    bound : float or None, default=None
        Optional public bound B on |valueᵢ|: values and releases are clamped to
        [−B, B] and the grid is chosen so that every release is a double
        (``"discrete"`` only).

    Attributes
    ----------
    epsilon : float
        ε.
    delta : float
        δ.
    sensitivity : float
        Δ.
    method : str
        The release method.
    bound : float or None
        B.

    Notes
    -----
    **Privacy.** If ‖f(D) − f(D′)‖₂ ≤ Δ for all neighbouring D, D′ (the relation
    Δ was computed for; dpsvm uses replace-one), releasing f(D) + N(0, σ²I) is
    (ε, δ)-differentially private (approximate DP) by Balle & Wang (2018),
    Thm 8, whose condition is also necessary: no smaller σ gives (ε, δ)-DP.
    σ is computed by Brent's method on log δ(σ) (evaluated with ``log_ndtr``
    so that e^ε never overflows) and then increased by a few ulps until the
    condition holds in floating point, so δ(σ) ≤ δ for the returned σ.
    That is the guarantee of :meth:`sample` and of the ``"naive"`` release over
    the reals. The default ``"discrete"`` release is (ε, δ)-DP over doubles:
    it is ρ-zCDP with ρ ≤ 1/(2z²), z = :attr:`release_noise_multiplier`, for
    the rounded value's sensitivity Δ + √d·2^k (Canonne, Kamath & Steinke
    2020, Thm 14), and z is the smallest with δ ≥ the (ε, δ) conversion of
    their Cor. 13 (see :mod:`dpsvm.mechanisms._discrete_gaussian`).

    References
    ----------
    .. [1] B. Balle and Y.-X. Wang, "Improving the Gaussian mechanism for
       differential privacy: analytical calibration and optimal denoising",
       ICML 2018, arXiv:1805.06530v1, Theorem 8 and Algorithm 1.
    .. [2] C. Dwork and A. Roth, "The algorithmic foundations of differential
       privacy", 2014, Theorem A.1 (the classic calibration).

    Examples
    --------
    >>> mech = AnalyticGaussian(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    >>> bool(mech.sigma < AnalyticGaussian.classic_sigma(0.99, 1e-5, 1.0))
    True
    >>> mech.sample(3, random_state=0).shape
    (3,)
    """

    name: ClassVar[str] = "analytic-gaussian"
    sensitivity_norm: ClassVar[str] = "l2"
    reference: ClassVar[str] = _REFERENCE
    _delta_is_parameter: ClassVar[bool] = True

    def __init__(
        self,
        *,
        epsilon: float,
        delta: float,
        sensitivity: float,
        method: str = "discrete",
        bound: float | None = None,
    ) -> None:
        super().__init__(
            epsilon=epsilon,
            delta=delta,
            sensitivity=sensitivity,
            allow_zero_delta=False,
        )
        if method not in ("discrete", "naive"):
            raise ValueError(f"method must be 'discrete' or 'naive', got {method!r}.")
        self._method = method
        self._bound = None if bound is None else check_positive(bound, "bound")

        # Balle & Wang (2018), arXiv:1805.06530v1, Thm 8 / Alg. 1: the smallest
        # sigma with Phi(D/(2s) - e s/D) - e^e Phi(-D/(2s) - e s/D) <= delta.
        self._sigma = _analytic_sigma(self._epsilon, self._delta, self._sensitivity)

    sigma: ReadOnly[float] = ReadOnly(
        "The analytic σ of Balle & Wang (the noise of :meth:`sample` and of the "
        '``"naive"`` release; read-only).'
    )

    @property
    def release_noise_multiplier(self) -> float:
        """z = σ/Δ′ of the ``"discrete"`` release (read-only).

        The zCDP calibration of Canonne, Kamath & Steinke (2020), Thm 14 and
        Cor. 13; Δ′ = Δ + √d·2^k is the sensitivity after rounding.

        Returns
        -------
        float
            z.
        """
        # CKS20 (arXiv:2004.00010) Thm 14 + Cor. 13 (cached by (epsilon, delta)).
        return zcdp_noise_multiplier(self._epsilon, self._delta)

    method: ReadOnly[str] = ReadOnly(
        'The release method, ``"discrete"`` or ``"naive"`` (read-only).'
    )
    bound: ReadOnly[float | None] = ReadOnly(
        "The public bound B on |valueᵢ|, or ``None`` (read-only)."
    )

    @staticmethod
    def delta_for_sigma(sigma: float, epsilon: float, sensitivity: float) -> float:
        """Return the δ of N(0, σ²) noise at a given ε (Balle & Wang 2018, Thm 8).

        Parameters
        ----------
        sigma : float
            The noise standard deviation σ > 0.
        epsilon : float
            The privacy-loss bound ε > 0.
        sensitivity : float
            The L2 sensitivity Δ > 0.

        Returns
        -------
        float
            The smallest δ for which the mechanism is (ε, δ)-DP,
            δ(σ) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) (values below
            about e^−10000 are reported as that floor, i.e. 0.0 in float64).

        Examples
        --------
        >>> d = AnalyticGaussian.delta_for_sigma(1.0, 1.0, 1.0)
        >>> bool(0.12 < d < 0.13)
        True
        """
        sigma = check_positive(sigma, "sigma")
        epsilon = check_epsilon(epsilon)
        sensitivity = check_positive(sensitivity, "sensitivity")
        # Balle & Wang (2018), arXiv:1805.06530v1, Thm 8.
        return math.exp(_log_delta(sigma, epsilon, sensitivity))

    @staticmethod
    def classic_sigma(epsilon: float, delta: float, sensitivity: float) -> float:
        """Return the classic σ = √(2 ln(1.25/δ))·Δ/ε (valid only for ε < 1).

        For comparison: the analytic σ is never larger.

        Parameters
        ----------
        epsilon : float
            The privacy-loss bound ε ∈ (0, 1).
        delta : float
            The failure probability δ ∈ (0, 1).
        sensitivity : float
            The L2 sensitivity Δ > 0.

        Returns
        -------
        float
            The classic standard deviation √(2 ln(1.25/δ))·Δ/ε.

        Raises
        ------
        ValueError
            If ε ≥ 1 (the theorem does not cover it) or a parameter is out of
            range.

        References
        ----------
        .. [1] C. Dwork and A. Roth, "The algorithmic foundations of differential
           privacy", 2014, Theorem A.1.

        Examples
        --------
        >>> round(AnalyticGaussian.classic_sigma(0.5, 1e-5, 1.0), 4)
        9.6896
        """
        epsilon = check_epsilon(epsilon)
        delta = check_delta(delta, allow_zero=False)
        sensitivity = check_positive(sensitivity, "sensitivity")
        if epsilon >= 1.0:
            raise ValueError(
                "The classic Gaussian calibration (Dwork & Roth 2014, Thm A.1) "
                f"needs epsilon < 1, got {epsilon}; use AnalyticGaussian instead."
            )
        # Dwork & Roth (2014), Thm A.1: sigma = sqrt(2 ln(1.25/delta)) Delta / epsilon.
        return math.sqrt(2.0 * math.log(1.25 / delta)) * sensitivity / epsilon

    def _draw(
        self, size: int | tuple[int, ...], gen: np.random.Generator
    ) -> NDArray[np.float64]:
        # numpy's floating-point normal sampler (see dpsvm.mechanisms.base).
        return np.asarray(gen.normal(0.0, self._sigma, size=size), dtype=np.float64)

    def _release(
        self, value: ArrayLike, random_state: GeneratorLike
    ) -> NDArray[np.float64]:
        if self._method == "naive":
            return super()._release(value, random_state)
        # On the public grid 2^k, exact discrete Gaussian noise (CKS20).
        return gaussian_release(
            value,
            random_state,
            epsilon=self._epsilon,
            delta=self._delta,
            sensitivity=self._sensitivity,
            bound=self._bound,
        )

    def _event_details(self) -> dict[str, Any]:
        details: dict[str, Any] = {"sigma": self._sigma, "release": self._method}
        if self._method == "discrete":
            details["noise_multiplier"] = self.release_noise_multiplier
        if self._bound is not None:
            details["bound"] = self._bound
        return details

    def __repr__(self) -> str:
        text = super().__repr__()[:-1]
        if self._method != "discrete":
            text += f", method={self._method!r}"
        if self._bound is not None:
            text += f", bound={self._bound!r}"
        return text + ")"

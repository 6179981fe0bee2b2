# SPDX-License-Identifier: BSD-3-Clause
"""Floating-point-safe Laplace releases: snap to a 2^m grid, add exact integer noise.

Why this exists
---------------
The textbook Laplace release ``f(D) + λ·ln(U)`` evaluated in double precision
is not differentially private: the set of doubles it can output depends on
``f(D)`` (its support is "porous" and the holes move with ``f(D)``), so an
observer can sometimes tell ``f(D)`` from ``f(D′)`` with certainty (Mironov,
CCS 2012, §3-4). The same holds for ``f(D) + numpy.random.laplace(...)``.

What is done instead (the discretised Laplace of OpenDP)
--------------------------------------------------------
Every step below is exact integer arithmetic; the only floating-point
operation is the final conversion of an integer to a double, which is
post-processing.

1. **Grid.** A public power of two Λ = 2^m with
   m = min(⌊log₂ λ⌋, ⌊log₂ Δ₁⌋ − ⌈log₂ d⌉) − 20, i.e. Λ ≤ 2⁻²⁰·min(λ, Δ₁/d).
   It depends only on the public scale λ, sensitivity Δ₁ and dimension d.
2. **Snap the value.** Kᵢ = rint(vᵢ/Λ) ∈ ℤ, computed exactly (v/Λ is a
   power-of-two scaling; large values use Python integers). For neighbouring
   datasets |rint(a) − rint(b)| ≤ |a − b| + 1, so
   ‖K(D) − K(D′)‖₁ ≤ Δ₁/Λ + d.
3. **Integer noise.** Zᵢ ~ DLap(t) i.i.d., P(Zᵢ = z) ∝ exp(−|z|/t), drawn
   *exactly* with the rejection samplers of Canonne, Kamath & Steinke
   (NeurIPS 2020, arXiv:2004.00010, Algorithms 1 and 2) from uniform
   integers of the CSPRNG-backed generator, by
   :func:`dpsvm.mechanisms._exact.sample_discrete_laplace` (the one module
   that draws exact samples); t is the integer
   t = ⌈λ/Λ + d·λ/Δ₁⌉.
4. **Release** Λ·(K + Z) as doubles (exact while |K + Z| < 2^53), clamped to
   [−B, B] when a public ``bound`` B is given and always to the finite doubles.

**Privacy.** K + Z is the discrete Laplace mechanism on ℤ^d with L1
sensitivity Δ₁/Λ + d, so it is ε′-DP with
ε′ = (Δ₁/Λ + d)/t ≤ (Δ₁/Λ + d)/(λ/Λ + dλ/Δ₁) = Δ₁/λ = ε — the ε the caller
claims for the nominal scale λ = Δ₁/ε (CKS20, arXiv:2004.00010, §2: the discrete
Laplace's probability ratio is exp(|k − k′|/t)). The clamp of the input to
[−B, B] is 1-Lipschitz per coordinate and does not increase Δ₁; the integer
to double conversion and the output clamp are post-processing (Dwork & Roth
2014, Prop. 2.1). No property of the platform's ``log``/``exp`` or of
floating-point rounding is assumed.

**Cost.** The noise scale is tΛ ≤ λ·(1 + dΛ/Δ₁ + Λ/λ) ≤ λ·(1 + 2⁻¹⁹), and the
output lies on the grid ΛZ (spacing ≤ 2⁻²⁰λ), which is far below the noise.

Why not Mironov's snapping mechanism? Its guarantee, as implemented by
SmartNoise/OpenDP ``redefine_epsilon``, is (1/λ + 12Bη/λ + 2η)-DP for
sensitivity 1, a clamp B with λ < B < 2^46·λ and η = 2⁻⁵³ (Mironov 2012,
§5, where it is simplified to 1/λ + 2⁻⁴⁹B/λ), and it assumes a correctly rounded
natural logarithm, which numpy does not promise. The discretised form needs no
such assumption, no mandatory clamp and no B-dependent ε overhead.

References
----------
.. [1] I. Mironov, "On significance of the least significant bits for
   differential privacy", ACM CCS 2012, §3-5.
.. [2] C. L. Canonne, G. Kamath and T. Steinke, "The discrete Gaussian for
   differential privacy", NeurIPS 2020, arXiv:2004.00010, Algorithms 1-2.
.. [3] OpenDP, ``make_laplace`` on floats (discretised Laplace on a 2^k grid);
   S. Haney et al., "Precision-based attacks and interval refining: how to
   break, then fix, differential privacy on finite computers", 2022;
   arXiv:2107.10138 §5.1.
"""

from __future__ import annotations

import math
import numbers
import sys
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..utils._random import GeneratorLike, as_generator
from ..validation import check_positive
from ._exact import (  # the one module that draws exact samples
    _bernoulli_exp,
    _discrete_laplace_scalar,
    _randbelow,
    sample_discrete_laplace,
)
from .base import check_noise_scale, check_release_value

__all__ = [
    "GRID_BITS",
    "DiscreteLaplaceCalibration",
    "discrete_laplace_calibration",
    "laplace_release",
    "sample_discrete_laplace",
]

#: The grid is 2^GRID_BITS times finer than min(λ, Δ₁/d) (so the rounding costs
#: at most a relative 2^-GRID_BITS of extra noise scale).
GRID_BITS = 20

# The samplers (and their re-exported private helpers, kept importable here)
# live in dpsvm.mechanisms._exact.
_EXACT_HELPERS = (_bernoulli_exp, _discrete_laplace_scalar, _randbelow)
_FLOAT_MAX = sys.float_info.max

_METHODS = ("discrete", "naive")


@dataclass(frozen=True)
class DiscreteLaplaceCalibration:
    """The public grid and integer scale of a discretised Laplace release.

    Attributes
    ----------
    grid_exponent : int
        m, with the grid spacing Λ = 2^m.
    integer_scale : int
        t ≥ 1: the noise is Λ·Z with P(Z = z) ∝ exp(−|z|/t).
    epsilon : float
        The ε the release satisfies, (Δ₁/Λ + d)/t, rounded up to a float; it is
        at most the nominal Δ₁/λ (up to that last rounding).
    """

    grid_exponent: int
    integer_scale: int
    epsilon: float

    @property
    def grid(self) -> float:
        """The grid spacing Λ = 2^m as a float (0.0 if it underflows).

        Returns
        -------
        float
            Λ.
        """
        return math.ldexp(1.0, self.grid_exponent)

    @property
    def effective_scale(self) -> float:
        """The Laplace scale t·Λ of the noise actually added.

        Returns
        -------
        float
            tΛ (at least the nominal λ, at most λ·(1 + 2⁻¹⁹) up to rounding).
        """
        return _int_times_pow2(self.integer_scale, self.grid_exponent)


def _check_dim(dim: Any) -> int:
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
        raise TypeError(f"dim must be a positive int, got {type(dim).__name__}.")
    if dim <= 0:
        raise ValueError(f"dim must be a positive int, got {dim}.")
    return int(dim)


def discrete_laplace_calibration(
    scale: float, sensitivity: float, dim: int
) -> DiscreteLaplaceCalibration:
    """Return the grid Λ = 2^m and the integer scale t for a d-dimensional release.

    Parameters
    ----------
    scale : float
        The nominal Laplace scale λ = Δ₁/ε > 0 (finite).
    sensitivity : float
        The L1 sensitivity Δ₁ > 0 (finite) of the whole released vector.
    dim : int
        The number d of released coordinates.

    Returns
    -------
    DiscreteLaplaceCalibration
        m, t and the ε = (Δ₁/Λ + d)/t that the release satisfies.

    Raises
    ------
    TypeError
        If a parameter has the wrong type.
    ValueError
        If a parameter is not positive (or not finite).

    Notes
    -----
    **Privacy.** With Λ = 2^m, snapping each coordinate to ΛZ raises the L1
    sensitivity (in grid units) to Δ₁/Λ + d, and discrete Laplace noise of
    integer scale t is (Δ₁/Λ + d)/t-DP (Canonne, Kamath & Steinke,
    arXiv:2004.00010, §2.2). t = ⌈λ/Λ + dλ/Δ₁⌉ makes this at most Δ₁/λ,
    the nominal ε (module docstring).

    Examples
    --------
    >>> cal = discrete_laplace_calibration(1.0, 1.0, 1)
    >>> cal.grid_exponent, cal.integer_scale  # Λ = 2^-20, t = 2^20 + 1
    (-20, 1048577)
    >>> cal.epsilon <= 1.0
    True
    """
    lam = check_positive(scale, "scale")
    delta1 = check_positive(sensitivity, "sensitivity")
    d = _check_dim(dim)
    # floor(log2 x) = frexp exponent - 1 (exact for every positive double);
    # ceil(log2 d) = (d - 1).bit_length().
    m = (
        min(math.frexp(lam)[1] - 1, math.frexp(delta1)[1] - 1 - (d - 1).bit_length())
        - GRID_BITS
    )
    grid = Fraction(2) ** m
    lam_q, delta_q = Fraction(lam), Fraction(delta1)
    # t >= lambda/Lambda + d*lambda/Delta_1
    #   <=>  (Delta_1/Lambda + d)/t <= Delta_1/lambda = epsilon
    # (module docstring, "Privacy"; CKS20 arXiv:2004.00010 §2.2).
    t = math.ceil(lam_q / grid + d * lam_q / delta_q)
    eps_exact = (delta_q / grid + d) / t
    try:
        eps = float(eps_exact)
    except OverflowError:  # Delta_1/lambda itself is beyond the doubles
        eps = math.inf
    if math.isfinite(eps) and Fraction(eps) < eps_exact:  # report an upper bound
        eps = math.nextafter(eps, math.inf)
    return DiscreteLaplaceCalibration(m, t, eps)


# --------------------------------------------------------------------------- #
# Exact snapping and conversion
# --------------------------------------------------------------------------- #
def _int_times_pow2(k: int, m: int) -> float:
    """Return k·2^m as a double (correctly rounded; ±max double on overflow)."""
    if k == 0:
        return 0.0
    saturated = _FLOAT_MAX if k > 0 else -_FLOAT_MAX
    if abs(k).bit_length() + m > 1025:
        return saturated
    try:
        return float(Fraction(k) * Fraction(2) ** m)
    except OverflowError:
        return saturated


def _snap_exact(x: float, m: int) -> int:
    """Return rint(x / 2^m) exactly (round half to even), for a finite double x."""
    return round(Fraction(x) / Fraction(2) ** m)


def laplace_release(
    value: ArrayLike,
    scale: float,
    rng: GeneratorLike = None,
    *,
    sensitivity: float,
    bound: float | None = None,
    method: str = "discrete",
) -> NDArray[np.float64]:
    """Release ``value`` + Laplace noise without floating-point leaks.

    The default ``method="discrete"`` snaps the value to a public grid
    Λ = 2^m and adds exact discrete Laplace noise (module docstring), so the
    output lies on ΛZ whatever the value and its low-order bits reveal
    nothing. ``method="naive"`` is ``value + numpy.random.laplace`` (for speed
    comparisons and tests only: it is subject to Mironov's attack).

    Parameters
    ----------
    value : array-like of real numbers
        The exact (sensitive) value, any shape, finite and non-empty; it is not
        modified.
    scale : float
        The nominal Laplace scale λ = Δ₁/ε > 0 (finite).
    rng : None, int or numpy.random.Generator, default=None
        ``None`` (the only choice for a real release) draws from a fresh
        ChaCha20 CSPRNG; an int is for tests and documentation only; a
        Generator is used (and advanced) as is.
    sensitivity : float
        The L1 sensitivity Δ₁ > 0 of ``value`` as a whole (the ε claimed is
        Δ₁/λ; the grid rounding is paid for by a slightly larger integer
        scale, see :func:`discrete_laplace_calibration`).
    bound : float or None, default=None
        A public bound B > 0 with |valueᵢ| ≤ B known in advance. The value is
        clamped to [−B, B] before snapping (1-Lipschitz: the sensitivity is
        unchanged) and the output is clamped to [−B, B] (post-processing). It
        may only improve accuracy; it must not be derived from the data.
        ``None``: outputs are only kept within the finite doubles. Releases lie
        on the grid ΛZ or equal ±B.
    method : {"discrete", "naive"}, default="discrete"
        The sampler.

    Returns
    -------
    ndarray of float64
        The release, with the shape of ``value``.

    Raises
    ------
    TypeError
        If ``value`` is not real-valued or a parameter has the wrong type.
    ValueError
        If ``value`` is empty or not finite, a parameter is not positive and
        finite, or ``method`` is unknown.

    Notes
    -----
    **Privacy.** If ‖f(D) − f(D′)‖₁ ≤ Δ₁ for neighbouring datasets, the
    ``"discrete"`` release is ε-DP with ε = Δ₁/λ exactly as claimed:
    Λ·(rint(f/Λ) + Z), Zᵢ ~ DLap(t), is (Δ₁/Λ + d)/t ≤ Δ₁/λ-DP (Canonne,
    Kamath & Steinke, arXiv:2004.00010, Alg. 1-2 and §2.2; module
    docstring). No floating-point property is assumed: the noise comes from
    uniform integers of the CSPRNG (mitigation of Mironov, CCS 2012, in the
    discretised form used by OpenDP; arXiv:2107.10138 §5.1). ``"naive"`` is
    only ε-DP over the reals; over doubles its support depends on f(D).

    Estimators call it on the exact weight vector, e.g.
    ``laplace_release(w, l1 / eps, rng, sensitivity=l1)``.

    Examples
    --------
    >>> w = laplace_release([0.25, -1.0, 3.0], 0.5, rng=0, sensitivity=0.5)
    >>> w.shape, w.dtype
    ((3,), dtype('float64'))
    >>> cal = discrete_laplace_calibration(0.5, 0.5, 3)
    >>> bool(np.all(w / cal.grid == np.rint(w / cal.grid)))  # on the grid
    True
    """
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}.")
    arr = check_release_value(value)
    lam = check_positive(scale, "scale")
    delta1 = check_positive(sensitivity, "sensitivity")
    B = _FLOAT_MAX if bound is None else check_positive(bound, "bound")
    gen = as_generator(rng)
    if method == "naive":
        lam = check_noise_scale(lam, "scale")
        x = np.clip(arr, -B, B)
        with np.errstate(over="ignore"):  # saturated below, like "discrete"
            out = np.clip(x + gen.laplace(0.0, lam, size=arr.shape), -B, B)
        return np.asarray(np.clip(out, -_FLOAT_MAX, _FLOAT_MAX), dtype=np.float64)

    cal = discrete_laplace_calibration(lam, delta1, arr.size)
    m, t = cal.grid_exponent, cal.integer_scale
    x = np.clip(arr.ravel(), -B, B)  # 1-Lipschitz: Delta_1 unchanged
    noise = sample_discrete_laplace(x.size, t, gen)
    # Exact snapping K = rint(x / 2^m): a power-of-two scaling is exact while it
    # stays within the normal range, and rint of a double is exact.
    with np.errstate(over="ignore", under="ignore"):
        scaled = np.ldexp(x, -m)
    fast = (
        noise.dtype == np.int64
        and bool(np.all(np.abs(scaled) < 2.0**52))
        and bool(np.all(np.isfinite(scaled)))
    )
    if fast:
        k = np.rint(scaled).astype(np.int64) + noise
        if bool(np.all(np.abs(k) < 2**53)) and m + 53 < 1024:
            with np.errstate(under="ignore"):
                y = np.ldexp(k.astype(np.float64), m)  # exact unless subnormal
        else:
            y = np.array([_int_times_pow2(int(ki), m) for ki in k])
    else:
        y = np.array(
            [
                _int_times_pow2(_snap_exact(float(xi), m) + int(zi), m)
                for xi, zi in zip(x, noise.ravel(), strict=True)
            ],
            dtype=np.float64,
        )
    # Post-processing: keep the release within [-B, B] and the finite doubles.
    y = np.clip(y, -B, B)
    return np.asarray(y, dtype=np.float64).reshape(arr.shape)

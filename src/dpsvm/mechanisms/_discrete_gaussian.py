# SPDX-License-Identifier: BSD-3-Clause
"""Exact Gaussian releases: a public 2^k grid plus discrete Gaussian noise.

Why this exists
---------------
``f(D) + numpy.random.normal(...)`` in double precision is private only over
the reals: the set of doubles it can output depends on f(D) (Mironov, CCS
2012, for the Laplace; Jin, McMurtry, Rubinstein & Ohrimenko, IEEE S&P 2022,
for deployed Gaussian samplers). Here every Gaussian release is

1. **clamped** to a public box [−B, B]^d (1-Lipschitz per coordinate: the L2
   sensitivity Δ is unchanged);
2. **rounded** to the public grid 2^k ℤ: Kᵢ = rint(xᵢ/2^k), exact (a
   power-of-two scaling and ``rint`` of a double are exact). For neighbours
   |rint(a) − rint(b)| ≤ |a − b| + 1 per coordinate, so
   ‖K(D) − K(D′)‖₂ ≤ Δ/2^k + √d (in real units Δ′ = Δ + √d·2^k);
3. **noised** with i.i.d. discrete Gaussians Zᵢ ~ N_ℤ(0, σ²), σ² = c·t grid
   units² (integers c, t), drawn exactly by
   :func:`dpsvm.mechanisms._exact.sample_discrete_gaussian`'s sampler (Canonne,
   Kamath & Steinke, NeurIPS 2020, arXiv:2004.00010, Alg. 3);
4. **released** as 2^k·clamp(K + Z, ±⌊B/2^k⌋): every released double is a
   grid point (k ≥ ⌊log₂ B⌋ − 52, so every grid point of [−B, B] is a double
   and the integer-to-double conversion is exact).

**Privacy.** The d-dimensional discrete Gaussian with integer sensitivity
Δ_g satisfies ρ-zCDP with ρ = Δ_g²/(2σ²) (CKS20, Theorem 14), the same
Rényi divergence α·Δ_g²/(2σ²) at every order α as the continuous Gaussian.
σ² ≥ z²·Δ_g² with Δ_g = Δ/2^k + √d (rounded *up* to a rational and σ² rounded
*up* to c·t, so privacy only improves), hence ρ ≤ 1/(2z²): a caller whose
accounting depends only on the Gaussian's Rényi/zCDP curve for noise
multiplier z (e.g. the RDP accountant of noisy gradient descent) keeps its
guarantee unchanged. A one-shot (ε, δ) release takes z from the zCDP
conversion of CKS20, Corollary 13 (:func:`zcdp_noise_multiplier`), since no
exact multivariate (ε, δ) profile of the discrete Gaussian is known; this z is
larger than the analytic Gaussian's σ/Δ of Balle & Wang (2018), the price of
exactness. Clamps and the conversion to doubles are post-processing.

**Grid.** k = max(⌊log₂ min(zΔ, Δ/√d)⌋ − 20, ⌈log₂ zΔ⌉ − 24, ⌊log₂ B⌋ − 52):
fine enough that the rounding raises σ by a relative ≤ max(2⁻²⁰, z√d·2⁻²³)
(plus ≈ 2⁻²⁰ for rounding σ² up) unless B forces a coarser grid, and keeps
σ ≤ 2^24 grid units so that the sampler's integers stay in int64,
and coarse enough that released values are doubles. Without a public bound B
the clamp is B = 2^(k+52).

References
----------
.. [1] C. L. Canonne, G. Kamath and T. Steinke, "The discrete Gaussian for
   differential privacy", NeurIPS 2020, arXiv:2004.00010, Algorithm 3,
   Theorem 14 and Corollary 13.
.. [2] I. Mironov, "On significance of the least significant bits for
   differential privacy", ACM CCS 2012.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..utils._random import GeneratorLike, as_generator
from ..validation import check_delta, check_epsilon, check_positive
from ._exact import _discrete_gaussian, _shape_and_count
from .base import check_release_value

__all__ = [
    "DiscreteGaussianCalibration",
    "discrete_gaussian_calibration",
    "gaussian_release",
    "zcdp_delta",
    "zcdp_noise_multiplier",
]

#: The grid is 2^GAUSS_GRID_BITS times finer than min(σ, Δ/√d) unless that
#: would make σ exceed 2^24 grid units (see the module docstring).
GAUSS_GRID_BITS = 20
_SIGMA_BITS = 24
_SQRT_BITS = 30


def _floor_log2(x: float) -> int:
    return math.frexp(x)[1] - 1  # exact for every positive finite double


def _ceil_log2(x: float) -> int:
    mant, exp = math.frexp(x)
    return exp - 1 if mant == 0.5 else exp


def _sqrt_upper(d: int) -> Fraction:
    """An upper bound on √d (exact when d is a perfect square)."""
    r = math.isqrt(d)
    if r * r == d:
        return Fraction(r)
    return Fraction(math.isqrt(d << (2 * _SQRT_BITS)) + 1, 1 << _SQRT_BITS)


def _up(q: Fraction) -> float:
    """A float ≥ the rational q."""
    x = float(q)
    return math.nextafter(x, math.inf) if Fraction(x) < q else x


@dataclass(frozen=True)
class DiscreteGaussianCalibration:
    """The public grid and integer variance of a discrete Gaussian release.

    Attributes
    ----------
    grid_exponent : int
        k, with grid spacing 2^k.
    sigma2_factor : int
        c ≥ 1; the noise variance parameter is σ² = c·t grid units².
    laplace_scale : int
        t ≥ 1, the scale of CKS20 Algorithm 3's discrete Laplace proposal.
    bound_units : int
        ⌊B/2^k⌋: releases are clamped to [−bound_units, bound_units]·2^k.
    noise_multiplier : float
        z: σ ≥ z·Δ′ with Δ′ the sensitivity after rounding.
    sensitivity : float
        Δ′ = Δ + √d·2^k (real units, rounded up).
    rho : float
        The zCDP ρ = Δ′²/(2σ²) ≤ 1/(2z²) of the release (rounded up).
    dim : int
        d, the number of coordinates the calibration was made for.
    """

    grid_exponent: int
    sigma2_factor: int
    laplace_scale: int
    bound_units: int
    noise_multiplier: float
    sensitivity: float
    rho: float
    dim: int

    @property
    def grid(self) -> float:
        """The grid spacing 2^k.

        Returns
        -------
        float
            2^k.
        """
        return math.ldexp(1.0, self.grid_exponent)

    @property
    def sigma(self) -> float:
        """The noise's σ in real units, √(c·t)·2^k.

        Returns
        -------
        float
            σ.
        """
        return math.ldexp(
            math.sqrt(self.sigma2_factor * self.laplace_scale), self.grid_exponent
        )

    @property
    def bound(self) -> float:
        """The release clamp ⌊B/2^k⌋·2^k (a grid point and a double).

        Returns
        -------
        float
            The largest grid point ≤ B.
        """
        return math.ldexp(float(self.bound_units), self.grid_exponent)

    def sample(
        self, size: int | tuple[int, ...], gen: np.random.Generator
    ) -> NDArray[np.int64]:
        """Draw discrete Gaussian noise in grid units (CKS20 Alg. 3).

        Parameters
        ----------
        size : int or tuple of int
            Shape.
        gen : numpy.random.Generator
            The noise source.

        Returns
        -------
        ndarray of int64
            N_ℤ(0, c·t) draws, clamped to ±2^62 (post-processing).
        """
        shape, n = _shape_and_count(size)
        sigma2 = Fraction(self.sigma2_factor * self.laplace_scale)
        z = _discrete_gaussian(sigma2, self.laplace_scale, n, gen)
        if z.dtype != np.int64:  # pragma: no cover - a draw beyond 2^62
            z = np.array([max(-(2**62), min(2**62, int(v))) for v in z], np.int64)
        return np.asarray(z, dtype=np.int64).reshape(shape)

    def release(
        self, value: ArrayLike, noise: NDArray[np.int64]
    ) -> NDArray[np.float64]:
        """Return 2^k·clamp(rint(clamp(value)/2^k) + noise) as doubles.

        Parameters
        ----------
        value : array-like of float
            The exact value (shape of ``noise``), finite.
        noise : ndarray of int64
            Noise from :meth:`sample` (fresh for every release).

        Returns
        -------
        ndarray of float64
            Grid points within ±:attr:`bound`.
        """
        x = np.asarray(value, dtype=np.float64)
        k, b, lim = self.grid_exponent, self.bound_units, self.bound
        # Clamp to the public grid point lim (1-Lipschitz), then K = rint(x/2^k):
        # exact, as |x/2^k| <= bound_units <= 2^53.
        with np.errstate(under="ignore"):
            units = np.rint(np.ldexp(np.clip(x, -lim, lim), -k)).astype(np.int64)
        y = np.clip(units + noise, -b, b)  # post-processing; |y| <= 2^53
        with np.errstate(under="ignore"):
            return np.ldexp(y.astype(np.float64), k)


def discrete_gaussian_calibration(
    noise_multiplier: float,
    sensitivity: float,
    dim: int,
    bound: float | None = None,
) -> DiscreteGaussianCalibration:
    """Return the grid 2^k and integer variance for an exact Gaussian release.

    Parameters
    ----------
    noise_multiplier : float
        z > 0: the release has σ ≥ z·Δ′ (ρ ≤ 1/(2z²) zCDP).
    sensitivity : float
        The L2 sensitivity Δ > 0 of the released vector (before rounding).
    dim : int
        d, the number of coordinates released with one calibration.
    bound : float or None, default=None
        A public bound B with |valueᵢ| ≤ B known in advance (values are
        clamped to it). ``None``: B = 2^(k+52), derived from the public σ.

    Returns
    -------
    DiscreteGaussianCalibration
        k, c, t and the zCDP ρ the release satisfies.

    Raises
    ------
    ValueError
        If a parameter is not positive and finite, or the grid would leave the
        doubles (σ below about 2^-1000 or B above about 2^1000).

    Notes
    -----
    **Privacy.** Rounding to 2^k raises the L2 sensitivity to Δ_g = Δ/2^k + √d
    grid units (module docstring); σ² = c·t ≥ z²Δ_g² (rounded up), so the
    discrete Gaussian release is ρ-zCDP with ρ = Δ_g²/(2σ²) ≤ 1/(2z²)
    (Canonne, Kamath & Steinke 2020, arXiv:2004.00010, Theorem 14).

    Examples
    --------
    >>> cal = discrete_gaussian_calibration(2.0, 1.0, 4, bound=10.0)  # k = -1 - 20
    >>> cal.grid_exponent, cal.rho <= 1 / 8
    (-21, True)
    """
    z = check_positive(noise_multiplier, "noise_multiplier")
    delta2 = check_positive(sensitivity, "sensitivity")
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
        raise ValueError(f"dim must be a positive int, got {dim!r}.")
    b = None if bound is None else check_positive(bound, "bound")
    return _calibration(z, delta2, int(dim), b)


@functools.lru_cache(maxsize=256)
def _calibration(
    z: float, delta2: float, dim: int, bound: float | None
) -> DiscreteGaussianCalibration:
    """:func:`discrete_gaussian_calibration` on checked arguments (cached)."""
    sigma0 = z * delta2
    if not 0.0 < sigma0 < math.inf:
        raise ValueError("noise_multiplier * sensitivity must be a finite double.")
    sqrt_d = _sqrt_upper(dim)
    k = max(
        _floor_log2(min(sigma0, delta2 / float(sqrt_d))) - GAUSS_GRID_BITS,
        _ceil_log2(sigma0) - _SIGMA_BITS,
    )
    if bound is not None:
        k = max(k, _floor_log2(bound) - 52)
    if not -1074 <= k <= 1023 - 53:
        raise ValueError(
            "The Gaussian noise or the bound is outside the range an exact "
            f"release on doubles supports (grid 2^{k}); rescale the values."
        )
    grid = Fraction(2) ** k
    bound_units = 2**52 if bound is None else math.floor(Fraction(bound) / grid)
    # Delta_g = Delta / 2^k + sqrt(d): |rint(a) - rint(b)| <= |a - b| + 1.
    delta_g = Fraction(delta2) / grid + sqrt_d
    sigma2_target = Fraction(z) ** 2 * delta_g**2
    # CKS20 Alg. 3: t = floor(sigma) + 1; sigma^2 = c t rounded up (privacy only
    # improves), so that sigma^2 / t = c is an integer (int64 acceptance coins).
    t = math.isqrt(sigma2_target.numerator // sigma2_target.denominator) + 1
    c = -((-sigma2_target) // t)  # ceil
    # CKS20 Thm 14: rho = Delta_g^2 / (2 sigma^2) <= 1 / (2 z^2).
    rho = delta_g**2 / (2 * c * t)
    return DiscreteGaussianCalibration(
        grid_exponent=k,
        sigma2_factor=int(c),
        laplace_scale=int(t),
        bound_units=int(bound_units),
        noise_multiplier=z,
        sensitivity=_up(delta_g * grid),
        rho=_up(rho),
        dim=dim,
    )


# --------------------------------------------------------------------------- #
# zCDP -> (epsilon, delta) (CKS20 Corollary 13)
# --------------------------------------------------------------------------- #
def zcdp_delta(rho: float, epsilon: float) -> float:
    """The δ at which ρ-zCDP implies (ε, δ)-DP (CKS20, Corollary 13).

    Parameters
    ----------
    rho : float
        ρ > 0.
    epsilon : float
        ε > 0.

    Returns
    -------
    float
        The minimum over a grid of α > 1 (around the optimum) of
        e^{(α−1)(αρ−ε)}/(α−1)·(1 − 1/α)^α; any α gives a valid δ, so the grid
        only costs tightness; capped at 1.

    Examples
    --------
    >>> bool(zcdp_delta(0.05, 1.0) < 1e-3)
    True
    """
    rho = check_positive(rho, "rho")
    epsilon = check_epsilon(epsilon)
    return math.exp(_min_log_delta(rho, epsilon))


def _log_delta_grid(
    am1: NDArray[np.float64], rho: float, epsilon: float
) -> NDArray[np.float64]:
    """log δ(α) of CKS20 Cor. 13 at α = 1 + am1 (vectorised; NaN -> +inf)."""
    alpha = 1.0 + am1
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        # CKS20 (arXiv:2004.00010) Cor. 13: for any alpha > 1, delta =
        # exp((alpha - 1)(alpha rho - epsilon)) / (alpha - 1) * (1 - 1/alpha)^alpha.
        out = (
            am1 * (alpha * rho - epsilon) + alpha * np.log1p(-1.0 / alpha) - np.log(am1)
        )
    # -inf: the exponent overflowed downwards (delta = 0 at that alpha); NaN
    # (inf - inf) or alpha = 1 after rounding gives no bound.
    return np.where(np.isnan(out) | (alpha <= 1.0), np.inf, out)


def _min_log_delta(rho: float, epsilon: float) -> float:
    """min over a grid of α of log δ(α); any α is valid, the grid costs tightness."""
    # The minimiser is near alpha = (epsilon + rho) / (2 rho) (Bun & Steinke 2016).
    guess = min(max((epsilon / rho + 1.0) / 2.0 - 1.0, 1e-6), 1e300)
    with np.errstate(over="ignore"):  # alpha = inf gives no bound (+inf)
        coarse = guess * np.exp2(np.arange(-80, 81) / 2.0)
        values = _log_delta_grid(coarse, rho, epsilon)
        best = coarse[int(np.argmin(values))]
        fine = best * np.exp2(np.arange(-64, 65) / 64.0)
    values = np.concatenate([values, _log_delta_grid(fine, rho, epsilon)])
    return min(0.0, float(values.min()))


@functools.lru_cache(maxsize=512)
def _noise_multiplier(epsilon: float, delta: float) -> float:
    log_delta = math.log(delta) - 1e-9  # margin for the float evaluation
    lo, hi = 1e-12, 1.0  # rho: lo admissible, hi not (after the loops)
    while _min_log_delta(hi, epsilon) <= log_delta:
        if hi > 1e290:  # epsilon beyond any use: rho = 1e290 is admissible
            return math.nextafter(1.0 / math.sqrt(2.0 * hi), math.inf)
        lo, hi = hi, hi * 2.0
    while _min_log_delta(lo, epsilon) > log_delta:
        if lo < 1e-290:
            raise ValueError(
                "The exact Gaussian release cannot be calibrated in float64 for "
                f"epsilon={epsilon}, delta={delta} (the noise would exceed the "
                "doubles); use a larger epsilon or delta."
            )
        hi, lo = lo, lo / 2.0
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if _min_log_delta(mid, epsilon) <= log_delta:
            lo = mid
        else:
            hi = mid
        if hi / lo < 1.0 + 1e-12:
            break
    # z = 1 / sqrt(2 rho) for the admissible rho = lo, rounded up.
    return math.nextafter(1.0 / math.sqrt(2.0 * lo), math.inf)


def zcdp_noise_multiplier(epsilon: float, delta: float) -> float:
    """Smallest z (to 1e-12 relative) whose ρ = 1/(2z²) gives (ε, δ) by CKS20 Cor. 13.

    Parameters
    ----------
    epsilon : float
        ε > 0.
    delta : float
        δ ∈ (0, 1).

    Returns
    -------
    float
        z = σ/Δ for a Gaussian (discrete or continuous) (ε, δ)-DP release.

    Examples
    --------
    >>> z = zcdp_noise_multiplier(1.0, 1e-5)
    >>> bool(zcdp_delta(1 / (2 * z * z), 1.0) <= 1e-5)
    True
    """
    return _noise_multiplier(
        check_epsilon(epsilon), check_delta(delta, allow_zero=False)
    )


def gaussian_release(
    value: ArrayLike,
    rng: GeneratorLike = None,
    *,
    epsilon: float,
    delta: float,
    sensitivity: float,
    bound: float | None = None,
) -> NDArray[np.float64]:
    """Release ``value`` with exact discrete Gaussian noise, (ε, δ)-DP over doubles.

    Parameters
    ----------
    value : array-like of real numbers
        The exact (sensitive) value, finite and non-empty; not modified.
    rng : None, int or numpy.random.Generator, default=None
        ``None`` (the only choice for a real release) draws from a fresh
        CSPRNG; an int is for tests and documentation only.
    epsilon : float
        ε > 0.
    delta : float
        δ ∈ (0, 1).
    sensitivity : float
        The L2 sensitivity Δ > 0 of ``value``.
    bound : float or None, default=None
        Optional public bound B on |valueᵢ| (clamp of input and output).

    Returns
    -------
    ndarray of float64
        The release (shape of ``value``), every entry a point of the grid 2^k.

    Notes
    -----
    **Privacy.** (ε, δ)-DP: the release is ρ-zCDP with ρ ≤ 1/(2z²)
    (Canonne, Kamath & Steinke 2020, Theorem 14, with the rounding term in the
    sensitivity) and z from :func:`zcdp_noise_multiplier` (their Cor. 13).

    Examples
    --------
    >>> y = gaussian_release([0.5, -2.0], 0, epsilon=1.0, delta=1e-5, sensitivity=1.0)
    >>> cal = discrete_gaussian_calibration(zcdp_noise_multiplier(1.0, 1e-5), 1.0, 2)
    >>> bool(np.all(y / cal.grid == np.rint(y / cal.grid)))
    True
    """
    arr = check_release_value(value)
    z = zcdp_noise_multiplier(epsilon, delta)
    cal = discrete_gaussian_calibration(z, sensitivity, arr.size, bound)
    gen = as_generator(rng)
    noise = cal.sample(arr.shape, gen)
    return np.asarray(cal.release(arr, noise), dtype=np.float64).reshape(arr.shape)

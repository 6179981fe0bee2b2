# SPDX-License-Identifier: BSD-3-Clause
"""Exact sparse-vector noise for real-valued queries on a public grid.

:class:`~dpsvm.prediction.PrivateInteractivePredictor` with
``mechanism="sparse-vector"`` runs AboveThreshold (Lyu, Su & Li, PVLDB 2017,
Alg. 1 with c = B "above" answers) on the real queries x_t = |a_t − p_t| of
public sensitivity S. Floating-point Laplace noise is not DP over the doubles
(Mironov, CCS 2012), so the comparison is done in exact integers:

* a public grid spacing γ = 2^j, the largest power of two with γ ≤ S·2⁻²⁰;
* the query rounded to the grid, r(x) = rint(x/γ) (clipped at 2⁶⁰ units, a
  1-Lipschitz public clip), of sensitivity Δ_γ = ⌈S/γ⌉ + 1 grid units
  (|rint(u) − rint(v)| ≤ |u − v| + 1, an integer);
* the threshold Σ = ⌈σ/γ⌉ units;
* ρ ~ DLap(T₁), T₁ = ⌈Δ_γ/ε₁⌉, and ν_t ~ DLap(T₂), T₂ = ⌈2BΔ_γ/ε₂⌉, on ℤ,
  drawn exactly by :func:`dpsvm.mechanisms.sample_discrete_laplace`
  (Canonne, Kamath & Steinke, NeurIPS 2020, Alg. 2);
* an update iff r(x_t) + ν_t ≥ Σ + ρ.

Privacy: Lyu, Su & Li's Thm 2 (Dwork & Roth Thm 3.23 for c = 1) holds for
integer queries of sensitivity Δ_γ with discrete Laplace noise: the proof
shifts ρ ↦ ρ + Δ_γ and each "above" query's ν ↦ ν + 2Δ_γ, a bijection of the
integers under which the discrete Laplace mass changes by a factor at most
e^{Δ_γ/T₁} ≤ e^{ε₁} (resp. e^{2Δ_γ/T₂} ≤ e^{ε₂/B} for each of the ≤ B
"above" answers), so the run is (ε₁ + ε₂)-DP exactly as over the reals. In
real units the noise scales are T₁γ ≤ (S + 2γ)/ε₁ + γ and similarly for T₂:
they grow by the rounding term only, a factor below 1 + 2⁻¹⁸.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

__all__ = ["SparseVectorGrid", "sparse_vector_grid"]

#: γ ≤ S·2^−_GRID_BITS: the rounding adds at most 2γ to the sensitivity.
_GRID_BITS = 20
#: Public clip of the rounded query, in grid units (keeps int64 sums exact).
_MAX_UNITS = 2**60


@dataclass(frozen=True)
class SparseVectorGrid:
    """The public integer constants of one exact sparse-vector run.

    Attributes
    ----------
    spacing : float
        γ, a power of two.
    sensitivity_units : int
        Δ_γ = ⌈S/γ⌉ + 1.
    threshold_units : int
        Σ = ⌈σ/γ⌉.
    threshold_noise_units : int
        T₁ = ⌈Δ_γ/ε₁⌉: ρ ~ DLap(T₁).
    comparison_noise_units : int
        T₂ = ⌈2BΔ_γ/ε₂⌉: ν ~ DLap(T₂).
    """

    spacing: float
    sensitivity_units: int
    threshold_units: int
    threshold_noise_units: int
    comparison_noise_units: int

    def to_units(self, values: NDArray[np.float64]) -> NDArray[np.int64]:
        """r(x) = rint(x/γ), clipped to ±2⁶⁰ (exact: γ is a power of two).

        Parameters
        ----------
        values : ndarray of float
            The real query values.

        Returns
        -------
        ndarray of int64
            Their grid units.
        """
        scaled = np.clip(
            np.asarray(values, dtype=np.float64) / self.spacing, -_MAX_UNITS, _MAX_UNITS
        )
        return np.rint(scaled).astype(np.int64)


def sparse_vector_grid(
    sensitivity: float,
    threshold: float,
    threshold_epsilon: float,
    comparison_epsilon: float,
    max_above: int,
) -> SparseVectorGrid:
    """The grid and integer noise scales of exact AboveThreshold (module doc).

    Parameters
    ----------
    sensitivity : float
        S > 0, the public sensitivity of the real queries.
    threshold : float
        σ, the public threshold (real units).
    threshold_epsilon, comparison_epsilon : float
        ε₁ (threshold noise) and ε₂ (all comparisons).
    max_above : int
        B, the most "above" answers (Lyu, Su & Li's c).

    Returns
    -------
    SparseVectorGrid
        γ, Δ_γ, Σ, T₁ and T₂.

    Examples
    --------
    >>> g = sparse_vector_grid(1.0, 10.0, 0.5, 0.5, 2)
    >>> g.spacing == 2.0**-20, g.sensitivity_units, g.threshold_noise_units
    (True, 1048577, 2097154)
    """
    S = float(sensitivity)
    if not (math.isfinite(S) and S > 0):
        raise ValueError(f"The sensitivity must be positive and finite; got {S!r}.")
    # S = m·2^e with m in [0.5, 1): the largest 2^j ≤ S·2^-20 is 2^(e−1−20).
    spacing = math.ldexp(1.0, math.frexp(S)[1] - 1 - _GRID_BITS)
    units = math.ceil(Fraction(S) / Fraction(spacing)) + 1
    return SparseVectorGrid(
        spacing=spacing,
        sensitivity_units=units,
        threshold_units=math.ceil(Fraction(float(threshold)) / Fraction(spacing)),
        threshold_noise_units=math.ceil(units / Fraction(float(threshold_epsilon))),
        comparison_noise_units=math.ceil(
            2 * int(max_above) * units / Fraction(float(comparison_epsilon))
        ),
    )

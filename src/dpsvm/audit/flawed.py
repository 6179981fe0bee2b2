# SPDX-License-Identifier: BSD-3-Clause
"""Deliberately flawed mechanisms — NEVER FOR USE — that the auditor must catch.

.. warning::

   **Nothing in this module is differentially private.** Each class reproduces a
   published mechanism *as printed*, with the error that makes it leak, so that
   the test suite can show that :class:`dpsvm.audit.Auditor` detects real flaws
   (an auditor that never fails proves nothing). They are not exported by
   :mod:`dpsvm` or :mod:`dpsvm.audit`, carry ``NOT_PRIVATE = True`` and must
   never be used on personal data.

* :class:`LiteralBetaObjectivePerturbation` — paper 001 (Sarwate, Chaudhuri &
  Monteleoni, arXiv:0912.0071) Alg. 1 read literally: β = ε·n in
  ν(b) ∝ exp(−(β/2)‖b‖) *together with* the (1/n)bᵀf term of eq. (9), i.e. n
  times too little noise (spec 000-001, S-P1).
* :class:`NieWangScalarOffset` — paper 002 (Nie & Wang) eq. (2), Lemma 1 /
  Prop. 1: the exact function f_z plus one random *scalar* b. Differences
  f(x₁) − f(x₂) are released exactly (spec 002-003, A.8-1).
* :class:`JainThakurtaTDILPrinted` — paper 003 (Jain & Thakurta, ICML 2013)
  Alg. 3 (TDIL) with its printed calibration: the exponential-mechanism
  exponent Λ = ε₀nλ/(8LR_φ²) costs ε₀/2 per step, a factor growing with n
  (spec 002-003, B.4 pitfall 1).

The non-private SVM used as the fourth flawed variant is
:class:`dpsvm.models.NonPrivateLinearClassifier` itself (it claims nothing; the
registry attaches a claim of ε = 1 to it).

Every class is a picklable callable ``(X, y, seed) -> released vector`` (the
"mechanism" form of :class:`dpsvm.audit.Auditor`). Labels must be −1/+1.
"""

from __future__ import annotations

import hashlib
import math
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..losses import get_loss
from ..mechanisms import ExponentialMechanism, sample_gamma_norm
from ..solvers import solve_hinge, solve_smooth
from ..utils._random import check_random_state
from ..validation import (
    check_delta,
    check_epsilon,
    check_positive,
    project_rows_to_ball,
)

__all__ = [
    "JainThakurtaTDILPrinted",
    "LiteralBetaObjectivePerturbation",
    "NieWangScalarOffset",
]

FloatArray = NDArray[np.float64]

# Exact (non-private) minimisers are deterministic functions of the data; an
# audit calls a mechanism thousands of times on the same two datasets, so they
# are cached per process (keyed by a hash of the data and the problem).
_CACHE: OrderedDict[tuple[Any, ...], FloatArray] = OrderedDict()
_CACHE_SIZE = 32


def _labels(y: ArrayLike) -> FloatArray:
    y = np.asarray(y, dtype=np.float64).ravel()
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError("The flawed mechanisms take labels in {-1, +1}.")
    return y


def _hinge_minimiser(X: FloatArray, y: FloatArray, lam: float) -> FloatArray:
    """argmin (λ/2)‖w‖² + (1/n)Σ max(0, 1 − yᵢwᵀxᵢ), certified to 1e-9 (cached)."""
    key = (
        "hinge",
        lam,
        X.shape,
        hashlib.sha256(np.ascontiguousarray(X).tobytes()).hexdigest(),
        hashlib.sha256(np.ascontiguousarray(y).tobytes()).hexdigest(),
    )
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key].copy()
    res = solve_hinge(X, y, lam, tol=1e-12, target_distance=1e-9)
    if not res.distance_bound <= 1e-9:  # pragma: no cover - solver failure
        raise RuntimeError("The hinge solver did not reach the exact minimiser.")
    w = np.asarray(res.coef, dtype=np.float64)
    _CACHE[key] = w
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return w.copy()


def _segment_net(size: int) -> FloatArray:
    """φ(z) = (z, 1)/√2 on the grid of [−1, 1] with ``size`` points (cached)."""
    key = ("net", size)
    if key not in _CACHE:
        grid = np.linspace(-1.0, 1.0, size)
        _CACHE[key] = np.column_stack([grid, np.ones(size)]) / math.sqrt(2.0)
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return _CACHE[key]


@dataclass(frozen=True)
class LiteralBetaObjectivePerturbation:
    """NOT PRIVATE. Paper 001's objective perturbation with the literal β = ε·n.

    Minimises (1/n)Σ ℓ_h(yᵢwᵀxᵢ) + (Λ/2)‖w‖² + (1/n)bᵀw (paper 001, eq. (9) and
    Alg. 1) with b drawn from ν(b) ∝ exp(−(β/2)‖b‖), **β = ε·n** as printed in
    Alg. 1, i.e. ‖b‖ ~ Gamma(d, 2/(nε)). The self-consistent reading (spec S.1)
    has β = ε, so this adds n times too little noise: it is roughly (nε)-DP
    (spec 000-001, S-P1). Rows are projected onto the ball of radius
    ``data_norm``.

    Parameters
    ----------
    epsilon : float, default=1.0
        The (false) claimed ε.
    regularization : float, default=1.0
        Λ of the objective.
    huber_h : float, default=0.5
        Half-width h of the Huber loss (paper 001, eq. (2)).
    data_norm : float, default=1.0
        Public row-norm bound R.

    Notes
    -----
    Privacy: none at the claimed level. The library's private version is
    :class:`dpsvm.models.DPLinearSVC` with ``mechanism="objective"`` (the
    corrected calibration of Chaudhuri, Monteleoni & Sarwate, JMLR 2011).

    Examples
    --------
    >>> mech = LiteralBetaObjectivePerturbation(epsilon=1.0)
    >>> w = mech(np.ones((10, 1)), np.ones(10), 0)
    >>> w.shape, mech.NOT_PRIVATE
    ((1,), True)
    """

    epsilon: float = 1.0
    regularization: float = 1.0
    huber_h: float = 0.5
    data_norm: float = 1.0

    NOT_PRIVATE: ClassVar[bool] = True

    def __call__(self, X: ArrayLike, y: ArrayLike, seed: int | None) -> FloatArray:
        """Release the perturbed minimiser.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows.
        y : array-like of shape (n_samples,)
            Labels in {−1, +1}.
        seed : int or None
            Noise seed.

        Returns
        -------
        ndarray of shape (n_features,)
            The released weights.
        """
        eps = check_epsilon(self.epsilon)
        R = check_positive(self.data_norm, "data_norm")
        Xt = np.asarray(project_rows_to_ball(X, R), dtype=np.float64) / R
        yy = _labels(y)
        n, d = Xt.shape
        lam = check_positive(self.regularization, "regularization") / (R * R)
        rng = check_random_state(seed)
        # Paper 001, Alg. 1 AS PRINTED (the flaw): β = ε·n in exp(−(β/2)‖b‖), so
        # ‖b‖ ~ Gamma(d, 2/(nε)), together with the (1/n)bᵀw term of eq. (9).
        b = sample_gamma_norm(d, 2.0 / (n * eps), rng)
        loss = get_loss("huber", huber_h=self.huber_h)
        res = solve_smooth(Xt, yy, loss, lam, linear=b / n, tol=1e-10)
        return np.asarray(res.coef, dtype=np.float64) / R


@dataclass(frozen=True)
class NieWangScalarOffset:
    """NOT PRIVATE. Paper 002's output perturbation by one scalar, as printed.

    Releases the function f_{z,A} = f_z + b of Nie & Wang, eq. (2), for the
    linear-kernel hinge SVM (their Sec. 5.2, no bias): f_z minimises
    (1/m)Σ(1 − yᵢf(xᵢ))₊ + λ_NW‖f‖² with λ_NW = Λ/2, and b is a single real
    number with density ∝ exp(−ε|b|/B_Δ), B_Δ = 2κ²C_L/(λ_NW·γ·m) (Lemma 1 /
    Prop. 1, γ = 2, C_L = 1, κ = R), i.e. Lap(B_Δ/ε) (``noise_convention=
    "lemma1"``) or the printed Prop. 1 scale B_Δ/(2ε) (``"prop1"``). The
    released function is returned as the vector (w, b), f(x) = wᵀx + b.

    The noise moves the whole function by a constant, so f(x₁) − f(x₂) = wᵀ(x₁ −
    x₂) is released exactly and differs between neighbours: the two output
    distributions have disjoint supports and no finite ε holds (spec 002-003,
    A.8-1; the paper's Definition 1 only constrains events inside the
    intersection of the ranges).

    Parameters
    ----------
    epsilon : float, default=1.0
        The (false) claimed ε.
    regularization : float, default=1.0
        Λ in the library convention (1/n)Σℓ + (Λ/2)‖w‖² (λ_NW = Λ/2).
    data_norm : float, default=1.0
        Public row-norm bound R (κ of the linear kernel).
    noise_convention : {"lemma1", "prop1"}, default="lemma1"
        Scale B_Δ/ε (Lemma 1) or the printed Prop. 1 scale B_Δ/(2ε).

    Examples
    --------
    >>> mech = NieWangScalarOffset()
    >>> X, y = np.ones((10, 1)), np.ones(10)
    >>> a, b = mech(X, y, 0), mech(X, y, 1)
    >>> a.shape, bool(a[0] == b[0]), bool(a[1] != b[1])   # w exact, b random
    ((2,), True, True)
    """

    epsilon: float = 1.0
    regularization: float = 1.0
    data_norm: float = 1.0
    noise_convention: str = "lemma1"

    NOT_PRIVATE: ClassVar[bool] = True

    def noise_scale(self, n: int) -> float:
        """The Laplace scale of the offset b for n rows.

        Parameters
        ----------
        n : int
            Number of rows m.

        Returns
        -------
        float
            B_Δ/ε (``"lemma1"``) or B_Δ/(2ε) (``"prop1"``), B_Δ = 2R²/(Λn).

        Examples
        --------
        >>> NieWangScalarOffset(regularization=1.0).noise_scale(10)   # 2/(1·10)
        0.2
        """
        eps = check_epsilon(self.epsilon)
        lam_nw = check_positive(self.regularization, "regularization") / 2.0
        R = check_positive(self.data_norm, "data_norm")
        # Nie & Wang, Prop. 1 / Lemma 1: B_Δ = 2κ²C_L/(λγm), γ = 2, C_L = 1, κ = R.
        b_delta = 2.0 * R * R / (lam_nw * 2.0 * n)
        if self.noise_convention == "lemma1":
            return b_delta / eps  # Lemma 1: density ∝ exp(−ε|b|/B_Δ)
        if self.noise_convention == "prop1":
            return b_delta / (2.0 * eps)  # Prop. 1 as printed: Lap(α/2)
        raise ValueError(
            f"noise_convention must be 'lemma1' or 'prop1', got "
            f"{self.noise_convention!r}."
        )

    def __call__(self, X: ArrayLike, y: ArrayLike, seed: int | None) -> FloatArray:
        """Release (w, b): the exact minimiser and one scalar offset.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows.
        y : array-like of shape (n_samples,)
            Labels in {−1, +1}.
        seed : int or None
            Noise seed.

        Returns
        -------
        ndarray of shape (n_features + 1,)
            The released function as (w, b).
        """
        R = check_positive(self.data_norm, "data_norm")
        Xt = np.asarray(project_rows_to_ball(X, R), dtype=np.float64) / R
        yy = _labels(y)
        n = Xt.shape[0]
        scale = self.noise_scale(n)
        lam = check_positive(self.regularization, "regularization") / (R * R)
        w = _hinge_minimiser(Xt, yy, lam) / R
        rng = check_random_state(seed)
        # Nie & Wang, eq. (2) AS PRINTED (the flaw): one scalar b for the function.
        b = float(rng.laplace(0.0, scale))
        return np.append(w, b)


@dataclass(frozen=True)
class JainThakurtaTDILPrinted:
    """NOT PRIVATE. Paper 003's TDIL (Alg. 3) with its printed calibration.

    Input domain: the segment x ∈ [−1, 1] (d = 1), kernel
    K(x, x′) = (xx′ + 1)/2, i.e. the explicit map φ(x) = (x, 1)/√2 (a linear
    kernel with a public constant feature; R_φ = 1, L_φ = 1/√2), hinge loss
    (L = 1), w* = argmin (1/n)Σ hinge + (λ/2)‖w‖² (JT eq. (2)). Parameters as
    printed (spec 002-003, B.4):

    * B = ⌊nε/(100·L·R_φ·ln(4/δ))⌋ rounds (at least 1);
    * ε₀ = nελ/(10·L·R_φ²·√B·ln(4/δ)), σ = (4/ε₀)·ln(2B/β), η = σ/(4R_φ²);
    * ν = d·R_φ/(ε₀·n·L_φ) and 𝒮 a ν-net of the domain: the grid of [−1, 1]
      with spacing ν;
    * round t: z ∈ 𝒮 drawn with P(z) ∝ exp(Λ·|⟨φ(z), w_t − w*⟩|),
      Λ = ε₀nλ/(8LR_φ²); d̂_t = ⟨w* − w_t, φ(z)⟩ + Lap(1/(2ε₀)); if |d̂_t| > σ,
      α_t = η·sign(d̂_t), else α_t = 0; w_{t+1} = Σ_{i≤t} α_iφ(z_i).

    The release is ŵ = w_{B+1} ∈ ℝ² (the function x ↦ ⟨ŵ, φ(x)⟩). The score's
    sensitivity is S = 2LR_φ²/(λn), so one exponential-mechanism step costs
    2ΛS = ε₀/2, not the small per-round budget the composition assumes
    (spec B.4 pitfall 1); with n ≈ 1300, λ = 4 and B = 1 this is about 20 for a
    claimed ε = 1.

    Parameters
    ----------
    epsilon : float, default=1.0
        The (false) claimed ε.
    delta : float, default=1e-5
        The claimed δ.
    regularization : float, default=4.0
        λ of (λ/2)‖w‖² (JT eq. (2); the library's Λ).
    failure_prob : float, default=0.8
        β of the utility statement (enters σ only). The privacy claim of
        Thm 7 holds for every β ∈ (0, 1).
    max_candidates : int, default=2_000_000
        Refuse nets larger than this (the printed |𝒮| explodes with n).

    Examples
    --------
    >>> mech = JainThakurtaTDILPrinted()
    >>> p = mech.parameters(1301)
    >>> p["B"], round(p["epsilon_0"], 2), round(p["step_cost"], 2)
    (1, 40.34, 20.17)
    """

    epsilon: float = 1.0
    delta: float = 1e-5
    regularization: float = 4.0
    failure_prob: float = 0.8
    max_candidates: int = 2_000_000

    NOT_PRIVATE: ClassVar[bool] = True

    def parameters(self, n: int) -> dict[str, float]:
        """The printed parameters of Alg. 3 for n rows.

        Parameters
        ----------
        n : int
            Number of training rows.

        Returns
        -------
        dict
            ``B``, ``epsilon_0``, ``sigma``, ``eta``, ``Lambda`` (the exponent),
            ``nu`` (net radius), ``n_candidates``, ``sensitivity`` (S) and
            ``step_cost`` (2ΛS, the true ε of one exponential-mechanism step).
        """
        eps = check_epsilon(self.epsilon)
        delta = check_delta(self.delta, allow_zero=False)
        lam = check_positive(self.regularization, "regularization")
        beta = float(self.failure_prob)
        if not 0.0 < beta < 1.0:
            raise ValueError(f"failure_prob must be in (0, 1), got {beta}.")
        L, R, d, L_phi = 1.0, 1.0, 1, 1.0 / math.sqrt(2.0)
        log4d = math.log(4.0 / delta)
        # Jain & Thakurta (ICML 2013), Alg. 3 parameters AS PRINTED (spec B.4).
        B = max(1, math.floor(n * eps / (100.0 * L * R * log4d)))
        eps0 = n * eps * lam / (10.0 * L * R * R * math.sqrt(B) * log4d)
        sigma = 4.0 / eps0 * math.log(2.0 * B / beta)
        eta = sigma / (4.0 * R * R)
        Lam = eps0 * n * lam / (8.0 * L * R * R)  # the exponent (the flaw)
        nu = d * R / (eps0 * n * L_phi)
        S = 2.0 * L * R * R / (lam * n)  # JT eq. (3): prediction sensitivity
        return {
            "B": B,
            "epsilon_0": eps0,
            "sigma": sigma,
            "eta": eta,
            "Lambda": Lam,
            "nu": nu,
            "n_candidates": math.floor(2.0 / nu) + 1,
            "sensitivity": S,
            "step_cost": 2.0 * Lam * S,
        }

    def __call__(self, X: ArrayLike, y: ArrayLike, seed: int | None) -> FloatArray:
        """Run TDIL as printed and release ŵ.

        Parameters
        ----------
        X : array-like of shape (n_samples, 1)
            Inputs in [−1, 1] (clipped).
        y : array-like of shape (n_samples,)
            Labels in {−1, +1}.
        seed : int or None
            Noise seed.

        Returns
        -------
        ndarray of shape (2,)
            ŵ in the feature space of φ(x) = (x, 1)/√2.
        """
        x = np.clip(np.asarray(X, dtype=np.float64), -1.0, 1.0)
        if x.ndim != 2 or x.shape[1] != 1:
            raise ValueError(f"X must have shape (n_samples, 1), got {x.shape}.")
        yy = _labels(y)
        n = x.shape[0]
        p = self.parameters(n)
        if p["n_candidates"] > self.max_candidates:
            raise ValueError(
                f"The printed nu-net has {p['n_candidates']} points "
                f"(> max_candidates={self.max_candidates})."
            )
        phi = np.column_stack([x[:, 0], np.ones(n)]) / math.sqrt(2.0)
        w_star = _hinge_minimiser(phi, yy, float(self.regularization))
        cand = _segment_net(int(p["n_candidates"]))
        rng = check_random_state(seed)
        # P(z) ∝ exp(Λ·u(z)) is the exponential mechanism with ε/(2Δu) = Λ.
        em = ExponentialMechanism(epsilon=2.0 * p["Lambda"], sensitivity=1.0)
        w = np.zeros(2)
        for _ in range(int(p["B"])):
            v = w_star - w
            k = em.select(np.abs(cand @ v), rng)
            d_hat = float(cand[k] @ v + rng.laplace(0.0, 1.0 / (2.0 * p["epsilon_0"])))
            if abs(d_hat) > p["sigma"]:
                w = w + p["eta"] * math.copysign(1.0, d_hat) * cand[k]
        return w

# SPDX-License-Identifier: BSD-3-Clause
"""Deliberately flawed mechanisms — NEVER FOR USE — that the auditor must catch.

.. warning::

   **Nothing in this module is differentially private.** Each class reproduces a
   published mechanism *as printed*, with the error that makes it leak, so that
   the test suite can show that :class:`dpsvm.audit.Auditor` detects real flaws
   (an auditor that never fails proves nothing). They are not exported by
   :mod:`dpsvm` or :mod:`dpsvm.audit`, carry ``NOT_PRIVATE = True`` and must
   never be used on personal data.

Each variant runs the library's own code path with the paper-literal parameter
(no copy of a solver or a calibration):

* :class:`LiteralBetaObjectivePerturbation` — Sarwate, Chaudhuri & Monteleoni
  (arXiv:0912.0071), Algorithm 1 read literally: β = ε·n in ν(b) ∝
  exp(−(β/2)‖b‖) *together with* the (1/n)bᵀf term of eq. (9), i.e. n times too
  little noise. It is :class:`dpsvm.models.DPLinearSVC` with
  ``mechanism="objective-2009"`` (ε′ = ε, the same paper's Theorem 2 as
  printed) run at the nominal ε·n.
* :class:`NieWangScalarOffset` — Nie & Wang, eq. (2), Lemma 1 / Proposition 1:
  the exact function f_z plus one random *scalar* b, i.e.
  :class:`dpsvm.models.NonPrivateScalarOffsetRelease` with the linear kernel.
  Differences f(x₁) − f(x₂) are released exactly (correction: the outputs on
  neighbouring datasets have disjoint supports, so no finite ε holds;
  docs/nie_wang.md).
* :class:`JainThakurtaTDILPrinted` — Jain & Thakurta (ICML 2013), Algorithm 3
  (TDIL) with its printed calibration: the exponential-mechanism exponent
  Λ = ε₀nλ/(8LR_φ²) costs ε₀/2 per step (correction to their Theorem 7: a
  factor λn/(8LR_φ²) more than the per-round budget; docs/prediction.md
  section 3). The
  library's private version is :class:`dpsvm.prediction` 's data-independent
  predictor; this variant is built from :func:`dpsvm.solvers.solve_hinge`,
  :class:`dpsvm.mechanisms.ExponentialMechanism` and
  :class:`dpsvm.perturbation.OutputNoise`.

The non-private SVM used as the fourth flawed variant is
:class:`dpsvm.models.NonPrivateLinearClassifier` itself (it claims nothing; the
registry attaches a claim of ε = 1 to it).

Every class is a picklable callable ``(X, y, seed) -> release`` (the
"mechanism" form of :class:`dpsvm.audit.Auditor`). Labels must be −1/+1.
"""

from __future__ import annotations

import hashlib
import math
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from ..bounds.nie_wang import nw_noise_scale
from ..exceptions import NotPrivateWarning
from ..mechanisms import ExponentialMechanism
from ..models import DPLinearSVC, NonPrivateScalarOffsetRelease
from ..perturbation import OutputNoise, output_l2_sensitivity
from ..solvers import solve_hinge
from ..utils._random import check_random_state
from ..validation import check_delta, check_epsilon, check_positive
from ._auditor import SeededRelease

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
#: Public label set of every flawed variant.
_CLASSES = (-1, 1)


def _labels(y: Any) -> FloatArray:
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
class LiteralBetaObjectivePerturbation(SeededRelease):
    """NOT PRIVATE. Objective perturbation with the literal β = ε·n.

    Minimises (1/n)Σ ℓ_h(yᵢwᵀxᵢ) + (Λ/2)‖w‖² + (1/n)bᵀw (Sarwate, Chaudhuri &
    Monteleoni, arXiv:0912.0071, eq. (9) and Algorithm 1) with b drawn from
    ν(b) ∝ exp(−(β/2)‖b‖), **β = ε·n** as printed in Algorithm 1, i.e.
    ‖b‖ ~ Gamma(d, 2/(nε)). The self-consistent reading has β = ε (the same
    paper's Theorem 2), so this adds n times too little noise and is roughly
    (nε)-DP. It runs :class:`dpsvm.models.DPLinearSVC` with
    ``mechanism="objective-2009"`` (ε′ = ε, no correction) at the nominal
    ε·n, bias-free, rows projected onto the ball of radius ``data_norm``.

    Parameters
    ----------
    epsilon : float, default=1.0
        The (false) claimed ε.
    regularization : float, default=1.0
        Λ of the objective.
    huber_h : float, default=0.5
        Half-width h of the Huber loss (Sarwate et al. 2009, eq. (2)).
    data_norm : float, default=1.0
        Public row-norm bound R.

    Notes
    -----
    Privacy: none at the claimed level. The library's private version is
    :class:`dpsvm.models.DPLinearSVC` with ``mechanism="objective"`` (the
    corrected calibration of Chaudhuri, Monteleoni & Sarwate 2011, Theorem 9).

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

    def _release(self, X: FloatArray, y: FloatArray, seed: int | None) -> FloatArray:
        # Sarwate et al. 2009, Alg. 1 AS PRINTED (the flaw): β = ε·n in
        # exp(−(β/2)‖b‖), i.e. the ε′ = ε calibration of "objective-2009" at the
        # nominal ε·n: ‖b‖ ~ Gamma(d, 2/(nε)), with the (1/n)bᵀw term of eq. (9).
        est = DPLinearSVC(
            epsilon=check_epsilon(self.epsilon) * X.shape[0],
            mechanism="objective-2009",
            loss="huber",
            huber_h=self.huber_h,
            regularization=check_positive(self.regularization, "regularization"),
            data_norm=check_positive(self.data_norm, "data_norm"),
            fit_intercept=False,
            classes=_CLASSES,
            tol=1e-10,
            random_state=seed,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotPrivateWarning)
            est.fit(X, _labels(y))
        return np.asarray(est.coef_, dtype=np.float64).ravel()


@dataclass(frozen=True)
class NieWangScalarOffset(SeededRelease):
    """NOT PRIVATE. Output perturbation by one scalar, as printed by Nie & Wang.

    Releases the function f_{z,A} = f_z + b of Nie & Wang, eq. (2), for the
    linear-kernel hinge SVM (their Sec. 5.2, no bias): f_z minimises
    (1/m)Σ(1 − yᵢf(xᵢ))₊ + λ_NW‖f‖² with λ_NW = Λ/2, and b is a single real
    number with density ∝ exp(−ε|b|/B_Δ), B_Δ = 2κ²C_L/(λ_NW·γ·m) (Lemma 1 /
    Prop. 1, γ = 2, C_L = 1, κ = R), i.e. Lap(B_Δ/ε) (``noise_convention=
    "lemma1"``) or the printed Prop. 1 scale B_Δ/(2ε) (``"prop1"``). It is
    :class:`dpsvm.models.NonPrivateScalarOffsetRelease` with
    ``kernel="linear"``; the fitted model is the release (f(x) is its
    ``decision_function``).

    The noise moves the whole function by a constant, so f(x₁) − f(x₂) = wᵀ(x₁ −
    x₂) is released exactly and differs between neighbours: the two output
    distributions have disjoint supports and no finite ε holds (correction: the
    paper's Definition 1 only constrains events inside the intersection of the
    ranges; docs/nie_wang.md).

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
    >>> x1, x0 = np.ones((1, 1)), np.zeros((1, 1))
    >>> diff = [float(m.decision_function(x1)[0] - m.decision_function(x0)[0])
    ...         for m in (a, b)]
    >>> bool(abs(diff[0] - diff[1]) < 1e-12), a.offset_ != b.offset_  # f exact
    (True, True)
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
        convention = self.noise_convention
        if convention not in ("lemma1", "prop1"):
            raise ValueError(
                f"noise_convention must be 'lemma1' or 'prop1', got {convention!r}."
            )
        # Nie & Wang, Prop. 1 / Lemma 1: B_Δ = 2κ²C_L/(λγm), γ = 2, C_L = 1, κ = R,
        # λ = Λ/2; the scale NonPrivateScalarOffsetRelease draws b with.
        return nw_noise_scale(
            check_positive(self.data_norm, "data_norm"),
            1.0,
            check_positive(self.regularization, "regularization") / 2.0,
            2.0,
            n,
            check_epsilon(self.epsilon),
            "prop1" if convention == "prop1" else "lemma1",
        )

    def _release(
        self, X: FloatArray, y: FloatArray, seed: int | None
    ) -> NonPrivateScalarOffsetRelease:
        # Nie & Wang, eq. (2) AS PRINTED (the flaw): one scalar b for the function.
        est = NonPrivateScalarOffsetRelease(
            epsilon=check_epsilon(self.epsilon),
            noise_convention=self.noise_convention,
            kernel="linear",
            data_norm=check_positive(self.data_norm, "data_norm"),
            regularization=check_positive(self.regularization, "regularization"),
            classes=_CLASSES,
            random_state=seed,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotPrivateWarning)
            return est.fit(X, _labels(y))


@dataclass(frozen=True)
class JainThakurtaTDILPrinted(SeededRelease):
    """NOT PRIVATE. Jain & Thakurta's TDIL (Alg. 3) with its printed calibration.

    Input domain: the segment x ∈ [−1, 1] (d = 1), kernel
    K(x, x′) = (xx′ + 1)/2, i.e. the explicit map φ(x) = (x, 1)/√2 (a linear
    kernel with a public constant feature; R_φ = 1, L_φ = 1/√2), hinge loss
    (L = 1), w* = argmin (1/n)Σ hinge + (λ/2)‖w‖² (JT eq. (2)). Parameters as
    printed (Jain & Thakurta, ICML 2013, Algorithm 3 and Theorem 7):

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
    (correction to their Theorem 7, docs/prediction.md section 3); with
    n ≈ 1300, λ = 4 and B = 1 this is about 20 for a claimed ε = 1.

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
        # Jain & Thakurta (ICML 2013), Alg. 3 parameters AS PRINTED.
        B = max(1, math.floor(n * eps / (100.0 * L * R * log4d)))
        eps0 = n * eps * lam / (10.0 * L * R * R * math.sqrt(B) * log4d)
        sigma = 4.0 / eps0 * math.log(2.0 * B / beta)
        eta = sigma / (4.0 * R * R)
        Lam = eps0 * n * lam / (8.0 * L * R * R)  # the exponent (the flaw)
        nu = d * R / (eps0 * n * L_phi)
        # JT eq. (3): prediction sensitivity S = 2LR_φ²/(λn) (the minimiser's L2
        # sensitivity of Chaudhuri et al. 2011, Cor. 8, times R_φ²).
        S = output_l2_sensitivity(n, lam, L) * R * R
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

    def _release(self, X: FloatArray, y: FloatArray, seed: int | None) -> FloatArray:
        # X: shape (n_samples, 1), inputs in [−1, 1] (clipped); returns ŵ ∈ ℝ².
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
        # The noisy test d̂_t: Lap(1/(2ε₀)) as printed (sensitivity 1 at 2ε₀).
        test_noise = OutputNoise.laplace(2.0 * p["epsilon_0"], 1.0)
        w = np.zeros(2)
        for _ in range(int(p["B"])):
            v = w_star - w
            k = em.select(np.abs(cand @ v), rng)
            d_hat = float(cand[k] @ v + test_noise.sample(1, rng)[0])
            if abs(d_hat) > p["sigma"]:
                w = w + p["eta"] * math.copysign(1.0, d_hat) * cand[k]
        return w

# SPDX-License-Identifier: BSD-3-Clause
"""Private empirical risk minimization for generalized linear losses on a ball.

Three solvers of min_{‖w‖ ≤ Λ_W} (1/m) Σ ℓ(yᵢ⟨w, xᵢ⟩) with rows in the ball of
radius r̃ (enforced here by projection) and a 1/ρ-Lipschitz margin loss:

* :func:`noisy_projected_gd` — full-batch noisy projected gradient descent, the
  BST14-style substitute, (ε, δ) by Rényi-DP accounting with dp-accounting;
* :func:`phased_sgd` — the phased SGD oracle A_GLL (Bassily, Guzmán & Menart 2021,
  Alg. 2, on the Moreau-smoothed loss) as reconstructed for Bassily, Mohri &
  Suresh (2022), App. B.2; used alone it is the "single run" substitute;
* :func:`boosted_phased_sgd` — Algorithm 5 of Bassily, Mohri & Suresh (2022):
  M bootstrap runs of A_GLL plus an exponential-mechanism selection, with the
  corrected selection sensitivity (1 + Λ_W r̃/ρ)/m.

All three return an :class:`ERMResult` holding the coefficients and the
:class:`~dpsvm.accounting.PrivacyEvent` of the guarantee actually delivered
(replace-one neighbours).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.stats import binom

from ..accounting import PrivacyEvent
from ..losses import Loss
from ..mechanisms import discrete_gaussian_calibration, zcdp_noise_multiplier
from ..mechanisms.exponential import ExponentialMechanism
from ..perturbation import OutputNoise
from ..utils._random import (
    GeneratorLike,
    as_generator,
)
from ..validation import check_epsilon, check_positive, resolve_delta
from .losses import RhoHingeLoss, SmoothedRhoHingeLoss
from .projections import project_to_ball

__all__ = [
    "ERMResult",
    "boosted_phased_sgd",
    "boosting_parameters",
    "gaussian_gd_epsilon",
    "gaussian_gd_noise_multiplier",
    "noisy_projected_gd",
    "phased_sgd",
]

FloatArray = NDArray[np.float64]

_BGM21 = (
    "Bassily, Guzman & Menart (2021), 'Differentially private stochastic "
    "optimization: new results in convex and non-convex settings', NeurIPS, Alg. 2 "
    "(phased SGD for GLL); Feldman, Koren & Talwar (2020), STOC, Alg. 2"
)
_BMS22_ALG5 = (
    "Bassily, Mohri & Suresh (2022), 'Differentially private learning with margin "
    "guarantees', NeurIPS, arXiv:2204.10376, App. B.2, Alg. 5 and Lemma 3.1 "
    "(selection sensitivity corrected to (1 + Lambda_W r/rho)/m)"
)
_GD_REFERENCE = (
    "Bassily, Smith & Thakurta (2014), 'Private empirical risk minimization: "
    "efficient algorithms and tight error bounds', FOCS, Alg. 1 (noisy projected "
    "gradient descent, full batch); Renyi-DP accounting of the Gaussian mechanism "
    "(Mironov 2017, Prop. 3 and 7) by dp-accounting's RdpAccountant"
)


@dataclass(frozen=True)
class ERMResult:
    """Coefficients and privacy record of one private ERM run.

    Attributes
    ----------
    coef : ndarray of shape (n_features,)
        The released minimizer, in the ball of radius Λ_W.
    privacy_event : PrivacyEvent
        The guarantee delivered.
    details : dict
        Public facts of the run (noise scales, step sizes, numbers of steps).
    """

    coef: FloatArray
    privacy_event: PrivacyEvent
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class _BallProblem:
    """A checked private ERM problem on a ball, as the solvers pass it on.

    Rows ``X`` projected onto B(r̃) (r̃ = ``data_norm``), labels ``y`` in
    {−1, +1}, the constraint radius Λ_W (``radius``) and the (ε, δ) budget of
    one run. Algorithm 5 runs phased SGD on bootstraps of the same problem at a
    smaller budget (:func:`dataclasses.replace`).
    """

    X: FloatArray
    y: FloatArray
    radius: float
    data_norm: float
    epsilon: float
    delta: float


def _prepare(
    X: ArrayLike,
    y: ArrayLike,
    data_norm: float,
    radius: float,
    epsilon: float,
    delta: float,
    *,
    strict: bool,
) -> _BallProblem:
    """The checked problem (rows in B(r̃), ±1 labels, Λ_W, r̃, ε, δ) of the solvers.

    ``strict``: also require δ < 1/m (Bassily, Mohri & Suresh 2022, Lemma 3.1).
    """
    data_norm = check_positive(data_norm, "data_norm")
    Xa = np.asarray(X, dtype=np.float64)
    ya = np.asarray(y, dtype=np.float64)
    if Xa.ndim != 2 or ya.shape != (Xa.shape[0],) or Xa.shape[0] == 0:
        raise ValueError("X must be 2-D and y 1-D with one label per row of X.")
    if not np.all(np.isin(ya, (-1.0, 1.0))):
        raise ValueError("y must contain only the labels -1 and +1.")
    # The privacy proofs need every row in B(r̃); projecting each row onto the
    # public ball enforces it whatever the data (Bassily, Mohri & Suresh 2022,
    # Alg. 2 step 3).
    return _BallProblem(
        X=project_to_ball(Xa, data_norm),
        y=ya,
        radius=check_positive(radius, "radius"),
        data_norm=data_norm,
        epsilon=check_epsilon(epsilon),
        delta=_check_delta(delta, Xa.shape[0], strict=strict),
    )


def _check_delta(
    delta: float | str, m: int, *, strict: bool = True, needed_by: str = ""
) -> float:
    """δ ∈ (0, 1/m), ``"auto"`` resolved (:func:`dpsvm.validation.resolve_delta`).

    δ ≥ 1/m is refused by every solver (the library's one handling of δ; Lemma
    3.1 of Bassily, Mohri & Suresh 2022 needs it for Algorithm 5). ``strict``
    is kept for the callers (the check is the same); ``needed_by`` names the
    result in the message.
    """
    del strict
    return resolve_delta(
        delta,
        m,
        allow_zero=False,
        needed_by=f" (Bassily, Mohri & Suresh 2022, Lemma 3.1{needed_by})",
    )


def _check_boosting_epsilon(epsilon: float, delta: float) -> None:
    """Algorithm 5 needs ε ≤ ln(1/δ) (Bassily, Mohri & Suresh 2022, Lemma 3.1)."""
    if epsilon > math.log(1.0 / delta):
        raise ValueError(
            f"epsilon must be <= ln(1/delta) = {math.log(1.0 / delta):.3g} "
            f"(Bassily, Mohri & Suresh 2022, Lemma 3.1); got {epsilon}. Lower "
            "epsilon or delta, or use another solver."
        )


def _dp_accounting() -> Any:
    try:
        import dp_accounting
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "The noisy gradient-descent solver accounts (epsilon, delta) with the "
            "package dp-accounting (Google's RDP accountant): "
            "pip install 'dpsvm[accounting]' or pip install 'dp-accounting>=0.6'."
        ) from exc
    return dp_accounting


def gaussian_gd_epsilon(noise_multiplier: float, n_steps: int, delta: float) -> float:
    """ε of ``n_steps`` Gaussian releases, each with noise σ = z·Δ₂.

    Parameters
    ----------
    noise_multiplier : float
        z = σ/Δ₂ > 0, with Δ₂ the replace-one L2 sensitivity of each release.
    n_steps : int
        The number of adaptive releases T ≥ 1.
    delta : float
        δ ∈ (0, 1).

    Returns
    -------
    float
        The ε of the T-fold composition at δ, by Rényi-DP (dp-accounting).

    Notes
    -----
    The Gaussian mechanism's Rényi divergence at order α is α/(2z²) for any
    neighbouring relation once z is measured against the sensitivity of *that*
    relation (Mironov 2017, Prop. 7). The callers therefore pass the replace-one
    sensitivity (twice the per-example gradient bound, divided by m) explicitly.

    Examples
    --------
    >>> eps = gaussian_gd_epsilon(10.0, 100, 1e-5)  # RDP: 100·α/(2·10²) per order α
    >>> bool(4.0 < eps < 5.4)  # 5.4 > min_α α/2 + ln(1/δ)/(α − 1), Mironov Prop. 3
    True
    """
    return _rdp_epsilon(float(noise_multiplier), int(n_steps), float(delta))


@functools.lru_cache(maxsize=1024)
def _rdp_epsilon(noise_multiplier: float, n_steps: int, delta: float) -> float:
    dpa = _dp_accounting()
    acc = dpa.rdp.RdpAccountant(
        neighboring_relation=dpa.NeighboringRelation.REPLACE_ONE
    )
    event = dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(noise_multiplier), n_steps)
    acc.compose(event)
    return float(acc.get_epsilon(delta))


def gaussian_gd_noise_multiplier(epsilon: float, delta: float, n_steps: int) -> float:
    """Smallest (to 0.1 %) z with :func:`gaussian_gd_epsilon` ≤ ε.

    Parameters
    ----------
    epsilon : float
        Target ε > 0.
    delta : float
        δ ∈ (0, 1).
    n_steps : int
        The number of releases T ≥ 1.

    Returns
    -------
    float
        A noise multiplier z whose T-fold composition is (ε, δ)-DP.

    Examples
    --------
    >>> z = gaussian_gd_noise_multiplier(1.0, 1e-5, 50)
    >>> gaussian_gd_epsilon(z, 50, 1e-5) <= 1.0
    True
    """
    return _noise_multiplier(check_epsilon(epsilon), float(delta), int(n_steps))


@functools.lru_cache(maxsize=256)
def _noise_multiplier(epsilon: float, delta: float, n_steps: int) -> float:
    lo, hi = 0.0, 1.0
    while gaussian_gd_epsilon(hi, n_steps, delta) > epsilon:
        lo, hi = hi, 2.0 * hi
    while hi - lo > 1e-3 * hi:
        mid = 0.5 * (lo + hi)
        if gaussian_gd_epsilon(mid, n_steps, delta) > epsilon:
            lo = mid
        else:
            hi = mid
    return hi


def noisy_projected_gd(
    X: ArrayLike,
    y: ArrayLike,
    *,
    loss: Loss,
    radius: float,
    data_norm: float,
    epsilon: float,
    delta: float,
    n_steps: int = 200,
    random_state: GeneratorLike = None,
) -> ERMResult:
    """(ε, δ)-DP full-batch noisy projected (sub)gradient descent on a ball.

    w_{t+1} = Π_{B(Λ_W)}(w_t − η(∇L̂(w_t) + N(0, σ²I))) for t < T, released as
    the average of the last ⌈T/2⌉ iterates (post-processing of the noisy
    iterates; Shamir & Zhang 2013 for the rate).

    Parameters
    ----------
    X : array-like of shape (m, k)
        Rows; each is projected onto the ball of radius ``data_norm``.
    y : array-like of shape (m,)
        Labels in {−1, +1}.
    loss : Loss
        A convex margin loss with finite ``lipschitz`` (e.g. the ρ-hinge).
    radius : float
        Λ_W, the radius of the constraint ball.
    data_norm : float
        r̃, the public row-norm bound.
    epsilon : float
        ε > 0.
    delta : float
        δ ∈ (0, 1).
    n_steps : int, default=200
        T, the number of gradient steps.
    random_state : None or int, default=None
        ``None`` uses a fresh CSPRNG (real releases); an int is for tests and
        documentation only. A generator object is refused at ``fit`` (kept as a
        parameter, it would replay the noise).

    Returns
    -------
    ERMResult
        The averaged iterate and its (ε, δ) event.

    Notes
    -----
    **Privacy.** (ε, δ)-DP under replace-one. Each step releases the mean
    gradient, whose per-example part has norm ≤ L·r̃ (L = ``loss.lipschitz``,
    rows projected to B(r̃)); replacing one example moves the mean by at most
    Δ₂ = 2L·r̃/m, twice the add/remove value. z is calibrated by Rényi-DP
    composition over T steps (dp-accounting). No clipping is needed. Each
    noisy gradient is exact over doubles: rounded to a public grid 2^g and
    noised with a discrete Gaussian of σ ≥ z·(Δ₂ + √k·2^g) (Canonne, Kamath &
    Steinke 2020, Alg. 3 and Thm 14: the same Rényi curve as the Gaussian).

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [-1.0, 0.0]] * 20)
    >>> y = np.array([1, -1] * 20)
    >>> res = noisy_projected_gd(X, y, loss=RhoHingeLoss(0.5), radius=1.0,
    ...                          data_norm=1.0, epsilon=5.0, delta=1e-3,
    ...                          n_steps=20, random_state=0)
    >>> res.privacy_event.epsilon <= 5.0
    True
    """
    problem = _prepare(X, y, data_norm, radius, epsilon, delta, strict=False)
    Xp, ya = problem.X, problem.y
    m, k = Xp.shape
    n_steps = int(n_steps)
    if n_steps < 1:
        raise ValueError(f"n_steps must be >= 1, got {n_steps}.")
    lip = float(loss.lipschitz)
    if not math.isfinite(lip):
        raise ValueError(f"The {loss.name} loss is not Lipschitz; use the rho-hinge.")
    grad_bound = lip * problem.data_norm
    # Replace-one: two per-example gradients of norm ≤ L r̃ change, so the mean
    # gradient moves by at most 2 L r̃ / m (Bassily, Smith & Thakurta 2014, Alg. 1
    # with the replace-one sensitivity).
    sensitivity = 2.0 * grad_bound / m
    z = gaussian_gd_noise_multiplier(problem.epsilon, problem.delta, n_steps)
    # Exact per-step release (dpsvm.mechanisms._discrete_gaussian): the mean
    # gradient (norm ≤ L r̃, far inside the public box 2^(g+52) of the grid, so
    # neither clamp acts), rounded to a public grid 2^g and noised with a
    # discrete Gaussian of σ ≥ z·(Δ₂ + √k·2^g). Its Rényi divergence is at most
    # the Gaussian's α/(2z²) at every order (Canonne, Kamath & Steinke 2020,
    # Thm 14), so the accountant's ε below stands.
    noise_cal = discrete_gaussian_calibration(z, sensitivity, k)
    sigma = noise_cal.sigma
    achieved = gaussian_gd_epsilon(z, n_steps, problem.delta)
    # Step size for projected SGD on a convex problem with E‖g‖² ≤ G² + kσ²
    # and diameter 2Λ_W (Bassily, Smith & Thakurta 2014, Lemma 3.1 / Shamir &
    # Zhang 2013): η = 2Λ_W / sqrt((G² + kσ²) T).
    eta = 2.0 * problem.radius / math.sqrt((grad_bound**2 + k * sigma**2) * n_steps)
    gen = as_generator(random_state)
    w = np.zeros(k)
    avg = np.zeros(k)
    # Suffix averaging: the last ⌈T/2⌉ iterates. The projected-subgradient
    # analysis started at iterate ⌊T/2⌋ (at distance ≤ the diameter 2Λ_W from
    # any comparator) gives the same O(Λ_W·G/√T) rate up to a factor 2 (Shamir
    # & Zhang 2013, §3), without the bias of the early iterates near 0.
    first = n_steps // 2
    block = max(1, 2**16 // k)  # noise drawn a block of steps at a time
    for step in range(n_steps):
        if step % block == 0:
            noise = noise_cal.sample((min(block, n_steps - step), k), gen)
        t = ya * (Xp @ w)
        grad = Xp.T @ (loss.derivative(t) * ya) / m
        noisy_grad = noise_cal.release(grad, noise[step % block])  # on the grid
        w = project_to_ball(w - eta * noisy_grad, problem.radius)
        if step >= first:
            avg += w
    coef = project_to_ball(avg / (n_steps - first), problem.radius)
    event = PrivacyEvent(
        "noisy-projected-gd",
        achieved,
        problem.delta,
        sensitivity=sensitivity,
        sensitivity_norm="l2",
        reference=_GD_REFERENCE,
        details={
            "noise_multiplier": z,
            "sigma": sigma,
            "n_steps": n_steps,
            "step_size": eta,
            "accountant": "dp-accounting RdpAccountant (replace-one)",
            "release": "discrete",
        },
    )
    details = {
        "noise_multiplier": z,
        "sigma": sigma,
        "step_size": eta,
        "n_steps": n_steps,
    }
    return ERMResult(coef, event, details)


def phased_sgd(
    X: ArrayLike,
    y: ArrayLike,
    *,
    rho: float,
    radius: float,
    data_norm: float,
    epsilon: float,
    delta: float,
    random_state: GeneratorLike = None,
) -> ERMResult:
    """(ε, δ)-DP phased SGD on the smoothed ρ-hinge (the oracle A_GLL).

    Phases i = 1..⌈log₂ n⌉ each make one pass of projected SGD over nᵢ = ⌊n/2ⁱ⌋
    fresh examples with step ηᵢ = η/4ⁱ, starting from the previous phase's
    output, and release the average iterate plus Gaussian noise.

    Parameters
    ----------
    X : array-like of shape (m, k)
        Rows; each is projected onto the ball of radius ``data_norm``.
    y : array-like of shape (m,)
        Labels in {−1, +1}.
    rho : float
        The margin ρ > 0 of the ρ-hinge.
    radius : float
        Λ_W, the radius of the constraint ball.
    data_norm : float
        r̃, the public row-norm bound.
    epsilon : float
        ε > 0.
    delta : float
        δ ∈ (0, 1).
    random_state : None or int, default=None
        ``None`` uses a fresh CSPRNG (real releases); an int is for tests and
        documentation only. A generator object is refused at ``fit`` (kept as a
        parameter, it would replay the noise).

    Returns
    -------
    ERMResult
        The last phase's output and its (ε, δ) event.

    Notes
    -----
    **Privacy.** (ε, δ)-DP under replace-one. Reconstruction of Bassily, Guzmán
    & Menart (2021), Alg. 2 (the paper only cites it): with L = r̃/ρ,
    η = (2Λ_W/L)·min(4/√n, ε/√(k ln(1/δ))) and Moreau parameter λ = r̃²η the
    smoothed loss is 1/η-smooth in w, so every step (ηᵢ ≤ η) is non-expansive
    and replacing one example moves the phase's average iterate by at most
    2Lηᵢ. Each phase releases its average with Gaussian noise for that
    sensitivity at (ε, δ), exact over doubles (public grid plus discrete
    Gaussian, calibrated by zCDP: Canonne, Kamath & Steinke 2020, Thm 14 and
    Cor. 13); each example is used in at most one phase, so the phases compose
    in parallel to (ε, δ).

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [-1.0, 0.0]] * 32)
    >>> y = np.array([1, -1] * 32)
    >>> res = phased_sgd(X, y, rho=0.5, radius=1.0, data_norm=1.0, epsilon=2.0,
    ...                  delta=1e-3, random_state=0)
    >>> res.coef.shape
    (2,)
    """
    problem = _prepare(X, y, data_norm, radius, epsilon, delta, strict=False)
    return _phased_sgd(problem, check_positive(rho, "rho"), random_state)


def _phased_sgd(
    problem: _BallProblem, rho: float, random_state: GeneratorLike
) -> ERMResult:
    """:func:`phased_sgd` on a checked problem (ρ > 0 checked by the caller)."""
    Xp, ya, radius, data_norm = problem.X, problem.y, problem.radius, problem.data_norm
    epsilon, delta = problem.epsilon, problem.delta
    n, k = Xp.shape
    lip = data_norm / rho  # L = G r̃ with G = 1/ρ
    diameter = 2.0 * radius
    # Reconstructed step of Bassily, Guzman & Menart (2021), Alg. 2 / Feldman,
    # Koren & Talwar (2020), Alg. 2: η = (D/L) min(4/√n, ε/√(k ln(1/δ))).
    eta = (diameter / lip) * min(
        4.0 / math.sqrt(n), epsilon / math.sqrt(k * math.log(1.0 / delta))
    )
    smoothing = data_norm**2 * eta  # λ = r̃² η: the loss is 1/η-smooth in w
    loss = SmoothedRhoHingeLoss(rho=rho, smoothing=smoothing)
    gen = as_generator(random_state)
    order = gen.permutation(n)  # data-independent split into disjoint phases
    w = np.zeros(k)
    n_phases = max(1, math.ceil(math.log2(n)))
    start = 0
    sigmas = []
    for i in range(1, n_phases + 1):
        n_i = n // 2**i
        if n_i == 0:
            break  # nothing left to read: later phases would release w unchanged
        eta_i = eta / 4**i
        idx = order[start : start + n_i]
        start += n_i
        u = w.copy()
        total = np.zeros(k)
        for j in idx:
            t = ya[j] * float(Xp[j] @ u)
            g = float(loss.derivative(t)) * ya[j] * Xp[j]
            u = project_to_ball(u - eta_i * g, radius)
            total += u
        # The phase's average iterate moves by ≤ 2Lηᵢ: the perturbation layer's
        # Gaussian release, exact over doubles (grid + discrete Gaussian, zCDP
        # calibration of Canonne, Kamath & Steinke 2020, Thm 14 and Cor. 13);
        # σ recorded is the one of that release.
        noise = OutputNoise.gaussian(epsilon, delta, 2.0 * lip * eta_i)
        sigmas.append(
            discrete_gaussian_calibration(
                zcdp_noise_multiplier(epsilon, delta), 2.0 * lip * eta_i, k
            ).sigma
        )
        w = project_to_ball(noise.release(total / n_i, gen), radius)
    event = PrivacyEvent(
        "phased-sgd",
        epsilon,
        delta,
        sensitivity=2.0 * lip * eta / 4,
        sensitivity_norm="l2",
        reference=_BGM21,
        details={
            "step_size": eta,
            "smoothing": smoothing,
            "n_phases": len(sigmas),
            "sigmas": tuple(sigmas),
            "composition": "parallel over disjoint phases",
        },
    )
    return ERMResult(
        w, event, {"step_size": eta, "sigmas": sigmas, "n_steps": len(sigmas)}
    )


def boosting_parameters(
    epsilon: float, delta: float, beta: float
) -> tuple[int, float, float]:
    """Number of runs M and per-run (ε′, δ′) of Algorithm 5.

    Parameters
    ----------
    epsilon : float
        The total ε > 0.
    delta : float
        The total δ ∈ (0, 1).
    beta : float
        The confidence parameter β ∈ (0, 1).

    Returns
    -------
    tuple
        (M, ε′, δ′) with M = ⌈ln(2/β)⌉, ε′ = ε/(4M ln(2M/δ)) and
        δ′ = δ²/(4M ln(2M/δ)) (Bassily, Mohri & Suresh 2022, Alg. 5 steps 1-3).

    Examples
    --------
    >>> M, e, d = boosting_parameters(1.0, 1e-5, 0.05)
    >>> M, round(e, 4), float(f"{d:.2g}")
    (4, 0.0046, 4.6e-13)
    """
    epsilon = check_epsilon(epsilon)
    if not 0.0 < beta < 1.0:
        raise ValueError(f"beta must be in (0, 1), got {beta}.")
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must be in (0, 1), got {delta}.")
    # Bassily, Mohri & Suresh (2022), App. B.2, Alg. 5 steps 1-3.
    n_runs = max(1, math.ceil(math.log(2.0 / beta)))
    denom = 4.0 * n_runs * math.log(2.0 * n_runs / delta)
    return n_runs, epsilon / denom, delta**2 / denom


def _bootstrap_group_size(m: int, tail: float) -> int:
    """Smallest k with P(Bin(m, 1/m) > k) ≤ tail: copies of one index in a bootstrap."""
    k = 1
    while binom.sf(k, m, 1.0 / m) > tail:
        k += 1
    return k


def boosted_phased_sgd(
    X: ArrayLike,
    y: ArrayLike,
    *,
    rho: float,
    radius: float,
    data_norm: float,
    epsilon: float,
    delta: float,
    beta: float = 0.05,
    random_state: GeneratorLike = None,
) -> ERMResult:
    """Algorithm 5: M bootstrap runs of phased SGD and a private choice of the best.

    Parameters
    ----------
    X : array-like of shape (m, k)
        Rows; each is projected onto the ball of radius ``data_norm``.
    y : array-like of shape (m,)
        Labels in {−1, +1}.
    rho : float
        The margin ρ > 0 of the ρ-hinge.
    radius : float
        Λ_W, the radius of the constraint ball.
    data_norm : float
        r̃, the public row-norm bound.
    epsilon : float
        ε, with 0 < ε ≤ ln(1/δ).
    delta : float
        δ, with 0 < δ < 1/m.
    beta : float, default=0.05
        The confidence β ∈ (0, 1); M = ⌈ln(2/β)⌉ runs.
    random_state : None or int, default=None
        ``None`` uses a fresh CSPRNG (real releases); an int is for tests and
        documentation only. A generator object is refused at ``fit`` (kept as a
        parameter, it would replay the noise).

    Returns
    -------
    ERMResult
        The selected run's output and the composed (ε, δ) event.

    Raises
    ------
    ValueError
        If δ ≥ 1/m, ε > ln(1/δ), or the bootstrap group-privacy step does not
        hold for these public parameters.

    Notes
    -----
    **Privacy.** (ε, δ)-DP under replace-one (Bassily, Mohri & Suresh 2022,
    Lemma 3.1). A replaced example appears J ~ Bin(m, 1/m) times in a bootstrap;
    with ε̂ = ε/(2M) and δ̂ = δ/M, the group size g is the smallest integer with
    P(J > g) ≤ δ̂/2 (computed exactly; the paper uses the Chernoff value
    2 ln(2/δ̂), which is larger), and group privacy makes each (ε′, δ′) run
    (gε′, g·e^{(g−1)ε′}·δ′ + δ̂/2) ≤ (ε̂, δ̂)-DP — both inequalities are checked
    here. M runs compose to (ε/2, δ); the selection is the exponential mechanism
    at ε/2 with scores −L̂^ρ(w̃ᵗ) on the full sample, whose sensitivity is the loss
    range over m, (1 + Λ_W r̃/ρ)/m — the paper's Λ_W r̃/m misses the 1/ρ factor.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); y = np.where(X[:, 0] > 0, 1, -1)
    >>> res = boosted_phased_sgd(X, y, rho=0.5, radius=1.0, data_norm=1.0,
    ...                          epsilon=1.0, delta=1e-3, random_state=0)
    >>> res.privacy_event.epsilon, len(res.privacy_event.children)
    (1.0, 5)
    """
    problem = _prepare(X, y, data_norm, radius, epsilon, delta, strict=True)
    rho = check_positive(rho, "rho")
    Xp, ya, epsilon, delta = problem.X, problem.y, problem.epsilon, problem.delta
    m = Xp.shape[0]
    _check_boosting_epsilon(epsilon, delta)
    n_runs, eps_run, delta_run = boosting_parameters(epsilon, delta, beta)
    eps_hat, delta_hat = epsilon / (2.0 * n_runs), delta / n_runs
    group = _bootstrap_group_size(m, delta_hat / 2.0)
    group_delta = group * math.exp((group - 1) * eps_run) * delta_run
    if group * eps_run > eps_hat * (1 + 1e-12) or group_delta > delta_hat / 2.0:
        raise ValueError(
            "The bootstrap group-privacy step of Algorithm 5 does not hold for "
            f"n_samples={m}, epsilon={epsilon}, delta={delta}, beta={beta}. "
            "Lower delta or use another solver."
        )
    gen = as_generator(random_state)
    runs = []
    steps = []
    children = []
    for _ in range(n_runs):
        # Alg. 5 step 5: a bootstrap of the indices (data-independent draws).
        idx = gen.integers(0, m, size=m)
        # The rows are already in B(r̃): each run solves the bootstrap problem
        # at the run budget (ε′, δ′).
        run = replace(problem, X=Xp[idx], y=ya[idx], epsilon=eps_run, delta=delta_run)
        res = _phased_sgd(run, rho, gen)
        runs.append(res.coef)
        steps.append(res.details["n_steps"])
        children.append(
            PrivacyEvent(
                "bootstrap-phased-sgd",
                eps_hat,
                delta_hat,
                sensitivity=res.privacy_event.sensitivity,
                sensitivity_norm="l2",
                reference=_BGM21,
                details={
                    "run_epsilon": eps_run,
                    "run_delta": delta_run,
                    "group": group,
                },
            )
        )
    hinge = RhoHingeLoss(rho)
    losses = np.array([np.mean(hinge.value(ya * (Xp @ w))) for w in runs])
    # Alg. 5 step 7 with the corrected sensitivity: the ρ-hinge on B(Λ_W) × B(r̃)
    # lies in [0, 1 + Λ_W r̃/ρ], so one replacement moves the mean by ≤ that / m.
    sel_sens = (1.0 + problem.radius * problem.data_norm / rho) / m
    em = ExponentialMechanism(epsilon=epsilon / 2.0, sensitivity=sel_sens)
    chosen = em.select(-losses, random_state=gen)
    children.append(em.privacy_event())
    event = PrivacyEvent(
        "boosted-phased-sgd",
        epsilon,
        delta,
        reference=_BMS22_ALG5,
        details={
            "n_runs": n_runs,
            "group_size": group,
            "selection_sensitivity": sel_sens,
            "composition": "basic",
        },
        children=tuple(children),
    )
    return ERMResult(
        runs[chosen],
        event,
        {"n_runs": n_runs, "group_size": group, "n_steps": steps[chosen]},
    )

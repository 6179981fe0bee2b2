# SPDX-License-Identifier: BSD-3-Clause
"""The test-data-independent learner (Jain & Thakurta Alg. 3), honestly calibrated."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from numbers import Integral, Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._compat import Interval, StrOptions, _fit_context
from ..accounting.accountant import BudgetAccountant
from ..bounds.prediction import data_independent_parameters, weight_norm_bound
from ..exceptions import DPSVMConvergenceError
from ..mechanisms import ExponentialMechanism, exponential_rejection_sample
from ..perturbation import OutputNoise
from ._common import FloatArray, refuse_vacuous, smallest_useful
from ._test_data import (
    HINGE_CONSTRAINTS,
    _PublicModelLearner,
    uniform_ball_points,
)

__all__ = [
    "TestDataIndependentLearner",
    "linear_exponential_acceptance",
    "sample_linear_exponential",
]

_MAX_TRIES = 1_000_000
#: ``candidates="auto"`` uses the exact continuous sampler (linear kernel) only
#: while a public bound on its expected proposals per round stays below this
#: (about 2 s a round); otherwise ``n_candidates`` uniform points.
MAX_EXPECTED_PROPOSALS = 2**22


def _sample_abs_coordinate(a: float, k: float, rng: np.random.Generator) -> float:
    """Exact draw of s ∈ [0, 1] with density ∝ exp(a·s)·(1 − s²)^k (a, k ≥ 0).

    With t = 1 − s the density is ∝ e^{−at}·t^k·(2 − t)^k on [0, 1]. For
    k = 0 it is a truncated exponential (inverse CDF). Otherwise, log(2 − t) is
    concave, so (2 − t)^k ≤ (2 − t₀)^k·exp(−k(t − t₀)/(2 − t₀)) for any t₀:
    propose t ~ Gamma(k + 1, rate a + k/(2 − t₀)) and accept (t ≤ 1) with the
    ratio of the two sides (≤ 1). t₀ is the target's mode, which is also the
    proposal's mode, so the acceptance rate stays high for every a and k.
    """
    if k == 0.0:
        u = rng.uniform()
        if a == 0.0:
            return 1.0 - u
        # Inverse CDF of e^{−at} on [0, 1].
        return 1.0 + math.log1p(-u * -math.expm1(-a)) / a
    # Mode of e^{−at}t^k(2 − t)^k: a t² − (2a + 2k) t + 2k = 0, smaller root.
    if a == 0.0:
        t0 = 1.0
    else:
        b = a + k
        t0 = min(1.0, 2.0 * k / (b + math.sqrt(b * b - 2.0 * a * k)))
    rate = a + k / (2.0 - t0)
    for _ in range(_MAX_TRIES):
        t = rng.gamma(k + 1.0, 1.0 / rate)
        if t > 1.0:
            continue
        log_ratio = k * (math.log((2.0 - t) / (2.0 - t0)) + (t - t0) / (2.0 - t0))
        if rng.uniform() < math.exp(min(0.0, log_ratio)):
            return 1.0 - t
    raise DPSVMConvergenceError(  # pragma: no cover - astronomically unlikely
        "The exact exponential-mechanism sampler did not accept a draw; nothing "
        "was released."
    )


def _sample_linear_exponential_float(
    v: ArrayLike, scale: float, radius: float, rng: np.random.Generator
) -> FloatArray:
    """The floating-point sampler of density ∝ exp(scale·|⟨z, v⟩|) on the ball.

    Not used for releases (its draws depend on v, so the doubles it can return
    depend on the data); kept as the reference law of
    :func:`sample_linear_exponential` in the tests. s = ⟨z, v̂⟩/radius has
    density ∝ exp(scale·radius·‖v‖·|s|)·(1 − s²)^{(d−1)/2} on [−1, 1]; given s
    the rest of z is uniform in the (d−1)-ball of radius radius·√(1 − s²).
    """
    v = np.asarray(v, dtype=np.float64).ravel()
    d = v.size
    norm = float(np.linalg.norm(v))
    if norm == 0.0:
        return uniform_ball_points(1, d, radius, rng)[0]
    vhat = v / norm
    s = _sample_abs_coordinate(scale * radius * norm, (d - 1) / 2.0, rng)
    s = s if rng.uniform() < 0.5 else -s
    z = s * vhat
    if d > 1:
        g = rng.standard_normal(d)
        g -= (g @ vhat) * vhat  # uniform direction in v̂^⊥
        gn = float(np.linalg.norm(g))
        if gn > 0:
            r = math.sqrt(max(0.0, 1.0 - s * s)) * rng.uniform() ** (1.0 / (d - 1))
            z = z + r * g / gn
    out = radius * z
    nz = float(np.linalg.norm(out))
    return out if nz <= radius else out * (radius / nz)


def linear_exponential_acceptance(a: float, d: int) -> float:
    """E[exp(−a(1 − |s|))] for s = ⟨z, v̂⟩/radius, z uniform on the d-ball.

    The acceptance rate of :func:`sample_linear_exponential`'s proposals
    (up to the e^{−2λ} of its rounding margin) when a = scale·radius·‖v‖:
    s has density ∝ (1 − s²)^{(d−1)/2}, so the rate is
    ∫₀¹ e^{−at}(t(2 − t))^{(d−1)/2} dt / ∫₀¹ (t(2 − t))^{(d−1)/2} dt, which for
    a ≫ d behaves like Γ((d+1)/2)·(2/a)^{(d+1)/2}/(2^{(d−1)/2}·∫…): the
    expected number of proposals grows like a^{(d+1)/2}.

    Parameters
    ----------
    a : float
        scale·radius·‖v‖ ≥ 0.
    d : int
        The dimension ≥ 1.

    Returns
    -------
    float
        The rate in (0, 1].

    Examples
    --------
    >>> linear_exponential_acceptance(0.0, 3)
    1.0
    >>> round(1 / linear_exponential_acceptance(10.0, 1), 3)  # a/(1 − e^{−a})
    10.0
    """
    k = (d - 1) / 2.0
    if a == 0.0:
        return 1.0
    # t = 1 - |s| in [0, 1]; log-space integrand on a grid fine near t = 0.
    t = np.expm1(np.linspace(0.0, math.log1p(1.0), 20001))
    t = t[(t > 0) & (t <= 1.0)]
    t = np.concatenate([[0.0], t])
    with np.errstate(divide="ignore"):
        log_w = k * np.log(t * (2.0 - t)) if k > 0 else np.zeros_like(t)
    w = np.exp(log_w)
    num = np.trapezoid(w * np.exp(-a * t), t)
    den = np.trapezoid(w, t)
    return float(min(1.0, num / den))


def sample_linear_exponential(
    v: ArrayLike,
    scale: float,
    radius: float,
    rng: np.random.Generator,
    *,
    sensitivity: float | None = None,
) -> FloatArray:
    """Draw z from the ball ‖z‖ ≤ radius with density ∝ exp(scale·|⟨z, v⟩|), exactly.

    The continuous exponential mechanism for the linear kernel (utility
    u(z) = |⟨z, v⟩| with v = w_t − w*), exact over doubles
    (:func:`dpsvm.mechanisms._exact.exponential_rejection_sample`): proposals
    are uniform points of the ball, drawn without the data; the utility is
    rounded to the public grid 2^j, j = ⌊log₂ Δu⌋ − 20; each proposal is
    accepted with an exact Bernoulli(exp(−λ(K_top − K(z)))) coin. The released
    point is a proposal point with exactly the law ∝ exp(λK(z)) under the
    uniform base measure.

    Parameters
    ----------
    v : array-like of shape (d,)
        The direction vector (private).
    scale : float
        The exponent's factor (ε/(2Δu) for the exponential mechanism).
    radius : float
        The ball's radius.
    rng : numpy.random.Generator
        Randomness (a CSPRNG-backed one for real releases).
    sensitivity : float or None, default=None
        Δu, the utility's sensitivity, which sets the grid 2^j. The mechanism
        is then ε′-DP with ε′ = 2λΔ_g ≤ 2·scale·Δu, λ = scale·Δu/Δ_g and
        Δ_g = Δu/2^j + 1 (the rounding term); ``None``: Δu = 1/scale (the grid
        is 2^-20 of the exponent's unit), or 1 when scale = 0.

    Returns
    -------
    ndarray of shape (d,)
        The point.

    Notes
    -----
    **Running time.** A proposal is accepted with probability about
    e^{−2λ}·:func:`linear_exponential_acceptance` (a, d), a = scale·radius·‖v‖,
    so the expected number of proposals grows like a^{(d+1)/2} for a ≫ d: with
    ε the exponential mechanism's ε, Δu = radius·Δ_H, a ≈ ε‖v‖/(2Δ_H) grows
    linearly in ε and the cost polynomially with exponent (d+1)/2 in the
    dimension. It depends on the data only through ‖v‖, i.e. through the
    mechanism's normaliser (see
    :func:`~dpsvm.mechanisms._exact.exponential_rejection_sample`).
    :class:`TestDataIndependentLearner` uses it only where a public bound on
    that cost is small.

    Examples
    --------
    >>> z = sample_linear_exponential([1.0, 0.0], 50.0, 1.0,
    ...                               np.random.default_rng(0))
    >>> bool(abs(z[0]) > 0.8 and np.linalg.norm(z) <= 1.0)
    True
    """
    v = np.asarray(v, dtype=np.float64).ravel()
    d = v.size
    scale = float(scale)
    if sensitivity is None:
        sensitivity = 1.0 / scale if scale > 0 else 1.0
    norm = float(np.linalg.norm(v))
    return exponential_rejection_sample(
        lambda m, g: uniform_ball_points(m, d, radius, g),
        lambda Z: np.abs(Z @ v),
        radius * norm * (1.0 + 2.0**-40),  # U ≥ |⟨z, v⟩| for ‖z‖ ≤ radius
        scale,
        float(sensitivity),
        rng,
    )


def _grid_points(n_points: int, d: int, radius: float) -> FloatArray:
    m = max(2, round(n_points ** (1.0 / d)))
    axis = np.linspace(-radius, radius, m)
    G = np.array(list(itertools.product(axis, repeat=d)), dtype=np.float64)
    return G[np.linalg.norm(G, axis=1) <= radius * (1 + 1e-12)]


class TestDataIndependentLearner(_PublicModelLearner):
    """Release a kernel classifier built from privately selected points.

    Jain & Thakurta's Alg. 3, honestly recalibrated: for B rounds, the
    exponential mechanism picks a point z where the current public model
    w_t = Σα_τφ(z_τ) disagrees most with the private w* (utility
    |⟨φ(z), w_t − w*⟩|), a noisy difference d̂ = ⟨w* − w_t, φ(z)⟩ + Lap(S/ε_lap)
    decides an update α = η·sign(d̂) if |d̂| > σ, and the released model is the
    pairs (z_τ, α_τ). No test data are needed.

    The paper's ν-net of the input ball is infeasible (|𝒮| = (4/ν)^d, about
    10²⁴ points for d = 5); the exponential mechanism is exactly private over
    any candidate set fixed independently of the data, so the candidates are a
    grid, uniform points of the domain, or public points, and for the linear
    kernel the whole ball, sampled exactly. **Utility caveat:** Theorem 8 is
    not established for this calibration (the selection gap
    2S·ln(|𝒮|/β)/ε_em can exceed σ); measure accuracy, do not assume it.

    Parameters
    ----------
    epsilon : float, default=1.0
        Total ε of the B rounds.
    delta : float or "auto", default=1e-6
        Total δ ∈ (0, 1/n) (advanced composition over the rounds); ``"auto"``:
        n^−1.5 of the public row count (:func:`dpsvm.validation.resolve_delta`).
    n_rounds : int or None, default=None
        B; ``None``: nε/(100·L·R_φ·ln(4/δ)) (Alg. 3), at least 1.
    beta : float, default=0.05
        β in σ = 8·(S/ε_lap)·ln(2B/β).
    em_fraction : float, default=0.5
        Share of each round's budget for the exponential mechanism.
    candidates : {"auto", "continuous", "uniform", "grid"} or array-like, \
default="auto"
        ``"continuous"`` (linear kernel only): the whole ball, exact sampler;
        ``"uniform"``: ``n_candidates`` uniform points of the domain;
        ``"grid"``: a grid of about ``n_candidates`` points (small d);
        an array: public points (projected). ``"auto"``: continuous for the
        linear kernel while a public bound on the exact sampler's expected
        proposals per round stays below ``MAX_EXPECTED_PROPOSALS`` (2²²,
        about 2 s a round), else uniform. An explicit ``"continuous"`` beyond
        that bound is refused at ``fit`` before anything is spent.
    n_candidates : int, default=1000
        Size of the uniform or grid candidate set.
    on_vacuous : {"raise", "warn"}, default="raise"
        What ``fit`` does when, from public quantities only, the update
        threshold σ is at least C·R_φ (no genuine update, the model is 0):
        raise :class:`VacuousCalibrationError` (naming the smallest n or the ε
        that would work; nothing is spent) or warn.
    accountant : BudgetAccountant or None, default=None
        Checked for (ε, δ) before the training data are read
        (:func:`dpsvm.accounting.charge`) and charged ``privacy_event_`` once,
        after a successful fit; a failed fit spends nothing.
    kernel : {"linear", "rbf", "poly"} or callable, default="linear"
        K(x, y) = ⟨x, y⟩, exp(−γ‖x − y‖²), (γ⟨x, y⟩ + c₀)^p, or a
        callable ``K(A, B) -> gram`` with ``kernel_bound`` declared.
    gamma : float, default=1.0
        γ > 0 (rbf, poly), fixed before seeing the data.
    degree : int, default=3
        p (poly).
    coef0 : float, default=1.0
        c₀ ≥ 0 (poly).
    data_norm : float or None, default=1.0
        Radius of the declared input domain; training rows, candidate points
        and prediction inputs are projected onto it and R_φ is computed from it.
    kernel_bound : float or None, default=None
        R_φ of a callable kernel (required for one, refused otherwise).
    regularization : float, default=0.01
        λ > 0 of (λ/2)‖w‖² (public, not tuned on the data).
    classes : array-like or None, default=None
        The public label set (two labels); ``None`` reads it from y with a
        :class:`~dpsvm.exceptions.PrivacyLeakWarning`.
    random_state : None or int, default=None
        ``None``: CSPRNG noise (real use). An int: **tests and docs only**. A
        generator object is refused at ``fit`` (kept as a parameter, it would
        replay the noise).

    Attributes
    ----------
    classes_ : ndarray
        The label set.
    kappa_ : float
        R_φ on the declared domain.
    prediction_sensitivity_ : float
        S = 2LR_φ²/(λn) plus the solver-certificate margin.
    lipschitz_ : float
        L = 1 (hinge).
    privacy_event_ : PrivacyEvent
        The record of the release.
    n_features_in_ : int
        Number of input features.
    n_rounds_ : int
        B.
    threshold_ : float
        σ.
    step_ : float
        η = σ/(4R_φ²).
    support_ : ndarray of shape (n_updates, n_features)
        The released points z_τ of the update rounds.
    dual_coef_ : ndarray of shape (n_updates,)
        The released steps α_τ.

    Notes
    -----
    Privacy: replace-one neighbours. The utility |⟨φ(z), w_t − w*⟩| moves by at
    most S = 2LR_φ²/(λn) (Jain & Thakurta eq. (3); w_t is public), so the
    selection with P(z) ∝ exp(ε_em·u(z)/(2S)) is ε_em-DP (McSherry & Talwar
    2007) and the Laplace test ε_lap-DP; each round is ε_r = ε_em + ε_lap and B
    rounds compose to (ε, δ) by Thm 11 (Dwork, Rothblum & Vadhan), ε_r being
    the largest value that fits (or ε/B). As printed, Alg. 3's selection costs
    ε₀/2 per round, a factor λn/(8LR_φ²) more than its Laplace step, and the
    algorithm is not (ε, δ)-DP (``docs/prediction.md``;
    :class:`dpsvm.audit.flawed.JainThakurtaTDILPrinted`). The paper's second
    "output" draw per round is not released. Assumptions (enforced): rows and
    candidates in the declared domain, hinge loss, the certified bias-free
    minimiser, public hyperparameters, candidates independent of the data.
    The private model is dropped at the end of ``fit``.

    References
    ----------
    .. [1] P. Jain, A. Thakurta, "Differentially private learning with
       kernels", ICML 2013, Alg. 3, Theorems 7, 8, 11, eq. (3).
    .. [2] F. McSherry, K. Talwar, "Mechanism design via differential privacy",
       FOCS 2007.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(300, 2)) / 2
    >>> y = np.where(X[:, 0] > 0, 1, -1)
    >>> clf = TestDataIndependentLearner(kernel="linear", n_rounds=5, epsilon=5.0,
    ...     regularization=0.1, classes=[-1, 1], random_state=0).fit(X, y)
    >>> clf.predict(X[:4]).shape
    (4,)
    """

    _parameter_constraints: dict[str, Any] = {
        **HINGE_CONSTRAINTS,
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither"), StrOptions({"auto"})],
        "n_rounds": [Interval(Integral, 1, None, closed="left"), None],
        "beta": [Interval(Real, 0, 1, closed="neither")],
        "em_fraction": [Interval(Real, 0, 1, closed="neither")],
        "candidates": [
            StrOptions({"auto", "continuous", "uniform", "grid"}),
            "array-like",
        ],
        "n_candidates": [Interval(Integral, 1, None, closed="left")],
        "on_vacuous": [StrOptions({"raise", "warn"})],
    }

    def __init__(
        self,
        *,
        epsilon: float = 1.0,
        delta: float | str = 1e-6,
        n_rounds: int | None = None,
        beta: float = 0.05,
        em_fraction: float = 0.5,
        candidates: str | ArrayLike = "auto",
        n_candidates: int = 1000,
        on_vacuous: str = "raise",
        accountant: BudgetAccountant | None = None,
        kernel: str | Callable[..., Any] = "linear",
        gamma: float = 1.0,
        degree: int = 3,
        coef0: float = 1.0,
        data_norm: float | None = 1.0,
        kernel_bound: float | None = None,
        regularization: float = 0.01,
        classes: ArrayLike | None = None,
        random_state: int | None = None,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.n_rounds = n_rounds
        self.beta = beta
        self.em_fraction = em_fraction
        self.candidates = candidates
        self.n_candidates = n_candidates
        self.on_vacuous = on_vacuous
        self.accountant = accountant
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.data_norm = data_norm
        self.kernel_bound = kernel_bound
        self.regularization = regularization
        self.classes = classes
        self.random_state = random_state

    def _parameters(
        self, n: int, eps: float, delta: float, S: float, R: float, d: int
    ) -> Any:
        return data_independent_parameters(
            n,
            eps,
            delta,
            self.beta,
            float(self.regularization),
            self.lipschitz_,
            R,
            d,
            1.0,
            n_rounds=self.n_rounds,
            em_fraction=self.em_fraction,
            sensitivity=S,
        )

    def _check_useful(
        self, n: int, eps: float, delta: float, S: float, R: float, d: int
    ) -> None:
        """Refuse σ ≥ C·R_φ: no genuine update, the released model is 0.

        Public quantities only (n, ε, δ, λ, B, R_φ); the message names the
        smallest n or ε that would work.
        """
        CR = weight_norm_bound(self.lipschitz_, R, float(self.regularization)) * R

        def useful(n_: float, eps_: float) -> bool:
            n_i = max(1, int(n_))
            # S = κ(Δ_H + 2·cap) ∝ 1/n (Nie & Wang Thm 2): rescaled to n_ rows.
            return self._parameters(n_i, eps_, delta, S * n / n_i, R, d).threshold < CR

        if useful(n, eps):
            return
        hints = []
        n_min = smallest_useful(lambda v: useful(v, eps), n)
        if n_min is not None:
            hints.append(f"at least {int(n_min)} training rows")
        eps_min = smallest_useful(lambda v: useful(n, v), eps, integer=False)
        if eps_min is not None:
            hints.append(f"epsilon >= {eps_min:.3g}")
        sigma = self._parameters(n, eps, delta, S, R, d).threshold
        refuse_vacuous(
            self.on_vacuous,
            "TestDataIndependentLearner is vacuous here: the update threshold "
            f"σ = {sigma:.4g} is at least C·R_φ = {CR:.4g}, the largest possible "
            "|prediction|, so no genuine update occurs and the model is 0 (a coin "
            f"flip); use {' or '.join(hints) if hints else 'another learner'}.",
        )

    def _candidate_set(self, d: int, radius: float, rng: np.random.Generator) -> Any:
        """The data-independent candidates, or None for the continuous sampler."""
        mode = self.candidates
        if isinstance(mode, str):
            if mode == "auto":
                mode = "continuous" if self.kernel == "linear" else "uniform"
            if mode == "continuous":
                if self.kernel != "linear":
                    raise ValueError(
                        "candidates='continuous' is exact only for kernel='linear'; "
                        "use 'uniform', 'grid' or public points."
                    )
                return None
            if mode == "grid":
                return _grid_points(int(self.n_candidates), d, radius)
            return uniform_ball_points(int(self.n_candidates), d, radius, rng)
        C = np.asarray(mode, dtype=np.float64)
        if C.ndim != 2 or C.shape[1] != d or C.shape[0] == 0:
            raise ValueError(f"candidates must be a 2-D array with {d} columns.")
        if not np.all(np.isfinite(C)):
            raise ValueError("candidates must be finite (no NaN or inf).")
        return C

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: ArrayLike, y: ArrayLike) -> TestDataIndependentLearner:
        """Fit w* and release B rounds of private point selection.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private training rows (projected onto the declared domain).
        y : array-like of shape (n_samples,)
            Private labels (two classes).

        Returns
        -------
        self
            The released classifier.
        """
        with self._private_model(X, y, allow_zero_delta=False) as private:
            eps, delta, rng, cal, n, ticket = private
            spec, model = self._model.spec, self._model
            d = int(self.n_features_in_)
            radius = 1.0 if spec.data_norm is None else float(spec.data_norm)
            S = cal.prediction_effective
            R = self.kappa_
            params = data_independent_parameters(
                n,
                eps,
                delta,
                self.beta,
                float(self.regularization),
                self.lipschitz_,
                R,
                d,
                1.0,
                n_rounds=self.n_rounds,
                em_fraction=self.em_fraction,
                sensitivity=S,
            )
            B, sigma, eta = params.n_rounds, params.threshold, params.step
            self._check_useful(n, eps, delta, S, R, d)
            cands = self._candidate_set(d, radius, rng)
            if cands is None:
                # The exact continuous sampler's expected proposals per round,
                # bounded from public quantities only: ‖w_t − w*‖ ≤ Bηr + C.
                v_bound = B * eta * radius + weight_norm_bound(
                    self.lipschitz_, R, float(self.regularization)
                )
                a = params.em_epsilon / (2.0 * S) * radius * v_bound
                cost = 1.0 / linear_exponential_acceptance(a, d)
                if cost > MAX_EXPECTED_PROPOSALS:
                    if self.candidates != "auto":
                        raise ValueError(
                            "candidates='continuous' would need up to "
                            f"{cost:.3g} proposals per round for the exact "
                            f"sampler here (limit {MAX_EXPECTED_PROPOSALS:.3g}); "
                            "use candidates='uniform' (n_candidates points) or "
                            "a smaller epsilon."
                        )
                    cands = uniform_ball_points(int(self.n_candidates), d, radius, rng)
            if cands is not None:
                cands = spec.project(cands)
            em = ExponentialMechanism(epsilon=params.em_epsilon, sensitivity=S)
            # Jain & Thakurta Alg. 3 step 5: the noisy difference is ε_lap-DP
            # (Laplace mechanism of the perturbation layer, sensitivity S).
            test_noise = OutputNoise.laplace(params.laplace_epsilon, S)
            pts: list[FloatArray] = []
            coef: list[float] = []
            if cands is not None:
                exact = model.decision(cands)  # ⟨w*, φ(z)⟩ on the candidates (private)
                public = np.zeros(cands.shape[0])  # ⟨w_t, φ(z)⟩ (public)
            else:
                assert model.coef is not None
                w_star = model.coef
                w_t = np.zeros(d)
            for _ in range(B):
                if cands is not None:
                    # Exponential mechanism, utility |⟨φ(z), w_t − w*⟩|, sensitivity S.
                    i = em.select(np.abs(exact - public), rng)
                    z, a, p = cands[i], exact[i : i + 1], float(public[i])
                else:
                    # Continuous exponential mechanism on the ball: exp(ε_em·u/(2S)).
                    # Exact: uniform proposals, utility on a 2^j grid
                    # (sensitivity S + 2^j), exact Bernoulli(exp(−γ)) coins.
                    z = sample_linear_exponential(
                        w_t - w_star,
                        params.em_epsilon / (2.0 * S),
                        radius,
                        rng,
                        sensitivity=S,
                    )
                    z = spec.project(z[None, :])[0]
                    a, p = np.array([z @ w_star]), float(z @ w_t)
                # d̂ = ⟨w*, φ(z)⟩ + Lap(S/ε_lap) − ⟨w_t, φ(z)⟩ (discretised Laplace).
                d_hat = float(test_noise.release(a, rng)[0]) - p
                if abs(d_hat) > sigma:
                    alpha = eta * (1.0 if d_hat > 0 else -1.0)
                    pts.append(np.array(z, dtype=np.float64))
                    coef.append(alpha)
                    if cands is not None:
                        public = public + alpha * spec.gram(cands, z[None, :])[:, 0]
                    else:
                        w_t = w_t + alpha * z
            self.n_rounds_ = B
            self.threshold_ = sigma
            self.step_ = eta
            self.support_ = np.asarray(pts, dtype=np.float64).reshape(-1, d)
            self.dual_coef_ = np.asarray(coef, dtype=np.float64)
            self._record_release(
                ticket,
                S,
                "test-data-independent-learner",
                eps,
                delta if B * params.round_epsilon > eps * (1 + 1e-12) else 0.0,
                (
                    "Alg. 3 recalibrated: B rounds of the exponential "
                    "mechanism (ε_em) and a Laplace test (ε_lap), S from eq. (3), "
                    "composed by Thm 11"
                ),
                {
                    "n_rounds": B,
                    "round_epsilon": params.round_epsilon,
                    "em_epsilon": params.em_epsilon,
                    "laplace_epsilon": params.laplace_epsilon,
                    "threshold": sigma,
                    "step": eta,
                    "candidates": "continuous"
                    if cands is None
                    else int(cands.shape[0]),
                    "n_samples": n,
                },
            )
        return self

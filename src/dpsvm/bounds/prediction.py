# SPDX-License-Identifier: BSD-3-Clause
"""Parameters and bounds of private kernel prediction (Jain & Thakurta, ICML 2013).

Pure formulas for the interactive predictor (Alg. 1), the test-data-dependent
learner (Alg. 2) and the test-data-independent learner (Alg. 3), with the
corrections derived in ``docs/prediction.md``:

* Alg. 1's printed ε₀ is twice what its own Theorem 9 allows
  (``constants="thm9"`` is the default; ``"alg1"`` reproduces the print);
* the printed update cap B is not unit-consistent and can put the threshold σ
  above every possible prediction C·R_φ (``vacuous`` flags it; ``B_rule=
  "potential"`` is the potential-argument cap);
* Alg. 3 as printed is not (ε, δ)-DP; :func:`data_independent_parameters`
  also returns the honest per-round budgets.

Conventions: replace-one neighbours, the objective
(1/n)Σℓ + (λ/2)‖w‖² (Jain & Thakurta eq. (2); λ = Λ of dpsvm), natural logs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..accounting.composition import per_step_epsilon
from ..utils._checks import check_int, check_open_unit
from ..validation import check_delta, check_epsilon, check_positive
from .nie_wang import nw_sup_sensitivity

__all__ = [
    "DataIndependentParameters",
    "InteractiveParameters",
    "data_independent_bound_thm8",
    "data_independent_parameters",
    "interactive_error_thm3",
    "interactive_error_thm10",
    "interactive_parameters",
    "kernel_prediction_sensitivity",
    "noisy_label_count",
    "noisy_label_excess_loss_bound",
    "noisy_label_scale",
    "weight_norm_bound",
]

#: Constant of Gupta, Roth & Ullman's Thm 4.1 as restated in Jain & Thakurta
#: Thm 9 (ε₀ = ε/(200·√B·S·ln(4/δ))) and the value printed in Alg. 1 (100).
_EPS0_CONSTANT = {"thm9": 200.0, "alg1": 100.0}

# Every formula first checks the ranges that its Parameters section states, in
# that order.


def _check_epsilon(epsilon: float, name: str) -> float:
    return check_epsilon(epsilon)


def _check_positive_delta(delta: float, name: str) -> float:
    return check_delta(delta, allow_zero=False)


def kernel_prediction_sensitivity(
    lipschitz: float, kernel_bound: float, lam: float, n_samples: int
) -> float:
    """Sensitivity S = 2LR_φ²/(λn) of one prediction ⟨w*, φ(z)⟩.

    Parameters
    ----------
    lipschitz : float
        L, the Lipschitz constant of the loss.
    kernel_bound : float
        R_φ = sup ‖φ(z)‖ over the declared domain.
    lam : float
        λ of (λ/2)‖w‖² (strong convexity).
    n_samples : int
        n, the number of training records.

    Returns
    -------
    float
        S, for replace-one neighbours.

    Notes
    -----
    Jain & Thakurta eq. (3) gives ‖w*_G − w*_G′‖ ≤ 2LR_φ/(λn); Cauchy–Schwarz
    gives S. It equals Nie & Wang's B_Δ with λ_NW = λ/2, γ = 2, which is how it
    is computed (one formula for both papers).

    Examples
    --------
    >>> round(kernel_prediction_sensitivity(1.0, math.sqrt(8), 0.002, 500_000), 12)
    0.016
    """
    lipschitz = check_positive(lipschitz, "lipschitz")
    kernel_bound = check_positive(kernel_bound, "kernel_bound")
    lam = check_positive(lam, "lam")
    n_samples = check_int(n_samples, "n_samples")
    # Jain & Thakurta eq. (3) + Cauchy–Schwarz = [NW] Prop. 1 B_Δ (λ_NW = λ/2, γ = 2).
    return nw_sup_sensitivity(kernel_bound, lipschitz, lam / 2.0, 2.0, n_samples)


def weight_norm_bound(lipschitz: float, kernel_bound: float, lam: float) -> float:
    """Data-independent bound C = 2LR_φ/λ on ‖w*‖ (Jain & Thakurta, Sec. 3).

    Parameters
    ----------
    lipschitz : float
        L, the Lipschitz constant of the loss.
    kernel_bound : float
        R_φ = sup ‖φ(z)‖ over the declared domain.
    lam : float
        λ of (λ/2)‖w‖² (strong convexity).

    Returns
    -------
    float
        C = 2LR_φ/λ (LR_φ/λ also holds, from the optimality condition).

    Examples
    --------
    >>> weight_norm_bound(1.0, 1.0, 1e-3)
    2000.0
    """
    lipschitz = check_positive(lipschitz, "lipschitz")
    kernel_bound = check_positive(kernel_bound, "kernel_bound")
    lam = check_positive(lam, "lam")
    return 2.0 * lipschitz * kernel_bound / lam


@dataclass(frozen=True)
class InteractiveParameters:
    """Calibration of the interactive predictor (Jain & Thakurta Alg. 1).

    Attributes
    ----------
    max_updates : int
        B, the cap on update rounds (≥ 1).
    eps0 : float
        ε₀; each noisy score is â = a + Lap(1/ε₀).
    threshold : float
        σ = (4/ε₀)·ln(2T/β).
    step : float
        η = σ/(4R_φ²).
    max_prediction : float
        C·R_φ, the largest possible |⟨w*, φ(z)⟩|.
    vacuous : bool
        σ ≥ C·R_φ: no genuine update can occur (every answer is 0-informative).
    """

    max_updates: int
    eps0: float
    threshold: float
    step: float
    max_prediction: float
    vacuous: bool


def _check_b_rule(B_rule: str | int) -> str | int:
    if isinstance(B_rule, str):
        if B_rule not in ("paper", "potential"):
            raise ValueError(
                f"B_rule must be 'paper', 'potential' or an int >= 1, got {B_rule!r}."
            )
        return B_rule
    return check_int(B_rule, "B_rule")


def interactive_parameters(
    n_samples: int,
    lam: float,
    epsilon: float,
    delta: float,
    beta: float,
    n_queries: int,
    lipschitz: float,
    kernel_bound: float,
    w_norm_bound: float,
    *,
    constants: str = "thm9",
    B_rule: str | int = "paper",
    sensitivity: float | None = None,
) -> InteractiveParameters:
    """B, ε₀, σ, η of the interactive predictor and the vacuity flag.

    Parameters
    ----------
    n_samples : int
        n, the number of training records.
    lam : float
        λ of (λ/2)‖w‖² (strong convexity).
    epsilon : float
        Total ε of all answers.
    delta : float
        Total δ ∈ (0, 1).
    beta : float
        Failure probability β ∈ (0, 1).
    n_queries : int
        T, the maximum number of queries (fixed in advance).
    lipschitz : float
        L, the Lipschitz constant of the loss.
    kernel_bound : float
        R_φ = sup ‖φ(z)‖ over the declared domain.
    w_norm_bound : float
        C ≥ ‖w*‖ (data-independent).
    constants : {"thm9", "alg1"}, default="thm9"
        ``"thm9"``: ε₀ = ε/(200·√B·S·ln(4/δ)) (Thm 9, the proof's value);
        ``"alg1"``: the printed ε₀ = nελ/(200·L·R_φ²·√B·ln(4/δ)), twice as large.
    B_rule : {"paper", "potential"} or int, default="paper"
        ``"paper"``: B = nλεC²/(200·L·R_φ·√(2 ln(2T/β))·ln(4/δ)) (Alg. 1);
        ``"potential"``: B = 16R_φ²C²/(3σ²) solved jointly with σ(B); an int:
        that cap. Privacy does not depend on B (ε₀ uses the same B).
    sensitivity : float or None, default=None
        S to calibrate to (e.g. including a solver-certificate margin);
        ``None``: 2LR_φ²/(λn).

    Returns
    -------
    InteractiveParameters
        The calibration.

    Notes
    -----
    Potential rule (derivation in ``docs/prediction.md``): an update with
    |⟨w* − w, φ(z)⟩| ≥ σ/2 and step η = σ/(4R²) lowers ‖w* − w‖² by at least
    3σ²/(16R²), so at most 16R²C²/(3σ²) updates occur. With σ = c·√B this is
    B = 4RC/(√3·c).

    Examples
    --------
    The vacuity example (n = 10⁵, λ = 10⁻³, ε = 1, T = 10⁴, β = 0.05,
    δ = 10⁻⁶, C = 2000) with the printed constants:

    >>> p = interactive_parameters(10**5, 1e-3, 1.0, 1e-6, 0.05, 10**4, 1.0, 1.0,
    ...                            2000.0, constants="alg1")
    >>> p.max_updates, round(p.eps0, 6), round(p.threshold, -3), p.vacuous
    (25902, 0.000204, 252000.0, True)
    """
    n_samples = check_int(n_samples, "n_samples")
    lam = check_positive(lam, "lam")
    delta = _check_positive_delta(delta, "delta")
    beta = check_open_unit(beta, "beta")
    lipschitz = check_positive(lipschitz, "lipschitz")
    kernel_bound = check_positive(kernel_bound, "kernel_bound")
    w_norm_bound = check_positive(w_norm_bound, "w_norm_bound")
    # Jain & Thakurta's symbols for the (checked) arguments.
    n, L, R, C = n_samples, lipschitz, kernel_bound, w_norm_bound
    eps = check_epsilon(epsilon)
    T = check_int(n_queries, "n_queries")
    if constants not in _EPS0_CONSTANT:
        raise ValueError(f"constants must be 'thm9' or 'alg1', got {constants!r}.")
    rule = _check_b_rule(B_rule)
    S = (
        kernel_prediction_sensitivity(L, R, lam, n)
        if sensitivity is None
        else check_positive(sensitivity, "sensitivity")
    )
    k = _EPS0_CONSTANT[constants]
    log_t = math.log(2.0 * T / beta)
    log_d = math.log(4.0 / delta)
    if rule == "paper":
        # Jain & Thakurta Alg. 1: B = nλεC²/(200·L·R_φ·√(2 ln(2T/β))·ln(4/δ)).
        B_real = n * lam * eps * C * C / (200.0 * L * R * math.sqrt(2 * log_t) * log_d)
    elif rule == "potential":
        # σ = c·√B with c = (4·k·S·ln(4/δ)/ε)·ln(2T/β); B = 16R²C²/(3σ²) gives
        # B = 4RC/(√3·c) (docs/prediction.md, "update cap").
        c = 4.0 * k * S * log_d * log_t / eps
        B_real = 4.0 * R * C / (math.sqrt(3.0) * c)
    else:
        B_real = float(rule)
    B = max(1, math.floor(B_real))
    # Jain & Thakurta Thm 9 (Gupta, Roth & Ullman 2011, Thm 4.1):
    # ε₀ = ε/(200·√B·S·ln(4/δ)); Alg. 1 prints twice this (constant 100 here,
    # since S = 2LR²/(λn)).
    eps0 = eps / (k * math.sqrt(B) * S * log_d)
    # Jain & Thakurta Alg. 1: σ = (4/ε₀)·ln(2T/β), η = σ/(4R_φ²).
    sigma = 4.0 / eps0 * log_t
    eta = sigma / (4.0 * R * R)
    return InteractiveParameters(B, eps0, sigma, eta, C * R, bool(sigma >= C * R))


def interactive_error_thm3(
    n_samples: int,
    lam: float,
    epsilon: float,
    delta: float,
    beta: float,
    n_queries: int,
    lipschitz: float,
    kernel_bound: float,
    w_norm_bound: float,
) -> float:
    """Theorem 3's per-answer error C·R²·√(L·ln(T/β))·ln²(1/δ)/√(nελ).

    Parameters
    ----------
    n_samples : int
        n, the number of training records.
    lam : float
        λ of (λ/2)‖w‖² (strong convexity).
    epsilon : float
        ε.
    delta : float
        δ ∈ (0, 1).
    beta : float
        Failure probability β ∈ (0, 1).
    n_queries : int
        T, the number of queries.
    lipschitz : float
        L, the Lipschitz constant of the loss.
    kernel_bound : float
        R_φ = sup ‖φ(z)‖ over the declared domain.
    w_norm_bound : float
        C ≥ ‖w*‖ (data-independent).

    Returns
    -------
    float
        The bound up to its unstated constant (w.p. ≥ 1 − β, every answer).

    Examples
    --------
    >>> round(interactive_error_thm3(10**4, 1.0, 1.0, math.exp(-1), math.exp(-1),
    ...                              1, 1.0, 1.0, 1.0), 6)
    0.01
    """
    n_samples = check_int(n_samples, "n_samples")
    lam = check_positive(lam, "lam")
    epsilon = _check_epsilon(epsilon, "epsilon")
    delta = _check_positive_delta(delta, "delta")
    beta = check_open_unit(beta, "beta")
    n_queries = check_int(n_queries, "n_queries")
    lipschitz = check_positive(lipschitz, "lipschitz")
    kernel_bound = check_positive(kernel_bound, "kernel_bound")
    w_norm_bound = check_positive(w_norm_bound, "w_norm_bound")
    # Jain & Thakurta Thm 3: O(C·R_φ²·√(L·ln(T/β))·ln²(1/δ)/√(nελ)).
    return (
        w_norm_bound
        * kernel_bound**2
        * math.sqrt(lipschitz * math.log(n_queries / beta))
        * math.log(1.0 / delta) ** 2
        / math.sqrt(n_samples * epsilon * lam)
    )


def interactive_error_thm10(
    sensitivity: float,
    max_updates: int,
    epsilon: float,
    delta: float,
    n_queries: int,
    beta: float,
) -> float:
    """Theorem 10's error S·√B·ln(1/δ)·ln(T/β)/ε while fewer than B updates.

    Parameters
    ----------
    sensitivity : float
        S.
    max_updates : int
        B.
    epsilon : float
        ε.
    delta : float
        δ ∈ (0, 1).
    n_queries : int
        T, the number of queries.
    beta : float
        Failure probability β ∈ (0, 1).

    Returns
    -------
    float
        The bound up to its unstated constant.

    Examples
    --------
    >>> round(interactive_error_thm10(0.5, 4, 1.0, math.exp(-1), 1, math.exp(-1)), 6)
    1.0
    """
    epsilon = _check_epsilon(epsilon, "epsilon")
    delta = _check_positive_delta(delta, "delta")
    n_queries = check_int(n_queries, "n_queries")
    beta = check_open_unit(beta, "beta")
    S = check_positive(sensitivity, "sensitivity")
    B = check_int(max_updates, "max_updates")
    # Jain & Thakurta Thm 10 (Gupta, Roth & Ullman 2011, Thm 5.2).
    return (
        S * math.sqrt(B) * math.log(1.0 / delta) * math.log(n_queries / beta) / epsilon
    )


def noisy_label_scale(
    n_queries: int, epsilon: float, delta: float, sensitivity: float
) -> float:
    """Laplace scale ν = S/ε_q of each noisy label of the test-data learner.

    Parameters
    ----------
    n_queries : int
        T, the number of test points labelled.
    epsilon : float
        Total ε.
    delta : float
        Total δ; 0 gives basic composition (ε_q = ε/T).
    sensitivity : float
        S of one prediction.

    Returns
    -------
    float
        ν. For δ > 0, ε_q is the largest per-answer ε with
        √(2T ln(1/δ))·ε_q + T·ε_q(e^{ε_q} − 1) ≤ ε, or ε/T if larger.

    Notes
    -----
    Jain & Thakurta Alg. 2 gives ν only as O(L·R²·√(T ln(1/δ))/(λnε)); the
    exact value comes from their Thm 11 (Dwork, Rothblum & Vadhan 2010).

    Examples
    --------
    The CoverType magnitude check (S = 0.016, δ = 10⁻⁶):

    >>> round(noisy_label_scale(100, 1.0, 1e-6, 0.016), 2)
    0.87
    >>> round(noisy_label_scale(10_000, 0.1, 1e-6, 0.016), 0)
    84.0
    """
    epsilon = _check_epsilon(epsilon, "epsilon")
    T = check_int(n_queries, "n_queries")
    delta = check_delta(delta)
    S = check_positive(sensitivity, "sensitivity")
    # Jain & Thakurta Thm 11 with k = T, δ′ = δ (bisection; max with ε/T).
    eps_q = epsilon / T if delta == 0.0 else per_step_epsilon(epsilon, T, delta)
    return S / eps_q


def noisy_label_count(
    radius: float,
    n_samples: int,
    epsilon: float,
    lam: float,
    lipschitz: float,
    kernel_bound: float,
    delta: float,
    *,
    constant: float = 1.0,
    n_available: int | None = None,
) -> int:
    """Theorem 5's number of test points T = ‖𝒞‖·nελ/(L·R·√ln(1/δ)).

    Parameters
    ----------
    radius : float
        ‖𝒞‖₂, the radius of the constraint ball.
    n_samples : int
        n, the number of training records.
    epsilon : float
        ε.
    lam : float
        λ of (λ/2)‖w‖² (strong convexity).
    lipschitz : float
        L, the Lipschitz constant of the loss.
    kernel_bound : float
        R_φ = sup ‖φ(z)‖ over the declared domain.
    delta : float
        δ ∈ (0, 1).
    constant : float, default=1.0
        The unstated constant of the O(·).
    n_available : int or None, default=None
        |Q|: the result is capped at it.

    Returns
    -------
    int
        T ≥ 1. For the ball 2LR/λ this is 2nε/√ln(1/δ) (Cor. 6).

    Examples
    --------
    >>> noisy_label_count(2.0, 1000, 1.0, 1.0, 1.0, 1.0, math.exp(-4))
    1000
    """
    radius = check_positive(radius, "radius")
    n_samples = check_int(n_samples, "n_samples")
    epsilon = _check_epsilon(epsilon, "epsilon")
    lam = check_positive(lam, "lam")
    lipschitz = check_positive(lipschitz, "lipschitz")
    kernel_bound = check_positive(kernel_bound, "kernel_bound")
    delta = _check_positive_delta(delta, "delta")
    # Jain & Thakurta Thm 5: T = O(‖𝒞‖₂·nελ/(L·R_φ·√ln(1/δ))).
    T = (
        check_positive(constant, "constant")
        * radius
        * n_samples
        * epsilon
        * lam
        / (lipschitz * kernel_bound * math.sqrt(math.log(1.0 / delta)))
    )
    out = max(1, math.floor(T))
    if n_available is not None:
        out = min(out, check_int(n_available, "n_available"))
    return out


def noisy_label_excess_loss_bound(
    n_samples: int,
    epsilon: float,
    lam: float,
    lipschitz: float,
    kernel_bound: float,
    radius: float,
    delta: float,
    n_queries: int,
    beta: float,
) -> float:
    """Theorem 5's excess loss (LR)^{3/2}·√(‖𝒞‖·√ln(1/δ))·ln(T/β)/√(nελ).

    Parameters
    ----------
    n_samples : int
        n, the number of training records.
    epsilon : float
        ε.
    lam : float
        λ of (λ/2)‖w‖² (strong convexity).
    lipschitz : float
        L, the Lipschitz constant of the loss.
    kernel_bound : float
        R_φ = sup ‖φ(z)‖ over the declared domain.
    radius : float
        ‖𝒞‖₂, the radius of the constraint ball.
    delta : float
        δ ∈ (0, 1).
    n_queries : int
        T, the number of queries.
    beta : float
        Failure probability β ∈ (0, 1).

    Returns
    -------
    float
        The bound up to its unstated constant (for the fixed test set Q).

    Examples
    --------
    >>> round(noisy_label_excess_loss_bound(100, 1.0, 1.0, 1.0, 1.0, 1.0,
    ...                                   math.exp(-1), 1, math.exp(-1)), 6)
    0.1
    """
    n_samples = check_int(n_samples, "n_samples")
    epsilon = _check_epsilon(epsilon, "epsilon")
    lam = check_positive(lam, "lam")
    lipschitz = check_positive(lipschitz, "lipschitz")
    kernel_bound = check_positive(kernel_bound, "kernel_bound")
    radius = check_positive(radius, "radius")
    delta = _check_positive_delta(delta, "delta")
    n_queries = check_int(n_queries, "n_queries")
    beta = check_open_unit(beta, "beta")
    # Jain & Thakurta Thm 5.
    return (
        (lipschitz * kernel_bound) ** 1.5
        * math.sqrt(radius * math.sqrt(math.log(1 / delta)))
        * math.log(n_queries / beta)
        / math.sqrt(n_samples * epsilon * lam)
    )


@dataclass(frozen=True)
class DataIndependentParameters:
    """Printed and honest calibrations of the test-data-independent learner.

    Attributes
    ----------
    n_rounds : int
        B = nε/(100·L·R_φ·ln(4/δ)) (Alg. 3), at least 1.
    eps0 : float
        The printed ε₀ = nελ/(10·L·R_φ²·√B·ln(4/δ)).
    printed_threshold : float
        The printed σ = (4/ε₀)·ln(2B/β).
    net_radius : float
        The printed ν = d·R_φ/(ε₀·n·L_φ).
    net_size : float
        |𝒮| = (4/ν)^d (may be astronomically large; a float).
    printed_em_epsilon : float
        The true pure-ε cost ε₀/2 of one printed exponential-mechanism step.
    round_epsilon : float
        The honest per-round budget ε_r (advanced composition over B rounds).
    em_epsilon : float
        ε_em = ``em_fraction``·ε_r.
    laplace_epsilon : float
        ε_lap = ε_r − ε_em.
    threshold : float
        The honest σ = 8·(S/ε_lap)·ln(2B/β).
    step : float
        η = σ/(4R_φ²).
    """

    n_rounds: int
    eps0: float
    printed_threshold: float
    net_radius: float
    net_size: float
    printed_em_epsilon: float
    round_epsilon: float
    em_epsilon: float
    laplace_epsilon: float
    threshold: float
    step: float


def data_independent_parameters(
    n_samples: int,
    epsilon: float,
    delta: float,
    beta: float,
    lam: float,
    lipschitz: float,
    kernel_bound: float,
    dimension: int,
    feature_lipschitz: float,
    *,
    n_rounds: int | None = None,
    em_fraction: float = 0.5,
    sensitivity: float | None = None,
) -> DataIndependentParameters:
    """Alg. 3's printed parameters and the honest per-round budgets.

    Parameters
    ----------
    n_samples : int
        n, the number of training records.
    epsilon : float
        Total ε.
    delta : float
        Total δ ∈ (0, 1).
    beta : float
        Failure probability β ∈ (0, 1).
    lam : float
        λ of (λ/2)‖w‖² (strong convexity).
    lipschitz : float
        L, the Lipschitz constant of the loss.
    kernel_bound : float
        R_φ = sup ‖φ(z)‖ over the declared domain.
    dimension : int
        d, the input dimension.
    feature_lipschitz : float
        L_φ.
    n_rounds : int or None, default=None
        B; ``None`` uses the printed rule.
    em_fraction : float, default=0.5
        Share of each round's budget given to the exponential mechanism.
    sensitivity : float or None, default=None
        S (``None``: 2LR_φ²/(λn)).

    Returns
    -------
    DataIndependentParameters
        Both calibrations.

    Notes
    -----
    As printed, each exponential-mechanism step costs ε₀/2 in pure ε, which
    grows with n: the printed algorithm is not (ε, δ)-DP. The honest version
    composes B rounds of ε_r = ε_em + ε_lap by Dwork, Rothblum & Vadhan's
    Thm III.3 (Jain & Thakurta Thm 11); see ``docs/prediction.md``.

    Examples
    --------
    >>> p = data_independent_parameters(10**5, 1.0, 1e-6, 0.05, 1e-2, 1.0, 1.0, 5,
    ...                                 1.0)
    >>> p.n_rounds, round(p.eps0, 2), round(p.printed_em_epsilon, 2)
    (65, 0.82, 0.41)
    >>> f"{p.net_size:.1e}"
    '1.2e+24'
    """
    n_samples = check_int(n_samples, "n_samples")
    epsilon = _check_epsilon(epsilon, "epsilon")
    delta = _check_positive_delta(delta, "delta")
    beta = check_open_unit(beta, "beta")
    lam = check_positive(lam, "lam")
    lipschitz = check_positive(lipschitz, "lipschitz")
    kernel_bound = check_positive(kernel_bound, "kernel_bound")
    dimension = check_int(dimension, "dimension")
    # Jain & Thakurta's symbols for the (checked) arguments.
    n, eps, L, R, d = n_samples, epsilon, lipschitz, kernel_bound, dimension
    L_phi = check_positive(feature_lipschitz, "feature_lipschitz")
    frac = check_open_unit(em_fraction, "em_fraction")
    S = (
        kernel_prediction_sensitivity(L, R, lam, n)
        if sensitivity is None
        else check_positive(sensitivity, "sensitivity")
    )
    log_d = math.log(4.0 / delta)
    if n_rounds is None:
        # Jain & Thakurta Alg. 3: B = nε/(100·L·R_φ·ln(4/δ)).
        B = max(1, math.floor(n * eps / (100.0 * L * R * log_d)))
    else:
        B = check_int(n_rounds, "n_rounds")
    # Alg. 3 (printed): ε₀ = nελ/(10·L·R_φ²·√B·ln(4/δ)), σ = (4/ε₀)ln(2B/β),
    # ν = d·R_φ/(ε₀·n·L_φ), |𝒮| = (4/ν)^d.
    eps0 = n * eps * lam / (10.0 * L * R * R * math.sqrt(B) * log_d)
    nu = d * R / (eps0 * n * L_phi)
    net_size = math.exp(d * math.log(4.0 / nu))
    # Printed exponent Λ = ε₀nλ/(8LR²) = ε₀/(4S): a pure (2ΛS) = ε₀/2 cost per step.
    printed_em = eps0 / 2.0
    # Honest: B rounds of ε_r by Thm 11 (k = B, δ′ = δ), max with ε/B.
    eps_r = per_step_epsilon(eps, B, delta)
    eps_em = frac * eps_r
    eps_lap = eps_r - eps_em
    # Keep the printed ratio σ = 4/ε₀ with Laplace scale 1/(2ε₀): σ = 8·scale·ln(2B/β).
    sigma = 8.0 * (S / eps_lap) * math.log(2.0 * B / beta)
    return DataIndependentParameters(
        B,
        eps0,
        4.0 / eps0 * math.log(2.0 * B / beta),
        nu,
        net_size,
        printed_em,
        eps_r,
        eps_em,
        eps_lap,
        sigma,
        sigma / (4.0 * R * R),
    )


def data_independent_bound_thm8(
    n_samples: int,
    epsilon: float,
    delta: float,
    beta: float,
    lam: float,
    lipschitz: float,
    kernel_bound: float,
    dimension: int,
    feature_lipschitz: float,
    *,
    form: str = "printed",
) -> float:
    """Theorem 8's uniform excess loss, printed or proof-consistent.

    Parameters
    ----------
    n_samples : int
        n, the number of training records.
    epsilon : float
        ε.
    delta : float
        δ ∈ (0, 1).
    beta : float
        Failure probability β ∈ (0, 1).
    lam : float
        λ of (λ/2)‖w‖² (strong convexity).
    lipschitz : float
        L, the Lipschitz constant of the loss.
    kernel_bound : float
        R_φ = sup ‖φ(z)‖ over the declared domain.
    dimension : int
        d, the input dimension.
    feature_lipschitz : float
        L_φ (ln L_φ is replaced by max(1, ln L_φ)).
    form : {"printed", "proof"}, default="printed"
        ``"printed"``: R·d^{1/3}·L^{8/3}·ln L_φ·ln(1/β)·ln²(1/δ)/((λ²n)^{2/3}√ε).
        ``"proof"``: the end of the proof with ‖w*‖ ≤ 2LR/λ, times L:
        R³·d^{1/3}·L^{8/3}·ln L_φ·ln(1/β)·ln²(1/δ)/(λ^{5/3}·n^{2/3}·√ε).

    Returns
    -------
    float
        The bound up to its unstated constant. The two forms disagree in the
        exponents of R and λ: the printed ones are inconsistent with the proof.

    Examples
    --------
    >>> b = dict(n_samples=1, epsilon=1.0, delta=math.exp(-1), beta=math.exp(-1),
    ...          lam=1.0, lipschitz=1.0, kernel_bound=2.0, dimension=1,
    ...          feature_lipschitz=1.0)
    >>> data_independent_bound_thm8(**b), data_independent_bound_thm8(**b,
    ...                                                               form="proof")
    (2.0, 8.0)
    """
    n_samples = check_int(n_samples, "n_samples")
    epsilon = _check_epsilon(epsilon, "epsilon")
    delta = _check_positive_delta(delta, "delta")
    beta = check_open_unit(beta, "beta")
    lam = check_positive(lam, "lam")
    lipschitz = check_positive(lipschitz, "lipschitz")
    kernel_bound = check_positive(kernel_bound, "kernel_bound")
    dimension = check_int(dimension, "dimension")
    # Jain & Thakurta's symbols for the (checked) arguments.
    n, eps, L, R, d = n_samples, epsilon, lipschitz, kernel_bound, dimension
    ln_lphi = max(1.0, math.log(check_positive(feature_lipschitz, "feature_lipschitz")))
    common = (
        d ** (1 / 3)
        * L ** (8 / 3)
        * ln_lphi
        * math.log(1 / beta)
        * math.log(1 / delta) ** 2
        / math.sqrt(eps)
    )
    if form == "printed":
        # Jain & Thakurta Thm 8 as printed: R·…/((λ²n)^{2/3}·√ε).
        return R * common / (lam * lam * n) ** (2 / 3)
    if form == "proof":
        # End of the proof of Thm 8: ‖w*‖R²·…/((λn)^{2/3}√ε), ‖w*‖ ≤ 2LR/λ
        # (constant dropped), times L: R³·…/(λ^{5/3}·n^{2/3}·√ε).
        return R**3 * common / (lam ** (5 / 3) * n ** (2 / 3))
    raise ValueError(f"form must be 'printed' or 'proof', got {form!r}.")

# SPDX-License-Identifier: BSD-3-Clause
"""Statistical lower bounds on ε from samples of a mechanism on two neighbours.

The construction is the standard one of privacy auditing (Jagielski, Ullman &
Oprea, NeurIPS 2020; Nasr et al., IEEE S&P 2021): a distinguishing test "T ≥ t"
between M(D) and M(D′) has false-positive rate FPR = P[T(M(D′)) ≥ t] and
false-negative rate FNR = P[T(M(D)) < t]. Any (ε, δ)-DP mechanism satisfies

    1 − δ − FNR ≤ e^ε · FPR   and   1 − δ − FPR ≤ e^ε · FNR,

so ε ≥ max(ln((1 − δ − FNR)/FPR), ln((1 − δ − FPR)/FNR)). Plugging
Clopper–Pearson upper confidence limits for FPR and FNR gives a lower bound on ε
that holds with the stated confidence. The threshold (and direction) is chosen
on one half of the runs and the rates are measured on the other half, so the
choice does not bias the bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.stats import beta

__all__ = ["AuditBound", "clopper_pearson", "epsilon_lower_bound"]


def clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Two-sided Clopper–Pearson interval for a binomial proportion.

    Parameters
    ----------
    k : int
        Successes, 0 ≤ k ≤ n.
    n : int
        Trials, > 0.
    alpha : float
        1 − confidence level of the two-sided interval.

    Returns
    -------
    tuple of float
        (lower, upper) limits.

    Examples
    --------
    >>> lo, hi = clopper_pearson(0, 100, 0.05)
    >>> lo, round(hi, 4)
    (0.0, 0.0362)
    """
    if n <= 0 or not 0 <= k <= n:
        raise ValueError(f"Need 0 <= k <= n and n > 0, got k={k}, n={n}.")
    lo = 0.0 if k == 0 else float(beta.ppf(alpha / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(beta.ppf(1 - alpha / 2, k + 1, n - k))
    return lo, hi


@dataclass(frozen=True)
class AuditBound:
    """Result of :func:`epsilon_lower_bound`.

    Attributes
    ----------
    epsilon_lower : float
        ε lower bound at the requested confidence (0 when no test separates).
    epsilon_point : float
        The same bound from the raw rates (no confidence correction).
    threshold : float
        The threshold t chosen on the selection half.
    direction : int
        +1 if the test is "T ≥ t ⇒ D", −1 if "T ≤ t ⇒ D".
    fpr : float
        False-positive rate on the evaluation half.
    fnr : float
        False-negative rate on the evaluation half.
    n_eval : int
        Runs per dataset in the evaluation half.
    confidence : float
        Confidence level of ``epsilon_lower``.
    """

    epsilon_lower: float
    epsilon_point: float
    threshold: float
    direction: int
    fpr: float
    fnr: float
    n_eval: int
    confidence: float


def _eps_from_rates(fpr: float, fnr: float, delta: float) -> float:
    best = 0.0
    for a, b in ((fnr, fpr), (fpr, fnr)):
        num = 1.0 - delta - a
        if num <= 0:
            continue
        best = max(best, math.inf if b <= 0 else math.log(num / b))
    return best


def epsilon_lower_bound(
    scores_d: ArrayLike,
    scores_d_prime: ArrayLike,
    *,
    delta: float = 0.0,
    confidence: float = 0.95,
    n_thresholds: int = 200,
    random_state: int | None = 0,
) -> AuditBound:
    """Lower-bound ε from scalar statistics of runs on two neighbouring datasets.

    Parameters
    ----------
    scores_d : array-like of shape (n_runs,)
        The statistic T of each run on D.
    scores_d_prime : array-like of shape (n_runs_prime,)
        The statistic T of each run on D′.
    delta : float, default=0.0
        The δ of the claimed guarantee.
    confidence : float, default=0.95
        Confidence of the bound (the two Clopper–Pearson limits share
        1 − confidence, Bonferroni).
    n_thresholds : int, default=200
        Candidate thresholds (quantiles of the pooled selection half).
    random_state : int or None, default=0
        Seed of the split into selection and evaluation halves.

    Returns
    -------
    AuditBound
        The bound and the test behind it.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> a = rng.laplace(0.0, 1.0, 20000)   # Laplace mechanism, ε = 1 ...
    >>> b = rng.laplace(1.0, 1.0, 20000)   # ... on neighbours with Δ = 1
    >>> res = epsilon_lower_bound(a, b)
    >>> 0.5 < res.epsilon_lower <= 1.0
    True
    """
    a = np.asarray(scores_d, dtype=float).ravel()
    b = np.asarray(scores_d_prime, dtype=float).ravel()
    if a.size < 4 or b.size < 4:
        raise ValueError("Need at least 4 runs on each dataset.")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("Scores must be finite.")
    rng = np.random.default_rng(random_state)
    a, b = rng.permutation(a), rng.permutation(b)
    a_sel, a_ev = a[: a.size // 2], a[a.size // 2 :]
    b_sel, b_ev = b[: b.size // 2], b[b.size // 2 :]
    pooled = np.concatenate([a_sel, b_sel])
    cands = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, n_thresholds)))
    alpha = 1.0 - confidence

    def rates(xa, xb, t, direction):  # type: ignore[no-untyped-def]
        if direction > 0:  # say "D" when T ≥ t
            return float(np.mean(xb >= t)), float(np.mean(xa < t))
        return float(np.mean(xb <= t)), float(np.mean(xa > t))

    def lower(fpr: float, fnr: float, n_a: int, n_b: int) -> float:
        # Upper confidence limits of both error rates (Bonferroni over the two).
        fpr_hi = clopper_pearson(round(fpr * n_b), n_b, alpha)[1]
        fnr_hi = clopper_pearson(round(fnr * n_a), n_a, alpha)[1]
        return _eps_from_rates(fpr_hi, fnr_hi, delta)

    best = (-1.0, 0.0, 1)
    for t in cands:
        for direction in (1, -1):
            fpr, fnr = rates(a_sel, b_sel, t, direction)
            score = lower(fpr, fnr, a_sel.size, b_sel.size)
            if score > best[0]:
                best = (score, float(t), direction)
    _, t, direction = best
    fpr, fnr = rates(a_ev, b_ev, t, direction)
    return AuditBound(
        epsilon_lower=lower(fpr, fnr, a_ev.size, b_ev.size),
        epsilon_point=_eps_from_rates(fpr, fnr, delta),
        threshold=t,
        direction=direction,
        fpr=fpr,
        fnr=fnr,
        n_eval=int(min(a_ev.size, b_ev.size)),
        confidence=confidence,
    )

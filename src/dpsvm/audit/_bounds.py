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

from ..validation import check_delta, check_open_unit

__all__ = [
    "AuditBound",
    "clopper_pearson",
    "epsilon_from_rates",
    "epsilon_lower_bound",
    "epsilon_lower_bound_split",
    "max_epsilon_lower_bound",
]


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


def epsilon_from_rates(fpr: float, fnr: float, *, delta: float = 0.0) -> float:
    """The ε implied by the error rates of one test: the (ε, δ)-DP region.

    Any (ε, δ)-DP mechanism satisfies 1 − δ − FNR ≤ e^ε·FPR and
    1 − δ − FPR ≤ e^ε·FNR (Kairouz, Oh & Viswanath 2015, Thm 2.1; the form used by
    Jagielski et al. 2020 and Nasr et al. 2021), so

        ε ≥ max(ln((1 − δ − FNR)/FPR), ln((1 − δ − FPR)/FNR), 0).

    Parameters
    ----------
    fpr : float
        False-positive rate, in [0, 1].
    fnr : float
        False-negative rate, in [0, 1].
    delta : float, default=0.0
        The δ of the guarantee being tested.

    Returns
    -------
    float
        The implied ε (``inf`` when a rate is 0 and the other below 1 − δ).

    Raises
    ------
    ValueError
        If a rate is outside [0, 1] or δ outside [0, 1).

    Examples
    --------
    >>> round(epsilon_from_rates(0.1, 0.1), 4)   # ln(0.9/0.1)
    2.1972
    >>> epsilon_from_rates(0.5, 0.5)
    0.0
    """
    for name, v in (("fpr", fpr), ("fnr", fnr)):
        if not 0.0 <= v <= 1.0:
            raise ValueError(f"{name} must be in [0, 1], got {v}.")
    return _eps_from_rates(float(fpr), float(fnr), check_delta(delta))


def max_epsilon_lower_bound(
    n_eval: int, *, delta: float = 0.0, confidence: float = 0.95
) -> float:
    """The largest lower bound that ``n_eval`` evaluation runs can certify.

    With no error at all on the evaluation half (FPR = FNR = 0) the bound is
    ln((1 − δ − u)/u), u the Clopper–Pearson upper limit of 0 successes in
    ``n_eval`` trials at 1 − confidence (two-sided, i.e. one-sided
    (1 − confidence)/2, as in :func:`epsilon_lower_bound`). A mechanism that is
    not private at all (a deterministic release) reaches this ceiling, so the
    claimed ε of a flawed mechanism can only be refuted when the ceiling is above
    it.

    Parameters
    ----------
    n_eval : int
        Evaluation runs per dataset (half of the runs), > 0.
    delta : float, default=0.0
        The δ of the claimed guarantee.
    confidence : float, default=0.95
        Confidence of the bound.

    Returns
    -------
    float
        The ceiling on the certified ε.

    Examples
    --------
    >>> u = 1 - 0.025 ** (1 / 500)   # Clopper–Pearson limit of 0/500, α/2 = 0.025
    >>> bool(abs(max_epsilon_lower_bound(500) - math.log((1 - u) / u)) < 1e-9)
    True
    """
    if n_eval <= 0:
        raise ValueError(f"n_eval must be positive, got {n_eval}.")
    u = clopper_pearson(
        0, int(n_eval), 1.0 - check_open_unit(confidence, "confidence")
    )[1]
    return _eps_from_rates(u, u, delta)


def _check_selection(selection: str) -> str:
    if selection not in ("pointwise", "simultaneous"):
        raise ValueError(
            f"selection must be 'pointwise' or 'simultaneous', got {selection!r}."
        )
    return selection


def _check_bound_args(confidence: float, delta: float, n_thresholds: int) -> None:
    check_open_unit(confidence, "confidence")
    check_delta(delta)
    if n_thresholds < 1:
        raise ValueError(f"n_thresholds must be at least 1, got {n_thresholds}.")


def _as_scores(x: ArrayLike, name: str, minimum: int) -> np.ndarray:
    a = np.asarray(x, dtype=float).ravel()
    if a.size < minimum:
        raise ValueError(f"Need at least {minimum} runs in {name}, got {a.size}.")
    if not np.all(np.isfinite(a)):
        raise ValueError("Scores must be finite.")
    return a


def _bound_from_halves(
    a_sel: np.ndarray,
    b_sel: np.ndarray,
    a_ev: np.ndarray,
    b_ev: np.ndarray,
    delta: float,
    confidence: float,
    n_thresholds: int,
    selection: str = "pointwise",
) -> AuditBound:
    pooled = np.concatenate([a_sel, b_sel])
    cands = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, n_thresholds)))
    alpha = 1.0 - confidence
    # "simultaneous": score every candidate test by a bound that holds for all
    # 2·|cands| tests at once (Bonferroni), so that a tail test whose selection
    # rates look good by chance (few errors, wide intervals) does not win; the
    # evaluation half is then scored at the requested confidence as usual.
    alpha_sel = alpha / (2 * cands.size) if selection == "simultaneous" else alpha

    def rates(xa, xb, t, direction):  # type: ignore[no-untyped-def]
        if direction > 0:  # say "D" when T ≥ t
            return float(np.mean(xb >= t)), float(np.mean(xa < t))
        return float(np.mean(xb <= t)), float(np.mean(xa > t))

    def lower(fpr: float, fnr: float, n_a: int, n_b: int) -> float:
        # Upper confidence limits of both error rates (Bonferroni over the two).
        fpr_hi = clopper_pearson(round(fpr * n_b), n_b, alpha)[1]
        fnr_hi = clopper_pearson(round(fnr * n_a), n_a, alpha)[1]
        return _eps_from_rates(fpr_hi, fnr_hi, delta)

    # Every candidate (t, direction) at once, in the order t ascending and
    # direction +1 before −1; np.argmax keeps the first maximum, i.e. the same
    # choice as a loop that updates only on a strict improvement.
    sa, sb = np.sort(a_sel), np.sort(b_sel)
    n_a, n_b = a_sel.size, b_sel.size
    lo_a, hi_a = np.searchsorted(sa, cands, "left"), np.searchsorted(sa, cands, "right")
    lo_b, hi_b = np.searchsorted(sb, cands, "left"), np.searchsorted(sb, cands, "right")
    # +1: FP = #{b ≥ t}, FN = #{a < t};  −1: FP = #{b ≤ t}, FN = #{a > t}.
    k_fp = np.column_stack([n_b - lo_b, hi_b]).ravel()
    k_fn = np.column_stack([lo_a, n_a - hi_a]).ravel()

    def eps_of(fp_hi: np.ndarray, fn_hi: np.ndarray) -> np.ndarray:
        out = np.zeros(fp_hi.shape)
        with np.errstate(divide="ignore"):
            for num_rate, den_rate in ((fn_hi, fp_hi), (fp_hi, fn_hi)):
                num = 1.0 - delta - num_rate
                val = np.where(
                    num > 0,
                    np.where(
                        den_rate <= 0,
                        np.inf,
                        np.log(np.maximum(num, 1e-300) / np.maximum(den_rate, 1e-300)),
                    ),
                    0.0,
                )
                out = np.maximum(out, val)
        return out

    def scores_at(level: float) -> np.ndarray:
        q = 1.0 - level / 2
        fp_hi = np.where(
            k_fp == n_b, 1.0, beta.ppf(q, k_fp + 1, np.maximum(n_b - k_fp, 1))
        )
        fn_hi = np.where(
            k_fn == n_a, 1.0, beta.ppf(q, k_fn + 1, np.maximum(n_a - k_fn, 1))
        )
        return eps_of(fp_hi, fn_hi)

    scores = scores_at(alpha_sel)
    if selection == "simultaneous":
        # Ties (e.g. every simultaneous bound is 0 with few runs) are broken by
        # the pointwise bound, then by the estimate from add-½ smoothed rates
        # (finite, so an empty tail does not win with an infinite ratio), then by
        # order.
        keep = np.flatnonzero(scores == scores.max())
        smoothed = eps_of((k_fp + 0.5) / (n_b + 1.0), (k_fn + 0.5) / (n_a + 1.0))
        for secondary in (scores_at(alpha), smoothed):
            sub = secondary[keep]
            keep = keep[sub == sub.max()]
        i = int(keep[0])
    else:
        i = int(np.argmax(scores))
    best = (float(scores[i]), float(cands[i // 2]), 1 if i % 2 == 0 else -1)
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


def epsilon_lower_bound_split(
    select_d: ArrayLike,
    select_d_prime: ArrayLike,
    eval_d: ArrayLike,
    eval_d_prime: ArrayLike,
    *,
    delta: float = 0.0,
    confidence: float = 0.95,
    n_thresholds: int = 200,
    selection: str = "simultaneous",
) -> AuditBound:
    """:func:`epsilon_lower_bound` on a selection/evaluation split made by the caller.

    Use it when the statistic itself was fitted on the selection runs (e.g. a
    projection direction estimated from them): the threshold is chosen on
    ``select_*`` and the rates are measured on ``eval_*`` only, so neither choice
    biases the bound.

    By default the threshold is chosen with *simultaneous* confidence: each
    candidate test is scored by its Clopper–Pearson bound at level
    (1 − confidence)/(number of candidate tests), which stops a tail threshold
    with a few lucky errors on the selection half from winning (a winner's
    curse that can cost most of the power). Any rule that does not look at the
    evaluation half keeps the bound valid.

    Parameters
    ----------
    select_d, select_d_prime : array-like of shape (n_select,)
        Statistics of the selection runs on D and D′ (at least 2 each).
    eval_d, eval_d_prime : array-like of shape (n_eval,)
        Statistics of the evaluation runs on D and D′ (at least 2 each).
    delta : float, default=0.0
        The δ of the claimed guarantee.
    confidence : float, default=0.95
        Confidence of the bound (Bonferroni over the two Clopper–Pearson limits).
    n_thresholds : int, default=200
        Candidate thresholds (quantiles of the pooled selection runs).
    selection : {"simultaneous", "pointwise"}, default="simultaneous"
        Confidence used to score candidate tests on the selection half:
        Bonferroni over all candidates, or ``confidence`` itself (the rule of
        :func:`epsilon_lower_bound`).

    Returns
    -------
    AuditBound
        The bound and the test behind it.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> sel_a, ev_a = rng.laplace(0.0, 1.0, (2, 10000))
    >>> sel_b, ev_b = rng.laplace(1.0, 1.0, (2, 10000))
    >>> res = epsilon_lower_bound_split(sel_a, sel_b, ev_a, ev_b)
    >>> 0.5 < res.epsilon_lower <= 1.0, res.n_eval
    (True, 10000)
    """
    _check_bound_args(confidence, delta, n_thresholds)
    return _bound_from_halves(
        _as_scores(select_d, "select_d", 2),
        _as_scores(select_d_prime, "select_d_prime", 2),
        _as_scores(eval_d, "eval_d", 2),
        _as_scores(eval_d_prime, "eval_d_prime", 2),
        delta,
        confidence,
        n_thresholds,
        _check_selection(selection),
    )


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
    _check_bound_args(confidence, delta, n_thresholds)
    rng = np.random.default_rng(random_state)
    a, b = rng.permutation(a), rng.permutation(b)
    return _bound_from_halves(
        a[: a.size // 2],
        b[: b.size // 2],
        a[a.size // 2 :],
        b[b.size // 2 :],
        delta,
        confidence,
        n_thresholds,
    )

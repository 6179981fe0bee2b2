# SPDX-License-Identifier: BSD-3-Clause
"""Private selection with a random number of repetitions.

Liu & Talwar (STOC 2019) and Papernot & Steinke (ICLR 2022): run an ε₀-DP
"base" mechanism Q — here: draw a candidate uniformly from the public grid, fit
it privately on the training part and score it with a Laplace-noised mistake
count on a disjoint validation part — K times, where K is random and hidden,
and release only the best run. The cost does not grow with K:

* geometric K (Liu & Talwar): pure 3ε₀-DP;
* truncated negative binomial K with shape η > 0 (Papernot & Steinke,
  Thm 2): pure (2 + η)ε₀-DP; η = 1 is the geometric case;
* logarithmic K (η = 0): pure 2ε₀-DP;
* Poisson K and (ε, δ) statements through Rényi DP, computed by
  ``dp-accounting``'s ``RepeatAndSelectDpEvent`` (optional dependency).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.model_selection import ParameterGrid

from .._compat import Interval, StrOptions
from ..accounting.accountant import BudgetAccountant
from ..accounting.events import PrivacyEvent
from ..mechanisms import LaplaceVector, laplace_release
from ..validation import check_delta, check_epsilon, resolve_delta
from ._base import SelectionStart, SelectorBase
from ._common import (
    SELECTOR_CONSTRAINTS,
    fit_with_child_stream,
    fitted_event,
    prepare_candidates,
    take_rows,
)

__all__ = [
    "PrivateRandomSearch",
    "repeated_selection_epsilon",
    "sample_repetitions",
]

_DISTRIBUTIONS = ("geometric", "logarithmic", "negative-binomial", "poisson")

_REFERENCE = (
    "Liu & Talwar, 'Private selection from private candidates', STOC 2019 "
    "(arXiv:1811.07971), random stopping: 3*eps0 for geometric K; Papernot & "
    "Steinke, 'Hyperparameter tuning with Renyi differential privacy', ICLR 2022 "
    "(arXiv:2110.03620v2), Theorem 2 (truncated negative binomial, pure limit "
    "(2 + eta)*eps0) and Theorem 6 (Poisson, RDP)"
)


def _shape_of(repetitions: str, shape: float | None) -> float:
    """The η of Papernot & Steinke's family for a named distribution."""
    if repetitions == "geometric":
        return 1.0
    if repetitions == "logarithmic":
        return 0.0
    if repetitions == "poisson":
        return math.inf
    if repetitions == "negative-binomial":
        if shape is None or isinstance(shape, bool) or not isinstance(shape, Real):
            raise TypeError("repetitions='negative-binomial' needs a real shape η > 0.")
        eta = float(shape)
        if not (math.isfinite(eta) and eta > 0):
            raise ValueError(f"shape η must be > 0 and finite, got {shape!r}.")
        return eta
    raise ValueError(
        f"repetitions must be one of {_DISTRIBUTIONS}, got {repetitions!r}."
    )


def _tnb_mean(gamma: float, eta: float) -> float:
    # Papernot & Steinke (2022), Def. 1 / §3: E[K] = η(1 − γ)/(γ(1 − γ^η)) for
    # η > 0, (1 − γ)/(γ ln(1/γ)) for η = 0 (logarithmic), 1/γ for η = 1.
    if gamma >= 1.0:
        return 1.0
    if eta == 0.0:
        return (1.0 - gamma) / (gamma * math.log(1.0 / gamma))
    return eta * (1.0 - gamma) / (gamma * -math.expm1(eta * math.log(gamma)))


def _gamma_for_mean(mean: float, eta: float) -> float:
    """γ ∈ (0, 1] of the truncated negative binomial with E[K] = ``mean``."""
    if eta == 1.0:
        return 1.0 / mean
    if mean == 1.0:
        return 1.0
    lo, hi = 0.0, 1.0  # E[K] decreases in γ, from ∞ (γ → 0) to 1 (γ = 1)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if _tnb_mean(mid, eta) > mean:
            lo = mid
        else:
            hi = mid
    return hi


def _check_mean(mean_repetitions: float) -> float:
    if isinstance(mean_repetitions, bool) or not isinstance(mean_repetitions, Real):
        raise TypeError(
            f"mean_repetitions must be a real number, got {mean_repetitions!r}."
        )
    mean = float(mean_repetitions)
    if not (math.isfinite(mean) and mean >= 1.0):
        raise ValueError(f"mean_repetitions must be >= 1 and finite, got {mean}.")
    return mean


def sample_repetitions(
    repetitions: str,
    mean_repetitions: float,
    rng: np.random.Generator,
    *,
    shape: float | None = None,
) -> int:
    """Draw the hidden number of runs K ≥ 1.

    Parameters
    ----------
    repetitions : {"geometric", "logarithmic", "negative-binomial"}
        The law of K: geometric P(K = k) = γ(1 − γ)^{k−1} (Liu & Talwar);
        logarithmic P(K = k) ∝ (1 − γ)^k/k; truncated negative binomial
        P(K = k) ∝ (1 − γ)^k Γ(k + η)/(Γ(η) k!) for k ≥ 1 (Papernot & Steinke
        2022, Def. 1).
    mean_repetitions : float
        E[K] ≥ 1; γ is solved from it.
    rng : numpy.random.Generator
        The generator.
    shape : float, optional
        η > 0 for ``"negative-binomial"``.

    Returns
    -------
    int
        K ≥ 1.

    Raises
    ------
    ValueError
        For ``"poisson"`` (K = 0 has positive probability and would release
        nothing) or bad parameters.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> ks = [sample_repetitions("geometric", 4.0, rng) for _ in range(4000)]
    >>> min(ks) >= 1, 3.7 < float(np.mean(ks)) < 4.3
    (True, True)
    """
    mean = _check_mean(mean_repetitions)
    eta = _shape_of(repetitions, shape)
    if math.isinf(eta):
        raise ValueError(
            "Poisson repetitions can draw K = 0 (no candidate to release); the "
            "estimator supports 'geometric', 'logarithmic' and "
            "'negative-binomial'. repeated_selection_epsilon covers 'poisson'."
        )
    gamma = _gamma_for_mean(mean, eta)
    if gamma >= 1.0:
        return 1
    if eta == 1.0:
        return int(rng.geometric(gamma))
    if eta == 0.0:
        # numpy's logseries(p): P(k) = −p^k/(k ln(1 − p)), k ≥ 1, with p = 1 − γ.
        return int(rng.logseries(1.0 - gamma))
    while True:  # NB(η, γ) conditioned on K ≥ 1; accepts w.p. 1 − γ^η
        k = int(rng.negative_binomial(eta, gamma))
        if k >= 1:
            return k


def _pure_factor(eta: float) -> float:
    # Papernot & Steinke (2022), Thm 2 with λ, λ̂ → ∞ (pure DP = RDP of order
    # ∞): ε′ = ε₀ + (1 + η)ε₀ = (2 + η)ε₀. η = 1 (geometric) is Liu & Talwar's
    # 3ε₀; η = 0 (logarithmic) gives 2ε₀.
    return 2.0 + eta


_RDP_ORDERS = (
    *(1.0 + x / 8.0 for x in range(1, 16)),
    *(3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 16.0, 20.0, 24.0, 32.0, 48.0, 64.0),
    *(128.0, 256.0, 512.0, 1024.0),
)


def _rdp_epsilon(base_epsilon: float, delta: float, mean: float, eta: float) -> float:
    try:
        import dp_accounting
        from dp_accounting.dp_event import RepeatAndSelectDpEvent
        from dp_accounting.rdp import RdpAccountant
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "(epsilon, delta) accounting of repeated selection (delta > 0 or "
            "repetitions='poisson') uses the optional package dp-accounting "
            "(Google's RDP accountant): pip install 'dp-accounting>=0.6'. With "
            "delta=0 the pure-DP closed forms need no extra package."
        ) from exc
    # Every ε₀-DP mechanism is a post-processing of binary randomized response
    # with log-odds ε₀ (Kairouz, Oh & Viswanath 2015, §2), so its Rényi
    # divergences are at most RR's; dp-accounting's RR event with k = 2 buckets
    # and noise p = 2/(1 + e^{ε₀}) has log-odds ln(2/p − 1) = ε₀.
    p = 2.0 / (1.0 + math.exp(base_epsilon))
    base = dp_accounting.RandomizedResponseDpEvent(noise_parameter=p, num_buckets=2)
    # Papernot & Steinke (2022), Thm 2 (TNB) / Thm 6 (Poisson), as implemented
    # by dp-accounting's RepeatAndSelectDpEvent (shape inf = Poisson).
    event = RepeatAndSelectDpEvent(base, mean, eta)
    # Any set of orders gives a valid bound; this short list keeps the
    # calibration's bisection fast (the repeat-and-select formula is quadratic
    # in the number of orders).
    acc = RdpAccountant(
        orders=_RDP_ORDERS,
        neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE,
    )
    acc.compose(event)
    return float(acc.get_epsilon(delta))


def repeated_selection_epsilon(
    base_epsilon: float,
    *,
    repetitions: str = "geometric",
    shape: float | None = None,
    delta: float = 0.0,
    mean_repetitions: float | None = None,
) -> float:
    """End-to-end ε of releasing the best of K runs of an ε₀-DP mechanism.

    Parameters
    ----------
    base_epsilon : float
        ε₀ > 0 of one run (fit + noisy score), pure DP.
    repetitions : {"geometric", "logarithmic", "negative-binomial", "poisson"}, \
            default="geometric"
        The law of the hidden K.
    shape : float, optional
        η > 0 for ``"negative-binomial"``.
    delta : float, default=0.0
        0: the pure-DP closed form. > 0: the smaller of the closed form and the
        (ε, δ) bound of Rényi-DP accounting (needs ``dp-accounting`` and
        ``mean_repetitions``).
    mean_repetitions : float, optional
        E[K]; needed when ``delta > 0`` or for ``"poisson"``.

    Returns
    -------
    float
        The end-to-end ε (pure for ``delta=0``).

    Raises
    ------
    ValueError
        For ``"poisson"`` with ``delta=0`` (no pure-DP bound), or bad
        parameters.
    ImportError
        If ``dp-accounting`` is needed and missing.

    Notes
    -----
    Pure DP: (2 + η)ε₀ (Papernot & Steinke 2022, Thm 2 in the limit λ, λ̂ → ∞);
    3ε₀ for the geometric law is Liu & Talwar's random-stopping bound, 2ε₀ for
    the logarithmic law. The pure bounds do not depend on E[K]. The RDP route
    represents the base mechanism by binary randomized response with log-odds
    ε₀, the worst case of every ε₀-DP mechanism, and composes
    ``RepeatAndSelectDpEvent`` in dp-accounting's ``RdpAccountant`` under the
    replace-one relation.

    References
    ----------
    .. [1] J. Liu, K. Talwar, "Private selection from private candidates",
       STOC 2019, arXiv:1811.07971.
    .. [2] N. Papernot, T. Steinke, "Hyperparameter tuning with Renyi
       differential privacy", ICLR 2022, arXiv:2110.03620, Theorems 2 and 6.

    Examples
    --------
    >>> repeated_selection_epsilon(0.1)  # Liu & Talwar: 3 * eps0
    0.30000000000000004
    >>> repeated_selection_epsilon(0.1, repetitions="logarithmic")
    0.2
    """
    eps0 = check_epsilon(base_epsilon)
    delta = check_delta(delta)
    eta = _shape_of(repetitions, shape)
    pure = math.inf if math.isinf(eta) else _pure_factor(eta) * eps0
    if delta == 0.0:
        if math.isinf(pure):
            raise ValueError(
                "Poisson repetitions have no pure-DP bound; give delta > 0 (and "
                "mean_repetitions) for the Renyi-DP accounting."
            )
        return pure
    if mean_repetitions is None:
        raise ValueError("delta > 0 needs mean_repetitions for the RDP accounting.")
    mean = _check_mean(mean_repetitions)
    return min(pure, _rdp_epsilon(eps0, delta, mean, eta))


def _calibrate_base_epsilon(
    epsilon: float, delta: float, repetitions: str, shape: float | None, mean: float
) -> float:
    """Largest ε₀ whose end-to-end cost is ≤ ``epsilon`` (never above it)."""
    eta = _shape_of(repetitions, shape)
    factor = _pure_factor(eta)
    eps0 = epsilon / factor
    while factor * eps0 > epsilon:  # guard the rounding of the division
        eps0 = math.nextafter(eps0, 0.0)
    if delta == 0.0:
        return eps0

    def cost(e0: float) -> float:
        return repeated_selection_epsilon(
            e0,
            repetitions=repetitions,
            shape=shape,
            delta=delta,
            mean_repetitions=mean,
        )

    # cost(ε₀) is non-decreasing; bisection keeps lo feasible.
    lo, hi = eps0, max(2.0 * epsilon, eps0 * 2.0)
    while cost(hi) <= epsilon and hi < 1e3:
        lo, hi = hi, 2.0 * hi
    for _ in range(30):  # relative resolution ≈ 1e-9 of the bracket
        mid = 0.5 * (lo + hi)
        if cost(mid) <= epsilon:
            lo = mid
        else:
            hi = mid
    return lo


class PrivateRandomSearch(SelectorBase):
    """Private selection from private candidates with random stopping.

    Splits the data once (data-independently) into a training part and a
    validation part. Each run draws a candidate uniformly from the public grid,
    fits it with ε₀ on the training part and scores it by its mistake count on
    the validation part plus Laplace(1/ε₀) noise; one run is ε₀-DP (parallel
    composition over the two disjoint parts). The number of runs K is random
    and hidden; only the run with the lowest noisy count is released. Unlike
    :class:`PrivateParameterTuning`, every candidate sees all the training
    data.

    Parameters
    ----------
    estimator : estimator object or Pipeline
        A differentially private classifier with an ``epsilon`` parameter (and
        ``accountant`` / ``random_state`` parameters, which the selector sets),
        e.g. :class:`~dpsvm.models.DPLinearSVC`. It must record a
        ``privacy_event_`` when fitted. Its own ``accountant`` must be None.
        Or a :class:`~sklearn.pipeline.Pipeline` ending in such an estimator
        whose earlier steps are public (a
        :class:`~dpsvm.preprocessing.SchemaTransformer`, a step wrapped in
        :class:`~dpsvm.preprocessing.PublicStep`, or ``"passthrough"``); a step
        that would be fitted on the private rows (``StandardScaler``, ``PCA``,
        an imputer) is refused. The final step's parameters are the privacy
        parameters, and grid keys use the ``step__param`` form
        (``dplinearsvc__regularization``).
    param_grid : dict or list of dict
        The public candidates, as explicit values.
    epsilon : float, default=1.0
        The end-to-end ε > 0. With ``delta=0`` the base ε₀ is ε/3 (geometric),
        ε/2 (logarithmic) or ε/(2 + η) (negative binomial).
    delta : float or "auto", default=0.0
        End-to-end δ < 1/n (``"auto"``: n^−1.5 of the public row count, see
        :func:`dpsvm.validation.resolve_delta`). With δ > 0, ε₀ is the largest
        value whose Rényi-DP
        accounting (``dp-accounting``) or pure bound stays within (ε, δ).
    repetitions : {"geometric", "logarithmic", "negative-binomial"}, \
            default="geometric"
        The law of K (see :func:`sample_repetitions`).
    mean_repetitions : float, default=10.0
        E[K] ≥ 1. The pure-DP cost does not depend on it; the running time
        does (E[K] fits), as does the chance of trying every candidate.
    shape : float or None, default=None
        η > 0 for ``repetitions="negative-binomial"``.
    validation_fraction : float, default=0.2
        Share of the rows in the validation part, in (0, 1); the size is
        ``ceil(validation_fraction * n)``, a function of the public n.
    scoring : {"accuracy", "weighted-error"}, default="accuracy"
        How a candidate is scored on held-out rows: ``"accuracy"`` counts
        mistakes (sensitivity 1); ``"weighted-error"`` weighs a mistake on class
        c by w(c) = 1/(K·π_c) for the K public class priors π, whose sensitivity
        is max_c w(c) (max-weight/n as a rate). The noise of the selection is
        calibrated to that sensitivity (McSherry & Talwar 2007, Thm 6, for the
        exponential mechanism; Dwork & Roth 2014, Thm 3.6, for Laplace scores).
        Use it on imbalanced problems, where mistake counts favour a constant
        classifier. Metrics normalised by the private class counts (balanced
        accuracy) have no public sensitivity and are not offered.
    class_priors : dict, array-like or None, default=None
        Public class proportions for ``scoring="weighted-error"``, summing to 1:
        ``{class: prior}``, or one prior per class in the order of the
        estimator's ``classes``. ``None``: the ``label.priors`` of the pipeline's
        schema when declared. They must come from public knowledge (a census,
        a published rate), never from the private rows.
    accountant : BudgetAccountant or None, default=None
        Checked for (ε, δ) before the data are read and charged once, with one
        :class:`~dpsvm.accounting.PrivacyEvent`, after a successful fit; a
        failed fit spends nothing.
    random_state : None or int, default=None
        Drives the split, the candidates' noise and the selection. ``None``
        uses a ChaCha20 CSPRNG keyed by the OS. An int makes everything
        reproducible — **for tests and documentation only, never for a real
        release**. A generator object is refused at ``fit`` (here and on the
        tuned estimator: kept as a parameter, it would replay the noise).
    split_random_state : None or int, default=None
        Seed of the data split alone (it reads no record, so a seed is fine
        here, e.g. for a reproducible, publishable split while the noise comes
        from the CSPRNG). ``None``: drawn from ``random_state``'s generator. A
        generator object is refused at ``fit``, as for every public seed.

    Attributes
    ----------
    best_estimator_ : estimator
        The released model (the best run's fit on the training part).
    best_index_ : int
        Its candidate index in the expanded grid.
    best_params_ : dict
        Its parameters.
    best_noisy_mistakes_ : float
        Its noisy validation mistake count (part of the released output).
    base_epsilon_ : float
        ε₀ of one run.
    partition_ : tuple of ndarray
        (training indices, validation indices), data-independent.
    privacy_event_ : PrivacyEvent
        One event for the whole procedure (ε, δ end to end); its children are
        the component releases (candidate fits, noisy scores, the selection).
    n_features_in_ : int
        Number of features seen in ``fit``.

    See Also
    --------
    PrivateParameterTuning : Sarwate, Chaudhuri & Monteleoni (2009), Algorithm 3.
    repeated_selection_epsilon : The cost formulas.

    Notes
    -----
    **Privacy.** Replace-one neighbours; the split depends only on n and a
    random permutation. One run is ε₀-DP: a record in the training part moves
    only the fit (ε₀-DP), a record in the validation part moves only the count,
    by at most 1, and Laplace(1/ε₀) noise makes it ε₀-DP. Releasing the best
    of K runs is 3ε₀-DP for geometric K (Liu & Talwar 2019), (2 + η)ε₀-DP for
    truncated negative binomial K and 2ε₀-DP for logarithmic K (Papernot &
    Steinke 2022, Thm 2, pure limit). **K, the other runs and their scores are
    not released**; publishing K voids the amplification. The candidate law is
    uniform over a public grid.

    References
    ----------
    .. [1] J. Liu, K. Talwar, "Private selection from private candidates",
       STOC 2019, arXiv:1811.07971.
    .. [2] N. Papernot, T. Steinke, "Hyperparameter tuning with Renyi
       differential privacy", ICLR 2022, arXiv:2110.03620.

    Examples
    --------
    >>> from dpsvm.datasets import make_nested_balls
    >>> from dpsvm.models import DPLinearSVC
    >>> X, y = make_nested_balls(4000, random_state=0)
    >>> grid = {"regularization": [1e-2, 1e-1]}
    >>> from dpsvm.model_selection import PrivateRandomSearch
    >>> search = PrivateRandomSearch(
    ...     DPLinearSVC(classes=[-1, 1]), grid, epsilon=0.9, mean_repetitions=3,
    ...     random_state=0,
    ... ).fit(X, y)
    >>> round(search.base_epsilon_, 6), search.privacy_event_.epsilon
    (0.3, 0.9)
    """

    _parameter_constraints: dict[str, list[Any]] = {
        **SELECTOR_CONSTRAINTS,
        "delta": [Interval(Real, 0, 1, closed="left"), StrOptions({"auto"})],
        "repetitions": [StrOptions({"geometric", "logarithmic", "negative-binomial"})],
        "mean_repetitions": [Interval(Real, 1, None, closed="left")],
        "shape": [Interval(Real, 0, None, closed="neither"), None],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
    }

    def __init__(
        self,
        estimator: Any,
        param_grid: Mapping[str, Any] | Sequence[Mapping[str, Any]] | ParameterGrid,
        *,
        epsilon: float = 1.0,
        delta: float | str = 0.0,
        repetitions: str = "geometric",
        mean_repetitions: float = 10.0,
        shape: float | None = None,
        validation_fraction: float = 0.2,
        scoring: str = "accuracy",
        class_priors: Mapping[Any, float] | ArrayLike | None = None,
        accountant: BudgetAccountant | None = None,
        random_state: int | None = None,
        split_random_state: int | None = None,
    ) -> None:
        self.estimator = estimator
        self.param_grid = param_grid
        self.epsilon = epsilon
        self.delta = delta
        self.repetitions = repetitions
        self.mean_repetitions = mean_repetitions
        self.shape = shape
        self.validation_fraction = validation_fraction
        self.scoring = scoring
        self.class_priors = class_priors
        self.accountant = accountant
        self.random_state = random_state
        self.split_random_state = split_random_state

    def _selection_budget(
        self, n_samples: int | Callable[[], int]
    ) -> tuple[float | None, float | None]:
        """ε₀ of one run, calibrated to the end-to-end (ε, δ), and that δ."""
        epsilon = check_epsilon(self.epsilon)
        # "auto": n^-1.5 of the public row count; δ ≥ 1/n refused.
        delta = resolve_delta(self.delta, n_samples)
        _shape_of(self.repetitions, self.shape)  # refuses a bad law or shape
        if self.repetitions != "negative-binomial" and self.shape is not None:
            raise ValueError("shape is only used with repetitions='negative-binomial'.")
        mean = _check_mean(self.mean_repetitions)
        eps0 = _calibrate_base_epsilon(
            epsilon, delta, self.repetitions, self.shape, mean
        )
        return eps0, delta

    def _select(self, start: SelectionStart) -> tuple[int, Any, PrivacyEvent]:
        """Run the random-stopping selection and keep the best run."""
        eps0, delta, epsilon = start.candidate_epsilon, start.delta, start.epsilon
        eta = _shape_of(self.repetitions, self.shape)
        mean = _check_mean(self.mean_repetitions)
        rng, Xd, y, candidates = start.rng, start.X, start.y, start.candidates
        val, train = self._holdout_split("validation_fraction", y.shape[0], rng)
        X_tr, y_tr = take_rows(Xd, train), y[train]
        X_val, y_val = take_rows(Xd, val), y[val]
        score = start.score

        k = sample_repetitions(self.repetitions, mean, rng, shape=self.shape)
        best: tuple[float, int, Any] | None = None
        m = len(candidates)
        for _ in range(k):
            i = int(rng.integers(m))  # data-independent candidate draw
            est = prepare_candidates(self.estimator, [candidates[i]], eps0)[0]
            fit_with_child_stream(est, X_tr, y_tr, rng)
            fitted_event(est, eps0)
            z = score.mistakes(y_val, np.asarray(est.predict(X_val)))
            # Laplace mechanism on a count of sensitivity Δ (1, or the largest
            # public class weight for weighted mistakes): scale Δ/ε₀ (Dwork &
            # Roth 2014, Thm 3.6).
            delta_z = score.sensitivity
            release = laplace_release(
                np.array([z]), delta_z / eps0, rng, sensitivity=delta_z
            )
            noisy = float(release[0])
            if best is None or noisy < best[0]:
                best = (noisy, i, est)
        assert best is not None  # K ≥ 1
        noisy, i, est = best

        fit_event = fitted_event(est, eps0)
        score_event = LaplaceVector(
            epsilon=eps0, sensitivity=score.sensitivity
        ).privacy_event(
            statistic="validation mistakes"
            if score.weights is None
            else "validation mistakes weighted by public class priors",
            n_validation_samples=int(val.size),
        )
        run_event = PrivacyEvent(
            mechanism="fit-and-noisy-score",
            epsilon=max(fit_event.epsilon, score_event.epsilon),
            reference="parallel composition over train/validation (McSherry 2009, "
            "Thm 4)",
            children=(fit_event, score_event),
        )
        # ε₀ was calibrated so that the end-to-end cost ((2 + η)ε₀, or the RDP
        # bound) is ≤ ε; the budget ε is what is recorded.
        event = PrivacyEvent(
            mechanism=f"random-stopping-selection({self.repetitions})",
            epsilon=epsilon,
            delta=delta,
            reference=_REFERENCE,
            details={
                "base_epsilon": eps0,
                "repetitions": self.repetitions,
                "shape": eta,
                "mean_repetitions": mean,
                "n_candidates": m,
                "n_train_samples": int(train.size),
                "n_validation_samples": int(val.size),
            },
            children=(run_event,),
        )

        self.partition_ = (train, val)
        self.base_epsilon_ = eps0
        self.best_noisy_mistakes_ = noisy
        return i, est, event

# SPDX-License-Identifier: BSD-3-Clause
"""Private choice of the margin ρ (Algorithm 6 of Bassily, Mohri & Suresh 2022)."""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import minimize
from sklearn.base import clone

from .._compat import HasMethods, Interval, StrOptions
from ..accounting import BudgetAccountant, PrivacyEvent, basic_composition
from ..utils._random import random_state_constraint
from ..validation import resolve_delta
from ._base import (
    REFERENCE,
    FloatArray,
    MarginClassifierBase,
    child_seed,
    rows_in_ball,
    split_random_state,
)
from .bounds import jl_erm_dimension, margin_grid
from .linear import JLMarginClassifier
from .losses import SmoothedRhoHingeLoss
from .projections import FastJL, project_to_ball
from .selection import GeneralizedExponentialMechanism

__all__ = ["PrivateMarginSelection"]

#: Widest rows for the SLSQP warm candidate (its quasi-Newton matrix is dense,
#: d × d); wider score rows go to FISTA directly (or use score_components).
_CANDIDATE_MAX_DIM = 500


def smoothed_hinge_minimum(
    X: Any,
    y: FloatArray,
    *,
    rho: float,
    radius: float,
    data_norm: float,
    smoothing: float,
    tol: float,
    max_iter: int | None = None,
    candidate: FloatArray | None = None,
) -> tuple[float, float]:
    """min_{‖w‖≤Λ} (1/m)Σ φ(yᵢ⟨w, xᵢ⟩) to a guaranteed accuracy, and that accuracy.

    φ is the Moreau envelope of the ρ-hinge with parameter λ = c·ρ² (c =
    ``smoothing``), so the objective f is r²/λ-smooth in w. FISTA runs from 0
    and stops at the first iterate (checked every 10 steps) whose Frank–Wolfe
    duality gap ⟨∇f(w), w⟩ + Λ‖∇f(w)‖ — an upper bound on f(w) − min f for a
    convex f on B(Λ) (Jaggi 2013, §2) — is at most ``tol``, and at the latest
    after T steps, when f(w_T) − min f ≤ 2(r²/λ)Λ²/(T + 1)² (Beck & Teboulle
    2009, Thm 4.4) for every dataset. With ``max_iter=None``, T is the first
    step count whose a-priori bound is ≤ ``tol``, so the returned value is
    within ``tol`` of the minimum for every dataset; a smaller cap T gives the
    accuracy max(``tol``, that bound). A ``candidate`` w (any point, e.g. a
    warm start) is used instead when it lies in B(Λ) and its duality gap is
    already ≤ ``tol``: the certificate, not how w was found, is what the
    accuracy rests on. Returns (value, guaranteed accuracy).
    """
    lam = smoothing * rho**2
    loss = SmoothedRhoHingeLoss(rho=rho, smoothing=lam)
    lip = data_norm**2 / lam
    # Beck & Teboulle (2009), Thm 4.4: 2·lip·Λ²/(T + 1)² ≤ tol.
    needed = max(1, math.ceil(math.sqrt(2.0 * lip * radius**2 / tol)) - 1)
    n_iter = needed if max_iter is None else min(int(max_iter), needed)
    accuracy = max(tol, 2.0 * lip * radius**2 / (n_iter + 1) ** 2)
    m = X.shape[0]

    def gradient(w: FloatArray) -> FloatArray:
        return np.asarray(X.T @ (loss.derivative(y * (X @ w)) * y) / m)

    def certified(w: FloatArray) -> bool:
        g = gradient(w)
        return float(g @ w) + radius * float(np.linalg.norm(g)) <= tol

    if (
        candidate is not None
        and float(np.linalg.norm(candidate)) <= radius
        and certified(candidate)
    ):
        return float(np.mean(loss.value(y * (X @ candidate)))), accuracy
    x = np.zeros(X.shape[1])
    z = x.copy()
    t = 1.0
    for step in range(1, n_iter + 1):
        x_new = project_to_ball(z - gradient(z) / lip, radius)
        t_new = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * t * t))
        z = x_new + ((t - 1.0) / t_new) * (x_new - x)
        x, t = x_new, t_new
        if step % 10 == 0 and certified(x):
            break
    value = float(np.mean(loss.value(y * (X @ x))))
    return value, accuracy


def constrained_candidate(
    X: Any,
    y: FloatArray,
    *,
    rho: float,
    radius: float,
    smoothing: float,
    start: FloatArray,
) -> FloatArray:
    """A minimizer of the smoothed ρ-hinge on B(Λ) by SLSQP (speed only).

    A candidate that :func:`smoothed_hinge_minimum` keeps only when its duality
    gap certifies it; no guarantee rests on how it was found.
    """
    loss = SmoothedRhoHingeLoss(rho=rho, smoothing=smoothing * rho**2)
    m = X.shape[0]

    def objective(w: FloatArray) -> tuple[float, FloatArray]:
        t = y * (X @ w)
        grad = np.asarray(X.T @ (loss.derivative(t) * y) / m)
        return float(np.mean(loss.value(t))), grad

    res = minimize(
        objective,
        project_to_ball(start, radius),
        jac=True,
        method="SLSQP",
        constraints=[
            {
                "type": "ineq",
                "fun": lambda w: radius**2 - float(w @ w),
                "jac": lambda w: -2.0 * w,
            }
        ],
        options={"maxiter": 500, "ftol": 1e-12},
    )
    return np.asarray(project_to_ball(res.x, radius), dtype=np.float64)


def selection_score(
    min_loss: float,
    m: int,
    epsilon: float,
    delta: float,
    beta: float,
    norm_bound: float,
    data_norm: float,
    margin: float,
    n_components: int,
    const: float = 1.0,
) -> float:
    """F(ρ, g) of the margin selection: Thm 3.2's form with Lemma 3.1's k.

    F = g + C·(√(ln(1/β)/m) + (Λr/ρ)(1/√m + √(k ln(1/δ))/(εm))), where g is
    the smallest empirical (smoothed) ρ-hinge loss over B(Λ), k the dimension
    the base learner works in and ε its budget. It is the bound of
    Bassily, Mohri & Suresh (2022), Thm 3.2, with its privacy term taken in
    the form of Lemma 3.1 before k ≈ εm is substituted — (Λr/ρ)·√k/(εm) up
    to log factors, the excess ρ-hinge risk of private ERM in k dimensions
    (Bassily, Smith & Thakurta 2014, Thm 2.4, the rate of the default
    noisy-GD base learner) — and the O-constants set to C. Non-increasing in
    ρ for fixed g; any fixed C keeps the selection private.
    """
    ratio = norm_bound * data_norm / margin
    privacy = math.sqrt(n_components * math.log(1.0 / delta)) / (epsilon * m)
    return min_loss + const * (
        math.sqrt(math.log(1.0 / beta) / m) + ratio * (1.0 / math.sqrt(m) + privacy)
    )


class PrivateMarginSelection(MarginClassifierBase):
    """Choose the margin ρ privately, then fit a margin learner with it.

    Algorithm 6 of Bassily, Mohri & Suresh (2022): over the grid
    ρⱼ = 2^{−j}·Λr, j = 1..⌈½ log₂ m⌉, the generalized exponential mechanism
    picks the ρ minimizing a risk bound F(ρ, g_ρ(S)), where g_ρ(S) is the
    smallest empirical (smoothed) ρ-hinge loss over B(Λ); the base learner is
    then fitted with that margin.

    The selection rule (see Notes): F(ρ, g) = g + C·(√(ln(1/β)/m) +
    (Λr/ρ)(1/√m + √(k ln(1/δ))/(ε_b m))) — Thm 3.2's bound with its privacy
    term in Lemma 3.1's form for the base learner's dimension k and budget
    ε_b — so that a smaller margin is chosen exactly when it lowers the
    empirical margin loss by more than it raises the complexity and privacy
    terms; each g is computed to a certified accuracy τⱼ, which enters the
    score sensitivity.

    Parameters
    ----------
    estimator : estimator with a ``margin`` parameter, default=None
        The base learner (``None``: ``JLMarginClassifier(max_iter=1000)``). Its
        ``margin``, ``epsilon`` and, where present, ``delta``, ``norm_bound``,
        ``data_norm``, ``classes``, ``fit_intercept`` and ``random_state`` are
        overwritten.
    epsilon : float, default=1.0
        Total ε > 0.
    delta : float or "auto", default="auto"
        δ, all of it given to the base learner; ``"auto"``: n^−1.5 of the
        public row count (:func:`dpsvm.validation.resolve_delta`).
    norm_bound : float, default=1.0
        Λ.
    data_norm : float, default=1.0
        r; rows are projected onto B(r) for the scores. h_max = Λr.
    selection_fraction : float, default=0.5
        Share of ε spent on the selection (Cor. F.2 uses ½).
    beta : float, default=0.05
        β of the bound F and of the GEM threshold.
    bound_constant : float, default=0.5
        C, the constant multiplying the O-terms of F (any fixed value is
        private). The default was chosen among {1, 0.5, 0.25} by validation on
        a 70/30 split of UCI Adult's training file (docs/margins.md).
    smoothing : float, default=0.1
        c: the scores use the Moreau-smoothed ρ-hinge with λ = cρ², which is
        within c/2 of the ρ-hinge everywhere.
    solver_tol : float, default=1.0
        The certified accuracy of each score as a multiple of its loss-range
        term: τⱼ = ``solver_tol``·(1 + Λr/ρⱼ)/m. FISTA stops at a Frank–Wolfe
        duality gap ≤ τⱼ, and at the latest after the step count whose
        a-priori bound 2Λ²r²/(cρⱼ²(T + 1)²) is ≤ τⱼ.
    solver_max_iter : int or None, default=None
        A cap T on the FISTA steps per margin (``None``: the a-priori count
        above). A cap below that count makes the guaranteed accuracy
        max(τⱼ, 2Λ²r²/(cρⱼ²(T + 1)²)), which is what the sensitivity then
        carries.
    score_components : int or None, default=None
        If set, the scores are computed on a data-independent fast JL sketch of
        the rows to this dimension (rows projected onto B(r) before and after
        the sketch): cheaper for wide data and still a fixed function of the
        data, so equally private.
    classes : array-like of 2 labels, default=None
        The public label set; ``None`` reads it from the data and emits a
        :class:`~dpsvm.exceptions.PrivacyLeakWarning`.
    accountant : BudgetAccountant or None, default=None
        Budget to check before the data are read and charge after a successful
        fit. Shared by clones (it is not copied).
    random_state : None or int, default=None
        ``None`` uses a fresh CSPRNG (real releases); an int is for tests and
        documentation only. A generator object is refused at ``fit`` (kept as a
        parameter, it would replay the noise).
    fit_intercept : bool, default=False
        Fit an intercept: each row is projected onto B(√(r² − s²)) and given the
        constant public coordinate s = ``intercept_scaling``·r, so augmented rows
        stay in B(r) and every calibration keeps the public bound r; the
        intercept adds at most s to a row's norm. ``intercept_`` is the weight of
        that coordinate times s.
    intercept_scaling : float, default=0.5
        s/r ∈ (0, 1).

    Attributes
    ----------
    margins_ : ndarray
        The grid ρⱼ.
    sensitivities_ : ndarray
        Δⱼ = (1 + Λr/ρⱼ)/m + (guaranteed solver accuracy), public.
    selected_margin_ : float
        The chosen ρ.
    estimator_ : estimator
        The fitted base learner.
    coef_ : ndarray
        The base learner's ``coef_`` (without the intercept coordinate).
    privacy_event_ : PrivacyEvent
        Composition of the GEM (pure) and the base learner's event.
    intercept_ : float or ndarray of shape (n_classes,)
        The intercept (0 without ``fit_intercept``).
    estimators_ : list of estimators
        With more than 2 classes only: the K binary one-vs-rest learners (each
        fitted at (ε/K, δ/K) on the augmented rows; see their attributes);
        ``coef_`` then has one row per class.
    classes_ : ndarray of shape (2,)
        The labels.
    n_features_in_ : int
        Input width.

    Notes
    -----
    **Privacy.** (ε, δ)-DP under replace-one by basic composition (Lemma F.1):
    the GEM is ``selection_fraction``·ε-DP (pure) and the base learner gets the
    rest and all of δ. Each score's sensitivity is the ρ-hinge range over m,
    (1 + Λr/ρⱼ)/m — the tighter valid form of Lemma F.3's 2Λr/(mρ) — plus the
    solver's guaranteed accuracy τⱼ, since the score is a computed, not exact,
    minimum: both a certified duality gap and the a-priori FISTA bound hold
    for every dataset, so |ĝ(S) − ĝ(S′)| ≤ (1 + Λr/ρⱼ)/m + τⱼ. With the default
    ``solver_tol`` the accuracy equals the range term, so it at most doubles
    the paper's sensitivity; it is never dropped. The smoothed loss is below
    the hinge, so smoothing only shifts F. The grid, h_max, k, τⱼ and F depend
    only on public quantities; the scores themselves are not stored. The
    number of FISTA steps (the running time) depends on the data; the output
    does not, beyond the stated sensitivities.

    **Selection rule.** Thm 3.2's bound as printed is
    g + O(√(ln(1/β)/m) + (Λr/ρ)(1/√m + √(ln(m/β) ln(1/β)) ln^{3/4}(1/δ)/√(εm))),
    whose privacy term is Lemma 3.1's (Λr/ρ)·√k·ln^{3/2}(1/δ)ln(1/β)/(εm) at
    Algorithm 2's k ≈ εm and Algorithm 5's log factors. Minimized as printed
    it always prefers the largest margin at realistic m (on Adult, m ≈ 32,000,
    the penalty of the second grid point already exceeds any possible drop of
    g). F here keeps the structure — margin loss plus (Λr/ρ)·(generalization
    + privacy) — with the privacy term (Λr/ρ)√(k ln(1/δ))/(εm) of private ERM
    in the base learner's actual dimension k = min(d, Algorithm 2's k)
    (Bassily, Smith & Thakurta 2014, Thm 2.4; the default base learner's
    solver is their noisy GD) and constant C = ``bound_constant``.

    References
    ----------
    .. [1] R. Bassily, M. Mohri, A. T. Suresh, "Differentially private learning
       with margin guarantees", NeurIPS 2022 (arXiv:2204.10376), App. F,
       Alg. 6, Lemmas F.1 and F.3, Cor. F.2; Lemma 3.1 and Thm 3.2.
    .. [2] S. Raskhodnikova, A. Smith, "Lipschitz extensions for node-private
       graph statistics and the generalized exponential mechanism", FOCS 2016.
    .. [3] A. Beck, M. Teboulle, "A fast iterative shrinkage-thresholding
       algorithm for linear inverse problems", SIAM J. Imaging Sci. 2009.
    .. [4] M. Jaggi, "Revisiting Frank-Wolfe: projection-free sparse convex
       optimization", ICML 2013.
    .. [5] R. Bassily, A. Smith, A. Thakurta, "Private empirical risk
       minimization: efficient algorithms and tight error bounds", FOCS 2014.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 5)); X /= np.linalg.norm(X, axis=1)[:, None]
    >>> y = np.where(X[:, 0] > 0, 1, -1)
    >>> sel = PrivateMarginSelection(epsilon=2.0, delta=1e-4, classes=[-1, 1],
    ...                              random_state=0).fit(X, y)
    >>> bool(sel.selected_margin_ in sel.margins_)
    True
    """

    _parameter_constraints: dict[str, list[Any]] = {
        "estimator": [None, HasMethods(["fit", "decision_function"])],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither"), StrOptions({"auto"})],
        "norm_bound": [Interval(Real, 0, None, closed="neither")],
        "data_norm": [Interval(Real, 0, None, closed="neither")],
        "selection_fraction": [Interval(Real, 0, 1, closed="neither")],
        "beta": [Interval(Real, 0, 1, closed="neither")],
        "bound_constant": [Interval(Real, 0, None, closed="left")],
        "smoothing": [Interval(Real, 0, None, closed="neither")],
        "solver_tol": [Interval(Real, 0, None, closed="neither")],
        "solver_max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "score_components": [Interval(Integral, 1, None, closed="left"), None],
        "classes": ["array-like", None],
        "accountant": [BudgetAccountant, None],
        "random_state": random_state_constraint(),
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(Real, 0, 1, closed="neither")],
    }

    def __init__(
        self,
        estimator: Any = None,
        *,
        epsilon: float = 1.0,
        delta: float | str = "auto",
        norm_bound: float = 1.0,
        data_norm: float = 1.0,
        selection_fraction: float = 0.5,
        beta: float = 0.05,
        bound_constant: float = 0.5,
        smoothing: float = 0.1,
        solver_tol: float = 1.0,
        solver_max_iter: int | None = None,
        score_components: int | None = None,
        classes: ArrayLike | None = None,
        accountant: BudgetAccountant | None = None,
        random_state: int | None = None,
        fit_intercept: bool = False,
        intercept_scaling: float = 0.5,
    ) -> None:
        self.estimator = estimator
        self.epsilon = epsilon
        self.delta = delta
        self.norm_bound = norm_bound
        self.data_norm = data_norm
        self.selection_fraction = selection_fraction
        self.beta = beta
        self.bound_constant = bound_constant
        self.smoothing = smoothing
        self.solver_tol = solver_tol
        self.solver_max_iter = solver_max_iter
        self.score_components = score_components
        self.classes = classes
        self.accountant = accountant
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling

    def _fit_binary(self, Xv: Any, ys: FloatArray, labels: ArrayLike) -> None:
        m = Xv.shape[0]
        delta = resolve_delta(self.delta, m, allow_zero=False)  # "auto": n^-1.5
        base = (
            clone(self.estimator)
            if self.estimator is not None
            # 1,000 noisy-GD steps: the selected margins are large (Λr/ρ ≈ 8 on
            # Adult), where 200 steps leave the iterates far from the optimum.
            else JLMarginClassifier(max_iter=1000)
        )
        if not hasattr(base, "margin"):
            raise ValueError("estimator must have a 'margin' parameter.")
        gen, public_seed = split_random_state(self.random_state)
        eps_sel = self.selection_fraction * self.epsilon
        eps_base = self.epsilon - eps_sel
        lam, r = self.norm_bound, self.data_norm
        # Bounded before mapped: rows onto B(r) before the sketch (overflow-safe),
        # and the sketched rows onto B(r) again (the scores' data_norm).
        rows: Any = rows_in_ball(Xv, r)
        if self.score_components is not None:
            sketch = FastJL(self.score_components, random_state=public_seed)
            rows = rows_in_ball(sketch.fit(Xv[:1]).transform(rows), r)
        # k of F: the base learner's dimension, at most Algorithm 2's k (public).
        k = min(Xv.shape[1], jl_erm_dimension(m, eps_base, delta, self.beta))
        margins = margin_grid(lam * r, m)
        previous = np.zeros(rows.shape[1])
        scores = np.empty(margins.size)
        sens = np.empty(margins.size)
        for j, rho in enumerate(margins):
            # Bassily, Mohri & Suresh (2022), Lemma F.3 (F2): the ρ-hinge lies in
            # [0, 1 + Λr/ρ], so its minimum moves by ≤ that/m between neighbours.
            loss_range = (1.0 + lam * r / rho) / m
            candidate = None
            if rows.shape[1] <= _CANDIDATE_MAX_DIM:
                # A warm candidate (speed only): the previous margin's solution
                # halved (φ = h_c(t/ρ): w/2 keeps the outputs in margin units
                # when ρ halves), polished by SLSQP; kept only if certified.
                previous = constrained_candidate(
                    rows,
                    ys,
                    rho=rho,
                    radius=lam,
                    smoothing=self.smoothing,
                    start=previous / 2.0,
                )
                candidate = previous
            g, acc = smoothed_hinge_minimum(
                rows,
                ys,
                rho=rho,
                radius=lam,
                data_norm=r,
                smoothing=self.smoothing,
                tol=self.solver_tol * loss_range,
                max_iter=self.solver_max_iter,
                candidate=candidate,
            )
            # Plus the solver's guaranteed accuracy (the computed value is
            # within it of the minimum for every dataset).
            sens[j] = loss_range + acc
            scores[j] = selection_score(
                g,
                m,
                eps_base,
                delta,
                self.beta,
                lam,
                r,
                rho,
                k,
                const=self.bound_constant,
            )
        gem = GeneralizedExponentialMechanism(
            epsilon=eps_sel, sensitivities=sens, beta=self.beta
        )
        chosen = gem.select(scores, random_state=gen)
        rho_star = float(margins[chosen])
        params: dict[str, Any] = {"margin": rho_star, "epsilon": eps_base}
        available = base.get_params()
        for name, value in (
            ("delta", delta),
            ("norm_bound", lam),
            ("data_norm", r),
            ("classes", self.classes_),
            ("fit_intercept", False),  # the rows already carry the constant
            ("accountant", None),  # charged once, for the whole fit, below
            # Never hand the privacy generator to an object kept after the fit.
            ("random_state", child_seed(self.random_state, gen)),
        ):
            if name in available:
                params[name] = value
        base.set_params(**params)
        base.fit(Xv, labels)
        self.margins_ = margins
        self.sensitivities_ = sens
        self.selected_margin_ = rho_star
        self.estimator_ = base
        self.coef_ = getattr(base, "coef_", None)  # type: ignore[assignment]
        base_event = base.privacy_event_
        gem_event = gem.privacy_event()
        # Lemma F.1: basic composition of the GEM and the base learner
        # (Dwork & Roth 2014, Thm 3.16), through the library's one helper.
        eps_total, delta_total = basic_composition([gem_event, base_event])
        self.privacy_event_ = PrivacyEvent(
            "private-margin-selection",
            eps_total,
            delta_total,
            neighbouring=base_event.neighbouring,
            reference=f"{REFERENCE}, App. F, Alg. 6 and Lemma F.1",
            details={"selected_margin": rho_star, "composition": "basic"},
            children=(gem_event, base_event),
        )

    def _scores(self, Xv: Any) -> FloatArray:
        """Scores of the fitted base learner."""
        return np.asarray(self.estimator_.decision_function(Xv), dtype=np.float64)

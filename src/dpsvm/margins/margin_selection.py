# SPDX-License-Identifier: BSD-3-Clause
"""Private choice of the margin ρ (Algorithm 6 of Bassily, Mohri & Suresh 2022)."""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import clone

from .._compat import HasMethods, Interval, StrOptions
from ..accounting import BudgetAccountant, PrivacyEvent, basic_composition
from ..utils._params import store_init_params
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
from ._docs import margin_doc
from .bounds import jl_erm_risk_bound, margin_grid
from .linear import JLMarginClassifier
from .losses import SmoothedRhoHingeLoss
from .projections import FastJL, project_to_ball
from .selection import GeneralizedExponentialMechanism

__all__ = ["PrivateMarginSelection"]


def smoothed_hinge_minimum(
    X: Any,
    y: FloatArray,
    *,
    rho: float,
    radius: float,
    data_norm: float,
    smoothing: float,
    n_iter: int,
) -> tuple[float, float]:
    """FISTA value of min_{‖w‖≤Λ} (1/m)Σ φ(yᵢ⟨w, xᵢ⟩) and its a-priori accuracy.

    φ is the Moreau envelope of the ρ-hinge with parameter λ = c·ρ² (c =
    ``smoothing``), so the objective is r²/λ-smooth in w. After T steps from 0,
    the objective at the iterate exceeds the minimum by at most
    2(r²/λ)Λ²/(T + 1)² (Beck & Teboulle 2009, Thm 4.4) — for every dataset.
    Returns (value, that accuracy).
    """
    lam = smoothing * rho**2
    loss = SmoothedRhoHingeLoss(rho=rho, smoothing=lam)
    lip = data_norm**2 / lam
    m = X.shape[0]
    x = np.zeros(X.shape[1])
    z = x.copy()
    t = 1.0
    for _ in range(n_iter):
        grad = X.T @ (loss.derivative(y * (X @ z)) * y) / m
        x_new = project_to_ball(z - grad / lip, radius)
        t_new = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * t * t))
        z = x_new + ((t - 1.0) / t_new) * (x_new - x)
        x, t = x_new, t_new
    value = float(np.mean(loss.value(y * (X @ x))))
    accuracy = 2.0 * lip * radius**2 / (n_iter + 1) ** 2
    return value, accuracy


@margin_doc
class PrivateMarginSelection(MarginClassifierBase):
    """Choose the margin ρ privately, then fit a margin learner with it.

    Algorithm 6 of Bassily, Mohri & Suresh (2022): over the grid
    ρⱼ = 2^{−j}·Λr, j = 1..⌈½ log₂ m⌉, the generalized exponential mechanism
    picks the ρ minimizing the Thm 3.2 bound F(ρ, g_ρ(S)), where g_ρ(S) is the
    smallest empirical (smoothed) ρ-hinge loss over B(Λ); the base learner is
    then fitted with that margin.

    Parameters
    ----------
    estimator : estimator with a ``margin`` parameter, default=None
        The base learner (``None``: :class:`JLMarginClassifier`). Its
        ``margin``, ``epsilon`` and, where present, ``delta``, ``norm_bound``,
        ``data_norm``, ``classes`` and ``random_state`` are overwritten.
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
    bound_constant : float, default=1.0
        The constant multiplying the O-terms of F (any fixed value is private).
    smoothing : float, default=0.1
        c: the scores use the Moreau-smoothed ρ-hinge with λ = cρ², which is
        within c/2 of the ρ-hinge everywhere.
    solver_max_iter : int, default=1000
        FISTA steps T per margin; the a-priori accuracy 2Λ²r²/(cρ²(T + 1)²)
        is added to each score's sensitivity.
    score_components : int or None, default=None
        If set, the scores are computed on a data-independent fast JL sketch of
        the rows to this dimension (rows projected onto B(r) before and after
        the sketch): cheaper for wide data and still a fixed function of the
        data, so equally private.
    %(classes)s
    %(accountant)s
    %(random_state)s

    Attributes
    ----------
    margins_ : ndarray
        The grid ρⱼ.
    sensitivities_ : ndarray
        Δⱼ = (1 + Λr/ρⱼ)/m + (solver accuracy), public.
    selected_margin_ : float
        The chosen ρ.
    estimator_ : estimator
        The fitted base learner.
    coef_ : ndarray
        The base learner's ``coef_``.
    privacy_event_ : PrivacyEvent
        Composition of the GEM (pure) and the base learner's event.
    %(label_attributes)s

    Notes
    -----
    **Privacy.** (ε, δ)-DP under replace-one by basic composition (Lemma F.1):
    the GEM is ``selection_fraction``·ε-DP (pure) and the base learner gets the
    rest and all of δ. Each score's sensitivity is the ρ-hinge range over m,
    (1 + Λr/ρⱼ)/m — the tighter valid form of Lemma F.3's 2Λr/(mρ) — plus the
    solver's a-priori accuracy, since the score is a computed, not exact,
    minimum (the smoothed loss is below the hinge, so smoothing only shifts F).
    The grid, h_max and F depend only on public quantities. The scores
    themselves are not stored.

    References
    ----------
    .. [1] R. Bassily, M. Mohri, A. T. Suresh, "Differentially private learning
       with margin guarantees", NeurIPS 2022 (arXiv:2204.10376), App. F,
       Alg. 6, Lemmas F.1 and F.3, Cor. F.2.
    .. [2] S. Raskhodnikova, A. Smith, "Lipschitz extensions for node-private
       graph statistics and the generalized exponential mechanism", FOCS 2016.
    .. [3] A. Beck, M. Teboulle, "A fast iterative shrinkage-thresholding
       algorithm for linear inverse problems", SIAM J. Imaging Sci. 2009.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 5)); X /= np.linalg.norm(X, axis=1)[:, None]
    >>> y = np.where(X[:, 0] > 0, 1, -1)
    >>> sel = PrivateMarginSelection(epsilon=2.0, delta=1e-4, classes=[-1, 1],
    ...                              solver_max_iter=50, random_state=0).fit(X, y)
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
        "solver_max_iter": [Interval(Integral, 1, None, closed="left")],
        "score_components": [Interval(Integral, 1, None, closed="left"), None],
        "classes": ["array-like", None],
        "random_state": random_state_constraint(),
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
        bound_constant: float = 1.0,
        smoothing: float = 0.1,
        solver_max_iter: int = 1000,
        score_components: int | None = None,
        classes: ArrayLike | None = None,
        accountant: BudgetAccountant | None = None,
        random_state: int | None = None,
    ) -> None:
        store_init_params(self, locals())

    def _fit_binary(self, Xv: Any, ys: FloatArray, labels: ArrayLike) -> None:
        m = Xv.shape[0]
        delta = resolve_delta(self.delta, m, allow_zero=False)  # "auto": n^-1.5
        base = (
            clone(self.estimator)
            if self.estimator is not None
            else (JLMarginClassifier())
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
        margins = margin_grid(lam * r, m)
        scores = np.empty(margins.size)
        sens = np.empty(margins.size)
        for j, rho in enumerate(margins):
            g, acc = smoothed_hinge_minimum(
                rows,
                ys,
                rho=rho,
                radius=lam,
                data_norm=r,
                smoothing=self.smoothing,
                n_iter=self.solver_max_iter,
            )
            # Bassily, Mohri & Suresh (2022), Lemma F.3 (F2): the ρ-hinge lies in
            # [0, 1 + Λr/ρ], so its minimum moves by ≤ that/m; plus the solver's
            # a-priori accuracy (the computed value is within it of the minimum).
            sens[j] = (1.0 + lam * r / rho) / m + acc
            scores[j] = jl_erm_risk_bound(
                g,
                m,
                eps_base,
                delta,
                self.beta,
                lam,
                r,
                rho,
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

# SPDX-License-Identifier: BSD-3-Clause
"""The private interactive predictor (Jain & Thakurta 2013, Alg. 1) and variants."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Mapping
from numbers import Integral, Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils.validation import check_is_fitted

from .._compat import Interval, StrOptions, _fit_context
from ..accounting.accountant import BudgetAccountant, resolve_accountant
from ..accounting.charge import Charge, charge
from ..accounting.composition import best_repeated_composition
from ..accounting.events import PrivacyEvent
from ..bounds.prediction import (
    interactive_parameters,
    noisy_label_scale,
    weight_norm_bound,
)
from ..exceptions import BudgetExceededError
from ..mechanisms import laplace_release, sample_discrete_laplace
from ..validation import check_epsilon, n_rows, resolve_delta
from ._answers import PredictionAnswers
from ._common import (
    JT_REFERENCE,
    LAPLACE_MIN_ADVANTAGE,
    FloatArray,
    InteractiveBudgetMixin,
    PredictionBase,
    refuse_vacuous,
    smallest_useful,
)
from ._sparse_vector import sparse_vector_grid

__all__ = ["PredictionAnswers", "PrivateInteractivePredictor"]

_STATE_FORMAT = "dpsvm.PrivateInteractivePredictor/1"


class PrivateInteractivePredictor(InteractiveBudgetMixin, PredictionBase):
    """Answer prediction queries privately, one at a time, within a fixed (ε, δ).

    ``fit`` trains the exact bias-free kernel ERM w* (Jain & Thakurta eq. (2);
    ``regularization`` is their λ) and keeps it in the object: **the object
    itself must never be published, pickled or sent to a client**. Clients
    only ever see what :meth:`answer` returns. Queries are answered in the
    order given; the total privacy cost of all ``n_queries`` answers is
    (``epsilon``, ``delta``), fixed at fit.

    Parameters
    ----------
    epsilon : float, default=1.0
        Total ε of all answers.
    delta : float or "auto", default=1e-6
        Total δ < 1/n (``"pinp"`` needs δ > 0; ``"sparse-vector"`` ignores it;
        ``"laplace"`` uses it for advanced composition, 0 for basic);
        ``"auto"``: n^−1.5 of the public row count (0 for ``"sparse-vector"``).
    n_queries : int, default=1000
        T, the maximum number of answers (fixed in advance: it enters the
        calibration). Batches that would exceed it are refused.
    mechanism : {"pinp", "sparse-vector", "laplace"}, default="pinp"
        ``"pinp"``: Jain & Thakurta Alg. 1 (online interactive dataset
        construction); ``"sparse-vector"``: the same with the update test done
        by the sparse vector technique (pure ε-DP, proof in
        ``docs/prediction.md``); ``"laplace"``: every answer is
        ⟨w*, φ(z)⟩ + Lap(S/ε_q) (the per-query baseline of
        :class:`~dpsvm.models.PerQueryLaplacePredictor`, with ε_q from composing T
        answers).
    beta : float, default=0.05
        Failure probability β of the utility statement (enters σ and B).
    constants : {"thm9", "alg1"}, default="thm9"
        ε₀ of Thm 9 (the proof's) or the printed Alg. 1 value (twice as
        large; not covered by the cited theorem).
    B_rule : {"paper", "potential"} or int, default="paper"
        The cap B on update rounds (see
        :func:`dpsvm.bounds.prediction.interactive_parameters`). Privacy holds
        for any B, since ε₀ (resp. the sparse-vector scales) use the same B.
    w_norm_bound : float or None, default=None
        Public C ≥ ‖w*‖; ``None``: 2L·R_φ/λ (data-independent).
    threshold : float or None, default=None
        ``"sparse-vector"`` only: the public update threshold σ; ``None``:
        4·(2BS/ε₂)·ln(2T/β), four comparison-noise scales times ln(2T/β).
    svt_split : tuple of three floats, default=(0.25, 0.25, 0.5)
        ``"sparse-vector"`` only: the shares (ε₁, ε₂, ε₃)/ε of the threshold
        noise, the comparisons and the released update values.
    after_cap : {"public-state", "refuse"}, default="public-state"
        What to do once B updates happened: answer from the released state
        Σα_τK(z, z_τ) (post-processing, free, no accuracy guarantee; flagged in
        :attr:`PredictionAnswers.public_state`), or refuse further batches (the
        rest of the batch that reached the cap is still answered from the
        released state).
    on_vacuous : {"raise", "warn"}, default="raise"
        What ``fit`` does when, from public quantities only (n, ε, δ, λ, T,
        R_φ), no answer can depend on the data (``"pinp"``/``"sparse-vector"``:
        σ ≥ C·R_φ; ``"laplace"``: the noise drowns the largest possible score,
        see :attr:`vacuous_`): raise :class:`VacuousCalibrationError`, whose
        one-line message names the smallest n, the largest ``n_queries`` or the
        ε that would work, or only warn (:class:`VacuousCalibrationWarning`;
        for studying the mechanism, never for serving).
    accountant : BudgetAccountant or None, default=None
        Optional shared budget, next to the predictor's own fixed (ε, δ) and
        T. Before each batch it is checked (:func:`dpsvm.accounting.charge`)
        for the most the batch can cost, and after the batch it is charged
        what the batch did cost; a refused batch is not answered and spends
        nothing. The charges are ``"pinp"``: the whole (ε, δ) once, as
        ``privacy_event_``, with the first answer; ``"sparse-vector"``: one
        pure event per batch (ε₁ + ε₂ with the first answer, ε₃/B per update);
        ``"laplace"``: one ε_q event per answer (the accountant composes them;
        give it ``slack`` > 0 for advanced composition). ``fit`` charges
        nothing. Not part of :meth:`state_dict`: persist the accountant
        alongside it.
    kernel : {"linear", "rbf", "poly"} or callable, default="rbf"
        K(x, y) = ⟨x, y⟩, exp(−γ‖x − y‖²), (γ⟨x, y⟩ + c₀)^p, or a
        callable ``K(A, B) -> gram`` with ``kernel_bound`` declared.
    gamma : float, default=1.0
        γ > 0 (rbf, poly), fixed before seeing the data.
    degree : int, default=3
        p (poly).
    coef0 : float, default=1.0
        c₀ ≥ 0 (poly).
    data_norm : float or None, default=1.0
        Radius of the declared input domain; training rows and every query are
        projected onto it and R_φ is computed from it.
    kernel_bound : float or None, default=None
        R_φ of a callable kernel (required for one, refused otherwise).
    loss : {"hinge", "pinball", "absolute", "squared"}, default="hinge"
        The loss of w* (hinge: classification, L = 1).
    quantile : float, default=0.5
        τ of the pinball loss.
    y_bound : float or None, default=None
        M for the squared loss.
    regularization : float, default=0.01
        λ > 0 of (λ/2)‖w‖² (public, not tuned on the data).
    classes : array-like or None, default=None
        The public label set; ``None`` reads it from y with a
        :class:`~dpsvm.exceptions.PrivacyLeakWarning`.
    random_state : None or int, default=None
        ``None``: CSPRNG noise (real use), a fresh generator for every call
        of :meth:`answer`, none kept on the object. An int: a reproducible
        stream per call (indexed by a call counter), **tests and docs only**.
        A generator object is refused at ``fit`` (kept on the object, it would
        replay the noise). No generator state is part of :meth:`state_dict`,
        only the call counter: a resumed predictor continues with the next
        call's stream (an int seed never replays an earlier answer's noise;
        ``None`` resumes with fresh CSPRNG streams).

    Attributes
    ----------
    classes_ : ndarray
        The label set.
    kappa_ : float
        R_φ on the declared domain.
    prediction_sensitivity_ : float
        S = 2LR_φ²/(λn) plus the solver-certificate margin.
    lipschitz_ : float
        L of the loss.
    w_norm_bound_ : float
        C.
    max_updates_ : int
        B (``"laplace"``: 0).
    threshold_ : float
        σ (``"laplace"``: inf).
    step_ : float
        η = σ/(4R_φ²).
    noise_scale_ : float
        Laplace scale of a released answer (1/ε₀, cS/ε₃ or S/ε_q).
    vacuous_ : bool
        No answer can depend on the data: σ ≥ C·R_φ (``"pinp"``,
        ``"sparse-vector"``), or for ``"laplace"`` the largest score C·R_φ
        gives the right sign with probability below 0.51 (only with
        ``on_vacuous="warn"``; ``"raise"`` refuses the fit).
    privacy_event_ : PrivacyEvent
        The record of the whole interaction (ε, δ).
    n_features_in_ : int
        Number of input features.

    See Also
    --------
    dpsvm.models.PerQueryLaplacePredictor : Per-query Laplace with an accountant.

    Notes
    -----
    Privacy: replace-one neighbours; the whole answer sequence is
    (ε, δ)-DP for ``"pinp"`` (Jain & Thakurta Thm 2 via their Thm 9 = Gupta,
    Roth & Ullman 2011 Thm 4.1), ε-DP for ``"sparse-vector"`` (Lyu, Su & Li
    2017 Alg. 1 plus the Laplace mechanism; proof in ``docs/prediction.md``)
    and (ε, δ)-DP (δ > 0) or ε-DP for ``"laplace"`` (T answers of ε_q,
    advanced or basic composition). Every answer depends on the data only
    through ⟨w*, φ(z)⟩, whose sensitivity is S (eq. (3)). Assumptions
    (enforced): rows and queries projected onto the declared domain, a convex
    L-Lipschitz loss, the certified minimiser, public hyperparameters, at most
    T queries. Queries may be chosen adaptively from earlier answers only.
    The update state (z_τ, α_τ) is a function of the answers and the public σ
    and η (:meth:`state_from_answers`). Costs are charged as: ``"pinp"`` the
    whole (ε, δ) at the first answer; ``"sparse-vector"`` ε₁ + ε₂ at the first
    answer plus ε₃/B per update; ``"laplace"`` the composition of the answers
    given. Noisy values are released with the floating-point-safe discretised
    Laplace (:func:`dpsvm.mechanisms.laplace_release`); the ``"sparse-vector"``
    threshold and comparison noise are exact discrete Laplace integers on a
    public grid γ ≤ S·2⁻²⁰, compared in integers (``_sparse_vector``).

    References
    ----------
    .. [1] P. Jain, A. Thakurta, "Differentially private learning with
       kernels", ICML 2013, Alg. 1, Theorems 2, 3, 9 and eq. (3).
    .. [2] A. Gupta, A. Roth, J. Ullman, "Iterative constructions and private
       data release", arXiv:1107.3731, Theorem 4.1.
    .. [3] M. Lyu, D. Su, N. Li, "Understanding the sparse vector technique for
       differential privacy", PVLDB 10(6), 2017, Algorithm 1.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(300, 2)) / 2
    >>> y = np.where(X[:, 0] > 0, 1, -1)
    >>> pip = PrivateInteractivePredictor(mechanism="laplace", epsilon=1.0,
    ...     n_queries=10, classes=[-1, 1], random_state=0).fit(X, y)
    >>> ans = pip.answer(X[:3])
    >>> ans.labels.shape, ans.n_answers, pip.remaining_budget()["answers"]
    ((3,), 3, 7)
    """

    _parameter_constraints: dict[str, Any] = {
        **PredictionBase._parameter_constraints,
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="left"), StrOptions({"auto"})],
        "n_queries": [Interval(Integral, 1, None, closed="left")],
        "mechanism": [StrOptions({"pinp", "sparse-vector", "laplace"})],
        "beta": [Interval(Real, 0, 1, closed="neither")],
        "constants": [StrOptions({"thm9", "alg1"})],
        "B_rule": [
            StrOptions({"paper", "potential"}),
            Interval(Integral, 1, None, closed="left"),
        ],
        "w_norm_bound": [Interval(Real, 0, None, closed="neither"), None],
        "threshold": [Interval(Real, 0, None, closed="neither"), None],
        "svt_split": [tuple],
        "after_cap": [StrOptions({"public-state", "refuse"})],
        "on_vacuous": [StrOptions({"raise", "warn"})],
        "accountant": [BudgetAccountant, None],
    }

    def __init__(
        self,
        *,
        epsilon: float = 1.0,
        delta: float | str = 1e-6,
        n_queries: int = 1000,
        mechanism: str = "pinp",
        beta: float = 0.05,
        constants: str = "thm9",
        B_rule: str | int = "paper",
        w_norm_bound: float | None = None,
        threshold: float | None = None,
        svt_split: tuple[float, float, float] = (0.25, 0.25, 0.5),
        after_cap: str = "public-state",
        on_vacuous: str = "raise",
        accountant: BudgetAccountant | None = None,
        kernel: str | Callable[..., Any] = "rbf",
        gamma: float = 1.0,
        degree: int = 3,
        coef0: float = 1.0,
        data_norm: float | None = 1.0,
        kernel_bound: float | None = None,
        loss: str = "hinge",
        quantile: float = 0.5,
        y_bound: float | None = None,
        regularization: float = 0.01,
        classes: ArrayLike | None = None,
        random_state: int | None = None,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.n_queries = n_queries
        self.mechanism = mechanism
        self.beta = beta
        self.constants = constants
        self.B_rule = B_rule
        self.w_norm_bound = w_norm_bound
        self.threshold = threshold
        self.svt_split = svt_split
        self.after_cap = after_cap
        self.on_vacuous = on_vacuous
        self.accountant = accountant
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.data_norm = data_norm
        self.kernel_bound = kernel_bound
        self.loss = loss
        self.quantile = quantile
        self.y_bound = y_bound
        self.regularization = regularization
        self.classes = classes
        self.random_state = random_state

    # ------------------------------------------------------------------ fit
    def _check_split(self) -> tuple[float, float, float]:
        split = tuple(float(s) for s in self.svt_split)
        if len(split) != 3 or not all(s > 0 for s in split):
            raise ValueError(
                "svt_split must be three positive shares (threshold, comparisons, "
                f"values) of epsilon; got {self.svt_split!r}."
            )
        total = sum(split)
        a, b, _ = (s / total for s in split)
        return a, b, 1.0 - a - b

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: ArrayLike, y: ArrayLike) -> PrivateInteractivePredictor:
        """Train the private model w* (spends nothing; nothing is released).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training rows (projected onto the domain).
        y : array-like of shape (n_samples,)
            Labels (hinge) or targets.

        Returns
        -------
        self
            The fitted predictor, ready to :meth:`answer`.

        Raises
        ------
        ValueError
            For invalid parameters (e.g. ``"pinp"`` with δ = 0).
        """
        eps = check_epsilon(self.epsilon)
        # "auto": n^-1.5 of the public row count; δ ≥ 1/n refused.
        delta = resolve_delta(
            self.delta,
            lambda: n_rows(X),
            allow_zero=self.mechanism != "pinp",
            uses_delta=self.mechanism != "sparse-vector",
        )
        split = self._check_split() if self.mechanism == "sparse-vector" else None
        if self.threshold is not None and self.mechanism != "sparse-vector":
            raise ValueError(
                "threshold is only for mechanism='sparse-vector'; the 'pinp' "
                "threshold is fixed by Jain & Thakurta's Theorem 9."
            )
        cal, n = self._fit_model(X, y)
        S = cal.prediction_effective
        T = int(self.n_queries)
        R = self.kappa_
        lam = float(self.regularization)
        C = (
            weight_norm_bound(self.lipschitz_, R, lam)
            if self.w_norm_bound is None
            else float(self.w_norm_bound)
        )
        self.prediction_sensitivity_ = S
        self.w_norm_bound_ = C
        details: dict[str, Any] = {
            "n_queries": T,
            "n_samples": n,
            "kernel_bound": R,
            "w_norm_bound": C,
            "regularization": lam,
        }
        if self.mechanism == "laplace":
            # T answers of ε_q each: Dwork, Rothblum & Vadhan Thm III.3 (Jain &
            # Thakurta Thm 11) if δ > 0, else basic composition ε/T.
            self.noise_scale_ = noisy_label_scale(T, eps, delta, S)
            self._eps_q = S / self.noise_scale_
            self.max_updates_, self.threshold_, self.step_ = 0, math.inf, 0.0
            reference = (
                "per-query Laplace ⟨w*, φ(z)⟩ + Lap(S/ε_q) (Dwork et al. 2006) with "
                "S from Jain & Thakurta eq. (3), composed by their Thm 11"
            )
        else:
            sigma, B, params = self._update_threshold(n, T, eps, delta, S, C, R, split)
            self.max_updates_ = B
            if self.mechanism == "pinp":
                # Jain & Thakurta Alg. 1: â = a + Lap(1/ε₀), σ = (4/ε₀)ln(2T/β).
                self.noise_scale_ = 1.0 / params.eps0
                details["eps0"] = params.eps0
                reference = (
                    f"{JT_REFERENCE}, Alg. 1 and Thm 2 via Thm 9 (Gupta, Roth & "
                    f"Ullman 2011, Thm 4.1), constants={self.constants!r}"
                )
            else:
                assert split is not None
                e1, e2, e3 = (s * eps for s in split)
                self._svt_eps = (e1, e2, e3)
                # Lyu, Su & Li 2017 Alg. 1 with c = B: ρ ~ Lap(S/ε₁),
                # ν_t ~ Lap(2cS/ε₂), here exactly on the grid γ (_sparse_vector);
                # released values Lap(cS/ε₃) (Laplace mechanism).
                self._svt_grid = sparse_vector_grid(S, sigma, e1, e2, B)
                self.noise_scale_ = B * S / e3
                details["svt_epsilons"] = [e1, e2, e3]
                details["svt_grid"] = self._svt_grid.spacing
                reference = (
                    "sparse vector technique (Lyu, Su & Li 2017, Alg. 1) on the "
                    f"update test of {JT_REFERENCE}, Alg. 1; S from eq. (3)"
                )
            self.threshold_ = sigma
            # Jain & Thakurta Alg. 1: η = σ/(4R_φ²).
            self.step_ = sigma / (4.0 * R * R)
            details.update(max_updates=B, threshold=sigma, step=self.step_)
        self.vacuous_ = self._is_vacuous(n, T, eps, delta, S, C, R, split)
        if self.vacuous_:
            self._refuse_vacuous(n, T, eps, delta, S, C, R, split)
        details["noise_scale"] = self.noise_scale_
        self.privacy_event_ = self._prediction_event(
            f"interactive-prediction-{self.mechanism}",
            eps,
            delta if self.mechanism != "sparse-vector" else 0.0,
            reference,
            details,
        )
        self._n_noise_calls = 0  # a fresh noise stream per call (none kept)
        self._reset_state()
        return self

    # ------------------------------------------------------------ vacuity
    def _update_threshold(
        self,
        n: int,
        T: int,
        eps: float,
        delta: float,
        S: float,
        C: float,
        R: float,
        split: tuple[float, float, float] | None,
    ) -> tuple[float, int, Any]:
        """σ, B and Jain & Thakurta's parameters for n rows (S at those n)."""
        params = interactive_parameters(
            n,
            float(self.regularization),
            eps,
            delta if self.mechanism == "pinp" else 1e-6,
            self.beta,
            T,
            self.lipschitz_,
            R,
            C,
            constants=self.constants,
            B_rule=self.B_rule,
            sensitivity=S,
        )
        B = params.max_updates
        if self.mechanism == "pinp":
            return params.threshold, B, params
        assert split is not None
        # Lyu, Su & Li Alg. 1 with c = B: comparisons Lap(2BS/ε₂); the default
        # σ is four comparison scales times ln(2T/β).
        comparison = 2.0 * B * S / (split[1] * eps)
        sigma = (
            4.0 * comparison * math.log(2.0 * T / self.beta)
            if self.threshold is None
            else float(self.threshold)
        )
        return sigma, B, params

    def _is_vacuous(
        self,
        n: int,
        T: int,
        eps: float,
        delta: float,
        S: float,
        C: float,
        R: float,
        split: tuple[float, float, float] | None,
    ) -> bool:
        """Whether no answer can depend on the data (public quantities only).

        ``"pinp"``/``"sparse-vector"``: σ ≥ C·R_φ, the largest possible
        |⟨w*, φ(z)⟩|, so no genuine update can occur and every answer is the
        public state's prediction (0). ``"laplace"``: even the largest score
        C·R_φ gives the right sign with probability 1 − ½e^{−CR_φ/b} below
        0.5 + ``LAPLACE_MIN_ADVANTAGE`` (b the noise scale): a coin flip.
        """
        if self.mechanism == "laplace":
            b = noisy_label_scale(T, eps, delta, S)
            return bool(0.5 * -math.expm1(-C * R / b) < LAPLACE_MIN_ADVANTAGE)
        sigma = self._update_threshold(n, T, eps, delta, S, C, R, split)[0]
        return bool(sigma >= C * R)

    def _refuse_vacuous(
        self,
        n: int,
        T: int,
        eps: float,
        delta: float,
        S: float,
        C: float,
        R: float,
        split: tuple[float, float, float] | None,
    ) -> None:
        """Raise (or warn, ``on_vacuous="warn"``) naming n, T or ε that work."""

        def useful(n_: float, T_: int, eps_: float) -> bool:
            # S = κ(Δ_H + 2·cap) ∝ 1/n (Nie & Wang Thm 2): rescale to n_ rows.
            n_i = max(1, int(n_))
            return not self._is_vacuous(n_i, T_, eps_, delta, S * n / n_i, C, R, split)

        hints = []
        n_min = smallest_useful(lambda v: useful(v, T, eps), n)
        if n_min is not None:
            hints.append(f"at least {int(n_min)} training rows")
        if T > 1 and useful(n, 1, eps):
            lo, hi = 1, T  # useful(lo), not useful(hi)
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if useful(n, mid, eps) else (lo, mid)
            hints.append(f"n_queries <= {lo}")
        eps_min = smallest_useful(lambda v: useful(n, T, v), eps, integer=False)
        if eps_min is not None:
            hints.append(f"epsilon >= {eps_min:.3g}")
        what = (
            f"the noise scale {noisy_label_scale(T, eps, delta, S):.4g} drowns the "
            f"largest possible score C·R_φ = {C * R:.4g} (every label is a coin "
            "flip)"
            if self.mechanism == "laplace"
            else f"the update threshold σ = {self.threshold_:.4g} is at least "
            f"C·R_φ = {C * R:.4g}, the largest possible |prediction|, so every "
            "answer is 0 (a coin flip)"
        )
        msg = (
            f"mechanism={self.mechanism!r} is vacuous here: {what}; use "
            + (
                " or ".join(hints)
                if hints
                else "another mechanism (no n, n_queries or epsilon makes this "
                "one useful with these parameters), e.g. 'subsample-aggregate'"
            )
            + "."
        )
        refuse_vacuous(self.on_vacuous, msg)

    def _reset_state(self) -> None:
        self._n_answers = 0
        self._points: list[FloatArray] = []
        self._coef: list[float] = []
        self._spent = (0.0, 0.0)
        self._rho = None
        if self.mechanism == "sparse-vector":  # ρ ~ DLap(T₁) in grid units, once
            t_rho = self._svt_grid.threshold_noise_units
            self._rho = int(
                sample_discrete_laplace(1, t_rho, self._noise_generator())[0]
            )

    # --------------------------------------------------------------- budget
    @property
    def n_updates(self) -> int:
        """Number of update rounds so far."""
        check_is_fitted(self)
        return len(self._coef)

    @property
    def budget_exhausted(self) -> bool:
        """Whether no further query can be answered."""
        check_is_fitted(self)
        if self._n_answers >= int(self.n_queries):
            return True
        return (
            self.after_cap == "refuse"
            and self.mechanism != "laplace"
            and self.n_updates >= self.max_updates_
        )

    def remaining_budget(self) -> dict[str, Any]:
        """What is left: ε, δ, answers and (for the update mechanisms) updates.

        Returns
        -------
        dict
            ``epsilon``, ``delta`` (total minus spent), ``answers`` (T minus
            answers given, 0 when exhausted) and ``updates`` (B minus updates;
            None for ``"laplace"``).
        """
        check_is_fitted(self)
        return {
            "epsilon": max(0.0, self.total_epsilon - self._spent[0]),
            "delta": max(0.0, self.total_delta - self._spent[1]),
            "answers": 0
            if self.budget_exhausted
            else int(self.n_queries) - self._n_answers,
            "updates": None
            if self.mechanism == "laplace"
            else self.max_updates_ - self.n_updates,
        }

    def _spent_after(self, n_answers: int, n_updates: int) -> tuple[float, float]:
        """Cumulative (ε, δ) after n answers with n updates (see Notes)."""
        if n_answers == 0:
            return 0.0, 0.0
        total = (self.total_epsilon, self.total_delta)
        if self.mechanism == "pinp":
            return total  # the whole sequence is one (ε, δ) guarantee (Thm 2)
        if self.mechanism == "sparse-vector":
            e1, e2, e3 = self._svt_eps
            B = self.max_updates_
            return min(total[0], e1 + e2 + e3 * min(n_updates, B) / B), 0.0
        # n_answers identical pure costs ε_q: the closed form, O(1) per answer.
        eps, delta = best_repeated_composition(
            self._eps_q, n_answers, delta_slack=total[1], max_delta=total[1]
        )
        return min(eps, total[0]), delta

    def _check_batch(self, k: int) -> Charge:
        """Check the accountant for the most a batch of k answers can cost.

        Upper bound: k more answers, each of them an update (up to the cap B).
        """
        if self.mechanism == "laplace":
            return charge(self.accountant, k * self._eps_q)
        worst = self._spent_after(
            self._n_answers + k, min(self.n_updates + k, self.max_updates_)
        )
        return charge(
            self.accountant, worst[0] - self._spent[0], worst[1] - self._spent[1]
        )

    def _charge_batch(
        self, ticket: Charge, k: int, before: tuple[float, float]
    ) -> None:
        """Spend what the batch cost on the ticket of :meth:`_check_batch`."""
        if self.mechanism == "laplace":
            # k Laplace answers of ε_q each (sensitivity S): one event each.
            event = PrivacyEvent(
                "interactive-prediction-laplace-answer",
                self._eps_q,
                sensitivity=self.prediction_sensitivity_,
                sensitivity_norm="sup",
                reference=self.privacy_event_.reference,
            )
            ticket.spend(event, times=k)
            return
        eps, delta = self._spent[0] - before[0], self._spent[1] - before[1]
        if eps == 0.0 and delta == 0.0:
            return  # nothing new released (pinp after the first answer)
        if before == (0.0, 0.0) and self._spent == (
            self.total_epsilon,
            self.total_delta,
        ):
            ticket.spend(self.privacy_event_)  # the whole guarantee at once
            return
        ticket.spend(
            self._prediction_event(
                f"interactive-prediction-{self.mechanism}-batch",
                eps,
                delta,
                self.privacy_event_.reference,
                {"n_answers": k, "n_updates": self.n_updates},
            )
        )

    # --------------------------------------------------------------- answer
    def _public_score(
        self, z: FloatArray, points: list[FloatArray], coef: list[float]
    ) -> float:
        """p = ⟨w_t, φ(z)⟩ = Σ α_τ K(z, z_τ) from the released state only.

        Always computed one row at a time in the same way, so that replaying
        the answers (:meth:`state_from_answers`) gives bit-identical values.
        """
        if not coef:
            return 0.0
        g = self._model.spec.gram(z[None, :], np.vstack(points))[0]
        return float(np.dot(g, np.asarray(coef)))

    def answer(self, X: ArrayLike) -> PredictionAnswers:
        """Answer a batch of queries, in order, and charge its privacy cost.

        Not thread-safe: a server must serialise calls (and commit
        :meth:`state_dict` before sending the answers).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            Query points (projected onto the domain). They may depend on earlier
            answers, never on the training data.

        Returns
        -------
        PredictionAnswers
            Labels, released scores and the cost of the batch.

        Raises
        ------
        BudgetExceededError
            If the batch would exceed ``n_queries`` answers, the update cap
            was reached with ``after_cap="refuse"``, or the ``accountant``
            cannot afford the batch. Nothing is answered or spent.
        ValueError
            For malformed queries (wrong width, NaN); nothing is spent.
        """
        check_is_fitted(self)
        Z = self._project(X)
        k = Z.shape[0]
        T = int(self.n_queries)
        if self.budget_exhausted:
            raise BudgetExceededError(
                "The prediction budget is exhausted: no further queries can be "
                "answered (a restart does not restore it)."
            )
        if self._n_answers + k > T:
            raise BudgetExceededError(
                f"This batch of {k} queries exceeds the remaining "
                f"{T - self._n_answers} of n_queries={T}; nothing was answered."
            )
        before = self._spent
        acc = resolve_accountant(self.accountant)
        # One hold of the ledger from the worst-case check to the spend: the
        # actual cost (data-dependent for sparse-vector) then always fits, so a
        # concurrent spend cannot make the refusal depend on the data.
        with acc.exclusive() if acc is not None else contextlib.nullcontext():
            ticket = self._check_batch(k)  # before any answer is computed
            saved = (self._n_answers, self._points, self._coef)
            if self.mechanism == "laplace":
                # Per-coordinate discretised Laplace, as PerQueryLaplacePredictor: each
                # answer moves by at most S between neighbours and is ε_q-DP.
                exact = self._model.decision(Z)
                scores = laplace_release(
                    exact,
                    self.noise_scale_,
                    self._noise_generator(),
                    sensitivity=self.noise_scale_ * self._eps_q,
                )
                updates = np.zeros(k, dtype=bool)
                public = np.zeros(k, dtype=bool)
            else:
                scores, updates, public = self._answer_updates(Z)
            self._n_answers += k
            self._spent = self._spent_after(self._n_answers, self.n_updates)
            try:
                self._charge_batch(ticket, k, before)
            except BaseException:
                # Not charged (the ledger is held, so only a cost above the
                # checked worst case could do this): the answers are discarded
                # unreleased and the state rolled back.
                self._n_answers, self._points, self._coef = saved
                self._spent = before
                raise
        return PredictionAnswers(
            labels=self._labels(scores),
            scores=np.asarray(scores, dtype=np.float64),
            updates=updates,
            public_state=public,
            epsilon=self._spent[0] - before[0],
            delta=self._spent[1] - before[1],
            spent_epsilon=self._spent[0],
            spent_delta=self._spent[1],
            n_answers=self._n_answers,
            budget_exhausted=self.budget_exhausted,
        )

    def predict(self, X: ArrayLike) -> np.ndarray:
        """The labels of :meth:`answer` (spends budget exactly as ``answer``).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            Query points (projected onto the declared domain).

        Returns
        -------
        ndarray of shape (n_queries,)
            ``answer(X).labels``.
        """
        return self.answer(X).labels

    def _answer_updates(
        self, Z: FloatArray
    ) -> tuple[FloatArray, np.ndarray, np.ndarray]:
        k = Z.shape[0]
        S = self.prediction_sensitivity_
        B = self.max_updates_
        sigma, eta = self.threshold_, self.step_
        if len(self._coef) >= B:
            # After the cap the private model is not touched any more: answers
            # are post-processing of the released state (Alg. 1, after B updates).
            pts, coef = self._points, self._coef
            scores = np.array([self._public_score(z, pts, coef) for z in Z])
            return scores, np.zeros(k, dtype=bool), np.ones(k, dtype=bool)
        exact = self._model.decision(Z)  # a_t = ⟨w*, φ(z_t)⟩ (private)
        # Noisy values, drawn for every query (Jain & Thakurta Alg. 1 step 2:
        # a fresh ζ_t each time), released only on update rounds.
        gen = self._noise_generator()
        noisy = laplace_release(exact, self.noise_scale_, gen, sensitivity=S)
        if self.mechanism == "sparse-vector":
            grid = self._svt_grid  # ν_t ~ DLap(T₂) in grid units, fresh per query
            comp = sample_discrete_laplace(k, grid.comparison_noise_units, gen)
        pts = list(self._points)
        coef = list(self._coef)
        scores = np.empty(k)
        updates = np.zeros(k, dtype=bool)
        public = np.zeros(k, dtype=bool)
        for t in range(k):
            p = self._public_score(Z[t], pts, coef)
            if len(coef) >= B:
                scores[t], public[t] = p, True  # released state only
                continue
            if self.mechanism == "pinp":
                # Alg. 1 step 5: update iff |â_t − p_t| > σ (sign of the noisy d̂_t).
                is_update = abs(noisy[t] - p) > sigma
            else:
                # Lyu, Su & Li Alg. 1: |a_t − p_t| + ν_t ≥ σ + ρ (ρ drawn once),
                # in exact integers: r(|a_t − p_t|) + ν_t ≥ Σ + ρ on the grid.
                assert self._rho is not None
                value = int(grid.to_units(np.array([abs(exact[t] - p)]))[0])
                is_update = value + int(comp[t]) >= grid.threshold_units + self._rho
            if is_update:
                # α_t = η·sign(â_t − p_t), from the released value only.
                pts.append(Z[t].copy())
                coef.append(eta * (1.0 if noisy[t] - p > 0 else -1.0))
                scores[t], updates[t] = noisy[t], True
            else:
                scores[t] = p
        self._points, self._coef = pts, coef
        return scores, updates, public

    # ----------------------------------------------------------- state
    def _config(self) -> dict[str, Any]:
        grid = (
            {"svt_grid": self._svt_grid.spacing}
            if self.mechanism == "sparse-vector"
            else {}
        )
        return {
            **grid,
            "mechanism": self.mechanism,
            "epsilon": self.total_epsilon,
            "delta": self.total_delta,
            "n_queries": int(self.n_queries),
            "max_updates": int(self.max_updates_),
            "threshold": None if math.isinf(self.threshold_) else self.threshold_,
            "step": self.step_,
            "noise_scale": self.noise_scale_,
            "sensitivity": self.prediction_sensitivity_,
            "n_features": int(self.n_features_in_),
            "classes": np.asarray(getattr(self, "classes_", [])).tolist(),
        }

    def state_dict(self) -> dict[str, Any]:
        """The mechanism state as a JSON-serialisable dict (to resume exactly).

        Contains the public configuration, the number of answers, the spent
        (ε, δ), the update rounds (z_τ, α_τ) (query points and signed steps,
        rebuildable from the answers), the number of noise streams used so far
        (``noise_calls``: with an int ``random_state`` the resumed predictor
        continues with the next stream instead of replaying an earlier
        answer's noise) and, for ``"sparse-vector"``, the threshold noise ρ
        (an integer, in units of the public grid γ).
        It contains **no generator state and nothing about the training
        data**. ρ is mechanism randomness: keep the state on the
        server (e.g. in the ledger), never send it to a client, and resume with
        it (drawing a new ρ would start a second sparse-vector run).

        Returns
        -------
        dict
            The state; ``json.dumps`` accepts it.
        """
        check_is_fitted(self)
        return {
            "format": _STATE_FORMAT,
            "config": self._config(),
            "n_answers": self._n_answers,
            "update_points": [p.tolist() for p in self._points],
            "update_coef": list(self._coef),
            "threshold_noise": self._rho,
            "noise_calls": self._n_noise_calls,
            "spent_epsilon": self._spent[0],
            "spent_delta": self._spent[1],
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> PrivateInteractivePredictor:
        """Resume from :meth:`state_dict` (same training data and parameters).

        Parameters
        ----------
        state : mapping
            A dict from :meth:`state_dict` of a predictor fitted identically.

        Returns
        -------
        self
            The predictor, in the saved state. Its noise-call counter becomes
            the larger of its own and the saved one (it never goes backwards,
            also when a server rolls back an uncommitted batch), so an int
            ``random_state`` never hands a resumed answer an earlier stream.

        Raises
        ------
        ValueError
            If the state is malformed or its configuration differs from this
            predictor's (nothing is changed then).
        """
        check_is_fitted(self)
        if not isinstance(state, Mapping) or state.get("format") != _STATE_FORMAT:
            raise ValueError(f"Not a {_STATE_FORMAT} state dict.")
        if dict(state.get("config", {})) != self._config():
            raise ValueError(
                "The saved state was made by a predictor with a different "
                "configuration (mechanism, budget, n_queries, calibration or "
                "classes); refit with the same parameters and data."
            )
        try:
            n_answers = int(state["n_answers"])
            coef = [float(c) for c in state["update_coef"]]
            d = int(self.n_features_in_)
            points = [
                np.asarray(p, dtype=np.float64).reshape(d)
                for p in state["update_points"]
            ]
            rho = state["threshold_noise"]
            if rho is not None:  # an integer, in grid units
                if isinstance(rho, bool) or not isinstance(rho, Integral):
                    raise TypeError("threshold_noise must be an integer (grid units)")
                rho = int(rho)
            spent = (float(state["spent_epsilon"]), float(state["spent_delta"]))
            calls = state.get("noise_calls")
            calls = None if calls is None else int(calls)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"Malformed {_STATE_FORMAT} state dict: {exc}.") from None
        if (
            len(points) != len(coef)
            or not 0 <= n_answers <= int(self.n_queries)
            or len(coef) > max(self.max_updates_, 0)
            or (rho is None) != (self.mechanism != "sparse-vector")
            or (calls is not None and calls < 0)
        ):
            raise ValueError(f"Inconsistent {_STATE_FORMAT} state dict.")
        if calls is None and self.random_state is not None:
            # A state saved before the counter was carried: resuming a seeded
            # predictor from it would replay the noise of earlier answers.
            raise ValueError(
                "The saved state has no noise_calls counter; with an int "
                "random_state the resumed predictor would reuse the noise of "
                "earlier answers. Resume with random_state=None."
            )
        self._n_noise_calls = max(self._n_noise_calls, calls or 0)
        self._n_answers, self._coef, self._points = n_answers, coef, points
        self._rho, self._spent = rho, spent
        return self

    def state_from_answers(
        self, X: ArrayLike, scores: ArrayLike
    ) -> tuple[FloatArray, FloatArray]:
        """Rebuild the update state (z_τ, α_τ) from queries and released answers.

        Replays the public rule: an answer that differs from the released
        state's prediction p_t is an update with α = η·sign(ŷ_t − p_t). Uses
        only σ-free public quantities (η, the kernel, the answers), never w*.

        Parameters
        ----------
        X : array-like of shape (n, n_features)
            All queries so far, in order.
        scores : array-like of shape (n,)
            Their released answers.

        Returns
        -------
        points : ndarray of shape (n_updates, n_features)
            The update points z_τ (projected).
        coef : ndarray of shape (n_updates,)
            The steps α_τ.
        """
        check_is_fitted(self)
        Z = self._project(X)
        s = np.asarray(scores, dtype=np.float64).ravel()
        pts: list[FloatArray] = []
        coef: list[float] = []
        for t in range(Z.shape[0]):
            p = self._public_score(Z[t], pts, coef)
            if s[t] != p:
                pts.append(Z[t].copy())
                coef.append(self.step_ * (1.0 if s[t] - p > 0 else -1.0))
        d = int(self.n_features_in_)
        return np.asarray(pts, dtype=np.float64).reshape(-1, d), np.asarray(coef)
